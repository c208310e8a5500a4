//! Explain and the structured inputs of Step over gRPC (issue 13): Explain by id, label,
//! JSON, typed action and all; a stale decision is FAILED_PRECONDITION; bad JSON is
//! INVALID_ARGUMENT naming the field; a Step by labels or by a JSON plan gives one
//! ActionResult per action named `action_labels[i]` / `actions_json[i]`; GetSpec's schemas
//! are JSON.
use pf1e_env_server::proto;
use tonic::Code;

mod common;
use common::*;

async fn reset(t: &mut TestServer) -> proto::EpisodeState {
    t.client
        .reset(proto::ResetRequest {
            observation: Some(proto::ObservationOptions {
                action_mask: true,
                ..Default::default()
            }),
            ..reset_req("sample_arena", 7, &["players"])
        })
        .await
        .unwrap()
        .into_inner()
}

fn explain_req(s: &proto::EpisodeState) -> proto::ExplainRequest {
    proto::ExplainRequest {
        episode_id: s.episode_id.clone(),
        decision_id: s.decision.as_ref().unwrap().decision_id,
        ..Default::default()
    }
}

async fn explain(
    t: &mut TestServer,
    req: proto::ExplainRequest,
) -> Result<Vec<proto::Explanation>, tonic::Status> {
    t.client
        .explain(req)
        .await
        .map(|r| r.into_inner().explanations)
}

#[tokio::test]
async fn get_spec_publishes_the_schemas_and_the_capabilities() {
    let mut t = start().await;
    let spec = spec_of(&mut t.client, "sample_arena").await;
    let caps = spec.capabilities.unwrap();
    assert!(caps.explain && caps.structured_actions);
    let a: serde_json::Value = serde_json::from_str(&spec.action_json_schema).unwrap();
    let p: serde_json::Value = serde_json::from_str(&spec.plan_json_schema).unwrap();
    assert_eq!(a["required"], serde_json::json!(["kind"]));
    let ids: Vec<String> = spec.combatants.iter().map(|c| c.id.clone()).collect();
    assert_eq!(a["properties"]["target"]["enum"], serde_json::json!(ids));
    assert_eq!(p["properties"]["plan"]["minItems"], 1);
}

#[tokio::test]
async fn explain_by_id_label_json_typed_and_all() {
    let mut t = start().await;
    let s = reset(&mut t).await;
    let size = s.action_space_size;
    // All: one per id, legal exactly for the legal actions.
    let all = explain(
        &mut t,
        proto::ExplainRequest {
            all: true,
            ..explain_req(&s)
        },
    )
    .await
    .unwrap();
    assert_eq!(all.len() as u32, size);
    let legal: Vec<u32> = all
        .iter()
        .filter(|x| x.legal)
        .map(|x| x.action_id.unwrap())
        .collect();
    let want: Vec<u32> = s.legal_actions.iter().map(|l| l.id).collect();
    assert_eq!(legal, want);
    for x in &all {
        assert!(!x.reason.is_empty());
        if x.legal {
            assert_eq!(x.code, "");
            assert_eq!(x.result_code, proto::ResultCode::Ok as i32);
        } else {
            assert!(!x.code.is_empty());
            assert_ne!(x.result_code, proto::ResultCode::Ok as i32);
        }
    }
    // By id: a masked-out one, the same as Validate says.
    let refused = all.iter().find(|x| !x.legal).unwrap();
    let id = refused.action_id.unwrap();
    let by_id = explain(
        &mut t,
        proto::ExplainRequest {
            action_id: Some(id),
            ..explain_req(&s)
        },
    )
    .await
    .unwrap();
    assert_eq!(by_id, vec![refused.clone()]);
    let v = t
        .client
        .validate(proto::ValidateRequest {
            episode_id: s.episode_id.clone(),
            decision_id: 0,
            action_id: Some(id),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(v.reason, refused.code);
    assert_eq!(v.code, refused.result_code);
    // By label: a legal one.
    let l = s.legal_actions.last().unwrap();
    let by_label = explain(
        &mut t,
        proto::ExplainRequest {
            label: l.label.clone(),
            ..explain_req(&s)
        },
    )
    .await
    .unwrap();
    assert!(by_label[0].legal);
    assert_eq!(by_label[0].action_id, Some(l.id));
    assert!(
        by_label[0].reason.contains(&l.label),
        "{}",
        by_label[0].reason
    );
    // By label: a masked-out id's label resolves too.
    let by_label = explain(
        &mut t,
        proto::ExplainRequest {
            label: refused.label.clone(),
            ..explain_req(&s)
        },
    )
    .await
    .unwrap();
    assert!(!by_label[0].legal);
    // By JSON and typed: the same verdict.
    let actor = s.decision.as_ref().unwrap().actor_index;
    let by_json = explain(
        &mut t,
        proto::ExplainRequest {
            action_json: r#"{"kind": "full_attack", "target": "orc-2"}"#.into(),
            decision_id: 0,
            ..explain_req(&s)
        },
    )
    .await
    .unwrap();
    let typed = explain(
        &mut t,
        proto::ExplainRequest {
            action: Some(proto::Action {
                kind: proto::ActionKind::FullAttack as i32,
                target: Some(4),
                ..Default::default()
            }),
            ..explain_req(&s)
        },
    )
    .await
    .unwrap();
    assert_eq!(by_json, typed);
    assert!(
        by_json[0].label.starts_with("full_attack orc-2"),
        "{:?}",
        by_json[0]
    );
    assert!(actor < 3, "a goblin decides");
}

#[tokio::test]
async fn explain_errors() {
    let mut t = start().await;
    let s = reset(&mut t).await;
    let d = s.decision.as_ref().unwrap().decision_id;
    // Stale decision.
    let r = explain(
        &mut t,
        proto::ExplainRequest {
            decision_id: d + 7,
            all: true,
            ..explain_req(&s)
        },
    )
    .await;
    assert_status(r, Code::FailedPrecondition, "decision");
    // Bad JSON names the field.
    let r = explain(
        &mut t,
        proto::ExplainRequest {
            action_json: r#"{"kind": "attack", "target": "orc-9"}"#.into(),
            ..explain_req(&s)
        },
    )
    .await;
    assert_status(r, Code::InvalidArgument, "action_json.target");
    let r = explain(
        &mut t,
        proto::ExplainRequest {
            action_json: r#"{"kind": "attack""#.into(),
            ..explain_req(&s)
        },
    )
    .await;
    assert_status(r, Code::InvalidArgument, "action_json: not valid JSON");
    let r = explain(
        &mut t,
        proto::ExplainRequest {
            label: "dance".into(),
            ..explain_req(&s)
        },
    )
    .await;
    assert_status(r, Code::InvalidArgument, "label");
    // None, several inputs; an id out of range; an unknown episode.
    assert_status(
        explain(&mut t, explain_req(&s)).await,
        Code::InvalidArgument,
        "action_id",
    );
    assert_status(
        explain(
            &mut t,
            proto::ExplainRequest {
                action_id: Some(0),
                all: true,
                ..explain_req(&s)
            },
        )
        .await,
        Code::InvalidArgument,
        "all",
    );
    assert_status(
        explain(
            &mut t,
            proto::ExplainRequest {
                action_id: Some(s.action_space_size),
                ..explain_req(&s)
            },
        )
        .await,
        Code::InvalidArgument,
        "out of range",
    );
    assert_status(
        explain(
            &mut t,
            proto::ExplainRequest {
                episode_id: "nope".into(),
                all: true,
                ..explain_req(&s)
            },
        )
        .await,
        Code::NotFound,
        "",
    );
}

fn step_req(s: &proto::EpisodeState) -> proto::StepRequest {
    proto::StepRequest {
        episode_id: s.episode_id.clone(),
        decision_id: s.decision.as_ref().unwrap().decision_id,
        ..Default::default()
    }
}

#[tokio::test]
async fn step_by_labels_and_by_a_json_plan() {
    let mut t = start().await;
    let s = reset(&mut t).await;
    // Unresolvable inputs are refused whole, nothing applied.
    let r = t
        .client
        .step(proto::StepRequest {
            action_labels: vec!["end_turn".into(), "dance".into()],
            ..step_req(&s)
        })
        .await;
    assert_status(r, Code::InvalidArgument, "action_labels[1]");
    let r = t
        .client
        .step(proto::StepRequest {
            actions_json: r#"[{"kind": "end_turn"}, {"kind": "attack", "target": "orc-9"}]"#.into(),
            ..step_req(&s)
        })
        .await;
    assert_status(r, Code::InvalidArgument, "actions_json[1].target");
    let r = t
        .client
        .step(proto::StepRequest {
            actions_json: r#"{"plan": [{"kind": "fly"}]}"#.into(),
            ..step_req(&s)
        })
        .await;
    assert_status(r, Code::InvalidArgument, "actions_json.plan[0].kind");
    let r = t
        .client
        .step(proto::StepRequest {
            action_labels: vec!["end_turn".into()],
            action_ids: vec![0],
            ..step_req(&s)
        })
        .await;
    assert_status(r, Code::InvalidArgument, "action_labels");
    let again = t
        .client
        .observe(proto::ObserveRequest {
            episode_id: s.episode_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(again.decision, s.decision, "nothing applied");

    // By labels: total defense then end the turn, one result each.
    let s2 = t
        .client
        .step(proto::StepRequest {
            action_labels: vec!["total_defense".into(), "end_turn".into()],
            ..step_req(&s)
        })
        .await
        .unwrap()
        .into_inner();
    let fields: Vec<&str> = s2.results.iter().map(|r| r.field.as_str()).collect();
    assert_eq!(fields, ["action_labels[0]", "action_labels[1]"]);
    assert!(s2.results[0].ok, "{:?}", s2.results);
    // By a JSON plan at the next decision: an illegal action gets its result, ok = false.
    let s3 = t
        .client
        .step(proto::StepRequest {
            actions_json: r#"{"plan": [{"kind": "stand_up"}, {"kind": "total_defense"}, {"kind": "end_turn"}]}"#
                .into(),
            ..step_req(&s2)
        })
        .await
        .unwrap()
        .into_inner();
    let fields: Vec<&str> = s3.results.iter().map(|r| r.field.as_str()).collect();
    assert_eq!(
        fields,
        ["actions_json[0]", "actions_json[1]", "actions_json[2]"]
    );
    assert!(!s3.results[0].ok);
    assert_eq!(s3.results[0].reason, "not_prone");
    assert!(s3.results[1].ok);
}

/// A list sent by labels that a reaction interrupts: its late results are named
/// `action_labels[i]`, in the session and in an exported (and replayed) transcript.
#[tokio::test]
async fn late_results_of_a_list_by_labels_keep_their_field() {
    let mut t = start().await;
    for seed in 0..20 {
        let mut s = t
            .client
            .reset(reset_req("sample_arena", seed, &["players", "monsters"]))
            .await
            .unwrap()
            .into_inner();
        let mut steps = 0;
        while !(s.terminated || s.truncated) && steps < 400 {
            steps += 1;
            let d = s.decision.clone().unwrap();
            let reaction = d.kind != proto::DecisionKind::TurnAction as i32;
            let labels: Vec<String> = if reaction {
                // Take it: the answer is the first legal label (the attack).
                vec![s.legal_actions[0].label.clone()]
            } else {
                let toward = s.legal_actions.iter().find(|l| {
                    l.label.starts_with("move toward") || l.label.starts_with("full_attack")
                });
                match toward {
                    Some(l) => vec![l.label.clone(), "end_turn".into()],
                    None => vec!["end_turn".into()],
                }
            };
            s = t
                .client
                .step(proto::StepRequest {
                    action_labels: labels,
                    ..step_req(&s)
                })
                .await
                .unwrap()
                .into_inner();
            for l in &s.late_results {
                for r in &l.results {
                    assert!(r.field.starts_with("action_labels["), "{r:?}");
                }
            }
            if s.pending_results > 0 {
                let tr = t
                    .client
                    .export_transcript(proto::ExportTranscriptRequest {
                        episode_id: s.episode_id.clone(),
                        json_only: true,
                    })
                    .await
                    .unwrap()
                    .into_inner();
                let doc: serde_json::Value = serde_json::from_str(&tr.transcript_json).unwrap();
                let open = &doc["open_steps"][0];
                assert_eq!(open["by_id"], false);
                assert_eq!(open["input"], "action_labels");
                // The replay names the late results the same way.
                let mut b = t
                    .client
                    .replay_transcript(proto::ReplayTranscriptRequest {
                        transcript_json: tr.transcript_json.into_bytes(),
                        ..Default::default()
                    })
                    .await
                    .unwrap()
                    .into_inner();
                for st in [&mut s, &mut b] {
                    let label = st.legal_actions[0].label.clone();
                    *st = t
                        .client
                        .step(proto::StepRequest {
                            action_labels: vec![label],
                            ..step_req(st)
                        })
                        .await
                        .unwrap()
                        .into_inner();
                }
                let fields = |st: &proto::EpisodeState| -> Vec<String> {
                    st.late_results
                        .iter()
                        .flat_map(|l| l.results.iter().map(|r| r.field.clone()))
                        .collect()
                };
                let fa = fields(&s);
                assert!(!fa.is_empty(), "late results after the reaction");
                assert!(fa.iter().all(|f| f.starts_with("action_labels[")), "{fa:?}");
                assert_eq!(fa, fields(&b));
                return;
            }
        }
    }
    panic!("no list by labels was interrupted in 20 games");
}
