//! Play one combat of 3 goblins vs 2 orcs on the sample arena and print the transcript.
//! Usage: cargo run -p pf1e-engine --example smoke -- [SEED]
use pf1e_engine::data::CombatantSpec;
use pf1e_engine::map::MapSpec;
use pf1e_engine::{Encounter, Episode, RulesOptions, Status};
use std::path::Path;
use std::sync::Arc;

fn main() {
    let seed: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let map = MapSpec::load(&root.join("data/maps/sample_arena.yaml")).expect("map");
    let m = |n: &str| {
        let spec =
            CombatantSpec::load(&root.join(format!("data/monsters/{n}.json"))).expect("monster");
        (n.to_string(), spec)
    };
    let enc = Encounter::build(
        map,
        vec![
            (
                "players".into(),
                vec![m("goblin"), m("goblin"), m("goblin")],
            ),
            ("monsters".into(), vec![m("orc"), m("orc")]),
        ],
        RulesOptions::default(),
    )
    .expect("encounter");
    let mut ep = Episode::new(Arc::new(enc), seed, &[]);
    let st = ep.advance();
    for l in ep.transcript() {
        println!("{l}");
    }
    if let Status::Terminal(o) = st {
        println!("{o:?}");
    }
}
