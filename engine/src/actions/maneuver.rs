//! `maneuver` (standard action): a combat maneuver against a target (CRB — Combat: Combat
//! Maneuvers; APG). Its rules (size limits, grapple states, the weapon that reaches, the
//! squares of overrun, drag and reposition) are [`crate::rules::maneuvers::plan_maneuver`].

use super::check::Ctx;
use super::plan::Plan;
use crate::actions::{Action, ActionKind, Maneuver, Reject};

pub(super) fn check(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    crate::rules::maneuvers::plan_maneuver(cx.ep, cx.actor, a).map(Plan::Maneuver)
}

/// Every maneuver against every conscious enemy and against the actor's grappler. A target
/// that no melee weapon of the actor reaches gets only `escape`: every other maneuver needs
/// such a weapon (`plan_maneuver` refuses it without one), so the others are left out
/// without checking them.
pub(super) fn candidates(cx: &Ctx<'_>, emit: &mut dyn FnMut(Action) -> bool) -> bool {
    let ep = cx.ep;
    let grappler = ep.st[cx.actor.0 as usize].grapple.map(|g| g.with);
    for t in ep.ids().filter(|&t| t != cx.actor) {
        let target = ep.enemies(cx.actor, t) && ep.conscious(t);
        if !(target || grappler == Some(t)) {
            continue;
        }
        let reaches = crate::rules::maneuvers::maneuver_weapon(ep, cx.actor, t, None).is_ok();
        for m in Maneuver::ALL {
            if !reaches && m != Maneuver::Escape {
                continue;
            }
            let a = Action {
                target: Some(t),
                maneuver: Some(m),
                ..Action::new(ActionKind::Maneuver)
            };
            if emit(a) {
                return true;
            }
        }
    }
    false
}
