//! Legality, written once. Every turn action is checked by [`check`]: the generic
//! preconditions of its kind ([`preconditions`]: conscious, conditions, the budget slot —
//! CRB — Combat: Actions in Combat; Appendix: Conditions), then the kind's own rules (one
//! module per kind: `attack`, `charge`, `movement`, `run`, `maneuver`, `prone`, `items`,
//! `power_attack`, `defense`, `aid`, `coup_de_grace`). The legal-action enumeration (`legal`) asks each kind for its
//! candidates and keeps exactly those [`check`] accepts, so the action mask is by
//! construction the set of actions `validate` and `submit` accept.
//!
//! A [`Ctx`] holds what every check of one decision shares and computes it at most once:
//! the actor's budget and condition flags, its movement field, which of its weapons reach
//! which target, the run-destination checker.

use crate::actions::plan::Plan;
use crate::actions::{Action, ActionKind, Budget, CombatantId, Maneuver, Reject, Slot};
use crate::effects::conditions::Condition;
use crate::episode::{Episode, LifeState};
use crate::geometry::grid::{Cell, PathField};
use std::cell::{OnceCell, RefCell};

/// The first condition of the actor with each behaviour flag that forbids actions.
#[derive(Debug, Clone, Copy, Default)]
struct Forbidding {
    cant_act: Option<Condition>,
    cant_attack: Option<Condition>,
    cant_move: Option<Condition>,
    single_move: Option<Condition>,
    no_charge: Option<Condition>,
    prone: bool,
}

/// What the checks of one decision of `actor` share (see the module doc). Built cheaply;
/// each part is computed on first use.
pub(crate) struct Ctx<'a> {
    pub(crate) ep: &'a Episode,
    pub(crate) actor: CombatantId,
    /// The actor's anchor square.
    pub(crate) pos: Cell,
    pub(crate) budget: Budget,
    /// Moved / took a 5-foot step this turn (always `false` off-turn: a readied action).
    pub(crate) moved: bool,
    pub(crate) stepped: bool,
    conscious: bool,
    disabled: bool,
    /// In the surprise round (a refused slot reads `downgraded:surprise`).
    surprise: bool,
    /// Staggered (a refused slot reads `downgraded:staggered`).
    staggered: bool,
    forbid: Forbidding,
    field: OnceCell<PathField>,
    /// Speed in feet (conditions and life state applied).
    speed_ft: i32,
    /// `can_weapon_attack` from `pos`, per `target × weapons + weapon`.
    weapon_ok: RefCell<Vec<Option<Result<(), Reject>>>>,
    #[allow(clippy::type_complexity)]
    run_check: OnceCell<Box<dyn Fn(Cell) -> Result<(), Reject> + 'a>>,
    /// Spring Attack / Shot on the Run tables, per `(target, weapon, spring)`.
    pub(crate) move_attack: crate::rules::feats_movement::MoveAttackMemo,
    /// Line of effect from the actor to each square (row-major), computed once per square:
    /// the `cast_spell_at` candidates ask it for every square of the map.
    cell_loe: RefCell<Vec<Option<bool>>>,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(ep: &'a Episode, actor: CombatantId) -> Ctx<'a> {
        let first =
            |f: fn(&crate::effects::conditions::ConditionDef) -> bool| ep.first_condition(actor, f);
        Ctx {
            ep,
            actor,
            pos: ep.position(actor),
            budget: ep.budget(actor),
            moved: ep.turn.moved,
            stepped: ep.turn.stepped,
            conscious: ep.conscious(actor),
            disabled: ep.life_state(actor) == LifeState::Disabled,
            surprise: ep.in_surprise_round(),
            staggered: ep.cond_flag(actor, |d| d.staggered),
            forbid: Forbidding {
                cant_act: first(|d| d.cant_act),
                cant_attack: first(|d| d.cant_attack),
                cant_move: first(|d| d.cant_move),
                single_move: first(|d| d.single_move),
                no_charge: first(|d| d.no_charge),
                prone: ep.has_condition(actor, Condition::Prone),
            },
            field: OnceCell::new(),
            speed_ft: ep.speed_ft(actor),
            weapon_ok: RefCell::new(Vec::new()),
            run_check: OnceCell::new(),
            move_attack: Default::default(),
            cell_loe: RefCell::new(Vec::new()),
        }
    }

    /// The context of an action `actor` takes off its turn (a readied action firing — CRB —
    /// Special Initiative Actions: Ready): the action was paid for when it was readied, so
    /// every slot is free and nothing of the current turn (someone else's) counts.
    pub(crate) fn off_turn(ep: &'a Episode, actor: CombatantId) -> Ctx<'a> {
        let mut cx = Ctx::new(ep, actor);
        cx.budget = Budget {
            standard: true,
            move_action: true,
            swift: true,
            full_round: true,
            five_foot_step: crate::rules::movement::speed_allows_five_foot_step(cx.speed_ft),
        };
        cx.moved = false;
        cx.stepped = false;
        cx.surprise = false;
        cx
    }

    /// The conscious enemies of the actor (list order): the only combatants an attack-like
    /// action may target ([`target_of`]), so the only candidates worth checking.
    pub(crate) fn enemies(&self) -> impl Iterator<Item = CombatantId> + use<'_, 'a> {
        self.ep
            .ids()
            .filter(|&t| t != self.actor && self.ep.enemies(self.actor, t) && self.ep.conscious(t))
    }

    /// The actor's current speed in feet: its best speed, halved by conditions (entangled,
    /// exhausted, blinded) or by being disabled ([`Episode::speed_ft`]).
    pub(crate) fn speed_ft(&self) -> i32 {
        self.speed_ft
    }

    /// The budget slot action `a` takes for the actor ([`Episode::slot_of`]: a
    /// withdraw is a standard action for a staggered or disabled actor).
    pub(crate) fn slot(&self, a: &Action) -> Slot {
        self.ep.slot_of(self.actor, a)
    }

    /// The movement budget in squares of `mult` × speed (1: a move action or a restricted
    /// withdraw, 2: a withdraw) — [`crate::rules::movement::budget_squares`].
    pub(crate) fn budget_squares(&self, mult: i32) -> u32 {
        (self.speed_ft * mult / crate::geometry::grid::SQUARE_FT).max(0) as u32
    }

    /// The actor's unbounded movement field (a bound only prunes it: costs and paths within
    /// any bound are the same).
    pub(crate) fn field(&self) -> &PathField {
        self.field
            .get_or_init(|| self.ep.move_field(self.actor, None))
    }

    /// Whether weapon `w` of the actor can attack `t` from where it stands
    /// ([`crate::rules::weapons::can_weapon_attack`]), computed once per pair.
    pub(crate) fn weapon_ok(&self, w: usize, t: CombatantId) -> Result<(), Reject> {
        let n_w = self.ep.spec(self.actor).attacks.len();
        if w >= n_w || t.0 as usize >= self.ep.n() {
            return crate::rules::weapons::can_weapon_attack(self.ep, self.actor, self.pos, w, t);
        }
        let i = t.0 as usize * n_w + w;
        let mut memo = self.weapon_ok.borrow_mut();
        if memo.is_empty() {
            memo.resize(self.ep.n() * n_w, None);
        }
        *memo[i].get_or_insert_with(|| {
            crate::rules::weapons::can_weapon_attack(self.ep, self.actor, self.pos, w, t)
        })
    }

    /// Whether the actor has line of effect to square `c` (in bounds), computed once per
    /// square ([`crate::geometry::los::has_line_of_effect`]).
    pub(crate) fn loe_to_cell(&self, c: Cell) -> bool {
        let grid = &self.ep.enc.grid;
        let Some(i) = grid.index(c) else {
            return false;
        };
        let mut memo = self.cell_loe.borrow_mut();
        if memo.is_empty() {
            memo.resize((grid.rows.max(0) * grid.cols.max(0)) as usize, None);
        }
        *memo[i].get_or_insert_with(|| {
            crate::geometry::los::has_line_of_effect(
                grid,
                self.pos,
                self.ep.fp_side(self.actor),
                c,
                1,
            )
        })
    }

    /// The run-destination check of the actor ([`crate::rules::run::run_destination_checker`]),
    /// built once.
    pub(crate) fn run_check(&self, dest: Cell) -> Result<(), Reject> {
        let f = self.run_check.get_or_init(|| {
            Box::new(crate::rules::run::run_destination_checker(
                self.ep, self.actor,
            ))
        });
        f(dest)
    }
}

/// Check a turn action of `cx.actor` now: `Ok(None)` for `end_turn`, else the plan to
/// execute. Never rolls a die nor changes anything.
///
/// # Errors
/// The [`Reject`] of the first rule the action breaks.
pub(crate) fn check(cx: &Ctx<'_>, a: &Action) -> Result<Option<Plan>, Reject> {
    preconditions(cx, a)?;
    if a.kind == ActionKind::EndTurn {
        return Ok(None);
    }
    kind_check(cx, a).map(Some)
}

/// The kind's own rules (after [`preconditions`]).
pub(crate) fn kind_check(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    use super::*;
    match a.kind {
        ActionKind::EndTurn
        | ActionKind::AttackOfOpportunity
        | ActionKind::Decline
        | ActionKind::FireReadied
        | ActionKind::StandStill => {
            unreachable!("refused or accepted by the preconditions")
        }
        ActionKind::Attack | ActionKind::FullAttack => attack::check(cx, a),
        ActionKind::Charge => charge::check(cx, a),
        ActionKind::Move => movement::check_move(cx, a),
        ActionKind::FiveFootStep => movement::check_step(cx, a),
        ActionKind::Withdraw => movement::check_withdraw(cx, a),
        ActionKind::Maneuver => maneuver::check(cx, a),
        ActionKind::StandUp => prone::check_stand_up(cx, a),
        ActionKind::DropProne => prone::check_drop_prone(cx, a),
        ActionKind::RetrieveWeapon => items::check_retrieve(cx, a),
        ActionKind::RepairWeapon => items::check_repair(cx, a),
        ActionKind::ActivatePowerAttack => power_attack::check(cx, a),
        ActionKind::Run => run::check(cx, a),
        ActionKind::TotalDefense => defense::check_total_defense(cx, a),
        ActionKind::FightDefensively => defense::check_fight_defensively(cx, a),
        ActionKind::Delay => ready::check_delay(cx, a),
        ActionKind::Ready => ready::check_ready(cx, a),
        ActionKind::Cleave => movement_feats::check_cleave(cx, a),
        ActionKind::SpringAttack | ActionKind::ShotOnTheRun => {
            movement_feats::check_move_attack(cx, a)
        }
        ActionKind::ActivateLunge => movement_feats::check_lunge(cx, a),
        ActionKind::ActivateDeadlyAim => toggles::check_deadly_aim(cx, a),
        ActionKind::ActivateCombatExpertise => toggles::check_combat_expertise(cx, a),
        ActionKind::AidAnother => aid::check(cx, a),
        ActionKind::CoupDeGrace => coup_de_grace::check(cx, a),
        ActionKind::DrawWeapon => items::check_draw(cx, a),
        ActionKind::SheatheWeapon => items::check_sheathe(cx, a),
        ActionKind::CastSpell => cast::check(cx, a),
        ActionKind::CastDefensively => cast::check_cast_defensively(cx, a),
        ActionKind::ActivateMetamagic => cast::check_activate_metamagic(cx, a),
    }
}

/// What every turn action of a kind must pass before its own rules (CRB — Combat: Actions
/// in Combat; Injury and Death; Appendix: Conditions):
/// - the actor is conscious and no condition forbids acting (`cannot_act`); a reaction kind
///   is not a turn action (`wrong_decision_kind`);
/// - conditions (`prevented_by_condition`): no attack of any kind (maneuvers but escape
///   included) while nauseated, pinned or panicked; no movement (move, charge, 5-foot step,
///   withdraw, run, stand up) while grappled, pinned, paralyzed…; prone: no movement but
///   standing up (crawling 5 ft is not modelled); nauseated: nothing but a move action
///   (CRB — Conditions: Nauseated: the only action it can take is a single move action per
///   turn), so no 5-foot step and no free action either (`drop_prone`,
///   `activate_power_attack`: free actions are actions), and no standard or full-round
///   action (refused here with the condition named, not by the budget); fatigued,
///   exhausted, entangled: no charge and no run;
/// - the action's budget slot is free (`downgraded:action_economy`; a disabled combatant's
///   one action: `downgraded:disabled`). The slot is the actor's ([`Ctx::slot`],
///   [`Episode::slot_of`], which the turn frames consume too): a withdraw is full-round, or
///   a standard action for a staggered or disabled actor (CRB — Combat: Withdraw,
///   Restricted Withdraw).
pub(crate) fn preconditions(cx: &Ctx<'_>, a: &Action) -> Result<(), Reject> {
    forbidden(cx, a)?;
    if a.kind == ActionKind::EndTurn {
        return Ok(());
    }
    let slot = cx.slot(a);
    let b = &cx.budget;
    let free = match slot {
        Slot::Standard => b.standard,
        Slot::Move => b.move_action,
        Slot::Swift => b.swift,
        Slot::FullRound => b.full_round,
        Slot::Free => true,
    };
    if !free {
        // Which limit spent the slot, the seed's `downgraded:*` reasons: the surprise round,
        // disabled, staggered, nauseated (its single move action), else the turn's budget.
        return Err(if cx.surprise && slot != Slot::Free {
            Reject::DowngradedSurprise { slot }
        } else if cx.disabled && slot != Slot::Free {
            Reject::DowngradedDisabled { slot }
        } else if cx.staggered && slot != Slot::Free {
            Reject::DowngradedStaggered { slot }
        } else if cx.forbid.single_move.is_some() && slot == Slot::Move {
            Reject::DowngradedNauseated { slot }
        } else {
            Reject::DowngradedActionEconomy { slot }
        });
    }
    Ok(())
}

/// The part of [`preconditions`] that does not read the budget: consciousness, the decision
/// kind, the conditions and fighting defensively. A readied action is checked with it alone
/// when readied (its slot was paid by `ready`).
pub(crate) fn forbidden(cx: &Ctx<'_>, a: &Action) -> Result<(), Reject> {
    if !cx.conscious {
        return Err(Reject::CannotAct { condition: None });
    }
    if a.kind.is_reaction() {
        return Err(Reject::WrongDecisionKind);
    }
    if a.kind == ActionKind::EndTurn {
        return Ok(());
    }
    let f = &cx.forbid;
    if let Some(c) = f.cant_act {
        return Err(Reject::CannotAct { condition: Some(c) });
    }
    let escape = a.kind == ActionKind::Maneuver && a.maneuver == Some(Maneuver::Escape);
    // Total defense and fighting defensively count with attacks here: a creature that may
    // not attack (nauseated, pinned, panicked) takes neither; aid another and a coup de
    // grace are attacks.
    let attacks = matches!(
        a.kind,
        ActionKind::Attack
            | ActionKind::FullAttack
            | ActionKind::Charge
            | ActionKind::TotalDefense
            | ActionKind::FightDefensively
            | ActionKind::Cleave
            | ActionKind::SpringAttack
            | ActionKind::ShotOnTheRun
            | ActionKind::ActivateLunge
            | ActionKind::AidAnother
            | ActionKind::CoupDeGrace
            | ActionKind::CastSpell
            | ActionKind::CastDefensively
            | ActionKind::ActivateMetamagic
    ) || (a.kind == ActionKind::Maneuver && !escape);
    let moves = matches!(
        a.kind,
        ActionKind::Move
            | ActionKind::Charge
            | ActionKind::FiveFootStep
            | ActionKind::Withdraw
            | ActionKind::Run
            | ActionKind::StandUp
            | ActionKind::SpringAttack
            | ActionKind::ShotOnTheRun
    );
    let charge_like = matches!(a.kind, ActionKind::Charge | ActionKind::Run);
    let prevented =
        |c: Option<Condition>| c.map(|condition| Reject::PreventedByCondition { condition });
    let blocked = if attacks {
        prevented(f.cant_attack)
    } else {
        None
    }
    .or(if cx.slot(a) != Slot::Move {
        // Nauseated: a single move action is the only action (no 5-foot step, no free
        // action); `end_turn` returned above.
        prevented(f.single_move)
    } else {
        None
    })
    .or(if moves { prevented(f.cant_move) } else { None })
    .or(if moves && a.kind != ActionKind::StandUp && f.prone {
        prevented(Some(Condition::Prone))
    } else {
        None
    })
    .or(if charge_like {
        prevented(f.no_charge)
    } else {
        None
    });
    if let Some(r) = blocked {
        return Err(r);
    }
    // Stand Still: no more movement this turn (standing up is not movement).
    if moves && a.kind != ActionKind::StandUp && cx.ep.st[cx.actor.0 as usize].stood_still {
        return Err(Reject::StoodStill);
    }
    // Fighting defensively goes with an attack or a full attack (CRB — Actions in Combat).
    if cx.ep.st[cx.actor.0 as usize].fight_defensively
        && matches!(
            a.kind,
            ActionKind::Charge
                | ActionKind::Maneuver
                | ActionKind::AidAnother
                | ActionKind::CoupDeGrace
        )
    {
        return Err(Reject::FightingDefensively);
    }
    Ok(())
}

/// The turn-action kinds in enumeration order (the free toggles last).
pub(crate) const ENUMERATION_ORDER: [ActionKind; 31] = [
    ActionKind::FiveFootStep,
    ActionKind::Move,
    ActionKind::Attack,
    ActionKind::FullAttack,
    ActionKind::Charge,
    ActionKind::Withdraw,
    ActionKind::StandUp,
    ActionKind::RetrieveWeapon,
    ActionKind::RepairWeapon,
    ActionKind::Maneuver,
    ActionKind::Run,
    ActionKind::TotalDefense,
    ActionKind::Ready,
    ActionKind::Delay,
    ActionKind::Cleave,
    ActionKind::SpringAttack,
    ActionKind::ShotOnTheRun,
    ActionKind::AidAnother,
    ActionKind::CoupDeGrace,
    ActionKind::DrawWeapon,
    ActionKind::SheatheWeapon,
    ActionKind::CastSpell,
    ActionKind::DropProne,
    ActionKind::ActivatePowerAttack,
    ActionKind::FightDefensively,
    ActionKind::ActivateLunge,
    ActionKind::ActivateDeadlyAim,
    ActionKind::ActivateCombatExpertise,
    ActionKind::CastDefensively,
    ActionKind::ActivateMetamagic,
    ActionKind::EndTurn,
];

/// Hand every candidate action of `kind` to `emit` until it returns `true` (stop); returns
/// whether it stopped. Candidates may include illegal actions: the caller checks each.
pub(crate) fn candidates(
    cx: &Ctx<'_>,
    kind: ActionKind,
    emit: &mut dyn FnMut(Action) -> bool,
) -> bool {
    use super::*;
    match kind {
        ActionKind::EndTurn => emit(Action::new(ActionKind::EndTurn)),
        ActionKind::AttackOfOpportunity
        | ActionKind::Decline
        | ActionKind::FireReadied
        | ActionKind::StandStill => false,
        ActionKind::Attack | ActionKind::FullAttack => attack::candidates(cx, kind, emit),
        ActionKind::Charge => charge::candidates(cx, emit),
        ActionKind::Move => movement::candidates_move(cx, emit),
        ActionKind::FiveFootStep => movement::candidates_step(cx, emit),
        ActionKind::Withdraw => movement::candidates_withdraw(cx, emit),
        ActionKind::Maneuver => maneuver::candidates(cx, emit),
        ActionKind::StandUp => emit(Action::new(ActionKind::StandUp)),
        ActionKind::DropProne => emit(Action::new(ActionKind::DropProne)),
        ActionKind::RetrieveWeapon | ActionKind::RepairWeapon => items::candidates(cx, kind, emit),
        ActionKind::ActivatePowerAttack => emit(Action::new(ActionKind::ActivatePowerAttack)),
        ActionKind::Run => run::candidates(cx, emit) || run::candidates_toward(cx, emit),
        ActionKind::TotalDefense => emit(Action::new(ActionKind::TotalDefense)),
        ActionKind::AidAnother => aid::candidates(cx, emit),
        ActionKind::CoupDeGrace => coup_de_grace::candidates(cx, emit),
        ActionKind::DrawWeapon | ActionKind::SheatheWeapon => items::candidates(cx, kind, emit),
        ActionKind::FightDefensively => emit(Action::new(ActionKind::FightDefensively)),
        ActionKind::Delay => ready::candidates_delay(cx, emit),
        ActionKind::Ready => ready::candidates_ready(cx, emit),
        ActionKind::Cleave => movement_feats::candidates_cleave(cx, emit),
        ActionKind::SpringAttack | ActionKind::ShotOnTheRun => {
            movement_feats::candidates_move_attack(cx, kind, emit)
        }
        ActionKind::ActivateLunge => emit(Action::new(ActionKind::ActivateLunge)),
        ActionKind::ActivateDeadlyAim => emit(Action::new(ActionKind::ActivateDeadlyAim)),
        ActionKind::ActivateCombatExpertise => {
            emit(Action::new(ActionKind::ActivateCombatExpertise))
        }
        ActionKind::CastSpell => cast::candidates(cx, emit),
        // Only casters have these declarations (a combatant without spells: none to check).
        ActionKind::CastDefensively => {
            !cx.ep.spec(cx.actor).spellbook().is_empty()
                && emit(Action::new(ActionKind::CastDefensively))
        }
        ActionKind::ActivateMetamagic => {
            !cx.ep.spec(cx.actor).spellbook().is_empty() && cast::candidates_metamagic(emit)
        }
    }
}

/// A target for an attack-like action: `a.target`, a conscious enemy other than the actor.
///
/// # Errors
/// `missing_target`; `invalid_target` with what is wrong.
pub(crate) fn target_of(cx: &Ctx<'_>, a: &Action) -> Result<CombatantId, Reject> {
    target_check(cx.ep, cx.actor, a.target)
}

/// [`target_of`] outside a [`Ctx`].
pub(crate) fn target_check(
    ep: &Episode,
    actor: CombatantId,
    target: Option<CombatantId>,
) -> Result<CombatantId, Reject> {
    use crate::actions::TargetIssue;
    let Some(t) = target else {
        return Err(Reject::MissingTarget);
    };
    let why = if t.0 as usize >= ep.n() {
        TargetIssue::NoSuchCombatant
    } else if t == actor {
        TargetIssue::Itself
    } else if !ep.enemies(actor, t) {
        TargetIssue::Ally
    } else if !ep.conscious(t) {
        TargetIssue::Unconscious
    } else {
        return Ok(t);
    };
    Err(Reject::InvalidTarget {
        target: Some(t),
        why,
    })
}
