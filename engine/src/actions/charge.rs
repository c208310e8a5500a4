//! `charge` (full-round action): move up to twice one's speed in a straight, clear line to
//! the closest square from which to attack the target in melee, then one attack at +2; −2 AC
//! until the start of one's next turn (CRB — Combat: Charge). The line is in
//! [`crate::rules::charge`].

use super::check::{target_of, Ctx};
use super::plan::Plan;
use crate::actions::{Action, ActionKind, CombatantId, Reject};
use crate::episode::frames::Frame;
use crate::episode::Episode;
use crate::geometry::grid::Cell;
use crate::rules::charge::charge_path;
use crate::rules::idx;

/// No movement before it this turn; a conscious enemy; a charge line to it.
pub(super) fn check(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    if cx.moved {
        return Err(Reject::AlreadyMoved);
    }
    let t = target_of(cx, a)?;
    let (weapon, path) = charge_path(cx.ep, cx.actor, t, a.weapon)?;
    Ok(Plan::Charge {
        target: t,
        weapon,
        path,
    })
}

/// Every conscious enemy (the first melee weapon: a charge id has no weapon).
pub(super) fn candidates(cx: &Ctx<'_>, emit: &mut dyn FnMut(Action) -> bool) -> bool {
    for t in cx.enemies() {
        let a = Action {
            target: Some(t),
            ..Action::new(ActionKind::Charge)
        };
        if emit(a) {
            return true;
        }
    }
    false
}

/// The walk along the line, then the attack (if the charger still stands).
pub(super) fn execute(
    ep: &mut Episode,
    a: CombatantId,
    target: CombatantId,
    weapon: usize,
    path: Vec<Cell>,
) {
    ep.turn.moved = true;
    ep.st[idx(a)].charging = true;
    ep.frames.push(Frame::ChargeAttack {
        attacker: a,
        target,
        weapon,
    });
    ep.start_walk(a, path, "charge", false);
}
