//! Special initiative actions and reactions off-turn (CRB — Combat: Special Initiative
//! Actions: Delay, Ready; Actions in Combat: Immediate Actions; Feats: Step Up).
//!
//! **Delay** moves the actor's turn later in the order ([`execute_delay`],
//! [`move_delayed_turn`]); the turn comes
//! back without its start-of-turn effects (they happened when it delayed) and the new place
//! is kept in later rounds ("Your initiative result becomes the count on which you took the
//! delayed action").
//!
//! **Ready**: a readied action waits for its trigger ([`crate::actions::ReadyTrigger`]).
//! Where a trigger can occur — a mover entering a square (walks and 5-foot steps), an attack
//! roll about to be made, an ally's action about to be taken — a [`ReadyWindow`] frame asks
//! every readier whose trigger matches and whose action is possible now, in combatant list
//! order: the default policy fires, an external controller gets a
//! [`crate::episode::DecisionKind::ReadiedTrigger`] decision (fire or hold). A fired action
//! resolves at once, before the triggering action goes on ("it interrupts a movement at the
//! triggering square"), and the readier's place in the initiative order moves to just before
//! the triggering creature (S4b: "you act immediately ahead of the character whose action
//! triggered your readied action"); a readier that thereby comes later in the current round
//! does not act again in it. An unfired readied action lapses at the start of the readier's
//! next turn (L4). Readied actions do not trigger readied actions (no cascade), and a
//! readied action never fires during its own readier's turn (simplification, documented in
//! `docs/conformance.md`).
//!
//! **Immediate actions** ([`Episode::can_take_immediate`]): one per round, never while
//! flat-footed (L5); off-turn one spends the next turn's swift action, on one's own turn the
//! current one (L10). Their first user is Step Up ([`ImmediateWindow`]).

use crate::actions::check::{check, Ctx};
use crate::actions::plan::Plan;
use crate::actions::{Action, ActionKind, CombatantId, ReadyTrigger};
use crate::effects::conditions::Condition;
use crate::episode::frames::Frame;
use crate::episode::{Controller, DecisionKind, Episode, Readied};
use crate::geometry::grid::{self, Cell};
use crate::rules::attack_roll::AttackOpts;
use crate::rules::idx;
use serde::{Deserialize, Serialize};

/// What a [`ReadyWindow`] is about: the triggering creature's event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "event")]
pub(crate) enum ReadyEvent {
    /// It moved into its current square.
    Moved,
    /// It is about to make an attack roll against `target`.
    Attacks { target: CombatantId },
    /// It is about to take an action of its turn.
    Acts,
}

/// A window in which readied actions may fire on `by`'s `event`, asking readiers from
/// combatant `next` on (list order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ReadyWindow {
    pub by: CombatantId,
    pub event: ReadyEvent,
    pub next: u16,
    /// Waiting for combatant `next` to answer (external controller).
    pub asking: bool,
}

/// A window in which Step Up may follow `foe`'s 5-foot step away (CRB — Feats: Step Up),
/// asking from combatant `next` on. `from` is the foe's square before the step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ImmediateWindow {
    pub foe: CombatantId,
    pub from: Cell,
    pub next: u16,
    pub asking: bool,
}

/// `delay`: the actor's turn ends now, without its end-of-turn effects, and comes back
/// right after `after`'s turn (the end of the round without one). Its initiative count
/// becomes that combatant's (the lowest one at the end).
pub(crate) fn execute_delay(ep: &mut Episode, a: CombatantId, after: Option<CombatantId>) {
    let i = idx(a);
    ep.st[i].delayed_round = Some(ep.round);
    ep.st[i].resume_delayed = true;
    let when = match after {
        Some(x) => format!("after {}", ep.id_of(x)),
        None => "at the end of the round".to_string(),
    };
    ep.log_turn(a, format!("delays: acts {when}"));
    ep.turn.delayed = true;
    ep.turn.delay_after = after;
}

/// The end of a delayed turn ([`execute_delay`]): the actor moves in the order to just
/// after `after` (the end without one) and the combatant after it in the order acts next.
pub(crate) fn move_delayed_turn(ep: &mut Episode, after: Option<CombatantId>) {
    let a = ep.order.remove(ep.turn_pos);
    let at = match after {
        Some(x) => ep
            .order
            .iter()
            .position(|&c| c == x)
            .map_or(ep.order.len(), |p| p + 1),
        None => ep.order.len(),
    };
    ep.order.insert(at, a);
    let count = match after {
        Some(x) => ep.st[idx(x)].initiative_total,
        None => ep.st.iter().map(|s| s.initiative_total).min().unwrap_or(0),
    };
    ep.st[idx(a)].initiative_total = count;
}

/// `ready`: the action waits for its trigger (until the start of the actor's next turn).
pub(crate) fn execute_ready(
    ep: &mut Episode,
    a: CombatantId,
    action: Action,
    trigger: ReadyTrigger,
) {
    let what = crate::actions::legal::label(ep, a, &action);
    let mut on = trigger.name().to_string();
    if let Some(b) = trigger.by() {
        on.push_str(&format!(" {}", ep.id_of(b)));
    }
    if let ReadyTrigger::EnemyWithin { ft, .. } = trigger {
        on.push_str(&format!(" {ft} ft"));
    }
    ep.log_turn(a, format!("readies {what} (trigger: {on})"));
    let round = ep.round;
    ep.st[idx(a)].readied = Some(Box::new(Readied {
        action,
        trigger,
        round,
    }));
}

impl Episode {
    /// The combatants that act after `c` in the rest of this round (order positions after
    /// the current turn's), in order.
    pub(crate) fn later_this_round(&self, c: CombatantId) -> Vec<CombatantId> {
        if self.order.get(self.turn_pos) != Some(&c) {
            return Vec::new();
        }
        self.order[self.turn_pos + 1..].to_vec()
    }

    /// Whether it is `c`'s turn now.
    pub(crate) fn is_turn_of(&self, c: CombatantId) -> bool {
        self.order.get(self.turn_pos) == Some(&c)
            && !matches!(
                self.phase,
                crate::episode::Phase::NotStarted | crate::episode::Phase::Over(_)
            )
    }

    /// Whether `c` may take an immediate action now (CRB — Actions in Combat: Immediate
    /// Actions): conscious, not flat-footed ("You also cannot use an immediate action if you
    /// are flat-footed", L5), and its swift action not spent — on its own turn this turn's
    /// (L10: "Using an immediate action on your turn is the same as using a swift action"),
    /// off-turn no immediate action since its last turn.
    pub(crate) fn can_take_immediate(&self, c: CombatantId) -> bool {
        if !self.conscious(c) || self.has_condition(c, Condition::FlatFooted) {
            return false;
        }
        if self.is_turn_of(c) {
            !self.turn.swift_used
        } else {
            !self.st[idx(c)].immediate_used
        }
    }

    /// Spend `c`'s immediate action ([`Episode::can_take_immediate`]): this turn's swift
    /// action on its own turn, the next turn's otherwise (the seed's `immediate_used`).
    pub(crate) fn use_immediate(&mut self, c: CombatantId) {
        if self.is_turn_of(c) {
            self.turn.swift_used = true;
        } else {
            self.st[idx(c)].immediate_used = true;
        }
    }

    /// Whether some readied action could answer `by`'s `event` (a cheap test before a
    /// window is opened: none is when no trigger of the kind waits).
    pub(crate) fn ready_pending(&self, by: CombatantId, event: ReadyEvent) -> bool {
        self.st.iter().enumerate().any(|(i, s)| {
            i != idx(by)
                && s.readied.as_ref().is_some_and(|r| {
                    matches!(
                        (r.trigger, event),
                        (ReadyTrigger::EnemyEntersReach { .. }, ReadyEvent::Moved)
                            | (ReadyTrigger::EnemyWithin { .. }, ReadyEvent::Moved)
                            | (
                                ReadyTrigger::EnemyAttacks { .. },
                                ReadyEvent::Attacks { .. }
                            )
                            | (ReadyTrigger::AllyActs { .. }, ReadyEvent::Acts)
                    )
                })
        })
    }

    /// Open a ready window on `by`'s `event` if a readied action could answer it.
    pub(crate) fn open_ready_window(&mut self, by: CombatantId, event: ReadyEvent) -> bool {
        if !self.ready_pending(by, event) {
            return false;
        }
        self.frames.push(Frame::ReadyWindow(ReadyWindow {
            by,
            event,
            next: 0,
            asking: false,
        }));
        true
    }

    /// The action `x`'s readied action would be on this occurrence, if its trigger matches
    /// and the action is possible now (checked as an off-turn action: [`Ctx::off_turn`]),
    /// with its checked plan.
    pub(crate) fn readied_answer(&self, x: CombatantId, w: &ReadyWindow) -> Option<(Action, Plan)> {
        let r = self.st[idx(x)].readied.as_ref()?;
        let by = w.by;
        if x == by || !self.conscious(x) || !self.conscious(by) || self.is_turn_of(x) {
            return None;
        }
        if r.trigger.by().is_some_and(|b| b != by) {
            return None;
        }
        let enemy = self.enemies(x, by);
        let fires = match (r.trigger, w.event) {
            (ReadyTrigger::EnemyEntersReach { .. }, ReadyEvent::Moved) => {
                enemy && self.enters_reach(x, by, &r.action)
            }
            (ReadyTrigger::EnemyWithin { ft, .. }, ReadyEvent::Moved) => {
                enemy
                    && crate::rules::ranged::distance_ft_from(self, x, self.st[idx(x)].pos, by)
                        <= i32::from(ft)
            }
            (ReadyTrigger::EnemyAttacks { .. }, ReadyEvent::Attacks { target }) => {
                enemy && (target == x || !self.enemies(x, target))
            }
            (ReadyTrigger::AllyActs { .. }, ReadyEvent::Acts) => !enemy,
            _ => false,
        };
        if !fires {
            return None;
        }
        let mut a = r.action.clone();
        if matches!(a.kind, ActionKind::Attack | ActionKind::Maneuver) && a.target.is_none() {
            a.target = Some(by);
        }
        let plan = check(&Ctx::off_turn(self, x), &a).ok().flatten()?;
        Some((a, plan))
    }

    /// Whether `by` stands where `x`'s readied action reaches it: a square `x` threatens
    /// (CRB — Threatened Squares), or for a readied ranged attack within its weapon's first
    /// range increment with line of effect.
    fn enters_reach(&self, x: CombatantId, by: CombatantId, action: &Action) -> bool {
        let bpos = self.st[idx(by)].pos;
        if crate::rules::reach::threatens(self, x, by, bpos) {
            return true;
        }
        let Some(w) = action.weapon.filter(|_| action.kind == ActionKind::Attack) else {
            return false;
        };
        let Some(spec) = self.spec(x).attacks.get(w) else {
            return false;
        };
        spec.is_ranged()
            && crate::rules::ranged::distance_ft_from(self, x, self.st[idx(x)].pos, by)
                <= spec.range_increment_ft.unwrap_or(0)
            && crate::geometry::los::has_line_of_effect(
                &self.enc.grid,
                self.st[idx(x)].pos,
                self.fp_side(x),
                bpos,
                self.fp_side(by),
            )
    }

    /// Step a ready window: ask the next readier whose action answers the event.
    pub(crate) fn step_ready_window(&mut self, mut w: ReadyWindow) {
        debug_assert!(
            !w.asking,
            "a window waiting for an answer is resumed by submit"
        );
        let n = self.n() as u16;
        while w.next < n {
            let x = CombatantId(w.next);
            let Some((action, plan)) = self.readied_answer(x, &w) else {
                w.next += 1;
                continue;
            };
            match self.controllers[idx(x)] {
                Controller::DefaultPolicy => self.fire_readied(w, x, action, plan),
                Controller::External => {
                    let trigger = self.st[idx(x)].readied.as_ref().map(|r| r.trigger);
                    w.asking = true;
                    let by = w.by;
                    self.frames.push(Frame::ReadyWindow(w));
                    self.new_decision(
                        x,
                        DecisionKind::ReadiedTrigger {
                            trigger_by: by,
                            trigger: trigger.expect("a readier has its trigger"),
                            readied: action,
                        },
                    );
                }
            }
            return;
        }
    }

    /// `x` fires its readied action on window `w` (or, `fire == false`, holds it) and the
    /// window goes on with the next readier.
    pub(crate) fn answer_ready_window(&mut self, mut w: ReadyWindow, x: CombatantId, fire: bool) {
        if fire {
            let (action, plan) = self
                .readied_answer(x, &w)
                .expect("a readied action is offered only when it answers the window");
            self.fire_readied(w, x, action, plan);
        } else {
            w.asking = false;
            w.next = x.0 + 1;
            let by = self.id_of(w.by).to_string();
            self.log_turn(x, format!("holds its readied action ({by})"));
            self.frames.push(Frame::ReadyWindow(w));
        }
    }

    fn fire_readied(&mut self, mut w: ReadyWindow, x: CombatantId, action: Action, plan: Plan) {
        w.asking = false;
        w.next = x.0 + 1;
        let by = w.by;
        self.frames.push(Frame::ReadyWindow(w));
        let trigger = self.st[idx(x)].readied.take().map(|r| r.trigger);
        let what = crate::actions::legal::label(self, x, &action);
        let on = trigger.map_or("", |t| t.name());
        let bid = self.id_of(by).to_string();
        self.log_turn(x, format!("readied action fires: {what} ({on}: {bid})"));
        self.shift_initiative_before(x, by);
        self.execute_off_turn(x, plan);
    }

    /// S4b: `x`'s place in the order moves to just before `by` (kept in later rounds); the
    /// current turn stays the current one. If `x` now comes later in this round, it has
    /// acted in it already.
    fn shift_initiative_before(&mut self, x: CombatantId, by: CombatantId) {
        let Some(&cur) = self.order.get(self.turn_pos) else {
            return;
        };
        let (Some(xi), true) = (self.order.iter().position(|&c| c == x), x != by) else {
            return;
        };
        self.order.remove(xi);
        let bi = self.order.iter().position(|&c| c == by).unwrap_or(0);
        self.order.insert(bi, x);
        self.turn_pos = self.order.iter().position(|&c| c == cur).unwrap_or(0);
        self.st[idx(x)].initiative_total = self.st[idx(by)].initiative_total;
        if self.order.iter().position(|&c| c == x).unwrap_or(0) > self.turn_pos {
            self.st[idx(x)].acted_round = Some(self.round);
        }
    }

    /// Execute a readied action's plan off-turn: nothing of the current turn's budget or
    /// movement is touched, and it triggers no readied action itself.
    fn execute_off_turn(&mut self, x: CombatantId, plan: Plan) {
        match plan {
            Plan::Attack { target, weapon } => self.frames.push(Frame::Swing {
                attacker: x,
                target,
                weapon,
                opts: AttackOpts::default(),
                provoked: false,
                triggers_checked: true,
            }),
            Plan::Maneuver(m) => crate::rules::maneuvers::execute_maneuver(self, x, m),
            Plan::Move { path } => self.start_walk_readied(x, path),
            Plan::MoveTo { dest, budget } => {
                let path = self
                    .move_field(x, Some(budget))
                    .path_to(dest)
                    .expect("a checked destination has a path");
                self.start_walk_readied(x, path);
            }
            Plan::Step { to } => {
                let from = self.st[idx(x)].pos;
                self.st[idx(x)].pos = to;
                self.log_turn(x, format!("5foot_step {from}->{to} (readied)"));
            }
            _ => unreachable!("only attacks, maneuvers, moves and 5-foot steps are readied"),
        }
    }

    fn start_walk_readied(&mut self, x: CombatantId, path: Vec<Cell>) {
        self.start_walk(x, path, "readied move", false);
        if let Some(Frame::Walk(w)) = self.frames.last_mut() {
            w.readied = true;
        }
    }

    /// After `mover`'s 5-foot step from `from`: readied actions on its entering the square,
    /// then Step Up of the foes it stepped away from.
    pub(crate) fn after_five_foot_step(&mut self, mover: CombatantId, from: Cell) {
        // Frames run last-pushed first: the ready window before Step Up.
        if self.step_up_pending(mover, from) {
            self.frames.push(Frame::ImmediateWindow(ImmediateWindow {
                foe: mover,
                from,
                next: 0,
                asking: false,
            }));
        }
        self.open_ready_window(mover, ReadyEvent::Moved);
    }

    fn step_up_pending(&self, foe: CombatantId, from: Cell) -> bool {
        self.ids()
            .any(|x| !self.step_up_squares(x, foe, from).is_empty())
    }

    /// The squares `x` may Step Up to after `foe`'s 5-foot step from `from` (CRB — Feats:
    /// Step Up: "Whenever an adjacent foe attempts to take a 5-foot step away from you, you
    /// may also make a 5-foot step as an immediate action so long as you end up adjacent to
    /// the foe"): `x` has the feat, was adjacent to `foe` and no longer is, can take an
    /// immediate action and a 5-foot step (a legal step square, as [`check`] sees it off-turn)
    /// that ends adjacent to the foe. Sorted (row, column).
    pub(crate) fn step_up_squares(
        &self,
        x: CombatantId,
        foe: CombatantId,
        from: Cell,
    ) -> Vec<Cell> {
        use crate::content::feats::Feat;
        if x == foe
            || !self.enemies(x, foe)
            || !self.spec(x).has_feat(Feat::StepUp)
            || !self.can_take_immediate(x)
        {
            return Vec::new();
        }
        let xpos = self.st[idx(x)].pos;
        let (xs, fs) = (self.fp_side(x), self.fp_side(foe));
        let adjacent = |xp: Cell, fp: Cell| grid::footprint_distance_squares(xp, xs, fp, fs) <= 1;
        let fpos = self.st[idx(foe)].pos;
        if !adjacent(xpos, from) || adjacent(xpos, fpos) {
            return Vec::new();
        }
        let cx = Ctx::off_turn(self, x);
        let mut out: Vec<Cell> = crate::actions::space::STEP_DIRECTIONS
            .iter()
            .map(|(dr, dc)| Cell::new(xpos.row + dr, xpos.col + dc))
            .filter(|&to| {
                adjacent(to, fpos)
                    && check(
                        &cx,
                        &Action {
                            destination: Some(to),
                            ..Action::new(ActionKind::FiveFootStep)
                        },
                    )
                    .is_ok()
            })
            .collect();
        out.sort_by_key(|c| (c.row, c.col));
        out
    }

    /// Step a Step Up window: offer it to the next foe that may take it.
    pub(crate) fn step_immediate_window(&mut self, mut w: ImmediateWindow) {
        debug_assert!(
            !w.asking,
            "a window waiting for an answer is resumed by submit"
        );
        let n = self.n() as u16;
        while w.next < n {
            let x = CombatantId(w.next);
            let squares = self.step_up_squares(x, w.foe, w.from);
            if squares.is_empty() {
                w.next += 1;
                continue;
            }
            match self.controllers[idx(x)] {
                Controller::DefaultPolicy => {
                    // Rule of thumb: stay on the foe (the first square, row-major).
                    let to = squares[0];
                    self.answer_immediate_window(w, x, Some(to));
                }
                Controller::External => {
                    w.asking = true;
                    let foe = w.foe;
                    self.frames.push(Frame::ImmediateWindow(w));
                    self.new_decision(x, DecisionKind::StepUp { foe, squares });
                }
            }
            return;
        }
    }

    /// `x` takes Step Up to `to` (`None`: declines) and the window goes on.
    pub(crate) fn answer_immediate_window(
        &mut self,
        mut w: ImmediateWindow,
        x: CombatantId,
        to: Option<Cell>,
    ) {
        w.asking = false;
        w.next = x.0 + 1;
        let foe = w.foe;
        self.frames.push(Frame::ImmediateWindow(w));
        let Some(to) = to else {
            return;
        };
        self.use_immediate(x);
        let from = self.st[idx(x)].pos;
        self.st[idx(x)].pos = to;
        self.st[idx(x)].stepped_up = true;
        let fid = self.id_of(foe).to_string();
        self.log_turn(x, format!("step up {from}->{to} (follows {fid})"));
    }
}
