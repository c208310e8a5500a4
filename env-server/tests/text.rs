//! The text observation over gRPC (issue 13, P8): `ObservationOptions.text` / `.lang` →
//! `Observation.text`; absent by default; a bad `lang` is INVALID_ARGUMENT naming
//! `observation.lang`; the capabilities say so.
use pf1e_env_server::proto;
use tonic::Code;

mod common;
use common::*;

fn text_req(lang: &str) -> proto::ResetRequest {
    proto::ResetRequest {
        observation: Some(proto::ObservationOptions {
            text: true,
            lang: lang.to_string(),
            ..Default::default()
        }),
        ..reset_req("sample_arena", 3, &["players"])
    }
}

fn text_of(s: &proto::EpisodeState) -> &str {
    &s.observation.as_ref().expect("an observation").text
}

#[tokio::test]
async fn reset_with_french_text_then_step_reports_its_results() {
    let mut t = start().await;
    let state = t.client.reset(text_req("fr")).await.unwrap().into_inner();
    let txt = text_of(&state);
    assert!(txt.starts_with("Round "), "{txt}");
    assert!(txt.contains("Carte ("), "{txt}");
    assert!(txt.contains("Actions légales"), "{txt}");
    // Every legal action is listed with its id and exact label.
    for l in &state.legal_actions {
        assert!(
            txt.contains(&format!("[{}] {}\n", l.id, l.label)),
            "{}",
            l.label
        );
    }
    // A step: the text of the next decision carries the step's results.
    let d = state.decision.as_ref().expect("a decision");
    let end = state
        .legal_actions
        .iter()
        .find(|l| l.label == "end_turn")
        .expect("end_turn is legal")
        .id;
    let next = t
        .client
        .step(proto::StepRequest {
            episode_id: state.episode_id.clone(),
            decision_id: d.decision_id,
            action_ids: vec![end],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let txt = text_of(&next);
    assert!(!txt.is_empty());
    assert!(txt.contains("Derniers résultats: end_turn ok"), "{txt}");
    // English: the same numbers, other words.
    let en = t.client.reset(text_req("")).await.unwrap().into_inner();
    let en_txt = text_of(&en);
    assert!(en_txt.contains("Map ("), "{en_txt}");
    assert!(en_txt.contains("Legal actions"), "{en_txt}");
    assert_eq!(
        en_txt.lines().count(),
        text_of(&state).lines().count(),
        "en and fr have the same lines"
    );
}

#[tokio::test]
async fn text_is_absent_by_default_and_without_json_or_typed_still_comes() {
    let mut t = start().await;
    let state = t
        .client
        .reset(reset_req("sample_arena", 3, &["players"]))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(text_of(&state), "");
    let only_text = proto::ResetRequest {
        observation: Some(proto::ObservationOptions {
            text: true,
            json: Some(false),
            typed: Some(false),
            ..Default::default()
        }),
        ..reset_req("sample_arena", 3, &["players"])
    };
    let state = t.client.reset(only_text).await.unwrap().into_inner();
    assert!(text_of(&state).contains("Legal actions"));
    assert!(state.observation.as_ref().unwrap().json.is_empty());
}

#[tokio::test]
async fn an_unknown_language_is_invalid_argument_naming_the_field() {
    let mut t = start().await;
    let r = t.client.reset(text_req("xx")).await;
    assert_status(r, Code::InvalidArgument, "observation.lang");
    let r = t.client.reset(text_req("EN")).await;
    assert_status(r, Code::InvalidArgument, "observation.lang");
}

#[tokio::test]
async fn the_capabilities_announce_the_text_and_its_languages() {
    let mut t = start().await;
    let spec = spec_of(&mut t.client, "sample_arena").await;
    let caps = spec.capabilities.expect("capabilities");
    assert!(caps.text_observation);
    assert_eq!(caps.text_languages, vec!["en", "fr"]);
}
