//! `retrieve_weapon` (move action: pick up a dropped weapon lying in or next to the actor's
//! space; it provokes — CRB — Actions in Combat: Move Actions) and `repair_weapon` (move
//! action: the seed's, see `docs/conformance.md`). Item states are in
//! [`crate::rules::items`].

use super::check::Ctx;
use super::plan::Plan;
use crate::actions::{Action, ActionKind, Reject};
use crate::rules::idx;

pub(super) fn check_retrieve(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    let w = a.weapon.ok_or(Reject::WeaponUnavailable { weapon: None })?;
    if !crate::rules::items::can_retrieve(cx.ep, cx.actor, w) {
        return Err(Reject::WeaponUnavailable { weapon: Some(w) });
    }
    Ok(Plan::RetrieveWeapon { weapon: w })
}

/// A broken weapon that is not destroyed and is in hand.
pub(super) fn check_repair(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    let w = a.weapon.ok_or(Reject::WeaponUnavailable { weapon: None })?;
    let ok = cx.ep.st[idx(cx.actor)]
        .weapons
        .get(w)
        .is_some_and(|s| s.broken && !s.destroyed && s.dropped_at.is_none());
    if !ok {
        return Err(Reject::WeaponUnavailable { weapon: Some(w) });
    }
    Ok(Plan::RepairWeapon { weapon: w })
}

/// Each of the actor's weapons.
pub(super) fn candidates(
    cx: &Ctx<'_>,
    kind: ActionKind,
    emit: &mut dyn FnMut(Action) -> bool,
) -> bool {
    for w in 0..cx.ep.spec(cx.actor).attacks.len() {
        let a = Action {
            weapon: Some(w),
            ..Action::new(kind)
        };
        if emit(a) {
            return true;
        }
    }
    false
}
