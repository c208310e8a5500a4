//! Memory per live episode on the sample arena: holds N episodes at their first decision and
//! reports the resident-memory growth per episode (Linux `/proc/self/statm`).
//! Usage: cargo run --release -p pf1e-engine --example memory -- [N]
use pf1e_engine::content::combatant::CombatantSpec;
use pf1e_engine::content::map::MapSpec;
use pf1e_engine::episode::Controller;
use pf1e_engine::{Encounter, Episode, RulesOptions};
use std::path::Path;
use std::sync::Arc;

fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let map = MapSpec::load(&root.join("data/maps/sample_arena.yaml")).unwrap();
    let m = |name: &str| {
        let p = root.join(format!("data/monsters/{name}.json"));
        (name.to_string(), CombatantSpec::load(&p).unwrap())
    };
    let sides = vec![
        (
            "players".into(),
            vec![m("goblin"), m("goblin"), m("goblin")],
        ),
        ("monsters".into(), vec![m("orc"), m("orc")]),
    ];
    let enc = Arc::new(Encounter::build(map, sides, RulesOptions::default()).unwrap());
    let before = rss_bytes();
    let episodes: Vec<Episode> = (0..n as u64)
        .map(|seed| {
            let mut ep = Episode::new(enc.clone(), seed, &[Controller::External; 3]);
            ep.advance();
            ep
        })
        .collect();
    let after = rss_bytes();
    let per = (after - before) as f64 / n as f64;
    let accounted = episodes.iter().map(Episode::memory_bytes).sum::<u64>() as f64 / n as f64;
    println!(
        "{n} live episodes: {:.0} bytes each (RSS growth); about {:.1} million fit in 4 GiB; \
         accounted (Episode::memory_bytes) {:.0} bytes each, the episode value {} bytes",
        per,
        4.0 * 1024.0 * 1024.0 * 1024.0 / per / 1e6,
        accounted,
        std::mem::size_of::<Episode>()
    );
    drop(episodes);
}
