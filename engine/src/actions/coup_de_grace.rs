//! `coup_de_grace` (full-round action) against a helpless `target` with `weapon` (`None`:
//! the first that can). The rule is [`crate::rules::coup_de_grace`].

use super::check::Ctx;
use super::plan::Plan;
use crate::actions::{Action, ActionKind, Reject};

pub(super) fn check(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    let (target, weapon) = crate::rules::coup_de_grace::check(cx.ep, cx.actor, a.target, a.weapon)?;
    Ok(Plan::CoupDeGrace { target, weapon })
}

/// Every helpless, living enemy with every weapon.
pub(super) fn candidates(cx: &Ctx<'_>, emit: &mut dyn FnMut(Action) -> bool) -> bool {
    let ep = cx.ep;
    let n_w = ep.spec(cx.actor).attacks.len();
    for t in ep.ids() {
        if t == cx.actor
            || !ep.enemies(cx.actor, t)
            || !crate::rules::coup_de_grace::helpless(ep, t)
        {
            continue;
        }
        for w in 0..n_w {
            let a = Action {
                target: Some(t),
                weapon: Some(w),
                ..Action::new(ActionKind::CoupDeGrace)
            };
            if emit(a) {
                return true;
            }
        }
    }
    false
}
