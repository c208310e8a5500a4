//! Throughput of full combats: 3 goblins vs 2 orcs on the sample arena, all default policy.
//!
//! Two criterion groups — `single_thread` (a sequential loop over `K` seeds) and
//! `all_threads` ([`run_batch`] of `K` combats on the global rayon pool) — then, under
//! `cargo bench`, a direct measurement printing combats per second for each and the speed-up.

use criterion::{Criterion, Throughput};
use pf1e_engine::content::encounter::RulesOptions;
use pf1e_engine::{CombatantSpec, Encounter, MapSpec};
use pf1e_env_server::montecarlo::{play_one, run_batch};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The allocator of the shipped binaries (see `pf1e-env-server`), so figures match them.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Combats per criterion iteration.
const K: u32 = 64;

fn data(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../data")
        .join(rel)
}

fn encounter() -> Arc<Encounter> {
    let map = MapSpec::load(&data("maps/sample_arena.yaml")).expect("sample arena");
    let goblin = CombatantSpec::load(&data("monsters/goblin.json")).expect("goblin");
    let orc = CombatantSpec::load(&data("monsters/orc.json")).expect("orc");
    let g = || ("goblin".to_string(), goblin.clone());
    let o = || ("orc".to_string(), orc.clone());
    let sides = vec![
        ("players".to_string(), vec![g(), g(), g()]),
        ("monsters".to_string(), vec![o(), o()]),
    ];
    Arc::new(Encounter::build(map, sides, RulesOptions::default()).expect("encounter"))
}

fn sequential(enc: &Arc<Encounter>, seed: u64, k: u32) -> u32 {
    let mut rounds = 0;
    for i in 0..k {
        let (_, outcome) = play_one(Arc::clone(enc), seed.wrapping_add(u64::from(i)));
        rounds += outcome.rounds;
    }
    rounds
}

fn benches(c: &mut Criterion, enc: &Arc<Encounter>) {
    let mut g = c.benchmark_group("single_thread");
    g.throughput(Throughput::Elements(u64::from(K)));
    g.bench_function("goblins3_vs_orcs2", |b| {
        b.iter(|| black_box(sequential(enc, black_box(1), K)))
    });
    g.finish();

    let mut g = c.benchmark_group("all_threads");
    g.throughput(Throughput::Elements(u64::from(K)));
    g.bench_function("goblins3_vs_orcs2", |b| {
        b.iter(|| black_box(run_batch(Arc::clone(enc), K, black_box(1), None).mean_rounds))
    });
    g.finish();
}

/// Combats per second of `f` (which plays `per_call` combats), measured over about `budget`.
fn rate(budget: Duration, per_call: u32, mut f: impl FnMut(u64)) -> f64 {
    let start = Instant::now();
    let mut combats = 0u64;
    let mut call = 0u64;
    while start.elapsed() < budget {
        f(call * u64::from(per_call));
        call += 1;
        combats += u64::from(per_call);
    }
    combats as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    let enc = encounter();
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    benches(&mut c, &enc);
    c.final_summary();

    // `cargo bench` passes `--bench`; `cargo test --benches` does not (quick smoke run only).
    if std::env::args().any(|a| a == "--bench") {
        let budget = Duration::from_secs(2);
        let single = rate(budget, K, |s| {
            black_box(sequential(&enc, 1 + s, K));
        });
        let all = rate(budget, 4 * K, |s| {
            black_box(run_batch(Arc::clone(&enc), 4 * K, 1 + s, None).mean_rounds);
        });
        println!(
            "combats/s — single thread: {single:.0}, all threads ({}): {all:.0}, ratio: {:.2}x",
            rayon::current_num_threads(),
            all / single
        );
    }
}
