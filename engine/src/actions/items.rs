//! `retrieve_weapon` (move action: pick up a dropped weapon lying in or next to the actor's
//! space; it provokes — CRB — Actions in Combat: Move Actions), `repair_weapon` (move
//! action: the seed's, see `docs/conformance.md`), `draw_weapon` (move action, or free: see
//! `Episode::slot_of`) and `sheathe_weapon` (move action, provokes) — CRB — Actions in
//! Combat: Draw or Sheathe a Weapon. Item states and hands are in [`crate::rules::items`].
//!
//! Hands (ours, [`crate::rules::items::hands`]): a creature has two hands, or the hands its
//! starting in-hand weapons take when more; a two-handed weapon, a bow or a crossbow takes
//! two, another manufactured weapon one, a natural attack none (always ready, never drawn
//! or sheathed). A draw or a pick-up that would need more hands than are free is refused
//! (`hands_full`): switching weapons is a sheathe (or a disarm's drop) then a draw.

use super::check::Ctx;
use super::plan::Plan;
use crate::actions::{Action, ActionKind, Reject};
use crate::rules::idx;

pub(super) fn check_retrieve(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    let w = a.weapon.ok_or(Reject::WeaponUnavailable { weapon: None })?;
    if !crate::rules::items::can_retrieve(cx.ep, cx.actor, w) {
        return Err(Reject::WeaponUnavailable { weapon: Some(w) });
    }
    if !cx.ep.fits_in_hands(cx.actor, w) {
        return Err(Reject::HandsFull);
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

/// A sheathed weapon (not dropped, not destroyed) that fits in the free hands.
pub(super) fn check_draw(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    let w = a.weapon.ok_or(Reject::WeaponUnavailable { weapon: None })?;
    let ok = cx.ep.st[idx(cx.actor)]
        .weapons
        .get(w)
        .is_some_and(|s| s.sheathed && !s.destroyed && s.dropped_at.is_none());
    if !ok {
        return Err(Reject::WeaponUnavailable { weapon: Some(w) });
    }
    if !cx.ep.fits_in_hands(cx.actor, w) {
        return Err(Reject::HandsFull);
    }
    Ok(Plan::DrawWeapon { weapon: w })
}

/// A manufactured weapon in hand (not sheathed, dropped nor destroyed).
pub(super) fn check_sheathe(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    let w = a.weapon.ok_or(Reject::WeaponUnavailable { weapon: None })?;
    let natural = cx
        .ep
        .spec(cx.actor)
        .attacks
        .get(w)
        .is_none_or(|x| x.natural);
    let ok = !natural
        && cx.ep.st[idx(cx.actor)]
            .weapons
            .get(w)
            .is_some_and(|s| !s.sheathed && !s.destroyed && s.dropped_at.is_none());
    if !ok {
        return Err(Reject::WeaponUnavailable { weapon: Some(w) });
    }
    Ok(Plan::SheatheWeapon { weapon: w })
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
