//! End-to-end tests of the gRPC service: a real server on 127.0.0.1:0 in-process, a real
//! tonic client. Covers GetSpec/ListScenarios, full episodes through Reset/Step, Observe and
//! Close, and the status of each kind of bad request (the server must keep serving after them).
use pf1e_env_server::proto::{self, scenario::Source};
use tonic::Code;

mod common;
use common::*;

/// An inline copy of the mirror duel (orc vs orc), with `map_edit` applied to the map text and
/// `orc_edit` to the east orc's JSON.
fn inline_duel(
    map_edit: impl Fn(String) -> String,
    orc_edit: impl Fn(String) -> String,
) -> proto::Scenario {
    let map_yaml = map_edit(read_data("maps/mirror_duel.yaml"));
    let orc = read_data("monsters/orc.json");
    proto::Scenario {
        source: Some(Source::Inline(proto::InlineScenario {
            map_yaml,
            sides: vec![
                proto::InlineSide {
                    name: "west".into(),
                    combatants: vec![proto::InlineCombatant {
                        json: orc.clone(),
                        base_id: String::new(),
                    }],
                },
                proto::InlineSide {
                    name: "east".into(),
                    combatants: vec![proto::InlineCombatant {
                        json: orc_edit(orc),
                        base_id: "east_orc".into(),
                    }],
                },
            ],
            round_cap: 50,
            simple_monster_death: false,
        })),
    }
}

#[tokio::test]
async fn spec_and_scenario_list() {
    let mut t = start().await;
    let spec = t
        .client
        .get_spec(proto::GetSpecRequest {
            scenario: named("sample_arena"),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(spec.scenario, "sample_arena");
    assert_eq!(spec.sides, vec!["players", "monsters"]);
    assert_eq!(spec.combatants.len(), 5);
    for (i, c) in spec.combatants.iter().enumerate() {
        assert_eq!(c.index as usize, i);
        assert_eq!(c.side, if i < 3 { "players" } else { "monsters" });
    }
    assert_eq!(spec.combatants[0].id, "goblin");
    assert!(spec.action_space_size > 0);
    assert_eq!(spec.rng_version, pf1e_engine::dice::RNG_VERSION);
    assert_eq!(spec.engine_version, env!("CARGO_PKG_VERSION"));
    assert_eq!(spec.mask_polarity, "1 = legal");
    assert_eq!(spec.round_cap, 100);
    let map = spec.map.unwrap();
    assert_eq!((map.rows, map.cols), (8, 20));

    let list = t
        .client
        .list_scenarios(proto::ListScenariosRequest {})
        .await
        .unwrap()
        .into_inner();
    let names: Vec<&str> = list.scenarios.iter().map(|s| s.name.as_str()).collect();
    assert!(
        names.contains(&"sample_arena") && names.contains(&"mirror_duel"),
        "{names:?}"
    );
    for s in &list.scenarios {
        assert!(s.error.is_empty(), "{}: {}", s.name, s.error);
    }

    // Health and reflection are served too.
    let mut health = tonic_health::pb::health_client::HealthClient::new(t.channel.clone());
    let h = health
        .check(tonic_health::pb::HealthCheckRequest {
            service: "pf1e.env.v1.Environment".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        h.status,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );
}

#[tokio::test]
async fn full_episode_as_the_goblins() {
    let mut t = start().await;
    let mut state = t
        .client
        .reset(reset_req("sample_arena", 7, &["players"]))
        .await
        .unwrap()
        .into_inner();
    assert!(state.results.is_empty());
    assert_eq!(state.reward_side, "players");
    let size = state.action_space_size;
    let mut steps = 0u32;
    let mut last_decision = None;
    while !(state.terminated || state.truncated) {
        let d = state.decision.clone().expect("a decision until the end");
        assert!(d.actor_index < 3, "only goblins are controlled: {d:?}");
        assert!(d.actor_id.starts_with("goblin"), "{d:?}");
        if let Some(prev) = last_decision {
            assert!(d.decision_id > prev, "decision ids increase");
        }
        last_decision = Some(d.decision_id);
        assert!(!state.legal_actions.is_empty());
        assert!(
            state.legal_actions.windows(2).all(|w| w[0].id < w[1].id),
            "sorted by id"
        );
        assert!(state.legal_actions.iter().all(|l| l.id < size));
        let obs = state.observation.as_ref().unwrap();
        assert_eq!(obs.acting_index, Some(d.actor_index));
        assert_eq!(obs.combatants.len(), 5);
        let json: serde_json::Value = serde_json::from_str(&obs.json).unwrap();
        assert!(json.get("combatants").is_some());
        assert_eq!(state.reward, 0.0);

        // Observe has no side effects.
        let o1 = t
            .client
            .observe(proto::ObserveRequest {
                episode_id: state.episode_id.clone(),
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(o1, state);

        let first = state.legal_actions[0].id;
        state = t
            .client
            .step(proto::StepRequest {
                episode_id: state.episode_id.clone(),
                decision_id: d.decision_id,
                actions: vec![],
                action_ids: vec![first],
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(state.results.len(), 1);
        assert_eq!(state.results[0].field, "action_ids[0]");
        steps += 1;
        assert!(steps < 20_000, "episode does not end");
    }
    assert!(state.decision.is_none());
    assert!(state.legal_actions.is_empty());
    let outcome = state.outcome.clone().unwrap();
    assert_eq!(outcome.truncated, state.truncated);
    let expected = match outcome.winner.as_str() {
        "players" => 1.0,
        "monsters" => -1.0,
        _ => 0.0,
    };
    assert_eq!(state.reward, expected, "{outcome:?}");

    // Step after the end.
    let r = t
        .client
        .step(proto::StepRequest {
            episode_id: state.episode_id.clone(),
            decision_id: last_decision.unwrap_or(0) + 1,
            actions: vec![],
            action_ids: vec![0],
            ..Default::default()
        })
        .await;
    assert_status(r, Code::FailedPrecondition, "is over");

    // Close, then the episode is gone.
    t.client
        .close(proto::CloseRequest {
            episode_id: state.episode_id.clone(),
        })
        .await
        .unwrap();
    let r = t
        .client
        .observe(proto::ObserveRequest {
            episode_id: state.episode_id.clone(),
        })
        .await;
    assert_status(r, Code::NotFound, "unknown episode");
}

#[tokio::test]
async fn same_seed_same_episode_and_uncontrolled_runs_to_the_end() {
    let mut t = start().await;
    let a = t
        .client
        .reset(reset_req("sample_arena", 42, &[]))
        .await
        .unwrap()
        .into_inner();
    let b = t
        .client
        .reset(reset_req("sample_arena", 42, &[]))
        .await
        .unwrap()
        .into_inner();
    assert!(
        a.terminated || a.truncated,
        "nobody controlled: Reset returns the end"
    );
    assert_ne!(a.episode_id, b.episode_id);
    assert_eq!(a.outcome, b.outcome);
    assert_eq!(a.observation, b.observation);
    assert_eq!(a.reward, 0.0, "no controlled side, no reward");

    // An inline copy of the mirror duel plays, with explicit and default base ids.
    let duel = inline_duel(|m| m, |o| o);
    let spec = t
        .client
        .get_spec(proto::GetSpecRequest {
            scenario: Some(duel.clone()),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(spec.scenario, "inline");
    let ids: Vec<&str> = spec.combatants.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, vec!["orc", "east_orc"]);
    assert_eq!(spec.round_cap, 50);
    let s = t
        .client
        .reset(proto::ResetRequest {
            scenario: Some(duel),
            seed: 1,
            controlled: Some(proto::Controlled {
                sides: vec![],
                combatant_ids: vec!["east_orc".into()],
            }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(s.reward_side, "east");
    if let Some(d) = &s.decision {
        assert_eq!(d.actor_id, "east_orc");
    }
}

#[tokio::test]
async fn concurrent_episodes_are_independent() {
    let t = start().await;
    let mut tasks = Vec::new();
    for seed in 0..4u64 {
        let mut c = t.client.clone();
        tasks.push(tokio::spawn(async move {
            let mut s = c
                .reset(reset_req("mirror_duel", seed, &["west", "east"]))
                .await
                .unwrap()
                .into_inner();
            assert_eq!(s.reward_side, "", "two sides controlled: no reward side");
            let mut n = 0;
            while let Some(d) = s.decision.clone() {
                // Prefer any action but end_turn, so the fight progresses.
                let id = s
                    .legal_actions
                    .iter()
                    .find(|l| {
                        l.action.as_ref().map(|a| a.kind) != Some(proto::ActionKind::EndTurn as i32)
                    })
                    .unwrap_or(&s.legal_actions[0])
                    .id;
                s = c
                    .step(proto::StepRequest {
                        episode_id: s.episode_id.clone(),
                        decision_id: d.decision_id,
                        actions: vec![],
                        action_ids: vec![id],
                        ..Default::default()
                    })
                    .await
                    .unwrap()
                    .into_inner();
                n += 1;
                assert!(n < 20_000);
            }
            assert!(s.terminated || s.truncated);
            assert_eq!(s.reward, 0.0);
            s.outcome
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
}

#[tokio::test]
async fn bad_requests_get_clear_statuses_and_the_server_keeps_serving() {
    let mut t = start().await;
    let c = &mut t.client;

    // 0. An oversized invalid name: the error names the field and its message stays bounded
    //    (gRPC clients refuse status metadata beyond 16 KiB).
    let r = c.reset(reset_req(&"x/".repeat(20_000), 1, &[])).await;
    match r {
        Err(s) => {
            assert_eq!(s.code(), Code::InvalidArgument, "{s:?}");
            assert!(
                s.message().len() <= 1100,
                "message of {} bytes",
                s.message().len()
            );
            assert!(s.message().contains("scenario"), "{}", s.message());
        }
        Ok(_) => panic!("an invalid scenario name was accepted"),
    }

    // 1. Unknown episode id.
    let r = c
        .observe(proto::ObserveRequest {
            episode_id: "ep-0000000000000000".into(),
        })
        .await;
    assert_status(r, Code::NotFound, "unknown episode");
    let r = c
        .step(proto::StepRequest {
            episode_id: "nope".into(),
            decision_id: 0,
            actions: vec![],
            action_ids: vec![0],
            ..Default::default()
        })
        .await;
    assert_status(r, Code::NotFound, "unknown episode");
    let r = c
        .close(proto::CloseRequest {
            episode_id: "nope".into(),
        })
        .await;
    assert_status(r, Code::NotFound, "unknown episode");
    let r = c
        .observe(proto::ObserveRequest {
            episode_id: String::new(),
        })
        .await;
    assert_status(r, Code::InvalidArgument, "episode_id");

    // 2. Unknown scenario name; 3. a path as a name; missing scenario.
    let r = c.reset(reset_req("no_such_scenario", 0, &[])).await;
    assert_status(r, Code::NotFound, "no_such_scenario");
    let r = c.reset(reset_req("../../etc/passwd", 0, &[])).await;
    assert_status(r, Code::InvalidArgument, "scenario.named");
    let r = c
        .get_spec(proto::GetSpecRequest {
            scenario: named("sample_arena/../x"),
        })
        .await;
    assert_status(r, Code::InvalidArgument, "scenario.named");
    let r = c.get_spec(proto::GetSpecRequest { scenario: None }).await;
    assert_status(r, Code::InvalidArgument, "scenario");

    // 4. Inline map with a terrain character missing from the legend.
    let bad_map = inline_duel(|m| m.replacen("#..........#", "#....X.....#", 1), |o| o);
    let r = c
        .reset(proto::ResetRequest {
            scenario: Some(bad_map),
            seed: 0,
            controlled: None,
            ..Default::default()
        })
        .await;
    assert_status(r, Code::InvalidArgument, "scenario.inline.map_yaml");
    // Inline combatant with an invalid field.
    let bad_orc = inline_duel(
        |m| m,
        |o| {
            let mut v: serde_json::Value = serde_json::from_str(&o).unwrap();
            v["hp_max"] = serde_json::json!(0);
            v.to_string()
        },
    );
    let r = c
        .get_spec(proto::GetSpecRequest {
            scenario: Some(bad_orc),
        })
        .await;
    assert_status(
        r,
        Code::InvalidArgument,
        "scenario.inline.sides[1].combatants[0]: field `hp_max`",
    );

    // Unknown controlled side / combatant.
    let r = c.reset(reset_req("sample_arena", 0, &["goblins"])).await;
    assert_status(r, Code::InvalidArgument, "controlled.sides[0]");
    let r = c
        .reset(proto::ResetRequest {
            scenario: named("sample_arena"),
            seed: 0,
            controlled: Some(proto::Controlled {
                sides: vec![],
                combatant_ids: vec!["dragon".into()],
            }),
            ..Default::default()
        })
        .await;
    assert_status(r, Code::InvalidArgument, "controlled.combatant_ids[0]");

    // An episode waiting for a goblin's decision.
    let s = c
        .reset(reset_req("sample_arena", 3, &["players"]))
        .await
        .unwrap()
        .into_inner();
    let d = s.decision.clone().expect("goblins decide");
    let step =
        |actions: Vec<proto::Action>, action_ids: Vec<u32>, decision_id: u64| proto::StepRequest {
            episode_id: s.episode_id.clone(),
            decision_id,
            actions,
            action_ids,
            ..Default::default()
        };

    // 5. Stale decision id.
    let r = c
        .step(step(vec![], vec![s.legal_actions[0].id], d.decision_id + 1))
        .await;
    assert_status(
        r,
        Code::FailedPrecondition,
        &format!(
            "the current decision of episode `{}` is {}",
            s.episode_id, d.decision_id
        ),
    );
    // 6. Action kind UNSPECIFIED.
    let unspecified = proto::Action {
        kind: proto::ActionKind::Unspecified as i32,
        ..Default::default()
    };
    let r = c.step(step(vec![unspecified], vec![], d.decision_id)).await;
    assert_status(r, Code::InvalidArgument, "actions[0].kind");
    let unknown_kind = proto::Action {
        kind: 99,
        ..Default::default()
    };
    let r = c
        .step(step(vec![unknown_kind], vec![], d.decision_id))
        .await;
    assert_status(r, Code::InvalidArgument, "actions[0].kind");
    // 7. Action id out of range.
    let r = c
        .step(step(
            vec![],
            vec![s.legal_actions[0].id, s.action_space_size],
            d.decision_id,
        ))
        .await;
    assert_status(r, Code::InvalidArgument, "action_ids[1]");
    // Neither actions nor ids; both.
    let r = c.step(step(vec![], vec![], d.decision_id)).await;
    assert_status(r, Code::InvalidArgument, "actions");
    let end = proto::Action {
        kind: proto::ActionKind::EndTurn as i32,
        ..Default::default()
    };
    let r = c.step(step(vec![end], vec![0], d.decision_id)).await;
    assert_status(r, Code::InvalidArgument, "action_ids");
    // Target and destination that do not exist.
    let far = proto::Action {
        kind: proto::ActionKind::Attack as i32,
        target: Some(99),
        ..Default::default()
    };
    let r = c.step(step(vec![far], vec![], d.decision_id)).await;
    assert_status(r, Code::InvalidArgument, "actions[0].target");
    let off = proto::Action {
        kind: proto::ActionKind::Move as i32,
        destination: Some(proto::Cell { row: -1, col: 500 }),
        ..Default::default()
    };
    let r = c.step(step(vec![off], vec![], d.decision_id)).await;
    assert_status(r, Code::InvalidArgument, "actions[0].destination");

    // None of that changed the episode.
    let again = c
        .observe(proto::ObserveRequest {
            episode_id: s.episode_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again, s);

    // 8. Step after the end.
    let over = c
        .reset(reset_req("sample_arena", 3, &[]))
        .await
        .unwrap()
        .into_inner();
    assert!(over.terminated || over.truncated);
    let r = c
        .step(proto::StepRequest {
            episode_id: over.episode_id.clone(),
            decision_id: 0,
            actions: vec![],
            action_ids: vec![0],
            ..Default::default()
        })
        .await;
    assert_status(r, Code::FailedPrecondition, "is over");

    // After all those errors, the episode and the server still work.
    let end = proto::Action {
        kind: proto::ActionKind::EndTurn as i32,
        ..Default::default()
    };
    let after = c
        .step(step(vec![end], vec![], d.decision_id))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(after.results.len(), 1);
    assert_eq!(after.results[0].kind, proto::ActionKind::EndTurn as i32);
    assert_eq!(after.results[0].field, "actions[0]");
    let spec = c
        .get_spec(proto::GetSpecRequest {
            scenario: named("mirror_duel"),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(spec.sides, vec!["west", "east"]);
}

/// Any id of the action space and any well-formed action is either applied or reported in an
/// `ActionResult`: never an error status, never an engine panic (INTERNAL).
#[tokio::test]
async fn arbitrary_actions_are_results_not_errors() {
    let mut t = start().await;
    let mut x: u64 = 0x2545_F491_4F6C_DD1D; // xorshift state
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for seed in 0..2u64 {
        let mut s = t
            .client
            .reset(reset_req("sample_arena", seed, &["players", "monsters"]))
            .await
            .unwrap()
            .into_inner();
        let size = u64::from(s.action_space_size);
        let mut steps = 0;
        while let Some(d) = s.decision.clone() {
            let mut req = proto::StepRequest {
                episode_id: s.episode_id.clone(),
                decision_id: d.decision_id,
                actions: vec![],
                action_ids: vec![],
                ..Default::default()
            };
            match next() % 4 {
                // A random id of the whole space (mostly illegal now).
                0 => req.action_ids = vec![(next() % size) as u32, (next() % size) as u32],
                // A random well-formed action message.
                1 => {
                    let kind = 1 + (next() % 14) as i32;
                    req.actions = vec![proto::Action {
                        kind,
                        target: (next() % 2 == 0).then(|| (next() % 5) as u32),
                        destination: (next() % 2 == 0).then(|| proto::Cell {
                            row: (next() % 8) as i32,
                            col: (next() % 20) as i32,
                        }),
                        weapon: (next() % 3 == 0).then(|| (next() % 4) as u32),
                        // A maneuver type only on a maneuver (elsewhere: INVALID_ARGUMENT,
                        // see `maneuver_type_on_another_kind_is_invalid`).
                        maneuver: (kind == proto::ActionKind::Maneuver as i32 && next() % 2 == 0)
                            .then(|| (next() % 18) as i32),
                        ..Default::default()
                    }]
                }
                // A random legal action.
                _ => {
                    req.action_ids =
                        vec![s.legal_actions[(next() % s.legal_actions.len() as u64) as usize].id]
                }
            }
            let n = req.actions.len().max(req.action_ids.len());
            s = t
                .client
                .step(req)
                .await
                .unwrap_or_else(|e| panic!("seed {seed} step {steps}: {e:?}"))
                .into_inner();
            assert_eq!(s.results.len() + s.pending_results as usize, n);
            steps += 1;
            assert!(steps < 20_000, "episode does not end");
        }
        assert!(s.terminated || s.truncated);
    }
}

/// A maneuver type on an action that is not a maneuver is a malformed request naming the field
/// (it would otherwise be silently ignored).
#[tokio::test]
async fn maneuver_type_on_another_kind_is_invalid() {
    let mut t = start().await;
    let s = t
        .client
        .reset(reset_req("sample_arena", 3, &["players"]))
        .await
        .unwrap()
        .into_inner();
    let d = s.decision.as_ref().expect("goblins decide");
    let r = t
        .client
        .step(proto::StepRequest {
            episode_id: s.episode_id.clone(),
            decision_id: d.decision_id,
            actions: vec![proto::Action {
                kind: proto::ActionKind::EndTurn as i32,
                maneuver: Some(proto::ManeuverType::Trip as i32),
                ..Default::default()
            }],
            action_ids: vec![],
            ..Default::default()
        })
        .await;
    assert_status(r, Code::InvalidArgument, "actions[0].maneuver");
}

/// CRB — Feats: Stand Still, over gRPC: the east orc (Combat Reflexes, Stand Still) next to
/// the west orc, both sides controlled. The west orc moves away, leaving a square adjacent to
/// the east orc: its attack-of-opportunity decision offers `stand_still` (a legal action with
/// its own id), and the answer by id is accepted.
#[tokio::test]
async fn stand_still_answer_is_a_legal_action_and_accepted() {
    let mut t = start().await;
    let adjacent_zones = |m: String| {
        let start = m.find("zones: |").unwrap();
        let end = m.find("markers:").unwrap();
        let zones = "zones: |\n  ............\n  ............\n  ............\n  .....AB.....\n  ............\n  ............\n  ............\n\n";
        format!("{}{}{}", &m[..start], zones, &m[end..])
    };
    let feats = |j: String| {
        j.replacen(
            "\"feats\": [",
            "\"feats\": [\"Combat Reflexes\", \"Stand Still\", ",
            1,
        )
    };
    let mut state = t
        .client
        .reset(proto::ResetRequest {
            scenario: Some(inline_duel(adjacent_zones, feats)),
            seed: 3,
            controlled: controlled_sides(&["west", "east"]),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut answered = false;
    for _ in 0..20 {
        let d = state.decision.clone().expect("a decision");
        let reaction = d.kind == proto::DecisionKind::AttackOfOpportunity as i32;
        let req = if reaction {
            let ss = state
                .legal_actions
                .iter()
                .find(|l| l.label == "stand_still")
                .expect("stand_still is offered");
            assert_eq!(
                ss.action.as_ref().unwrap().kind,
                proto::ActionKind::StandStill as i32
            );
            answered = true;
            proto::StepRequest {
                episode_id: state.episode_id.clone(),
                decision_id: d.decision_id,
                action_ids: vec![ss.id],
                ..Default::default()
            }
        } else {
            let action = if d.actor_index == 0 {
                // West: step back west, leaving the square next to the east orc.
                proto::Action {
                    kind: proto::ActionKind::Move as i32,
                    destination: Some(proto::Cell { row: 3, col: 3 }),
                    ..Default::default()
                }
            } else {
                proto::Action {
                    kind: proto::ActionKind::EndTurn as i32,
                    ..Default::default()
                }
            };
            proto::StepRequest {
                episode_id: state.episode_id.clone(),
                decision_id: d.decision_id,
                actions: vec![action],
                ..Default::default()
            }
        };
        state = t.client.step(req).await.unwrap().into_inner();
        if answered {
            assert_eq!(state.results.len(), 1, "{:?}", state.results);
            assert!(state.results[0].ok, "{:?}", state.results);
            assert_eq!(state.results[0].kind, proto::ActionKind::StandStill as i32);
            break;
        }
    }
    assert!(answered, "the west orc never provoked");
}
