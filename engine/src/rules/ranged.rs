//! Ranged attacks: distance, range increments and maximum range, shooting into melee (CRB —
//! Combat: Range Penalty; Shooting or Throwing into a Melee; Feats: Precise Shot).
//!
//! Distances here are in feet between footprints (5-10-5 counting).

use crate::actions::CombatantId;
use crate::content::combatant::{AttackKind, AttackSpec};
use crate::episode::Episode;
use crate::geometry::grid::{self, Cell, SQUARE_FT};
use crate::rules::idx;
use crate::rules::reach::threatens;

/// Distance in feet between two combatants' footprints (attacker at `from`).
#[inline]
pub(crate) fn distance_ft_from(ep: &Episode, a: CombatantId, from: Cell, t: CombatantId) -> i32 {
    grid::footprint_distance_squares(from, ep.fp_side(a), ep.st[idx(t)].pos, ep.fp_side(t))
        * SQUARE_FT
}

/// Maximum range in feet of a ranged attack: 10 increments, 5 for thrown weapons and ranged
/// touch attacks (CRB — Combat: Range Penalty; Magic: ranged touch).
pub(crate) fn max_range_ft(w: &AttackSpec) -> i32 {
    let inc = w.range_increment_ft.unwrap_or(0);
    let n = if w.thrown || w.kind == AttackKind::Touch {
        5
    } else {
        10
    };
    inc * n
}

/// Range penalty: −2 per full range increment beyond the first (CRB — Combat: Range Penalty).
pub(crate) fn range_penalty(w: &AttackSpec, d_ft: i32) -> i32 {
    match w.range_increment_ft {
        Some(inc) if w.is_ranged() && inc > 0 && d_ft > inc => {
            let increments = (d_ft + inc - 1) / inc; // 1-based increment the target is in
            -2 * (increments - 1)
        }
        _ => 0,
    }
}

/// Shooting into melee (CRB — Combat: Shooting or Throwing into a Melee): −4 when the target is
/// engaged in melee with a friend of the attacker (either threatens the other), unless the
/// target is at least 10 ft from the nearest such friend.
/// Precise Shot removes the penalty (CRB — Feats: Precise Shot).
///
/// "An unconscious or otherwise immobilized character is not considered engaged unless he
/// is actually being attacked": a friend that is not conscious (unconscious, dying, stable,
/// dead) or is [`Episode::immobilized`] (paralyzed, helpless, asleep, pinned) engages
/// nobody. Simplified: the engine keeps no record of who is being attacked, so such a friend
/// is never engaged; the target is being attacked (by the shooter), so an immobilized target
/// next to a friend that threatens it is still engaged.
pub(crate) fn into_melee_penalty(ep: &Episode, a: CombatantId, t: CombatantId) -> i32 {
    if ep
        .spec(a)
        .has_feat(crate::content::feats::Feat::PreciseShot)
    {
        return 0;
    }
    let tpos = ep.st[idx(t)].pos;
    for f in ep.ids() {
        if f == a || ep.enemies(a, f) || !ep.conscious(f) || ep.immobilized(f) {
            continue;
        }
        let d =
            grid::footprint_distance_squares(ep.st[idx(f)].pos, ep.fp_side(f), tpos, ep.fp_side(t))
                * SQUARE_FT;
        if d >= 10 {
            continue;
        }
        let fpos = ep.st[idx(f)].pos;
        if threatens(ep, f, t, tpos) || threatens(ep, t, f, fpos) {
            return -4;
        }
    }
    0
}
