//! Figures of issue 13 (a benchmark, not a timed test): per decision, the µs of
//! `explain_all` (a reason for every id of the action space) against the µs of the decision
//! itself (`advance` to it + `submit` of the chosen action + the action mask an agent reads),
//! on the sample arena (3 goblins vs 2 orcs) and the casters' scenario (cleric 3, wizard 5,
//! sorcerer 4, druid 3 vs a green hag and two ogres on `caster_hall`). The players' side is
//! external and picks a fixed pseudo-random legal action; the default policy plays the rest.
//!
//! Usage: `cargo run --release -p pf1e-engine --example explain_figures` (`FIG_SEEDS=N`
//! episodes per scenario, default 20).
#[path = "common/bundled.rs"]
mod bundled;

use bundled::encounter;
use pf1e_engine::actions::explain::explain_all;
use pf1e_engine::episode::Controller;
use pf1e_engine::{Encounter, Episode, Status};
use std::sync::Arc;
use std::time::Instant;

/// Per decision: (µs of the decision, µs of explain_all).
fn play(enc: &Arc<Encounter>, seeds: std::ops::Range<u64>) -> Vec<(f64, f64)> {
    let players = enc
        .combatants
        .iter()
        .filter(|c| c.side == "players")
        .count();
    let mut out = Vec::new();
    for seed in seeds {
        let mut ep = Episode::new(enc.clone(), seed, &vec![Controller::External; players]);
        let mut r = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        loop {
            let s = Instant::now();
            let st = ep.advance();
            let mut decision = s.elapsed().as_secs_f64();
            let Status::Decision(d) = st else { break };
            let s = Instant::now();
            let mask = ep.action_mask();
            decision += s.elapsed().as_secs_f64();
            let s = Instant::now();
            let all = explain_all(&ep).unwrap();
            let explain = s.elapsed().as_secs_f64();
            std::hint::black_box(&all);
            let legal: Vec<u32> = (0..mask.len() as u32)
                .filter(|&i| mask[i as usize] == 1)
                .collect();
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            let a = ep
                .action_from_id(legal[(r % legal.len() as u64) as usize])
                .unwrap();
            let s = Instant::now();
            ep.submit(d.decision_id, &[a]).unwrap();
            decision += s.elapsed().as_secs_f64();
            out.push((decision * 1e6, explain * 1e6));
        }
    }
    out
}

fn quantile(v: &mut [f64], q: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn main() {
    let seeds: u64 = std::env::var("FIG_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    for (name, casters) in [("sample_arena", false), ("casters", true)] {
        let enc = encounter(casters);
        // Warm-up (the per-encounter line-of-effect cache), other seeds.
        play(&enc, 1_000_000..1_000_003);
        let rows = play(&enc, 0..seeds);
        let n = rows.len();
        let mut dec: Vec<f64> = rows.iter().map(|r| r.0).collect();
        let mut exp: Vec<f64> = rows.iter().map(|r| r.1).collect();
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        let size = pf1e_engine::actions::space::ActionSpace::of(&enc).size();
        println!(
            "{name}: {n} decisions, action space {size} ids; decision (advance + mask + submit) mean {:.1} µs, median {:.1}, p90 {:.1}; explain_all mean {:.1} µs, median {:.1}, p90 {:.1} ({:.2} µs per id); ratio of means {:.1}×",
            mean(&dec),
            quantile(&mut dec, 0.5),
            quantile(&mut dec, 0.9),
            mean(&exp),
            quantile(&mut exp, 0.5),
            quantile(&mut exp, 0.9),
            mean(&exp) / f64::from(size),
            mean(&exp) / mean(&dec),
        );
    }
}
