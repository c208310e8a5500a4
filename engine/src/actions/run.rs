//! `run` (full-round action): up to 4× speed (5× with Run) in a straight line to a square,
//! or toward a `target` (the seed's U5e; [`crate::rules::run::toward_target`]: the straight
//! line toward it, stopping adjacent) — CRB — Actions in Combat: Run. The line, the
//! endurance check and the denied Dex bonus are in [`crate::rules::run`].

use super::check::Ctx;
use super::plan::Plan;
use crate::actions::{Action, ActionKind, Reject};
use crate::geometry::grid;
use crate::rules::idx;

/// No movement before it this turn; not resting after a failed endurance check; a
/// destination reached by a clear straight line within the run distance — the given one, or
/// with a `target` (and no destination: `invalid_destination` for both) the one of
/// [`crate::rules::run::toward_target`].
pub(super) fn check(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    if cx.moved {
        return Err(Reject::AlreadyMoved);
    }
    if cx.ep.st[idx(cx.actor)].run_rest > 0 {
        return Err(Reject::CannotRun);
    }
    if let Some(t) = a.target {
        if a.destination.is_some() {
            return Err(Reject::InvalidDestination);
        }
        let dest = crate::rules::run::toward_target(cx.ep, cx.actor, t, &|c| cx.run_check(c))?;
        return Ok(Plan::Run { dest });
    }
    let dest = a.destination.ok_or(Reject::MissingTarget)?;
    // A run ends where the runner could stop (a square its movement field reaches with
    // every square of its space free): implied by a clear straight line to a free square,
    // tested first because it is cheap.
    if !cx.field().can_stop(dest) {
        return Err(Reject::UnreachableDestination);
    }
    cx.run_check(dest)?;
    Ok(Plan::Run { dest })
}

/// Every square the actor could stop in within its run distance (5-10-5).
pub(super) fn candidates(cx: &Ctx<'_>, emit: &mut dyn FnMut(Action) -> bool) -> bool {
    let max = cx.budget_squares(crate::rules::run::run_multiplier(cx.ep, cx.actor)) as i32;
    for (cell, _) in cx.field().stoppable_iter() {
        if grid::distance_squares(cx.pos, cell) > max {
            continue;
        }
        let a = Action {
            destination: Some(cell),
            ..Action::new(ActionKind::Run)
        };
        if emit(a) {
            return true;
        }
    }
    false
}

/// A run toward every other combatant.
pub(super) fn candidates_toward(cx: &Ctx<'_>, emit: &mut dyn FnMut(Action) -> bool) -> bool {
    for t in cx.ep.ids().filter(|&t| t != cx.actor) {
        let a = Action {
            target: Some(t),
            ..Action::new(ActionKind::Run)
        };
        if emit(a) {
            return true;
        }
    }
    false
}
