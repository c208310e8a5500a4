//! Every bundled creature against every other (the default policy on both sides) plays full
//! fights on the sample arena without an engine error, and each fight ends (a winner or the
//! round cap).

mod common;

use pf1e_engine::RulesOptions;
use pf1e_env_server::montecarlo::run_batch;

#[test]
fn every_pair_of_bundled_creatures_fights_to_the_end() {
    let dir = common::root().join("data/monsters");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "json").then(|| p.file_stem()?.to_str().map(str::to_string))?
        })
        .collect();
    names.sort();
    assert!(names.len() >= 12, "{names:?}");
    for a in &names {
        for b in &names {
            let enc = common::encounter(
                "sample_arena",
                &[("players", &[a.as_str()]), ("monsters", &[b.as_str()])],
                RulesOptions {
                    round_cap: 30,
                    simple_monster_death: false,
                },
            );
            let r = run_batch(enc, 3, 1, None);
            let decided: u64 = r.sides.iter().map(|s| s.wins.count).sum();
            assert_eq!(decided + r.draws.count, 3, "{a} vs {b}");
            assert!(
                r.records.iter().all(|x| x.outcome.rounds >= 1),
                "{a} vs {b}"
            );
        }
    }
}

/// A creature's whole footprint must lie in its deployment zone: the Large ogre (2×2) does not
/// fit the mirror duel's one-square-wide zones, an error naming the side.
#[test]
fn large_creature_needs_a_zone_its_size() {
    let map = common::map("mirror_duel");
    let sides = vec![
        ("west".to_string(), vec![common::monster("ogre")]),
        ("east".to_string(), vec![common::monster("orc")]),
    ];
    let e = pf1e_engine::Encounter::build(map, sides, RulesOptions::default()).unwrap_err();
    assert!(
        e.field.contains("west") && e.reason.contains("too small"),
        "{e}"
    );
}
