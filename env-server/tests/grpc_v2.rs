//! End-to-end tests of the second version of the gRPC service (issue 3): spec schema, tensor
//! observations and masks, result codes, Validate, shaped and per-side rewards,
//! Snapshot/Restore/Fork, Describe/Stats, StepBatch/ResetBatch, the Session stream, Echo,
//! limits and deadlines — and abuse: concurrent steps of one decision, 10,000 episodes,
//! stream disconnects, malformed batch items.
use pf1e_env_server::proto;
use pf1e_env_server::proto::environment_client::EnvironmentClient;
use pf1e_env_server::service::{result_code, EnvironmentService, ServiceConfig};
use std::time::Duration;
use tokio_stream::StreamExt;
use tonic::transport::Channel;
use tonic::Code;

mod common;
use common::*;

fn lean() -> Option<proto::ObservationOptions> {
    Some(proto::ObservationOptions {
        json: Some(false),
        tensors: false,
        legal_actions: Some(false),
        typed: Some(false),
        action_mask: true,
        ..Default::default()
    })
}

/// A deterministic policy: the legal action with the smallest id above `end_turn`, else 0.
/// Tensor observations and the mask only (the RL hot path).
fn tensors_only() -> Option<proto::ObservationOptions> {
    Some(proto::ObservationOptions {
        json: Some(false),
        tensors: true,
        legal_actions: Some(false),
        typed: Some(false),
        action_mask: true,
        ..Default::default()
    })
}

fn pick(state: &proto::EpisodeState) -> u32 {
    if !state.action_mask.is_empty() {
        return (1..state.action_mask.len())
            .find(|&i| state.action_mask[i] == 1)
            .unwrap_or(0) as u32;
    }
    state
        .legal_actions
        .iter()
        .map(|l| l.id)
        .find(|&id| id > 0)
        .unwrap_or(0)
}

fn step_req(state: &proto::EpisodeState, id: u32) -> proto::StepRequest {
    proto::StepRequest {
        episode_id: state.episode_id.clone(),
        decision_id: state.decision.as_ref().unwrap().decision_id,
        action_ids: vec![id],
        ..Default::default()
    }
}

fn done(s: &proto::EpisodeState) -> bool {
    s.terminated || s.truncated
}

#[tokio::test]
async fn spec_describes_schema_blocks_rewards_and_versions() {
    let mut t = start().await;
    let spec = t
        .client
        .get_spec(proto::GetSpecRequest {
            scenario: named("sample_arena"),
        })
        .await
        .unwrap()
        .into_inner();
    let schema = spec.observation_schema.as_ref().unwrap();
    let map = spec.map.as_ref().unwrap();
    assert_eq!(
        schema.plane_shape,
        vec![
            pf1e_engine::observe::tensor::PLANES as u32,
            map.rows as u32,
            map.cols as u32
        ]
    );
    assert_eq!(
        schema.plane_names.len(),
        pf1e_engine::observe::tensor::PLANES
    );
    assert_eq!(
        schema.feature_shape,
        vec![
            spec.combatants.len() as u32,
            pf1e_engine::observe::tensor::FEATURES as u32
        ]
    );
    assert_eq!(schema.feature_names[0], "present");
    // Exact bounds (issue 14): one pair per feature and per plane, low < high for features;
    // the sample arena's elevation plane reaches its highest level / 9.
    let n = pf1e_engine::observe::tensor::FEATURES;
    assert_eq!(
        (schema.feature_low.len(), schema.feature_high.len()),
        (n, n)
    );
    for (k, (lo, hi)) in schema
        .feature_low
        .iter()
        .zip(&schema.feature_high)
        .enumerate()
    {
        assert!(lo < hi, "{}: [{lo}, {hi}]", schema.feature_names[k]);
    }
    let hp = schema
        .feature_names
        .iter()
        .position(|x| x == "hp_fraction")
        .unwrap();
    assert_eq!(
        (schema.feature_low[hp], schema.feature_high[hp]),
        (-1.0, 1.0)
    );
    let p = pf1e_engine::observe::tensor::PLANES;
    assert_eq!((schema.plane_low.len(), schema.plane_high.len()), (p, p));
    assert!(schema.plane_low.iter().all(|&x| x == 0.0));
    assert_eq!(schema.plane_high[3], 1.0);
    assert!(schema.plane_high[4] > 0.0 && schema.plane_high[4] <= 1.0);
    assert_eq!(schema.weapon_slots, 4);
    // The blocks tile the action space.
    let mut next = 0;
    for b in &spec.action_blocks {
        assert_eq!(b.first_id, next, "{b:?}");
        next += b.size;
    }
    assert_eq!(next, spec.action_space_size);
    assert_eq!(spec.action_blocks[0].name, "end_turn");
    assert_eq!(spec.reward_components, vec!["sparse", "damage", "kill"]);
    let caps = spec.capabilities.unwrap();
    assert!(caps.feature_bounds);
    assert!(caps.json_observation && caps.tensor_observation && caps.snapshots);
    assert!(caps.batch && caps.stream && caps.validate && caps.shaped_rewards);
    assert_eq!(spec.rules_data_version.len(), 16);
    assert!(spec.rng_version.contains("rand_chacha 0.3.1"));
    assert_eq!(spec.mask_polarity, "1 = legal");
    assert!(spec.max_batch_items > 0);
    // Another scenario, another rules-data version; the same one, the same.
    let other = t
        .client
        .get_spec(proto::GetSpecRequest {
            scenario: named("mirror_duel"),
        })
        .await
        .unwrap()
        .into_inner();
    assert_ne!(other.rules_data_version, spec.rules_data_version);
    let again = t
        .client
        .get_spec(proto::GetSpecRequest {
            scenario: named("sample_arena"),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again.rules_data_version, spec.rules_data_version);
}

#[tokio::test]
async fn observation_options_tensors_mask_and_no_json() {
    let mut t = start().await;
    let spec = t
        .client
        .get_spec(proto::GetSpecRequest {
            scenario: named("sample_arena"),
        })
        .await
        .unwrap()
        .into_inner();
    // Default: JSON + typed + legal actions, no tensors, no mask.
    let d = t
        .client
        .reset(reset_req("sample_arena", 1, &["players"]))
        .await
        .unwrap()
        .into_inner();
    assert!(!d.observation.as_ref().unwrap().json.is_empty());
    assert!(d.tensors.is_none() && d.action_mask.is_empty());
    assert!(!d.legal_actions.is_empty());
    // Tensors: packed planes/features with the spec's shapes, and the mask.
    let mut req = reset_req("sample_arena", 1, &["players"]);
    req.observation = Some(proto::ObservationOptions {
        json: Some(false),
        tensors: true,
        ..Default::default()
    });
    let s = t.client.reset(req).await.unwrap().into_inner();
    let obs = s.observation.as_ref().unwrap();
    assert!(obs.json.is_empty() && !obs.combatants.is_empty());
    let tens = s.tensors.as_ref().unwrap();
    let schema = spec.observation_schema.unwrap();
    assert_eq!(tens.plane_shape, schema.plane_shape);
    assert_eq!(tens.feature_shape, schema.feature_shape);
    assert_eq!(
        tens.planes.len(),
        schema.plane_shape.iter().product::<u32>() as usize
    );
    assert_eq!(
        tens.features.len(),
        schema.feature_shape.iter().product::<u32>() as usize
    );
    assert_eq!(s.action_mask.len(), spec.action_space_size as usize);
    let from_mask: Vec<u32> = (0..s.action_mask.len() as u32)
        .filter(|&i| s.action_mask[i as usize] == 1)
        .collect();
    let from_list: Vec<u32> = s.legal_actions.iter().map(|l| l.id).collect();
    assert_eq!(from_mask, from_list, "mask and legal list agree");
    assert!(s.action_mask.iter().all(|&b| b <= 1));
    // Lean: no observation at all, no legal list; the mask only.
    let mut req = reset_req("sample_arena", 1, &["players"]);
    req.observation = lean();
    let mut s = t.client.reset(req).await.unwrap().into_inner();
    assert!(s.observation.is_none() && s.legal_actions.is_empty() && s.tensors.is_none());
    assert_eq!(s.action_mask, {
        let mut m = vec![0u8; spec.action_space_size as usize];
        for id in from_list {
            m[id as usize] = 1;
        }
        m
    });
    // Options persist across steps; the terminal mask is all zeros.
    while !done(&s) {
        s = t
            .client
            .step(step_req(&s, pick(&s)))
            .await
            .unwrap()
            .into_inner();
        assert!(s.observation.is_none());
    }
    assert!(s.action_mask.iter().all(|&b| b == 0));
    assert!(s.steps > 0);
}

#[test]
fn every_engine_reason_has_its_own_code() {
    use pf1e_engine::actions::{Reject as R, Slot, TargetIssue};
    use pf1e_engine::effects::conditions::Condition;
    // One refusal of every variant; the match below stops compiling when a variant is added
    // without being listed here.
    let all = [
        R::MissingTarget,
        R::InvalidTarget {
            target: None,
            why: TargetIssue::Ally,
        },
        R::WeaponUnavailable { weapon: Some(1) },
        R::NoWeapon,
        R::NoLineOfEffect,
        R::OutOfRange,
        R::OutOfAmmunition { weapon: 0 },
        R::NoChargePath,
        R::UnreachableDestination,
        R::InvalidDestination,
        R::AlreadyMoved,
        R::DowngradedActionEconomy {
            slot: Slot::FullRound,
        },
        R::DowngradedDisabled {
            slot: Slot::Standard,
        },
        R::CannotAct { condition: None },
        R::PreventedByCondition {
            condition: Condition::Pinned,
        },
        R::TurnEnded,
        R::NotProne,
        R::AlreadyProne,
        R::NoPowerAttack,
        R::TargetTooLarge,
        R::NotGrappled,
        R::MissingManeuver,
        R::CannotRun,
        R::WrongDecisionKind,
        R::DecisionAnswered,
        R::FightingDefensively,
        R::AlreadyDelayed,
        R::AlreadyActed,
        R::InvalidDelay,
        R::InvalidReady {
            why: pf1e_engine::actions::ReadyIssue::MissingReadied,
        },
        R::DowngradedSurprise {
            slot: Slot::Standard,
        },
        R::DowngradedStaggered {
            slot: Slot::Standard,
        },
        R::DowngradedNauseated { slot: Slot::Move },
        R::MissingFeat,
        R::AdjacentAtStart,
        R::StoodStill,
        R::FeatNotApplicable,
        R::NoDeadlyAim,
        R::NoCombatExpertise,
        R::NotEngaged,
        R::NotHelpless,
        R::ImmuneToCriticalHits,
        R::HandsFull,
        R::TargetConcealed,
        R::InvalidDirection,
        R::MissingSpell,
        R::UnknownSpell { spell: 9 },
        R::DowngradedCastTime,
        R::NoSlot { level: 1 },
        R::NoSpells,
        R::AlreadyDeclared,
        R::MetamagicNotApplicable,
    ];
    for r in &all {
        match r {
            R::MissingTarget
            | R::InvalidTarget { .. }
            | R::WeaponUnavailable { .. }
            | R::NoWeapon
            | R::NoLineOfEffect
            | R::OutOfRange
            | R::OutOfAmmunition { .. }
            | R::NoChargePath
            | R::UnreachableDestination
            | R::InvalidDestination
            | R::AlreadyMoved
            | R::DowngradedActionEconomy { .. }
            | R::DowngradedDisabled { .. }
            | R::CannotAct { .. }
            | R::PreventedByCondition { .. }
            | R::TurnEnded
            | R::NotProne
            | R::AlreadyProne
            | R::NoPowerAttack
            | R::TargetTooLarge
            | R::NotGrappled
            | R::MissingManeuver
            | R::CannotRun
            | R::WrongDecisionKind
            | R::DecisionAnswered
            | R::FightingDefensively
            | R::AlreadyDelayed
            | R::AlreadyActed
            | R::InvalidDelay
            | R::InvalidReady { .. }
            | R::DowngradedSurprise { .. }
            | R::DowngradedStaggered { .. }
            | R::DowngradedNauseated { .. } => {}
            R::MissingFeat | R::AdjacentAtStart | R::StoodStill | R::FeatNotApplicable => {}
            R::NoDeadlyAim | R::NoCombatExpertise => {}
            R::NotEngaged
            | R::NotHelpless
            | R::ImmuneToCriticalHits
            | R::HandsFull
            | R::TargetConcealed
            | R::InvalidDirection => {}
            R::MissingSpell
            | R::UnknownSpell { .. }
            | R::DowngradedCastTime
            | R::NoSlot { .. }
            | R::NoSpells
            | R::AlreadyDeclared
            | R::MetamagicNotApplicable => {}
        }
    }
    let mut codes = std::collections::BTreeSet::new();
    for reason in &all {
        let c = result_code(Some(reason));
        assert_ne!(c, proto::ResultCode::Unknown, "{reason}");
        assert_ne!(c, proto::ResultCode::Unspecified, "{reason}");
        // The enum value name is the reason code, upper-cased.
        let expected = format!(
            "RESULT_CODE_{}",
            reason.code().to_uppercase().replace(':', "_")
        );
        assert_eq!(c.as_str_name(), expected);
        codes.insert(c as i32);
    }
    assert_eq!(codes.len(), all.len());
    assert_eq!(result_code(None), proto::ResultCode::Ok);
    // An accepted action's note has its code too (`ok = true, reason = "delayed"`).
    use pf1e_engine::actions::Note;
    for n in [Note::Delayed, Note::Ready] {
        let c = pf1e_env_server::service::note_code(Some(n));
        assert_eq!(
            c.as_str_name(),
            format!("RESULT_CODE_{}", n.code().to_uppercase())
        );
        assert!(codes.insert(c as i32), "{n:?} shares a refusal's code");
    }
}

#[tokio::test]
async fn results_carry_codes_and_validate_changes_nothing() {
    let mut t = start().await;
    let s = t
        .client
        .reset(reset_req("sample_arena", 4, &["players"]))
        .await
        .unwrap()
        .into_inner();
    let decision = s.decision.clone().unwrap();
    let attack_no_target = proto::Action {
        kind: proto::ActionKind::Attack as i32,
        ..Default::default()
    };
    // Validate: an illegal action gets its code, a legal one OK; nothing changes.
    let v = t
        .client
        .validate(proto::ValidateRequest {
            episode_id: s.episode_id.clone(),
            decision_id: decision.decision_id,
            action: Some(attack_no_target.clone()),
            action_id: None,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!v.ok);
    assert_eq!(v.code, proto::ResultCode::MissingTarget as i32);
    assert_eq!(v.reason, "missing_target");
    assert_eq!(v.field, "action");
    for l in &s.legal_actions {
        let v = t
            .client
            .validate(proto::ValidateRequest {
                episode_id: s.episode_id.clone(),
                decision_id: 0,
                action: None,
                action_id: Some(l.id),
            })
            .await
            .unwrap()
            .into_inner();
        assert!(v.ok, "legal action {} validates: {v:?}", l.label);
        // Accepted, with the seed's ok reasons for delay and ready.
        let expected = match l.action.as_ref().map(|a| a.kind) {
            Some(k) if k == proto::ActionKind::Delay as i32 => proto::ResultCode::Delayed,
            Some(k) if k == proto::ActionKind::Ready as i32 => proto::ResultCode::Ready,
            _ => proto::ResultCode::Ok,
        };
        assert_eq!(v.code, expected as i32, "{}", l.label);
    }
    let after = t
        .client
        .observe(proto::ObserveRequest {
            episode_id: s.episode_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(after.decision, s.decision);
    assert_eq!(after.observation, s.observation);
    assert_eq!(after.legal_actions, s.legal_actions);
    // Bad Validate requests.
    let v = |action: Option<proto::Action>, action_id: Option<u32>, decision_id: u64| {
        proto::ValidateRequest {
            episode_id: s.episode_id.clone(),
            decision_id,
            action,
            action_id,
        }
    };
    let e = t.client.validate(v(None, None, 0)).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = t
        .client
        .validate(v(Some(attack_no_target.clone()), Some(0), 0))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = t
        .client
        .validate(v(None, Some(s.action_space_size), 0))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let e = t
        .client
        .validate(v(None, Some(0), decision.decision_id + 7))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::FailedPrecondition);
    // Step results carry codes: a rejected action, then end_turn, then one after the end.
    let st = t
        .client
        .step(proto::StepRequest {
            episode_id: s.episode_id.clone(),
            decision_id: decision.decision_id,
            actions: vec![
                attack_no_target,
                proto::Action {
                    kind: proto::ActionKind::EndTurn as i32,
                    ..Default::default()
                },
                proto::Action {
                    kind: proto::ActionKind::EndTurn as i32,
                    ..Default::default()
                },
            ],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let codes: Vec<i32> = st.results.iter().map(|r| r.code).collect();
    assert_eq!(
        codes,
        vec![
            proto::ResultCode::MissingTarget as i32,
            proto::ResultCode::Ok as i32,
            proto::ResultCode::TurnEnded as i32
        ]
    );
}

/// Plays an episode to the end with `pick`, returning every state.
async fn play(
    c: &mut EnvironmentClient<Channel>,
    mut s: proto::EpisodeState,
) -> Vec<proto::EpisodeState> {
    let mut all = vec![s.clone()];
    while !done(&s) {
        s = c.step(step_req(&s, pick(&s))).await.unwrap().into_inner();
        all.push(s.clone());
    }
    all
}

#[tokio::test]
async fn sparse_and_shaped_rewards_per_side_in_self_play() {
    let mut t = start().await;
    // Sparse, one side: +1/-1/0 at the end only, in `reward` and in `rewards`.
    let s = t
        .client
        .reset(reset_req("sample_arena", 2, &["players"]))
        .await
        .unwrap()
        .into_inner();
    let states = play(&mut t.client, s).await;
    let last = states.last().unwrap();
    for st in &states[..states.len() - 1] {
        assert_eq!(st.reward, 0.0);
        assert!(st.rewards.values().all(|&r| r == 0.0));
    }
    let winner = last.outcome.as_ref().unwrap().winner.clone();
    let expected = match winner.as_str() {
        "players" => 1.0,
        "" => 0.0,
        _ => -1.0,
    };
    assert_eq!(last.reward, expected);
    assert_eq!(last.rewards.get("players"), Some(&expected));
    assert_eq!(last.final_agents.len(), 3);
    assert!(last.final_agents.iter().all(|a| a.reward == expected));

    // Shaped self-play on the mirror duel: both sides get rewards; a 1v1 of equal hp makes
    // the shaped terms zero-sum, so the two sides' totals add up to the sparse ones (0).
    for seed in 0..4 {
        let mut req = reset_req("mirror_duel", seed, &["west", "east"]);
        req.reward = Some(proto::RewardOptions {
            shaped: true,
            damage_weight: None,
            kill_weight: Some(0.5),
            ..Default::default()
        });
        req.observation = lean();
        let s = t.client.reset(req).await.unwrap().into_inner();
        assert_eq!(s.reward_side, "");
        let states = play(&mut t.client, s).await;
        let mut totals = std::collections::BTreeMap::<String, f64>::new();
        for st in &states {
            if let Some(d) = &st.decision {
                // At a decision: the deciding side's reward only.
                assert!(st.rewards.len() <= 1, "{:?}", st.rewards);
                let side = if d.actor_index == 0 { "west" } else { "east" };
                assert!(st.rewards.keys().all(|k| k == side));
            }
            for (k, v) in &st.rewards {
                *totals.entry(k.clone()).or_default() += f64::from(*v);
            }
        }
        let last = states.last().unwrap();
        assert_eq!(last.rewards.len(), 2, "both sides at the end");
        assert_eq!(last.final_agents.len(), 2);
        let sum: f64 = totals.values().sum();
        assert!(sum.abs() < 1e-4, "seed {seed}: totals {totals:?}");
        if let Some(w) = last.outcome.as_ref().map(|o| o.winner.clone()) {
            if !w.is_empty() {
                let loser = if w == "west" { "east" } else { "west" };
                assert!(totals[&w] > totals[loser], "{totals:?}");
            }
        }
    }
    // Bad weights.
    let mut req = reset_req("mirror_duel", 0, &["west"]);
    req.reward = Some(proto::RewardOptions {
        shaped: true,
        damage_weight: Some(f32::NAN),
        kill_weight: None,
        ..Default::default()
    });
    let e = t.client.reset(req).await.unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("reward.damage_weight"), "{e:?}");
}

/// The part of a state that must replay identically.
fn fingerprint(s: &proto::EpisodeState) -> String {
    format!(
        "{:?}|{:?}|{:?}|{}|{}|{:?}|{:?}",
        s.decision,
        s.results,
        s.observation.as_ref().map(|o| &o.json),
        s.terminated,
        s.truncated,
        s.outcome,
        s.legal_actions
    )
}

#[tokio::test]
async fn snapshot_restore_and_fork_replay_identically() {
    let mut t = start().await;
    let mut s = t
        .client
        .reset(reset_req("sample_arena", 9, &["players"]))
        .await
        .unwrap()
        .into_inner();
    for _ in 0..2 {
        s = t
            .client
            .step(step_req(&s, pick(&s)))
            .await
            .unwrap()
            .into_inner();
        assert!(!done(&s));
    }
    let snap = t
        .client
        .snapshot(proto::SnapshotRequest {
            episode_id: s.episode_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!snap.snapshot.is_empty());
    let forked = t
        .client
        .fork(proto::ForkRequest {
            episode_id: s.episode_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_ne!(forked.episode_id, s.episode_id);
    // The original goes on.
    let original = play(&mut t.client, s.clone()).await;
    let restored = t
        .client
        .restore(proto::RestoreRequest {
            scenario: named("sample_arena"),
            snapshot: snap.snapshot.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(restored.decision, s.decision);
    for start in [restored, forked] {
        let replay = play(&mut t.client, start).await;
        assert_eq!(replay.len(), original.len());
        for (a, b) in original.iter().zip(&replay).skip(1) {
            assert_eq!(fingerprint(a), fingerprint(b));
        }
    }
    // Bad bytes, another scenario, a controlled set that is not the snapshot's.
    let bad = |bytes: Vec<u8>, scenario: &str, controlled: Option<proto::Controlled>| {
        proto::RestoreRequest {
            scenario: named(scenario),
            snapshot: bytes,
            controlled,
            ..Default::default()
        }
    };
    for req in [
        bad(b"not a snapshot".to_vec(), "sample_arena", None),
        bad(vec![], "sample_arena", None),
        bad(snap.snapshot.clone(), "mirror_duel", None),
        bad(
            snap.snapshot.clone(),
            "sample_arena",
            Some(proto::Controlled {
                sides: vec!["monsters".into()],
                combatant_ids: vec![],
            }),
        ),
    ] {
        let e = t.client.restore(req).await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
    }
    // Dice a client chose: the same rolls as recording dice (a history the engine accepts)
    // are refused by the server, which restores seeded episodes only; and a padded snapshot
    // (an unknown key, deep) cannot hide its controllers from the controlled-set check.
    // At its first decision a fight with every combatant controlled has rolled initiative
    // only: the faces are in its log.
    let fresh = t
        .client
        .reset(reset_req("sample_arena", 7, &["players", "monsters"]))
        .await
        .unwrap()
        .into_inner();
    let fresh = t
        .client
        .snapshot(proto::SnapshotRequest {
            episode_id: fresh.episode_id,
        })
        .await
        .unwrap()
        .into_inner();
    // Snapshot bytes: a 37-byte header (magic, version, HMAC tag), the session part's length
    // and JSON, then the engine's JSON; an edit of the engine's JSON keeps the old tag.
    let split = |bytes: &[u8]| -> (Vec<u8>, Vec<u8>) {
        let n = u32::from_le_bytes(bytes[37..41].try_into().unwrap()) as usize;
        (bytes[..41 + n].to_vec(), bytes[41 + n..].to_vec())
    };
    let (fresh_head, fresh_engine) = split(&fresh.snapshot);
    let mut recording: serde_json::Value = serde_json::from_slice(&fresh_engine).unwrap();
    let faces: Vec<u32> = recording["log"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| {
            let m = l["message"].as_str()?;
            let d = m.split("d20=").nth(1)?;
            d.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
        })
        .collect();
    assert_eq!(faces.len(), 5, "{}", recording["log"]);
    for (key, faces) in [("dice", faces), ("start_dice", vec![])] {
        let rng = recording[key]["Seeded"].clone();
        assert!(rng.is_object(), "{}", recording[key]);
        recording[key] = serde_json::json!({"Recording": {"rng": rng, "faces": faces}});
    }
    let (snap_head, snap_engine) = split(&snap.snapshot);
    let v: serde_json::Value = serde_json::from_slice(&snap_engine).unwrap();
    let mut padded = serde_json::to_string(&v).unwrap();
    padded.pop();
    padded.push_str(&format!(
        ",\"zzz\":{}1{}}}",
        "[".repeat(200),
        "]".repeat(200)
    ));
    // The server signs its snapshots: edited ones are refused before the engine reads them
    // (the engine's own checks of seeded dice and controllers stay behind the signature).
    let resealed = |head: &[u8], engine: String| [head, engine.as_bytes()].concat();
    for (req, needle) in [
        (
            bad(
                resealed(&fresh_head, recording.to_string()),
                "sample_arena",
                None,
            ),
            "does not verify",
        ),
        (
            bad(
                resealed(&snap_head, padded),
                "sample_arena",
                Some(proto::Controlled {
                    sides: vec!["monsters".into()],
                    combatant_ids: vec![],
                }),
            ),
            "does not verify",
        ),
    ] {
        let e = t.client.restore(req).await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{e:?}");
        assert!(e.message().contains(needle), "{needle}: {e:?}");
    }
    let e = t
        .client
        .snapshot(proto::SnapshotRequest {
            episode_id: "ep-none".into(),
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
}

#[tokio::test]
async fn describe_and_stats() {
    let mut t = start().await;
    let base = t
        .client
        .stats(proto::StatsRequest {})
        .await
        .unwrap()
        .into_inner();
    let s = t
        .client
        .reset(reset_req("sample_arena", 5, &["players"]))
        .await
        .unwrap()
        .into_inner();
    let d = t
        .client
        .describe(proto::DescribeRequest {
            episode_id: s.episode_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!d.over);
    assert_eq!(d.decision, s.decision);
    assert_eq!(d.scenario, "sample_arena");
    assert_eq!(d.steps, 0);
    assert!(d.age_seconds >= 0.0 && d.idle_seconds >= 0.0);
    assert_eq!(d.controlled_sides, vec!["players"]);
    let states = play(&mut t.client, s.clone()).await;
    let d = t
        .client
        .describe(proto::DescribeRequest {
            episode_id: s.episode_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(d.over && d.decision.is_none());
    assert_eq!(d.outcome, states.last().unwrap().outcome);
    assert_eq!(d.steps, states.len() as u64 - 1);
    let st = t
        .client
        .stats(proto::StatsRequest {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(st.live_episodes, base.live_episodes + 1);
    assert_eq!(st.episodes_created, base.episodes_created + 1);
    assert_eq!(st.steps, base.steps + d.steps);
    t.client
        .close(proto::CloseRequest {
            episode_id: s.episode_id.clone(),
        })
        .await
        .unwrap();
    assert_eq!(live(&mut t.client).await, base.live_episodes);
    let e = t
        .client
        .describe(proto::DescribeRequest {
            episode_id: s.episode_id,
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
}

#[tokio::test]
async fn batches_keep_order_and_report_errors_inline() {
    let mut t = start().await;
    let resets: Vec<_> = (0..64)
        .map(|i| {
            let mut r = reset_req("sample_arena", i, &["players"]);
            r.observation = lean();
            r
        })
        .collect();
    let mut bad_reset = reset_req("no_such_scenario", 0, &["players"]);
    bad_reset.observation = lean();
    let mut all = resets.clone();
    all.insert(10, bad_reset);
    let out = t
        .client
        .reset_batch(proto::ResetBatchRequest { resets: all })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(out.items.len(), 65);
    use proto::batch_item::Result as R;
    let mut states = Vec::new();
    for (i, item) in out.items.iter().enumerate() {
        match item.result.as_ref().unwrap() {
            R::Error(e) => {
                assert_eq!(i, 10);
                assert_eq!(e.code, Code::NotFound as i32, "{e:?}");
            }
            R::State(s) => states.push(s.clone()),
        }
    }
    assert_eq!(states.len(), 64);
    // A StepBatch with malformed items in the middle: errors inline, order preserved.
    // (states[62] and [63] are kept for the malformed and stale items: one step per episode.)
    let mut steps: Vec<_> = states[..62].iter().map(|s| step_req(s, pick(s))).collect();
    steps.insert(
        5,
        proto::StepRequest {
            episode_id: "ep-unknown".into(),
            decision_id: 1,
            action_ids: vec![0],
            ..Default::default()
        },
    );
    steps.insert(
        7,
        proto::StepRequest {
            episode_id: states[63].episode_id.clone(),
            ..Default::default()
        },
    );
    let mut stale = step_req(&states[62], 0);
    stale.decision_id += 100;
    steps.insert(9, stale);
    // A second step of states[0]'s episode (stepped by item 0), at its next decision id:
    // refused without running, whatever the parallel order.
    let mut again = step_req(&states[0], 0);
    again.decision_id += 1;
    steps.push(again);
    let last = steps.len() - 1;
    // A repeated unknown id fails as unknown both times (it steps nothing).
    steps.push(steps[5].clone());
    let out = t
        .client
        .step_batch(proto::StepBatchRequest {
            steps: steps.clone(),
            resets: vec![reset_req("sample_arena", 99, &["players"])],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(out.items.len(), steps.len() + 1);
    let mut failures = 0;
    for (i, (item, req)) in out.items.iter().zip(&steps).enumerate() {
        match item.result.as_ref().unwrap() {
            R::Error(e) => {
                failures += 1;
                let want = match i {
                    5 => Code::NotFound,
                    i if i == last + 1 => Code::NotFound,
                    7 => Code::InvalidArgument,
                    9 => Code::FailedPrecondition,
                    i if i == last => Code::FailedPrecondition,
                    _ => panic!("item {i} failed: {e:?}"),
                };
                assert_eq!(e.code, want as i32, "item {i}: {e:?}");
                if i == last {
                    assert!(e.message.contains("stepped by steps[0]"), "{e:?}");
                }
            }
            R::State(s) => assert_eq!(s.episode_id, req.episode_id, "item {i} in order"),
        }
    }
    assert_eq!(failures, 5);
    assert!(matches!(
        out.items.last().unwrap().result,
        Some(R::State(_))
    ));
    // Too many items: the whole call is INVALID_ARGUMENT.
    let mut small = ServiceConfig::new(DATA_DIR);
    small.max_batch_items = 4;
    let mut t2 = start_with(small).await;
    let e = t2
        .client
        .reset_batch(proto::ResetBatchRequest {
            resets: resets[..5].to_vec(),
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().contains("at most 4"), "{e:?}");
    // The server goes on.
    t2.client
        .reset_batch(proto::ResetBatchRequest {
            resets: resets[..4].to_vec(),
        })
        .await
        .unwrap();
}

#[test]
fn batch_items_started_after_the_deadline_fail_inline() {
    let svc = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    let out = svc
        .step_batch_blocking(
            &proto::StepBatchRequest {
                steps: vec![],
                resets: vec![reset_req("sample_arena", 0, &["players"]); 3],
                ..Default::default()
            },
            Some(std::time::Instant::now()),
        )
        .unwrap();
    for item in out.items {
        match item.result.unwrap() {
            proto::batch_item::Result::Error(e) => {
                assert_eq!(e.code, Code::DeadlineExceeded as i32)
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(svc.open_episodes(), 0);
}

#[tokio::test]
async fn expired_deadlines_are_refused() {
    let mut t = start().await;
    let mut req = tonic::Request::new(reset_req("sample_arena", 0, &["players"]));
    req.set_timeout(Duration::from_nanos(1));
    let e = t.client.reset(req).await.unwrap_err();
    assert!(
        matches!(e.code(), Code::DeadlineExceeded | Code::Cancelled),
        "{e:?}"
    );
    // Nothing was created, and the server goes on.
    assert_eq!(live(&mut t.client).await, 0);
    t.client
        .reset(reset_req("sample_arena", 0, &["players"]))
        .await
        .unwrap();
}

fn sreq(id: u64, kind: proto::session_request::Kind) -> proto::SessionRequest {
    proto::SessionRequest {
        request_id: id,
        kind: Some(kind),
        ..Default::default()
    }
}

#[tokio::test]
async fn session_stream_is_ordered_with_inline_errors() {
    use proto::session_request::Kind as Q;
    use proto::session_response::Kind as A;
    let mut t = start().await;
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    let mut responses = t
        .client
        .session(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    tx.send(sreq(
        100,
        Q::Reset(reset_req("sample_arena", 3, &["players"])),
    ))
    .await
    .unwrap();
    let r = responses.next().await.unwrap().unwrap();
    assert_eq!(r.request_id, 100);
    let Some(A::State(s)) = r.kind else {
        panic!("{r:?}")
    };
    // Several requests at once, one malformed, one for an unknown episode: answered in order.
    let batch = vec![
        sreq(
            7,
            Q::Validate(proto::ValidateRequest {
                episode_id: s.episode_id.clone(),
                action_id: Some(0),
                ..Default::default()
            }),
        ),
        proto::SessionRequest {
            request_id: 8,
            kind: None,
            ..Default::default()
        },
        sreq(
            9,
            Q::Observe(proto::ObserveRequest {
                episode_id: "ep-nope".into(),
            }),
        ),
        sreq(10, Q::Step(step_req(&s, pick(&s)))),
        sreq(
            11,
            Q::Describe(proto::DescribeRequest {
                episode_id: s.episode_id.clone(),
            }),
        ),
        sreq(
            12,
            Q::Echo(proto::EchoRequest {
                payload: b"ping".to_vec(),
            }),
        ),
        sreq(
            13,
            Q::Fork(proto::ForkRequest {
                episode_id: s.episode_id.clone(),
            }),
        ),
        sreq(
            14,
            Q::Snapshot(proto::SnapshotRequest {
                episode_id: s.episode_id.clone(),
            }),
        ),
        sreq(
            15,
            Q::Close(proto::CloseRequest {
                episode_id: s.episode_id.clone(),
            }),
        ),
    ];
    for r in batch {
        tx.send(r).await.unwrap();
    }
    let mut got = Vec::new();
    for _ in 0..9 {
        got.push(responses.next().await.unwrap().unwrap());
    }
    let ids: Vec<u64> = got.iter().map(|r| r.request_id).collect();
    assert_eq!(ids, (7..=15).collect::<Vec<_>>());
    assert!(matches!(&got[0].kind, Some(A::Validation(v)) if v.ok));
    assert!(matches!(&got[1].kind, Some(A::Error(e)) if e.code == Code::InvalidArgument as i32));
    assert!(matches!(&got[2].kind, Some(A::Error(e)) if e.code == Code::NotFound as i32));
    assert!(matches!(&got[3].kind, Some(A::State(st)) if st.steps == 1));
    assert!(matches!(&got[4].kind, Some(A::Description(d)) if d.steps == 1));
    assert!(matches!(&got[5].kind, Some(A::Echo(e)) if e.payload == b"ping"));
    assert!(matches!(&got[6].kind, Some(A::State(_))));
    assert!(matches!(&got[7].kind, Some(A::Snapshot(sn)) if !sn.snapshot.is_empty()));
    assert!(matches!(&got[8].kind, Some(A::Closed(_))));
    // The fork belongs to the stream: live while it is open, closed when it ends.
    assert_eq!(live(&mut t.client).await, 1);
    drop(tx);
    assert!(responses.next().await.is_none(), "the stream ends cleanly");
    wait_live(&mut t.client, 0).await;
}

async fn wait_live(c: &mut EnvironmentClient<Channel>, want: u64) {
    for _ in 0..200 {
        if live(c).await == want {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("live episodes stay at {} (want {want})", live(c).await);
}

#[tokio::test]
async fn stream_disconnect_mid_way_leaks_nothing() {
    use proto::session_request::Kind as Q;
    let mut t = start().await;
    let base = live(&mut t.client).await;
    for round in 0..3 {
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        let mut responses = t
            .client
            .session(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await
            .unwrap()
            .into_inner();
        for i in 0..5 {
            tx.send(sreq(
                i,
                Q::Reset(reset_req("sample_arena", i + round, &["players"])),
            ))
            .await
            .unwrap();
        }
        for _ in 0..3 {
            responses.next().await.unwrap().unwrap();
        }
        // Some requests still in flight; the client drops everything without closing.
        drop(responses);
        drop(tx);
        wait_live(&mut t.client, base).await;
        let st = t
            .client
            .stats(proto::StatsRequest {})
            .await
            .unwrap()
            .into_inner();
        assert!(st.open_streams <= 1, "{st:?}");
    }
    // Still serving.
    t.client
        .reset(reset_req("sample_arena", 0, &["players"]))
        .await
        .unwrap();
}

#[tokio::test]
async fn concurrent_steps_of_one_decision_exactly_one_wins() {
    let t = start().await;
    for seed in 0..3 {
        let s = t
            .client
            .clone()
            .reset(reset_req("sample_arena", seed, &["players"]))
            .await
            .unwrap()
            .into_inner();
        let req = step_req(&s, pick(&s));
        let tasks: Vec<_> = (0..16)
            .map(|_| {
                let mut c = t.client.clone();
                let r = req.clone();
                tokio::spawn(async move { c.step(r).await })
            })
            .collect();
        let mut ok = 0;
        for task in tasks {
            match task.await.unwrap() {
                Ok(_) => ok += 1,
                Err(e) => assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}"),
            }
        }
        assert_eq!(ok, 1, "exactly one step of decision {}", req.decision_id);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_episodes_opened_and_closed() {
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_episodes = 10_000;
    // One client (this connection) holds them all: its quota must allow it.
    config.client_quotas.max_episodes = 10_000;
    let mut t = start_with(config).await;
    let base = live(&mut t.client).await;
    let mut ids = Vec::new();
    for chunk in 0..10 {
        let resets = (0..1000)
            .map(|i| {
                let mut r = reset_req("sample_arena", chunk * 1000 + i, &["players"]);
                r.observation = lean();
                r
            })
            .collect();
        let out = t
            .client
            .reset_batch(proto::ResetBatchRequest { resets })
            .await
            .unwrap()
            .into_inner();
        for item in out.items {
            match item.result.unwrap() {
                proto::batch_item::Result::State(s) => ids.push(s.episode_id),
                proto::batch_item::Result::Error(e) => panic!("{e:?}"),
            }
        }
    }
    assert_eq!(ids.len(), 10_000);
    assert_eq!(live(&mut t.client).await, base + 10_000);
    // One more is refused, inline in a batch and as a status in a unary call.
    let e = t
        .client
        .reset(reset_req("sample_arena", 0, &["players"]))
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::ResourceExhausted);
    // Close them all through one stream (pipelined).
    use proto::session_request::Kind as Q;
    let (tx, rx) = tokio::sync::mpsc::channel(256);
    let mut responses = t
        .client
        .session(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    let sender = tokio::spawn(async move {
        for (i, id) in ids.into_iter().enumerate() {
            tx.send(sreq(
                i as u64,
                Q::Close(proto::CloseRequest { episode_id: id }),
            ))
            .await
            .unwrap();
        }
    });
    for i in 0..10_000u64 {
        let r = responses.next().await.unwrap().unwrap();
        assert_eq!(r.request_id, i);
        assert!(
            matches!(r.kind, Some(proto::session_response::Kind::Closed(_))),
            "{r:?}"
        );
    }
    sender.await.unwrap();
    assert_eq!(live(&mut t.client).await, base);
}

#[tokio::test]
async fn echo_and_message_limits() {
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_message_bytes = 64 << 10;
    let mut t = start_with(config).await;
    let r = t
        .client
        .echo(proto::EchoRequest {
            payload: vec![7u8; 1000],
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.payload, vec![7u8; 1000]);
    let e = t
        .client
        .echo(proto::EchoRequest {
            payload: vec![7u8; 100 << 10],
        })
        .await
        .unwrap_err();
    assert!(
        matches!(e.code(), Code::OutOfRange | Code::ResourceExhausted),
        "{e:?}"
    );
    // Still serving.
    t.client
        .echo(proto::EchoRequest { payload: vec![1] })
        .await
        .unwrap();
    // A creating call whose reply would be over the limit leaves nothing open: one Reset with
    // JSON + tensors (a reply well under 64 KiB) is served, a ResetBatch of 40 of them is
    // refused with OUT_OF_RANGE and its episodes are closed again.
    let base = live(&mut t.client).await;
    let full = || {
        let mut r = reset_req("sample_arena", 3, &["players"]);
        r.observation = Some(proto::ObservationOptions {
            json: Some(true),
            tensors: true,
            ..Default::default()
        });
        r
    };
    let one = t.client.reset(full()).await.unwrap().into_inner();
    let e = t
        .client
        .reset_batch(proto::ResetBatchRequest {
            resets: (0..40).map(|_| full()).collect(),
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::OutOfRange, "{e:?}");
    assert!(
        e.message().contains("nothing was created"),
        "{}",
        e.message()
    );
    assert_eq!(live(&mut t.client).await, base + 1);
    t.client
        .close(proto::CloseRequest {
            episode_id: one.episode_id,
        })
        .await
        .unwrap();
    assert_eq!(live(&mut t.client).await, base);
}

#[tokio::test]
async fn graceful_shutdown_ends_open_streams() {
    use proto::session_request::Kind as Q;
    let mut t = start().await;
    let (tx, rx) = tokio::sync::mpsc::channel(16);
    let mut responses = t
        .client
        .session(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    tx.send(sreq(
        1,
        Q::Reset(reset_req("sample_arena", 1, &["players"])),
    ))
    .await
    .unwrap();
    responses.next().await.unwrap().unwrap();
    t.shutdown.take().unwrap().send(()).unwrap();
    // The stream ends (cleanly or not) and the server stops, although the client never
    // closed its side.
    let _ = tokio::time::timeout(Duration::from_secs(10), responses.next())
        .await
        .expect("stream ends on shutdown");
    tokio::time::timeout(Duration::from_secs(10), &mut t.done)
        .await
        .expect("server stops")
        .unwrap();
    drop(tx);
}

/// A creating call whose deadline passes while the engine works leaves no orphan episodes:
/// the client never learns their ids, so the server closes them again. Deadlines grow until
/// one passes while episodes are being created (the machine's load decides which).
#[tokio::test]
async fn timed_out_reset_batch_leaves_no_orphans() {
    let t = start().await;
    let stats = |c: &EnvironmentClient<Channel>| {
        let mut c = c.clone();
        async move { c.stats(proto::StatsRequest {}).await.unwrap().into_inner() }
    };
    let mut exercised = false;
    for ms in [40u64, 80, 160, 320, 640, 1280, 2560, 5120, 10240] {
        let before = stats(&t.client).await;
        let resets: Vec<_> = (0..4000)
            .map(|i| {
                let mut r = reset_req("sample_arena", i, &["players"]);
                r.observation = lean();
                r
            })
            .collect();
        let mut req = tonic::Request::new(proto::ResetBatchRequest { resets });
        req.set_timeout(std::time::Duration::from_millis(ms));
        let reply = t.client.clone().reset_batch(req).await;
        let timed_out = reply.is_err();
        if let Ok(r) = reply {
            // Finished in time: close what it made, then try a shorter-lived case again.
            for item in r.into_inner().items {
                if let Some(proto::batch_item::Result::State(st)) = item.result {
                    let close = proto::CloseRequest {
                        episode_id: st.episode_id,
                    };
                    t.client.clone().close(close).await.unwrap();
                }
            }
            continue;
        }
        // The blocking work finishes in the background, then closes what it created. Settled:
        // as many closed as created, and no change for a second (on a loaded machine the
        // work may not have started creating yet when the reply times out: `0 == 0` alone
        // would let it create and close during the next round, counted as orphans there).
        let mut after = stats(&t.client).await;
        let mut last = (after.episodes_created, after.episodes_closed);
        let mut stable_since = std::time::Instant::now();
        for _ in 0..800 {
            let settled = after.episodes_closed - before.episodes_closed
                == after.episodes_created - before.episodes_created;
            if settled && stable_since.elapsed() >= std::time::Duration::from_secs(1) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
            after = stats(&t.client).await;
            let now = (after.episodes_created, after.episodes_closed);
            if now != last {
                last = now;
                stable_since = std::time::Instant::now();
            }
        }
        assert!(timed_out);
        assert_eq!(
            after.live_episodes, before.live_episodes,
            "orphans after {ms} ms"
        );
        if after.episodes_created > before.episodes_created {
            exercised = true;
            break;
        }
    }
    assert!(
        exercised,
        "no deadline passed while episodes were being created"
    );
}

/// The columnar fast path of StepBatch (columnar_steps + columnar_response) gives exactly what
/// the message-per-item path gives: same planes (bytes / divisors, bit for bit), features,
/// masks, rewards and end flags, for twin episodes driven with the same actions, resets
/// included; the items then carry no tensors nor mask; bad columns are INVALID_ARGUMENT.
#[test]
fn columnar_batches_equal_item_batches() {
    let svc = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    let tensors = || {
        let mut r = reset_req("sample_arena", 0, &["players"]);
        r.observation = tensors_only();
        r
    };
    let resets = |base: u64| -> Vec<proto::ResetRequest> {
        (0..8)
            .map(|i| {
                let mut r = tensors();
                r.seed = base + i;
                r
            })
            .collect()
    };
    let batch = |req: proto::StepBatchRequest| svc.step_batch_blocking(&req, None).unwrap();
    let state = |it: &proto::BatchItem| match it.result.as_ref().unwrap() {
        proto::batch_item::Result::State(s) => s.clone(),
        proto::batch_item::Result::Error(e) => panic!("{e:?}"),
    };
    let spec = svc
        .get_spec_blocking(&proto::GetSpecRequest {
            scenario: named("sample_arena"),
        })
        .unwrap();
    let divisors = spec.observation_schema.unwrap().plane_divisors;
    assert_eq!(divisors, vec![1, 1, 1, 8, 9, 1, 1, 1, 1, 1]);
    let mut a: Vec<proto::EpisodeState> = batch(proto::StepBatchRequest {
        resets: resets(100),
        ..Default::default()
    })
    .items
    .iter()
    .map(state)
    .collect();
    let mut b: Vec<proto::EpisodeState> = a.clone();
    let first = batch(proto::StepBatchRequest {
        resets: resets(100),
        columnar_response: true,
        ..Default::default()
    });
    for (k, it) in first.items.iter().enumerate() {
        b[k] = state(it);
    }
    let mut columns = first.columns.unwrap();
    let mut next_seed = 1000;
    let (mut seen_results, mut seen_over, mut seen_reaction) = (false, false, false);
    for round in 0..40 {
        // Compare the columns with the item path, row by row.
        let (np, nf, na) = (
            columns.planes.len() / 8,
            columns.features.len() / 8,
            columns.action_masks.len() / 8,
        );
        assert_eq!(columns.items, 8);
        for i in 0..8 {
            let want = &a[i];
            let got = &b[i];
            assert!(
                got.tensors.is_none() && got.action_mask.is_empty(),
                "thin items"
            );
            assert_eq!(got.episode_id.is_empty(), want.episode_id.is_empty());
            let t = want.tensors.as_ref().unwrap();
            let per_plane = np / divisors.len();
            for (k, &v) in t.planes.iter().enumerate() {
                let byte = columns.planes[i * np + k];
                let d = divisors[k / per_plane] as f32;
                assert_eq!(
                    (f32::from(byte) / d).to_bits(),
                    v.to_bits(),
                    "round {round} item {i} plane value {k}"
                );
            }
            for (k, &v) in t.features.iter().enumerate() {
                let o = (i * nf / 4 + k) * 4;
                let got = f32::from_le_bytes(columns.features[o..o + 4].try_into().unwrap());
                assert_eq!(
                    got.to_bits(),
                    v.to_bits(),
                    "round {round} item {i} feature {k}"
                );
            }
            assert_eq!(
                &columns.action_masks[i * na..(i + 1) * na],
                &want.action_mask[..]
            );
            assert_eq!(columns.rewards[i], want.reward);
            assert_eq!(columns.terminated[i] == 1, want.terminated);
            assert_eq!(columns.truncated[i] == 1, want.truncated);
            // The decision and result columns.
            match (&want.decision, &want.outcome) {
                (Some(d), _) => {
                    assert_eq!(columns.decision_ids[i], d.decision_id);
                    assert_eq!(columns.actor_indices[i], d.actor_index as i32);
                    assert_eq!(columns.rounds[i], d.round);
                    assert_eq!(i32::from(columns.decision_kinds[i]), d.kind);
                    seen_reaction |= d.kind == proto::DecisionKind::AttackOfOpportunity as i32;
                }
                (None, o) => {
                    assert_eq!(columns.decision_ids[i], 0);
                    assert_eq!(columns.actor_indices[i], -1);
                    assert_eq!(columns.rounds[i], o.as_ref().unwrap().rounds);
                    assert_eq!(columns.decision_kinds[i], 0);
                }
            }
            let r = want.results.first();
            assert_eq!(columns.result_ok[i] == 1, r.is_none_or(|r| r.ok));
            assert_eq!(
                columns.result_codes[i],
                r.map_or(proto::ResultCode::Ok as i32, |r| r.code)
            );
            seen_results |= r.is_some_and(|r| !r.ok);
            seen_over |= want.decision.is_none();
        }
        assert_eq!(columns.errors, 0);
        // Step the twins with the same actions (the smallest legal id above end_turn), reset
        // the ended ones with the same seeds.
        let mut steps_a = Vec::new();
        let mut col = proto::ColumnarSteps::default();
        let mut rs = Vec::new();
        let mut order = Vec::new();
        for i in 0..8 {
            if done(&a[i]) {
                let mut r = tensors();
                r.seed = next_seed;
                next_seed += 1;
                rs.push(r);
                order.push((i, true));
            } else {
                // Now and then an illegal id (masked out): a rejected result in both paths.
                let id = if round % 5 == 3 && i == 0 {
                    a[i].action_mask.iter().position(|&m| m == 0).unwrap() as u32
                } else {
                    pick(&a[i])
                };
                steps_a.push(step_req(&a[i], id));
                col.episode_ids.push(b[i].episode_id.clone());
                col.decision_ids
                    .push(b[i].decision.as_ref().unwrap().decision_id);
                col.action_ids.push(id);
                order.push((i, false));
            }
        }
        let out_a = batch(proto::StepBatchRequest {
            steps: steps_a,
            resets: rs.clone(),
            ..Default::default()
        });
        let out_b = batch(proto::StepBatchRequest {
            columnar_steps: Some(col),
            resets: rs,
            columnar_response: true,
            ..Default::default()
        });
        // Items come steps first, then resets: map them back to slots.
        let slots: Vec<usize> = order
            .iter()
            .filter(|(_, r)| !r)
            .chain(order.iter().filter(|(_, r)| *r))
            .map(|(i, _)| *i)
            .collect();
        let cols = out_b.columns.unwrap();
        let width = |v: &[u8]| v.len() / 8;
        let mut reordered = proto::BatchColumns {
            items: 8,
            planes: vec![0; cols.planes.len()],
            features: vec![0; cols.features.len()],
            action_masks: vec![0; cols.action_masks.len()],
            rewards: vec![0.0; 8],
            terminated: vec![0; 8],
            truncated: vec![0; 8],
            ..cols.clone()
        };
        for (row, &slot) in slots.iter().enumerate() {
            a[slot] = state(&out_a.items[row]);
            b[slot] = state(&out_b.items[row]);
            for (src, dst) in [
                (&cols.planes, &mut reordered.planes),
                (&cols.features, &mut reordered.features),
                (&cols.action_masks, &mut reordered.action_masks),
            ] {
                let w = width(src);
                dst[slot * w..(slot + 1) * w].copy_from_slice(&src[row * w..(row + 1) * w]);
            }
            reordered.rewards[slot] = cols.rewards[row];
            reordered.terminated[slot] = cols.terminated[row];
            reordered.truncated[slot] = cols.truncated[row];
            reordered.decision_ids[slot] = cols.decision_ids[row];
            reordered.actor_indices[slot] = cols.actor_indices[row];
            reordered.rounds[slot] = cols.rounds[row];
            reordered.result_ok[slot] = cols.result_ok[row];
            reordered.result_codes[slot] = cols.result_codes[row];
            reordered.decision_kinds[slot] = cols.decision_kinds[row];
        }
        columns = reordered;
    }
    assert!(
        seen_results && seen_over && seen_reaction,
        "the rounds saw rejections, ended episodes and reaction decisions"
    );
    // Columns of different lengths are refused, naming the field.
    let err = svc
        .step_batch_blocking(
            &proto::StepBatchRequest {
                columnar_steps: Some(proto::ColumnarSteps {
                    episode_ids: vec!["ep-1".into()],
                    decision_ids: vec![],
                    action_ids: vec![0],
                }),
                ..Default::default()
            },
            None,
        )
        .unwrap_err();
    assert!(format!("{err}").contains("columnar_steps"), "{err}");
}

/// StepBatchRequest.close_episode_ids closes episodes in the same call: open ones are closed
/// and counted, unknown ones skipped, a malformed id is INVALID_ARGUMENT naming its index,
/// and the ids count towards the batch limit.
#[test]
fn batches_close_episodes() {
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_batch_items = 4;
    let svc = EnvironmentService::new(config);
    let open = svc
        .step_batch_blocking(
            &proto::StepBatchRequest {
                resets: vec![reset_req("sample_arena", 1, &["players"]); 3],
                ..Default::default()
            },
            None,
        )
        .unwrap();
    let ids: Vec<String> = open
        .items
        .iter()
        .map(|it| match it.result.as_ref().unwrap() {
            proto::batch_item::Result::State(s) => s.episode_id.clone(),
            proto::batch_item::Result::Error(e) => panic!("{e:?}"),
        })
        .collect();
    let live = |svc: &EnvironmentService| svc.stats().live_episodes;
    assert_eq!(live(&svc), 3);
    let out = svc
        .step_batch_blocking(
            &proto::StepBatchRequest {
                close_episode_ids: vec![ids[0].clone(), "ep-unknown".into(), ids[1].clone()],
                resets: vec![reset_req("sample_arena", 2, &["players"])],
                ..Default::default()
            },
            None,
        )
        .unwrap();
    assert_eq!(out.closed, 2);
    assert_eq!(out.items.len(), 1);
    assert_eq!(live(&svc), 2);
    let err = svc
        .step_batch_blocking(
            &proto::StepBatchRequest {
                close_episode_ids: vec![ids[2].clone(), String::new()],
                ..Default::default()
            },
            None,
        )
        .unwrap_err();
    assert!(format!("{err}").contains("close_episode_ids[1]"), "{err}");
    assert_eq!(live(&svc), 2, "nothing closed by a refused call");
    let err = svc
        .step_batch_blocking(
            &proto::StepBatchRequest {
                close_episode_ids: vec![ids[2].clone(); 3],
                resets: vec![reset_req("sample_arena", 3, &["players"]); 2],
                ..Default::default()
            },
            None,
        )
        .unwrap_err();
    assert!(format!("{err}").contains("at most 4"), "{err}");
    // The message names the largest part and every part.
    assert!(
        format!("{err}").starts_with("close_episode_ids: 5 items (resets 2, close_episode_ids 3)"),
        "{err}"
    );
}

/// A columnar StepBatch that finishes after its deadline closes only the episodes its resets
/// created, never the existing episodes it stepped (items come steps, columnar steps, then
/// resets).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timed_out_columnar_batch_keeps_the_stepped_episodes() {
    let t = start().await;
    let mut c = t.client.clone();
    let stats = |c: &EnvironmentClient<Channel>| {
        let mut c = c.clone();
        async move { c.stats(proto::StatsRequest {}).await.unwrap().into_inner() }
    };
    let opened = c
        .reset_batch(proto::ResetBatchRequest {
            resets: (0..64)
                .map(|i| {
                    let mut r = reset_req("sample_arena", i, &["players"]);
                    r.observation = lean();
                    r
                })
                .collect(),
        })
        .await
        .unwrap()
        .into_inner();
    let mut states: Vec<proto::EpisodeState> = opened
        .items
        .into_iter()
        .map(|it| match it.result.unwrap() {
            proto::batch_item::Result::State(s) => s,
            proto::batch_item::Result::Error(e) => panic!("{e:?}"),
        })
        .collect();
    let mut exercised = false;
    for ms in [20u64, 40, 80, 160, 320, 640, 1280, 2560] {
        let before = stats(&t.client).await;
        let live: Vec<usize> = (0..states.len()).filter(|&i| !done(&states[i])).collect();
        let mut col = proto::ColumnarSteps::default();
        for &i in &live {
            col.episode_ids.push(states[i].episode_id.clone());
            col.decision_ids
                .push(states[i].decision.as_ref().unwrap().decision_id);
            col.action_ids.push(0); // end_turn: always legal
        }
        let resets: Vec<_> = (0..3000)
            .map(|i| {
                let mut r = reset_req("sample_arena", 10_000 + i, &["players"]);
                r.observation = lean();
                r
            })
            .collect();
        let mut req = tonic::Request::new(proto::StepBatchRequest {
            columnar_steps: Some(col),
            resets,
            columnar_response: true,
            ..Default::default()
        });
        req.set_timeout(Duration::from_millis(ms));
        match c.step_batch(req).await {
            Ok(r) => {
                // In time: keep the stepped states, close the resets, try a shorter case.
                let items = r.into_inner().items;
                for (k, item) in items.into_iter().enumerate() {
                    let proto::batch_item::Result::State(st) = item.result.unwrap() else {
                        continue;
                    };
                    if k < live.len() {
                        states[live[k]] = st;
                    } else {
                        let close = proto::CloseRequest {
                            episode_id: st.episode_id,
                        };
                        c.close(close).await.unwrap();
                    }
                }
                continue;
            }
            // The server's DEADLINE_EXCEEDED, or the client's own timer first (CANCELLED).
            Err(status) => assert!(
                matches!(status.code(), Code::DeadlineExceeded | Code::Cancelled),
                "{status:?}"
            ),
        }
        // The work finishes in the background and closes the resets it created.
        let mut after = stats(&t.client).await;
        for _ in 0..400 {
            if after.episodes_closed - before.episodes_closed
                == after.episodes_created - before.episodes_created
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
            after = stats(&t.client).await;
        }
        assert_eq!(after.live_episodes, before.live_episodes, "after {ms} ms");
        for s in &states {
            let observed = c
                .observe(proto::ObserveRequest {
                    episode_id: s.episode_id.clone(),
                })
                .await;
            assert!(
                observed.is_ok(),
                "{} was closed: {observed:?}",
                s.episode_id
            );
        }
        exercised = true;
        break;
    }
    assert!(exercised, "no timeout was reached");
}

/// A columnar batch mixing scenarios is not refused after the work: items of the first
/// shape are in the columns, the others keep their tensors and mask in their EpisodeState.
#[test]
fn columnar_batch_mixing_scenarios_keeps_other_shapes_in_the_items() {
    let svc = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    let with_tensors = |name: &str, seed: u64| {
        let mut r = reset_req(name, seed, &[]);
        r.observation = tensors_only();
        r
    };
    let mut first = with_tensors("sample_arena", 1);
    first.controlled = controlled_sides(&["players"]);
    let mut second = with_tensors("mirror_duel", 2);
    second.controlled = None;
    let spec = svc
        .get_spec_blocking(&proto::GetSpecRequest {
            scenario: named("mirror_duel"),
        })
        .unwrap();
    second.controlled = controlled_sides(&[spec.sides[0].as_str()]);
    let out = svc
        .step_batch_blocking(
            &proto::StepBatchRequest {
                resets: vec![first, second],
                columnar_response: true,
                ..Default::default()
            },
            None,
        )
        .unwrap();
    let state = |k: usize| match out.items[k].result.as_ref().unwrap() {
        proto::batch_item::Result::State(s) => s.clone(),
        proto::batch_item::Result::Error(e) => panic!("{e:?}"),
    };
    let (a, b) = (state(0), state(1));
    let cols = out.columns.unwrap();
    assert!(
        a.tensors.is_none() && a.action_mask.is_empty(),
        "first shape: in the columns"
    );
    assert!(cols.planes[..cols.planes.len() / 2].iter().any(|&v| v > 0));
    assert!(
        b.tensors.is_some() && !b.action_mask.is_empty(),
        "other shape: kept in the item"
    );
    assert!(cols.planes[cols.planes.len() / 2..].iter().all(|&v| v == 0));
}

/// Error items of a columnar batch are counted in `columns.errors`, and their rows say "no
/// decision, not ok" (an unknown episode and a wrong decision id, between two good rows).
#[test]
fn columnar_error_rows_are_counted_and_empty() {
    let svc = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    let mut r = reset_req("sample_arena", 7, &["players"]);
    r.observation = tensors_only();
    let st = svc.reset_blocking(&r).unwrap();
    let d = st.decision.as_ref().unwrap().decision_id;
    let col = proto::ColumnarSteps {
        episode_ids: vec![
            st.episode_id.clone(),
            "ep-999999".into(),
            st.episode_id.clone(),
        ],
        decision_ids: vec![d, 1, d + 100],
        action_ids: vec![0, 0, 0],
    };
    let out = svc
        .step_batch_blocking(
            &proto::StepBatchRequest {
                columnar_steps: Some(col),
                resets: vec![r],
                columnar_response: true,
                ..Default::default()
            },
            None,
        )
        .unwrap();
    let c = out.columns.unwrap();
    let is_err: Vec<bool> = out
        .items
        .iter()
        .map(|it| matches!(it.result, Some(proto::batch_item::Result::Error(_))))
        .collect();
    // Row 0 ends the turn (ok), row 1 names no episode, row 2 names a decision that is not
    // the current one, row 3 is a reset.
    assert_eq!(is_err, vec![false, true, true, false]);
    assert_eq!(c.errors, 2);
    for row in [1, 2] {
        assert_eq!(c.decision_ids[row], 0);
        assert_eq!(c.actor_indices[row], -1);
        assert_eq!(c.result_ok[row], 0);
        assert_eq!(c.result_codes[row], proto::ResultCode::Unspecified as i32);
        assert_eq!(c.decision_kinds[row], 0);
    }
    assert_eq!(c.result_ok[0], 1);
    assert_eq!(c.result_codes[0], proto::ResultCode::Ok as i32);
    assert_eq!(c.result_ok[3], 1);
    assert!(c.decision_ids[3] > 0 && c.actor_indices[3] >= 0);
}

/// Compact columns carry the same observations as full ones: the terrain planes of the spec
/// followed by the compact planes give the full planes, the mask bits the full masks, at
/// every step of twin episodes (same seeds, same actions) through resets.
#[test]
fn compact_columns_equal_full_columns() {
    let svc = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    let spec = svc
        .get_spec_blocking(&proto::GetSpecRequest {
            scenario: named("sample_arena"),
        })
        .unwrap();
    assert!(spec.capabilities.as_ref().unwrap().compact_columns);
    let schema = spec.observation_schema.unwrap();
    let terrain = schema.terrain_planes;
    assert_eq!(schema.terrain_plane_count, 5);
    assert_eq!(terrain.len(), 5 * 8 * 20);
    let reset = |seed: u64| {
        let mut r = reset_req("sample_arena", seed, &["players"]);
        r.observation = tensors_only();
        r
    };
    let run = |compact: bool| -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
        let mut out = Vec::new();
        let mut req = proto::StepBatchRequest {
            resets: (0..6).map(|i| reset(40 + i)).collect(),
            columnar_response: true,
            compact_columns: compact,
            ..Default::default()
        };
        let mut seed = 100;
        for _ in 0..30 {
            let resp = svc.step_batch_blocking(&req, None).unwrap();
            let c = resp.columns.unwrap();
            let k = c.items as usize;
            let na = c.action_space_size as usize;
            let (planes, masks) = if compact {
                assert_eq!(c.first_plane, 5);
                assert!(c.action_masks.is_empty());
                let per = c.planes.len() / k;
                let mut planes = Vec::new();
                let mut masks = Vec::new();
                for i in 0..k {
                    planes.extend_from_slice(&terrain);
                    planes.extend_from_slice(&c.planes[i * per..(i + 1) * per]);
                    let bits = &c.action_mask_bits[i * na.div_ceil(8)..(i + 1) * na.div_ceil(8)];
                    masks.extend((0..na).map(|j| (bits[j / 8] >> (j % 8)) & 1));
                }
                (planes, masks)
            } else {
                assert_eq!(c.first_plane, 0);
                assert!(c.action_mask_bits.is_empty());
                (c.planes.clone(), c.action_masks.clone())
            };
            out.push((planes, c.features.clone(), masks.clone()));
            // Next: the first legal action above end_turn of each live row; resets for the rest.
            let mut col = proto::ColumnarSteps::default();
            let mut resets = Vec::new();
            for (i, it) in resp.items.iter().enumerate() {
                let Some(proto::batch_item::Result::State(s)) = &it.result else {
                    panic!("error item")
                };
                match &s.decision {
                    Some(d) => {
                        let m = &masks[i * na..(i + 1) * na];
                        let id = (1..na).find(|&j| m[j] == 1).unwrap_or(0) as u32;
                        col.episode_ids.push(s.episode_id.clone());
                        col.decision_ids.push(d.decision_id);
                        col.action_ids.push(id);
                    }
                    None => {
                        seed += 1;
                        resets.push(reset(seed));
                    }
                }
            }
            req = proto::StepBatchRequest {
                columnar_steps: Some(col),
                resets,
                columnar_response: true,
                compact_columns: compact,
                ..Default::default()
            };
        }
        out
    };
    let full = run(false);
    let compact = run(true);
    assert_eq!(full.len(), compact.len());
    for (t, (a, b)) in full.iter().zip(&compact).enumerate() {
        assert!(a == b, "step {t} differs");
    }
}

/// `BatchColumns.decision_kinds` (capability `columnar_decision_kinds`) is each item's
/// `Decision.kind`, 0 without a decision, in full and compact columns alike; a reaction row
/// (an attack of opportunity offered to a goblin) has only the reaction answers in its mask.
#[test]
fn decision_kind_column_equals_the_items_in_full_and_compact_columns() {
    let svc = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    let spec = svc
        .get_spec_blocking(&proto::GetSpecRequest {
            scenario: named("sample_arena"),
        })
        .unwrap();
    assert!(spec.capabilities.as_ref().unwrap().columnar_decision_kinds);
    let block = |name: &str| {
        let b = spec.action_blocks.iter().find(|b| b.name == name).unwrap();
        b.first_id..b.first_id + b.size
    };
    let (aoo, decline) = (block("attack_of_opportunity"), block("decline"));
    // `decline` comes right after the attacks of opportunity; the blocks appended after it are
    // turn actions but for the reaction answers `fire_readied` and `stand_still` (never
    // offered in this scenario: no creature has Stand Still).
    assert_eq!(decline.start, aoo.end);
    assert_eq!(block("fire_readied").end, block("cleave").start);
    assert_eq!(block("stand_still").end, block("activate_deadly_aim").start);
    // Every block after `decline` is accounted for: `run_toward`, then the casts (empty
    // without casters, as here) and the two cast declarations, the last `activate_metamagic`.
    assert_eq!(block("run_toward").end, block("cast_spell").start);
    assert!(block("cast_spell").is_empty() && block("cast_spell_at").is_empty());
    assert_eq!(block("cast_spell_at").end, block("cast_defensively").start);
    assert_eq!(
        block("cast_defensively").end,
        block("activate_metamagic").start
    );
    assert_eq!(block("activate_metamagic").len(), 7);
    assert_eq!(block("activate_metamagic").end, spec.action_space_size);
    let reset = |seed: u64| {
        let mut r = reset_req("sample_arena", seed, &["players"]);
        r.observation = tensors_only();
        r
    };
    let aoo_kind = proto::DecisionKind::AttackOfOpportunity as i32;
    for compact in [false, true] {
        let mut req = proto::StepBatchRequest {
            resets: (0..8).map(|i| reset(300 + i)).collect(),
            columnar_response: true,
            compact_columns: compact,
            ..Default::default()
        };
        let (mut seed, mut reactions, mut turns, mut over) = (400, 0, 0, 0);
        for t in 0..60 {
            let resp = svc.step_batch_blocking(&req, None).unwrap();
            let c = resp.columns.unwrap();
            let k = c.items as usize;
            assert_eq!(c.decision_kinds.len(), k, "one byte per row");
            let na = c.action_space_size as usize;
            let mask = |i: usize| -> Vec<u8> {
                if compact {
                    let w = na.div_ceil(8);
                    let bits = &c.action_mask_bits[i * w..(i + 1) * w];
                    (0..na).map(|j| (bits[j / 8] >> (j % 8)) & 1).collect()
                } else {
                    c.action_masks[i * na..(i + 1) * na].to_vec()
                }
            };
            let mut col = proto::ColumnarSteps::default();
            let mut resets = Vec::new();
            for (i, it) in resp.items.iter().enumerate() {
                let Some(proto::batch_item::Result::State(s)) = &it.result else {
                    panic!("error item")
                };
                let Some(d) = &s.decision else {
                    assert_eq!(c.decision_kinds[i], 0, "step {t} row {i}");
                    over += 1;
                    seed += 1;
                    resets.push(reset(seed));
                    continue;
                };
                assert_eq!(i32::from(c.decision_kinds[i]), d.kind, "step {t} row {i}");
                let m = mask(i);
                let legal: Vec<u32> = (0..na as u32).filter(|&j| m[j as usize] == 1).collect();
                let id = if d.kind == aoo_kind {
                    reactions += 1;
                    assert!(d.attack_of_opportunity.is_some());
                    assert!(
                        legal.iter().all(|j| aoo.contains(j) || decline.contains(j)),
                        "step {t} row {i}: {legal:?}"
                    );
                    // Take every other one, decline the rest.
                    if reactions % 2 == 0 {
                        legal[0]
                    } else {
                        decline.start
                    }
                } else {
                    assert_eq!(d.kind, proto::DecisionKind::TurnAction as i32);
                    assert!(d.attack_of_opportunity.is_none());
                    assert!(legal
                        .iter()
                        .all(|j| !aoo.contains(j) && !decline.contains(j)));
                    turns += 1;
                    legal.iter().copied().find(|&j| j > 0).unwrap_or(0)
                };
                col.episode_ids.push(s.episode_id.clone());
                col.decision_ids.push(d.decision_id);
                col.action_ids.push(id);
            }
            req = proto::StepBatchRequest {
                columnar_steps: Some(col),
                resets,
                columnar_response: true,
                compact_columns: compact,
                ..Default::default()
            };
        }
        assert!(
            reactions > 0 && turns > 0 && over > 0,
            "compact {compact}: {reactions} reaction rows, {turns} turn rows, {over} ended"
        );
    }
}
