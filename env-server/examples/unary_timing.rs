//! In-process unary Step timing (no transport): `step_blocking` + response encoding, one
//! episode at a time on `sample_arena` (tensors + mask), random legal actions, a reset when
//! an episode ends. Usage: `cargo run --release -p pf1e-env-server --example unary_timing`.
use pf1e_env_server::proto::{self, scenario::Source};
use pf1e_env_server::service::{EnvironmentService, ServiceConfig};
use prost::Message;
use std::time::Instant;

/// The allocator of the shipped binaries (see `pf1e-env-server`), so figures match them.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const DATA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data");

fn main() {
    let svc = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    let reset = |seed: u64| proto::ResetRequest {
        scenario: Some(proto::Scenario {
            source: Some(Source::Named("sample_arena".into())),
        }),
        seed,
        controlled: Some(proto::Controlled {
            sides: vec!["players".into()],
            combatant_ids: vec![],
        }),
        observation: Some(proto::ObservationOptions {
            json: Some(false),
            tensors: true,
            legal_actions: Some(false),
            typed: Some(false),
            action_mask: true,
            ..Default::default()
        }),
        reward: None,
        ..Default::default()
    };
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut seed = 0;
    let mut st = svc.reset_blocking(&reset(seed)).unwrap();
    let (mut t_step, mut t_enc, mut n) = (0f64, 0f64, 0usize);
    let mut bytes = 0usize;
    for k in 0..40_000 {
        if st.decision.is_none() {
            svc.close_episode(&proto::CloseRequest {
                episode_id: st.episode_id.clone(),
            })
            .unwrap();
            seed += 1;
            st = svc.reset_blocking(&reset(seed)).unwrap();
            continue;
        }
        let legal: Vec<u32> = (0..st.action_mask.len() as u32)
            .filter(|&i| st.action_mask[i as usize] == 1)
            .collect();
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let req = proto::StepRequest {
            episode_id: st.episode_id.clone(),
            decision_id: st.decision.as_ref().unwrap().decision_id,
            action_ids: vec![legal[(rng % legal.len() as u64) as usize]],
            ..Default::default()
        };
        let t = Instant::now();
        st = svc.step_blocking(&req).unwrap();
        let t1 = Instant::now();
        let buf = st.encode_to_vec();
        bytes += buf.len();
        if k >= 2_000 {
            t_step += (t1 - t).as_secs_f64();
            t_enc += t1.elapsed().as_secs_f64();
            n += 1;
        }
    }
    println!(
        "{n} steps: step_blocking {:.1} µs, encode {:.1} µs ({} bytes)",
        t_step / n as f64 * 1e6,
        t_enc / n as f64 * 1e6,
        bytes / 40_000
    );
    // Observe of a live episode: the state building alone.
    let st = svc.reset_blocking(&reset(999_999)).unwrap();
    let req = proto::ObserveRequest {
        episode_id: st.episode_id.clone(),
    };
    let t = Instant::now();
    for _ in 0..20_000 {
        std::hint::black_box(svc.observe_blocking(&req).unwrap());
    }
    println!(
        "observe_blocking {:.1} µs",
        t.elapsed().as_secs_f64() / 20_000.0 * 1e6
    );
}
