//! Open episodes: the [`Session`] of each (the episode, its last status, observation and
//! reward options, reward bookkeeping, what Observe repeats, counters and times), the map
//! `episode id → Arc<Mutex<Session>>` and what works on it — insertion under the
//! `max_episodes` limit, look-up, quiet closing (stream teardown), idle eviction
//! ([`EnvironmentService::reap_idle`]) — episode-id generation, and the checks every request
//! naming an episode goes through ([`check_episode_id`], [`lock`]).
//!
//! The map's lock is held only to look up, insert or remove a session; engine work runs under
//! the episode's own mutex.
use super::convert::{episode_state, result_to_proto, ObsOpts};
use super::principal::Owner;
use super::{EnvironmentService, ServiceError, MAX_EPISODE_ID_LEN};
use crate::proto;
use pf1e_engine::reward::{RewardConfig, RewardTracker};
use pf1e_engine::{CombatantId, Controller, Episode, HistoryEntry, Status};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, RwLock};
use std::time::Instant;

/// One open episode.
#[derive(Clone)]
pub(super) struct Session {
    pub(super) episode: Episode,
    /// The status returned by the last `advance()`.
    pub(super) status: Status,
    /// Scenario name (`inline` for inline ones).
    pub(super) scenario: String,
    /// Where the episode started, for ExportTranscript: the scenario as requested (name or
    /// inline content) and the seed of its dice (`DiceSource::seeded(seed)`; `None` for an
    /// episode restored from a snapshot, whose start is not known).
    pub(super) start: Arc<Start>,
    /// Side of every controlled combatant, when they are all on one side.
    pub(super) reward_side: Option<String>,
    /// Controlled combatants, list order.
    pub(super) controlled: Vec<CombatantId>,
    pub(super) obs: ObsOpts,
    /// Reward shaping and, for each controlled side (see [`Session::controlled_sides`]), the
    /// potential when its reward was last reported.
    pub(super) reward: RewardTracker,
    /// Rewards reported by the last Reset/Step (repeated by Observe).
    pub(super) last_rewards: Vec<(String, f32)>,
    /// The last deciding combatant (tensor viewer at the end).
    pub(super) viewer: Option<CombatantId>,
    /// Results of the last step (repeated by Observe).
    pub(super) last_results: Vec<proto::ActionResult>,
    /// The same results as the engine gives them, for `Observation.text`; kept only when
    /// the text is asked for (empty otherwise).
    pub(super) last_engine_results: Vec<pf1e_engine::ActionResult>,
    /// Actions of the last step without a result yet (see `EpisodeState.pending_results`).
    pub(super) last_pending: u32,
    /// Steps interrupted by a reaction: (decision id, request fields, results reported).
    pub(super) open_steps: Vec<(u64, Vec<String>, usize)>,
    /// Late results reported by the last step (repeated by Observe).
    pub(super) last_late: Vec<proto::LateResults>,
    pub(super) steps: u64,
    /// Bytes accounted to the episode in the session map when last measured.
    pub(super) accounted_memory: u64,
    /// A Step's advance was stopped by its deadline or cancellation before the next decision:
    /// the episode is mid-resolution and the next request on it resumes the advance first
    /// (see [`EnvironmentService::lock_ready`]).
    pub(super) resolving: bool,
    pub(super) created: Instant,
    pub(super) last_used: Instant,
}

/// The start of an episode (see [`Session::start`]).
#[derive(Debug)]
pub(super) struct Start {
    /// The scenario as requested (`None` for a request without one, never a live session).
    pub(super) scenario: Option<crate::scenarios::ScenarioSource>,
    pub(super) seed: Option<u64>,
    /// The tactics specs as requested (side → text; empty: none).
    pub(super) tactics: std::collections::BTreeMap<String, String>,
}

impl Start {
    /// Bytes held for this episode alone because of its start: an inline scenario's texts
    /// (kept for ExportTranscript) and the episode's own encounter built from them, and the
    /// tactics texts and the encounter copy that carries them. An estimate: each text counted
    /// twice (the text, and what was parsed from it); a bundled scenario's encounter is
    /// shared by every episode and counted for none.
    pub(super) fn held_bytes(&self) -> u64 {
        let inline = match &self.scenario {
            Some(crate::scenarios::ScenarioSource::Inline(i)) => {
                i.map_yaml.len()
                    + i.sides
                        .iter()
                        .flat_map(|s| &s.combatants)
                        .map(|c| c.json.len() + c.base_id.len())
                        .sum::<usize>()
            }
            _ => 0,
        };
        let tactics: usize = self.tactics.iter().map(|(k, v)| k.len() + v.len()).sum();
        2 * (inline + tactics) as u64
    }
}

/// The interrupted steps of a `history` ([`Session::open_steps`]): every turn entry with fewer
/// results than actions, with the results it has counted as reported and its request fields
/// named `<input>[i]`, `input(decision_id)` the StepRequest field that carried the list
/// (`actions`, `action_ids`, `action_labels`, `actions_json`).
pub(super) fn interrupted_steps(
    history: &[HistoryEntry],
    input: impl Fn(u64) -> &'static str,
) -> Vec<(u64, Vec<String>, usize)> {
    history
        .iter()
        .filter(|e| !e.kind.is_reaction() && e.results.len() < e.actions.len())
        .map(|e| {
            let name = input(e.decision_id);
            (
                e.decision_id,
                (0..e.actions.len())
                    .map(|i| format!("{name}[{i}]"))
                    .collect(),
                e.results.len(),
            )
        })
        .collect()
}

impl Session {
    /// The results of interrupted earlier steps that have resolved since they were last
    /// reported (`EpisodeState.late_results`); steps with every result reported are
    /// forgotten.
    pub(super) fn late_results(&mut self) -> Vec<proto::LateResults> {
        let mut out = Vec::new();
        let ep = &self.episode;
        self.open_steps.retain_mut(|(id, fields, reported)| {
            let all = ep.results_of(*id).unwrap_or_default();
            if all.len() > *reported {
                out.push(proto::LateResults {
                    decision_id: *id,
                    first_index: u32::try_from(*reported).unwrap_or(u32::MAX),
                    results: all[*reported..]
                        .iter()
                        .enumerate()
                        .map(|(i, r)| {
                            let field = fields.get(*reported + i).cloned().unwrap_or_default();
                            result_to_proto(r, field)
                        })
                        .collect(),
                });
                *reported = all.len();
            }
            *reported < fields.len()
        });
        out
    }

    /// A session of `episode`, advanced to its first controlled decision or its end within
    /// `svc`'s call limits.
    ///
    /// # Errors
    /// Those of [`EnvironmentService::advance_bounded`].
    pub(super) fn new(
        episode: Episode,
        scenario: String,
        start: Arc<Start>,
        controllers: &[Controller],
        obs: ObsOpts,
        reward: RewardConfig,
        svc: &EnvironmentService,
    ) -> Result<Session, ServiceError> {
        let enc = episode.encounter().clone();
        let controlled: Vec<CombatantId> = controllers
            .iter()
            .enumerate()
            .filter(|(_, c)| **c == Controller::External)
            .map(|(i, _)| CombatantId(i as u16))
            .collect();
        let controlled_sides: Vec<String> = enc
            .sides
            .iter()
            .filter(|side| {
                controlled
                    .iter()
                    .any(|c| enc.combatants[usize::from(c.0)].side == **side)
            })
            .cloned()
            .collect();
        let reward_side = (controlled_sides.len() == 1).then(|| controlled_sides[0].clone());
        let now = Instant::now();
        let mut s = Session {
            status: Status::Terminal(pf1e_engine::Outcome {
                winner: None,
                rounds: 0,
                truncated: false,
            }),
            reward: RewardTracker::new(&episode, controlled_sides, reward),
            episode,
            scenario,
            start,
            reward_side,
            controlled,
            obs,
            last_rewards: Vec::new(),
            viewer: None,
            last_results: Vec::new(),
            last_engine_results: Vec::new(),
            last_pending: 0,
            open_steps: Vec::new(),
            last_late: Vec::new(),
            steps: 0,
            accounted_memory: 0,
            resolving: false,
            created: now,
            last_used: now,
        };
        s.status = svc.advance_bounded(&mut s.episode)?;
        s.settle();
        Ok(s)
    }

    /// Bytes accounted to this session: the episode's ([`Episode::memory_bytes`]), the
    /// results kept for Observe, and what its start holds for this client alone
    /// ([`Start::held_bytes`]: inline scenario and tactics texts, and the encounter built
    /// from them).
    pub(super) fn memory_bytes(&self) -> u64 {
        let results = (self.last_results.len() + self.last_engine_results.len()) * 128;
        self.episode.memory_bytes()
            + (std::mem::size_of::<Session>() + results) as u64
            + self.start.held_bytes()
    }

    /// Sides with at least one controlled combatant, deployment order.
    pub(super) fn controlled_sides(&self) -> &[String] {
        self.reward.sides()
    }

    /// After a status change: the rewards to report, and the new baselines (the computation
    /// is the engine's [`RewardTracker::settle`]).
    pub(super) fn settle(&mut self) {
        if let Status::Decision(d) = &self.status {
            self.viewer = Some(d.actor);
        }
        self.last_rewards = self.reward.settle(&self.episode, &self.status);
    }
}

/// One entry of the session map: the episode and who owns it.
pub(super) struct Entry {
    pub(super) owner: Owner,
    pub(super) session: Arc<Mutex<Session>>,
    /// Bytes accounted to the episode (see [`Session::memory_bytes`]) when last measured.
    pub(super) memory: u64,
}

/// What one owner holds.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Usage {
    pub(super) episodes: usize,
    pub(super) memory: u64,
}

/// The open episodes by id, and what each owner holds (kept in step under one lock).
#[derive(Default)]
pub(super) struct Sessions {
    pub(super) by_id: HashMap<String, Entry>,
    pub(super) usage: HashMap<Owner, Usage>,
    /// Bytes accounted to all live episodes.
    pub(super) memory: u64,
    /// The anonymous connections that ended most recently (at most
    /// [`CLOSED_CONNECTIONS_KEPT`]): a call of one of them still working when it ended
    /// (its episodes already closed) cannot insert an episode nobody can reach.
    pub(super) closed_connections: std::collections::BTreeSet<u64>,
}

/// How many ended connections [`Sessions::closed_connections`] remembers (numbers increase,
/// so the oldest are dropped first: a call outliving its connection by that many newer
/// connections is not caught, and its episode waits for the idle eviction).
const CLOSED_CONNECTIONS_KEPT: usize = 65_536;

impl Sessions {
    /// Remove an episode, keeping the usage in step.
    pub(super) fn remove(&mut self, id: &str) -> Option<Entry> {
        let e = self.by_id.remove(id)?;
        self.memory -= e.memory;
        if let Some(u) = self.usage.get_mut(&e.owner) {
            u.episodes -= 1;
            u.memory -= e.memory;
            if u.episodes == 0 {
                self.usage.remove(&e.owner);
            }
        }
        Some(e)
    }

    /// What `owner` holds now.
    pub(super) fn usage_of(&self, owner: &Owner) -> Usage {
        self.usage.get(owner).copied().unwrap_or_default()
    }
}

pub(super) type SessionMap = RwLock<Sessions>;

/// The random part of an episode id, in bytes (128 bits).
const ID_RANDOM_BYTES: usize = 16;

/// `n` bytes from the operating system's random source.
///
/// # Panics
/// When the OS has no random source (the server cannot issue unguessable ids without one).
pub(super) fn os_random<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).expect("the operating system's random source");
    b
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// A fresh server instance id: 8 hex digits from the OS random source.
pub(super) fn new_instance_id() -> String {
    hex(&os_random::<4>())
}

/// The instance id part of a well-formed episode id (`ep-<8 hex>-<32 hex>`), if it is one.
fn instance_of(id: &str) -> Option<&str> {
    let rest = id.strip_prefix("ep-")?;
    let (inst, random) = rest.split_once('-')?;
    let is_hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    (is_hex(inst, 8) && is_hex(random, 2 * ID_RANDOM_BYTES)).then_some(inst)
}

impl EnvironmentService {
    fn map_read(&self) -> std::sync::RwLockReadGuard<'_, Sessions> {
        self.inner
            .sessions
            .read()
            .unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn map_write(&self) -> std::sync::RwLockWriteGuard<'_, Sessions> {
        self.inner
            .sessions
            .write()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Number of open episodes (all clients).
    pub fn open_episodes(&self) -> usize {
        self.map_read().by_id.len()
    }

    /// Close episodes idle for longer than the configured timeout; returns how many. Episodes
    /// busy right now are kept.
    pub fn reap_idle(&self) -> usize {
        let Some(ttl) = self.inner.config.idle_timeout else {
            return 0;
        };
        let mut map = self.map_write();
        let idle: Vec<String> = map
            .by_id
            .iter()
            .filter(|(_, e)| match e.session.try_lock() {
                Ok(s) => s.last_used.elapsed() >= ttl,
                Err(std::sync::TryLockError::WouldBlock) => false,
                Err(std::sync::TryLockError::Poisoned(_)) => true,
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in &idle {
            map.remove(id);
        }
        drop(map);
        self.inner
            .counters
            .evicted
            .fetch_add(idle.len() as u64, Ordering::Relaxed);
        idle.len()
    }

    /// Insert a new session, owned by this handle's client, under a fresh id;
    /// RESOURCE_EXHAUSTED beyond the server's limit, the client's quota or memory.
    pub(super) fn insert(
        &self,
        session: Session,
    ) -> Result<(String, proto::EpisodeState), ServiceError> {
        let id = self.new_episode_id();
        let state = episode_state(&id, &session);
        let mut session = session;
        let memory = session.memory_bytes();
        session.accounted_memory = memory;
        self.check_episode_memory(memory)?;
        let owner = self.principal.owner.clone();
        {
            let mut map = self.map_write();
            if let Owner::Connection(n) = &owner {
                if map.closed_connections.contains(n) {
                    return Err(ServiceError::Cancelled);
                }
            }
            self.check_room(&map, memory)?;
            let u = map.usage.entry(owner.clone()).or_default();
            u.episodes += 1;
            u.memory += memory;
            map.memory += memory;
            map.by_id.insert(
                id.clone(),
                Entry {
                    owner,
                    session: Arc::new(Mutex::new(session)),
                    memory,
                },
            );
        }
        self.inner.counters.created.fetch_add(1, Ordering::Relaxed);
        Ok((id, state))
    }

    /// RESOURCE_EXHAUSTED when one more episode of `memory` bytes would exceed the server's
    /// episode limit or this client's quotas.
    fn check_room(&self, map: &Sessions, memory: u64) -> Result<(), ServiceError> {
        if map.by_id.len() >= self.inner.config.max_episodes {
            return Err(ServiceError::TooManyEpisodes(
                self.inner.config.max_episodes,
            ));
        }
        let q = &self.principal.quotas;
        let u = map.usage_of(&self.principal.owner);
        if u.episodes >= q.max_episodes {
            return Err(ServiceError::Quota {
                what: "open episodes".into(),
                limit: q.max_episodes as u64,
            });
        }
        if u.memory.saturating_add(memory) > q.max_memory_bytes {
            return Err(ServiceError::Memory(format!(
                "this client's episodes would hold {} bytes, over its quota of {} bytes: close some",
                u.memory.saturating_add(memory),
                q.max_memory_bytes
            )));
        }
        Ok(())
    }

    /// RESOURCE_EXHAUSTED (reason "memory") when one episode would hold more than
    /// `max_episode_memory_bytes`.
    pub(super) fn check_episode_memory(&self, memory: u64) -> Result<(), ServiceError> {
        let limit = self.inner.config.max_episode_memory_bytes;
        if memory > limit {
            return Err(ServiceError::Memory(format!(
                "the episode would hold {memory} bytes, over the limit of {limit} bytes per episode (--max-episode-memory-bytes)"
            )));
        }
        Ok(())
    }

    /// After a call changed an episode: account its new size; over the per-episode limit or
    /// the client's memory quota, close it and fail with RESOURCE_EXHAUSTED.
    pub(super) fn account(&self, episode_id: &str, memory: u64) -> Result<(), ServiceError> {
        let mut map = self.map_write();
        let Some(e) = map.by_id.get_mut(episode_id) else {
            return Ok(());
        };
        let old = std::mem::replace(&mut e.memory, memory);
        let owner = e.owner.clone();
        map.memory = map.memory - old + memory;
        let u = map.usage.entry(owner.clone()).or_default();
        u.memory = u.memory - old + memory;
        let over_client = u.memory > self.principal.quotas.max_memory_bytes;
        let err = if memory > self.inner.config.max_episode_memory_bytes {
            self.check_episode_memory(memory).err()
        } else if over_client && memory > old {
            Some(ServiceError::Memory(format!(
                "this client's episodes hold {} bytes, over its quota of {} bytes",
                u.memory, self.principal.quotas.max_memory_bytes
            )))
        } else {
            None
        };
        if let Some(e) = err {
            map.remove(episode_id);
            drop(map);
            self.inner.counters.closed.fetch_add(1, Ordering::Relaxed);
            return Err(e.closing(episode_id));
        }
        Ok(())
    }

    /// RESOURCE_EXHAUSTED when this client could not open one more episode now.
    pub(super) fn check_capacity(&self) -> Result<(), ServiceError> {
        self.check_room(&self.map_read(), 0)
    }

    /// A fresh id: `ep-<instance id>-<128 random bits from the OS, hex>`.
    pub(super) fn new_episode_id(&self) -> String {
        format!(
            "ep-{}-{}",
            self.inner.instance_id,
            hex(&os_random::<ID_RANDOM_BYTES>())
        )
    }

    /// The session of `episode_id` if this handle's client owns it; NOT_FOUND otherwise
    /// (another client's episode is reported exactly as an unknown one), with reason
    /// "episode_lost" for an id of another server instance.
    pub(super) fn session(&self, episode_id: &str) -> Result<Arc<Mutex<Session>>, ServiceError> {
        check_episode_id(episode_id)?;
        let found = self
            .map_read()
            .by_id
            .get(episode_id)
            .filter(|e| e.owner == self.principal.owner)
            .map(|e| e.session.clone());
        found.ok_or_else(|| self.unknown_episode(episode_id))
    }

    /// The error for an id this client has no episode under.
    pub(super) fn unknown_episode(&self, episode_id: &str) -> ServiceError {
        match instance_of(episode_id) {
            Some(inst) if inst != self.inner.instance_id => ServiceError::EpisodeLost {
                episode: episode_id.to_string(),
                instance: inst.to_string(),
                current: self.inner.instance_id.clone(),
            },
            _ => ServiceError::UnknownEpisode(episode_id.to_string()),
        }
    }

    /// Close one episode of this client; `false` if it has none under that id.
    pub(super) fn remove_owned(&self, episode_id: &str) -> bool {
        let mut map = self.map_write();
        let owned = map
            .by_id
            .get(episode_id)
            .is_some_and(|e| e.owner == self.principal.owner);
        owned && map.remove(episode_id).is_some()
    }

    /// Close episodes of this client without counting unknown ones as errors (stream
    /// teardown).
    pub(super) fn close_quietly(&self, ids: impl IntoIterator<Item = String>) -> usize {
        let n = ids.into_iter().filter(|id| self.remove_owned(id)).count();
        self.inner
            .counters
            .closed
            .fetch_add(n as u64, Ordering::Relaxed);
        n
    }

    /// Close every episode of `owner`; returns how many. For a connection, remember that it
    /// ended (see [`Sessions::closed_connections`]).
    pub(super) fn close_owned_by(&self, owner: &Owner) -> usize {
        let mut map = self.map_write();
        if let Owner::Connection(n) = owner {
            map.closed_connections.insert(*n);
            while map.closed_connections.len() > CLOSED_CONNECTIONS_KEPT {
                map.closed_connections.pop_first();
            }
        }
        let ids: Vec<String> = map
            .by_id
            .iter()
            .filter(|(_, e)| &e.owner == owner)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &ids {
            map.remove(id);
        }
        drop(map);
        self.inner
            .counters
            .closed
            .fetch_add(ids.len() as u64, Ordering::Relaxed);
        ids.len()
    }

    /// What this handle's client holds now: (episodes, bytes).
    pub(super) fn client_usage(&self) -> Usage {
        self.map_read().usage_of(&self.principal.owner)
    }

    /// Bytes accounted to all live episodes.
    pub(super) fn episode_memory(&self) -> u64 {
        self.map_read().memory
    }
}

impl EnvironmentService {
    /// Lock an episode's session, first resuming an advance a deadline or cancellation
    /// stopped (`Session::resolving`) within this call's limits.
    ///
    /// # Errors
    /// Those of [`lock`]; a resume stopped again (DEADLINE_EXCEEDED, CANCELLED, UNAVAILABLE:
    /// the episode stays resolving, retry); a resume out of turns (RESOURCE_EXHAUSTED, reason
    /// work_budget: the episode is closed).
    pub(super) fn lock_ready<'a>(
        &self,
        session: &'a Mutex<Session>,
        episode_id: &str,
    ) -> Result<std::sync::MutexGuard<'a, Session>, ServiceError> {
        let mut s = lock(session, episode_id)?;
        if s.resolving {
            match self.advance_bounded(&mut s.episode) {
                Ok(st) => {
                    s.status = st;
                    s.resolving = false;
                    s.settle();
                    let memory = s.memory_bytes();
                    s.accounted_memory = memory;
                    self.account(episode_id, memory)?;
                }
                Err(e @ ServiceError::WorkBudget { .. }) => {
                    drop(s);
                    self.close_quietly([episode_id.to_string()]);
                    return Err(e.closing(episode_id));
                }
                Err(e) => return Err(e),
            }
        }
        Ok(s)
    }
}

pub(super) fn lock<'a>(
    session: &'a Mutex<Session>,
    episode_id: &str,
) -> Result<std::sync::MutexGuard<'a, Session>, ServiceError> {
    session.lock().map_err(|_| {
        ServiceError::Poisoned(format!(
            "episode `{episode_id}` is unusable after an earlier internal error; close it"
        ))
    })
}

pub(super) fn check_episode_id(id: &str) -> Result<(), ServiceError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::ServiceConfig;

    #[test]
    fn episode_ids_are_distinct_and_carry_the_instance() {
        let svc = EnvironmentService::new(ServiceConfig::new("/nonexistent"));
        let a = svc.new_episode_id();
        let b = svc.new_episode_id();
        assert_ne!(a, b);
        assert_eq!(a.len(), 3 + 8 + 1 + 32, "{a}");
        assert_eq!(instance_of(&a), Some(svc.inner.instance_id.as_str()));
        // Another instance's id is "lost", a malformed one just unknown.
        let other = EnvironmentService::new(ServiceConfig::new("/nonexistent"));
        assert!(matches!(
            other.unknown_episode(&a),
            ServiceError::EpisodeLost { .. }
        ));
        assert!(matches!(
            other.unknown_episode("ep-1234"),
            ServiceError::UnknownEpisode(_)
        ));
    }

    /// A Step whose advance its deadline stops keeps its episode mid-resolution; the next
    /// request resumes it, and the episode goes on exactly as a twin stepped without a
    /// deadline.
    #[test]
    fn a_step_stopped_by_its_deadline_resumes_on_the_next_request() {
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../data");
        let svc = EnvironmentService::new(ServiceConfig::new(data));
        let reset = proto::ResetRequest {
            scenario: Some(proto::Scenario {
                source: Some(proto::scenario::Source::Named("skirmish_4v4".into())),
            }),
            seed: 11,
            controlled: Some(proto::Controlled {
                sides: vec!["players".into()],
                combatant_ids: vec![],
            }),
            ..Default::default()
        };
        let a = svc.reset_blocking(&reset).unwrap();
        let b = svc.reset_blocking(&reset).unwrap();
        let step = |st: &proto::EpisodeState| proto::StepRequest {
            episode_id: st.episode_id.clone(),
            decision_id: st.decision.as_ref().unwrap().decision_id,
            action_ids: vec![0],
            ..Default::default()
        };
        let twin = svc.step_blocking(&step(&b)).unwrap();
        // A deadline already passed: the advance stops at its first check.
        let late = svc.for_call(Some(std::time::Instant::now()), None);
        let e = late.step_blocking(&step(&a)).unwrap_err();
        assert!(matches!(e, ServiceError::DeadlineExceeded), "{e:?}");
        {
            let session = svc.session(&a.episode_id).unwrap();
            assert!(session.lock().unwrap().resolving);
        }
        // Still stopped under the late handle; resumed under a normal one.
        assert!(late
            .observe_blocking(&proto::ObserveRequest {
                episode_id: a.episode_id.clone(),
            })
            .is_err());
        let resumed = svc
            .observe_blocking(&proto::ObserveRequest {
                episode_id: a.episode_id.clone(),
            })
            .unwrap();
        assert_eq!(resumed.decision, twin.decision);
        assert_eq!(resumed.legal_actions, twin.legal_actions);
        assert_eq!(resumed.terminated, twin.terminated);
        let steps = |id: &str| {
            svc.describe_blocking(&proto::DescribeRequest {
                episode_id: id.to_string(),
            })
            .unwrap()
            .steps
        };
        assert_eq!(steps(&a.episode_id), steps(&b.episode_id));
    }
}
