//! What bearer tokens and TLS cost per call: one run, interleaved A/B/C.
//!
//! ```text
//! cargo run --release -p pf1e-env-server --example tls_timing [-- SECONDS]
//! ```
//!
//! Starts three servers in this process on 127.0.0.1:0 — plaintext and anonymous, plaintext
//! with a token file, TLS (certificates generated here with rcgen) with a token file — and
//! one tonic client each (the token clients send `authorization: Bearer …` on every call).
//! Each round makes one call on each server in turn (so that the three see the same
//! machine: its speed drifts within minutes): a unary Step (tensor observations + action mask
//! on `sample_arena`), then, in a second phase, a StepBatch of 64 episodes (one message per
//! item), then in a third one the same with compact columns in and out (what `Pf1eVectorEnv`
//! sends). Prints the p50 and p99 latencies and the ratio of each p50 to the plaintext one,
//! and the batch responses' sizes (TLS costs per byte). Finished episodes are reset.
//! Not a test: figures depend on the machine.
#[path = "common/mod.rs"]
mod common;
use pf1e_env_server::proto;
use pf1e_env_server::proto::environment_client::EnvironmentClient;
use pf1e_env_server::server::serve_with;
use pf1e_env_server::service::ServiceConfig;
use pf1e_env_server::transport::{auth::TokenTable, tls, TransportConfig};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tonic::service::interceptor::InterceptedService;
use tonic::transport::{Certificate, Channel, ClientTlsConfig};

/// The allocator of the shipped binaries, so figures match them.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const DATA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data");
const TOKEN: &str = "timing-token-0123456789abcdef";
const BATCH: usize = 64;

/// Adds the bearer token, if any.
#[derive(Clone)]
struct Auth(Option<tonic::metadata::MetadataValue<tonic::metadata::Ascii>>);

impl tonic::service::Interceptor for Auth {
    fn call(&mut self, mut req: tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(v) = &self.0 {
            req.metadata_mut().insert("authorization", v.clone());
        }
        Ok(req)
    }
}

type Client = EnvironmentClient<InterceptedService<Channel, Auth>>;

/// A random legal action from the mask (xorshift, deterministic).
fn step_req(state: &proto::EpisodeState, rng: &mut u64) -> proto::StepRequest {
    let legal: Vec<u32> = (0..state.action_mask.len() as u32)
        .filter(|&i| state.action_mask[i as usize] == 1)
        .collect();
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    proto::StepRequest {
        episode_id: state.episode_id.clone(),
        decision_id: state.decision.as_ref().map_or(0, |d| d.decision_id),
        action_ids: vec![legal[(*rng % legal.len() as u64) as usize]],
        ..Default::default()
    }
}

fn done(s: &proto::EpisodeState) -> bool {
    s.terminated || s.truncated
}

fn pct(v: &mut [Duration], p: f64) -> Duration {
    v.sort();
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

struct Mode {
    name: &'static str,
    client: Client,
    unary: proto::EpisodeState,
    slots: Vec<proto::EpisodeState>,
    seed: u64,
    unary_lat: Vec<Duration>,
    batch_lat: Vec<Duration>,
    columnar_lat: Vec<Duration>,
    /// Bytes of the StepBatch responses (messages, compact columns).
    bytes: [usize; 2],
}

async fn start(transport: TransportConfig) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_episodes = 100_000;
    config.client_quotas.max_episodes = 100_000;
    tokio::spawn(async move {
        serve_with(listener, config, transport, std::future::pending())
            .await
            .unwrap();
    });
    addr
}

async fn mode(name: &'static str, channel: Channel, token: bool, seed: u64) -> Mode {
    let auth = Auth(token.then(|| format!("Bearer {TOKEN}").parse().unwrap()));
    let mut client = EnvironmentClient::with_interceptor(channel, auth)
        .max_decoding_message_size(256 << 20)
        .max_encoding_message_size(256 << 20);
    let unary = client
        .reset(common::lean_reset(seed))
        .await
        .unwrap()
        .into_inner();
    let resets = (0..BATCH as u64)
        .map(|i| common::lean_reset(seed + 1 + i))
        .collect();
    let slots = client
        .reset_batch(proto::ResetBatchRequest { resets })
        .await
        .unwrap()
        .into_inner()
        .items
        .into_iter()
        .map(|i| match i.result {
            Some(proto::batch_item::Result::State(s)) => s,
            other => panic!("{other:?}"),
        })
        .collect();
    Mode {
        name,
        client,
        unary,
        slots,
        seed: seed + 1000,
        unary_lat: Vec::new(),
        batch_lat: Vec::new(),
        columnar_lat: Vec::new(),
        bytes: [0; 2],
    }
}

impl Mode {
    async fn unary_step(&mut self, rng: &mut u64) {
        if done(&self.unary) {
            self.seed += 1;
            self.unary = self
                .client
                .reset(common::lean_reset(self.seed))
                .await
                .unwrap()
                .into_inner();
        }
        let req = step_req(&self.unary, rng);
        let t = Instant::now();
        self.unary = self.client.step(req).await.unwrap().into_inner();
        self.unary_lat.push(t.elapsed());
    }

    /// One StepBatch over the 64 slots: one message per item, or (`columnar`) compact columns
    /// in and out (what `Pf1eVectorEnv` uses).
    async fn batch_step(&mut self, rng: &mut u64, columnar: bool) {
        let (live, ended): (Vec<usize>, Vec<usize>) =
            (0..BATCH).partition(|&i| !done(&self.slots[i]));
        let resets = ended
            .iter()
            .map(|_| {
                self.seed += 1;
                common::lean_reset(self.seed)
            })
            .collect();
        let close = ended
            .iter()
            .map(|&i| self.slots[i].episode_id.clone())
            .collect();
        let req = if columnar {
            let mut col = proto::ColumnarSteps::default();
            for &i in &live {
                let r = step_req(&self.slots[i], rng);
                col.episode_ids.push(r.episode_id);
                col.decision_ids.push(r.decision_id);
                col.action_ids.push(r.action_ids[0]);
            }
            proto::StepBatchRequest {
                columnar_steps: Some(col),
                resets,
                close_episode_ids: close,
                columnar_response: true,
                compact_columns: true,
                ..Default::default()
            }
        } else {
            proto::StepBatchRequest {
                steps: live
                    .iter()
                    .map(|&i| step_req(&self.slots[i], rng))
                    .collect(),
                resets,
                close_episode_ids: close,
                ..Default::default()
            }
        };
        let t = Instant::now();
        let out = self.client.step_batch(req).await.unwrap().into_inner();
        let e = t.elapsed();
        self.bytes[usize::from(columnar)] += prost::Message::encoded_len(&out);
        if columnar {
            self.columnar_lat.push(e);
        } else {
            self.batch_lat.push(e);
        }
        let cols = out.columns.unwrap_or_default();
        let na = cols.action_space_size as usize;
        let bits = na.div_ceil(8);
        for (row, (slot, item)) in live.iter().chain(&ended).zip(out.items).enumerate() {
            match item.result {
                Some(proto::batch_item::Result::State(mut s)) => {
                    if columnar {
                        // The mask travels in the columns, as bits; put it back for step_req.
                        let b = &cols.action_mask_bits[row * bits..(row + 1) * bits];
                        s.action_mask = (0..na).map(|j| (b[j / 8] >> (j % 8)) & 1).collect();
                    }
                    self.slots[*slot] = s
                }
                other => panic!("{other:?}"),
            }
        }
    }
}

fn main() {
    let secs: u64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("SECONDS: a whole number"))
        .unwrap_or(6);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    rt.block_on(run(Duration::from_secs(secs)));
}

async fn run(window: Duration) {
    let defaults = ServiceConfig::new(DATA_DIR).client_quotas;
    let tokens = Arc::new(
        TokenTable::parse(&format!("- name: timing\n  token: {TOKEN}\n"), &defaults).unwrap(),
    );
    // Certificates: a CA and a server certificate for localhost.
    let ca_key = rcgen::KeyPair::generate().unwrap();
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertificateParams::new(vec!["localhost".to_string()])
        .unwrap()
        .signed_by(&key, &issuer)
        .unwrap();

    let plain = start(TransportConfig::new(None)).await;
    let mut t = TransportConfig::new(None);
    t.tokens = Some(tokens.clone());
    let tok = start(t).await;
    let mut t = TransportConfig::new(None);
    t.tokens = Some(tokens);
    t.tls = Some(
        tls::server_config(cert.pem().as_bytes(), key.serialize_pem().as_bytes(), None).unwrap(),
    );
    let tls_addr = start(t).await;

    let connect = |addr: std::net::SocketAddr| async move {
        Channel::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect()
            .await
            .unwrap()
    };
    let tls_channel = Channel::from_shared(format!("https://{tls_addr}"))
        .unwrap()
        .tls_config(
            ClientTlsConfig::new()
                .ca_certificate(Certificate::from_pem(ca.pem()))
                .domain_name("localhost"),
        )
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut modes = [
        mode("plaintext", connect(plain).await, false, 1).await,
        mode("plaintext + token", connect(tok).await, true, 1).await,
        mode("TLS + token", tls_channel, true, 1).await,
    ];
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    println!(
        "tls_timing — sample_arena, tensor observations + mask; {} s per phase, calls interleaved \
         (one per server per round)",
        window.as_secs()
    );
    let t0 = Instant::now();
    while t0.elapsed() < window {
        for m in modes.iter_mut() {
            m.unary_step(&mut rng).await;
        }
    }
    for columnar in [false, true] {
        let t0 = Instant::now();
        while t0.elapsed() < window {
            for m in modes.iter_mut() {
                m.batch_step(&mut rng, columnar).await;
            }
        }
    }
    let bases = [
        pct(&mut modes[0].unary_lat.clone(), 0.5),
        pct(&mut modes[0].batch_lat.clone(), 0.5),
        pct(&mut modes[0].columnar_lat.clone(), 0.5),
    ];
    let per_call = |m: &Mode, k: usize| {
        let n = if k == 0 {
            m.batch_lat.len()
        } else {
            m.columnar_lat.len()
        };
        m.bytes[k] / n.max(1)
    };
    println!(
        "StepBatch×{BATCH} responses: {} B (one message per item), {} B (compact columns)",
        per_call(&modes[0], 0),
        per_call(&modes[0], 1)
    );
    for m in modes.iter_mut() {
        let name = m.name;
        for (k, (label, lat)) in [
            ("unary Step", &mut m.unary_lat),
            ("StepBatch×64", &mut m.batch_lat),
            ("StepBatch×64 compact columns", &mut m.columnar_lat),
        ]
        .into_iter()
        .enumerate()
        {
            let (p50, p99) = (pct(lat, 0.5), pct(lat, 0.99));
            println!(
                "{name:<18} {label:<30} p50 {:>8.1} µs  p99 {:>8.1} µs  {:.3}× plaintext  (n={})",
                us(p50),
                us(p99),
                p50.as_secs_f64() / bases[k].as_secs_f64(),
                lat.len(),
            );
        }
    }
}
