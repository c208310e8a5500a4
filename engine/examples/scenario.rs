//! Play one seeded combat of any bundled monsters on any map and print the transcript.
//! Usage: cargo run -p pf1e-engine --example scenario -- MAP_YAML SEED SIDE=m1,m2 SIDE=m3,...
use pf1e_engine::content::combatant::CombatantSpec;
use pf1e_engine::content::map::MapSpec;
use pf1e_engine::{Encounter, Episode, RulesOptions};
use std::path::Path;
use std::sync::Arc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let map = MapSpec::load(Path::new(&args[0])).expect("map");
    let seed: u64 = args[1].parse().expect("seed");
    let sides = args[2..]
        .iter()
        .map(|s| {
            let (name, ms) = s.split_once('=').expect("SIDE=m1,m2");
            let members = ms
                .split(',')
                .map(|m| {
                    let p = root.join(format!("data/monsters/{m}.json"));
                    (m.to_string(), CombatantSpec::load(&p).expect("monster"))
                })
                .collect();
            (name.to_string(), members)
        })
        .collect();
    let enc = Encounter::build(map, sides, RulesOptions::default()).expect("encounter");
    let mut ep = Episode::new(Arc::new(enc), seed, &[]);
    println!("{:?}", ep.advance());
    for l in ep.transcript() {
        println!("{l}");
    }
}
