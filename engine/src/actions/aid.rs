//! `aid_another` (standard action): `target` is the opponent, `ally` the friend aided,
//! `aid_mode` attack (default) or ac; `weapon` the aider's melee weapon (`None`: the first
//! that can attack the opponent). The rule is [`crate::rules::aid`].

use super::check::{target_of, Ctx};
use super::plan::Plan;
use crate::actions::{Action, ActionKind, AidMode, CombatantId, Reject, TargetIssue};

/// The opponent a conscious enemy; the ally another conscious combatant of the aider's side;
/// a melee weapon of the aider that can attack the opponent from here; the opponent engaging
/// the ally in melee.
///
/// # Errors
/// `missing_target` (no opponent or no ally); `invalid_target` (the opponent: see
/// [`target_of`]; the ally: no such combatant, the aider itself, an enemy, not conscious);
/// `no_weapon` (no usable melee weapon); `weapon_unavailable` (the named one cannot);
/// `out_of_range` (no melee weapon reaches the opponent); `not_engaged`.
pub(super) fn check(cx: &Ctx<'_>, a: &Action) -> Result<Plan, Reject> {
    let t = target_of(cx, a)?;
    let ally = a.ally.ok_or(Reject::MissingTarget)?;
    let ep = cx.ep;
    let why = if ally.0 as usize >= ep.n() {
        Some(TargetIssue::NoSuchCombatant)
    } else if ally == cx.actor {
        Some(TargetIssue::Itself)
    } else if ep.enemies(cx.actor, ally) {
        Some(TargetIssue::NotAnAlly)
    } else if !ep.conscious(ally) {
        Some(TargetIssue::Unconscious)
    } else {
        None
    };
    if let Some(why) = why {
        return Err(Reject::InvalidTarget {
            target: Some(ally),
            why,
        });
    }
    if a.weapon.is_some_and(|w| {
        ep.spec(cx.actor)
            .attacks
            .get(w)
            .is_some_and(|x| x.is_ranged())
    }) {
        return Err(Reject::WeaponUnavailable { weapon: a.weapon });
    }
    let weapon = crate::rules::maneuvers::maneuver_weapon(ep, cx.actor, t, a.weapon)?;
    if !crate::rules::aid::engaged(ep, t, ally) {
        return Err(Reject::NotEngaged);
    }
    Ok(Plan::AidAnother {
        opponent: t,
        ally,
        weapon,
        mode: a.aid_mode.unwrap_or(AidMode::Attack),
    })
}

/// Every conscious enemy × every other conscious friend × both modes.
pub(super) fn candidates(cx: &Ctx<'_>, emit: &mut dyn FnMut(Action) -> bool) -> bool {
    let ep = cx.ep;
    let friends: Vec<CombatantId> = ep
        .ids()
        .filter(|&f| f != cx.actor && !ep.enemies(cx.actor, f) && ep.conscious(f))
        .collect();
    if friends.is_empty() {
        return false;
    }
    for t in cx.enemies() {
        // No melee weapon reaches: every candidate against it is refused.
        if crate::rules::maneuvers::maneuver_weapon(ep, cx.actor, t, None).is_err() {
            continue;
        }
        for &f in &friends {
            for mode in AidMode::ALL {
                let a = Action {
                    target: Some(t),
                    ally: Some(f),
                    aid_mode: Some(mode),
                    ..Action::new(ActionKind::AidAnother)
                };
                if emit(a) {
                    return true;
                }
            }
        }
    }
    false
}
