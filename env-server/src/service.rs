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
use sessions::SessionMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

mod batch;
mod convert;
mod envelope;
mod error;
mod evaluate;
mod exec;
mod handlers;
pub mod principal;
mod requests;
mod sessions;
mod spec;
mod stream;
mod transcript;
pub use crate::server::serve;
pub use convert::{
    action_to_proto, controllers, decision_to_proto, kind_from_proto, kind_to_proto,
    maneuver_from_proto, maneuver_to_proto, metamagic_from_proto, metamagic_to_proto, note_code,
    result_code, result_to_proto, reward_config, trigger_to_proto, DEFAULT_DAMAGE_WEIGHT,
    DEFAULT_KILL_WEIGHT, MAX_REWARD_WEIGHT,
};
pub use error::ServiceError;
pub use evaluate::{DEFAULT_MAX_EVALUATIONS, MAX_ORIGIN_LEN, PROGRESS_INTERVAL};
pub use principal::{Owner, Principal, Quotas, RateLimit};
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
    /// Quotas of a client without a token of its own (an anonymous connection), and the
    /// defaults of a token-file entry that does not set them.
    pub client_quotas: Quotas,
    /// Most bytes one episode may hold (accounted: state, log, history); a call that takes
    /// it beyond fails with RESOURCE_EXHAUSTED (reason "memory") and closes the episode.
    pub max_episode_memory_bytes: u64,
    /// Most default-policy turns one call may run for one episode (a Reset, a Step, each
    /// batch item); beyond, the call stops, fails with RESOURCE_EXHAUSTED (reason
    /// "work_budget") and closes the episode.
    pub max_turns_per_call: u64,
    /// Longest any call may work, whatever its own deadline (none: unbounded); engine work
    /// checks it as it checks the call's deadline.
    pub max_call_duration: Option<Duration>,
    /// Largest snapshot accepted by Restore, in bytes.
    pub max_snapshot_bytes: usize,
    /// Key of the snapshots' HMAC-SHA256 (`None`: a random key per server instance).
    pub snapshot_key: Option<Vec<u8>>,
    /// Most Session streams open at once on the server, and per client (beyond:
    /// RESOURCE_EXHAUSTED, reason "quota"). Each buffers at most 1 MiB of replies the client
    /// has not read.
    pub max_streams: usize,
    pub max_streams_per_client: usize,
    /// Most engine jobs (one call's engine work: a Step, a Reset, a batch, a Session item…)
    /// running at once on the blocking pool, server-wide; later ones wait for a slot until
    /// their deadline (beyond: DEADLINE_EXCEEDED).
    pub max_engine_jobs: usize,
    /// Most engine jobs of one client running at once (its share of `max_engine_jobs`);
    /// its later ones wait, another client's do not.
    pub max_engine_jobs_per_client: usize,
    /// Longest an Evaluate call may run, whatever its own deadline (none: unbounded); beyond,
    /// it stops within moments (inside a combat) and fails with DEADLINE_EXCEEDED.
    pub max_evaluation_duration: Option<Duration>,
    /// Largest round cap of an Evaluate's combats (the spec's `round_cap`, else the
    /// scenario's); beyond: INVALID_ARGUMENT naming `spec.round_cap`.
    pub max_evaluation_rounds: u32,
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
            client_quotas: Quotas {
                max_episodes: DEFAULT_MAX_EPISODES_PER_CLIENT,
                max_evaluations: DEFAULT_MAX_EVALUATIONS_PER_CLIENT,
                max_memory_bytes: DEFAULT_MAX_CLIENT_MEMORY_BYTES,
            },
            max_episode_memory_bytes: DEFAULT_MAX_EPISODE_MEMORY_BYTES,
            max_turns_per_call: DEFAULT_MAX_TURNS_PER_CALL,
            max_call_duration: Some(DEFAULT_MAX_CALL_DURATION),
            max_snapshot_bytes: DEFAULT_MAX_SNAPSHOT_BYTES,
            snapshot_key: None,
            max_streams: DEFAULT_MAX_STREAMS,
            max_streams_per_client: DEFAULT_MAX_STREAMS_PER_CLIENT,
            max_engine_jobs: default_max_engine_jobs(),
            max_engine_jobs_per_client: default_max_engine_jobs().div_ceil(2),
            max_evaluation_duration: Some(DEFAULT_MAX_EVALUATION_DURATION),
            max_evaluation_rounds: DEFAULT_MAX_EVALUATION_ROUNDS,
        }
    }
}

/// Default of [`Quotas::max_episodes`] for a client: half of the default `max_episodes`, so
/// that one client cannot take them all.
pub const DEFAULT_MAX_EPISODES_PER_CLIENT: usize = 2048;
/// Default of [`Quotas::max_evaluations`] for a client.
pub const DEFAULT_MAX_EVALUATIONS_PER_CLIENT: usize = 2;
/// Default of [`Quotas::max_memory_bytes`] for a client: 2 GiB.
pub const DEFAULT_MAX_CLIENT_MEMORY_BYTES: u64 = 2 << 30;
/// Default of [`ServiceConfig::max_episode_memory_bytes`]: 16 MiB.
pub const DEFAULT_MAX_EPISODE_MEMORY_BYTES: u64 = 16 << 20;
/// Default of [`ServiceConfig::max_turns_per_call`].
pub const DEFAULT_MAX_TURNS_PER_CALL: u64 = 20_000;
/// Default of [`ServiceConfig::max_call_duration`]: 5 minutes.
pub const DEFAULT_MAX_CALL_DURATION: Duration = Duration::from_secs(300);
/// Default of [`ServiceConfig::max_streams`].
pub const DEFAULT_MAX_STREAMS: usize = 1024;
/// Default of [`ServiceConfig::max_streams_per_client`].
pub const DEFAULT_MAX_STREAMS_PER_CLIENT: usize = 32;
/// Default of [`ServiceConfig::max_engine_jobs`]: twice the cores (at least 4); the default
/// share of a client ([`ServiceConfig::max_engine_jobs_per_client`]) is half of it.
pub fn default_max_engine_jobs() -> usize {
    std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .saturating_mul(2)
        .max(4)
}
/// Default of [`ServiceConfig::max_evaluation_duration`]: 30 minutes.
pub const DEFAULT_MAX_EVALUATION_DURATION: Duration = Duration::from_secs(30 * 60);
/// Default of [`ServiceConfig::max_evaluation_rounds`]: 1,000 rounds (100 minutes of game
/// time; the bundled scenarios cap their combats far below).
pub const DEFAULT_MAX_EVALUATION_ROUNDS: u32 = 1_000;
/// Default of [`ServiceConfig::max_snapshot_bytes`]: 8 MiB.
pub const DEFAULT_MAX_SNAPSHOT_BYTES: usize = 8 << 20;

/// Connection-level counters, kept by the transport (`crate::server`), reported by Stats.
#[derive(Debug, Default)]
pub struct TransportCounters {
    /// TCP connections open now.
    pub open_connections: AtomicU64,
    /// Connections refused since start (over the connection limit).
    pub connections_refused: AtomicU64,
    /// Calls refused by a client's request rate since start.
    pub requests_rate_limited: AtomicU64,
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
    calls_stopped: AtomicU64,
}

struct Inner {
    scenarios: ScenarioStore,
    sessions: SessionMap,
    /// This process's id (8 hex digits, random), in every episode id.
    instance_id: String,
    /// The snapshots' HMAC-SHA256 key (the configured one, else random).
    snapshot_key: Vec<u8>,
    config: ServiceConfig,
    counters: Counters,
    /// Set to true when the server shuts down: Session streams end after their current item.
    shutdown: tokio::sync::watch::Sender<bool>,
    /// Set when the shutdown grace period is over: engine work in progress stops.
    cancel_all: std::sync::atomic::AtomicBool,
    /// Kept by the transport.
    transport: TransportCounters,
    /// Evaluate calls running, by client.
    evaluations_by_client: std::sync::Mutex<std::collections::HashMap<Owner, usize>>,
    /// Session streams open, by client.
    streams_by_client: std::sync::Mutex<std::collections::HashMap<Owner, usize>>,
    /// Admission of engine jobs (server-wide and per client).
    engine: exec::EngineGate,
    /// The rayon pool of Evaluate calls (built on first use).
    evaluation_pool: std::sync::OnceLock<rayon::ThreadPool>,
}

/// The Environment service. Cheap to clone (shared state). A handle acts for one client
/// ([`EnvironmentService::for_client`]): the episodes it creates belong to that client and
/// it sees no other's; [`EnvironmentService::new`] gives the in-process client
/// ([`Principal::local`]).
#[derive(Clone)]
pub struct EnvironmentService {
    inner: Arc<Inner>,
    principal: Principal,
    /// What bounds the engine work of the call this handle serves.
    limits: exec::CallLimits,
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
        let snapshot_key = config
            .snapshot_key
            .clone()
            .unwrap_or_else(|| sessions::os_random::<32>().to_vec());
        let engine =
            exec::EngineGate::new(config.max_engine_jobs, config.max_engine_jobs_per_client);
        EnvironmentService {
            principal: Principal::local(),
            limits: exec::CallLimits::default(),
            inner: Arc::new(Inner {
                scenarios: ScenarioStore::new(config.data_dir.clone()),
                sessions: RwLock::new(sessions::Sessions::default()),
                instance_id: sessions::new_instance_id(),
                snapshot_key,
                config,
                counters: Counters::default(),
                shutdown: tokio::sync::watch::Sender::new(false),
                cancel_all: std::sync::atomic::AtomicBool::new(false),
                transport: TransportCounters::default(),
                evaluations_by_client: std::sync::Mutex::default(),
                streams_by_client: std::sync::Mutex::default(),
                engine,
                evaluation_pool: std::sync::OnceLock::new(),
            }),
        }
    }

    /// A handle acting for `principal` (same shared state).
    pub fn for_client(&self, principal: Principal) -> EnvironmentService {
        EnvironmentService {
            inner: self.inner.clone(),
            principal,
            limits: self.limits.clone(),
        }
    }

    /// The client this handle acts for.
    pub fn principal(&self) -> &Principal {
        &self.principal
    }

    /// This server process's instance id (in every episode id).
    pub fn instance_id(&self) -> &str {
        &self.inner.instance_id
    }

    /// The service's settings.
    pub fn config(&self) -> &ServiceConfig {
        &self.inner.config
    }

    /// Connection-level counters, for the transport to keep.
    pub fn transport_counters(&self) -> &TransportCounters {
        &self.inner.transport
    }

    /// Start shutting down: Session streams end after their current item with UNAVAILABLE,
    /// new Evaluate calls are refused, running ones stop within a combat.
    pub fn begin_shutdown(&self) {
        self.inner.shutdown.send_replace(true);
    }

    /// The shutdown grace period is over: engine work in progress stops at its next check
    /// (its call fails with UNAVAILABLE, its episode closed).
    pub fn cancel_work(&self) {
        self.inner.cancel_all.store(true, Ordering::SeqCst);
        self.inner.shutdown.send_replace(true);
    }

    /// An anonymous connection ended: close the episodes it owned ([`Owner::Connection`]);
    /// returns how many.
    pub fn connection_closed(&self, connection: u64) -> usize {
        self.close_owned_by(&Owner::Connection(connection))
    }

    /// Server counters, and the calling client's usage and quotas.
    pub fn stats(&self) -> proto::StatsResponse {
        let c = &self.inner.counters;
        let t = &self.inner.transport;
        let mine = self.client_usage();
        let q = &self.principal.quotas;
        proto::StatsResponse {
            instance_id: self.inner.instance_id.clone(),
            episode_memory_bytes: self.episode_memory(),
            max_episode_memory_bytes: self.inner.config.max_episode_memory_bytes,
            max_turns_per_call: self.inner.config.max_turns_per_call,
            calls_stopped: c.calls_stopped.load(Ordering::Relaxed),
            client: self.principal.owner.name().to_string(),
            client_live_episodes: mine.episodes as u64,
            client_max_episodes: q.max_episodes.min(self.inner.config.max_episodes) as u64,
            client_max_evaluations: q.max_evaluations.min(self.inner.config.max_evaluations) as u64,
            client_episode_memory_bytes: mine.memory,
            open_connections: t.open_connections.load(Ordering::Relaxed),
            connections_refused: t.connections_refused.load(Ordering::Relaxed),
            requests_rate_limited: t.requests_rate_limited.load(Ordering::Relaxed),
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
