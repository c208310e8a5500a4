//! End-to-end tests of ExportTranscript / ReplayTranscript: a live and a finished episode
//! exported, its document replayed into a new episode that then goes on exactly like the
//! original; fork and inline scenarios; restored episodes (no known start); tampered, garbage,
//! oversized documents, unknown episodes and scenarios; replies over the message limit.
use pf1e_env_server::proto;
use pf1e_env_server::proto::environment_client::EnvironmentClient;
use pf1e_env_server::service::{ServiceConfig, MAX_TRANSCRIPT_BYTES};
use serde_json::Value;
use tonic::transport::Channel;
use tonic::Code;

mod common;
use common::*;

/// SplitMix64: a decision's pseudo-random number.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// A deterministic agent over the legal actions (a function of the decision alone), so that
/// fights end, reactions are asked, taken and declined, and some turn lists are interrupted
/// by them: an attack three times in four when one is legal, else any legal action (a move
/// is followed by `end_turn` every other time, a list a reaction can interrupt); an attack
/// of opportunity is taken two times in three.
fn pick(s: &proto::EpisodeState) -> Vec<u32> {
    use proto::ActionKind as K;
    let d = s.decision.as_ref().expect("a decision");
    let r = mix(d.decision_id.wrapping_mul(31) ^ u64::from(d.actor_index));
    let of = |k: K| -> Vec<u32> {
        s.legal_actions
            .iter()
            .filter(|l| l.action.as_ref().is_some_and(|a| a.kind == k as i32))
            .map(|l| l.id)
            .collect()
    };
    if d.kind == proto::DecisionKind::AttackOfOpportunity as i32 {
        let k = if r.is_multiple_of(3) {
            K::Decline
        } else {
            K::AttackOfOpportunity
        };
        return vec![of(k)[0]];
    }
    let attacks: Vec<u32> = [of(K::FullAttack), of(K::Attack)].concat();
    if !attacks.is_empty() && !r.is_multiple_of(4) {
        return vec![attacks[(r >> 8) as usize % attacks.len()]];
    }
    // The kinds added after these seeds were chosen (total_defense, fight_defensively, delay,
    // ready, the menu kinds, a run toward a target, the casts) are never picked, so the games stay those
    // the tests were written for.
    let legal: Vec<&proto::LegalAction> = s
        .legal_actions
        .iter()
        .filter(|l| {
            l.action.as_ref().is_some_and(|a| {
                let later = [
                    K::TotalDefense,
                    K::FightDefensively,
                    K::AidAnother,
                    K::CoupDeGrace,
                    K::DrawWeapon,
                    K::SheatheWeapon,
                    K::Delay,
                    K::Ready,
                    K::CastSpell,
                    K::CastDefensively,
                    K::ActivateMetamagic,
                ]
                .iter()
                .any(|k| a.kind == *k as i32);
                let run_toward = a.kind == K::Run as i32 && a.target.is_some();
                !(later || run_toward)
            })
        })
        .collect();
    let l = legal[(r >> 16) as usize % legal.len()];
    let is_move = l.action.as_ref().is_some_and(|a| a.kind == K::Move as i32);
    if is_move && (r >> 40).is_multiple_of(2) {
        vec![l.id, 0]
    } else {
        vec![l.id]
    }
}

fn step_req(s: &proto::EpisodeState, ids: Vec<u32>) -> proto::StepRequest {
    proto::StepRequest {
        episode_id: s.episode_id.clone(),
        decision_id: s.decision.as_ref().unwrap().decision_id,
        action_ids: ids,
        ..Default::default()
    }
}

fn done(s: &proto::EpisodeState) -> bool {
    s.terminated || s.truncated
}

/// What must be the same in the original and the replayed episode (not the episode id).
fn fingerprint(s: &proto::EpisodeState) -> String {
    format!(
        "{:?}|{:?}|{:?}|{}|{:?}|{:?}|{}|{}|{:?}|{:?}|{}",
        s.decision,
        s.results,
        s.observation.as_ref().map(|o| &o.json),
        s.terminated,
        s.truncated,
        s.outcome,
        s.steps,
        s.pending_results,
        s.late_results,
        s.legal_actions,
        s.reward
    )
}

async fn export(
    c: &mut EnvironmentClient<Channel>,
    id: &str,
    json_only: bool,
) -> Result<proto::Transcript, tonic::Status> {
    c.export_transcript(proto::ExportTranscriptRequest {
        episode_id: id.to_string(),
        json_only,
    })
    .await
    .map(|r| r.into_inner())
}

async fn replay(
    c: &mut EnvironmentClient<Channel>,
    doc: impl Into<Vec<u8>>,
) -> Result<proto::EpisodeState, tonic::Status> {
    c.replay_transcript(proto::ReplayTranscriptRequest {
        transcript_json: doc.into(),
        ..Default::default()
    })
    .await
    .map(|r| r.into_inner())
}

/// Both sides of the sample arena controlled, played with [`pick`] until `stop` holds (at
/// least one step).
async fn both_sides(
    c: &mut EnvironmentClient<Channel>,
    seed: u64,
    stop: impl Fn(&proto::EpisodeState) -> bool,
) -> proto::EpisodeState {
    let mut s = c
        .reset(reset_req("sample_arena", seed, &["players", "monsters"]))
        .await
        .unwrap()
        .into_inner();
    loop {
        assert!(!done(&s), "stopped before the end");
        s = c.step(step_req(&s, pick(&s))).await.unwrap().into_inner();
        if stop(&s) {
            return s;
        }
    }
}

/// Step `a` and `b` with the same [`pick`] of `a` until `a` ends, asserting after every step
/// that `same` gives the same text for both (the first difference shown); the late results
/// `a` reported.
async fn play_both(
    c: &mut EnvironmentClient<Channel>,
    a: &mut proto::EpisodeState,
    b: &mut proto::EpisodeState,
    after: &str,
    same: impl Fn(&proto::EpisodeState) -> String,
) -> usize {
    let (mut n, mut late) = (0, 0);
    while !done(a) {
        let ids = pick(a);
        *a = c.step(step_req(a, ids.clone())).await.unwrap().into_inner();
        *b = c.step(step_req(b, ids)).await.unwrap().into_inner();
        late += a.late_results.len();
        let (fa, fb) = (same(a), same(b));
        if fa != fb {
            let at = fa
                .bytes()
                .zip(fb.bytes())
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            let lo = at.saturating_sub(200);
            panic!(
                "step {n} after the {after} differs at byte {at}:\n{}\n{}",
                &fa[lo..(at + 200).min(fa.len())],
                &fb[lo..(at + 200).min(fb.len())]
            );
        }
        n += 1;
        assert!(n < 5000, "the fight ends");
    }
    late
}

#[tokio::test]
async fn exported_mid_episode_the_replay_continues_identically() {
    let mut t = start().await;
    let spec = t
        .client
        .get_spec(proto::GetSpecRequest {
            scenario: named("sample_arena"),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(spec.capabilities.unwrap().transcripts);
    // Exported at a reaction decision that interrupted a turn list: the rest of the list's
    // results come late, in the original and in the replay alike.
    let s = both_sides(&mut t.client, 31, |s| s.pending_results > 0).await;
    let tr = export(&mut t.client, &s.episode_id, false).await.unwrap();
    assert_eq!(tr.episode_id, s.episode_id);
    assert_eq!(tr.scenario, "sample_arena");
    assert_eq!(tr.seed, Some(31));
    assert!(tr.replayable);
    assert_eq!(tr.controlled.len(), 5);
    assert_eq!(tr.engine_version, spec.engine_version);
    assert_eq!(tr.rng_version, spec.rng_version);
    assert_eq!(tr.rules_data_version, spec.rules_data_version);
    assert_eq!(tr.decision, s.decision);
    assert!(tr.outcome.is_none());
    // One entry per successful step, decision ids increasing, results as the steps gave.
    assert_eq!(tr.entries.len() as u64, s.steps);
    assert!(tr
        .entries
        .windows(2)
        .all(|w| w[0].decision_id < w[1].decision_id));
    let last = tr.entries.last().unwrap();
    assert!(
        last.results.len() < last.actions.len(),
        "an interrupted list"
    );
    for e in &tr.entries {
        assert!(e.results.len() <= e.actions.len());
        assert!(!e.actor_id.is_empty());
        let reaction = e.kind == proto::DecisionKind::AttackOfOpportunity as i32;
        assert_eq!(reaction, e.attack_of_opportunity.is_some());
    }
    assert!(tr.lines.iter().any(|l| l.message.starts_with("initiative")));
    let doc: Value = serde_json::from_str(&tr.transcript_json).unwrap();
    assert_eq!(doc["format"], "pf1e-transcript");
    assert_eq!(doc["seed"], 31);
    assert_eq!(doc["scenario"]["named"], "sample_arena");
    assert_eq!(doc["history"].as_array().unwrap().len(), tr.entries.len());
    assert_eq!(doc["transcript"].as_array().unwrap().len(), tr.lines.len());
    assert!(doc["outcome"].is_null());
    assert_eq!(
        doc["open_steps"],
        serde_json::json!([{"decision_id": last.decision_id, "by_id": true}])
    );
    // json_only: the same document, no typed entries.
    let lean = export(&mut t.client, &s.episode_id, true).await.unwrap();
    assert!(lean.entries.is_empty() && lean.lines.is_empty());
    assert_eq!(lean.transcript_json, tr.transcript_json);

    // The replay is a new live episode where the original stands.
    let base = live(&mut t.client).await;
    let mut a = t
        .client
        .observe(proto::ObserveRequest {
            episode_id: s.episode_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    let mut b = replay(&mut t.client, tr.transcript_json.clone())
        .await
        .unwrap();
    assert_eq!(live(&mut t.client).await, base + 1);
    assert_ne!(b.episode_id, a.episode_id);
    assert_eq!(b.decision, a.decision);
    assert_eq!(b.steps, a.steps);
    assert!(b.results.is_empty());
    // Its own export is the original's document.
    let again = export(&mut t.client, &b.episode_id, true).await.unwrap();
    assert_eq!(again.transcript_json, tr.transcript_json);
    // Both go on identically to the end.
    let late = play_both(&mut t.client, &mut a, &mut b, "replay", fingerprint).await;
    assert!(late > 0, "late results were reported after the replay");
    // At the end: the same document from both, with the outcome; it replays into a finished
    // episode.
    let end_a = export(&mut t.client, &a.episode_id, false).await.unwrap();
    let end_b = export(&mut t.client, &b.episode_id, false).await.unwrap();
    let aoo = proto::DecisionKind::AttackOfOpportunity as i32;
    let answers: std::collections::BTreeSet<i32> = end_a
        .entries
        .iter()
        .filter(|e| e.kind == aoo)
        .map(|e| e.actions[0].kind)
        .collect();
    assert_eq!(
        answers.len(),
        2,
        "attacks of opportunity taken and declined"
    );
    assert_eq!(end_a.transcript_json, end_b.transcript_json);
    assert_eq!(end_a.outcome, a.outcome);
    assert!(end_a.decision.is_none());
    assert!(end_a
        .lines
        .last()
        .is_some_and(|l| l.message.starts_with("battle over")));
    let doc: Value = serde_json::from_str(&end_a.transcript_json).unwrap();
    assert!(doc["outcome"].is_object());
    let c = replay(&mut t.client, end_a.transcript_json.clone())
        .await
        .unwrap();
    assert!(done(&c));
    assert_eq!(c.outcome, a.outcome);
    assert_eq!(
        c.observation.as_ref().map(|o| &o.json),
        a.observation.as_ref().map(|o| &o.json)
    );
    // A fork exports the same document.
    let f = t
        .client
        .fork(proto::ForkRequest {
            episode_id: a.episode_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    let end_f = export(&mut t.client, &f.episode_id, true).await.unwrap();
    assert_eq!(end_f.transcript_json, end_a.transcript_json);
}

#[tokio::test]
async fn inline_scenarios_travel_in_the_document() {
    let mut t = start().await;
    let orc = read_data("monsters/orc.json");
    let side = |name: &str| proto::InlineSide {
        name: name.into(),
        combatants: vec![proto::InlineCombatant {
            json: orc.clone(),
            base_id: format!("{name}_orc"),
        }],
    };
    let scenario = Some(proto::Scenario {
        source: Some(proto::scenario::Source::Inline(proto::InlineScenario {
            map_yaml: read_data("maps/mirror_duel.yaml"),
            sides: vec![side("west"), side("east")],
            round_cap: 30,
            simple_monster_death: true,
        })),
    });
    let mut s = t
        .client
        .reset(proto::ResetRequest {
            scenario,
            seed: 4,
            controlled: controlled_sides(&["west", "east"]),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    for _ in 0..1 {
        s = t
            .client
            .step(step_req(&s, pick(&s)))
            .await
            .unwrap()
            .into_inner();
    }
    let tr = export(&mut t.client, &s.episode_id, false).await.unwrap();
    assert_eq!(tr.scenario, "inline");
    let doc: Value = serde_json::from_str(&tr.transcript_json).unwrap();
    let inline = &doc["scenario"]["inline"];
    assert_eq!(inline["round_cap"], 30);
    assert_eq!(inline["simple_monster_death"], true);
    assert_eq!(inline["sides"][1]["combatants"][0]["base_id"], "east_orc");
    let r = replay(&mut t.client, tr.transcript_json.clone())
        .await
        .unwrap();
    assert_eq!(r.decision, s.decision);
    let again = export(&mut t.client, &r.episode_id, true).await.unwrap();
    assert_eq!(again.transcript_json, tr.transcript_json);
    // A broken inline scenario in the document is named as such.
    let mut bad = doc.clone();
    bad["scenario"]["inline"]["map_yaml"] = Value::from("");
    assert_status(
        replay(&mut t.client, bad.to_string()).await,
        Code::InvalidArgument,
        "transcript_json.scenario.inline.map_yaml",
    );
}

#[tokio::test]
async fn restored_episodes_export_and_replay_like_the_original() {
    let mut t = start().await;
    let s = both_sides(&mut t.client, 3, |s| s.steps == 4).await;
    let snap = t
        .client
        .snapshot(proto::SnapshotRequest {
            episode_id: s.episode_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    let r = t
        .client
        .restore(proto::RestoreRequest {
            scenario: named("sample_arena"),
            snapshot: snap.snapshot,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let original = export(&mut t.client, &s.episode_id, false).await.unwrap();
    let restored = export(&mut t.client, &r.episode_id, false).await.unwrap();
    // The (signed) snapshot carries the seed: the restored episode exports as the original.
    assert_eq!(restored.seed, Some(3));
    assert!(restored.replayable);
    assert_eq!(restored.entries, original.entries);
    assert_eq!(restored.lines, original.lines);
    assert_eq!(restored.transcript_json, original.transcript_json);
    let doc: Value = serde_json::from_str(&restored.transcript_json).unwrap();
    assert_eq!(doc["seed"], 3);
    replay(&mut t.client, restored.transcript_json)
        .await
        .expect("a restored episode's transcript replays");
}

/// Restored from a snapshot taken while a reaction interrupted a turn list, an episode goes on
/// exactly like the original: the same step count, the rest of the list's results as late
/// results (their fields named `actions[i]`: a snapshot does not say the list was sent as ids).
#[tokio::test]
async fn restored_mid_interrupted_list_the_late_results_still_come() {
    let mut t = start().await;
    let mut a = both_sides(&mut t.client, 31, |s| s.pending_results > 0).await;
    let snap = t
        .client
        .snapshot(proto::SnapshotRequest {
            episode_id: a.episode_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    let mut b = t
        .client
        .restore(proto::RestoreRequest {
            scenario: named("sample_arena"),
            snapshot: snap.snapshot,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(b.steps, a.steps);
    assert_eq!(b.decision, a.decision);
    let same = |s: &proto::EpisodeState| fingerprint(s).replace("action_ids[", "actions[");
    let late = play_both(&mut t.client, &mut a, &mut b, "restore", same).await;
    assert!(late > 0, "late results were reported after the restore");
}

#[tokio::test]
async fn bad_documents_and_episodes_are_refused() {
    let mut t = start().await;
    let s = both_sides(&mut t.client, 9, |s| s.steps == 12).await;
    let tr = export(&mut t.client, &s.episode_id, false).await.unwrap();
    let doc: Value = serde_json::from_str(&tr.transcript_json).unwrap();
    let base = live(&mut t.client).await;
    let edit = |f: &dyn Fn(&mut Value)| {
        let mut d = doc.clone();
        f(&mut d);
        d.to_string()
    };
    // The first entry with an accepted attack: change its action, or its result.
    let k = tr
        .entries
        .iter()
        .position(|e| {
            e.actions[0].kind == proto::ActionKind::FullAttack as i32
                || e.actions[0].kind == proto::ActionKind::Attack as i32
        })
        .expect("an attack in the first steps");
    let cases: Vec<(String, Code, String)> = vec![
        (
            // Named at the changed entry (its results differ), not where the decisions part.
            edit(&|d| d["history"][k]["actions"][0] = serde_json::json!({"kind": "end_turn"})),
            Code::InvalidArgument,
            format!("transcript_json.history[{k}].results"),
        ),
        (
            edit(&|d| d["history"][k]["results"][0]["ok"] = Value::from(false)),
            Code::InvalidArgument,
            format!("transcript_json.history[{k}].results"),
        ),
        (
            edit(&|d| d["final_state"] = Value::from("0000000000000000")),
            Code::InvalidArgument,
            "transcript_json.final_state".into(),
        ),
        (
            edit(&|d| d["transcript"][0]["message"] = Value::from("initiative: forged")),
            Code::InvalidArgument,
            "transcript_json.transcript[0]".into(),
        ),
        (
            edit(&|d| {
                d["transcript"].as_array_mut().unwrap().pop();
            }),
            Code::InvalidArgument,
            "transcript_json.transcript".into(),
        ),
        (
            edit(&|d| {
                d["outcome"] =
                    serde_json::json!({"winner": "players", "rounds": 1, "truncated": false})
            }),
            Code::InvalidArgument,
            "transcript_json.outcome".into(),
        ),
        (
            edit(&|d| d["seed"] = Value::from(10)),
            Code::InvalidArgument,
            "transcript_json.".into(),
        ),
        (
            edit(&|d| {
                d["history"].as_array_mut().unwrap().pop();
            }),
            Code::InvalidArgument,
            "transcript_json.".into(),
        ),
        (
            edit(&|d| d["engine_version"] = Value::from("0.0.1")),
            Code::InvalidArgument,
            "transcript_json.engine_version".into(),
        ),
        (
            edit(&|d| d["rng_version"] = Value::from("xorshift")),
            Code::InvalidArgument,
            "transcript_json.rng_version".into(),
        ),
        (
            edit(&|d| d["version"] = Value::from(99)),
            Code::InvalidArgument,
            "transcript_json.version".into(),
        ),
        (
            edit(&|d| d["format"] = Value::from("pf1e-snapshot")),
            Code::InvalidArgument,
            "transcript_json.format".into(),
        ),
        (
            edit(&|d| d["rules_data_version"] = Value::from("0123456789abcdef")),
            Code::InvalidArgument,
            "transcript_json.rules_data_version".into(),
        ),
        (
            edit(&|d| d["scenario"] = serde_json::json!({"named": "no_such_scenario"})),
            Code::NotFound,
            "transcript_json.scenario.named".into(),
        ),
        (
            edit(&|d| d["scenario"] = serde_json::json!({"named": "../etc/passwd"})),
            Code::InvalidArgument,
            "transcript_json.scenario.named".into(),
        ),
        (
            edit(&|d| d["scenario"] = serde_json::json!({"named": "mirror_duel"})),
            Code::InvalidArgument,
            "transcript_json.rules_data_version".into(),
        ),
        (
            edit(&|d| d["controlled"][0] = Value::from("dragon")),
            Code::InvalidArgument,
            "transcript_json.controlled[0]".into(),
        ),
        (
            edit(&|d| d["controlled"][1] = d["controlled"][0].clone()),
            Code::InvalidArgument,
            "transcript_json.controlled[1]".into(),
        ),
        (
            edit(&|d| d["controlled"] = serde_json::json!([])),
            Code::InvalidArgument,
            "transcript_json.history[0]".into(),
        ),
        (
            edit(&|d| d["history"][0]["actions"][0]["target"] = Value::from(99)),
            Code::InvalidArgument,
            "transcript_json.history[0].actions[0].target".into(),
        ),
        (
            edit(&|d| d["history"][0]["actions"][0]["weapon"] = Value::from(1u64 << 40)),
            Code::InvalidArgument,
            "transcript_json.history[0].actions[0]".into(),
        ),
        (
            edit(&|d| d["history"][0]["actions"] = serde_json::json!([])),
            Code::InvalidArgument,
            "transcript_json.history[0].actions".into(),
        ),
        (
            edit(&|d| d["history"][0]["actor"] = Value::from(40)),
            Code::InvalidArgument,
            "transcript_json.history[0].actor".into(),
        ),
        (
            edit(&|d| d["open_steps"] = serde_json::json!([{"decision_id": 1, "by_id": true}])),
            Code::InvalidArgument,
            "transcript_json.open_steps[0].decision_id".into(),
        ),
        (
            edit(&|d| d["extra"] = Value::from(1)),
            Code::InvalidArgument,
            "transcript_json: not a transcript document".into(),
        ),
        (
            "{\"format\": \"pf1e-transcript\"".into(),
            Code::InvalidArgument,
            "transcript_json: not a transcript document".into(),
        ),
        (
            String::new(),
            Code::InvalidArgument,
            "transcript_json: is required".into(),
        ),
    ];
    for (doc, code, needle) in cases {
        assert_status(replay(&mut t.client, doc).await, code, &needle);
    }
    // Garbage bytes (not even UTF-8), and a document over the limit.
    assert_status(
        replay(&mut t.client, vec![0xff, 0xfe, 0x00, 0x81]).await,
        Code::InvalidArgument,
        "transcript_json: not a transcript document",
    );
    let mut big = tr.transcript_json.clone().into_bytes();
    big.resize(MAX_TRANSCRIPT_BYTES + 1, b' ');
    assert_status(
        replay(&mut t.client, big).await,
        Code::InvalidArgument,
        "longer than",
    );
    // Bad request options.
    let r = t
        .client
        .replay_transcript(proto::ReplayTranscriptRequest {
            transcript_json: tr.transcript_json.clone().into_bytes(),
            reward: Some(proto::RewardOptions {
                shaped: true,
                damage_weight: Some(f32::INFINITY),
                kill_weight: None,
                ..Default::default()
            }),
            ..Default::default()
        })
        .await;
    assert_status(r, Code::InvalidArgument, "reward.damage_weight");
    // Nothing was opened by the refusals.
    assert_eq!(live(&mut t.client).await, base);
    // Episodes: unknown, empty and oversized ids.
    assert_status(
        export(&mut t.client, "ep-none", false).await,
        Code::NotFound,
        "episode_id",
    );
    assert_status(
        export(&mut t.client, "", false).await,
        Code::InvalidArgument,
        "episode_id",
    );
    assert_status(
        export(&mut t.client, &"x".repeat(1000), false).await,
        Code::InvalidArgument,
        "episode_id",
    );
    // Closed: gone.
    t.client
        .close(proto::CloseRequest {
            episode_id: s.episode_id.clone(),
        })
        .await
        .unwrap();
    assert_status(
        export(&mut t.client, &s.episode_id, false).await,
        Code::NotFound,
        "episode_id",
    );
    // The document still replays: it needs no live episode.
    replay(&mut t.client, tr.transcript_json).await.unwrap();
}

#[tokio::test]
async fn exports_over_the_message_limit_are_out_of_range() {
    // Measure the two reply sizes of one finished episode, then serve it with a limit in
    // between: the full reply is refused naming json_only, the document alone is served.
    let lean_obs = Some(proto::ObservationOptions {
        json: Some(false),
        tensors: false,
        legal_actions: Some(true),
        typed: Some(false),
        action_mask: false,
        ..Default::default()
    });
    let play = |c: EnvironmentClient<Channel>| {
        let obs = lean_obs.clone();
        async move {
            let mut c = c;
            let mut req = reset_req("sample_arena", 5, &["players", "monsters"]);
            req.observation = obs;
            let mut s = c.reset(req).await.unwrap().into_inner();
            while !done(&s) {
                s = c.step(step_req(&s, pick(&s))).await.unwrap().into_inner();
            }
            (c, s.episode_id)
        }
    };
    let t = start().await;
    let (mut c, id) = play(t.client.clone()).await;
    let full = prost::Message::encoded_len(&export(&mut c, &id, false).await.unwrap());
    let lean = prost::Message::encoded_len(&export(&mut c, &id, true).await.unwrap());
    assert!(lean < full, "{lean} < {full}");
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_message_bytes = (lean + full) / 2;
    let t = start_with(config).await;
    let (mut c, id) = play(t.client.clone()).await;
    assert_status(
        export(&mut c, &id, false).await,
        Code::OutOfRange,
        "json_only",
    );
    let doc = export(&mut c, &id, true).await.unwrap();
    assert!(doc.replayable);
}
