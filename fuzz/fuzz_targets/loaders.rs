//! One libFuzzer target for every loader, dispatching on the first byte (`data[0] % 6`); the
//! rest of the input is the text or bytes of that loader:
//!
//! | byte | loader | then |
//! |---|---|---|
//! | 0 | map YAML, `MapSpec::from_yaml_str` | one goblin per deployment side, 3 rounds of play |
//! | 1 | combatant JSON, `CombatantSpec::from_json_str` | against a goblin on the sample arena, 3 rounds |
//! | 2 | sweep spec, `SweepSpec::from_str` | `SweepPlan::build` on the bundled data (no combat) |
//! | 3 | scenario YAML, `ScenarioFile::from_yaml_str` | built on the bundled data, 3 rounds |
//! | 4 | engine snapshot, `Episode::restore` on the sample arena | a few steps (first legal action) |
//! | 5 | dice notation, `DiceExpr::from_str` | `min`/`max`/`mean`/display round trip, a roll |
//!
//! Every error must be an `Err`; a panic, an overflow (checks are on) or a hang is a crash.
#![no_main]

// The env-server modules the sweep spec and scenario loaders live in, from their sources
// (they use one another as `crate::…`, so they sit at this crate's root): the server crate as
// a dependency would bring the gRPC stack into every build. The rest of them is unused here.
#[allow(dead_code, unused_imports)]
#[path = "../../env-server/src/difficulty.rs"]
mod difficulty;
#[allow(dead_code, unused_imports)]
#[path = "../../env-server/src/heatmap.rs"]
mod heatmap;
#[allow(dead_code, unused_imports)]
#[path = "../../env-server/src/montecarlo.rs"]
mod montecarlo;
#[allow(dead_code, unused_imports)]
#[path = "../../env-server/src/report.rs"]
mod report;
#[allow(dead_code, unused_imports)]
#[path = "../../env-server/src/scenarios.rs"]
mod scenarios;
#[allow(dead_code, unused_imports)]
#[path = "../../env-server/src/sweep.rs"]
mod sweep;

use libfuzzer_sys::fuzz_target;
use pf1e_engine::dice::DiceExpr;
use pf1e_engine::{CombatantSpec, Encounter, Episode, MapSpec, RulesOptions, Status};
use scenarios::{ScenarioFile, ScenarioStore};
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use sweep::{SweepPlan, SweepSpec};

fn data_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../data"))
}

fn store() -> &'static ScenarioStore {
    static S: OnceLock<ScenarioStore> = OnceLock::new();
    S.get_or_init(|| ScenarioStore::new(data_dir()))
}

fn goblin() -> &'static CombatantSpec {
    static G: OnceLock<CombatantSpec> = OnceLock::new();
    G.get_or_init(|| CombatantSpec::load(&data_dir().join("monsters/goblin.json")).unwrap())
}

fn arena() -> &'static Arc<Encounter> {
    static E: OnceLock<Arc<Encounter>> = OnceLock::new();
    E.get_or_init(|| store().named("sample_arena", "fuzz").unwrap())
}

/// Play at most `steps` decisions (first legal action for external combatants).
fn play(mut ep: Episode, steps: usize) {
    for _ in 0..steps {
        match ep.advance() {
            Status::Terminal(_) => return,
            Status::Decision(d) => {
                let legal = ep.legal_actions();
                let Some(first) = legal.first() else { return };
                let _ = ep.submit(d.decision_id, &[first.action.clone()]);
            }
        }
    }
}

fn three_rounds() -> RulesOptions {
    RulesOptions {
        round_cap: 3,
        simple_monster_death: false,
    }
}

fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

fuzz_target!(|input: &[u8]| {
    let Some((&which, data)) = input.split_first() else {
        return;
    };
    match which % 6 {
        0 => {
            let Some(t) = text(data) else { return };
            let Ok(map) = MapSpec::from_yaml_str(t, "fuzz.yaml") else {
                return;
            };
            let sides = map
                .deployment
                .iter()
                .map(|(s, _)| (s.clone(), vec![("goblin".to_string(), goblin().clone())]))
                .collect();
            if let Ok(enc) = Encounter::build(map, sides, three_rounds()) {
                play(Episode::new(Arc::new(enc), 1, &[]), 50);
            }
        }
        1 => {
            let Some(t) = text(data) else { return };
            let Ok(spec) = CombatantSpec::from_json_str(t, "fuzz.json") else {
                return;
            };
            let _ = spec.resolved();
            let map = (*arena().map).clone();
            let sides = vec![
                ("players".to_string(), vec![("fuzz".to_string(), spec)]),
                (
                    "monsters".to_string(),
                    vec![("goblin".to_string(), goblin().clone())],
                ),
            ];
            if let Ok(enc) = Encounter::build(map, sides, three_rounds()) {
                play(Episode::new(Arc::new(enc), 1, &[]), 50);
            }
        }
        2 => {
            let Some(t) = text(data) else { return };
            if let Ok(spec) = SweepSpec::from_str(t, "fuzz.yaml") {
                let _ = SweepPlan::build(&spec, store());
            }
        }
        3 => {
            let Some(t) = text(data) else { return };
            let Ok(mut file) = ScenarioFile::from_yaml_str(t, "fuzz.yaml") else {
                return;
            };
            file.round_cap = file.round_cap.min(3);
            if let Ok(enc) = store().build_file(&file) {
                play(Episode::new(Arc::new(enc), 1, &[]), 50);
            }
        }
        4 => {
            if let Ok(ep) = Episode::restore(Arc::clone(arena()), data) {
                let _ = ep.snapshot();
                play(ep, 8);
            }
        }
        _ => {
            let Some(t) = text(data) else { return };
            if let Ok(e) = t.parse::<DiceExpr>() {
                let (lo, hi, mean) = (e.min(), e.max(), e.mean());
                assert!(lo <= hi && f64::from(lo) <= mean + 1e-9 && mean <= f64::from(hi) + 1e-9);
                let again: DiceExpr = e.to_string().parse().expect("display re-parses");
                assert_eq!(again, e, "display round trip of {t:?}");
                let r = e.roll(&mut pf1e_engine::DiceSource::seeded(1));
                assert!((lo..=hi).contains(&r.total), "{t:?} rolled {}", r.total);
            }
        }
    }
});
