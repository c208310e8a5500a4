//! The `pf1e.env.v1.Environment` gRPC service: many concurrent episodes driven by reset/step.
//!
//! Episodes live in a map `episode id → Arc<Mutex<Session>>`. The map's lock is held only to
//! look up, insert or remove a session, never while an episode runs: stepping locks only that
//! episode's mutex, inside `spawn_blocking` (engine work is CPU-bound). If the engine panics,
//! the request fails with INTERNAL, the episode's mutex is poisoned, and every later request on
//! that episode fails with INTERNAL until it is closed; the server goes on serving.
//!
//! Every error is a [`ServiceError`], turned into a gRPC status by one exhaustive match
//! (`impl From<ServiceError> for tonic::Status`).
//!
//! This file holds the shared state ([`EnvironmentService`], [`ServiceConfig`], the counters),
//! the public constants and [`serve`]; the rest is in child modules, by layer:
//! - `handlers`: `impl Environment`, one thin shell per RPC;
//! - `exec`: deadlines, in-place and blocking-pool execution, calls that create episodes;
//! - `requests`: the synchronous body of every request on episodes (`reset_blocking`…);
//! - `batch`: StepBatch / ResetBatch and the columnar batch encoding;
//! - `stream`: the Session bidirectional stream;
//! - `evaluate`: the Evaluate RPC (position sweeps);
//! - `transcript`: ExportTranscript / ReplayTranscript (the input history as a JSON document);
//! - `spec`: GetSpec;
//! - `sessions`: open episodes, the session map, episode ids, idle eviction;
//! - `convert`: every proto ↔ engine conversion;
//! - `error`: [`ServiceError`] and its mapping to gRPC codes.
use crate::proto;
use crate::scenarios::ScenarioStore;
use sessions::{splitmix64, SessionMap};
use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

mod batch;
mod convert;
mod error;
mod evaluate;
mod exec;
mod handlers;
mod requests;
mod sessions;
mod spec;
mod stream;
mod transcript;
pub use convert::{
    action_to_proto, kind_from_proto, kind_to_proto, maneuver_from_proto, maneuver_to_proto,
    metamagic_from_proto, metamagic_to_proto, note_code, result_code, trigger_to_proto,
    DEFAULT_DAMAGE_WEIGHT, DEFAULT_KILL_WEIGHT, MAX_REWARD_WEIGHT,
};
pub use error::ServiceError;
pub use evaluate::{DEFAULT_MAX_EVALUATIONS, MAX_ORIGIN_LEN, PROGRESS_INTERVAL};
pub use spec::{rules_data_version, MASK_POLARITY, PROTOCOL, REWARD_COMPONENTS};
pub use transcript::{
    read_offline, OfflineTranscript, MAX_TRANSCRIPT_BYTES, TRANSCRIPT_FORMAT, TRANSCRIPT_VERSION,
};

/// Most actions accepted in one Step.
pub const MAX_ACTIONS_PER_STEP: usize = 64;
/// Longest accepted episode id, in bytes.
pub const MAX_EPISODE_ID_LEN: usize = 128;

/// Settings of the service.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    /// Directory holding `maps/`, `monsters/`, `pcs/`, `scenarios/`.
    pub data_dir: PathBuf,
    /// Most episodes open at once; Reset beyond it fails with RESOURCE_EXHAUSTED.
    pub max_episodes: usize,
    /// Episodes untouched for this long are closed (`None`: never).
    pub idle_timeout: Option<Duration>,
    /// Largest gRPC message accepted or sent, in bytes (decoding and encoding limit of the
    /// Environment service; beyond: OUT_OF_RANGE / RESOURCE_EXHAUSTED from tonic).
    pub max_message_bytes: usize,
    /// Most items in one StepBatch / ResetBatch (beyond: INVALID_ARGUMENT).
    pub max_batch_items: usize,
    /// Most Evaluate calls at once (beyond: RESOURCE_EXHAUSTED). They share the rayon pool.
    pub max_evaluations: usize,
}

/// Default of [`ServiceConfig::max_message_bytes`]: 16 MiB.
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 16 << 20;
/// Default of [`ServiceConfig::max_batch_items`].
pub const DEFAULT_MAX_BATCH_ITEMS: usize = 4096;

impl ServiceConfig {
    /// Defaults: 4096 episodes, 30 minutes idle timeout, 16 MiB messages, 4096 batch items,
    /// [`DEFAULT_MAX_EVALUATIONS`] evaluations.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        ServiceConfig {
            data_dir: data_dir.into(),
            max_episodes: 4096,
            idle_timeout: Some(Duration::from_secs(30 * 60)),
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_batch_items: DEFAULT_MAX_BATCH_ITEMS,
            max_evaluations: DEFAULT_MAX_EVALUATIONS,
        }
    }
}

#[derive(Default)]
struct Counters {
    created: AtomicU64,
    closed: AtomicU64,
    evicted: AtomicU64,
    steps: AtomicU64,
    open_streams: AtomicU64,
    evaluations_running: AtomicU64,
    evaluations_started: AtomicU64,
    evaluations_completed: AtomicU64,
    evaluations_cancelled: AtomicU64,
    combats_evaluated: AtomicU64,
}

struct Inner {
    scenarios: ScenarioStore,
    sessions: SessionMap,
    next_id: AtomicU64,
    id_salt: u64,
    config: ServiceConfig,
    counters: Counters,
    /// Set to true when the server shuts down: Session streams end after their current item.
    shutdown: tokio::sync::watch::Sender<bool>,
}

/// The Environment service. Cheap to clone (shared state).
#[derive(Clone)]
pub struct EnvironmentService {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for EnvironmentService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnvironmentService")
            .field("config", &self.inner.config)
            .field("open_episodes", &self.open_episodes())
            .finish()
    }
}

impl EnvironmentService {
    /// A service over the scenarios of `config.data_dir`.
    pub fn new(config: ServiceConfig) -> Self {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        EnvironmentService {
            inner: Arc::new(Inner {
                scenarios: ScenarioStore::new(config.data_dir.clone()),
                sessions: RwLock::new(HashMap::new()),
                next_id: AtomicU64::new(0),
                id_salt: splitmix64(now ^ u64::from(std::process::id())),
                config,
                counters: Counters::default(),
                shutdown: tokio::sync::watch::Sender::new(false),
            }),
        }
    }

    /// Server counters.
    pub fn stats(&self) -> proto::StatsResponse {
        let c = &self.inner.counters;
        proto::StatsResponse {
            live_episodes: self.open_episodes() as u64,
            max_episodes: self.inner.config.max_episodes as u64,
            episodes_created: c.created.load(Ordering::Relaxed),
            episodes_closed: c.closed.load(Ordering::Relaxed),
            episodes_evicted: c.evicted.load(Ordering::Relaxed),
            steps: c.steps.load(Ordering::Relaxed),
            open_streams: c.open_streams.load(Ordering::Relaxed),
            evaluations_running: c.evaluations_running.load(Ordering::SeqCst),
            max_evaluations: self.inner.config.max_evaluations as u64,
            evaluations_started: c.evaluations_started.load(Ordering::SeqCst),
            evaluations_completed: c.evaluations_completed.load(Ordering::SeqCst),
            evaluations_cancelled: c.evaluations_cancelled.load(Ordering::SeqCst),
            combats_evaluated: c.combats_evaluated.load(Ordering::Relaxed),
        }
    }
}

/// Serve the Environment service, `grpc.health.v1` and server reflection on `listener` until
/// `shutdown` resolves (then in-flight requests finish, open Session streams end after
/// their current item, and running Evaluate calls stop within a combat and end with
/// UNAVAILABLE). Also closes idle episodes once a minute when `config.idle_timeout` is
/// set. The Environment service's decoding and encoding limits are
/// `config.max_message_bytes`.
///
/// # Errors
/// A transport error of the server (reflection setup failures are reported as such too).
pub async fn serve(
    listener: tokio::net::TcpListener,
    config: ServiceConfig,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let svc = EnvironmentService::new(config);
    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    health_reporter
        .set_serving::<proto::environment_server::EnvironmentServer<EnvironmentService>>()
        .await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;

    let reaper = svc.inner.config.idle_timeout.map(|_| {
        let svc = svc.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                let n = svc.reap_idle();
                if n > 0 {
                    tracing::info!(closed = n, "closed idle episodes");
                }
            }
        })
    });

    let max = svc.inner.config.max_message_bytes;
    let stop = svc.inner.shutdown.clone();
    let shutdown = async move {
        shutdown.await;
        // Session streams end after their current item, so the graceful shutdown completes.
        stop.send_replace(true);
    };
    let result = tonic::transport::Server::builder()
        .add_service(health_service)
        .add_service(reflection)
        .add_service(
            proto::environment_server::EnvironmentServer::new(svc)
                .max_decoding_message_size(max)
                .max_encoding_message_size(max),
        )
        .serve_with_incoming_shutdown(
            tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true)),
            shutdown,
        )
        .await;
    if let Some(r) = reaper {
        r.abort();
    }
    result.map_err(Into::into)
}
