//! Transport benchmark of the gRPC environment (issue 3), one run, about 30 s:
//!
//! ```text
//! cargo bench -p pf1e-env-server --bench transport
//! ```
//!
//! Starts the server in-process on 127.0.0.1:0 and measures from a Rust tonic client on the
//! same machine: the echo RPC (the transport floor, with a payload of the size of a step
//! response), unary Step (p50/p99, steps/s), Session stream ping-pong, and StepBatch with 64
//! and 256 episodes (env steps/s), one message per item and compact columns (what
//! `Pf1eVectorEnv` uses). Every step uses tensor observations + the action mask (no JSON, no
//! legal list: the RL hot path) on `sample_arena`, with the default-policy monsters;
//! finished episodes are reset. Latencies are printed with their ratio to the echo floor; the
//! unary and stream rows to echo calls made alternately with their own calls (the machine's
//! speed drifts within minutes: both sides of a ratio must see the same machine).
//! Not a test: figures depend on the machine.
#[path = "../examples/common/mod.rs"]
mod common;
use pf1e_env_server::proto;
use pf1e_env_server::proto::environment_client::EnvironmentClient;
use pf1e_env_server::service::{serve, ServiceConfig};
use prost::Message;
use std::time::{Duration, Instant};
use tokio_stream::StreamExt;
use tonic::transport::Channel;

/// The allocator of the shipped binaries (see `pf1e-env-server`), so figures match them.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const DATA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data");
/// Time spent measuring each figure.
const WINDOW: Duration = Duration::from_secs(4);

/// Uniformly random legal action from the mask (xorshift, deterministic).
fn pick(state: &proto::EpisodeState, rng: &mut u64) -> u32 {
    let legal: Vec<u32> = (0..state.action_mask.len() as u32)
        .filter(|&i| state.action_mask[i as usize] == 1)
        .collect();
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    legal[(*rng % legal.len() as u64) as usize]
}

fn step_req(state: &proto::EpisodeState, rng: &mut u64) -> proto::StepRequest {
    proto::StepRequest {
        episode_id: state.episode_id.clone(),
        decision_id: state.decision.as_ref().map_or(0, |d| d.decision_id),
        action_ids: vec![pick(state, rng)],
        ..Default::default()
    }
}

fn done(s: &proto::EpisodeState) -> bool {
    s.terminated || s.truncated
}

struct Lat {
    samples: Vec<Duration>,
    elapsed: Duration,
}

impl Lat {
    fn pct(&self, p: f64) -> Duration {
        let mut v = self.samples.clone();
        v.sort();
        v[((v.len() as f64 - 1.0) * p).round() as usize]
    }
    fn per_sec(&self) -> f64 {
        self.samples.len() as f64 / self.elapsed.as_secs_f64()
    }
}

/// Resident set size of this process (Linux `/proc/self/status`), in bytes.
fn rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() {
    // `cargo bench` passes `--bench`; nothing to parse.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    rt.block_on(run());
}

async fn run() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_episodes = 100_000;
    tokio::spawn(async move {
        serve(listener, config, std::future::pending())
            .await
            .unwrap();
    });
    let channel = Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut c = EnvironmentClient::new(channel)
        .max_decoding_message_size(256 << 20)
        .max_encoding_message_size(256 << 20);
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;

    // Size of a typical step response, for the echo payload.
    let first = c.reset(common::lean_reset(0)).await.unwrap().into_inner();
    let payload = vec![0u8; first.encoded_len()];
    println!(
        "pf1e-env-server transport benchmark — sample_arena, tensor observations + mask, \
         step response ≈ {} bytes; {} s per figure",
        payload.len(),
        WINDOW.as_secs()
    );

    // 1. Echo floor.
    let echo = {
        let mut samples = Vec::new();
        let t0 = Instant::now();
        while t0.elapsed() < WINDOW {
            let t = Instant::now();
            c.echo(proto::EchoRequest {
                payload: payload.clone(),
            })
            .await
            .unwrap();
            samples.push(t.elapsed());
        }
        Lat {
            samples,
            elapsed: t0.elapsed(),
        }
    };
    let floor = echo.pct(0.5);
    // A row's ratio is to the echo calls made alternately with its own calls (`floor`): the
    // machine's speed drifts within minutes, and both sides of a ratio must see the same one.
    let row = |name: &str, l: &Lat, floor: &Lat| {
        println!(
            "{name:<32} p50 {:>8.1} µs  p99 {:>8.1} µs  {:>9.0} calls/s  p50 = {:>5.2}× echo (interleaved echo p50 {:.1} µs)",
            us(l.pct(0.5)),
            us(l.pct(0.99)),
            l.per_sec(),
            l.pct(0.5).as_secs_f64() / floor.pct(0.5).as_secs_f64(),
            us(floor.pct(0.5)),
        );
    };
    println!(
        "{:<32} p50 {:>8.1} µs  p99 {:>8.1} µs  {:>9.0} calls/s",
        "echo (transport floor)",
        us(floor),
        us(echo.pct(0.99)),
        echo.per_sec()
    );
    let echo_req = proto::EchoRequest {
        payload: payload.clone(),
    };

    // 2. Unary Step, each call after an echo call (the row's floor).
    let (unary, unary_floor) = {
        let mut s = first.clone();
        let mut samples = Vec::new();
        let mut floor = Vec::new();
        let mut seed = 1;
        let t0 = Instant::now();
        while t0.elapsed() < WINDOW {
            if done(&s) {
                c.close(proto::CloseRequest {
                    episode_id: s.episode_id.clone(),
                })
                .await
                .unwrap();
                s = c
                    .reset(common::lean_reset(seed))
                    .await
                    .unwrap()
                    .into_inner();
                seed += 1;
            }
            let req = step_req(&s, &mut rng);
            let t = Instant::now();
            c.echo(echo_req.clone()).await.unwrap();
            floor.push(t.elapsed());
            let t = Instant::now();
            s = c.step(req).await.unwrap().into_inner();
            samples.push(t.elapsed());
        }
        // Calls per second over the time spent in each kind of call.
        let (elapsed, floor_elapsed) = (samples.iter().sum(), floor.iter().sum());
        (
            Lat { samples, elapsed },
            Lat {
                samples: floor,
                elapsed: floor_elapsed,
            },
        )
    };
    row("unary Step", &unary, &unary_floor);

    // 3. Session stream ping-pong (one request in flight).
    let stream = {
        use proto::session_request::Kind as Q;
        use proto::session_response::Kind as A;
        let (tx, rx) = tokio::sync::mpsc::channel(4);
        let mut responses = c
            .session(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await
            .unwrap()
            .into_inner();
        let mut id = 0u64;
        let mut call = async |kind: Q| {
            id += 1;
            tx.send(proto::SessionRequest {
                request_id: id,
                kind: Some(kind),
                ..Default::default()
            })
            .await
            .unwrap();
            match responses.next().await.unwrap().unwrap().kind {
                Some(A::State(s)) => s,
                other => panic!("{other:?}"),
            }
        };
        let mut s = call(Q::Reset(common::lean_reset(10_000))).await;
        let mut samples = Vec::new();
        let mut floor = Vec::new();
        let mut seed = 10_001;
        let mut unary = c.clone();
        let t0 = Instant::now();
        while t0.elapsed() < WINDOW {
            if done(&s) {
                s = call(Q::Reset(common::lean_reset(seed))).await;
                seed += 1;
            }
            let req = step_req(&s, &mut rng);
            let t = Instant::now();
            unary.echo(echo_req.clone()).await.unwrap();
            floor.push(t.elapsed());
            let t = Instant::now();
            s = call(Q::Step(req)).await;
            samples.push(t.elapsed());
        }
        // Calls per second over the time spent in each kind of call.
        let (elapsed, floor_elapsed) = (samples.iter().sum(), floor.iter().sum());
        (
            Lat { samples, elapsed },
            Lat {
                samples: floor,
                elapsed: floor_elapsed,
            },
        )
    };
    row("stream ping-pong Step", &stream.0, &stream.1);

    // 4. StepBatch with 64 and 256 episodes, one message per item and compact columnar (packed
    // columns in and out); finished slots are reset in the next call (finished episodes stay
    // open: the benchmark server allows 100,000).
    for (n, columnar) in [(64usize, false), (256, false), (64, true), (256, true)] {
        let mut seed = 100_000 * n as u64;
        let resets = (0..n)
            .map(|_| {
                seed += 1;
                common::lean_reset(seed)
            })
            .collect();
        let out = c
            .reset_batch(proto::ResetBatchRequest { resets })
            .await
            .unwrap()
            .into_inner();
        let mut slots: Vec<proto::EpisodeState> = out
            .items
            .into_iter()
            .map(|i| match i.result {
                Some(proto::batch_item::Result::State(s)) => s,
                other => panic!("{other:?}"),
            })
            .collect();
        let mut samples = Vec::new();
        let mut env_steps = 0u64;
        let mut bytes = 0usize;
        let t0 = Instant::now();
        while t0.elapsed() < WINDOW {
            let (live, ended): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| !done(&slots[i]));
            let resets = ended
                .iter()
                .map(|_| {
                    seed += 1;
                    common::lean_reset(seed)
                })
                .collect();
            let req = if columnar {
                let mut col = proto::ColumnarSteps::default();
                for &i in &live {
                    let r = step_req(&slots[i], &mut rng);
                    col.episode_ids.push(r.episode_id);
                    col.decision_ids.push(r.decision_id);
                    col.action_ids.push(r.action_ids[0]);
                }
                proto::StepBatchRequest {
                    columnar_steps: Some(col),
                    resets,
                    columnar_response: true,
                    compact_columns: true,
                    ..Default::default()
                }
            } else {
                proto::StepBatchRequest {
                    steps: live
                        .iter()
                        .map(|&i| step_req(&slots[i], &mut rng))
                        .collect(),
                    resets,
                    ..Default::default()
                }
            };
            let t = Instant::now();
            let out = c.step_batch(req).await.unwrap().into_inner();
            samples.push(t.elapsed());
            bytes += out.encoded_len();
            env_steps += live.len() as u64;
            let cols = out.columns.unwrap_or_default();
            let na = cols.action_space_size as usize;
            let bits = na.div_ceil(8);
            for (row, (slot, item)) in live.iter().chain(&ended).zip(out.items).enumerate() {
                match item.result {
                    Some(proto::batch_item::Result::State(mut s)) => {
                        if columnar {
                            // The mask travels in the columns, as bits; put it back for `pick`.
                            let b = &cols.action_mask_bits[row * bits..(row + 1) * bits];
                            s.action_mask = (0..na).map(|j| (b[j / 8] >> (j % 8)) & 1).collect();
                        }
                        slots[*slot] = s
                    }
                    other => panic!("{other:?}"),
                }
            }
        }
        let l = Lat {
            samples,
            elapsed: t0.elapsed(),
        };
        let label = format!(
            "StepBatch × {n}{}",
            if columnar { " compact columns" } else { "" }
        );
        println!(
            "{label:<32} p50 {:>8.1} µs  p99 {:>8.1} µs  {:>9.0} env steps/s  p50 = {:>5.1}× echo ({:.2}× per env step), {:.0} B per env step",
            us(l.pct(0.5)),
            us(l.pct(0.99)),
            env_steps as f64 / l.elapsed.as_secs_f64(),
            l.pct(0.5).as_secs_f64() / floor.as_secs_f64(),
            l.pct(0.5).as_secs_f64() / floor.as_secs_f64() / n as f64,
            bytes as f64 / (l.samples.len() * n) as f64,
        );
    }
    // 5. Memory per live episode, server session included: resident set size before and after
    // opening 20,000 more episodes (lean observations; the responses are dropped).
    {
        let before = rss_bytes();
        let n = 20_000u64;
        for chunk in 0..(n / 1000) {
            let resets = (0..1000)
                .map(|i| {
                    let mut r = common::lean_reset(9_000_000 + chunk * 1000 + i);
                    r.observation = Some(proto::ObservationOptions {
                        json: Some(false),
                        tensors: false,
                        legal_actions: Some(false),
                        typed: Some(false),
                        action_mask: false,
                        ..Default::default()
                    });
                    r
                })
                .collect();
            c.reset_batch(proto::ResetBatchRequest { resets })
                .await
                .unwrap();
        }
        if let (Some(a), Some(b)) = (before, rss_bytes()) {
            let per = b.saturating_sub(a) as f64 / n as f64;
            println!(
                "memory: {:.1} KiB per live episode (server session included, RSS delta over {n} \
                 episodes) → {:.0} live episodes in 4 GiB",
                per / 1024.0,
                (4u64 << 30) as f64 / per.max(1.0)
            );
        }
    }
    println!(
        "unary Step: {:.0} steps/s; stream: {:.0} steps/s",
        unary.per_sec(),
        stream.0.per_sec()
    );
}
