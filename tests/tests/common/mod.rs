//! Shared helpers of the cross-crate tests.
#![allow(dead_code)]

use pf1e_engine::content::combatant::CombatantSpec;
use pf1e_engine::content::map::MapSpec;
use pf1e_engine::{Encounter, RulesOptions};
use std::path::PathBuf;
use std::sync::Arc;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Load `data/monsters/<name>.json` (else `data/pcs/<name>.json`).
pub fn monster(name: &str) -> (String, CombatantSpec) {
    let p = root().join("data/monsters").join(format!("{name}.json"));
    let p = if p.exists() {
        p
    } else {
        root().join("data/pcs").join(format!("{name}.json"))
    };
    (
        name.to_string(),
        CombatantSpec::load(&p).expect("bundled monster loads"),
    )
}

/// Load a map from `data/maps/<name>.yaml` or from `tests/golden/<name>.yaml`.
pub fn map(name: &str) -> MapSpec {
    let data = root().join("data/maps").join(format!("{name}.yaml"));
    let p = if data.exists() {
        data
    } else {
        root().join("tests/golden").join(format!("{name}.yaml"))
    };
    MapSpec::load(&p).expect("map loads")
}

/// Build an encounter from a map name and `(side, [monster names])`.
pub fn encounter(
    map_name: &str,
    sides: &[(&str, &[&str])],
    options: RulesOptions,
) -> Arc<Encounter> {
    let sides = sides
        .iter()
        .map(|(s, ms)| (s.to_string(), ms.iter().map(|m| monster(m)).collect()))
        .collect();
    Arc::new(Encounter::build(map(map_name), sides, options).expect("encounter builds"))
}

/// End the pending turn decision, or decline the pending reaction.
pub fn pass(ep: &mut pf1e_engine::Episode) {
    use pf1e_engine::{Action, ActionKind};
    let d = ep.decision().cloned().expect("a decision is pending");
    let kind = if d.kind.is_reaction() {
        ActionKind::Decline
    } else {
        ActionKind::EndTurn
    };
    ep.submit(d.decision_id, &[Action::new(kind)]).unwrap();
}
