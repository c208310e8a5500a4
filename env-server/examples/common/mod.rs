//! Shared by the timing examples and the transport benchmark (`#[path]`-included; not an
//! example target of its own).
use pf1e_env_server::proto::{self, scenario::Source};

/// The RL hot-path Reset: the sample arena, players controlled, tensors and the action mask,
/// no JSON, typed core or legal list.
pub fn lean_reset(seed: u64) -> proto::ResetRequest {
    proto::ResetRequest {
        scenario: Some(proto::Scenario {
            source: Some(Source::Named("sample_arena".into())),
        }),
        seed,
        controlled: Some(proto::Controlled {
            sides: vec!["players".into()],
            combatant_ids: vec![],
        }),
        observation: Some(proto::ObservationOptions {
            json: Some(false),
            tensors: true,
            legal_actions: Some(false),
            typed: Some(false),
            action_mask: true,
            ..Default::default()
        }),
        ..Default::default()
    }
}
