//! The grapple link (CRB — Combat: Grapple; Conditions: Grappled, Pinned): who grapples
//! whom and who controls it; starting (a target out of reach is pulled adjacent), the damage
//! option of maintaining, and ending (escape, a failed maintain, either creature falling,
//! forced movement that separates them).

use crate::actions::CombatantId;
use crate::effects::conditions::Condition;
use crate::episode::Episode;
use crate::geometry::grid::{self, Cell};
use crate::rules::maneuvers::free_for;
use crate::rules::{self, idx};
use serde::{Deserialize, Serialize};

/// One side of a grapple.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrappleLink {
    /// The other creature of the grapple.
    pub with: CombatantId,
    /// This creature initiated it (it maintains, pins, deals damage).
    pub controller: bool,
}

/// Weapon damage of `a`'s attack `w` to `t` without an attack roll (grapple damage option).
pub(crate) fn deal_weapon_damage(ep: &mut Episode, a: CombatantId, t: CombatantId, w: usize) {
    let spec = ep.spec_arc(a);
    let weapon = &spec.attacks[w];
    let mods = rules::damage::weapon_mods(ep, a, w);
    let dmg_mod = rules::damage::damage_bonus(&mods, weapon, None);
    let dmg = rules::damage::roll_damage(
        ep,
        a,
        w,
        t,
        rules::damage::HitDamage {
            mult: 1,
            dmg_mod,
            ..Default::default()
        },
    );
    let tid = ep.id_of(t).to_string();
    let line = |before: i32, after: i32| {
        format!(
            "grapple damage with {}: {}{} ({tid} hp {before}->{after})",
            weapon.name, dmg.total, dmg.note
        )
    };
    rules::damage::take_damage(ep, Some(a), t, dmg.total, Some(&line));
}

/// Start a grapple: a target not adjacent is pulled to the nearest free adjacent square (none:
/// the grapple fails); both gain the grappled condition (CRB — Grapple).
pub(crate) fn start_grapple(ep: &mut Episode, a: CombatantId, t: CombatantId) {
    let (apos, aside) = (ep.st[idx(a)].pos, ep.fp_side(a));
    let tside = ep.fp_side(t);
    let tpos = ep.st[idx(t)].pos;
    let tid = ep.id_of(t).to_string();
    if grid::footprint_distance_squares(apos, aside, tpos, tside) > 1 {
        let mut best: Option<(i32, Cell)> = None;
        for r in apos.row - tside..=apos.row + aside {
            for c in apos.col - tside..=apos.col + aside {
                let cell = Cell::new(r, c);
                if grid::footprint_distance_squares(apos, aside, cell, tside) != 1
                    || !free_for(ep, t, cell, &[])
                {
                    continue;
                }
                let k = grid::distance_squares(tpos, cell);
                if best.is_none_or(|(bk, bc)| k < bk || (k == bk && cell < bc)) {
                    best = Some((k, cell));
                }
            }
        }
        match best {
            Some((_, cell)) => {
                ep.st[idx(t)].pos = cell;
                ep.log_turn(a, format!("grapple pulls {tid} {tpos}->{cell}"));
            }
            None => {
                ep.log_turn(a, "grapple fails (no adjacent space)".into());
                return;
            }
        }
    }
    ep.st[idx(a)].grapple = Some(GrappleLink {
        with: t,
        controller: true,
    });
    ep.st[idx(t)].grapple = Some(GrappleLink {
        with: a,
        controller: false,
    });
    ep.add_condition(a, Condition::Grappled, None);
    ep.add_condition(t, Condition::Grappled, None);
}

/// End the grapple `c` is in: both lose grappled (and pinned).
pub(crate) fn end_grapple(ep: &mut Episode, c: CombatantId) {
    let Some(link) = ep.st[idx(c)].grapple.take() else {
        return;
    };
    let o = link.with;
    if ep.st[idx(o)].grapple.is_some_and(|g| g.with == c) {
        ep.st[idx(o)].grapple = None;
    }
    for x in [c, o] {
        ep.remove_condition(x, Condition::Grappled);
        ep.remove_condition(x, Condition::Pinned);
    }
    let oi = ep.id_of(o).to_string();
    ep.log_turn(c, format!("grapple with {oi} ends"));
}

/// A grapple ends when forced movement separates the two creatures.
pub(crate) fn check_grapple_apart(ep: &mut Episode, c: CombatantId) {
    if let Some(g) = ep.st[idx(c)].grapple {
        let d = grid::footprint_distance_squares(
            ep.st[idx(c)].pos,
            ep.fp_side(c),
            ep.st[idx(g.with)].pos,
            ep.fp_side(g.with),
        );
        if d > 1 {
            end_grapple(ep, c);
        }
    }
}

impl Episode {
    /// The combatant `c` is grappled with, if any.
    pub fn grappled_with(&self, c: CombatantId) -> Option<CombatantId> {
        self.st[idx(c)].grapple.map(|g| g.with)
    }
}
