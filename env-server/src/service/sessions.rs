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

    pub(super) fn new(
        episode: Episode,
        scenario: String,
        start: Arc<Start>,
        controllers: &[Controller],
        obs: ObsOpts,
        reward: RewardConfig,
    ) -> Session {
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
            created: now,
            last_used: now,
        };
        s.status = s.episode.advance();
        s.settle();
        s
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

pub(super) type SessionMap = RwLock<HashMap<String, Arc<Mutex<Session>>>>;

/// SplitMix64: turns a counter into a random-looking id.
pub(super) fn splitmix64(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

impl EnvironmentService {
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
        let n = before - map.len();
        self.inner
            .counters
            .evicted
            .fetch_add(n as u64, Ordering::Relaxed);
        n
    }

    /// Insert a new session under a fresh id; RESOURCE_EXHAUSTED beyond the limit.
    pub(super) fn insert(
        &self,
        session: Session,
    ) -> Result<(String, proto::EpisodeState), ServiceError> {
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
        self.inner.counters.created.fetch_add(1, Ordering::Relaxed);
        Ok((id, state))
    }

    pub(super) fn check_capacity(&self) -> Result<(), ServiceError> {
        if self.open_episodes() >= self.inner.config.max_episodes {
            return Err(ServiceError::TooManyEpisodes(
                self.inner.config.max_episodes,
            ));
        }
        Ok(())
    }

    pub(super) fn new_episode_id(&self) -> String {
        let n = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        format!("ep-{:016x}", splitmix64(n ^ self.inner.id_salt))
    }

    pub(super) fn session(&self, episode_id: &str) -> Result<Arc<Mutex<Session>>, ServiceError> {
        check_episode_id(episode_id)?;
        self.inner
            .sessions
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(episode_id)
            .cloned()
            .ok_or_else(|| ServiceError::UnknownEpisode(episode_id.to_string()))
    }

    /// Close episodes without counting unknown ones as errors (stream teardown).
    pub(super) fn close_quietly(&self, ids: impl IntoIterator<Item = String>) -> usize {
        let mut map = self
            .inner
            .sessions
            .write()
            .unwrap_or_else(|p| p.into_inner());
        let n = ids
            .into_iter()
            .filter(|id| map.remove(id).is_some())
            .count();
        self.inner
            .counters
            .closed
            .fetch_add(n as u64, Ordering::Relaxed);
        n
    }
}

pub(super) fn lock<'a>(
    session: &'a Mutex<Session>,
    episode_id: &str,
) -> Result<std::sync::MutexGuard<'a, Session>, ServiceError> {
    session.lock().map_err(|_| {
        ServiceError::Internal(format!(
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
    fn episode_ids_are_distinct() {
        let svc = EnvironmentService::new(ServiceConfig::new("/nonexistent"));
        let a = svc.new_episode_id();
        let b = svc.new_episode_id();
        assert_ne!(a, b);
        assert!(a.starts_with("ep-") && a.len() == 19, "{a}");
    }
}
