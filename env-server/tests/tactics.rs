//! Tactics over gRPC: Reset with `tactics` (the uncontrolled side plays them), bad tactics
//! refused with INVALID_ARGUMENT naming `tactics[<side>]` and the spec field, GetSpec's schema
//! and capability, and a transcript of an episode with tactics replayed into the same episode.
use pf1e_env_server::proto;
use std::collections::HashMap;
use tonic::Code;

mod common;
use common::*;

const TURTLE: &str =
    "name: turtle\ndescription: always total defense\ndefault: { rules: [{ do: total_defense }] }\n";

fn with_tactics(mut r: proto::ResetRequest, side: &str, text: &str) -> proto::ResetRequest {
    r.tactics = HashMap::from([(side.to_string(), text.to_string())]);
    r
}

/// The id of the `end_turn` legal action.
fn end_turn(s: &proto::EpisodeState) -> u32 {
    s.legal_actions
        .iter()
        .find(|l| {
            l.action
                .as_ref()
                .is_some_and(|a| a.kind == proto::ActionKind::EndTurn as i32)
        })
        .expect("end_turn is always legal")
        .id
}

#[tokio::test]
async fn spec_publishes_the_schema_and_the_capability() {
    let mut srv = start().await;
    let spec = spec_of(&mut srv.client, "sample_arena").await;
    assert!(spec.capabilities.as_ref().unwrap().tactics);
    let schema: serde_json::Value = serde_json::from_str(&spec.tactics_json_schema).unwrap();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema, pf1e_engine::tactics_json_schema());
}

#[tokio::test]
async fn reset_with_tactics_plays_them_and_the_transcript_replays() {
    let mut srv = start().await;
    let c = &mut srv.client;
    let plain = c
        .reset(reset_req("sample_arena", 3, &["players"]))
        .await
        .unwrap()
        .into_inner();
    let mut s = c
        .reset(with_tactics(
            reset_req("sample_arena", 3, &["players"]),
            "monsters",
            TURTLE,
        ))
        .await
        .unwrap()
        .into_inner();
    // Players end their turns: a few rounds of the orcs' tactics.
    for _ in 0..9 {
        if s.terminated || s.truncated {
            break;
        }
        s = c
            .step(proto::StepRequest {
                episode_id: s.episode_id.clone(),
                decision_id: s.decision.as_ref().unwrap().decision_id,
                action_ids: vec![end_turn(&s)],
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
    }
    let t = c
        .export_transcript(proto::ExportTranscriptRequest {
            episode_id: s.episode_id.clone(),
            json_only: false,
        })
        .await
        .unwrap()
        .into_inner();
    let orc_lines: Vec<&str> = t
        .lines
        .iter()
        .filter(|l| l.actor.starts_with("orc"))
        .map(|l| l.message.as_str())
        .collect();
    assert!(!orc_lines.is_empty());
    assert!(
        orc_lines.iter().all(|m| m.starts_with("total defense")),
        "{orc_lines:?}"
    );
    let doc: serde_json::Value = serde_json::from_str(&t.transcript_json).unwrap();
    assert_eq!(doc["tactics"]["monsters"], TURTLE);
    // Another rules-data version than the plain episode's (the tactics are hashed in).
    let spec_version = c
        .get_spec(proto::GetSpecRequest {
            scenario: named("sample_arena"),
        })
        .await
        .unwrap()
        .into_inner()
        .rules_data_version;
    assert_ne!(t.rules_data_version, spec_version);
    let replayed = c
        .replay_transcript(proto::ReplayTranscriptRequest {
            transcript_json: t.transcript_json.clone().into_bytes(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(replayed.decision, s.decision);
    assert_eq!(
        replayed.observation.as_ref().map(|o| &o.json),
        s.observation.as_ref().map(|o| &o.json)
    );
    // A document whose tactics were removed no longer matches its rules-data version.
    let mut tampered = doc.clone();
    tampered.as_object_mut().unwrap().remove("tactics");
    assert_status(
        c.replay_transcript(proto::ReplayTranscriptRequest {
            transcript_json: tampered.to_string().into_bytes(),
            ..Default::default()
        })
        .await,
        Code::InvalidArgument,
        "rules_data_version",
    );
    // Snapshot / Restore: with the same tactics the episode continues exactly; without them
    // the snapshot's replay differs and is refused.
    let snap = c
        .snapshot(proto::SnapshotRequest {
            episode_id: s.episode_id.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    let restore = |tactics: HashMap<String, String>| proto::RestoreRequest {
        scenario: named("sample_arena"),
        snapshot: snap.snapshot.clone(),
        tactics,
        ..Default::default()
    };
    let restored = c
        .restore(restore(HashMap::from([(
            "monsters".to_string(),
            TURTLE.to_string(),
        )])))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(restored.decision, s.decision);
    assert_eq!(
        restored.observation.as_ref().map(|o| &o.json),
        s.observation.as_ref().map(|o| &o.json)
    );
    assert_status(
        c.restore(restore(HashMap::new())).await,
        Code::InvalidArgument,
        "snapshot",
    );
    drop(plain);
}

#[tokio::test]
async fn bad_tactics_are_invalid_argument_naming_the_field() {
    let mut srv = start().await;
    let c = &mut srv.client;
    let cases = [
        (
            "players",
            "name: x\ndescription: d\ndefault: { rules: [{ do: dance }] }\n",
            "tactics[players]: default.rules[0].do: unknown variant `dance`",
        ),
        (
            "players",
            "name: x\ndescription: d\ndefault: { rules: [{ when: { hp_below_fraction: 2 }, do: withdraw }] }\n",
            "tactics[players]: default.rules[0].when.hp_below_fraction",
        ),
        (
            "players",
            "name: x\ndescription: d\ndefault: { target: [{ named: dragon }] }\n",
            "tactics[players]: default.target[0].named: no enemy of side players is called `dragon`",
        ),
        ("nobody", TURTLE, "tactics[nobody]: unknown side"),
        ("players", "{not json", "tactics[players]: (document)"),
    ];
    for (side, text, needle) in cases {
        assert_status(
            c.reset(with_tactics(
                reset_req("sample_arena", 1, &["monsters"]),
                side,
                text,
            ))
            .await,
            Code::InvalidArgument,
            needle,
        );
    }
    assert_eq!(live(c).await, 0, "nothing opened");
}
