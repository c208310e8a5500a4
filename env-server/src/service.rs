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
use crate::proto::{self, environment_server::Environment};
use crate::scenarios::ScenarioStore;
use pf1e_engine::{Controller, Episode, Status};
use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};
use tonic::{Request, Response};

mod batch;
mod convert;
mod error;
mod evaluate;
mod exec;
mod sessions;
mod spec;
mod stream;
use convert::{
    action_from_proto, controllers, decision_to_proto, episode_state, result_to_proto, ObsOpts,
    RewardCfg,
};
pub use convert::{
    action_to_proto, kind_from_proto, kind_to_proto, maneuver_from_proto, maneuver_to_proto,
    result_code, DEFAULT_DAMAGE_WEIGHT, DEFAULT_KILL_WEIGHT, MAX_REWARD_WEIGHT,
};
pub use error::ServiceError;
pub use evaluate::{DEFAULT_MAX_EVALUATIONS, MAX_ORIGIN_LEN, PROGRESS_INTERVAL};
use exec::{blocking, blocking_creating, deadline_of};
use sessions::{check_episode_id, lock, splitmix64, Session, SessionMap};
pub use spec::{rules_data_version, MASK_POLARITY, PROTOCOL, REWARD_COMPONENTS};
use stream::SessionResponseStream;

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

    /// Reset, synchronously: build the episode, advance it to the first controlled decision.
    ///
    /// # Errors
    /// [`ServiceError::Scenario`], [`ServiceError::InvalidArgument`] (unknown controlled side or
    /// combatant), [`ServiceError::TooManyEpisodes`].
    pub fn reset_blocking(
        &self,
        req: &proto::ResetRequest,
    ) -> Result<proto::EpisodeState, ServiceError> {
        let (name, enc) = self
            .inner
            .scenarios
            .resolve(req.scenario.as_ref(), "scenario")?;
        let (controllers, _) = controllers(&enc, req.controlled.as_ref())?;
        let obs = ObsOpts::from(req.observation.as_ref());
        let reward = RewardCfg::from_proto(req.reward.as_ref(), "reward")?;
        self.check_capacity()?;
        let episode = Episode::new(enc, req.seed, &controllers);
        let session = Session::new(episode, name.clone(), &controllers, obs, reward);
        let (id, state) = self.insert(session)?;
        tracing::debug!(episode = %id, scenario = %name, seed = req.seed, "reset");
        Ok(state)
    }

    /// Step, synchronously: submit the actions of the current decision, advance.
    ///
    /// # Errors
    /// [`ServiceError::InvalidArgument`] (malformed actions, action id out of range),
    /// [`ServiceError::UnknownEpisode`], [`ServiceError::EpisodeOver`],
    /// [`ServiceError::StaleDecision`], [`ServiceError::Internal`] (poisoned episode).
    pub fn step_blocking(
        &self,
        req: &proto::StepRequest,
    ) -> Result<proto::EpisodeState, ServiceError> {
        match (req.actions.is_empty(), req.action_ids.is_empty()) {
            (true, true) => {
                return Err(ServiceError::invalid(
                    "actions",
                    "one of actions or action_ids must be non-empty",
                ))
            }
            (false, false) => {
                return Err(ServiceError::invalid(
                    "action_ids",
                    "give either actions or action_ids, not both",
                ))
            }
            _ => {}
        }
        let n = req.actions.len().max(req.action_ids.len());
        if n > MAX_ACTIONS_PER_STEP {
            let field = if req.actions.is_empty() {
                "action_ids"
            } else {
                "actions"
            };
            return Err(ServiceError::invalid(
                field,
                format!("at most {MAX_ACTIONS_PER_STEP} actions per step"),
            ));
        }
        let session = self.session(&req.episode_id)?;
        let mut s = lock(&session, &req.episode_id)?;
        s.last_used = Instant::now();
        let current = match &s.status {
            Status::Terminal(_) => return Err(ServiceError::EpisodeOver(req.episode_id.clone())),
            Status::Decision(d) => d.decision_id,
        };
        let enc = s.episode.encounter().clone();
        // Validate the shape of every action before checking the decision id, so a malformed
        // request is reported as such whatever the episode's state.
        let (actions, fields) = if req.action_ids.is_empty() {
            let actions = req
                .actions
                .iter()
                .enumerate()
                .map(|(i, a)| action_from_proto(a, &format!("actions[{i}]"), &enc))
                .collect::<Result<Vec<_>, _>>()?;
            (
                actions,
                (0..n).map(|i| format!("actions[{i}]")).collect::<Vec<_>>(),
            )
        } else {
            let size = s.episode.action_space_size();
            let actions = req
                .action_ids
                .iter()
                .enumerate()
                .map(|(i, &id)| {
                    let field = format!("action_ids[{i}]");
                    if id >= size {
                        return Err(ServiceError::invalid(
                            field,
                            format!("action id {id} out of range: the action space has {size} ids (0..{size})"),
                        ));
                    }
                    s.episode
                        .action_from_id(id)
                        .ok_or_else(|| ServiceError::invalid(field, format!("action id {id} does not decode to an action")))
                })
                .collect::<Result<Vec<_>, _>>()?;
            (
                actions,
                (0..n)
                    .map(|i| format!("action_ids[{i}]"))
                    .collect::<Vec<_>>(),
            )
        };
        if req.decision_id != current {
            return Err(ServiceError::StaleDecision {
                episode: req.episode_id.clone(),
                given: req.decision_id,
                current,
            });
        }
        let results = s.episode.submit(&actions)?;
        let results = results
            .into_iter()
            .enumerate()
            .map(|(i, r)| result_to_proto(&r, fields.get(i).cloned().unwrap_or_default()))
            .collect();
        s.last_results = results;
        s.status = s.episode.advance();
        s.steps += 1;
        s.settle();
        self.inner.counters.steps.fetch_add(1, Ordering::Relaxed);
        tracing::debug!(episode = %req.episode_id, decision = current, "step");
        Ok(episode_state(&req.episode_id, &s))
    }

    /// Observe, synchronously.
    ///
    /// # Errors
    /// [`ServiceError::UnknownEpisode`], [`ServiceError::Internal`] (poisoned episode).
    pub fn observe_blocking(
        &self,
        req: &proto::ObserveRequest,
    ) -> Result<proto::EpisodeState, ServiceError> {
        let session = self.session(&req.episode_id)?;
        let mut s = lock(&session, &req.episode_id)?;
        s.last_used = Instant::now();
        Ok(episode_state(&req.episode_id, &s))
    }

    /// Close: forget the episode.
    ///
    /// # Errors
    /// [`ServiceError::UnknownEpisode`].
    pub fn close_episode(
        &self,
        req: &proto::CloseRequest,
    ) -> Result<proto::CloseResponse, ServiceError> {
        check_episode_id(&req.episode_id)?;
        let removed = self
            .inner
            .sessions
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&req.episode_id);
        match removed {
            Some(_) => {
                self.inner.counters.closed.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(episode = %req.episode_id, "close");
                Ok(proto::CloseResponse {})
            }
            None => Err(ServiceError::UnknownEpisode(req.episode_id.clone())),
        }
    }

    /// Validate, synchronously: the result `Step` would give for this one action now, with
    /// nothing changed.
    ///
    /// # Errors
    /// As Step: [`ServiceError::InvalidArgument`], [`ServiceError::UnknownEpisode`],
    /// [`ServiceError::EpisodeOver`], [`ServiceError::StaleDecision`].
    pub fn validate_blocking(
        &self,
        req: &proto::ValidateRequest,
    ) -> Result<proto::ActionResult, ServiceError> {
        let (field, given) = match (&req.action, req.action_id) {
            (Some(_), Some(_)) => {
                return Err(ServiceError::invalid(
                    "action_id",
                    "give either action or action_id, not both",
                ))
            }
            (None, None) => {
                return Err(ServiceError::invalid(
                    "action",
                    "one of action or action_id is required",
                ))
            }
            (Some(_), None) => ("action", None),
            (None, Some(id)) => ("action_id", Some(id)),
        };
        let session = self.session(&req.episode_id)?;
        let mut s = lock(&session, &req.episode_id)?;
        s.last_used = Instant::now();
        let current = match &s.status {
            Status::Terminal(_) => return Err(ServiceError::EpisodeOver(req.episode_id.clone())),
            Status::Decision(d) => d.decision_id,
        };
        let action = match (given, &req.action) {
            (Some(id), _) => {
                let size = s.episode.action_space_size();
                if id >= size {
                    return Err(ServiceError::invalid(
                        field,
                        format!("action id {id} out of range: the action space has {size} ids (0..{size})"),
                    ));
                }
                s.episode.action_from_id(id).ok_or_else(|| {
                    ServiceError::invalid(
                        field,
                        format!("action id {id} does not decode to an action"),
                    )
                })?
            }
            (None, Some(a)) => action_from_proto(a, field, s.episode.encounter())?,
            (None, None) => unreachable!("checked above"),
        };
        if req.decision_id != 0 && req.decision_id != current {
            return Err(ServiceError::StaleDecision {
                episode: req.episode_id.clone(),
                given: req.decision_id,
                current,
            });
        }
        let r = s.episode.validate(&action)?;
        Ok(result_to_proto(&r, field.to_string()))
    }

    /// Snapshot, synchronously.
    ///
    /// # Errors
    /// [`ServiceError::UnknownEpisode`], [`ServiceError::Internal`] (poisoned episode).
    pub fn snapshot_blocking(
        &self,
        req: &proto::SnapshotRequest,
    ) -> Result<proto::SnapshotResponse, ServiceError> {
        let session = self.session(&req.episode_id)?;
        let mut s = lock(&session, &req.episode_id)?;
        s.last_used = Instant::now();
        Ok(proto::SnapshotResponse {
            snapshot: s.episode.snapshot(),
            rules_data_version: rules_data_version(s.episode.encounter()),
        })
    }

    /// Restore, synchronously: a new episode from snapshot bytes.
    ///
    /// # Errors
    /// [`ServiceError::Scenario`], [`ServiceError::InvalidArgument`] (bad snapshot, controlled
    /// set not the snapshot's, bad reward options), [`ServiceError::TooManyEpisodes`].
    pub fn restore_blocking(
        &self,
        req: &proto::RestoreRequest,
    ) -> Result<(String, proto::EpisodeState), ServiceError> {
        let (name, enc) = self
            .inner
            .scenarios
            .resolve(req.scenario.as_ref(), "scenario")?;
        let obs = ObsOpts::from(req.observation.as_ref());
        let reward = RewardCfg::from_proto(req.reward.as_ref(), "reward")?;
        if req.snapshot.is_empty() {
            return Err(ServiceError::invalid("snapshot", "is required"));
        }
        let episode = Episode::restore(enc.clone(), &req.snapshot)
            .map_err(|e| ServiceError::invalid("snapshot", e.to_string()))?;
        // Who plays is in the snapshot (engine format: a `controllers` list).
        let stored: Option<Vec<Controller>> =
            serde_json::from_slice::<serde_json::Value>(&req.snapshot)
                .ok()
                .and_then(|v| v.get("controllers").cloned())
                .and_then(|c| serde_json::from_value(c).ok());
        let ctl = match (req.controlled.as_ref(), stored) {
            (Some(c), stored) => {
                let (asked, _) = controllers(&enc, Some(c))?;
                if let Some(stored) = stored {
                    if stored != asked {
                        return Err(ServiceError::invalid(
                            "controlled",
                            "differs from the controlled set stored in the snapshot",
                        ));
                    }
                }
                asked
            }
            (None, Some(stored)) => stored,
            (None, None) => controllers(&enc, None)?.0,
        };
        self.check_capacity()?;
        let session = Session::new(episode, name, &ctl, obs, reward);
        let (id, state) = self.insert(session)?;
        tracing::debug!(episode = %id, "restore");
        Ok((id, state))
    }

    /// Fork, synchronously: a copy of an episode under a new id.
    ///
    /// # Errors
    /// [`ServiceError::UnknownEpisode`], [`ServiceError::TooManyEpisodes`],
    /// [`ServiceError::Internal`] (poisoned episode).
    pub fn fork_blocking(
        &self,
        req: &proto::ForkRequest,
    ) -> Result<(String, proto::EpisodeState), ServiceError> {
        let session = self.session(&req.episode_id)?;
        let mut copy = {
            let mut s = lock(&session, &req.episode_id)?;
            s.last_used = Instant::now();
            s.clone()
        };
        self.check_capacity()?;
        let now = Instant::now();
        copy.created = now;
        copy.last_used = now;
        let (id, state) = self.insert(copy)?;
        tracing::debug!(episode = %id, from = %req.episode_id, "fork");
        Ok((id, state))
    }

    /// Describe, synchronously (does not count as activity: `idle_seconds` is not reset).
    ///
    /// # Errors
    /// [`ServiceError::UnknownEpisode`], [`ServiceError::Internal`] (poisoned episode).
    pub fn describe_blocking(
        &self,
        req: &proto::DescribeRequest,
    ) -> Result<proto::EpisodeDescription, ServiceError> {
        let session = self.session(&req.episode_id)?;
        let s = lock(&session, &req.episode_id)?;
        let mut d = proto::EpisodeDescription {
            episode_id: req.episode_id.clone(),
            scenario: s.scenario.clone(),
            round: s.episode.round(),
            age_seconds: s.created.elapsed().as_secs_f64(),
            idle_seconds: s.last_used.elapsed().as_secs_f64(),
            steps: s.steps,
            controlled_sides: s.controlled_sides.clone(),
            ..Default::default()
        };
        match &s.status {
            Status::Decision(dec) => d.decision = Some(decision_to_proto(&s.episode, dec)),
            Status::Terminal(o) => {
                d.over = true;
                d.outcome = Some(proto::Outcome::from(o));
            }
        }
        Ok(d)
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

#[tonic::async_trait]
impl Environment for EnvironmentService {
    async fn get_spec(
        &self,
        request: Request<proto::GetSpecRequest>,
    ) -> Result<Response<proto::Spec>, tonic::Status> {
        self.unary(request, Self::get_spec_blocking).await
    }

    async fn list_scenarios(
        &self,
        request: Request<proto::ListScenariosRequest>,
    ) -> Result<Response<proto::ListScenariosResponse>, tonic::Status> {
        let svc = self.clone();
        blocking(deadline_of(&request), move || {
            Ok(proto::ListScenariosResponse {
                scenarios: svc.inner.scenarios.list(),
            })
        })
        .await
        .map(Response::new)
    }

    async fn reset(
        &self,
        request: Request<proto::ResetRequest>,
    ) -> Result<Response<proto::EpisodeState>, tonic::Status> {
        let svc = self.clone();
        let deadline = deadline_of(&request);
        let req = request.into_inner();
        blocking_creating(svc.clone(), deadline, 0, move || svc.reset_blocking(&req))
            .await
            .map(Response::new)
    }

    async fn step(
        &self,
        request: Request<proto::StepRequest>,
    ) -> Result<Response<proto::EpisodeState>, tonic::Status> {
        self.unary_inline(request, Self::step_blocking)
    }

    async fn observe(
        &self,
        request: Request<proto::ObserveRequest>,
    ) -> Result<Response<proto::EpisodeState>, tonic::Status> {
        self.unary_inline(request, Self::observe_blocking)
    }

    async fn close(
        &self,
        request: Request<proto::CloseRequest>,
    ) -> Result<Response<proto::CloseResponse>, tonic::Status> {
        self.close_episode(request.get_ref())
            .map(Response::new)
            .map_err(tonic::Status::from)
    }

    async fn validate(
        &self,
        request: Request<proto::ValidateRequest>,
    ) -> Result<Response<proto::ActionResult>, tonic::Status> {
        self.unary_inline(request, Self::validate_blocking)
    }

    async fn snapshot(
        &self,
        request: Request<proto::SnapshotRequest>,
    ) -> Result<Response<proto::SnapshotResponse>, tonic::Status> {
        self.unary(request, Self::snapshot_blocking).await
    }

    async fn restore(
        &self,
        request: Request<proto::RestoreRequest>,
    ) -> Result<Response<proto::EpisodeState>, tonic::Status> {
        let svc = self.clone();
        let deadline = deadline_of(&request);
        let req = request.into_inner();
        blocking_creating(svc.clone(), deadline, 0, move || {
            svc.restore_blocking(&req).map(|(_, s)| s)
        })
        .await
        .map(Response::new)
    }

    async fn fork(
        &self,
        request: Request<proto::ForkRequest>,
    ) -> Result<Response<proto::EpisodeState>, tonic::Status> {
        let svc = self.clone();
        let deadline = deadline_of(&request);
        let req = request.into_inner();
        blocking_creating(svc.clone(), deadline, 0, move || {
            svc.fork_blocking(&req).map(|(_, s)| s)
        })
        .await
        .map(Response::new)
    }

    async fn describe(
        &self,
        request: Request<proto::DescribeRequest>,
    ) -> Result<Response<proto::EpisodeDescription>, tonic::Status> {
        self.unary(request, Self::describe_blocking).await
    }

    async fn stats(
        &self,
        _request: Request<proto::StatsRequest>,
    ) -> Result<Response<proto::StatsResponse>, tonic::Status> {
        Ok(Response::new(self.stats()))
    }

    async fn step_batch(
        &self,
        request: Request<proto::StepBatchRequest>,
    ) -> Result<Response<proto::BatchResponse>, tonic::Status> {
        let svc = self.clone();
        let deadline = deadline_of(&request);
        let req = request.into_inner();
        // Items come steps, columnar steps, then resets: only the resets create episodes
        // (closed again if the call finishes after its deadline).
        let first_reset = req.steps.len()
            + req
                .columnar_steps
                .as_ref()
                .map_or(0, |c| c.episode_ids.len());
        blocking_creating(svc.clone(), deadline, first_reset, move || {
            svc.step_batch_blocking(&req, deadline)
        })
        .await
        .map(Response::new)
    }

    async fn reset_batch(
        &self,
        request: Request<proto::ResetBatchRequest>,
    ) -> Result<Response<proto::BatchResponse>, tonic::Status> {
        let svc = self.clone();
        let deadline = deadline_of(&request);
        let req = proto::StepBatchRequest {
            steps: Vec::new(),
            resets: request.into_inner().resets,
            ..Default::default()
        };
        blocking_creating(svc.clone(), deadline, 0, move || {
            svc.step_batch_blocking(&req, deadline)
        })
        .await
        .map(Response::new)
    }

    type SessionStream = SessionResponseStream;

    async fn session(
        &self,
        request: Request<tonic::Streaming<proto::SessionRequest>>,
    ) -> Result<Response<Self::SessionStream>, tonic::Status> {
        Ok(Response::new(self.session_stream(request.into_inner())))
    }

    async fn echo(
        &self,
        request: Request<proto::EchoRequest>,
    ) -> Result<Response<proto::EchoResponse>, tonic::Status> {
        Ok(Response::new(proto::EchoResponse {
            payload: request.into_inner().payload,
        }))
    }

    type EvaluateStream = evaluate::EvaluateResponseStream;

    async fn evaluate(
        &self,
        request: Request<proto::EvaluateRequest>,
    ) -> Result<Response<Self::EvaluateStream>, tonic::Status> {
        self.evaluate_call(request).await
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_validated_before_the_engine() {
        let svc = EnvironmentService::new(ServiceConfig::new("/nonexistent"));
        let e = svc
            .step_blocking(&proto::StepRequest {
                episode_id: "ep-x".into(),
                ..Default::default()
            })
            .unwrap_err();
        assert!(matches!(e, ServiceError::InvalidArgument { .. }), "{e}");
        let e = svc
            .step_blocking(&proto::StepRequest {
                episode_id: "ep-x".into(),
                action_ids: vec![0],
                ..Default::default()
            })
            .unwrap_err();
        assert!(matches!(e, ServiceError::UnknownEpisode(_)), "{e}");
        let e = svc
            .observe_blocking(&proto::ObserveRequest {
                episode_id: String::new(),
            })
            .unwrap_err();
        assert!(matches!(e, ServiceError::InvalidArgument { .. }), "{e}");
        let e = svc
            .close_episode(&proto::CloseRequest {
                episode_id: "nope".into(),
            })
            .unwrap_err();
        assert!(matches!(e, ServiceError::UnknownEpisode(_)), "{e}");
    }
}
