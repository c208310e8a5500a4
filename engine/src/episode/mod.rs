//! The resumable combat state machine (DESIGN.md — "Engine: a resumable state machine").
//!
//! An [`Episode`] advances through initiative, rounds and turns until an externally controlled
//! combatant must decide, then returns [`Status::Decision`]. [`Episode::submit`] applies that
//! combatant's actions (one [`ActionResult`] each) and [`Episode::advance`] resumes. The
//! built-in default policy ([`crate::policy`]) plays every other combatant through the very
//! same action code, so one semantics is tested once.
//!
//! Turn structure (CRB — Combat: How Combat Works, Actions in Combat):
//! 1. Initiative is rolled once (d20 + modifier; ties by modifier, then list order).
//! 2. Each round, combatants act in initiative order. At the start of its turn a combatant stops
//!    being flat-footed, loses last turn's charge AC penalty and, if dying, rolls to stabilize.
//! 3. A turn's budget: one standard + one move action, or one full-round action; a move action
//!    may replace the standard; a 5-foot step if no other movement (see [`Budget`]).
//! 4. The combat ends as soon as at most one side has conscious combatants, or as a draw
//!    (truncated) when the round cap is exceeded.

use crate::actions::{Action, ActionResult, Budget, CombatantId};
use crate::content::encounter::Encounter;
use crate::dice::{Dice, DiceSource, StartDice};
use crate::effects::conditions::{ActiveCondition, Condition};
use crate::geometry::grid::Cell;
use crate::observe::observation::Observation;
use serde::{Deserialize, Serialize};

mod budget;
pub mod frames;
mod history;
mod memory;
mod snapshot;
mod state;
mod turn;

pub use budget::{Interrupted, WorkBudget, STOP_CHECK_EVERY_FRAMES};
pub use history::{HistoryEntry, ReplayError, ReplayStop};
pub use snapshot::SnapshotError;
pub(crate) use state::{AidBonus, CState, Readied, TurnState};
pub use state::{Attrition, LifeState, LogLine};
use std::collections::BTreeSet;
use std::sync::Arc;

/// Who decides for a combatant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Controller {
    /// The built-in default policy.
    DefaultPolicy,
    /// An external agent: the episode pauses at each of its decisions.
    External,
}

/// A pending decision of an externally controlled combatant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    /// Increments at each new decision of the episode; a step must name the current one.
    pub decision_id: u64,
    /// Who decides: the combatant whose turn it is, or the one offered a reaction.
    pub actor: CombatantId,
    pub round: u32,
    /// What remains of the actor's turn budget (all `false` at a reaction decision: it is
    /// not the actor's turn).
    pub budget: Budget,
    /// What is being decided.
    pub kind: DecisionKind,
}

/// What a decision is about. A turn decision is answered with turn actions (`end_turn`
/// always legal); a reaction decision with exactly one reaction action.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum DecisionKind {
    /// The actor's next action(s) of its turn.
    TurnAction,
    /// An attack of opportunity the actor may take against `provoker`, which provoked it by
    /// `provocation`, with one of `weapons` (indices into the actor's attacks, list order),
    /// or decline (CRB — Combat: Attacks of Opportunity). Answered with
    /// [`ActionKind::AttackOfOpportunity`] or [`ActionKind::Decline`]; the provoking action
    /// continues after the answer. A declined opportunity does not spend the actor's attacks
    /// of opportunity for the round.
    AttackOfOpportunity {
        provoker: CombatantId,
        provocation: crate::rules::aoo::Provocation,
        weapons: Vec<usize>,
        /// The actor may answer with [`ActionKind::StandStill`] instead (CRB — Feats: Stand
        /// Still: it has the feat and the provoker leaves a square adjacent to it).
        #[serde(default)]
        stand_still: bool,
    },
    /// The trigger of the actor's readied action happened: `trigger_by` did it. Answered
    /// with [`ActionKind::FireReadied`] (`readied`, the action as it would resolve now, goes
    /// off before the triggering action continues) or [`ActionKind::Decline`] (hold it for a
    /// later occurrence) — CRB — Special Initiative Actions: Ready.
    ReadiedTrigger {
        trigger_by: CombatantId,
        trigger: crate::actions::ReadyTrigger,
        readied: Action,
    },
    /// Step Up (CRB — Feats), an immediate action: `foe` took a 5-foot step away; answered
    /// with a [`ActionKind::FiveFootStep`] to one of `squares` (each 5 ft away, adjacent to
    /// the foe) or [`ActionKind::Decline`].
    StepUp {
        foe: CombatantId,
        squares: Vec<Cell>,
    },
}

impl DecisionKind {
    /// The `snake_case` name (`turn_action`, `attack_of_opportunity`).
    pub fn name(&self) -> &'static str {
        match self {
            DecisionKind::TurnAction => "turn_action",
            DecisionKind::AttackOfOpportunity { .. } => "attack_of_opportunity",
            DecisionKind::ReadiedTrigger { .. } => "readied_trigger",
            DecisionKind::StepUp { .. } => "step_up",
        }
    }

    /// Whether this is a reaction (an off-turn decision), not a turn decision.
    pub fn is_reaction(&self) -> bool {
        !matches!(self, DecisionKind::TurnAction)
    }
}

/// How an episode ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Winning side, `None` for a draw.
    pub winner: Option<String>,
    /// Rounds played (the round in which it ended; the cap for a truncated episode).
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
    #[error("decision {got} is not the pending decision ({expected})")]
    StaleDecision { expected: u64, got: u64 },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Phase {
    /// Initiative not rolled yet.
    NotStarted,
    /// The turn of `order[turn_pos]` has not begun (no frame pending).
    TurnStart,
    /// Frames are pending and can run ([`Episode::run_frames`]).
    Resolving,
    /// Waiting for an external decision; the frames below it resume after the answer.
    Awaiting(Decision),
    Over(Outcome),
}

/// A combat in progress. `Clone` is a full snapshot (RNG included).
#[derive(Debug, Clone)]
pub struct Episode {
    pub(crate) enc: Arc<Encounter>,
    pub(crate) dice: DiceSource,
    /// The dice source as it was at the start (snapshots carry it: a restore replays the
    /// history on it to check the state).
    pub(crate) start_dice: StartDice,
    pub(crate) controllers: Vec<Controller>,
    pub(crate) st: Vec<CState>,
    pub(crate) round: u32,
    pub(crate) order: Vec<CombatantId>,
    pub(crate) turn_pos: usize,
    pub(crate) phase: Phase,
    /// Pending work, last = next to run (see [`crate::episode::frames`]).
    pub(crate) frames: Vec<crate::episode::frames::Frame>,
    /// Every answered decision, in order.
    pub(crate) history: Vec<HistoryEntry>,
    pub(crate) turn: TurnState,
    next_decision_id: u64,
    pub(crate) log: Vec<LogLine>,
    pub(crate) attrition: Vec<Attrition>,
    /// `(threatener, mover)` pairs whose "leaving a threatened square" opportunity was taken
    /// or declined this round (CRB — Combat: Attacks of Opportunity, "Moving out of more than one square…").
    pub(crate) move_aoo_provoked: BTreeSet<(CombatantId, CombatantId)>,
    /// Movement fields computed last (a cache: see `rules::movement::FieldSlot`).
    pub(crate) field_slot: crate::rules::movement::FieldSlot,
    /// The step recording of [`Episode::record_steps`], `None` unless asked (viewers only:
    /// never part of a snapshot, nothing reads it during play).
    pub(crate) steps: Option<Box<StepRecording>>,
    /// Bytes of the transcript ([`Episode::memory_bytes`]), counted as lines are pushed
    /// ([`Episode::push_log`]).
    pub(crate) log_bytes: u64,
    /// Bytes of the history, counted as entries and results are pushed.
    pub(crate) history_bytes: u64,
    /// Whether transcript lines are kept ([`Episode::keep_transcript`]; on by default). A
    /// run option, not state: snapshots leave it out (a restored episode keeps its lines).
    pub(crate) transcript: bool,
}

/// The snapshots kept by [`Episode::record_steps`]: one per unit of resolution that added
/// transcript lines.
#[derive(Debug, Clone, Default)]
pub(crate) struct StepRecording {
    snapshots: Vec<Episode>,
    /// Transcript length at the last step.
    logged: usize,
    /// The last step's copy, refreshed until the next step begins.
    pending: Option<Box<Episode>>,
    /// The spell areas resolved while recording ([`Episode::take_recorded_areas`]).
    pub(crate) areas: Vec<AreaCast>,
}

/// A spell area resolved while the episode was recording its steps
/// ([`Episode::record_steps`]): what a replay viewer draws on the map. Recorded beside play,
/// never read by it (play, dice and snapshots are the same with or without the record).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AreaCast {
    /// Index in the transcript of the line that reports the area
    /// (`"{spell}: {n} squares, affects …"`).
    pub line: usize,
    /// The caster.
    pub caster: CombatantId,
    /// The spell's name.
    pub spell: String,
    /// `burst`, `spread`, `emanation`, `cone`, `line` or `cylinder` (the spell's
    /// `area.shape`).
    pub shape: String,
    /// Radius (burst, spread, emanation, cylinder) or length (cone, line), in feet.
    pub size_ft: u32,
    /// The grid intersection a burst-like area starts from (`[row, col]` in square lines,
    /// 0 at the top-left edge of the map); `None` for a cone or a line (they start from a
    /// corner of the caster's square toward `toward`).
    pub origin: Option<[i32; 2]>,
    /// The aimed square of a cone or a line (`None` for a burst-like area).
    pub toward: Option<Cell>,
    /// The area's squares (`[row, col]`), as the engine resolved them (CRB — Magic: Aiming a
    /// Spell, Area).
    pub cells: Vec<Cell>,
}

impl Episode {
    /// A new episode seeded with `ChaCha8Rng::seed_from_u64(seed)`. `controllers` has one entry
    /// per combatant (list order); shorter lists are padded with `DefaultPolicy`, extra entries
    /// ignored.
    pub fn new(encounter: Arc<Encounter>, seed: u64, controllers: &[Controller]) -> Episode {
        Self::with_dice(encounter, DiceSource::seeded(seed), controllers)
    }

    /// A new episode with an explicit dice source (scripted dice for golden tests).
    pub fn with_dice(
        encounter: Arc<Encounter>,
        dice: DiceSource,
        controllers: &[Controller],
    ) -> Episode {
        let n = encounter.combatants.len();
        let st: Vec<CState> = encounter.combatants.iter().map(initial_state).collect();
        let mut st = st;
        for s in st.iter_mut().filter(|s| s.absent) {
            s.life = LifeState::Dead;
        }
        let mut ctl: Vec<Controller> = controllers.iter().copied().take(n).collect();
        ctl.resize(n, Controller::DefaultPolicy);
        Episode {
            enc: encounter,
            start_dice: StartDice::of(&dice),
            dice,
            controllers: ctl,
            st,
            round: 0,
            order: Vec::new(),
            turn_pos: 0,
            phase: Phase::NotStarted,
            frames: Vec::new(),
            history: Vec::new(),
            turn: TurnState::default(),
            next_decision_id: 1,
            log: Vec::new(),
            attrition: vec![Attrition::default(); n],
            move_aoo_provoked: BTreeSet::new(),
            field_slot: Default::default(),
            steps: None,
            log_bytes: 0,
            history_bytes: 0,
            transcript: true,
        }
    }

    /// Keep the transcript ([`Episode::transcript`]) from now on, or not: a run whose lines
    /// nobody reads (a Monte Carlo run, `pf1e-sim`'s runs after the first) turns it off, and
    /// the lines are then neither formatted nor stored. Changes nothing else in play (state,
    /// dice, decisions, outcome): no rule reads the transcript. Lines already kept stay. A
    /// step recording ([`Episode::record_steps`]) cuts its steps at transcript lines, so it
    /// records nothing new while the transcript is off. On by default.
    pub fn keep_transcript(&mut self, keep: bool) {
        self.transcript = keep;
    }

    /// Whether transcript lines are kept now ([`Episode::keep_transcript`]): code that
    /// formats a line asks first, so a run without a transcript formats none.
    #[inline]
    pub(crate) fn keeps_transcript(&self) -> bool {
        self.transcript
    }

    /// Start recording the episode step by step, for a replay viewer: from now on, after each
    /// unit of resolution (a turn's start, one movement leg, one attack roll, one decision's
    /// answer…) that added transcript lines, a copy of the episode is kept: the state once
    /// that unit and the silent ones after it are done ([`Episode::take_steps`]). Recording changes nothing in play (state, dice, decisions);
    /// it costs one episode copy per step, so it is meant for one episode, not a batch.
    pub fn record_steps(&mut self) {
        if self.steps.is_none() {
            self.steps = Some(Box::new(StepRecording {
                snapshots: Vec::new(),
                logged: self.log.len(),
                pending: None,
                areas: Vec::new(),
            }));
        }
    }

    /// The copies kept since [`Episode::record_steps`] (each without a recording of its own),
    /// oldest first, one per step: the state after the step's unit of resolution and the
    /// silent ones that followed it (the whole walk of a `move` line), up to the next step or
    /// now; the step's transcript lines are the copy's transcript beyond the previous copy's.
    /// Recording goes on.
    pub fn take_steps(&mut self) -> Vec<Episode> {
        self.note_step();
        self.steps
            .as_mut()
            .map(|r| {
                let mut out = std::mem::take(&mut r.snapshots);
                out.extend(r.pending.take().map(|p| *p));
                out
            })
            .unwrap_or_default()
    }

    /// The spell areas resolved since [`Episode::record_steps`], oldest first (each with the
    /// index of its transcript line); empty when not recording. Recording goes on.
    pub fn take_recorded_areas(&mut self) -> Vec<AreaCast> {
        self.steps
            .as_mut()
            .map(|r| std::mem::take(&mut r.areas))
            .unwrap_or_default()
    }

    /// While recording: after a unit of resolution that added transcript lines, the episode
    /// as it is becomes the pending copy of a new step (the previous one is kept); after a
    /// silent unit (a square of a walk, a turn's end…), the pending copy is refreshed. So a
    /// step shows its lines with everything that followed them silently (the whole walk of a
    /// `move` line), up to the next line.
    #[inline]
    pub(crate) fn note_step(&mut self) {
        let Some(rec) = self.steps.as_ref() else {
            return;
        };
        let grew = self.log.len() != rec.logged;
        if !grew && rec.pending.is_none() {
            return;
        }
        let mut rec = self.steps.take().expect("checked above");
        if grew {
            rec.logged = self.log.len();
            if let Some(p) = rec.pending.take() {
                rec.snapshots.push(*p);
            }
        }
        rec.pending = Some(Box::new(self.clone()));
        self.steps = Some(rec);
    }

    /// The squares (row-major, `rows × cols`) threatened by any of `threateners` for a 1×1
    /// creature standing there (CRB — Combat: Threatened Squares): conscious, able to act and
    /// attack, a usable melee weapon whose reach covers the square, with line of effect.
    pub fn threatened_squares(&self, threateners: &[CombatantId]) -> Vec<bool> {
        crate::rules::reach::threatened_squares(self, threateners)
    }

    /// Run default-policy turns, dice, AoOs… until an external decision or the end.
    /// Idempotent while a decision is pending. [`Episode::advance_within`] with no limit.
    pub fn advance(&mut self) -> Status {
        match self.advance_within(&mut WorkBudget::unlimited()) {
            Ok(s) => s,
            Err(_) => unreachable!("an unlimited work budget never interrupts"),
        }
    }

    /// The current status without advancing. Before the first [`Episode::advance`] (or while
    /// default-policy turns are pending) this is the status `advance` would start from: an
    /// episode that is neither over nor waiting reports a decision-less state as
    /// `Status::Decision` only when one is pending; otherwise call `advance`.
    pub fn status(&self) -> Option<Status> {
        match &self.phase {
            Phase::Over(o) => Some(Status::Terminal(o.clone())),
            Phase::Awaiting(d) => Some(Status::Decision(d.clone())),
            _ => None,
        }
    }

    /// The pending decision, if any.
    pub fn decision(&self) -> Option<&Decision> {
        match &self.phase {
            Phase::Awaiting(d) => Some(d),
            _ => None,
        }
    }

    /// The outcome once the episode is over.
    pub fn outcome(&self) -> Option<&Outcome> {
        match &self.phase {
            Phase::Over(o) => Some(o),
            _ => None,
        }
    }

    /// Legal actions of the pending decision, sorted by id (empty if none pending). Never empty
    /// while a decision is pending: `end_turn` is always legal.
    pub fn legal_actions(&self) -> Vec<LegalAction> {
        match &self.phase {
            Phase::Awaiting(d) => crate::actions::legal::legal_actions(self, d),
            _ => Vec::new(),
        }
    }

    /// Answer the pending decision `decision_id` with `actions`, then resolve until the next
    /// pause (another decision, the end, or the next turn: call [`Episode::advance`]).
    ///
    /// At a **turn decision** the actions apply in order with the budget/downgrade rule (X4):
    /// an action that is not possible now is rejected (`ok = false` with a reason) and changes
    /// nothing; an action after `end_turn` (or after the turn ended) gets `turn_ended`; a
    /// reaction kind gets `wrong_decision_kind`. The turn ends on `end_turn`, or when nothing
    /// but `end_turn` is left; otherwise a new decision (new `decision_id`) follows.
    ///
    /// At a **reaction decision** ([`DecisionKind::is_reaction`]) the first action that answers
    /// it counts (`attack_of_opportunity` with an offered weapon, or `decline`); later ones get
    /// `decision_answered`, turn actions `wrong_decision_kind`. When none answers it, the same
    /// question comes back as a new decision.
    ///
    /// Returns one [`ActionResult`] per action resolved before the next pause. When another
    /// combatant's reaction interrupts the list (an attack of opportunity it provoked, asked of
    /// an external controller), the interrupted action has its result (accepted) and the rest
    /// of the list resumes after the reaction: their results are appended to this decision's
    /// [`HistoryEntry`] ([`Episode::results_of`]) as they resolve.
    ///
    /// # Errors
    /// [`SubmitError`] when no decision is pending, `decision_id` is not the pending one, or
    /// the list is empty; nothing is applied.
    pub fn submit(
        &mut self,
        decision_id: u64,
        actions: &[Action],
    ) -> Result<Vec<ActionResult>, SubmitError> {
        let d = match &self.phase {
            Phase::Over(_) => return Err(SubmitError::Terminal),
            Phase::Awaiting(d) => d.clone(),
            _ => return Err(SubmitError::NotAwaitingDecision),
        };
        if d.decision_id != decision_id {
            return Err(SubmitError::StaleDecision {
                expected: d.decision_id,
                got: decision_id,
            });
        }
        if actions.is_empty() {
            return Err(SubmitError::Empty);
        }
        let h = self.push_history(&d, actions);
        if d.kind.is_reaction() {
            let results = self.submit_reaction(&d, actions);
            self.note_step();
            self.run_frames();
            // The reaction's own results (the rest of an interrupted list are its own).
            return Ok(results);
        }
        let Some(crate::episode::frames::Frame::Turn(mut t)) = self.frames.pop() else {
            unreachable!("a turn decision waits on its turn frame");
        };
        // Reaction kinds never answer a turn decision.
        let list_actions: Vec<Action> = actions.to_vec();
        t.list = Some(crate::episode::frames::ActionList {
            actions: list_actions,
            next: 0,
            executing: None,
            history: Some(h),
            prep: false,
            refused: false,
            ended: false,
            then: None,
            signalled: false,
        });
        self.frames.push(crate::episode::frames::Frame::Turn(t));
        self.phase = Phase::Resolving;
        self.run_frames();
        Ok(self.history[h].results.clone())
    }

    /// The observation snapshot for `viewer` (the acting combatant when `None`).
    pub fn observation(&self, viewer: Option<CombatantId>) -> Observation {
        crate::observe::observation::build(self, viewer)
    }

    /// The fixed-shape tensor observation for `viewer` (see [`crate::observe::tensor`]).
    pub fn observation_tensor(
        &self,
        viewer: CombatantId,
    ) -> crate::observe::tensor::TensorObservation {
        crate::observe::tensor::build(self, viewer)
    }

    /// The action mask of the pending decision over the whole action space (1 = legal), or all
    /// zeros when no decision is pending.
    pub fn action_mask(&self) -> Vec<u8> {
        let mut mask = vec![0u8; self.action_space_size() as usize];
        if let Phase::Awaiting(d) = &self.phase {
            crate::actions::legal::fill_mask(self, d, &mut mask);
        }
        mask
    }

    /// The transcript so far.
    pub fn transcript(&self) -> &[LogLine] {
        &self.log
    }

    /// Attrition per combatant (list order).
    pub fn attrition(&self) -> &[Attrition] {
        &self.attrition
    }

    /// The encounter.
    pub fn encounter(&self) -> &Arc<Encounter> {
        &self.enc
    }

    /// Who plays each combatant, in combatant order.
    pub fn controllers(&self) -> &[Controller] {
        &self.controllers
    }

    /// Whether the dice, now and at the start, are plain seeded dice (never scripted or
    /// recording: what a server-created episode has; see [`DiceSource::is_seeded`]).
    pub fn seeded_dice(&self) -> bool {
        self.dice.is_seeded() && self.start_dice.is_seeded()
    }

    /// The dice source (its state advances with every roll).
    pub fn dice_source(&self) -> &DiceSource {
        &self.dice
    }

    /// Current round (0 before initiative).
    pub fn round(&self) -> u32 {
        self.round
    }

    /// Hit points of a combatant.
    pub fn hp(&self, id: CombatantId) -> i32 {
        self.st[id.0 as usize].hp
    }

    /// Anchor square of a combatant.
    pub fn position(&self, id: CombatantId) -> Cell {
        self.st[id.0 as usize].pos
    }

    /// Life state of a combatant.
    pub fn life_state(&self, id: CombatantId) -> LifeState {
        self.st[id.0 as usize].life
    }

    /// Initiative order (combatant ids, first acts first).
    pub fn initiative_order(&self) -> &[CombatantId] {
        &self.order
    }

    /// Size of the encounter's fixed discrete action space.
    pub fn action_space_size(&self) -> u32 {
        crate::actions::space::ActionSpace::of(&self.enc).size()
    }

    /// Decode an action id of the action space for the pending decision's actor (whether or not
    /// legal now). `None` if out of range or no decision is pending.
    pub fn action_from_id(&self, id: u32) -> Option<Action> {
        let actor = self.decision()?.actor;
        crate::actions::space::ActionSpace::of(&self.enc).decode(id, self.st[actor.0 as usize].pos)
    }

    /// The action id of an action for the pending decision's actor, if it has one.
    pub fn action_id(&self, action: &Action) -> Option<u32> {
        let actor = self.decision()?.actor;
        crate::actions::space::ActionSpace::of(&self.enc)
            .encode(action, self.st[actor.0 as usize].pos)
    }

    // ----- internals -------------------------------------------------------------------

    pub(crate) fn roll(&mut self, sides: u32) -> u32 {
        self.dice.roll(sides)
    }

    pub(crate) fn id_of(&self, c: CombatantId) -> &str {
        &self.enc.combatants[c.0 as usize].id
    }

    pub(crate) fn log_turn(&mut self, actor: CombatantId, message: String) {
        if !self.transcript {
            return;
        }
        let actor = self.id_of(actor).to_string();
        self.push_log(LogLine {
            round: Some(self.round),
            actor: Some(actor),
            message,
        });
    }

    /// [`Episode::log_turn`] with the line formatted by `message` only when a transcript is
    /// kept ([`Episode::keep_transcript`]).
    #[inline]
    pub(crate) fn log_turn_with(&mut self, actor: CombatantId, message: impl FnOnce() -> String) {
        if self.transcript {
            self.log_turn(actor, message());
        }
    }

    pub(crate) fn log_raw(&mut self, message: String) {
        self.push_log(LogLine {
            round: None,
            actor: None,
            message,
        });
    }

    /// Dry run: would `action` be accepted now for the pending decision? The result `submit`
    /// would give for it as the first action of a list, without changing anything (state,
    /// RNG, decision id).
    ///
    /// # Errors
    /// [`SubmitError`] when no decision is pending.
    pub fn validate(&self, action: &Action) -> Result<ActionResult, SubmitError> {
        let d = match &self.phase {
            Phase::Over(_) => return Err(SubmitError::Terminal),
            Phase::Awaiting(d) => d,
            _ => return Err(SubmitError::NotAwaitingDecision),
        };
        let checked = if d.kind.is_reaction() {
            crate::actions::reaction::check(d, action).map(|_| ())
        } else {
            self.check(d.actor, action).map(|_| ())
        };
        Ok(match checked {
            Ok(()) => ActionResult::accepted(action.kind),
            Err(r) => ActionResult::refused(action.kind, r),
        })
    }
}

/// A combatant's state at the start of an episode (a summoned creature's when it appears):
/// full hit points, flat-footed until it acts, its initial conditions, weapons in hand,
/// slots and uses per day full.
pub(crate) fn initial_state(p: &crate::content::encounter::Placed) -> CState {
    CState {
        pos: p.start,
        hp: p.spec.max_hp(),
        life: LifeState::Healthy,
        conditions: std::iter::once(ActiveCondition {
            condition: Condition::FlatFooted,
            rounds: None,
        })
        .chain(p.spec.conditions.iter().filter_map(|c| {
            // Validated when the combatant was loaded.
            Condition::from_name(&c.name).map(|condition| ActiveCondition {
                condition,
                rounds: c.rounds,
            })
        }))
        .fold(Vec::new(), |mut v, c| {
            if !v
                .iter()
                .any(|x: &ActiveCondition| x.condition == c.condition)
            {
                v.push(c);
            }
            v
        }),
        charging: false,
        aoo_used: 0,
        initiative_total: 0,
        last_turn_results: Vec::new(),
        ammo: p.spec.attacks.iter().map(|a| a.ammunition).collect(),
        power_attack: false,
        weapons: p
            .spec
            .attacks
            .iter()
            .map(crate::rules::items::WeaponState::new)
            .collect(),
        grapple: None,
        running: false,
        run_rounds: 0,
        run_checks: 0,
        run_rest: 0,
        total_defense: false,
        fight_defensively: false,
        defensive_ac_bonus: 0,
        readied: None,
        delayed_round: None,
        resume_delayed: false,
        acted_round: None,
        immediate_used: false,
        stepped_up: false,
        cleaving: false,
        lunge: false,
        stood_still: false,
        deadly_aim: false,
        combat_expertise: false,
        combat_expertise_ac: 0,
        aid: Vec::new(),
        // Only a combatant with slots holds them (no allocation for the others).
        slots_left: if p.spec.spell_slots.is_empty() {
            Vec::new()
        } else {
            (0..10u8).map(|l| p.spec.slots_of(l).unwrap_or(0)).collect()
        },
        spell_uses: p
            .spec
            .spellbook()
            .iter()
            .map(|s| match s.uses {
                crate::content::combatant::SpellUses::Counted(n) => Some(n),
                _ => None,
            })
            .collect(),
        cast_defensively: false,
        metamagic_next: Default::default(),
        pending_cast: None,
        held_charge: None,
        spell_effects: Vec::new(),
        // The amount of an initial `bleeding` condition (validated when loaded).
        bleed_damage: p
            .spec
            .conditions
            .iter()
            .find(|c| Condition::from_name(&c.name) == Some(Condition::Bleeding))
            .and_then(|c| c.amount.clone()),
        recurring: Vec::new(),
        mirror_images: 0,
        absent: p.summoned_by.is_some(),
        summon_rounds: 0,
        zones: Vec::new(),
    }
}
