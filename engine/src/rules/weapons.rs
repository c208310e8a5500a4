//! Which weapon can attack a target from a square (reach or range, line of effect, ammunition,
//! a dropped or destroyed item), and the seed's `weapon_for` choice (CRB — Combat: Attack
//! Roll; Conditions: Prone for ranged weapons).

use crate::actions::reject::Reject;
use crate::actions::CombatantId;
use crate::effects::conditions::Condition;
use crate::episode::Episode;
use crate::geometry::grid::Cell;
use crate::geometry::los::{self};
use crate::rules::idx;
use crate::rules::ranged::distance_ft_from;
use crate::rules::ranged::max_range_ft;
use crate::rules::reach::footprints_in_reach;
use crate::rules::reach::melee_reach;

/// Whether weapon `w` of `a`, standing at `from`, can attack `t` now.
///
/// # Errors
/// `weapon_unavailable` (no such weapon, dropped or destroyed), `out_of_ammunition`,
/// `prevented_by_condition` (prone, a ranged weapon but a crossbow), `out_of_range`,
/// `no_line_of_effect`.
pub(crate) fn can_weapon_attack(
    ep: &Episode,
    a: CombatantId,
    from: Cell,
    w: usize,
    t: CombatantId,
) -> Result<(), Reject> {
    let spec = ep.spec(a);
    let unavailable = Reject::WeaponUnavailable { weapon: Some(w) };
    let Some(weapon) = spec.attacks.get(w) else {
        return Err(unavailable);
    };
    // Dropped (disarm) or destroyed (sunder) items cannot attack.
    if !ep.weapon_usable(a, w) {
        return Err(unavailable);
    }
    let tpos = ep.st[idx(t)].pos;
    if ep.st[idx(a)].ammo.get(w).copied().flatten() == Some(0) {
        return Err(Reject::OutOfAmmunition { weapon: w });
    }
    if weapon.is_ranged() {
        // Prone: no ranged weapon but a crossbow (CRB — Conditions: Prone).
        if ep.has_condition(a, Condition::Prone) && !weapon.name.to_lowercase().contains("crossbow")
        {
            return Err(Reject::PreventedByCondition {
                condition: Condition::Prone,
            });
        }
        let d = distance_ft_from(ep, a, from, t);
        if d > max_range_ft(weapon) {
            return Err(Reject::OutOfRange);
        }
    } else {
        // Lunge: +5 ft on the actor's own melee attacks (CRB — Feats: Lunge).
        let reach = crate::rules::feats_movement::attack_reach(ep, a, melee_reach(ep, a, weapon));
        if !footprints_in_reach(from, ep.fp_side(a), tpos, ep.fp_side(t), reach) {
            return Err(Reject::OutOfRange);
        }
    }
    if !los::has_line_of_effect(&ep.enc.grid, from, ep.fp_side(a), tpos, ep.fp_side(t)) {
        return Err(Reject::NoLineOfEffect);
    }
    Ok(())
}

/// The seed's `weapon_for`: the first weapon (list order) that can attack the target from
/// `from`; else the reason (`no_weapon`, `no_line_of_effect`, `out_of_range`).
pub(crate) fn weapon_for(
    ep: &Episode,
    a: CombatantId,
    from: Cell,
    t: CombatantId,
) -> Result<usize, Reject> {
    let n = ep.spec(a).attacks.len();
    if n == 0 {
        return Err(Reject::NoWeapon);
    }
    if (0..n).all(|w| !ep.weapon_usable(a, w)) {
        return Err(Reject::WeaponUnavailable { weapon: None });
    }
    let (mut saw_los, mut ammo) = (false, None);
    for w in 0..n {
        match can_weapon_attack(ep, a, from, w, t) {
            Ok(()) => return Ok(w),
            Err(Reject::NoLineOfEffect) => saw_los = true,
            Err(r @ Reject::OutOfAmmunition { .. }) => {
                ammo.get_or_insert(r);
            }
            Err(_) => {}
        }
    }
    Err(if saw_los {
        Reject::NoLineOfEffect
    } else if let Some(r) = ammo {
        r
    } else {
        Reject::OutOfRange
    })
}
