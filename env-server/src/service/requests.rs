//! The synchronous body of every request on episodes — Reset, Step, Observe, Close,
//! Validate, Snapshot, Restore, Fork, Describe — as public `*_blocking` methods (also used
//! in process by the examples and benchmarks). Each checks the request's shape before
//! touching an episode, then works under that episode's mutex.
use super::convert::{
    action_from_proto, controllers, decision_to_proto, episode_state, explanation_to_proto,
    result_to_proto, reward_config, ObsOpts,
};
use super::sessions::{check_episode_id, Session, Start};
use super::spec::rules_data_version;
use super::{EnvironmentService, ServiceError, MAX_ACTIONS_PER_STEP};
use crate::proto;
use pf1e_engine::actions::{explain, structured};
use pf1e_engine::{Action, CombatantId, Encounter, Episode, Status};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// Bytes an episode's size may drift from its accounted size before Step accounts it again.
const ACCOUNTING_STEP: u64 = 16 << 10;

impl EnvironmentService {
    /// Reset, synchronously: build the episode, advance it to the first controlled decision.
    ///
    /// # Errors
    /// [`ServiceError::Scenario`], [`ServiceError::InvalidArgument`] (unknown controlled side or
    /// combatant), [`ServiceError::TooManyEpisodes`].
    pub fn reset_blocking(
        &self,
        req: &proto::ResetRequest,
    ) -> Result<proto::EpisodeState, ServiceError> {
        let (name, enc) = self.inner.scenarios.resolve(
            super::convert::scenario_source(req.scenario.as_ref()).as_ref(),
            "scenario",
        )?;
        let tactics = super::convert::tactics_texts(&req.tactics);
        let enc = super::convert::with_tactics(enc, &tactics, "tactics")?;
        let (controllers, _) = controllers(&enc, req.controlled.as_ref())?;
        let obs = ObsOpts::parse(req.observation.as_ref())?;
        let reward = reward_config(req.reward.as_ref(), "reward")?;
        self.check_capacity()?;
        let episode = Episode::new(enc, req.seed, &controllers);
        let start = Arc::new(Start {
            scenario: super::convert::scenario_source(req.scenario.as_ref()),
            seed: Some(req.seed),
            tactics,
        });
        let session = Session::new(
            episode,
            name.clone(),
            start,
            &controllers,
            obs,
            reward,
            self,
        )?;
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
        let input = step_input(req)?;
        let n = req
            .actions
            .len()
            .max(req.action_ids.len())
            .max(req.action_labels.len());
        if n > MAX_ACTIONS_PER_STEP {
            return Err(ServiceError::invalid(
                input,
                format!("at most {MAX_ACTIONS_PER_STEP} actions per step"),
            ));
        }
        let session = self.session(&req.episode_id)?;
        let mut s = self.lock_ready(&session, &req.episode_id)?;
        s.last_used = Instant::now();
        let (current, actor) = match &s.status {
            Status::Terminal(_) => return Err(ServiceError::EpisodeOver(req.episode_id.clone())),
            Status::Decision(d) => (d.decision_id, d.actor),
        };
        let enc = s.episode.encounter().clone();
        // Validate the shape of every action before checking the decision id, so a malformed
        // request is reported as such whatever the episode's state.
        let actions: Vec<Action> = match input {
            "actions" => req
                .actions
                .iter()
                .enumerate()
                .map(|(i, a)| action_from_proto(a, &format!("actions[{i}]"), &enc))
                .collect::<Result<Vec<_>, _>>()?,
            "action_ids" => {
                let size = s.episode.action_space_size();
                req.action_ids
                    .iter()
                    .enumerate()
                    .map(|(i, &id)| {
                        let field = format!("action_ids[{i}]");
                        if id >= size {
                            return Err(ServiceError::invalid(
                                field,
                                explain::ExplainError::IdOutOfRange { id, size }.to_string(),
                            ));
                        }
                        s.episode.action_from_id(id).ok_or_else(|| {
                            ServiceError::invalid(
                                field,
                                format!("action id {id} does not decode to an action"),
                            )
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?
            }
            "action_labels" => req
                .action_labels
                .iter()
                .enumerate()
                .map(|(i, l)| action_of_label(&s.episode, l, &format!("action_labels[{i}]")))
                .collect::<Result<Vec<_>, _>>()?,
            _ => {
                let actions = actions_of_json(&enc, actor, &req.actions_json, "actions_json")?;
                if actions.len() > MAX_ACTIONS_PER_STEP {
                    return Err(ServiceError::invalid(
                        "actions_json",
                        format!(
                            "{} actions: at most {MAX_ACTIONS_PER_STEP} actions per step",
                            actions.len()
                        ),
                    ));
                }
                actions
            }
        };
        let fields: Vec<String> = (0..actions.len())
            .map(|i| format!("{input}[{i}]"))
            .collect();
        if req.decision_id != current {
            return Err(ServiceError::StaleDecision {
                episode: req.episode_id.clone(),
                given: req.decision_id,
                current,
            });
        }
        let results = s.episode.submit(current, &actions)?;
        s.last_pending = u32::try_from(actions.len() - results.len()).unwrap_or(u32::MAX);
        s.last_late = s.late_results();
        if s.last_pending > 0 {
            s.open_steps.push((current, fields.clone(), results.len()));
        }
        if s.obs.text.is_some() {
            s.last_engine_results.clone_from(&results);
        }
        let results = results
            .into_iter()
            .enumerate()
            .map(|(i, r)| result_to_proto(&r, fields.get(i).cloned().unwrap_or_default()))
            .collect();
        s.last_results = results;
        s.steps += 1;
        s.status = match self.advance_bounded(&mut s.episode) {
            Ok(st) => st,
            // Out of turns: a runaway; the episode is closed.
            Err(e @ ServiceError::WorkBudget { .. }) => {
                drop(s);
                self.close_quietly([req.episode_id.clone()]);
                return Err(e.closing(&req.episode_id));
            }
            // The deadline, a cancel or the shutdown stopped it mid-resolution: the step is
            // applied, and the next request on the episode (Observe) resumes the advance.
            Err(e) => {
                s.resolving = true;
                self.inner.counters.steps.fetch_add(1, Ordering::Relaxed);
                return Err(e);
            }
        };
        s.settle();
        self.inner.counters.steps.fetch_add(1, Ordering::Relaxed);
        // Account the episode's growth (its log and history) in steps of 16 KiB, so most
        // steps do not take the map's lock.
        let memory = s.memory_bytes();
        if memory.abs_diff(s.accounted_memory) >= ACCOUNTING_STEP {
            s.accounted_memory = memory;
            self.account(&req.episode_id, memory)?;
        }
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
        let mut s = self.lock_ready(&session, &req.episode_id)?;
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
        match self.remove_owned(&req.episode_id) {
            true => {
                self.inner.counters.closed.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(episode = %req.episode_id, "close");
                Ok(proto::CloseResponse {})
            }
            false => Err(self.unknown_episode(&req.episode_id)),
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
        let mut s = self.lock_ready(&session, &req.episode_id)?;
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
                        explain::ExplainError::IdOutOfRange { id, size }.to_string(),
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

    /// Explain, synchronously: for an action id (legal or masked out), an exact label, a
    /// structured JSON action, a typed action, or every id of the action space (`all`),
    /// whether it is legal at the current decision and, if not, the refusal, the reason in
    /// words and the field at fault (`actions::explain`: the check `validate` applies).
    ///
    /// # Errors
    /// [`ServiceError::InvalidArgument`] (none or several of the inputs; an id out of range;
    /// a label that no id of the action space has; a JSON action that does not resolve,
    /// naming its field: `action_json.target`), [`ServiceError::UnknownEpisode`],
    /// [`ServiceError::EpisodeOver`] and [`ServiceError::StaleDecision`]
    /// (FAILED_PRECONDITION).
    pub fn explain_blocking(
        &self,
        req: &proto::ExplainRequest,
    ) -> Result<proto::ExplainResponse, ServiceError> {
        let given: Vec<&'static str> = [
            (req.action_id.is_some(), "action_id"),
            (!req.label.is_empty(), "label"),
            (!req.action_json.trim().is_empty(), "action_json"),
            (req.action.is_some(), "action"),
            (req.all, "all"),
        ]
        .into_iter()
        .filter_map(|(g, name)| g.then_some(name))
        .collect();
        let input = match given.as_slice() {
            [one] => *one,
            [] => {
                return Err(ServiceError::invalid(
                    "action_id",
                    "one of action_id, label, action_json, action or all is required",
                ))
            }
            [first, second, ..] => {
                return Err(ServiceError::invalid(
                    *second,
                    format!(
                        "give only one of action_id, label, action_json, action, all (got {first} and {second})"
                    ),
                ))
            }
        };
        let session = self.session(&req.episode_id)?;
        let mut s = self.lock_ready(&session, &req.episode_id)?;
        s.last_used = Instant::now();
        let (current, actor) = match &s.status {
            Status::Terminal(_) => return Err(ServiceError::EpisodeOver(req.episode_id.clone())),
            Status::Decision(d) => (d.decision_id, d.actor),
        };
        let ep = &s.episode;
        let size = ep.action_space_size();
        // The inputs are checked before the decision id, as Step and Validate do.
        let action = match input {
            "action_id" => {
                let id = req.action_id.unwrap_or_default();
                if id >= size {
                    return Err(ServiceError::invalid(
                        "action_id",
                        explain::ExplainError::IdOutOfRange { id, size }.to_string(),
                    ));
                }
                ep.action_from_id(id)
            }
            "label" => Some(action_of_label(ep, &req.label, "label")?),
            "action_json" => {
                let mut v =
                    actions_of_json(ep.encounter(), actor, &req.action_json, "action_json")?;
                if v.len() != 1 {
                    return Err(ServiceError::invalid(
                        "action_json",
                        format!("{} actions: Explain takes one action", v.len()),
                    ));
                }
                v.pop()
            }
            "action" => match &req.action {
                Some(a) => Some(action_from_proto(a, "action", ep.encounter())?),
                None => None,
            },
            _ => None,
        };
        if req.decision_id != 0 && req.decision_id != current {
            return Err(ServiceError::StaleDecision {
                episode: req.episode_id.clone(),
                given: req.decision_id,
                current,
            });
        }
        let internal = |e: explain::ExplainError| ServiceError::Internal(e.to_string());
        let explanations = match action {
            Some(a) => vec![explain::explain(ep, &a).map_err(internal)?],
            None if input == "all" => explain::explain_all(ep).map_err(internal)?,
            None => return Err(ServiceError::invalid(input, "does not decode to an action")),
        };
        Ok(proto::ExplainResponse {
            explanations: explanations.iter().map(explanation_to_proto).collect(),
        })
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
        let mut s = self.lock_ready(&session, &req.episode_id)?;
        s.last_used = Instant::now();
        let part = super::envelope::SessionPart {
            steps: s.steps,
            open_steps: s.open_steps.clone(),
            seed: s.start.seed,
            reward: serde_json::to_value(&s.reward)
                .map_err(|e| ServiceError::Internal(format!("reward serialization: {e}")))?,
            viewer: s.viewer.map(|v| v.0),
        };
        let snapshot =
            super::envelope::seal(&self.inner.snapshot_key, &part, &s.episode.snapshot())?;
        Ok(proto::SnapshotResponse {
            snapshot,
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
        let (name, enc) = self.inner.scenarios.resolve(
            super::convert::scenario_source(req.scenario.as_ref()).as_ref(),
            "scenario",
        )?;
        let tactics = super::convert::tactics_texts(&req.tactics);
        let enc = super::convert::with_tactics(enc, &tactics, "tactics")?;
        let obs = ObsOpts::parse(req.observation.as_ref())?;
        let reward = reward_config(req.reward.as_ref(), "reward")?;
        if req.snapshot.is_empty() {
            return Err(ServiceError::invalid("snapshot", "is required"));
        }
        let limit = self.inner.config.max_snapshot_bytes;
        if req.snapshot.len() > limit {
            return Err(ServiceError::invalid(
                "snapshot",
                format!(
                    "{} bytes, over the limit of {limit} bytes (--max-snapshot-bytes)",
                    req.snapshot.len()
                ),
            ));
        }
        let (part, engine_bytes) = super::envelope::open(&self.inner.snapshot_key, &req.snapshot)?;
        // Restore replays the snapshot's history (client data) to check it: under this call's
        // work budget (one Reset's worth of turns per history entry), deadline and cancel.
        let stop = || self.stop_reason().is_some();
        let episode = Episode::restore_within(
            enc.clone(),
            engine_bytes,
            &|entries| self.replay_turns(entries),
            Some(&stop),
        )
        .map_err(|e| match e {
            pf1e_engine::episode::SnapshotError::Interrupted(i) => self.interrupted(i),
            e => ServiceError::invalid("snapshot", e.to_string()),
        })?;
        // The server's episodes roll seeded dice; a script (a test's, or a client's choice of
        // rolls) is refused.
        if !episode.seeded_dice() {
            return Err(ServiceError::invalid(
                "snapshot",
                "its dice are scripted or recording: the server restores seeded episodes only",
            ));
        }
        // Who plays is in the snapshot, as the restored episode has it.
        let stored = episode.controllers().to_vec();
        let ctl = match req.controlled.as_ref() {
            Some(c) => {
                let (asked, _) = controllers(&enc, Some(c))?;
                if stored != asked {
                    return Err(ServiceError::invalid(
                        "controlled",
                        "differs from the controlled set stored in the snapshot",
                    ));
                }
                asked
            }
            None => stored,
        };
        self.check_capacity()?;
        // The snapshot holds the dice at the start but not the seed a transcript names: not
        // exportable for replay.
        // The snapshot carries the seed of an episode that started from a Reset: the restored
        // one exports transcripts as the original would.
        let start = Arc::new(Start {
            scenario: super::convert::scenario_source(req.scenario.as_ref()),
            seed: part.seed,
            tactics,
        });
        let n = episode.encounter().combatants.len();
        if part.viewer.is_some_and(|v| usize::from(v) >= n)
            || part.open_steps.len() > episode.history().len()
        {
            return Err(ServiceError::invalid(
                "snapshot",
                "session state out of range (viewer or interrupted steps)",
            ));
        }
        let mut session = Session::new(episode, name, start, &ctl, obs, reward, self)?;
        // The session as it was: its steps, interrupted steps (with their request fields),
        // last viewer, and reward bookkeeping — the latter only under the same reward options
        // and sides (other options start their baselines here, as a new session would).
        session.steps = part.steps;
        session.open_steps = part.open_steps;
        if let Some(v) = part.viewer {
            session.viewer = Some(CombatantId(v));
        }
        let stored: pf1e_engine::reward::RewardTracker = serde_json::from_value(part.reward)
            .map_err(|e| {
                ServiceError::invalid("snapshot", format!("malformed reward bookkeeping: {e}"))
            })?;
        stored
            .validate(&session.episode)
            .map_err(|e| ServiceError::invalid("snapshot", e.to_string()))?;
        if stored.config() == session.reward.config() && stored.sides() == session.reward.sides() {
            session.reward = stored;
        }
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
            let mut s = self.lock_ready(&session, &req.episode_id)?;
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
        let s = self.lock_ready(&session, &req.episode_id)?;
        let mut d = proto::EpisodeDescription {
            episode_id: req.episode_id.clone(),
            scenario: s.scenario.clone(),
            round: s.episode.round(),
            age_seconds: s.created.elapsed().as_secs_f64(),
            idle_seconds: s.last_used.elapsed().as_secs_f64(),
            steps: s.steps,
            controlled_sides: s.controlled_sides().to_vec(),
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
}

/// Which input of a StepRequest carries its actions: exactly one of `actions`, `action_ids`,
/// `action_labels`, `actions_json` (a JSON text of blanks only counts as absent).
///
/// # Errors
/// INVALID_ARGUMENT naming `actions` when none is given, the second one when several are.
fn step_input(req: &proto::StepRequest) -> Result<&'static str, ServiceError> {
    let given: Vec<&'static str> = [
        (!req.actions.is_empty(), "actions"),
        (!req.action_ids.is_empty(), "action_ids"),
        (!req.action_labels.is_empty(), "action_labels"),
        (!req.actions_json.trim().is_empty(), "actions_json"),
    ]
    .into_iter()
    .filter_map(|(g, name)| g.then_some(name))
    .collect();
    match given.as_slice() {
        [one] => Ok(one),
        [] => Err(ServiceError::invalid(
            "actions",
            "one of actions, action_ids, action_labels or actions_json must be given",
        )),
        [first, second, ..] => Err(ServiceError::invalid(
            *second,
            format!(
                "give only one of actions, action_ids, action_labels, actions_json (got {first} and {second})"
            ),
        )),
    }
}

/// The action of an exact label at the pending decision ([`structured::resolve_label`]).
///
/// # Errors
/// INVALID_ARGUMENT naming `field` with the legal labels (the first 40) when none matches.
fn action_of_label(ep: &Episode, label: &str, field: &str) -> Result<Action, ServiceError> {
    structured::resolve_label(ep, label).ok_or_else(|| {
        let legal = structured::legal_labels(ep);
        let mut list = legal
            .iter()
            .take(40)
            .map(|l| format!("{l:?}"))
            .collect::<Vec<_>>()
            .join(", ");
        if legal.len() > 40 {
            list.push_str(&format!(", … ({} legal)", legal.len()));
        }
        ServiceError::invalid(
            field,
            format!(
                "no action of the action space is labelled {label:?}; legal labels now: {list}"
            ),
        )
    })
}

/// The field of a structured-action error: `field` joined to the engine's path
/// (`actions_json[1].target`, `actions_json.plan[2].kind`, `actions_json`).
fn json_field(field: &str, path: &str) -> String {
    if path.is_empty() {
        field.to_string()
    } else if path.starts_with('[') {
        format!("{field}{path}")
    } else {
        format!("{field}.{path}")
    }
}

/// The actions of a structured JSON text (one action, a list, or a plan) of `actor`.
///
/// # Errors
/// INVALID_ARGUMENT naming the field path under `field` and the reason.
fn actions_of_json(
    enc: &Encounter,
    actor: CombatantId,
    text: &str,
    field: &str,
) -> Result<Vec<Action>, ServiceError> {
    structured::parse_actions(enc, actor, text)
        .map_err(|e| ServiceError::invalid(json_field(field, &e.field), e.reason))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::ServiceConfig;

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
