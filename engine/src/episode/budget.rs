//! A cooperative work budget for [`Episode::advance_within`]: a server bounds the work one
//! call may do (turns started, a stop flag polled between units of resolution) without
//! threads or clocks in the engine. An interrupted episode stays consistent: advancing it
//! again continues exactly where it stopped (same transcript, state and dice as an
//! uninterrupted run).

use crate::episode::{Episode, Phase, Status};

/// Frames stepped between two calls of the stop function inside a turn
/// ([`WorkBudget::stop_checks`]). A frame is one unit of resolution (one attack roll, one
/// square of a walk, one attack-of-opportunity window step, one plan of the default policy…),
/// typically a few microseconds; 32 of them keep the poll (an atomic load and perhaps a
/// clock read in the server) well under 1% of the work while a stop is honoured within a few
/// hundred microseconds of resolution. A single frame is never split: the default policy's
/// planning of one action list (its movement-field searches) runs to its end.
pub const STOP_CHECK_EVERY_FRAMES: u32 = 32;

/// The work [`Episode::advance_within`] may still do: at most `max_turns` turn starts, and a
/// stop function polled at every turn start and every [`STOP_CHECK_EVERY_FRAMES`] frames.
/// One budget may be used for several calls: the counts accumulate.
pub struct WorkBudget<'a> {
    max_turns: u64,
    turns_used: u64,
    stop: Option<&'a (dyn Fn() -> bool + Sync)>,
    /// Frames stepped since the last poll between frames (only counted when `stop` is set;
    /// turn-start polls do not reset it, so a poll comes every STOP_CHECK_EVERY_FRAMES
    /// frames however short the turns are).
    since_check: u32,
    frames: u64,
    checks: u64,
}

/// Why [`Episode::advance_within`] returned before a decision or the end. The episode is
/// unchanged by the interruption itself: advancing it again goes on from there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Interrupted {
    /// `turns` turns were started with this budget, its `max_turns`: the next one was not.
    #[error("work budget spent: {turns} turns started in this call")]
    TurnBudget { turns: u64 },
    /// The stop function returned `true` (a deadline passed, the request was cancelled, the
    /// server is shutting down).
    #[error("stopped before the work was done")]
    Stopped,
}

impl<'a> WorkBudget<'a> {
    /// A budget of `max_turns` turn starts; `stop` is polled at every turn start and every
    /// [`STOP_CHECK_EVERY_FRAMES`] frames inside a turn, and interrupts the work when it
    /// returns `true`. It should be cheap (an atomic flag, a clock comparison).
    pub fn new(max_turns: u64, stop: &'a (dyn Fn() -> bool + Sync)) -> WorkBudget<'a> {
        WorkBudget {
            max_turns,
            turns_used: 0,
            stop: Some(stop),
            since_check: 0,
            frames: 0,
            checks: 0,
        }
    }

    /// No limit and no stop: what [`Episode::advance`] uses (it counts turns only).
    pub fn unlimited() -> WorkBudget<'static> {
        WorkBudget {
            max_turns: u64::MAX,
            turns_used: 0,
            stop: None,
            since_check: 0,
            frames: 0,
            checks: 0,
        }
    }

    /// Turns started with this budget so far (see [`Episode::advance_within`] for what
    /// counts).
    pub fn turns_used(&self) -> u64 {
        self.turns_used
    }

    /// Frames stepped with this budget so far (counted only for a budget with a stop
    /// function; 0 for [`WorkBudget::unlimited`]).
    pub fn frames_stepped(&self) -> u64 {
        self.frames
    }

    /// How many times the stop function was called so far.
    pub fn stop_checks(&self) -> u64 {
        self.checks
    }

    /// Poll the stop function now (if any).
    #[inline]
    fn poll(&mut self) -> bool {
        match self.stop {
            None => false,
            Some(stop) => {
                self.checks += 1;
                stop()
            }
        }
    }

    /// A turn is about to start: `Err` when the budget is spent or the stop function says so.
    #[inline]
    fn start_turn(&mut self) -> Result<(), Interrupted> {
        if self.turns_used >= self.max_turns {
            return Err(Interrupted::TurnBudget {
                turns: self.turns_used,
            });
        }
        if self.poll() {
            return Err(Interrupted::Stopped);
        }
        self.turns_used += 1;
        Ok(())
    }

    /// A frame was stepped: `true` when the work must stop now.
    #[inline]
    pub(crate) fn frame_done(&mut self) -> bool {
        if self.stop.is_none() {
            return false;
        }
        self.frames += 1;
        self.since_check += 1;
        if self.since_check < STOP_CHECK_EVERY_FRAMES {
            return false;
        }
        self.since_check = 0;
        self.poll()
    }
}

impl Episode {
    /// [`Episode::advance`] under a work budget: runs default-policy turns, dice, reactions…
    /// until an external decision or the end, unless the budget interrupts it first.
    ///
    /// What counts as a turn: every time the loop reaches the start of a combatant's turn —
    /// a default-policy turn, an external combatant's turn (up to its first decision), a turn
    /// lost to a condition or to unconsciousness, a turn passed (unaware in the surprise
    /// round) — one unit of `max_turns`, taken before the turn begins (so
    /// [`Interrupted::TurnBudget`] leaves the episode at the start of the turn it did not
    /// begin). Resuming an interrupted turn, or the rest of an external combatant's turn
    /// after its decision, is not a new turn. Rolling initiative is not a turn.
    ///
    /// The stop function is called before each turn start and after every
    /// [`STOP_CHECK_EVERY_FRAMES`] frames of resolution (see [`crate::episode::frames`]);
    /// `true` stops at once with [`Interrupted::Stopped`], possibly in the middle of a turn
    /// ([`Episode::is_resolving`]).
    ///
    /// While a decision is pending, or once the episode is over, it returns that status at
    /// once (no turn, no poll), as `advance` does.
    ///
    /// # Errors
    /// [`Interrupted`]: the budget was spent or the stop function returned `true`. The
    /// episode is consistent: calling `advance` or `advance_within` again continues exactly
    /// where it stopped and gives the same transcript as an uninterrupted run. In the middle
    /// of a turn ([`Episode::is_resolving`]) nothing is pending for a client ([`Episode::submit`]
    /// answers `NotAwaitingDecision`) and a [`Episode::snapshot`] taken then cannot be
    /// restored (snapshots are taken at rest): advance it first.
    pub fn advance_within(&mut self, budget: &mut WorkBudget) -> Result<Status, Interrupted> {
        loop {
            self.note_step();
            match &self.phase {
                Phase::Over(o) => return Ok(Status::Terminal(o.clone())),
                Phase::Awaiting(d) => return Ok(Status::Decision(d.clone())),
                Phase::NotStarted => {
                    if budget.poll() {
                        return Err(Interrupted::Stopped);
                    }
                    self.roll_initiative();
                    // A surprise round (round 0) when some but not all are aware (CRB —
                    // Combat: The Surprise Round).
                    self.round = if self.surprise_round_applies() { 0 } else { 1 };
                    if self.round == 0 {
                        self.log_raw("surprise round".to_string());
                    }
                    self.turn_pos = 0;
                    self.phase = Phase::TurnStart;
                    if self.check_end() {
                        continue;
                    }
                }
                Phase::TurnStart => {
                    budget.start_turn()?;
                    let actor = self.order[self.turn_pos];
                    if let Some(why) = self.passes_turn(actor) {
                        // No turn at all (an unaware combatant in the surprise round, or one
                        // whose readied action already was its action this round).
                        self.log_turn(actor, why.to_string());
                        self.next_turn();
                        continue;
                    }
                    let skip = self.begin_turn(actor);
                    if self.check_end() {
                        continue;
                    }
                    if skip || !self.st[actor.0 as usize].life.is_conscious() {
                        self.end_turn();
                        continue;
                    }
                    if self.controllers[actor.0 as usize] == crate::episode::Controller::External
                        && self.only_end_turn_left(actor)
                    {
                        self.end_turn();
                        continue;
                    }
                    // The default policy plans again after a preparatory action (stand up,
                    // pick up a weapon, toggle Power Attack), with the budget that is left,
                    // at most 4 times per turn.
                    self.frames.push(crate::episode::frames::Frame::Turn(
                        crate::episode::frames::TurnFrame {
                            actor,
                            plans_left: 4,
                            acted: false,
                            list: None,
                        },
                    ));
                    self.phase = Phase::Resolving;
                }
                Phase::Resolving => {
                    if self.run_frames_within(budget) {
                        return Err(Interrupted::Stopped);
                    }
                }
            }
        }
    }

    /// Whether work of a turn is pending: an [`Episode::advance_within`] was stopped in the
    /// middle of a turn ([`Interrupted::Stopped`]). `advance` finishes it. Never true after
    /// `advance`, `submit` or a restore.
    pub fn is_resolving(&self) -> bool {
        self.phase == Phase::Resolving
    }
}
