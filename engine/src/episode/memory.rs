//! The heap an episode owns ([`Episode::memory_bytes`]), for a server's per-episode memory
//! accounting: the append-only parts (transcript, input history) are counted as they grow,
//! the bounded parts (combatant state, pending frames) are measured on demand.

use crate::actions::{Action, ActionResult};
use crate::episode::frames::Frame;
use crate::episode::*;
use std::mem::size_of;

/// Bytes of one transcript line: the line and its strings' lengths.
pub(crate) fn log_line_bytes(l: &LogLine) -> u64 {
    (size_of::<LogLine>() + l.message.len() + l.actor.as_ref().map_or(0, String::len)) as u64
}

/// Bytes an action holds on the heap (a readied action's boxed action).
fn action_heap(a: &Action) -> usize {
    a.readied
        .as_ref()
        .map_or(0, |r| size_of::<Action>() + action_heap(r))
}

fn kind_heap(k: &DecisionKind) -> usize {
    match k {
        DecisionKind::TurnAction => 0,
        DecisionKind::AttackOfOpportunity { weapons, .. } => weapons.len() * size_of::<usize>(),
        DecisionKind::ReadiedTrigger { readied, .. } => action_heap(readied),
        DecisionKind::StepUp { squares, .. } => squares.len() * size_of::<Cell>(),
    }
}

/// Bytes of one history entry without its results (they are counted as they are pushed,
/// [`RESULT_BYTES`] each).
pub(crate) fn history_entry_bytes(e: &HistoryEntry) -> u64 {
    (size_of::<HistoryEntry>()
        + kind_heap(&e.kind)
        + e.actions
            .iter()
            .map(|a| size_of::<Action>() + action_heap(a))
            .sum::<usize>()) as u64
}

/// Bytes of one action result in a history entry.
pub(crate) const RESULT_BYTES: u64 = size_of::<ActionResult>() as u64;

fn vec_bytes<T>(v: &[T]) -> usize {
    std::mem::size_of_val(v)
}

/// Heap of one combatant's state beyond its `CState` (its lists).
fn cstate_heap(c: &CState) -> usize {
    let spells: usize = c
        .spell_effects
        .iter()
        .map(|e| {
            size_of_val(e)
                + e.spell.len()
                + e.special.as_ref().map_or(0, String::len)
                + e.modifiers
                    .iter()
                    .map(|m| size_of_val(m) + m.source.len())
                    .sum::<usize>()
        })
        .sum();
    let recurring: usize = c
        .recurring
        .iter()
        .map(|r| {
            size_of_val(r)
                + r.spell.len()
                + r.dice.len()
                + r.types
                    .iter()
                    .map(|t| size_of::<String>() + t.len())
                    .sum::<usize>()
        })
        .sum();
    let zones: usize = c
        .zones
        .iter()
        .map(|z| {
            size_of_val(z)
                + z.spell.len()
                + vec_bytes(&z.cells)
                + z.condition.as_ref().map_or(0, String::len)
        })
        .sum();
    vec_bytes(&c.conditions)
        + vec_bytes(&c.last_turn_results)
        + vec_bytes(&c.ammo)
        + vec_bytes(&c.weapons)
        + vec_bytes(&c.aid)
        + vec_bytes(&c.slots_left)
        + vec_bytes(&c.spell_uses)
        + c.readied
            .as_ref()
            .map_or(0, |r| size_of::<Readied>() + action_heap(&r.action))
        + spells
        + recurring
        + zones
}

/// Heap of one pending frame beyond the `Frame` (its lists).
fn frame_heap(f: &Frame) -> usize {
    match f {
        Frame::Turn(t) => t.list.as_ref().map_or(0, |l| {
            l.actions
                .iter()
                .map(|a| size_of::<Action>() + action_heap(a))
                .sum::<usize>()
                + l.then.as_ref().map_or(0, action_heap)
        }),
        Frame::Walk(w) => {
            vec_bytes(&w.path)
                + w.what.len()
                + match &w.stage {
                    crate::episode::frames::WalkStage::Entering { before, .. } => vec_bytes(before),
                    _ => 0,
                }
        }
        Frame::FullAttack { swings, .. } => vec_bytes(swings),
        Frame::Cleave(c) => vec_bytes(&c.attacked),
        Frame::MoveAttack(m) => vec_bytes(&m.rest),
        _ => 0,
    }
}

/// Heap bytes of recorded spell areas (their records, names and squares).
fn area_casts_bytes(areas: &[super::AreaCast]) -> u64 {
    areas
        .iter()
        .map(|a| {
            (size_of::<super::AreaCast>()
                + a.spell.len()
                + a.shape.len()
                + a.cells.len() * size_of::<Cell>()) as u64
        })
        .sum()
}

impl Episode {
    /// Bytes of heap this episode holds beyond the shared encounter: an estimate (sizes of
    /// the values and of their lists' elements by length, strings by length; allocator
    /// slack and spare capacity not counted) of its combatant state, initiative order,
    /// pending frames, turn bookkeeping, input history, transcript and, when on, its step
    /// recording ([`Episode::record_steps`]: each copy counted the same way), for the
    /// server's per-episode memory accounting.
    ///
    /// Cost: the transcript and the history are counted as they grow, so this is O(number
    /// of combatants + pending frames) — independent of the episode's length (O(recorded
    /// steps) while recording). Simplification: the movement-field cache of the episode
    /// (at most one field, and only on maps of at most 1024 squares: a few KiB) is not
    /// counted.
    pub fn memory_bytes(&self) -> u64 {
        self.bounded_bytes() + self.log_bytes + self.history_bytes + self.steps_bytes()
    }

    /// [`Episode::memory_bytes`] counted from scratch: the transcript and the history line
    /// by line (O(episode length)). Equal to `memory_bytes` (a check of the incremental
    /// count; tests and diagnostics).
    pub fn memory_bytes_recount(&self) -> u64 {
        let log: u64 = self.log.iter().map(log_line_bytes).sum();
        let history: u64 = self
            .history
            .iter()
            .map(|e| history_entry_bytes(e) + e.results.len() as u64 * RESULT_BYTES)
            .sum();
        let steps: u64 = self.steps.as_ref().map_or(0, |r| {
            size_of::<StepRecording>() as u64
                + r.snapshots
                    .iter()
                    .chain(r.pending.as_deref())
                    .map(Episode::memory_bytes_recount)
                    .sum::<u64>()
                + area_casts_bytes(&r.areas)
        });
        self.bounded_bytes() + log + history + steps
    }

    /// The incremental counts recomputed (after a restore).
    pub(crate) fn recount_log_and_history(&mut self) {
        self.log_bytes = self.log.iter().map(log_line_bytes).sum();
        self.history_bytes = self
            .history
            .iter()
            .map(|e| history_entry_bytes(e) + e.results.len() as u64 * RESULT_BYTES)
            .sum();
    }

    /// Append a transcript line (the one place lines are added: it keeps the byte count).
    #[inline]
    pub(crate) fn push_log(&mut self, line: LogLine) {
        if !self.transcript {
            return;
        }
        self.log_bytes += log_line_bytes(&line);
        self.log.push(line);
    }

    fn steps_bytes(&self) -> u64 {
        self.steps.as_ref().map_or(0, |r| {
            size_of::<StepRecording>() as u64
                + r.snapshots
                    .iter()
                    .chain(r.pending.as_deref())
                    .map(Episode::memory_bytes)
                    .sum::<u64>()
                + area_casts_bytes(&r.areas)
        })
    }

    /// The parts bounded by the encounter's size (measured on every call).
    fn bounded_bytes(&self) -> u64 {
        let st: usize = self
            .st
            .iter()
            .map(|c| size_of::<CState>() + cstate_heap(c))
            .sum();
        let frames: usize = self
            .frames
            .iter()
            .map(|f| size_of::<Frame>() + frame_heap(f))
            .sum();
        let decision = match &self.phase {
            Phase::Awaiting(d) => kind_heap(&d.kind),
            _ => 0,
        };
        (size_of::<Episode>()
            + st
            + frames
            + decision
            + vec_bytes(&self.controllers)
            + vec_bytes(&self.order)
            + vec_bytes(&self.attrition)
            + vec_bytes(&self.turn.results)
            + self.move_aoo_provoked.len() * (2 * size_of::<crate::actions::CombatantId>() + 16))
            as u64
    }
}
