//! ExportTranscript and ReplayTranscript: an episode's input history as one JSON document
//! (Showdown's `inputLog`, OpenSpiel's `History()`: seed + input log replays the game), and a
//! new live episode rebuilt from such a document with [`Episode::replay`].
//!
//! The document ([`TranscriptDoc`], compact JSON, fields in this order):
//! - `format` (`"pf1e-transcript"`), `version` ([`TRANSCRIPT_VERSION`]);
//! - `engine_version`, `rng_version`, `rules_data_version`: the episode's (a document replays
//!   only on the engine and scenario data that played it; the server checks all three);
//! - `scenario`: `{"named": "sample_arena"}` (a bundled scenario of the server, never a path)
//!   or `{"inline": {map_yaml, sides: [{name, combatants: [{json, base_id}]}], round_cap,
//!   simple_monster_death}}` (the Reset request's inline scenario, as given);
//! - `seed`: the episode's seed (its dice are `DiceSource::seeded(seed)`; a restored episode
//!   has its original's, from the signed snapshot), `null` when unknown (not replayable);
//! - `controlled`: the ids of the externally controlled combatants, list order;
//! - `history`: the engine's [`HistoryEntry`]s (decision id, actor index, decision kind with
//!   its offer, the submitted actions, their results), in order;
//! - `transcript`: the transcript lines (`round`, `actor`, `message`);
//! - `outcome`: the engine's outcome, `null` while the episode goes on;
//! - `open_steps`: the turn lists a reaction interrupted whose remaining results are still to
//!   come, `{decision_id, by_id, input}` (`by_id`: the Step sent `action_ids`, so its late
//!   results name `action_ids[i]`, else `actions[i]`; `input`, absent for those two: the
//!   Step sent `action_labels` or `actions_json`, the name its late results use) — server
//!   bookkeeping, not rules input;
//! - `final_state`: FNV-1a 64 (16 hex digits) of the episode's snapshot bytes at the export.
//!
//! A replay must reproduce the whole document: every decision of the history arises as
//! recorded, every entry's results, the transcript, the outcome and the final state's
//! fingerprint are the replay's, else the document is refused (INVALID_ARGUMENT naming the
//! first field that differs, `transcript_json.history[12].results`).
use super::convert::{
    action_from_proto, decision_kind_to_proto, decision_to_proto, result_to_proto, reward_config,
    ObsOpts,
};
use super::sessions::{Session, Start};
use super::spec::{fnv1a64_hex, rules_data_version};
use super::{EnvironmentService, ServiceError, MAX_ACTIONS_PER_STEP};
use crate::proto;
use crate::scenarios::{ScenarioSource, ScenarioStore};
use pf1e_engine::episode::LogLine;
use pf1e_engine::{Controller, DiceSource, Episode, HistoryEntry, Outcome, ReplayStop, Status};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Instant;

/// `format` of a transcript document.
pub const TRANSCRIPT_FORMAT: &str = "pf1e-transcript";
/// `version` of the transcript document format this server writes and reads.
pub const TRANSCRIPT_VERSION: u32 = 1;
/// Largest transcript document ReplayTranscript accepts, in bytes (a longer export says
/// `replayable: false`).
pub const MAX_TRANSCRIPT_BYTES: usize = 8 << 20;

/// The request field holding the document.
const FIELD: &str = "transcript_json";

/// A transcript document (see the module documentation).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TranscriptDoc {
    format: String,
    version: u32,
    engine_version: String,
    rng_version: String,
    rules_data_version: String,
    /// The Reset request's scenario, as given.
    scenario: ScenarioSource,
    /// The Reset request's tactics (side → spec text), absent when none.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    tactics: std::collections::BTreeMap<String, String>,
    seed: Option<u64>,
    controlled: Vec<String>,
    history: Vec<HistoryEntry>,
    transcript: Vec<LogLine>,
    outcome: Option<Outcome>,
    #[serde(default)]
    open_steps: Vec<DocOpenStep>,
    final_state: String,
}

/// A Step whose list a reaction interrupted (see the module documentation).
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DocOpenStep {
    decision_id: u64,
    by_id: bool,
    /// `action_labels` or `actions_json` when the Step sent those (absent otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    input: Option<String>,
}

/// The StepRequest inputs a late result may be named after.
const STEP_INPUTS: [&str; 4] = ["actions", "action_ids", "action_labels", "actions_json"];

/// The first few fields, read before the whole document so that another format or engine is
/// named as such rather than as a parse error deep inside.
#[derive(Deserialize)]
struct DocHeader {
    format: Option<String>,
    version: Option<u32>,
    engine_version: Option<String>,
    rng_version: Option<String>,
}

fn invalid(field: impl std::fmt::Display, reason: impl Into<String>) -> ServiceError {
    ServiceError::invalid(format!("{FIELD}.{field}"), reason)
}

/// The document of a session's episode.
fn document(s: &Session) -> Result<TranscriptDoc, ServiceError> {
    let ep = &s.episode;
    let enc = ep.encounter();
    let scenario = s
        .start
        .scenario
        .clone()
        .ok_or_else(|| ServiceError::Internal("a session without its scenario".into()))?;
    Ok(TranscriptDoc {
        format: TRANSCRIPT_FORMAT.to_string(),
        version: TRANSCRIPT_VERSION,
        engine_version: pf1e_engine::VERSION.to_string(),
        rng_version: pf1e_engine::dice::RNG_VERSION.to_string(),
        rules_data_version: rules_data_version(enc),
        scenario,
        tactics: s.start.tactics.clone(),
        seed: s.start.seed,
        controlled: s
            .controlled
            .iter()
            .map(|c| enc.combatants[usize::from(c.0)].id.clone())
            .collect(),
        history: ep.history().to_vec(),
        transcript: ep.transcript().to_vec(),
        outcome: ep.outcome().cloned(),
        open_steps: s
            .open_steps
            .iter()
            .map(|(decision_id, fields, _)| {
                let input = fields
                    .first()
                    .and_then(|f| f.split('[').next())
                    .unwrap_or("actions");
                DocOpenStep {
                    decision_id: *decision_id,
                    by_id: input == "action_ids",
                    input: matches!(input, "action_labels" | "actions_json")
                        .then(|| input.to_string()),
                }
            })
            .collect(),
        final_state: fnv1a64_hex(&ep.snapshot()),
    })
}

/// One history entry as proto.
fn entry_to_proto(ep: &Episode, e: &HistoryEntry) -> proto::HistoryEntry {
    let enc = ep.encounter();
    let (kind, offers) = decision_kind_to_proto(enc, &e.kind);
    proto::HistoryEntry {
        decision_id: e.decision_id,
        kind: kind as i32,
        attack_of_opportunity: offers.attack_of_opportunity,
        readied_trigger: offers.readied_trigger,
        step_up: offers.step_up,
        actor_index: u32::from(e.actor.0),
        actor_id: enc
            .combatants
            .get(usize::from(e.actor.0))
            .map(|p| p.id.clone())
            .unwrap_or_default(),
        actions: e.actions.iter().map(proto::Action::from).collect(),
        results: e
            .results
            .iter()
            .enumerate()
            .map(|(i, r)| result_to_proto(r, format!("actions[{i}]")))
            .collect(),
    }
}

impl EnvironmentService {
    /// ExportTranscript, synchronously: the episode's start, history, transcript and outcome,
    /// typed and as one JSON document.
    ///
    /// # Errors
    /// [`ServiceError::UnknownEpisode`], [`ServiceError::TooLarge`] (a reply over
    /// `--max-message-bytes`), [`ServiceError::Internal`] (poisoned episode).
    pub fn export_transcript_blocking(
        &self,
        req: &proto::ExportTranscriptRequest,
    ) -> Result<proto::Transcript, ServiceError> {
        let session = self.session(&req.episode_id)?;
        let mut s = self.lock_ready(&session, &req.episode_id)?;
        s.last_used = Instant::now();
        let doc = document(&s)?;
        let json = serde_json::to_string(&doc)
            .map_err(|e| ServiceError::Internal(format!("transcript serialization: {e}")))?;
        let ep = &s.episode;
        let enc = ep.encounter();
        let mut t = proto::Transcript {
            episode_id: req.episode_id.clone(),
            scenario: s.scenario.clone(),
            seed: s.start.seed,
            replayable: s.start.seed.is_some() && json.len() <= MAX_TRANSCRIPT_BYTES,
            controlled: s
                .controlled
                .iter()
                .map(|c| {
                    let i = usize::from(c.0);
                    super::spec::combatant_info(i, &enc.combatants[i])
                })
                .collect(),
            engine_version: doc.engine_version,
            rng_version: doc.rng_version,
            rules_data_version: doc.rules_data_version,
            round: ep.round(),
            transcript_json: json,
            ..Default::default()
        };
        match &s.status {
            Status::Decision(d) => t.decision = Some(decision_to_proto(ep, d)),
            Status::Terminal(o) => t.outcome = Some(proto::Outcome::from(o)),
        }
        if !req.json_only {
            t.entries = ep.history().iter().map(|e| entry_to_proto(ep, e)).collect();
            t.lines = ep
                .transcript()
                .iter()
                .map(|l| proto::TranscriptLine {
                    round: l.round,
                    actor: l.actor.clone().unwrap_or_default(),
                    message: l.message.clone(),
                })
                .collect();
        }
        let size = prost::Message::encoded_len(&t);
        let limit = self.inner.config.max_message_bytes;
        if size > limit {
            return Err(ServiceError::TooLarge {
                what: "the transcript would take".into(),
                size,
                limit,
                hint: if req.json_only {
                    String::new()
                } else {
                    "; ask for json_only (the document alone, about half)".into()
                },
            });
        }
        Ok(t)
    }

    /// ReplayTranscript, synchronously: a new live episode rebuilt from an ExportTranscript
    /// document, checked against it.
    ///
    /// # Errors
    /// [`ServiceError::InvalidArgument`] naming the document's field (malformed, another
    /// format or engine, changed scenario data, unknown seed, a history that does not replay
    /// or a replay that differs from the document), [`ServiceError::Scenario`] (the
    /// document's scenario: unknown bundled name → NOT_FOUND, bad inline content),
    /// [`ServiceError::TooManyEpisodes`].
    pub fn replay_transcript_blocking(
        &self,
        req: &proto::ReplayTranscriptRequest,
    ) -> Result<(String, proto::EpisodeState), ServiceError> {
        let obs = ObsOpts::parse(req.observation.as_ref())?;
        let reward = reward_config(req.reward.as_ref(), "reward")?;
        let Checked {
            doc,
            name,
            encounter: enc,
            seed,
            controllers: ctl,
        } = check_document(&self.inner.scenarios, &req.transcript_json)?;
        let scenario = doc.scenario.clone();
        let open_steps = open_steps(&doc)?;
        self.check_capacity()?;
        let dice = || DiceSource::seeded(seed);
        // Client data, unsigned: the replay runs under this call's work budget (one Reset's
        // worth of turns per history entry), deadline and cancellation.
        let turns = self.replay_turns(doc.history.len());
        let replayed = self.within(turns, |budget| {
            Episode::replay_within(enc.clone(), dice(), &ctl, &doc.history, budget)
        })?;
        let episode = match replayed {
            Ok(ep) => ep,
            Err(ReplayStop::Interrupted(i)) => return Err(self.interrupted(i)),
            Err(ReplayStop::Mismatch(e)) => {
                // Name the first entry that went wrong: an earlier entry whose results
                // already differ (a changed action) rather than the decision that no longer
                // arises.
                let earlier = self
                    .within(turns, |budget| {
                        Episode::replay_within(
                            enc.clone(),
                            dice(),
                            &ctl,
                            &doc.history[..e.index],
                            budget,
                        )
                    })?
                    .ok()
                    .and_then(|ep| {
                        ep.history().iter().zip(&doc.history).position(|(r, d)| {
                            let k = r.results.len().min(d.results.len());
                            r.results[..k] != d.results[..k]
                        })
                    });
                return Err(match earlier {
                    Some(j) => invalid(
                        format_args!("history[{j}].results"),
                        "differ from the replay",
                    ),
                    None => invalid(format_args!("history[{}]", e.index), e.what),
                });
            }
        };
        check_reproduced(&episode, &doc)?;
        let start = Arc::new(Start {
            scenario: Some(scenario),
            seed: Some(seed),
            tactics: doc.tactics.clone(),
        });
        let mut session = Session::new(episode, name, start, &ctl, obs, reward, self)?;
        // What the original session knew: its successful steps (one history entry each) and
        // the turn lists a reaction interrupted, whose later results come as late results.
        session.steps = doc.history.len() as u64;
        session.open_steps = open_steps;
        let (id, state) = self.insert(session)?;
        tracing::debug!(episode = %id, entries = doc.history.len(), "replay transcript");
        Ok((id, state))
    }
}

/// A transcript document that passed every check short of replaying it.
struct Checked {
    doc: TranscriptDoc,
    /// The scenario's name (`inline` for an inline one).
    name: String,
    encounter: Arc<pf1e_engine::Encounter>,
    seed: u64,
    controllers: Vec<Controller>,
}

/// Parse and check a transcript document (format, versions, scenario on `scenarios`, rules
/// data, seed, controlled combatants, the shape of every history entry), before any engine
/// work.
fn check_document(scenarios: &ScenarioStore, bytes: &[u8]) -> Result<Checked, ServiceError> {
    if bytes.is_empty() {
        return Err(ServiceError::invalid(FIELD, "is required"));
    }
    if bytes.len() > MAX_TRANSCRIPT_BYTES {
        return Err(ServiceError::invalid(
            FIELD,
            format!(
                "{} bytes, longer than the {MAX_TRANSCRIPT_BYTES} bytes accepted",
                bytes.len()
            ),
        ));
    }
    let header: DocHeader = serde_json::from_slice(bytes)
        .map_err(|e| ServiceError::invalid(FIELD, format!("not a transcript document: {e}")))?;
    if header.format.as_deref() != Some(TRANSCRIPT_FORMAT) {
        return Err(invalid(
            "format",
            format!("{:?}, expected {TRANSCRIPT_FORMAT:?}", header.format),
        ));
    }
    if header.version != Some(TRANSCRIPT_VERSION) {
        return Err(invalid(
            "version",
            format!(
                "{:?}: this server reads version {TRANSCRIPT_VERSION}",
                header.version
            ),
        ));
    }
    if header.engine_version.as_deref() != Some(pf1e_engine::VERSION) {
        return Err(invalid(
                "engine_version",
                format!(
                    "{:?}: this server runs engine {} (a transcript replays only on the engine that played it)",
                    header.engine_version,
                    pf1e_engine::VERSION
                ),
            ));
    }
    if header.rng_version.as_deref() != Some(pf1e_engine::dice::RNG_VERSION) {
        return Err(invalid(
            "rng_version",
            format!(
                "{:?}: this server rolls with {}",
                header.rng_version,
                pf1e_engine::dice::RNG_VERSION
            ),
        ));
    }
    let doc: TranscriptDoc = serde_json::from_slice(bytes)
        .map_err(|e| ServiceError::invalid(FIELD, format!("not a transcript document: {e}")))?;
    let scenario = doc.scenario.clone();
    let (name, enc) = scenarios.resolve(Some(&scenario), &format!("{FIELD}.scenario"))?;
    let enc = super::convert::with_tactics(enc, &doc.tactics, &format!("{FIELD}.tactics"))?;
    let version = rules_data_version(&enc);
    if doc.rules_data_version != version {
        return Err(invalid(
            "rules_data_version",
            format!(
                "{}: the scenario's data on this server is {version} (changed since the export)",
                doc.rules_data_version
            ),
        ));
    }
    let Some(seed) = doc.seed else {
        return Err(invalid(
                "seed",
                "is required (an episode restored from a snapshot has no known start: it cannot be replayed)",
            ));
    };
    let n = enc.combatants.len();
    let mut ctl = vec![Controller::DefaultPolicy; n];
    for (i, id) in doc.controlled.iter().enumerate() {
        let Some(k) = enc.combatants.iter().position(|p| p.id == *id) else {
            let ids: Vec<&str> = enc.combatants.iter().map(|p| p.id.as_str()).collect();
            return Err(invalid(
                format_args!("controlled[{i}]"),
                format!("unknown combatant {id:?} (ids: {})", ids.join(", ")),
            ));
        };
        if ctl[k] == Controller::External {
            return Err(invalid(
                format_args!("controlled[{i}]"),
                format!("combatant {id:?} listed twice"),
            ));
        }
        ctl[k] = Controller::External;
    }
    // The shape of every entry, as a Step would check it, before any engine work.
    for (i, e) in doc.history.iter().enumerate() {
        if usize::from(e.actor.0) >= n {
            return Err(invalid(
                format_args!("history[{i}].actor"),
                format!(
                    "no combatant with index {} (the encounter has {n})",
                    e.actor.0
                ),
            ));
        }
        if e.actions.is_empty() || e.actions.len() > MAX_ACTIONS_PER_STEP {
            return Err(invalid(
                format_args!("history[{i}].actions"),
                format!("must hold 1 to {MAX_ACTIONS_PER_STEP} actions"),
            ));
        }
        if e.results.len() > e.actions.len() {
            return Err(invalid(
                format_args!("history[{i}].results"),
                "more results than actions",
            ));
        }
        for (j, a) in e.actions.iter().enumerate() {
            let field = format!("{FIELD}.history[{i}].actions[{j}]");
            let back = action_from_proto(&proto::Action::from(a), &field, &enc)?;
            if back != *a {
                return Err(ServiceError::invalid(
                    field,
                    "not an action a Step could submit",
                ));
            }
        }
    }
    Ok(Checked {
        doc,
        name,
        encounter: enc,
        seed,
        controllers: ctl,
    })
}

/// An ExportTranscript document read offline (by `pf1e-sim replay`), checked as
/// ReplayTranscript checks it short of replaying it.
#[derive(Debug)]
pub struct OfflineTranscript {
    /// The scenario's name (`inline` for an inline scenario).
    pub scenario: String,
    /// The encounter, tactics attached.
    pub encounter: Arc<pf1e_engine::Encounter>,
    pub seed: u64,
    /// One per combatant: `External` for the document's `controlled`.
    pub controllers: Vec<Controller>,
    pub history: Vec<HistoryEntry>,
    /// The document's transcript lines and outcome (a replay must reproduce them).
    pub transcript: Vec<LogLine>,
    pub outcome: Option<Outcome>,
}

/// Read an ExportTranscript document offline: the checks of ReplayTranscript (format,
/// versions, scenario resolved on `scenarios`, rules data, seed, controlled ids, history
/// shapes) without a server.
///
/// # Errors
/// [`ServiceError::InvalidArgument`] naming the document's field (`transcript_json.seed`),
/// [`ServiceError::Scenario`] for the document's scenario.
pub fn read_offline(
    scenarios: &ScenarioStore,
    bytes: &[u8],
) -> Result<OfflineTranscript, ServiceError> {
    let c = check_document(scenarios, bytes)?;
    Ok(OfflineTranscript {
        scenario: c.name,
        encounter: c.encounter,
        seed: c.seed,
        controllers: c.controllers,
        history: c.doc.history,
        transcript: c.doc.transcript,
        outcome: c.doc.outcome,
    })
}

/// The session's interrupted steps (decision id, request fields, results reported so far):
/// every turn entry with fewer results than actions, its fields named as `open_steps` says
/// (`actions[i]` when it does not list it).
///
/// # Errors
/// INVALID_ARGUMENT for an `open_steps` item that is not such an entry, or listed twice.
#[allow(clippy::type_complexity)]
fn open_steps(doc: &TranscriptDoc) -> Result<Vec<(u64, Vec<String>, usize)>, ServiceError> {
    let open = |e: &HistoryEntry| !e.kind.is_reaction() && e.results.len() < e.actions.len();
    for (i, o) in doc.open_steps.iter().enumerate() {
        let listed = doc
            .history
            .iter()
            .any(|e| e.decision_id == o.decision_id && open(e));
        let twice = doc.open_steps[..i]
            .iter()
            .any(|x| x.decision_id == o.decision_id);
        if let Some(x) = o.input.as_deref() {
            if !matches!(x, "action_labels" | "actions_json") || o.by_id {
                return Err(invalid(
                    format_args!("open_steps[{i}].input"),
                    format!(
                        "{x:?}: expected \"action_labels\" or \"actions_json\" (with by_id false), or no input"
                    ),
                ));
            }
        }
        if !listed || twice {
            return Err(invalid(
                format_args!("open_steps[{i}].decision_id"),
                format!(
                    "decision {} is not an interrupted turn entry of the history{}",
                    o.decision_id,
                    if twice { " (listed twice)" } else { "" }
                ),
            ));
        }
    }
    Ok(super::sessions::interrupted_steps(
        &doc.history,
        |id| match doc.open_steps.iter().find(|o| o.decision_id == id) {
            Some(o) if o.by_id => "action_ids",
            Some(o) => o
                .input
                .as_deref()
                .and_then(|x| STEP_INPUTS.into_iter().find(|s| *s == x))
                .unwrap_or("actions"),
            None => "actions",
        },
    ))
}

/// INVALID_ARGUMENT naming the first part of `doc` that `ep` (its replay) does not reproduce.
fn check_reproduced(ep: &Episode, doc: &TranscriptDoc) -> Result<(), ServiceError> {
    let replayed = ep.history();
    if replayed.len() != doc.history.len() {
        return Err(invalid(
            "history",
            format!(
                "{} entries, the replay has {}",
                doc.history.len(),
                replayed.len()
            ),
        ));
    }
    if let Some(i) = replayed
        .iter()
        .zip(&doc.history)
        .position(|(r, d)| r.results != d.results)
    {
        return Err(invalid(
            format_args!("history[{i}].results"),
            "differ from the replay",
        ));
    }
    let lines = ep.transcript();
    if let Some(i) = lines.iter().zip(&doc.transcript).position(|(r, d)| r != d) {
        return Err(invalid(
            format_args!("transcript[{i}]"),
            format!("differs from the replay's `{}`", lines[i]),
        ));
    }
    if lines.len() != doc.transcript.len() {
        return Err(invalid(
            "transcript",
            format!(
                "{} lines, the replay has {}",
                doc.transcript.len(),
                lines.len()
            ),
        ));
    }
    if ep.outcome() != doc.outcome.as_ref() {
        return Err(invalid(
            "outcome",
            format!("differs from the replay's {:?}", ep.outcome()),
        ));
    }
    let state = fnv1a64_hex(&ep.snapshot());
    if state != doc.final_state {
        return Err(invalid(
            "final_state",
            format!("{}: the replayed state's is {state}", doc.final_state),
        ));
    }
    Ok(())
}
