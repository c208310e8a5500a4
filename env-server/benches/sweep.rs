//! Throughput of a position sweep: 10 placements × 1,000 runs of the sample arena (3 goblins
//! vs 2 orcs, `goblin` swept over the 10 squares of rows 3-4, columns 1-5), all default
//! policy.
//!
//! Under `cargo bench -p pf1e-env-server --bench sweep` it plays the whole sweep once on a
//! one-thread rayon pool and once on the global pool (all cores), in the same process, and
//! prints combats (placements × runs) per second for each and the speed-up ratio. It also
//! checks that both reports are identical. Without `--bench` (`cargo test --benches`) it runs
//! a small smoke sweep only.

use pf1e_env_server::scenarios::ScenarioStore;
use pf1e_env_server::sweep::{assemble_report, run_placements, SweepPlan, SweepSpec};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The allocator of the shipped binaries (see `pf1e-env-server`), so figures match them.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn spec_text(runs: u64) -> String {
    format!(
        "scenario: sample_arena\nplacements:\n  goblin: {{ rect: {{ from: [3, 1], to: [4, 5] }} }}\nruns: {runs}\nseed: 1\n"
    )
}

/// Plays every placement of `plan` on the current rayon pool; returns the JSON report and the
/// elapsed seconds.
fn play(plan: &SweepPlan) -> (String, f64) {
    let indices: Vec<usize> = (0..plan.placements.len()).collect();
    let start = Instant::now();
    let results =
        run_placements(plan, &indices, None, &AtomicBool::new(false)).expect("not cancelled");
    let secs = start.elapsed().as_secs_f64();
    let report = assemble_report(plan, results).expect("complete results");
    (report.to_json(), secs)
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    let store = ScenarioStore::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("../data"));
    let runs = if bench { 1000 } else { 10 };
    let spec = SweepSpec::from_str(&spec_text(runs), "benches/sweep.rs").expect("spec");
    let plan = SweepPlan::build(&spec, &store).expect("plan");
    assert_eq!(plan.placements.len(), 10);
    let combats = plan.total_combats() as f64;

    let single = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    // Warm-up (page in code and data) on a small sweep.
    let warm = SweepPlan::build(
        &SweepSpec::from_str(&spec_text(20), "warm-up").expect("spec"),
        &store,
    )
    .expect("plan");
    let _ = play(&warm);

    let (one_report, one_secs) = single.install(|| play(&plan));
    let (all_report, all_secs) = play(&plan);
    assert_eq!(
        one_report, all_report,
        "the report must not depend on the thread count"
    );
    if bench {
        let (one, all) = (combats / one_secs, combats / all_secs);
        println!(
            "sweep 10 placements × {runs} runs ({combats} combats) — placements×runs/s: single \
             thread {one:.0} ({one_secs:.2} s), all threads ({}) {all:.0} ({all_secs:.2} s), \
             speed-up {:.2}x",
            rayon::current_num_threads(),
            all / one
        );
    } else {
        println!("sweep smoke run: {combats} combats, reports identical for 1 and all threads");
    }
}
