//! In-process StepBatch timing (no transport, no gRPC): the server's work per env step of a
//! 256-wide columnar batch on `sample_arena` (tensor observations + mask, random legal
//! actions, finished episodes closed and reset in the next call, as `Pf1eVectorEnv` does).
//!
//! Usage: `cargo run --release -p pf1e-env-server --example batch_timing` (`BATCHES=N`,
//! default 200; `RAYON_NUM_THREADS=1` for one thread). Instruction counts, stable under load:
//! `RAYON_NUM_THREADS=1 BATCHES=40 valgrind --tool=callgrind
//! --toggle-collect='*batch_timing::measured*' --toggle-collect='*EnvironmentService::step_blocking*'
//! --toggle-collect='*EnvironmentService::reset_blocking*' target/release/examples/batch_timing`.
#[path = "common/mod.rs"]
mod common;
use pf1e_env_server::proto;
use pf1e_env_server::service::{EnvironmentService, ServiceConfig};
use std::time::Instant;

/// The allocator of the shipped binaries (see `pf1e-env-server`), so figures match them.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const DATA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data");

#[derive(Default)]
struct Slots {
    ids: Vec<String>,
    dec: Vec<u64>,
    masks: Vec<Vec<u8>>,
    done: Vec<bool>,
}

impl Slots {
    fn absorb(&mut self, out: proto::BatchResponse, order: &[usize]) {
        let cols = out.columns.unwrap();
        let w = cols.action_space_size as usize;
        for (row, (&slot, item)) in order.iter().zip(out.items).enumerate() {
            let Some(proto::batch_item::Result::State(s)) = item.result else {
                panic!("batch item failed")
            };
            if slot >= self.ids.len() {
                self.ids.resize(slot + 1, String::new());
                self.dec.resize(slot + 1, 0);
                self.masks.resize(slot + 1, Vec::new());
                self.done.resize(slot + 1, false);
            }
            self.ids[slot] = s.episode_id.clone();
            self.dec[slot] = s.decision.as_ref().map_or(0, |d| d.decision_id);
            self.masks[slot] = cols.action_masks[row * w..(row + 1) * w].to_vec();
            self.done[slot] = cols.terminated[row] == 1 || cols.truncated[row] == 1;
        }
    }
}

fn main() {
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_episodes = 1_000_000;
    let svc = EnvironmentService::new(config);
    let n = 256usize;
    let batches: usize = std::env::var("BATCHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let mut seed = 0u64;
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let resets = (0..n)
        .map(|_| {
            seed += 1;
            common::lean_reset(seed)
        })
        .collect();
    let req = proto::StepBatchRequest {
        resets,
        columnar_response: true,
        ..Default::default()
    };
    let mut s = Slots::default();
    s.absorb(
        svc.step_batch_blocking(&req, None).unwrap(),
        &(0..n).collect::<Vec<_>>(),
    );
    // Warm-up (the encounter's shared caches fill, as in a long-running server).
    let mut steps = 0usize;
    measured(&svc, &mut s, &mut seed, &mut rng, &mut steps, 20, n);
    let mut steps = 0usize;
    let t0 = Instant::now();
    measured(&svc, &mut s, &mut seed, &mut rng, &mut steps, batches, n);
    let e = t0.elapsed().as_secs_f64();
    println!(
        "threads {} batches {batches} env steps {steps}: {:.1} µs wall per env step, {:.0} env steps/s, {:.2} ms per batch",
        rayon::current_num_threads(),
        e / steps as f64 * 1e6,
        steps as f64 / e,
        e / batches as f64 * 1e3
    );
}

#[inline(never)]
fn measured(
    svc: &EnvironmentService,
    s: &mut Slots,
    seed: &mut u64,
    rng: &mut u64,
    steps: &mut usize,
    batches: usize,
    n: usize,
) {
    for _ in 0..batches {
        let (live, ended): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| !s.done[i]);
        let mut col = proto::ColumnarSteps::default();
        for &i in &live {
            let legal: Vec<u32> = (0..s.masks[i].len() as u32)
                .filter(|&k| s.masks[i][k as usize] == 1)
                .collect();
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            col.episode_ids.push(s.ids[i].clone());
            col.decision_ids.push(s.dec[i]);
            col.action_ids
                .push(legal[(*rng % legal.len() as u64) as usize]);
        }
        let resets = ended
            .iter()
            .map(|_| {
                *seed += 1;
                common::lean_reset(*seed)
            })
            .collect();
        let close_episode_ids = ended.iter().map(|&i| s.ids[i].clone()).collect();
        *steps += live.len();
        let req = proto::StepBatchRequest {
            columnar_steps: Some(col),
            resets,
            close_episode_ids,
            columnar_response: true,
            ..Default::default()
        };
        let out = svc.step_batch_blocking(&req, None).unwrap();
        let order: Vec<usize> = live.iter().chain(&ended).copied().collect();
        s.absorb(out, &order);
    }
}
