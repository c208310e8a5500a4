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
use crate::scenarios::{ScenarioError, ScenarioStore};
use pf1e_engine::episode::SubmitError;
use pf1e_engine::{Action, ActionKind, Cell, CombatantId, Controller, Encounter, Episode, Status};
use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};
use tonic::{Request, Response};

/// Most actions accepted in one Step.
pub const MAX_ACTIONS_PER_STEP: usize = 64;
/// Longest accepted episode id, in bytes.
pub const MAX_EPISODE_ID_LEN: usize = 128;
/// What `Spec.mask_polarity` says.
pub const MASK_POLARITY: &str = "1 = legal";
/// The wire protocol package.
pub const PROTOCOL: &str = "pf1e.env.v1";

/// Every way a request can fail. Display is the status message: it names the request field at
/// fault where there is one.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// A malformed request field (INVALID_ARGUMENT).
    #[error("{field}: {reason}")]
    InvalidArgument {
        /// The request field, e.g. `actions[0].kind`.
        field: String,
        /// Why it is rejected.
        reason: String,
    },
    /// Resolving the scenario failed (status depends on the variant).
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// No open episode has this id (NOT_FOUND).
    #[error("episode_id: unknown episode `{0}` (closed, expired, or never created)")]
    UnknownEpisode(String),
    /// The episode has ended (FAILED_PRECONDITION).
    #[error("episode `{0}` is over: call Reset to start a new one")]
    EpisodeOver(String),
    /// The step names another decision than the current one (FAILED_PRECONDITION).
    #[error("decision_id: stale decision {given}: the current decision of episode `{episode}` is {current}")]
    StaleDecision {
        /// The episode id.
        episode: String,
        /// The decision id of the request.
        given: u64,
        /// The pending decision id.
        current: u64,
    },
    /// The engine refused the submission (status depends on the variant).
    #[error("{0}")]
    Submit(#[from] SubmitError),
    /// Too many open episodes (RESOURCE_EXHAUSTED).
    #[error("too many open episodes (limit {0}): close some with Close")]
    TooManyEpisodes(usize),
    /// A server bug or an engine panic (INTERNAL).
    #[error("internal error: {0}")]
    Internal(String),
}

impl ServiceError {
    fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        ServiceError::InvalidArgument {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl From<ServiceError> for tonic::Status {
    fn from(e: ServiceError) -> Self {
        use tonic::Code;
        let code = match &e {
            ServiceError::InvalidArgument { .. } => Code::InvalidArgument,
            ServiceError::Scenario(s) => match s {
                ScenarioError::Missing { .. }
                | ScenarioError::InvalidName { .. }
                | ScenarioError::InvalidInline { .. } => Code::InvalidArgument,
                ScenarioError::UnknownScenario { .. } => Code::NotFound,
                ScenarioError::BrokenData { .. } => Code::Internal,
            },
            ServiceError::UnknownEpisode(_) => Code::NotFound,
            ServiceError::EpisodeOver(_) | ServiceError::StaleDecision { .. } => {
                Code::FailedPrecondition
            }
            ServiceError::Submit(s) => match s {
                SubmitError::Terminal => Code::FailedPrecondition,
                SubmitError::Empty => Code::InvalidArgument,
                SubmitError::NotAwaitingDecision => Code::Internal,
            },
            ServiceError::TooManyEpisodes(_) => Code::ResourceExhausted,
            ServiceError::Internal(_) => Code::Internal,
        };
        if code == Code::Internal {
            tracing::error!(error = %e, "internal error");
        }
        tonic::Status::new(code, bounded_message(e.to_string()))
    }
}

/// Most bytes of an error message sent back: messages may quote client input, and gRPC
/// clients refuse status metadata beyond 16 KiB.
const MAX_STATUS_MESSAGE: usize = 1024;

/// `message`, cut to [`MAX_STATUS_MESSAGE`] bytes on a character boundary, with a marker.
fn bounded_message(mut message: String) -> String {
    if message.len() > MAX_STATUS_MESSAGE {
        let mut cut = MAX_STATUS_MESSAGE;
        while !message.is_char_boundary(cut) {
            cut -= 1;
        }
        message.truncate(cut);
        message.push_str("… (truncated)");
    }
    message
}

/// Settings of the service.
#[derive(Debug, Clone)]
pub struct ServiceConfig {
    /// Directory holding `maps/`, `monsters/`, `pcs/`, `scenarios/`.
    pub data_dir: PathBuf,
    /// Most episodes open at once; Reset beyond it fails with RESOURCE_EXHAUSTED.
    pub max_episodes: usize,
    /// Episodes untouched for this long are closed (`None`: never).
    pub idle_timeout: Option<Duration>,
}

impl ServiceConfig {
    /// Defaults: 4096 episodes, 30 minutes idle timeout.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        ServiceConfig {
            data_dir: data_dir.into(),
            max_episodes: 4096,
            idle_timeout: Some(Duration::from_secs(30 * 60)),
        }
    }
}

/// One open episode.
struct Session {
    episode: Episode,
    /// The status returned by the last `advance()`.
    status: Status,
    /// Side of every controlled combatant, when they are all on one side.
    reward_side: Option<String>,
    /// Results of the last step (repeated by Observe).
    last_results: Vec<proto::ActionResult>,
    last_used: Instant,
}

type SessionMap = RwLock<HashMap<String, Arc<Mutex<Session>>>>;

struct Inner {
    scenarios: ScenarioStore,
    sessions: SessionMap,
    next_id: AtomicU64,
    id_salt: u64,
    config: ServiceConfig,
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

/// SplitMix64: turns a counter into a random-looking id.
fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
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
            }),
        }
    }

    /// Number of open episodes.
    pub fn open_episodes(&self) -> usize {
        self.inner
            .sessions
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .len()
    }

    /// Close episodes idle for longer than the configured timeout; returns how many. Episodes
    /// busy right now are kept.
    pub fn reap_idle(&self) -> usize {
        let Some(ttl) = self.inner.config.idle_timeout else {
            return 0;
        };
        let mut map = self
            .inner
            .sessions
            .write()
            .unwrap_or_else(|p| p.into_inner());
        let before = map.len();
        map.retain(|_, s| match s.try_lock() {
            Ok(s) => s.last_used.elapsed() < ttl,
            Err(std::sync::TryLockError::WouldBlock) => true,
            Err(std::sync::TryLockError::Poisoned(_)) => false,
        });
        before - map.len()
    }

    fn new_episode_id(&self) -> String {
        let n = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        format!("ep-{:016x}", splitmix64(n ^ self.inner.id_salt))
    }

    fn session(&self, episode_id: &str) -> Result<Arc<Mutex<Session>>, ServiceError> {
        check_episode_id(episode_id)?;
        self.inner
            .sessions
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(episode_id)
            .cloned()
            .ok_or_else(|| ServiceError::UnknownEpisode(episode_id.to_string()))
    }

    /// GetSpec, synchronously.
    ///
    /// # Errors
    /// [`ServiceError::Scenario`] when the scenario cannot be resolved.
    pub fn get_spec_blocking(
        &self,
        req: &proto::GetSpecRequest,
    ) -> Result<proto::Spec, ServiceError> {
        let (name, enc) = self
            .inner
            .scenarios
            .resolve(req.scenario.as_ref(), "scenario")?;
        let action_space_size = pf1e_engine::legal::ActionSpace::of(&enc).size();
        Ok(spec(&name, &enc, action_space_size))
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
        let (controllers, reward_side) = controllers(&enc, req.controlled.as_ref())?;
        if self.open_episodes() >= self.inner.config.max_episodes {
            return Err(ServiceError::TooManyEpisodes(
                self.inner.config.max_episodes,
            ));
        }
        let mut episode = Episode::new(enc, req.seed, &controllers);
        let status = episode.advance();
        let session = Session {
            episode,
            status,
            reward_side,
            last_results: Vec::new(),
            last_used: Instant::now(),
        };
        let id = self.new_episode_id();
        let state = episode_state(&id, &session);
        {
            let mut map = self
                .inner
                .sessions
                .write()
                .unwrap_or_else(|p| p.into_inner());
            if map.len() >= self.inner.config.max_episodes {
                return Err(ServiceError::TooManyEpisodes(
                    self.inner.config.max_episodes,
                ));
            }
            map.insert(id.clone(), Arc::new(Mutex::new(session)));
        }
        tracing::info!(episode = %id, scenario = %name, seed = req.seed, "reset");
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
            .map(|(i, r)| proto::ActionResult {
                kind: kind_to_proto(r.kind) as i32,
                ok: r.ok,
                reason: r.reason.unwrap_or_default(),
                field: fields.get(i).cloned().unwrap_or_default(),
            })
            .collect();
        s.last_results = results;
        s.status = s.episode.advance();
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
                tracing::info!(episode = %req.episode_id, "close");
                Ok(proto::CloseResponse {})
            }
            None => Err(ServiceError::UnknownEpisode(req.episode_id.clone())),
        }
    }
}

fn lock<'a>(
    session: &'a Mutex<Session>,
    episode_id: &str,
) -> Result<std::sync::MutexGuard<'a, Session>, ServiceError> {
    session.lock().map_err(|_| {
        ServiceError::Internal(format!(
            "episode `{episode_id}` is unusable after an earlier internal error; close it"
        ))
    })
}

fn check_episode_id(id: &str) -> Result<(), ServiceError> {
    if id.is_empty() {
        return Err(ServiceError::invalid("episode_id", "is required"));
    }
    if id.len() > MAX_EPISODE_ID_LEN {
        return Err(ServiceError::invalid(
            "episode_id",
            format!("longer than {MAX_EPISODE_ID_LEN} bytes"),
        ));
    }
    Ok(())
}

/// Controllers per combatant and the reward side from the request's `controlled`.
fn controllers(
    enc: &Encounter,
    controlled: Option<&proto::Controlled>,
) -> Result<(Vec<Controller>, Option<String>), ServiceError> {
    let mut ctl = vec![Controller::DefaultPolicy; enc.combatants.len()];
    let Some(c) = controlled else {
        return Ok((ctl, None));
    };
    for (i, side) in c.sides.iter().enumerate() {
        if !enc.sides.contains(side) {
            return Err(ServiceError::invalid(
                format!("controlled.sides[{i}]"),
                format!("unknown side {side:?} (sides: {})", enc.sides.join(", ")),
            ));
        }
        for (k, p) in enc.combatants.iter().enumerate() {
            if p.side == *side {
                ctl[k] = Controller::External;
            }
        }
    }
    for (i, id) in c.combatant_ids.iter().enumerate() {
        match enc.combatants.iter().position(|p| p.id == *id) {
            Some(k) => ctl[k] = Controller::External,
            None => {
                let ids: Vec<&str> = enc.combatants.iter().map(|p| p.id.as_str()).collect();
                return Err(ServiceError::invalid(
                    format!("controlled.combatant_ids[{i}]"),
                    format!("unknown combatant {id:?} (ids: {})", ids.join(", ")),
                ));
            }
        }
    }
    let sides: BTreeSet<&str> = enc
        .combatants
        .iter()
        .zip(&ctl)
        .filter(|(_, c)| **c == Controller::External)
        .map(|(p, _)| p.side.as_str())
        .collect();
    let reward_side = if sides.len() == 1 {
        sides.into_iter().next().map(str::to_string)
    } else {
        None
    };
    Ok((ctl, reward_side))
}

/// The engine action of a proto action. `field` names it (`actions[i]`).
fn action_from_proto(
    a: &proto::Action,
    field: &str,
    enc: &Encounter,
) -> Result<Action, ServiceError> {
    let kind = match proto::ActionKind::try_from(a.kind) {
        Ok(proto::ActionKind::Unspecified) => {
            return Err(ServiceError::invalid(
                format!("{field}.kind"),
                "must be set (ACTION_KIND_UNSPECIFIED is not an action)",
            ))
        }
        Ok(k) => kind_from_proto(k)
            .ok_or_else(|| ServiceError::Internal("unmapped action kind".into()))?,
        Err(_) => {
            return Err(ServiceError::invalid(
                format!("{field}.kind"),
                format!("unknown action kind {}", a.kind),
            ))
        }
    };
    let target = match a.target {
        None => None,
        Some(t) => {
            let n = enc.combatants.len();
            if (t as usize) >= n {
                return Err(ServiceError::invalid(
                    format!("{field}.target"),
                    format!("no combatant with index {t} (the encounter has {n}: 0..{n})"),
                ));
            }
            let t = u16::try_from(t)
                .map_err(|_| ServiceError::invalid(format!("{field}.target"), "too large"))?;
            Some(CombatantId(t))
        }
    };
    let destination = match &a.destination {
        None => None,
        Some(c) => {
            let (rows, cols) = (enc.map.rows, enc.map.cols);
            if c.row < 0 || c.col < 0 || c.row >= rows || c.col >= cols {
                return Err(ServiceError::invalid(
                    format!("{field}.destination"),
                    format!(
                        "({},{}) is off the map ({rows} rows × {cols} columns)",
                        c.row, c.col
                    ),
                ));
            }
            Some(Cell::new(c.row, c.col))
        }
    };
    let weapon = a.weapon.map(|w| w as usize);
    Ok(Action {
        kind,
        target,
        destination,
        weapon,
    })
}

/// Proto action kind → engine action kind (`None` for UNSPECIFIED).
pub fn kind_from_proto(k: proto::ActionKind) -> Option<ActionKind> {
    Some(match k {
        proto::ActionKind::Unspecified => return None,
        proto::ActionKind::EndTurn => ActionKind::EndTurn,
        proto::ActionKind::Attack => ActionKind::Attack,
        proto::ActionKind::FullAttack => ActionKind::FullAttack,
        proto::ActionKind::Charge => ActionKind::Charge,
        proto::ActionKind::Move => ActionKind::Move,
        proto::ActionKind::FiveFootStep => ActionKind::FiveFootStep,
        proto::ActionKind::Withdraw => ActionKind::Withdraw,
    })
}

/// Engine action kind → proto action kind.
pub fn kind_to_proto(k: ActionKind) -> proto::ActionKind {
    match k {
        ActionKind::EndTurn => proto::ActionKind::EndTurn,
        ActionKind::Attack => proto::ActionKind::Attack,
        ActionKind::FullAttack => proto::ActionKind::FullAttack,
        ActionKind::Charge => proto::ActionKind::Charge,
        ActionKind::Move => proto::ActionKind::Move,
        ActionKind::FiveFootStep => proto::ActionKind::FiveFootStep,
        ActionKind::Withdraw => proto::ActionKind::Withdraw,
    }
}

/// Engine action → proto action.
pub fn action_to_proto(a: &Action) -> proto::Action {
    proto::Action {
        kind: kind_to_proto(a.kind) as i32,
        target: a.target.map(|t| u32::from(t.0)),
        destination: a.destination.map(|c| proto::Cell {
            row: c.row,
            col: c.col,
        }),
        weapon: a.weapon.map(|w| u32::try_from(w).unwrap_or(u32::MAX)),
    }
}

fn budget_to_proto(b: &pf1e_engine::Budget) -> proto::Budget {
    proto::Budget {
        standard: b.standard,
        r#move: b.move_action,
        swift: b.swift,
        full_round: b.full_round,
        five_foot_step: b.five_foot_step,
    }
}

/// The spec of an encounter.
fn spec(name: &str, enc: &Encounter, action_space_size: u32) -> proto::Spec {
    proto::Spec {
        scenario: name.to_string(),
        map: Some(proto::MapInfo {
            name: enc.map.name.clone(),
            rows: enc.map.rows,
            cols: enc.map.cols,
            square_size_ft: enc.map.square_size_ft,
        }),
        sides: enc.sides.clone(),
        combatants: enc
            .combatants
            .iter()
            .enumerate()
            .map(|(i, p)| proto::CombatantInfo {
                index: i as u32,
                id: p.id.clone(),
                name: p.spec.name.clone(),
                side: p.side.clone(),
                player_character: p.spec.player_character,
                size: format!("{:?}", p.spec.size),
            })
            .collect(),
        action_space_size,
        rng_version: pf1e_engine::dice::RNG_VERSION.to_string(),
        engine_version: pf1e_engine::VERSION.to_string(),
        round_cap: enc.options.round_cap,
        simple_monster_death: enc.options.simple_monster_death,
        mask_polarity: MASK_POLARITY.to_string(),
        protocol: PROTOCOL.to_string(),
    }
}

/// The typed + JSON observation.
fn observation_to_proto(obs: &pf1e_engine::Observation) -> proto::Observation {
    proto::Observation {
        round: obs.round,
        acting_index: obs.acting_index.map(u32::from),
        acting_id: obs.acting_combatant.clone().unwrap_or_default(),
        budget: obs.budget.as_ref().map(budget_to_proto),
        combatants: obs
            .combatants
            .iter()
            .map(|c| proto::CombatantState {
                index: u32::from(c.index),
                id: c.id.clone(),
                name: c.name.clone(),
                side: c.side.clone(),
                row: c.pos.row,
                col: c.pos.col,
                hp: c.hp,
                hp_max: c.hp_max,
                active: c.active,
                dead: c.dead,
                dying: c.dying,
                disabled: c.disabled,
                stabilized: c.stabilized,
                ac: c.ac.total,
                ac_touch: c.ac.touch,
                ac_flat_footed: c.ac.flat_footed,
                aoo_remaining: c.aoo_remaining,
                moved_this_turn: c.moved_this_turn,
                conditions: c.conditions.keys().cloned().collect(),
                size: c.size.clone(),
            })
            .collect(),
        initiative_order: obs.initiative_order.clone(),
        json: serde_json::to_string(obs).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}")),
    }
}

/// The EpisodeState of a session.
fn episode_state(id: &str, s: &Session) -> proto::EpisodeState {
    let ep = &s.episode;
    let mut state = proto::EpisodeState {
        episode_id: id.to_string(),
        results: s.last_results.clone(),
        action_space_size: ep.action_space_size(),
        reward_side: s.reward_side.clone().unwrap_or_default(),
        ..Default::default()
    };
    match &s.status {
        Status::Decision(d) => {
            let actor = &ep.encounter().combatants[usize::from(d.actor.0)];
            state.decision = Some(proto::Decision {
                decision_id: d.decision_id,
                actor_index: u32::from(d.actor.0),
                actor_id: actor.id.clone(),
                round: d.round,
                budget: Some(budget_to_proto(&d.budget)),
            });
            state.observation = Some(observation_to_proto(&ep.observation(Some(d.actor))));
            state.legal_actions = ep
                .legal_actions()
                .into_iter()
                .map(|l| proto::LegalAction {
                    id: l.id,
                    action: Some(action_to_proto(&l.action)),
                    label: l.label,
                })
                .collect();
        }
        Status::Terminal(o) => {
            state.observation = Some(observation_to_proto(&ep.observation(None)));
            state.terminated = !o.truncated;
            state.truncated = o.truncated;
            state.outcome = Some(proto::Outcome {
                winner: o.winner.clone().unwrap_or_default(),
                rounds: o.rounds,
                truncated: o.truncated,
            });
            state.reward = match (&s.reward_side, &o.winner) {
                (Some(side), Some(w)) if side == w => 1.0,
                (Some(_), Some(_)) => -1.0,
                _ => 0.0,
            };
        }
    }
    state
}

/// Run `f` on the blocking pool; an engine panic becomes INTERNAL.
async fn blocking<T, F>(f: F) -> Result<T, tonic::Status>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ServiceError> + Send + 'static,
{
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r.map_err(tonic::Status::from),
        Err(e) => Err(ServiceError::Internal(format!("engine panicked: {e}")).into()),
    }
}

#[tonic::async_trait]
impl Environment for EnvironmentService {
    async fn get_spec(
        &self,
        request: Request<proto::GetSpecRequest>,
    ) -> Result<Response<proto::Spec>, tonic::Status> {
        let svc = self.clone();
        let req = request.into_inner();
        blocking(move || svc.get_spec_blocking(&req))
            .await
            .map(Response::new)
    }

    async fn list_scenarios(
        &self,
        _request: Request<proto::ListScenariosRequest>,
    ) -> Result<Response<proto::ListScenariosResponse>, tonic::Status> {
        let svc = self.clone();
        blocking(move || {
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
        let req = request.into_inner();
        blocking(move || svc.reset_blocking(&req))
            .await
            .map(Response::new)
    }

    async fn step(
        &self,
        request: Request<proto::StepRequest>,
    ) -> Result<Response<proto::EpisodeState>, tonic::Status> {
        let svc = self.clone();
        let req = request.into_inner();
        blocking(move || svc.step_blocking(&req))
            .await
            .map(Response::new)
    }

    async fn observe(
        &self,
        request: Request<proto::ObserveRequest>,
    ) -> Result<Response<proto::EpisodeState>, tonic::Status> {
        let svc = self.clone();
        let req = request.into_inner();
        blocking(move || svc.observe_blocking(&req))
            .await
            .map(Response::new)
    }

    async fn close(
        &self,
        request: Request<proto::CloseRequest>,
    ) -> Result<Response<proto::CloseResponse>, tonic::Status> {
        self.close_episode(request.get_ref())
            .map(Response::new)
            .map_err(tonic::Status::from)
    }
}

/// Serve the Environment service, `grpc.health.v1` and server reflection on `listener` until
/// `shutdown` resolves (then in-flight requests finish). Also closes idle episodes once a
/// minute when `config.idle_timeout` is set.
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

    let result = tonic::transport::Server::builder()
        .add_service(health_service)
        .add_service(reflection)
        .add_service(proto::environment_server::EnvironmentServer::new(svc))
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
    fn every_proto_kind_maps_back_and_forth() {
        for k in [
            ActionKind::EndTurn,
            ActionKind::Attack,
            ActionKind::FullAttack,
            ActionKind::Charge,
            ActionKind::Move,
            ActionKind::FiveFootStep,
            ActionKind::Withdraw,
        ] {
            assert_eq!(kind_from_proto(kind_to_proto(k)), Some(k));
        }
        assert_eq!(kind_from_proto(proto::ActionKind::Unspecified), None);
    }

    #[test]
    fn statuses() {
        let s: tonic::Status = ServiceError::UnknownEpisode("x".into()).into();
        assert_eq!(s.code(), tonic::Code::NotFound);
        let s: tonic::Status = ServiceError::StaleDecision {
            episode: "e".into(),
            given: 1,
            current: 2,
        }
        .into();
        assert_eq!(s.code(), tonic::Code::FailedPrecondition);
        assert!(s.message().contains("decision_id"));
        let s: tonic::Status = ServiceError::invalid("actions[0].kind", "must be set").into();
        assert_eq!(s.code(), tonic::Code::InvalidArgument);
        assert!(s.message().starts_with("actions[0].kind: "));
    }

    #[test]
    fn episode_ids_are_distinct() {
        let svc = EnvironmentService::new(ServiceConfig::new("/nonexistent"));
        let a = svc.new_episode_id();
        let b = svc.new_episode_id();
        assert_ne!(a, b);
        assert!(a.starts_with("ep-") && a.len() == 19, "{a}");
    }

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
