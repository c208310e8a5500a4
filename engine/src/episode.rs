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

use crate::action::{reasons, Action, ActionKind, ActionResult, Budget, CombatantId, Slot};
use crate::dice::{Dice, DiceSource};
use crate::encounter::Encounter;
use crate::grid::Cell;
use crate::observation::Observation;
use serde::{Deserialize, Serialize};
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
        provocation: crate::resolve::Provocation,
        weapons: Vec<usize>,
    },
}

impl DecisionKind {
    /// The `snake_case` name (`turn_action`, `attack_of_opportunity`).
    pub fn name(&self) -> &'static str {
        match self {
            DecisionKind::TurnAction => "turn_action",
            DecisionKind::AttackOfOpportunity { .. } => "attack_of_opportunity",
        }
    }

    /// Whether this is a reaction (an off-turn decision), not a turn decision.
    pub fn is_reaction(&self) -> bool {
        !matches!(self, DecisionKind::TurnAction)
    }
}

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

/// Error of [`Episode::replay`]: history entry `index` does not match the replayed episode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("history entry {index}: {what}")]
pub struct ReplayError {
    pub index: usize,
    pub what: String,
}

/// Per-combatant attrition counters of one episode.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attrition {
    /// Attack rolls made (attacks of opportunity included).
    pub attacks: u32,
    pub hits: u32,
    /// Confirmed critical hits.
    pub crits: u32,
    /// Hit points of damage dealt (after DR and resistances).
    pub damage_dealt: i64,
    /// Hit points of damage taken (after DR and resistances; the killing blow counts fully).
    pub damage_taken: i64,
}

/// One transcript line: `round N id: message`, or a raw line (initiative, end of combat).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    pub round: Option<u32>,
    pub actor: Option<String>,
    pub message: String,
}

impl std::fmt::Display for LogLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.round, &self.actor) {
            (Some(r), Some(a)) => write!(f, "round {r} {a}: {}", self.message),
            _ => write!(f, "{}", self.message),
        }
    }
}

/// Life state derived from hit points (CRB — Combat: Injury and Death).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LifeState {
    /// `hp > 0`.
    Healthy,
    /// `hp == 0`: one move or standard action per turn; a standard action costs 1 hp.
    Disabled,
    /// `hp < 0` and above the death threshold: unconscious, loses 1 hp per turn unless stable.
    Dying,
    /// Dying but stabilized: unconscious, no more hp loss.
    Stable,
    /// Dead (or destroyed).
    Dead,
}

impl LifeState {
    /// Conscious (can act and counts for its side).
    pub fn is_conscious(self) -> bool {
        matches!(self, LifeState::Healthy | LifeState::Disabled)
    }
}

/// Runtime state of one combatant.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CState {
    pub pos: Cell,
    pub hp: i32,
    pub life: LifeState,
    /// Conditions (CRB — Appendix: Conditions), e.g. flat-footed until its first turn (CRB —
    /// Combat: Initiative, Flat-Footed). See [`crate::conditions`].
    pub conditions: Vec<crate::conditions::ActiveCondition>,
    /// Charged this turn: −2 AC until the start of its next turn.
    pub charging: bool,
    pub aoo_used: u32,
    pub initiative_total: i32,
    pub last_turn_results: Vec<ActionResult>,
    /// Ammunition left per attack (`None` = not counted).
    pub ammo: Vec<Option<u32>>,
    /// Power Attack is on (CRB — Feats: Power Attack), toggled by `activate_power_attack`.
    #[serde(default)]
    pub power_attack: bool,
    /// State of each attack's item: dropped (disarm), broken/destroyed (sunder).
    #[serde(default)]
    pub weapons: Vec<crate::maneuvers::WeaponState>,
    /// The grapple this combatant is in (CRB — Combat: Grapple).
    #[serde(default)]
    pub grapple: Option<crate::maneuvers::GrappleLink>,
    /// Ran this turn: denied Dex to AC until its next turn unless it has Run.
    #[serde(default)]
    pub running: bool,
    /// Consecutive turns spent running, Constitution checks made for this streak, and turns
    /// of rest left after failing one (CRB — Actions in Combat: Run).
    #[serde(default)]
    pub run_rounds: u32,
    #[serde(default)]
    pub run_checks: u32,
    #[serde(default)]
    pub run_rest: u32,
}

/// Per-turn bookkeeping of the acting combatant.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct TurnState {
    pub standard_used: bool,
    pub move_used: bool,
    pub full_round_used: bool,
    /// Any movement this turn (5-foot step excluded from other movement and vice versa).
    pub moved: bool,
    pub stepped: bool,
    /// Disabled combatants: a single move or standard action.
    pub disabled_acted: bool,
    /// Ran this turn (the run streak goes on).
    #[serde(default)]
    pub ran: bool,
    pub results: Vec<ActionResult>,
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
    pub(crate) controllers: Vec<Controller>,
    pub(crate) st: Vec<CState>,
    pub(crate) round: u32,
    pub(crate) order: Vec<CombatantId>,
    pub(crate) turn_pos: usize,
    pub(crate) phase: Phase,
    /// Pending work, last = next to run (see [`crate::resolve`]).
    pub(crate) frames: Vec<crate::resolve::Frame>,
    /// Every answered decision, in order.
    pub(crate) history: Vec<HistoryEntry>,
    pub(crate) turn: TurnState,
    next_decision_id: u64,
    pub(crate) log: Vec<LogLine>,
    pub(crate) attrition: Vec<Attrition>,
    /// `(threatener, mover)` pairs whose "leaving a threatened square" opportunity was used
    /// this round (CRB — Combat: Attacks of Opportunity, "Moving out of more than one square…").
    pub(crate) move_aoo_provoked: BTreeSet<(CombatantId, CombatantId)>,
    /// Movement fields computed last (a cache: see `rules::FieldSlot`).
    pub(crate) field_slot: crate::rules::FieldSlot,
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
        let st = encounter
            .combatants
            .iter()
            .map(|p| CState {
                pos: p.start,
                hp: p.spec.hp_max,
                life: LifeState::Healthy,
                conditions: std::iter::once(crate::conditions::ActiveCondition {
                    name: "flat_footed".into(),
                    rounds: None,
                })
                .chain(p.spec.conditions.iter().filter_map(|c| {
                    crate::conditions::def(&c.name).map(|d| crate::conditions::ActiveCondition {
                        name: d.name.to_string(),
                        rounds: c.rounds,
                    })
                }))
                .fold(Vec::new(), |mut v, c| {
                    if !v
                        .iter()
                        .any(|x: &crate::conditions::ActiveCondition| x.name == c.name)
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
                    .map(crate::maneuvers::WeaponState::new)
                    .collect(),
                grapple: None,
                running: false,
                run_rounds: 0,
                run_checks: 0,
                run_rest: 0,
            })
            .collect();
        let mut ctl: Vec<Controller> = controllers.iter().copied().take(n).collect();
        ctl.resize(n, Controller::DefaultPolicy);
        Episode {
            enc: encounter,
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
        }
    }

    /// Run default-policy turns, dice, AoOs… until an external decision or the end.
    /// Idempotent while a decision is pending.
    pub fn advance(&mut self) -> Status {
        loop {
            match &self.phase {
                Phase::Over(o) => return Status::Terminal(o.clone()),
                Phase::Awaiting(d) => return Status::Decision(d.clone()),
                Phase::NotStarted => {
                    self.roll_initiative();
                    self.round = 1;
                    self.turn_pos = 0;
                    self.phase = Phase::TurnStart;
                    if self.check_end() {
                        continue;
                    }
                }
                Phase::TurnStart => {
                    let actor = self.order[self.turn_pos];
                    let skip = self.begin_turn(actor);
                    if self.check_end() {
                        continue;
                    }
                    if skip || !self.st[actor.0 as usize].life.is_conscious() {
                        self.end_turn();
                        continue;
                    }
                    if self.controllers[actor.0 as usize] == Controller::External
                        && self.only_end_turn_left(actor)
                    {
                        self.end_turn();
                        continue;
                    }
                    // The default policy plans again after a preparatory action (stand up,
                    // pick up a weapon, toggle Power Attack), with the budget that is left,
                    // at most 4 times per turn.
                    self.frames
                        .push(crate::resolve::Frame::Turn(crate::resolve::TurnFrame {
                            actor,
                            plans_left: 4,
                            acted: false,
                            list: None,
                        }));
                    self.phase = Phase::Resolving;
                }
                Phase::Resolving => self.run_frames(),
            }
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
            Phase::Awaiting(d) => crate::legal::legal_actions(self, d),
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
            self.run_frames();
            // The reaction's own results (the rest of an interrupted list are its own).
            return Ok(results);
        }
        let Some(crate::resolve::Frame::Turn(mut t)) = self.frames.pop() else {
            unreachable!("a turn decision waits on its turn frame");
        };
        // Reaction kinds never answer a turn decision.
        let list_actions: Vec<Action> = actions.to_vec();
        t.list = Some(crate::resolve::ActionList {
            actions: list_actions,
            next: 0,
            executing: None,
            history: Some(h),
            prep: false,
            refused: false,
            ended: false,
        });
        self.frames.push(crate::resolve::Frame::Turn(t));
        self.phase = Phase::Resolving;
        self.run_frames();
        Ok(self.history[h].results.clone())
    }

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
        let mut ep = Episode::with_dice(encounter, dice, controllers);
        for (i, e) in history.iter().enumerate() {
            let mismatch = |what: String| ReplayError { index: i, what };
            match ep.advance() {
                Status::Terminal(_) => return Err(mismatch("the episode is already over".into())),
                Status::Decision(d) => {
                    if d.decision_id != e.decision_id || d.actor != e.actor || d.kind != e.kind {
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
                }
            }
            ep.submit(e.decision_id, &e.actions)
                .map_err(|x| mismatch(x.to_string()))?;
        }
        ep.advance();
        Ok(ep)
    }

    /// The observation snapshot for `viewer` (the acting combatant when `None`).
    pub fn observation(&self, viewer: Option<CombatantId>) -> Observation {
        crate::observation::build(self, viewer)
    }

    /// The fixed-shape tensor observation for `viewer` (see [`crate::tensor`]).
    pub fn observation_tensor(&self, viewer: CombatantId) -> crate::tensor::TensorObservation {
        crate::tensor::build(self, viewer)
    }

    /// The action mask of the pending decision over the whole action space (1 = legal), or all
    /// zeros when no decision is pending.
    pub fn action_mask(&self) -> Vec<u8> {
        let mut mask = vec![0u8; self.action_space_size() as usize];
        if let Phase::Awaiting(d) = &self.phase {
            crate::legal::fill_mask(self, d, &mut mask);
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
        crate::legal::ActionSpace::of(&self.enc).size()
    }

    /// Decode an action id of the action space for the pending decision's actor (whether or not
    /// legal now). `None` if out of range or no decision is pending.
    pub fn action_from_id(&self, id: u32) -> Option<Action> {
        let actor = self.decision()?.actor;
        crate::legal::ActionSpace::of(&self.enc).decode(id, self.st[actor.0 as usize].pos)
    }

    /// The action id of an action for the pending decision's actor, if it has one.
    pub fn action_id(&self, action: &Action) -> Option<u32> {
        let actor = self.decision()?.actor;
        crate::legal::ActionSpace::of(&self.enc).encode(action, self.st[actor.0 as usize].pos)
    }

    /// A snapshot of the whole episode state (RNG included) as bytes (JSON), to restore later
    /// with [`Episode::restore`] on the same encounter. Restoring and submitting the same
    /// actions gives the same transcript.
    pub fn snapshot(&self) -> Vec<u8> {
        let snap = SnapshotRef {
            format: SNAPSHOT_FORMAT,
            engine: crate::VERSION,
            encounter: encounter_fingerprint(&self.enc),
            dice: &self.dice,
            controllers: &self.controllers,
            st: &self.st,
            round: self.round,
            order: &self.order,
            turn_pos: self.turn_pos,
            phase: &self.phase,
            frames: &self.frames,
            history: &self.history,
            turn: &self.turn,
            next_decision_id: self.next_decision_id,
            log: &self.log,
            attrition: &self.attrition,
            move_aoo_provoked: &self.move_aoo_provoked,
        };
        serde_json::to_vec(&snap).expect("episode state serializes")
    }

    /// Rebuild an episode from [`Episode::snapshot`] bytes.
    ///
    /// # Errors
    /// [`SnapshotError`] if the bytes are not a snapshot of this format, or were taken on a
    /// different encounter or engine version.
    pub fn restore(encounter: Arc<Encounter>, bytes: &[u8]) -> Result<Episode, SnapshotError> {
        let s: SnapshotOwned =
            serde_json::from_slice(bytes).map_err(|e| SnapshotError::Malformed(e.to_string()))?;
        if s.format != SNAPSHOT_FORMAT || s.engine != crate::VERSION {
            return Err(SnapshotError::Version {
                found: format!("format {} engine {}", s.format, s.engine),
            });
        }
        if s.encounter != encounter_fingerprint(&encounter) {
            return Err(SnapshotError::OtherEncounter);
        }
        let n = encounter.combatants.len();
        let bad = |what: &str| Err(SnapshotError::Malformed(what.to_string()));
        if s.st.len() != n || s.controllers.len() != n || s.attrition.len() != n {
            return bad("combatant count mismatch");
        }
        let mut seen = vec![false; n];
        for c in &s.order {
            match seen.get_mut(c.0 as usize) {
                Some(x) if !*x => *x = true,
                _ => return bad("initiative order is not a permutation of the combatants"),
            }
        }
        if !(s.order.is_empty() || s.order.len() == n) || s.turn_pos >= n.max(1) {
            return bad("turn position out of range");
        }
        // A snapshot is client data: check every invariant the engine relies on, so a tampered
        // one is refused instead of producing an impossible state.
        const MAX_ID: u64 = 1 << 53;
        if s.next_decision_id > MAX_ID {
            return bad("decision counter out of range");
        }
        let cap = encounter.options.round_cap;
        let started = !s.order.is_empty();
        if s.round > cap || (started && s.round == 0) || (!started && s.round != 0) {
            return bad("round out of range");
        }
        match &s.phase {
            Phase::Awaiting(d) => {
                let i = d.actor.0 as usize;
                if i >= n || !started {
                    return bad("the awaited actor is not a combatant");
                }
                if !d.kind.is_reaction() && s.order[s.turn_pos] != d.actor {
                    return bad("the awaited actor is not the one whose turn it is");
                }
                if s.controllers[i] != Controller::External {
                    return bad("the awaited actor is not externally controlled");
                }
                if !s.st[i].life.is_conscious() || d.round != s.round {
                    return bad(
                        "the awaited decision is impossible (actor unconscious or wrong round)",
                    );
                }
                if d.decision_id >= s.next_decision_id {
                    return bad("decision id ahead of the decision counter");
                }
            }
            Phase::Over(o) => {
                if o.rounds > cap
                    || o.winner
                        .as_ref()
                        .is_some_and(|w| !encounter.sides.contains(w))
                {
                    return bad("outcome out of range");
                }
            }
            Phase::NotStarted | Phase::TurnStart => {}
            Phase::Resolving => return bad("a snapshot is taken at rest, never mid-resolution"),
        }
        let mut taken: std::collections::BTreeSet<Cell> = Default::default();
        for (i, c) in s.st.iter().enumerate() {
            let spec = &encounter.combatants[i].spec;
            let cells = crate::grid::footprint(c.pos, spec.size.footprint_side());
            let in_map = cells.iter().all(|x| encounter.grid.in_bounds(*x));
            let known = c
                .conditions
                .iter()
                .all(|k| crate::conditions::def(&k.name).is_some());
            let hp_ok = c.hp <= spec.hp_max + 1000 && c.hp >= -100_000;
            let grapple_ok = c.grapple.is_none_or(|g| (g.with.0 as usize) < n);
            if !in_map
                || c.ammo.len() != spec.attacks.len()
                || c.weapons.len() != spec.attacks.len()
                || !known
                || !hp_ok
                || !grapple_ok
            {
                return bad("combatant state does not fit the encounter");
            }
            // Tiny-or-smaller creatures may share a square with larger ones.
            let tiny = spec.size <= crate::data::Size::Tiny;
            if c.life.is_conscious() && !tiny && !cells.iter().all(|x| taken.insert(*x)) {
                return bad("two conscious combatants share a square");
            }
        }
        if let Err(what) = crate::resolve::check_frames(
            &encounter,
            &s.phase,
            &s.frames,
            s.order.get(s.turn_pos).copied(),
            s.history.len(),
        ) {
            return bad(what);
        }
        if s.history.len() as u64 >= s.next_decision_id.max(1)
            || s.history.iter().any(|e| {
                e.actor.0 as usize >= n
                    || e.decision_id >= s.next_decision_id
                    || e.actions.len() > 1 << 16
                    || e.results.len() > e.actions.len()
            })
        {
            return bad("history does not fit the decision counter or the encounter");
        }
        if s.move_aoo_provoked
            .iter()
            .any(|(a, b)| a.0 as usize >= n || b.0 as usize >= n)
        {
            return bad("attack-of-opportunity bookkeeping names unknown combatants");
        }
        Ok(Episode {
            enc: encounter,
            dice: s.dice,
            controllers: s.controllers,
            st: s.st,
            round: s.round,
            order: s.order,
            turn_pos: s.turn_pos,
            phase: s.phase,
            frames: s.frames,
            history: s.history,
            turn: s.turn,
            next_decision_id: s.next_decision_id,
            log: s.log,
            attrition: s.attrition,
            move_aoo_provoked: s.move_aoo_provoked,
            field_slot: Default::default(),
        })
    }

    // ----- internals -------------------------------------------------------------------

    pub(crate) fn roll(&mut self, sides: u32) -> u32 {
        self.dice.roll(sides)
    }

    pub(crate) fn id_of(&self, c: CombatantId) -> &str {
        &self.enc.combatants[c.0 as usize].id
    }

    pub(crate) fn log_turn(&mut self, actor: CombatantId, message: String) {
        let actor = self.id_of(actor).to_string();
        self.log.push(LogLine {
            round: Some(self.round),
            actor: Some(actor),
            message,
        });
    }

    pub(crate) fn log_raw(&mut self, message: String) {
        self.log.push(LogLine {
            round: None,
            actor: None,
            message,
        });
    }

    /// Initiative: d20 + modifier for each combatant in list order; sorted by total, then
    /// modifier, then list order (CRB — Combat: Initiative; no re-roll of ties).
    fn roll_initiative(&mut self) {
        let n = self.st.len();
        for i in 0..n {
            let unknown = crate::feats::unknown_feats(&self.enc.combatants[i].spec);
            if !unknown.is_empty() {
                let id = self.enc.combatants[i].id.clone();
                self.log_raw(format!(
                    "warning: {id}: unknown feats ignored: {}",
                    unknown.join(", ")
                ));
            }
        }
        let mut keys = Vec::with_capacity(n);
        for i in 0..n {
            let m = self.enc.combatants[i].spec.initiative_mod
                + crate::effects::resolve(
                    &self.modifiers_for(CombatantId(i as u16)),
                    crate::effects::Stat::Initiative,
                    &Default::default(),
                )
                .total;
            let d = self.roll(20) as i32;
            self.st[i].initiative_total = d + m;
            let id = self.enc.combatants[i].id.clone();
            self.log_raw(format!("initiative: {id} d20={d}{m:+}={}", d + m));
            keys.push((d + m, m, i));
        }
        keys.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        self.order = keys.iter().map(|k| CombatantId(k.2 as u16)).collect();
    }

    /// Start of a turn; returns whether the turn is lost (a condition forbids acting, or a
    /// confused creature's d% roll says so).
    fn begin_turn(&mut self, actor: CombatantId) -> bool {
        self.turn = TurnState::default();
        let i = actor.0 as usize;
        // Flat-footed until it acts (an explicit duration keeps its own count).
        self.st[i]
            .conditions
            .retain(|c| !(c.name == "flat_footed" && c.rounds.is_none()));
        self.st[i].charging = false;
        self.st[i].running = false;
        if self.st[i].life == LifeState::Dying {
            self.stabilization_check(actor);
        }
        if !self.st[i].life.is_conscious() {
            return true;
        }
        // Bleed (CRB — Conditions: Bleed): damage at the start of its turn (1 hp here).
        if self.has_condition(actor, "bleeding") {
            self.log_turn(actor, "bleeds: loses 1 hp".into());
            self.lose_hp(actor, 1);
            if !self.st[i].life.is_conscious() {
                return true;
            }
        }
        let blocking: Vec<&str> = self
            .cond_defs(actor)
            .filter(|d| d.cant_act)
            .map(|d| d.name)
            .collect();
        if !blocking.is_empty() {
            let why = blocking.join(", ");
            self.log_turn(actor, format!("cannot act ({why})"));
            return true;
        }
        if self.has_condition(actor, "confused") && crate::rules::confused_turn(self, actor) {
            return true;
        }
        false
    }

    /// Dying at the start of its turn: DC 10 Constitution check with a penalty equal to the
    /// negative hit point total; a natural 20 succeeds; failure loses 1 hp (CRB — Combat:
    /// Injury and Death, Dying / Stable Characters and Recovery).
    fn stabilization_check(&mut self, actor: CombatantId) {
        let i = actor.0 as usize;
        let con_mod = self.enc.combatants[i].spec.abilities.con_mod();
        let hp = self.st[i].hp;
        let d = self.roll(20) as i32;
        let total = d + con_mod + hp; // hp is negative: the penalty
        if d == 20 || total >= 10 {
            self.st[i].life = LifeState::Stable;
            self.log_turn(
                actor,
                format!("stabilize d20={d}{con_mod:+}{hp:+}={total} vs DC 10 -> stable"),
            );
        } else {
            self.log_turn(
                actor,
                format!("stabilize d20={d}{con_mod:+}{hp:+}={total} vs DC 10 -> loses 1 hp"),
            );
            self.lose_hp(actor, 1);
        }
    }

    /// Lose hit points (no attacker) and update the life state.
    pub(crate) fn lose_hp(&mut self, c: CombatantId, amount: i32) {
        let i = c.0 as usize;
        self.st[i].hp -= amount;
        self.update_life(c);
    }

    /// Recompute the life state after hit point loss (CRB — Combat: Injury and Death; Bestiary
    /// — Creature Types: undead and constructs are destroyed at 0 hp).
    pub(crate) fn update_life(&mut self, c: CombatantId) {
        let i = c.0 as usize;
        let spec = &self.enc.combatants[i].spec;
        let hp = self.st[i].hp;
        let before = self.st[i].life;
        let no_con = spec.abilities.con_score.is_none()
            || matches!(
                spec.creature_type.as_deref(),
                Some("undead") | Some("construct")
            );
        let simple = self.enc.options.simple_monster_death && !spec.player_character;
        let new = if before == LifeState::Dead {
            LifeState::Dead
        } else if no_con || simple {
            if hp <= 0 {
                LifeState::Dead
            } else {
                LifeState::Healthy
            }
        } else {
            let con = spec.abilities.con_score.unwrap_or(0);
            if hp <= -con {
                LifeState::Dead
            } else if hp < 0 {
                // Only called after hit point loss: new damage while stable resumes dying.
                LifeState::Dying
            } else if hp == 0 {
                LifeState::Disabled
            } else {
                LifeState::Healthy
            }
        };
        self.st[i].life = new;
        if !new.is_conscious() && self.st[i].grapple.is_some() {
            // A grapple ends when either creature falls (CRB — Grapple: nothing holds it).
            crate::maneuvers::end_grapple(self, c);
        }
        if new != before {
            let id = self.id_of(c).to_string();
            let what = match new {
                LifeState::Healthy => None,
                LifeState::Disabled => Some("is disabled"),
                LifeState::Dying => Some("is dying"),
                LifeState::Stable => None,
                LifeState::Dead if no_con => Some("is destroyed"),
                LifeState::Dead => Some("dies"),
            };
            if let Some(w) = what {
                self.log.push(LogLine {
                    round: Some(self.round),
                    actor: Some(id),
                    message: format!("{w} (hp {hp})"),
                });
            }
        }
    }

    /// The outcome if the combat is decided now: at most one side with conscious combatants.
    pub(crate) fn outcome_now(&self) -> Option<Outcome> {
        let mut alive: Vec<&str> = Vec::new();
        for (i, p) in self.enc.combatants.iter().enumerate() {
            if self.st[i].life.is_conscious() && !alive.contains(&p.side.as_str()) {
                alive.push(&p.side);
            }
        }
        if alive.len() <= 1 {
            Some(Outcome {
                winner: alive.first().map(|s| s.to_string()),
                rounds: self.round,
                truncated: false,
            })
        } else {
            None
        }
    }

    /// Move to `Over` if decided; returns whether the episode is over.
    pub(crate) fn check_end(&mut self) -> bool {
        if let Phase::Over(_) = self.phase {
            return true;
        }
        if let Some(o) = self.outcome_now() {
            self.finish(o);
            return true;
        }
        false
    }

    fn finish(&mut self, o: Outcome) {
        // The combat is decided: no pending work goes on.
        self.frames.clear();
        if !self.turn.results.is_empty() && !self.order.is_empty() {
            let actor = self.order[self.turn_pos];
            self.st[actor.0 as usize].last_turn_results = std::mem::take(&mut self.turn.results);
        }
        let msg = match (&o.winner, o.truncated) {
            (_, true) => format!("battle over: draw (round cap {} reached)", o.rounds),
            (Some(w), false) => format!("battle over: {w} win in {} rounds", o.rounds),
            (None, false) => format!("battle over: no side standing after {} rounds", o.rounds),
        };
        self.log_raw(msg);
        self.phase = Phase::Over(o);
    }

    pub(crate) fn new_decision(&mut self, actor: CombatantId, kind: DecisionKind) {
        let budget = if kind.is_reaction() {
            Budget::default()
        } else {
            self.budget(actor)
        };
        let d = Decision {
            decision_id: self.next_decision_id,
            actor,
            round: self.round,
            budget,
            kind,
        };
        self.next_decision_id += 1;
        self.phase = Phase::Awaiting(d);
    }

    /// End the current turn; advance to the next combatant / round; apply the round cap.
    pub(crate) fn end_turn(&mut self) {
        debug_assert!(self.frames.is_empty(), "a turn ends with no pending work");
        let actor = self.order[self.turn_pos];
        self.st[actor.0 as usize].last_turn_results = std::mem::take(&mut self.turn.results);
        {
            // Run endurance (CRB — Run): the streak breaks on a turn without running; the
            // rest after a failed check counts down one per turn.
            let s = &mut self.st[actor.0 as usize];
            if !self.turn.ran {
                s.run_rounds = 0;
                s.run_checks = 0;
            }
            s.run_rest = s.run_rest.saturating_sub(1);
        }
        self.tick_conditions(actor);
        self.turn = TurnState::default();
        self.turn_pos += 1;
        self.phase = Phase::TurnStart;
        if self.turn_pos >= self.order.len() {
            self.turn_pos = 0;
            if self.round >= self.enc.options.round_cap {
                let o = Outcome {
                    winner: None,
                    rounds: self.round,
                    truncated: true,
                };
                self.finish(o);
                return;
            }
            self.round += 1;
            for s in &mut self.st {
                s.aoo_used = 0;
            }
            self.move_aoo_provoked.clear();
        }
    }

    /// True when nothing but `end_turn` is legal for the actor now.
    pub(crate) fn only_end_turn_left(&self, actor: CombatantId) -> bool {
        !crate::legal::any_besides_end_turn(self, actor)
    }

    /// The remaining budget of the acting combatant (CRB — Combat: Actions in Combat; Injury
    /// and Death, Disabled).
    pub(crate) fn budget(&self, actor: CombatantId) -> Budget {
        let t = &self.turn;
        let disabled = self.single_action(actor);
        let nauseated = self.cond_flag(actor, |d| d.single_move);
        let spent_disabled = disabled && t.disabled_acted;
        let standard = !(t.standard_used || t.full_round_used || spent_disabled || nauseated);
        let move_slot = !(t.full_round_used
            || (t.move_used && !standard)
            || spent_disabled
            || (nauseated && t.move_used));
        let full_round =
            !disabled && !nauseated && !t.standard_used && !t.move_used && !t.full_round_used;
        Budget {
            standard,
            move_action: move_slot,
            swift: true,
            full_round,
            five_foot_step: !t.moved && !nauseated,
        }
    }

    /// A single move or standard action per turn: disabled (CRB — Injury and Death) or
    /// staggered (CRB — Conditions: Staggered).
    pub(crate) fn single_action(&self, actor: CombatantId) -> bool {
        self.st[actor.0 as usize].life == LifeState::Disabled
            || self.cond_flag(actor, |d| d.staggered)
    }

    /// Whether the slot is available now.
    pub(crate) fn slot_free(&self, actor: CombatantId, slot: Slot) -> bool {
        let b = self.budget(actor);
        match slot {
            Slot::Standard => b.standard,
            Slot::Move => b.move_action,
            Slot::Swift => b.swift,
            Slot::FullRound => b.full_round,
            Slot::Free => true,
        }
    }

    /// Consume a slot: a move action uses the move slot, or the standard one when the move
    /// slot is spent (CRB: a move action may be taken in place of a standard action).
    pub(crate) fn consume_slot(&mut self, actor: CombatantId, slot: Slot) {
        let disabled = self.single_action(actor);
        match slot {
            Slot::Standard => self.turn.standard_used = true,
            Slot::Move => {
                if !self.turn.move_used {
                    self.turn.move_used = true;
                } else {
                    self.turn.standard_used = true;
                }
            }
            Slot::FullRound => self.turn.full_round_used = true,
            Slot::Swift | Slot::Free => {}
        }
        if disabled && matches!(slot, Slot::Standard | Slot::Move | Slot::FullRound) {
            self.turn.disabled_acted = true;
        }
    }

    /// Check an action for `actor` now without applying it: the budget slot, then the rule
    /// checks. Never rolls dice nor changes anything.
    pub(crate) fn check(
        &self,
        actor: CombatantId,
        a: &Action,
    ) -> Result<Option<crate::rules::Plan>, &'static str> {
        if !self.st[actor.0 as usize].life.is_conscious() {
            return Err(reasons::CANNOT_ACT);
        }
        if a.kind.is_reaction() {
            return Err(reasons::WRONG_DECISION_KIND);
        }
        if a.kind == ActionKind::EndTurn {
            return Ok(None);
        }
        if self.cond_flag(actor, |d| d.cant_act) {
            return Err(reasons::CANNOT_ACT);
        }
        let escape =
            a.kind == ActionKind::Maneuver && a.maneuver == Some(crate::action::Maneuver::Escape);
        let attacks = matches!(
            a.kind,
            ActionKind::Attack | ActionKind::FullAttack | ActionKind::Charge
        ) || (a.kind == ActionKind::Maneuver && !escape);
        let moves = matches!(
            a.kind,
            ActionKind::Move
                | ActionKind::Charge
                | ActionKind::FiveFootStep
                | ActionKind::Withdraw
                | ActionKind::Run
                | ActionKind::StandUp
        );
        // Fatigued, exhausted, entangled: no charge and no run (CRB — Conditions).
        let charge_like = matches!(a.kind, ActionKind::Charge | ActionKind::Run);
        // Prone: no movement but standing up (crawling 5 ft is not modelled) — CRB —
        // Conditions: Prone.
        let prone_moves =
            moves && a.kind != ActionKind::StandUp && self.has_condition(actor, "prone");
        // Nauseated: a single move action, nothing else — no 5-foot step either, as the
        // turn budget says (CRB — Conditions: Nauseated).
        let nauseated_step =
            a.kind == ActionKind::FiveFootStep && self.cond_flag(actor, |d| d.single_move);
        if (attacks && self.cond_flag(actor, |d| d.cant_attack))
            || nauseated_step
            || (moves && self.cond_flag(actor, |d| d.cant_move))
            || prone_moves
            || (charge_like && self.cond_flag(actor, |d| d.no_charge))
        {
            return Err(reasons::PREVENTED_BY_CONDITION);
        }
        let slot = a.kind.slot();
        if !self.slot_free(actor, slot) {
            let disabled = self.st[actor.0 as usize].life == LifeState::Disabled;
            return Err(if disabled && slot != Slot::Free {
                reasons::DOWNGRADED_DISABLED
            } else {
                reasons::DOWNGRADED_ACTION_ECONOMY
            });
        }
        crate::rules::plan_action(self, actor, a).map(Some)
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
            self.check_reaction(d, action).map(|_| ())
        } else {
            self.check(d.actor, action).map(|_| ())
        };
        Ok(match checked {
            Ok(()) => ActionResult {
                kind: action.kind,
                ok: true,
                reason: None,
            },
            Err(r) => ActionResult {
                kind: action.kind,
                ok: false,
                reason: Some(r.to_string()),
            },
        })
    }
}

/// Version of the snapshot byte format.
const SNAPSHOT_FORMAT: u32 = 4;

/// Error of [`Episode::restore`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SnapshotError {
    #[error("not a valid episode snapshot: {0}")]
    Malformed(String),
    #[error("snapshot from another engine version ({found})")]
    Version { found: String },
    #[error("snapshot taken on a different encounter")]
    OtherEncounter,
}

/// FNV-1a 64 of the encounter's JSON serialization: identifies the encounter a snapshot
/// belongs to.
fn encounter_fingerprint(enc: &Encounter) -> u64 {
    let bytes = serde_json::to_vec(enc).expect("encounter serializes");
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[derive(Serialize)]
struct SnapshotRef<'a> {
    format: u32,
    engine: &'a str,
    encounter: u64,
    dice: &'a DiceSource,
    controllers: &'a [Controller],
    st: &'a [CState],
    round: u32,
    order: &'a [CombatantId],
    turn_pos: usize,
    phase: &'a Phase,
    frames: &'a [crate::resolve::Frame],
    history: &'a [HistoryEntry],
    turn: &'a TurnState,
    next_decision_id: u64,
    log: &'a [LogLine],
    attrition: &'a [Attrition],
    move_aoo_provoked: &'a BTreeSet<(CombatantId, CombatantId)>,
}

#[derive(Deserialize)]
struct SnapshotOwned {
    format: u32,
    engine: String,
    encounter: u64,
    dice: DiceSource,
    controllers: Vec<Controller>,
    st: Vec<CState>,
    round: u32,
    order: Vec<CombatantId>,
    turn_pos: usize,
    phase: Phase,
    frames: Vec<crate::resolve::Frame>,
    history: Vec<HistoryEntry>,
    turn: TurnState,
    next_decision_id: u64,
    log: Vec<LogLine>,
    attrition: Vec<Attrition>,
    move_aoo_provoked: BTreeSet<(CombatantId, CombatantId)>,
}
