//! Per-decision timing on the sample arena (release build): the work a server does per env
//! step with tensor observations, split by phase. The shared per-encounter caches (line of
//! effect) are warmed first by untimed episodes, as they are in a long-running server.
//!
//! Usage: `cargo run --release -p pf1e-engine --example timing`
//!
//! `TIMING_CASTERS=1` times the casters' scenario instead (`data/scenarios/casters.yaml`:
//! cleric 3, wizard 5, sorcerer 4, druid 3 — played externally — against a green hag and two
//! ogres on `caster_hall`).
//!
//! `TIMING_SEEDS=N` plays N timed episodes (default 200); `TIMING_JSON=0` leaves the JSON
//! observation out. Instruction counts, stable under
//! load: `TIMING_SEEDS=30 valgrind --tool=callgrind --toggle-collect='*timing::measured*'
//! target/release/examples/timing`.
//!
//! `TIMING_MONTE_CARLO=1` plays whole combats with the default policy on every side instead,
//! as a Monte Carlo run does (`pf1e-sim`: no transcript kept but for the first run; here
//! none; `TIMING_TRANSCRIPT=1` keeps it), and reports the time per combat round (the same
//! callgrind command counts them).
#[path = "common/bundled.rs"]
mod bundled;

use pf1e_engine::episode::Controller;
use pf1e_engine::{Encounter, Episode, Status};
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let casters = std::env::var("TIMING_CASTERS").is_ok_and(|v| v == "1");
    let enc = bundled::encounter(casters);
    let seeds: u64 = std::env::var("TIMING_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    // Warm-up: different seeds from the timed ones; then every row of the line-of-effect
    // cache (filled a whole row per origin square on first use), so the figures do not
    // depend on which squares the timed games visit first.
    play(&enc, 1_000_000..1_000_020);
    warm_line_of_effect(&enc);
    if std::env::var("TIMING_MONTE_CARLO").is_ok_and(|v| v == "1") {
        let s = Instant::now();
        let rounds = measured_monte_carlo(&enc, 0..seeds);
        let t = s.elapsed().as_secs_f64();
        println!(
            "combats {seeds}, combat rounds {rounds}: {:.1} µs per round",
            t / rounds as f64 * 1e6
        );
        return;
    }
    let (n, t) = measured(&enc, 0..seeds);
    let us = |x: f64| x / n as f64 * 1e6;
    println!(
        "decisions {n}: advance {:.1} µs, mask {:.1} µs, tensor {:.1} µs, json observation {:.1} µs, submit {:.1} µs; total without json {:.1} µs",
        us(t[0]),
        us(t[1]),
        us(t[2]),
        us(t[3]),
        us(t[4]),
        us(t[0] + t[1] + t[2] + t[4])
    );
}

/// Fill every row of the encounter's line-of-effect cache: one query from each square to a
/// square more than one square away.
fn warm_line_of_effect(enc: &Encounter) {
    use pf1e_engine::geometry::grid::Cell;
    let g = &enc.grid;
    let far = |c: Cell| Cell::new((c.row + g.rows / 2) % g.rows, (c.col + g.cols / 2) % g.cols);
    for row in 0..g.rows {
        for col in 0..g.cols {
            let a = Cell::new(row, col);
            std::hint::black_box(pf1e_engine::geometry::los::has_line_of_effect(
                g,
                a,
                1,
                far(a),
                1,
            ));
        }
    }
}

/// The timed episodes (a separate function so that callgrind can collect only these).
#[inline(never)]
fn measured(enc: &Arc<Encounter>, seeds: std::ops::Range<u64>) -> (usize, [f64; 5]) {
    play(enc, seeds)
}

/// Whole combats with the default policy on every side, no transcript kept unless
/// `TIMING_TRANSCRIPT=1` (a Monte Carlo run's work); returns the number of combat rounds
/// played.
#[inline(never)]
fn measured_monte_carlo(enc: &Arc<Encounter>, seeds: std::ops::Range<u64>) -> u64 {
    let keep = std::env::var("TIMING_TRANSCRIPT").is_ok_and(|v| v == "1");
    let mut rounds = 0u64;
    for seed in seeds {
        let mut ep = Episode::new(enc.clone(), seed, &[]);
        ep.keep_transcript(keep);
        match ep.advance() {
            Status::Terminal(o) => rounds += u64::from(o.rounds),
            Status::Decision(_) => unreachable!("no external controller"),
        }
    }
    rounds
}

/// Play the goblins with a fixed pseudo-random choice among legal actions; returns the number
/// of turn decisions and the seconds spent per phase (reaction decisions included).
#[inline(never)]
fn play(enc: &Arc<Encounter>, seeds: std::ops::Range<u64>) -> (usize, [f64; 5]) {
    let mut t = [0f64; 5];
    let mut n = 0usize;
    // TIMING_JSON=0 leaves the JSON observation out (the RL hot path only).
    let json = std::env::var("TIMING_JSON").map_or(true, |v| v != "0");
    for seed in seeds {
        let players = enc
            .combatants
            .iter()
            .filter(|c| c.side == "players")
            .count();
        let ctl = vec![Controller::External; players];
        let mut ep = Episode::new(enc.clone(), seed, &ctl);
        loop {
            let s = Instant::now();
            let st = ep.advance();
            t[0] += s.elapsed().as_secs_f64();
            let Status::Decision(d) = st else { break };
            let s = Instant::now();
            let mask = ep.action_mask();
            t[1] += s.elapsed().as_secs_f64();
            let s = Instant::now();
            let _tensor = ep.observation_tensor(d.actor);
            t[2] += s.elapsed().as_secs_f64();
            if json {
                let s = Instant::now();
                let _json = ep.observation(None);
                t[3] += s.elapsed().as_secs_f64();
            }
            let legal: Vec<u32> = (0..mask.len() as u32)
                .filter(|&i| mask[i as usize] == 1)
                .collect();
            // An attack of opportunity offered to a goblin is taken with the first weapon (as
            // the engine did before they were decisions), so the same games are played and
            // timed; only turn decisions count in `n`.
            let a = if d.kind.is_reaction() {
                ep.action_from_id(legal[0]).unwrap()
            } else {
                n += 1;
                ep.action_from_id(legal[(n * 13) % legal.len()]).unwrap()
            };
            let s = Instant::now();
            ep.submit(d.decision_id, &[a]).unwrap();
            t[4] += s.elapsed().as_secs_f64();
        }
    }
    (n, t)
}
