//! The resumable combat state machine (DESIGN.md — "Engine: a resumable state machine").
use crate::action::{Action, ActionResult, Budget, CombatantId};
use crate::dice::DiceSource;
use crate::encounter::Encounter;
use crate::observation::Observation;
use serde::Serialize;
use std::sync::Arc;

/// Who decides for a combatant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Controller {
    /// The built-in default policy.
    DefaultPolicy,
    /// An external agent: the episode pauses at each of its decisions.
    External,
}

/// A pending decision of an externally controlled combatant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// Increments at each new decision of the episode; a step must name the current one.
    pub decision_id: u64,
    pub actor: CombatantId,
    pub round: u32,
    pub budget: Budget,
}

/// How an episode ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// Winning side, `None` for a draw.
    pub winner: Option<String>,
    /// Rounds played (the round in which it ended).
    pub rounds: u32,
    /// Ended by the round cap (a draw), not by a side winning.
    pub truncated: bool,
}

/// Where the episode stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Status {
    Decision(Decision),
    Terminal(Outcome),
}

/// A legal action with its stable id in the encounter's discrete action space.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LegalAction {
    pub id: u32,
    pub action: Action,
    /// Short readable description ("full_attack goblin-2 with short sword").
    pub label: String,
}

/// Error of [`Episode::submit`]: nothing was applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubmitError {
    #[error("the episode is over")]
    Terminal,
    #[error("the episode is not waiting for a decision; call advance() first")]
    NotAwaitingDecision,
    #[error("empty action list")]
    Empty,
}

/// Per-combatant attrition counters of one episode.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Attrition {
    pub attacks: u32,
    pub hits: u32,
    pub crits: u32,
    pub damage_dealt: i64,
    pub damage_taken: i64,
}

/// One transcript line: `round N id: message`, or a raw line (initiative, end of combat).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogLine {
    pub round: Option<u32>,
    pub actor: Option<String>,
    pub message: String,
}

/// A combat in progress. `Clone` is a full snapshot (RNG included).
#[derive(Debug, Clone)]
pub struct Episode {
    _encounter: Arc<Encounter>,
    _dice: DiceSource,
}

impl Episode {
    /// A new episode seeded with `ChaCha8Rng::seed_from_u64(seed)`. `controllers` has one entry
    /// per combatant (list order); shorter lists are padded with `DefaultPolicy`.
    pub fn new(_encounter: Arc<Encounter>, _seed: u64, _controllers: &[Controller]) -> Episode {
        todo!()
    }
    /// A new episode with an explicit dice source (scripted dice for golden tests).
    pub fn with_dice(
        _encounter: Arc<Encounter>,
        _dice: DiceSource,
        _controllers: &[Controller],
    ) -> Episode {
        todo!()
    }
    /// Run default-policy turns, dice, AoOs… until an external decision or the end.
    pub fn advance(&mut self) -> Status {
        todo!()
    }
    /// The current status without advancing.
    pub fn status(&self) -> Status {
        todo!()
    }
    /// Legal actions of the pending decision, sorted by id (empty if none pending).
    pub fn legal_actions(&self) -> Vec<LegalAction> {
        todo!()
    }
    /// Apply actions for the pending decision, in order, with the budget/downgrade rule (X4).
    /// One result per action. Call [`Episode::advance`] afterwards.
    pub fn submit(&mut self, _actions: &[Action]) -> Result<Vec<ActionResult>, SubmitError> {
        todo!()
    }
    /// The observation snapshot for `viewer` (the acting combatant when `None`).
    pub fn observation(&self, _viewer: Option<CombatantId>) -> Observation {
        todo!()
    }
    /// The transcript so far.
    pub fn transcript(&self) -> &[LogLine] {
        todo!()
    }
    /// Attrition per combatant (list order).
    pub fn attrition(&self) -> &[Attrition] {
        todo!()
    }
    /// The encounter.
    pub fn encounter(&self) -> &Arc<Encounter> {
        &self._encounter
    }
    /// Size of the encounter's fixed discrete action space.
    pub fn action_space_size(&self) -> u32 {
        todo!()
    }
    /// Decode an action id of the action space (whether or not legal now).
    pub fn action_from_id(&self, _id: u32) -> Option<Action> {
        todo!()
    }
}
