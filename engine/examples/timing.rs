//! Rough timing of observation() and legal_actions() on the sample arena (release build).
use pf1e_engine::data::CombatantSpec;
use pf1e_engine::episode::Controller;
use pf1e_engine::map::MapSpec;
use pf1e_engine::{Encounter, Episode, RulesOptions, Status};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let map = MapSpec::load(&root.join("data/maps/sample_arena.yaml")).unwrap();
    let m = |n: &str| {
        (
            n.to_string(),
            CombatantSpec::load(&root.join(format!("data/monsters/{n}.json"))).unwrap(),
        )
    };
    let enc = Arc::new(
        Encounter::build(
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
        .unwrap(),
    );
    let (mut t_obs, mut t_legal, mut t_adv, mut n) = (0.0, 0.0, 0.0, 0);
    for seed in 0..50 {
        let mut ep = Episode::new(enc.clone(), seed, &[Controller::External; 3]);
        loop {
            let t = Instant::now();
            let st = ep.advance();
            t_adv += t.elapsed().as_secs_f64();
            if let Status::Terminal(_) = st {
                break;
            }
            let t = Instant::now();
            let _o = ep.observation(None);
            t_obs += t.elapsed().as_secs_f64();
            let t = Instant::now();
            let _m = ep.action_mask();
            let l = ep.legal_actions();
            t_legal += t.elapsed().as_secs_f64();
            n += 1;
            let a = l[(n * 13) % l.len()].action.clone();
            ep.submit(&[a]).unwrap();
        }
    }
    println!(
        "decisions {n}: observation {:.1} µs, legal_actions {:.1} µs, advance+submit {:.1} µs",
        t_obs / n as f64 * 1e6,
        t_legal / n as f64 * 1e6,
        t_adv / n as f64 * 1e6
    );
}
