//! The input history of an episode (every answered decision) and its replay (Seed + input
//! log replays the game: Showdown's `inputLog`, OpenSpiel's `History()`).

use crate::actions::{Action, ActionResult, CombatantId};
use crate::content::encounter::Encounter;
use crate::dice::DiceSource;
use crate::episode::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// One answered decision of the episode's input history ([`Episode::history`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryEntry {
    pub decision_id: u64,
    pub actor: CombatantId,
    pub kind: DecisionKind,
    /// The actions submitted, as submitted.
    pub actions: Vec<Action>,
    /// One result per submitted action, as they resolved. A turn's action list interrupted by
    /// another combatant's reaction resumes after it: its later results are appended here
    /// when they resolve.
    pub results: Vec<ActionResult>,
}

/// Error of [`Episode::replay`]: history entry `index` does not match the replayed episode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("history entry {index}: {what}")]
pub struct ReplayError {
    pub index: usize,
    pub what: String,
}

/// Why [`Episode::replay_within`] gave no episode: the history does not replay, or the work
/// budget stopped the replay first (a history is client data: it may ask for a combat that
/// never ends).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReplayStop {
    #[error(transparent)]
    Mismatch(#[from] ReplayError),
    #[error(transparent)]
    Interrupted(#[from] crate::episode::Interrupted),
}

impl Episode {
    /// The episode's input history: every answered decision (id, kind, actor, submitted
    /// actions and their results), in order. With the encounter, the dice source and the
    /// controllers it reproduces the episode ([`Episode::replay`]).
    pub fn history(&self) -> &[HistoryEntry] {
        &self.history
    }

    /// The results of decision `decision_id` so far (see [`Episode::submit`]), if it was
    /// answered.
    pub fn results_of(&self, decision_id: u64) -> Option<&[ActionResult]> {
        self.history
            .iter()
            .rev()
            .find(|e| e.decision_id == decision_id)
            .map(|e| e.results.as_slice())
    }

    /// Rebuild an episode from its start (`encounter`, `dice` as at the start, `controllers`)
    /// and its input history: each entry's actions are submitted at its decision, then the
    /// episode advances to where the original stood. The result is the same episode, byte for
    /// byte (transcript, state, RNG, decision ids).
    ///
    /// # Errors
    /// [`ReplayError`] when a decision of the history does not arise (another episode's
    /// history, or a different encounter, seed or controllers).
    pub fn replay(
        encounter: Arc<Encounter>,
        dice: DiceSource,
        controllers: &[Controller],
        history: &[HistoryEntry],
    ) -> Result<Episode, ReplayError> {
        Episode::replay_within(
            encounter,
            dice,
            controllers,
            history,
            &mut WorkBudget::unlimited(),
        )
        .map_err(unlimited)
    }

    /// [`Episode::replay`] within `budget` (its turns and its stop function count the whole
    /// replay: every default-policy turn between the history's decisions and after the last).
    ///
    /// # Errors
    /// [`ReplayStop::Mismatch`] as [`Episode::replay`]; [`ReplayStop::Interrupted`] when the
    /// budget stopped it.
    pub fn replay_within(
        encounter: Arc<Encounter>,
        dice: DiceSource,
        controllers: &[Controller],
        history: &[HistoryEntry],
        budget: &mut WorkBudget,
    ) -> Result<Episode, ReplayStop> {
        let mut ep = Episode::with_dice(encounter, dice, controllers);
        ep.replay_history_within(history, budget)?;
        ep.advance_within(budget)?;
        Ok(ep)
    }

    /// [`Episode::replay`], recording every step ([`Episode::record_steps`]): the replayed
    /// episode (not recording any more) and its steps, oldest first — a copy of the episode
    /// right after each unit of resolution that added transcript lines. For replay viewers.
    ///
    /// # Errors
    /// [`ReplayError`], as [`Episode::replay`].
    pub fn replay_with_steps(
        encounter: Arc<Encounter>,
        dice: DiceSource,
        controllers: &[Controller],
        history: &[HistoryEntry],
    ) -> Result<(Episode, Vec<Episode>), ReplayError> {
        Episode::replay_with_steps_within(
            encounter,
            dice,
            controllers,
            history,
            &mut WorkBudget::unlimited(),
        )
        .map_err(unlimited)
    }

    /// [`Episode::replay_with_steps`] within `budget` (see [`Episode::replay_within`]): the
    /// turn budget also bounds the steps recorded.
    ///
    /// # Errors
    /// As [`Episode::replay_within`].
    pub fn replay_with_steps_within(
        encounter: Arc<Encounter>,
        dice: DiceSource,
        controllers: &[Controller],
        history: &[HistoryEntry],
        budget: &mut WorkBudget,
    ) -> Result<(Episode, Vec<Episode>), ReplayStop> {
        let mut ep = Episode::with_dice(encounter, dice, controllers);
        ep.record_steps();
        ep.replay_history_within(history, budget)?;
        ep.advance_within(budget)?;
        let steps = ep.take_steps();
        ep.steps = None;
        Ok((ep, steps))
    }

    /// [`Episode::replay_with_steps_within`], with the spell areas resolved during the episode
    /// ([`Episode::take_recorded_areas`]): `(episode, steps, areas)`. For replay viewers.
    ///
    /// # Errors
    /// As [`Episode::replay_within`].
    pub fn replay_with_steps_and_areas_within(
        encounter: Arc<Encounter>,
        dice: DiceSource,
        controllers: &[Controller],
        history: &[HistoryEntry],
        budget: &mut WorkBudget,
    ) -> Result<(Episode, Vec<Episode>, Vec<super::AreaCast>), ReplayStop> {
        let mut ep = Episode::with_dice(encounter, dice, controllers);
        ep.record_steps();
        ep.replay_history_within(history, budget)?;
        ep.advance_within(budget)?;
        let steps = ep.take_steps();
        let areas = ep.take_recorded_areas();
        ep.steps = None;
        Ok((ep, steps, areas))
    }

    /// Submit every entry of `history` at its decision (advancing within `budget` before
    /// each), without the final advance.
    pub(crate) fn replay_history_within(
        &mut self,
        history: &[HistoryEntry],
        budget: &mut WorkBudget,
    ) -> Result<(), ReplayStop> {
        for (i, e) in history.iter().enumerate() {
            let mismatch = |what: String| ReplayStop::Mismatch(ReplayError { index: i, what });
            match self.advance_within(budget)? {
                Status::Terminal(_) => return Err(mismatch("the episode is already over".into())),
                Status::Decision(d) => {
                    if d.decision_id != e.decision_id || d.actor != e.actor {
                        return Err(mismatch(format!(
                            "pending decision {} of combatant {} ({}) instead of {} of {} ({})",
                            d.decision_id,
                            d.actor.0,
                            d.kind.name(),
                            e.decision_id,
                            e.actor.0,
                            e.kind.name()
                        )));
                    }
                    if d.kind != e.kind {
                        return Err(mismatch(format!(
                            "decision {} is {:?}, not {:?}",
                            d.decision_id, d.kind, e.kind
                        )));
                    }
                }
            }
            self.submit(e.decision_id, &e.actions)
                .map_err(|x| mismatch(x.to_string()))?;
        }
        Ok(())
    }
}

/// The error of a replay within an unlimited budget (never interrupted).
fn unlimited(e: ReplayStop) -> ReplayError {
    match e {
        ReplayStop::Mismatch(e) => e,
        ReplayStop::Interrupted(_) => unreachable!("an unlimited work budget never interrupts"),
    }
}
