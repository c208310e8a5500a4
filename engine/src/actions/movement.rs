//! `move` (move action: up to one's speed, to a square or toward a target), `5foot_step`
//! (one square that never provokes) and `withdraw` (full-round action: up to twice one's
//! speed; a standard action up to one's speed when staggered or disabled; leaving the first
//! square does not provoke) — CRB — Combat: Move Actions; Take 5-Foot Step; Actions in
//! Combat: Withdraw, Restricted Withdraw. Squares, costs and paths come from the actor's
//! movement field ([`crate::rules::movement`]); budgets are in squares of movement.

use super::check::{target_of, Ctx};
use super::plan::Plan;
use crate::actions::space::STEP_DIRECTIONS;
use crate::actions::{Action, ActionKind, CombatantId, Reject};
use crate::episode::Episode;
use crate::geometry::grid::{self, Cell};
use crate::rules::idx;
use crate::rules::movement::{path_toward_sorted, squares_by_cost};

/// Whether `dest` is a square other than the actor's where it may stop, within `budget`
/// squares of movement.
fn stoppable_within(cx: &Ctx<'_>, dest: Cell, budget: u32) -> bool {
    dest != cx.pos && cx.field().stop_cost(dest).is_some_and(|c| c <= budget)
}

/// `move`: not after a 5-foot step; to a square the actor can stop in within its speed, or
/// toward a conscious enemy (the cheapest square from which a weapon — `weapon`, or any —
/// can attack it, cut at its speed; some progress needed).
pub(super) fn check_move(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    if cx.stepped {
        return Err(Reject::AlreadyMoved);
    }
    let budget = cx.budget_squares(1);
    match (a.destination, a.target) {
        (Some(dest), _) => {
            if !stoppable_within(cx, dest, budget) {
                return Err(Reject::UnreachableDestination);
            }
            Ok(Plan::MoveTo { dest, budget })
        }
        (None, Some(_)) => {
            let t = target_of(cx, a)?;
            if let Some(w) = a.weapon {
                if w >= cx.ep.spec(cx.actor).attacks.len() {
                    return Err(Reject::WeaponUnavailable { weapon: Some(w) });
                }
            }
            let field = cx.field();
            let path = path_toward_sorted(
                cx.ep,
                field,
                squares_by_cost(field),
                cx.actor,
                t,
                a.weapon,
                budget,
            )
            .ok_or(Reject::UnreachableDestination)?;
            Ok(Plan::Move { path })
        }
        (None, None) => Err(Reject::MissingTarget),
    }
}

/// `5foot_step`: no other movement this turn; a current speed above 5 ft; an adjacent square
/// the actor can stop in that costs exactly one square — never into difficult terrain or
/// uphill (CRB — Combat: Take 5-Foot Step: "Any creature with a speed of 5 feet or less
/// can't take a 5-foot step, since moving even 5 feet requires a move action for such a slow
/// creature"). The speed is the current one ([`Ctx::speed_ft`]: halved by entangled,
/// exhausted, blinded, or by being disabled) tested by
/// [`crate::rules::movement::speed_allows_five_foot_step`], as the budget's `five_foot_step`
/// is; too slow is `unreachable_destination`.
pub(super) fn check_step(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    if cx.moved {
        return Err(Reject::AlreadyMoved);
    }
    let Some(dest) = a.destination else {
        return Err(Reject::MissingTarget);
    };
    if !crate::rules::movement::speed_allows_five_foot_step(cx.speed_ft())
        || grid::distance_squares(cx.pos, dest) != 1
    {
        return Err(Reject::UnreachableDestination);
    }
    if cx.field().stop_cost(dest) != Some(1) {
        return Err(Reject::UnreachableDestination);
    }
    Ok(Plan::Step { to: dest })
}

/// The movement budget of a withdraw of the actor, in squares: twice its speed, or its
/// speed when the withdraw is a standard action (staggered, disabled — CRB — Combat:
/// Withdraw, Restricted Withdraw: "you may move up to your speed";
/// [`Episode::withdraw_speed_multiple`], from the same slot the budget consumes).
fn withdraw_budget(cx: &Ctx<'_>) -> u32 {
    cx.budget_squares(cx.ep.withdraw_speed_multiple(cx.actor))
}

/// `withdraw`: no movement before it; a square the actor can stop in within twice its speed
/// (its speed for a restricted withdraw: [`withdraw_budget`]).
pub(super) fn check_withdraw(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    if cx.moved {
        return Err(Reject::AlreadyMoved);
    }
    let Some(dest) = a.destination else {
        return Err(Reject::MissingTarget);
    };
    let budget = withdraw_budget(cx);
    if !stoppable_within(cx, dest, budget) {
        return Err(Reject::UnreachableDestination);
    }
    Ok(Plan::Withdraw { dest, budget })
}

/// The eight adjacent squares.
pub(super) fn candidates_step(cx: &Ctx<'_>, emit: &mut dyn FnMut(Action) -> bool) -> bool {
    for (dr, dc) in STEP_DIRECTIONS {
        let a = Action {
            destination: Some(Cell::new(cx.pos.row + dr, cx.pos.col + dc)),
            ..Action::new(ActionKind::FiveFootStep)
        };
        if emit(a) {
            return true;
        }
    }
    false
}

/// Every square the actor can stop in within its speed (a move to it), then every
/// conscious enemy (a move toward it).
pub(super) fn candidates_move(cx: &Ctx<'_>, emit: &mut dyn FnMut(Action) -> bool) -> bool {
    let budget = cx.budget_squares(1);
    for (cell, _) in cx.field().stoppable_iter().filter(|&(_, k)| k <= budget) {
        let a = Action {
            destination: Some(cell),
            ..Action::new(ActionKind::Move)
        };
        if emit(a) {
            return true;
        }
    }
    for t in cx.enemies() {
        let a = Action {
            target: Some(t),
            ..Action::new(ActionKind::Move)
        };
        if emit(a) {
            return true;
        }
    }
    false
}

/// Every square the actor can stop in within its withdraw budget ([`withdraw_budget`]).
pub(super) fn candidates_withdraw(cx: &Ctx<'_>, emit: &mut dyn FnMut(Action) -> bool) -> bool {
    let budget = withdraw_budget(cx);
    for (cell, _) in cx.field().stoppable_iter().filter(|&(_, k)| k <= budget) {
        let a = Action {
            destination: Some(cell),
            ..Action::new(ActionKind::Withdraw)
        };
        if emit(a) {
            return true;
        }
    }
    false
}

/// A walk along `path` (`what`: its name in the transcript; a withdraw's first square does
/// not provoke).
pub(super) fn execute_walk(
    ep: &mut Episode,
    a: CombatantId,
    path: Vec<Cell>,
    what: &str,
    withdraw: bool,
) {
    ep.turn.moved = true;
    ep.start_walk(a, path, what, withdraw);
}

/// A walk to `dest`, on the path of the actor's field bounded by `budget` squares.
pub(super) fn execute_walk_to(
    ep: &mut Episode,
    a: CombatantId,
    dest: Cell,
    budget: u32,
    what: &str,
    withdraw: bool,
) {
    let path = ep
        .move_field(a, Some(budget))
        .path_to(dest)
        .expect("a checked destination has a path");
    execute_walk(ep, a, path, what, withdraw);
}

/// A 5-foot step: the actor moves one square, provoking nothing.
pub(super) fn execute_step(ep: &mut Episode, a: CombatantId, to: Cell) {
    ep.turn.moved = true;
    ep.turn.stepped = true;
    let from = ep.st[idx(a)].pos;
    ep.st[idx(a)].pos = to;
    ep.log_turn(a, format!("5foot_step {from}->{to}"));
    // Readied actions on its entering the square, Step Up of the foes it left.
    ep.after_five_foot_step(a, from);
}
