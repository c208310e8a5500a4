//! The resumable resolution core: pending work as explicit, serialisable **frames**.
//!
//! Everything that can wait on a decision — a combatant's turn with the rest of its action
//! list, a movement with the rest of its path, an attack sequence with the swings left, an
//! attack-of-opportunity window with the threateners still to ask, the end of a maneuver or of
//! standing up after the opportunity it provoked — is a [`Frame`] on the episode's stack.
//! [`Episode::run_frames`] pops the top frame and steps it; a step either finishes the frame,
//! or pushes it back (updated) with child frames above it, or pushes it back and stops at a
//! decision of an externally controlled combatant ([`crate::episode::Phase::Awaiting`]).
//! Nothing that waits for an answer lives on the Rust call stack, so an episode can be cloned,
//! snapshotted and restored at any decision and resumes exactly.
//!
//! The order of work is the order of the rules text (CRB — Combat: Attacks of Opportunity:
//! "an attack of opportunity … happens before the provoking action continues"): a frame pushed
//! by a step runs before its parent resumes. Every die is rolled in the same order as a direct
//! recursive resolution would roll it, so default-policy episodes are identical to the engine
//! before this core (see the commit that introduced it).

use crate::actions::{Action, ActionKind, ActionResult, CombatantId, Reject, Slot};
use crate::effects::conditions::Condition;
use crate::episode::{Controller, Decision, DecisionKind, Episode, HistoryEntry, Phase};
use crate::geometry::grid::Cell;
use crate::rules::aoo::Provocation;
use crate::rules::attack_roll::AttackOpts;
use crate::rules::maneuvers::ManeuverPlan;
use crate::rules::ready::ReadyEvent;
use crate::rules::{self, idx};
use serde::{Deserialize, Serialize};

/// One unit of pending work. See the module documentation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Frame {
    /// A combatant's turn: the action list it is applying, or (none) its next decision.
    Turn(TurnFrame),
    /// A movement in progress (move, charge, withdraw, run).
    Walk(WalkFrame),
    /// An attack-of-opportunity window: the threateners still to consider.
    AooWindow(AooWindow),
    /// A full attack: the swings left.
    FullAttack {
        attacker: CombatantId,
        target: CombatantId,
        /// Every attack of the full attack, in order ([`crate::rules::attack_list`]).
        swings: Vec<crate::rules::attack_list::AttackEntry>,
        next: usize,
    },
    /// One attack roll; a ranged one provokes first (`provoked` once the window is open).
    Swing {
        attacker: CombatantId,
        target: CombatantId,
        weapon: usize,
        opts: AttackOpts,
        provoked: bool,
        /// The readied actions its attack roll may trigger were asked (or it is a readied
        /// attack itself: no cascade).
        #[serde(default)]
        triggers_checked: bool,
    },
    /// The attack at the end of a charge, once the movement is over.
    ChargeAttack {
        attacker: CombatantId,
        target: CombatantId,
        weapon: usize,
    },
    /// A combat maneuver: after the attack of opportunity it provoked (`hp_before` is the
    /// attacker's hp before it, `None` when it did not provoke), the roll and its effect.
    Maneuver {
        attacker: CombatantId,
        plan: ManeuverPlan,
        hp_before: Option<i32>,
        provoked: bool,
    },
    /// An overrun's move through the target after the opportunity of leaving the square,
    /// then the target knocked prone when the check beat its CMD by 5 or more.
    OverrunMove {
        attacker: CombatantId,
        target: CombatantId,
        land: Cell,
        margin: i32,
    },
    /// Stand up after the opportunity it provoked (if still conscious).
    StandUp { actor: CombatantId },
    /// Pick up a dropped weapon after the opportunity it provoked (if still conscious).
    PickUp { actor: CombatantId, weapon: usize },
    /// Readied actions that may fire on an event ([`crate::rules::ready`]).
    ReadyWindow(crate::rules::ready::ReadyWindow),
    /// An immediate action offered off-turn (Step Up — [`crate::rules::ready`]).
    ImmediateWindow(crate::rules::ready::ImmediateWindow),
    /// A Cleave / Great Cleave chain after its last attack ([`crate::rules::feats_movement`]).
    Cleave(crate::rules::feats_movement::CleaveChain),
    /// The attack in the middle of a Spring Attack / Shot on the Run, then the rest of the
    /// move ([`crate::rules::feats_movement`]).
    MoveAttack(crate::rules::feats_movement::MoveAttack),
    /// Sheathe a weapon after the opportunity it provoked (if still conscious).
    Sheathe { actor: CombatantId, weapon: usize },
    /// A coup de grace after the opportunities it provoked (if the attacker still stands and
    /// the target is still helpless): `rules::coup_de_grace::deliver`.
    CoupDeGrace {
        attacker: CombatantId,
        target: CombatantId,
        weapon: usize,
    },
    /// A cast after the opportunities it provoked (`hp_before`: the caster's hp before them,
    /// `None` when it did not provoke): `rules::magic::complete`.
    Cast {
        caster: CombatantId,
        plan: crate::rules::magic::CastPlan,
        hp_before: Option<i32>,
    },
    /// A ray's ranged touch attacks after the opportunities they provoked:
    /// `rules::magic::ray`.
    Ray {
        caster: CombatantId,
        plan: crate::rules::magic::CastPlan,
    },
}

/// A combatant's turn (the bottom frame while it acts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct TurnFrame {
    pub actor: CombatantId,
    /// Default policy: plans it may still make this turn (it plans again after a preparatory
    /// action, at most 4 times).
    pub plans_left: u8,
    /// Default policy: it tried at least one action this turn.
    pub acted: bool,
    /// The action list being applied.
    pub list: Option<ActionList>,
}

/// An action list in progress (submitted for a decision, or planned by the default policy).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ActionList {
    pub actions: Vec<Action>,
    /// Index of the action being checked or executed.
    pub next: usize,
    /// The action `next` was accepted and its frames run above this one (its slot).
    pub executing: Option<Slot>,
    /// Index in the history of the decision this list answers (`None`: the default policy).
    pub history: Option<usize>,
    /// Default policy: a single preparatory action (it plans again after it).
    pub prep: bool,
    /// Default policy: an action of the list was refused.
    pub refused: bool,
    /// No further action of the list applies (turn ended, or the combat is decided).
    pub ended: bool,
    /// Default policy: the action it takes after the list if the rules accept it then (an
    /// attack after moving toward the target: the move may end out of reach, or the mover
    /// prone after an attack of opportunity).
    #[serde(default)]
    pub then: Option<Action>,
    /// The readied actions an ally's signal may trigger were asked for action `next`.
    #[serde(default)]
    pub signalled: bool,
}

/// The stage of a walk at square `i` of its path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum WalkStage {
    /// About to leave the current square for `path[i]`.
    Leave,
    /// The opportunity of leaving is resolved: move into `path[i]`.
    Left,
    /// In `path[i]`: entering opponents' squares, from combatant `next` on; `before` is the
    /// mover's space before the step.
    Entering { before: Vec<Cell>, next: u16 },
}

/// A movement along a path (CRB — Combat: Move Actions; Attacks of Opportunity).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct WalkFrame {
    pub mover: CombatantId,
    pub path: Vec<Cell>,
    /// `move`, `charge`, `withdraw`, `run`: the transcript's word.
    pub what: String,
    /// Leaving the first square does not provoke (CRB — Actions in Combat: Withdraw).
    pub withdraw: bool,
    pub i: usize,
    pub stage: WalkStage,
    /// A readied move: it triggers no readied action (no cascade).
    #[serde(default)]
    pub readied: bool,
    /// Makes no attack of opportunity for this movement (Spring Attack's target — CRB —
    /// Feats: Spring Attack).
    #[serde(default)]
    pub spared: Option<CombatantId>,
}

/// An attack-of-opportunity window (CRB — Combat: Attacks of Opportunity): every enemy that
/// threatens the provoker's square may make one, asked in combatant list order while the
/// provoker stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AooWindow {
    pub provoker: CombatantId,
    pub why: Provocation,
    /// Only this combatant may respond (a maneuver provokes only from its target; entering a
    /// square only from its occupant).
    pub only: Option<CombatantId>,
    /// The provoker's square when it provoked.
    pub pos: Cell,
    /// Next combatant (list index) to consider.
    pub next: u16,
    /// Waiting for combatant `next` to answer (external controller).
    pub asking: bool,
    /// Makes no attack of opportunity in this window (Spring Attack's target).
    #[serde(default)]
    pub except: Option<CombatantId>,
}

impl Episode {
    /// Step frames until the episode waits for an external decision, is over, or a new turn
    /// must start.
    pub(crate) fn run_frames(&mut self) {
        self.run_frames_within(&mut crate::episode::WorkBudget::unlimited());
    }

    /// [`Episode::run_frames`] under a work budget: returns `true` when its stop function
    /// interrupted the work (after a whole frame: the phase is still `Resolving` and the
    /// pending frames resume exactly on the next call).
    #[inline]
    pub(crate) fn run_frames_within(&mut self, budget: &mut crate::episode::WorkBudget) -> bool {
        while self.phase == Phase::Resolving {
            match self.frames.pop() {
                Some(f) => self.step_frame(f),
                None => self.phase = Phase::TurnStart,
            }
            self.note_step();
            if self.phase == Phase::Resolving && budget.frame_done() {
                return true;
            }
        }
        false
    }

    fn step_frame(&mut self, f: Frame) {
        match f {
            Frame::Turn(t) => self.step_turn(t),
            Frame::Walk(w) => self.step_walk(w),
            Frame::AooWindow(w) => self.step_window(w),
            Frame::FullAttack {
                attacker,
                target,
                swings,
                next,
            } => {
                if next >= swings.len() || !self.conscious(target) || !self.conscious(attacker) {
                    return;
                }
                let e = swings[next];
                self.frames.push(Frame::FullAttack {
                    attacker,
                    target,
                    swings,
                    next: next + 1,
                });
                self.frames.push(Frame::Swing {
                    attacker,
                    target,
                    weapon: e.weapon,
                    opts: AttackOpts {
                        penalty: e.penalty,
                        twf: e.twf,
                        rapid_shot: e.rapid_shot,
                        tag: Some(e.tag),
                        ..Default::default()
                    },
                    provoked: false,
                    triggers_checked: false,
                });
            }
            Frame::Swing {
                attacker,
                target,
                weapon,
                opts,
                provoked,
                triggers_checked,
            } => {
                // Readied actions on an enemy's attack resolve before it (CRB — Ready).
                if !triggers_checked && self.ready_pending(attacker, ReadyEvent::Attacks { target })
                {
                    self.frames.push(Frame::Swing {
                        attacker,
                        target,
                        weapon,
                        opts,
                        provoked,
                        triggers_checked: true,
                    });
                    self.open_ready_window(attacker, ReadyEvent::Attacks { target });
                    return;
                }
                // (A readied action may have dropped either.)
                if triggers_checked && (!self.conscious(attacker) || !self.conscious(target)) {
                    return;
                }
                let spec = self.spec(attacker);
                let ranged = spec.attacks[weapon].is_ranged();
                // Point-Blank Master: firing the named weapon while threatened does not
                // provoke (APG — Feats: Point-Blank Master).
                let provokes = ranged
                    && !crate::content::feats::named_weapon_feat(
                        spec,
                        crate::content::feats::Feat::PointBlankMaster,
                        &spec.attacks[weapon],
                    );
                if provokes && !provoked {
                    self.frames.push(Frame::Swing {
                        attacker,
                        target,
                        weapon,
                        opts,
                        provoked: true,
                        triggers_checked: true,
                    });
                    self.open_window(attacker, Provocation::RangedAttack, None);
                    return;
                }
                if ranged && (!self.conscious(attacker) || !self.conscious(target)) {
                    return;
                }
                rules::attack_roll::attack_roll(self, attacker, target, weapon, opts);
            }
            Frame::ChargeAttack {
                attacker,
                target,
                weapon,
            } => {
                // The charge's movement is over: it was completed unless the charger fell.
                // The attack needs the target still in reach: Stand Still may have stopped
                // the charger short, a readied move or 5-foot step may have taken the target
                // away (CRB — Charge: "you can't do anything else until your next turn").
                if !(self.conscious(attacker) && self.conscious(target)) {
                    return;
                }
                if !self.charge_attack_allowed(attacker, target, weapon) {
                    let tid = self.id_of(target).to_string();
                    self.log_turn(attacker, format!("charge attack lost ({tid} out of reach)"));
                } else {
                    self.frames.push(Frame::Swing {
                        attacker,
                        target,
                        weapon,
                        opts: AttackOpts {
                            charge: true,
                            ..Default::default()
                        },
                        provoked: false,
                        triggers_checked: false,
                    });
                }
            }
            Frame::Maneuver {
                attacker,
                plan,
                hp_before,
                provoked,
            } => crate::rules::maneuvers::step_maneuver(self, attacker, plan, hp_before, provoked),
            Frame::OverrunMove {
                attacker,
                target,
                land,
                margin,
            } => crate::rules::maneuvers::finish_overrun(self, attacker, target, land, margin),
            Frame::StandUp { actor } => {
                if self.conscious(actor) {
                    self.remove_condition(actor, Condition::Prone);
                }
            }
            Frame::PickUp { actor, weapon } => {
                if self.conscious(actor) {
                    self.st[idx(actor)].weapons[weapon].dropped_at = None;
                }
            }
            Frame::ReadyWindow(w) => self.step_ready_window(w),
            Frame::ImmediateWindow(w) => self.step_immediate_window(w),
            Frame::Cleave(c) => crate::rules::feats_movement::step_cleave(self, c),
            Frame::MoveAttack(m) => crate::rules::feats_movement::step_move_attack(self, m),
            Frame::Sheathe { actor, weapon } => {
                if self.conscious(actor) {
                    self.st[idx(actor)].weapons[weapon].sheathed = true;
                }
            }
            Frame::CoupDeGrace {
                attacker,
                target,
                weapon,
            } => crate::rules::coup_de_grace::deliver(self, attacker, target, weapon),
            Frame::Cast {
                caster,
                plan,
                hp_before,
            } => crate::rules::magic::complete(self, caster, plan, hp_before),
            Frame::Ray { caster, plan } => crate::rules::magic::ray(self, caster, plan),
        }
    }

    /// Open an attack-of-opportunity window on `provoker` at its current square.
    pub(crate) fn open_window(
        &mut self,
        provoker: CombatantId,
        why: Provocation,
        only: Option<CombatantId>,
    ) {
        let pos = self.st[idx(provoker)].pos;
        self.frames.push(Frame::AooWindow(AooWindow {
            provoker,
            why,
            only,
            pos,
            next: 0,
            asking: false,
            except: None,
        }));
    }

    /// Start a walk: log it and push its frame.
    pub(crate) fn start_walk(
        &mut self,
        mover: CombatantId,
        path: Vec<Cell>,
        what: &str,
        withdraw: bool,
    ) {
        let start = self.st[idx(mover)].pos;
        let text: Vec<String> = std::iter::once(start)
            .chain(path.iter().copied())
            .map(|c| c.to_string())
            .collect();
        self.log_turn(mover, format!("{what} {}", text.join("->")));
        self.frames.push(Frame::Walk(WalkFrame {
            mover,
            path,
            what: what.to_string(),
            withdraw,
            i: 0,
            stage: WalkStage::Leave,
            readied: false,
            spared: None,
        }));
    }

    /// Walk a path square by square: leaving a threatened square provokes (except the first
    /// square of a withdraw); entering an opponent's square provokes from it; the walk stops
    /// where the mover falls.
    fn step_walk(&mut self, mut w: WalkFrame) {
        let a = w.mover;
        loop {
            match std::mem::replace(&mut w.stage, WalkStage::Leave) {
                WalkStage::Leave => {
                    if w.i >= w.path.len() {
                        return;
                    }
                    w.stage = WalkStage::Left;
                    if !(w.withdraw && w.i == 0) {
                        let spared = w.spared;
                        self.frames.push(Frame::Walk(w));
                        self.open_window_sparing(a, Provocation::Leaving, None, spared);
                        return;
                    }
                }
                WalkStage::Left => {
                    // Stopped by a fall, or by a foe's Stand Still (CRB — Feats).
                    if !self.conscious(a) || self.stood_still(a) {
                        let here = self.st[idx(a)].pos;
                        let why = self.halt_note(a);
                        self.log_turn(a, format!("{} stopped at {here}{why}", w.what));
                        return;
                    }
                    let before = self.cells_of(a);
                    self.st[idx(a)].pos = w.path[w.i];
                    w.stage = WalkStage::Entering { before, next: 0 };
                }
                WalkStage::Entering { before, next } => {
                    // Entering a square occupied by a conscious enemy (a Tiny creature
                    // entering its foe's square, or passing through a creature three sizes
                    // apart) provokes from that creature, once per fresh entry (CRB — Combat:
                    // Moving Through a Square; Big and Little Creatures).
                    let n = self.n() as u16;
                    let mut o = next;
                    while o < n {
                        let oc = CombatantId(o);
                        o += 1;
                        if oc == a || !self.enemies(a, oc) || !self.conscious(oc) {
                            continue;
                        }
                        let theirs = self.cells_of(oc);
                        let entered = self.cells_iter(a).any(|c| theirs.contains(&c));
                        let was_in = before.iter().any(|c| theirs.contains(c));
                        if entered && !was_in {
                            w.stage = WalkStage::Entering { before, next: o };
                            let spared = w.spared;
                            self.frames.push(Frame::Walk(w));
                            self.open_window_sparing(a, Provocation::Entering, Some(oc), spared);
                            return;
                        }
                    }
                    if !self.conscious(a) {
                        let here = w.path[w.i];
                        self.log_turn(a, format!("{} stopped at {here}", w.what));
                        return;
                    }
                    w.i += 1;
                    w.stage = WalkStage::Leave;
                    // Readied actions on entering a square resolve here, the mover in it
                    // (CRB — Ready: "interrupts" the movement), before it goes on.
                    if !w.readied && self.ready_pending(a, ReadyEvent::Moved) {
                        self.frames.push(Frame::Walk(w));
                        self.open_ready_window(a, ReadyEvent::Moved);
                        return;
                    }
                }
            }
        }
    }

    fn step_window(&mut self, mut w: AooWindow) {
        debug_assert!(
            !w.asking,
            "a window waiting for an answer is resumed by submit"
        );
        let n = self.n() as u16;
        while w.next < n {
            if !self.conscious(w.provoker) {
                return;
            }
            let x = CombatantId(w.next);
            let weapons = self.aoo_weapons(&w, x);
            if weapons.is_empty() {
                w.next += 1;
                continue;
            }
            match self.controllers[idx(x)] {
                Controller::DefaultPolicy => {
                    let answer = crate::policy::answer_aoo(self, x, &weapons);
                    self.answer_window(w, x, answer);
                }
                Controller::External => {
                    w.asking = true;
                    let kind = DecisionKind::AttackOfOpportunity {
                        provoker: w.provoker,
                        provocation: w.why,
                        weapons,
                        stand_still: crate::rules::feats_movement::stand_still_applies(self, &w, x),
                    };
                    self.frames.push(Frame::AooWindow(w));
                    self.new_decision(x, kind);
                }
            }
            return;
        }
    }

    /// Apply `x`'s answer to the window (`Some(weapon)`: take the attack of opportunity with
    /// it; `None`: decline) and go on with the next threatener.
    fn answer_window(&mut self, mut w: AooWindow, x: CombatantId, weapon: Option<usize>) {
        w.asking = false;
        w.next = x.0 + 1;
        let (provoker, why) = (w.provoker, w.why);
        self.frames.push(Frame::AooWindow(w));
        // Leaving threatened squares is one opportunity per opponent per round, taken or
        // declined (CRB — Attacks of Opportunity: "Moving out of more than one square
        // threatened by the same opponent in the same round doesn't count as more than one
        // opportunity for that opponent").
        if why == Provocation::Leaving {
            self.move_aoo_provoked.insert((x, provoker));
        }
        let Some(weapon) = weapon else {
            return;
        };
        self.st[idx(x)].aoo_used += 1;
        let tid = self.id_of(provoker).to_string();
        self.log_turn(
            x,
            format!("attack of opportunity on {tid} ({})", why.describe()),
        );
        self.frames.push(Frame::Swing {
            attacker: x,
            target: provoker,
            weapon,
            opts: AttackOpts {
                movement_aoo: crate::rules::feats_movement::is_movement(why),
                ..AttackOpts::default()
            },
            provoked: false,
            triggers_checked: false,
        });
    }

    // ----- turns -------------------------------------------------------------------------

    fn step_turn(&mut self, mut t: TurnFrame) {
        let actor = t.actor;
        let external = self.controllers[idx(actor)] == Controller::External;
        let Some(mut list) = t.list.take() else {
            if external {
                self.frames.push(Frame::Turn(t));
                self.new_decision(actor, DecisionKind::TurnAction);
            } else {
                let plan = crate::tactics::policy_for(self, actor);
                let actions = plan.actions;
                let prep = actions.len() == 1 && crate::policy::is_preparatory(actions[0].kind);
                t.list = Some(ActionList {
                    actions,
                    next: 0,
                    executing: None,
                    history: None,
                    prep,
                    refused: false,
                    ended: false,
                    then: plan.then,
                    signalled: false,
                });
                self.frames.push(Frame::Turn(t));
            }
            return;
        };
        if let Some(slot) = list.executing.take() {
            // The action's frames are done.
            // A disabled combatant's standard action costs 1 hp (CRB — Injury and Death:
            // Disabled).
            if self.st[idx(actor)].life == crate::episode::LifeState::Disabled
                && slot == Slot::Standard
                && self.outcome_now().is_none()
            {
                self.log_turn(actor, "strains while disabled: loses 1 hp".into());
                self.lose_hp(actor, 1);
            }
            if self.outcome_now().is_some() || self.turn.delayed {
                list.ended = true;
            }
            list.next += 1;
            list.signalled = false;
        } else if list.next < list.actions.len() && (external || !list.ended) {
            // (A policy list stops once ended; a submitted one gives the rest `turn_ended`.)
            if list.signalled && self.outcome_now().is_some() {
                // A readied action on the signal decided the combat.
                list.ended = true;
            }
            let a = list.actions[list.next].clone();
            if list.ended {
                self.record_or_amend(&list, result(&a, Some(Reject::TurnEnded)));
                list.next += 1;
                list.signalled = false;
            } else if external && a.kind == ActionKind::EndTurn {
                list.ended = true;
                self.record_result(&list, result(&a, None));
                list.next += 1;
            } else if !list.signalled
                && self.ready_pending(actor, ReadyEvent::Acts)
                && matches!(self.check(actor, &a), Ok(Some(_)))
            {
                // An ally's readied action on this action resolves before it (CRB — Ready):
                // the action is accepted now and checked again afterwards (its result is
                // amended if it no longer holds).
                self.record_result(&list, result(&a, None));
                list.signalled = true;
                t.list = Some(list);
                self.frames.push(Frame::Turn(t));
                self.open_ready_window(actor, ReadyEvent::Acts);
                return;
            } else {
                t.acted = true;
                match self.check(actor, &a) {
                    Ok(Some(plan)) => {
                        if !list.signalled {
                            self.record_result(&list, result(&a, None));
                        }
                        let slot = self.slot_of(actor, &a);
                        self.consume_slot(actor, slot);
                        list.executing = Some(slot);
                        t.list = Some(list);
                        self.frames.push(Frame::Turn(t));
                        crate::actions::plan::execute(self, actor, plan);
                        return;
                    }
                    Ok(None) => {
                        if !list.signalled {
                            self.record_result(&list, result(&a, None));
                        }
                    }
                    Err(reason) => {
                        if !external {
                            let what = format!("{} refused: {}", a.kind.name(), reason.code());
                            self.log_turn(actor, what);
                            list.refused = true;
                        }
                        self.record_or_amend(&list, result(&a, Some(reason)));
                    }
                }
                if self.outcome_now().is_some() {
                    list.ended = true;
                }
                list.next += 1;
                list.signalled = false;
            }
        } else {
            // The list is done.
            if external {
                if self.check_end() {
                    return;
                }
                if list.ended || self.only_end_turn_left(actor) {
                    self.end_turn();
                } else {
                    self.frames.push(Frame::Turn(t));
                    self.new_decision(actor, DecisionKind::TurnAction);
                }
                return;
            }
            if let Some(then) = list.then.take() {
                if !list.ended && self.conscious(actor) && self.check(actor, &then).is_ok() {
                    t.list = Some(ActionList {
                        actions: vec![then],
                        next: 0,
                        executing: None,
                        history: None,
                        prep: list.prep,
                        refused: list.refused,
                        ended: false,
                        then: None,
                        signalled: false,
                    });
                    self.frames.push(Frame::Turn(t));
                    return;
                }
            }
            t.plans_left = t.plans_left.saturating_sub(1);
            let stop = !list.prep
                || list.refused
                || self.turn.delayed
                || self.outcome_now().is_some()
                || !self.conscious(actor)
                || t.plans_left == 0;
            if stop {
                if !t.acted {
                    self.log_turn(actor, "takes no action".into());
                }
                if !self.check_end() {
                    self.end_turn();
                }
            } else {
                self.frames.push(Frame::Turn(t));
            }
            return;
        }
        t.list = Some(list);
        self.frames.push(Frame::Turn(t));
    }

    /// Record the result of action `list.next`, or, when it was recorded as accepted before
    /// an ally's readied action on its signal ([`ActionList::signalled`]), replace that.
    fn record_or_amend(&mut self, list: &ActionList, r: ActionResult) {
        if !list.signalled {
            return self.record_result(list, r);
        }
        if let Some(h) = list.history {
            if let Some(last) = self.history[h].results.last_mut() {
                *last = r.clone();
            }
        }
        if let Some(last) = self.turn.results.last_mut() {
            *last = r;
        }
    }

    /// Record an action's result: the turn's results, and the history entry of the decision
    /// the list answers.
    fn record_result(&mut self, list: &ActionList, r: ActionResult) {
        if let Some(h) = list.history {
            self.history[h].results.push(r.clone());
            self.history_bytes += crate::episode::memory::RESULT_BYTES;
        }
        self.turn.results.push(r);
    }

    /// Answer the pending reaction decision with the actions of a submit (the first one that
    /// answers it counts; see [`Episode::submit`]). Returns the results.
    pub(crate) fn submit_reaction(
        &mut self,
        d: &Decision,
        actions: &[Action],
    ) -> Vec<ActionResult> {
        use crate::actions::reaction::Answer;
        let h = self.history.len() - 1;
        let mut answer: Option<Answer> = None;
        for a in actions {
            let r = if answer.is_some() {
                result(a, Some(Reject::DecisionAnswered))
            } else {
                match crate::actions::reaction::check(d, a) {
                    Ok(w) => {
                        answer = Some(w);
                        result(a, None)
                    }
                    Err(reason) => result(a, Some(reason)),
                }
            };
            self.history[h].results.push(r);
            self.history_bytes += crate::episode::memory::RESULT_BYTES;
        }
        let results = self.history[h].results.clone();
        let Some(answer) = answer else {
            // Not answered: the same question again, as a new decision.
            self.new_decision(d.actor, d.kind.clone());
            return results;
        };
        self.phase = Phase::Resolving;
        match (self.frames.pop(), answer) {
            (Some(Frame::AooWindow(w)), Answer::Aoo(weapon)) => {
                self.answer_window(w, d.actor, Some(weapon))
            }
            (Some(Frame::AooWindow(w)), Answer::Decline) => self.answer_window(w, d.actor, None),
            (Some(Frame::ReadyWindow(w)), Answer::Fire | Answer::Decline) => {
                self.answer_ready_window(w, d.actor, answer == Answer::Fire)
            }
            (Some(Frame::ImmediateWindow(w)), Answer::Step(to)) => {
                self.answer_immediate_window(w, d.actor, Some(to))
            }
            (Some(Frame::ImmediateWindow(w)), Answer::Decline) => {
                self.answer_immediate_window(w, d.actor, None)
            }
            (Some(Frame::AooWindow(w)), Answer::StandStill) => self.answer_stand_still(w, d.actor),
            _ => unreachable!("a reaction decision waits on its window frame"),
        }
        results
    }

    /// Begin answering decision `d` with `actions`: the history entry.
    pub(crate) fn push_history(&mut self, d: &Decision, actions: &[Action]) -> usize {
        let entry = HistoryEntry {
            decision_id: d.decision_id,
            actor: d.actor,
            kind: d.kind.clone(),
            actions: actions.to_vec(),
            results: Vec::new(),
        };
        self.history_bytes += crate::episode::memory::history_entry_bytes(&entry);
        self.history.push(entry);
        self.history.len() - 1
    }
}

fn result(a: &Action, reason: Option<Reject>) -> ActionResult {
    match reason {
        None => ActionResult::accepted(a.kind),
        Some(r) => ActionResult::refused(a.kind, r),
    }
}

/// Check restored frames against the encounter and the phase (a snapshot is client data):
/// every combatant, weapon and square they name exists, and the stack has the shape the
/// phase implies. `turn_actor` is the combatant whose turn it is; `history_len` the length of
/// the restored history.
pub(crate) fn check_frames(
    enc: &crate::content::encounter::Encounter,
    phase: &Phase,
    frames: &[Frame],
    turn_actor: Option<CombatantId>,
    history_len: usize,
) -> Result<(), &'static str> {
    let n = enc.combatants.len();
    let who = |c: CombatantId| (c.0 as usize) < n;
    let weapon =
        |c: CombatantId, w: usize| who(c) && w < enc.combatants[c.0 as usize].spec.attacks.len();
    let cell = |c: &Cell| enc.grid.in_bounds(*c);
    const MAX_FRAMES: usize = 64;
    if frames.len() > MAX_FRAMES {
        return Err("too many pending frames");
    }
    for f in frames {
        let ok = match f {
            Frame::Turn(t) => {
                who(t.actor)
                    && t.plans_left <= 4
                    && t.list.as_ref().is_none_or(|l| {
                        l.next <= l.actions.len()
                            && l.history.is_none_or(|h| h < history_len)
                            && l.actions.iter().all(|a| {
                                a.target.is_none_or(who)
                                    && a.ally.is_none_or(who)
                                    && a.destination.as_ref().is_none_or(|d| {
                                        d.row.unsigned_abs() < 1 << 20
                                            && d.col.unsigned_abs() < 1 << 20
                                    })
                            })
                    })
            }
            Frame::Walk(w) => {
                who(w.mover)
                    && w.spared.is_none_or(who)
                    && w.path.iter().all(cell)
                    && w.i <= w.path.len()
                    && match &w.stage {
                        WalkStage::Entering { before, next } => {
                            w.i < w.path.len() && *next as usize <= n && before.len() <= 64
                        }
                        WalkStage::Left => w.i < w.path.len(),
                        WalkStage::Leave => true,
                    }
            }
            Frame::AooWindow(w) => {
                who(w.provoker)
                    && w.only.is_none_or(who)
                    && w.except.is_none_or(who)
                    && cell(&w.pos)
                    && (w.next as usize) <= n
            }
            Frame::FullAttack {
                attacker,
                target,
                swings,
                next,
            } => {
                who(*attacker)
                    && who(*target)
                    && *next <= swings.len()
                    && swings.len() <= 256
                    && swings
                        .iter()
                        .all(|e| weapon(*attacker, e.weapon) && (-100..=100).contains(&e.penalty))
            }
            Frame::Swing {
                attacker,
                target,
                weapon: w,
                opts,
                ..
            } => {
                who(*target)
                    && weapon(*attacker, *w)
                    && opts.vital_strike <= 3
                    && (-100..=100).contains(&opts.penalty)
            }
            Frame::ChargeAttack {
                attacker,
                target,
                weapon: w,
            } => who(*target) && weapon(*attacker, *w),
            Frame::Maneuver { attacker, plan, .. } => {
                who(*attacker)
                    && who(plan.target)
                    && plan.weapon.is_none_or(|w| weapon(*attacker, w))
                    && plan.destination.as_ref().is_none_or(cell)
            }
            Frame::OverrunMove {
                attacker,
                target,
                land,
                ..
            } => who(*attacker) && who(*target) && cell(land),
            Frame::StandUp { actor } => who(*actor),
            Frame::PickUp { actor, weapon: w } | Frame::Sheathe { actor, weapon: w } => {
                weapon(*actor, *w)
            }
            Frame::ReadyWindow(w) => {
                who(w.by)
                    && (w.next as usize) <= n
                    && match w.event {
                        ReadyEvent::Attacks { target } => who(target),
                        ReadyEvent::Moved | ReadyEvent::Acts => true,
                    }
            }
            Frame::ImmediateWindow(w) => who(w.foe) && cell(&w.from) && (w.next as usize) <= n,
            Frame::Cleave(c) => {
                weapon(c.attacker, c.weapon)
                    && !c.attacked.is_empty()
                    && c.attacked.len() <= n
                    && c.attacked.iter().copied().all(who)
            }
            Frame::MoveAttack(m) => {
                weapon(m.attacker, m.weapon)
                    && who(m.target)
                    && cell(&m.at)
                    && m.rest.len() <= 4096
                    && m.rest.iter().all(cell)
                    && m.spared.is_none_or(who)
            }
            Frame::CoupDeGrace {
                attacker,
                target,
                weapon: w,
            } => who(*target) && weapon(*attacker, *w),
            Frame::Cast { caster, plan, .. } | Frame::Ray { caster, plan } => {
                who(*caster)
                    && plan.spell < enc.combatants[caster.0 as usize].spec.spellbook().len()
                    && plan.target.is_none_or(who)
                    && plan.at.as_ref().is_none_or(cell)
            }
        };
        if !ok {
            return Err("a pending frame does not fit the encounter");
        }
    }
    match phase {
        Phase::Awaiting(d) => {
            let Some(Frame::Turn(bottom)) = frames.first() else {
                return Err("a decision waits on the turn in progress");
            };
            if Some(bottom.actor) != turn_actor {
                return Err("the turn in progress is not the current turn's");
            }
            match &d.kind {
                DecisionKind::TurnAction => {
                    if frames.len() != 1 || bottom.list.is_some() || bottom.actor != d.actor {
                        return Err("a turn decision waits on its turn frame alone");
                    }
                }
                DecisionKind::AttackOfOpportunity {
                    provoker,
                    provocation,
                    weapons,
                    stand_still,
                } => {
                    // Stand Still is offered only against leaving a square, to its owner.
                    if *stand_still
                        && (*provocation != crate::rules::aoo::Provocation::Leaving
                            || !enc.combatants[d.actor.0 as usize]
                                .spec
                                .has_feat(crate::content::feats::Feat::StandStill))
                    {
                        return Err("the stand_still answer does not fit its decision");
                    }
                    let Some(Frame::AooWindow(w)) = frames.last() else {
                        return Err("an attack-of-opportunity decision waits on its window");
                    };
                    if !w.asking
                        || w.next != d.actor.0
                        || w.provoker != *provoker
                        || w.why != *provocation
                        || weapons.is_empty()
                        || !weapons.iter().all(|&x| weapon(d.actor, x))
                    {
                        return Err("the attack-of-opportunity decision does not match its window");
                    }
                }
                DecisionKind::ReadiedTrigger { trigger_by, .. } => {
                    let Some(Frame::ReadyWindow(w)) = frames.last() else {
                        return Err("a readied-trigger decision waits on its window");
                    };
                    if !w.asking || w.next != d.actor.0 || w.by != *trigger_by {
                        return Err("the readied-trigger decision does not match its window");
                    }
                }
                DecisionKind::StepUp { foe, squares } => {
                    let Some(Frame::ImmediateWindow(w)) = frames.last() else {
                        return Err("a Step Up decision waits on its window");
                    };
                    if !w.asking
                        || w.next != d.actor.0
                        || w.foe != *foe
                        || squares.is_empty()
                        || !squares.iter().all(cell)
                    {
                        return Err("the Step Up decision does not match its window");
                    }
                }
            }
            if frames.iter().rev().skip(1).any(|f| match f {
                Frame::AooWindow(w) => w.asking,
                Frame::ReadyWindow(w) => w.asking,
                Frame::ImmediateWindow(w) => w.asking,
                _ => false,
            }) {
                return Err("only the top window may wait for an answer");
            }
        }
        _ => {
            if !frames.is_empty() {
                return Err("pending frames outside a decision");
            }
        }
    }
    Ok(())
}
