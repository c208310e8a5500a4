//! The state of a combatant's wielded items (CRB — Combat: Disarm, Sunder; Conditions:
//! Broken; Actions in Combat: Move Actions, "Pick up an item"): dropped where it stood,
//! broken (−2 attack and damage, threat only on 20, ×2), destroyed; picking a dropped weapon
//! up (a move action that provokes) and the seed's `repair_weapon` (no SRD equivalent in
//! combat, see `docs/conformance.md`).

use crate::actions::CombatantId;
use crate::content::combatant::AttackSpec;
use crate::episode::frames::Frame;
use crate::episode::Episode;
use crate::geometry::grid::{self, Cell};
use crate::rules::aoo::Provocation;
use crate::rules::idx;
use serde::{Deserialize, Serialize};

/// State of one attack's item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WeaponState {
    /// Dropped (disarm) on this square; unusable until retrieved.
    pub dropped_at: Option<Cell>,
    /// Item hit points left (sunder).
    pub hp: i32,
    /// Broken: −2 attack and damage, threat only on 20, ×2 (CRB — Conditions: Broken).
    pub broken: bool,
    /// Destroyed by a sunder: unusable for good.
    pub destroyed: bool,
}

impl WeaponState {
    /// A whole item.
    pub fn new(w: &AttackSpec) -> WeaponState {
        WeaponState {
            dropped_at: None,
            hp: w.item_hit_points(),
            broken: false,
            destroyed: false,
        }
    }
}

impl Episode {
    /// Whether attack `w` of `c` can be used (not dropped, not destroyed).
    pub(crate) fn weapon_usable(&self, c: CombatantId, w: usize) -> bool {
        self.st[idx(c)]
            .weapons
            .get(w)
            .is_none_or(|s| s.dropped_at.is_none() && !s.destroyed)
    }

    /// Whether attack `w` of `c` is broken.
    pub(crate) fn weapon_broken(&self, c: CombatantId, w: usize) -> bool {
        self.st[idx(c)].weapons.get(w).is_some_and(|s| s.broken)
    }

    /// State of attack `w`'s item.
    pub fn weapon_state(&self, c: CombatantId, w: usize) -> Option<&WeaponState> {
        self.st[idx(c)].weapons.get(w)
    }
}

/// Drop attack `w` of `c` on its square.
pub(crate) fn drop_weapon(ep: &mut Episode, c: CombatantId, w: usize) {
    let pos = ep.st[idx(c)].pos;
    let name = ep.spec(c).attacks[w].name.clone();
    if let Some(s) = ep.st[idx(c)].weapons.get_mut(w) {
        s.dropped_at = Some(pos);
    }
    ep.log_turn(c, format!("drops its {name} at {pos}"));
}

/// Whether `a` can pick up its dropped weapon `w`: it lies in or next to `a`'s space.
pub(crate) fn can_retrieve(ep: &Episode, a: CombatantId, w: usize) -> bool {
    let Some(at) = ep.st[idx(a)].weapons.get(w).and_then(|s| s.dropped_at) else {
        return false;
    };
    grid::footprint_distance_squares(ep.st[idx(a)].pos, ep.fp_side(a), at, 1) <= 1
}

/// `retrieve_weapon`: pick up an item — a move action that provokes (CRB — Actions in Combat).
pub(crate) fn retrieve_weapon(ep: &mut Episode, a: CombatantId, w: usize) {
    let name = ep.spec(a).attacks[w].name.clone();
    ep.log_turn(a, format!("picks up its {name} (move action)"));
    ep.frames.push(Frame::PickUp {
        actor: a,
        weapon: w,
    });
    ep.open_window(a, Provocation::PickUp, None);
}

/// `repair_weapon` (the seed's): the item is whole again.
pub(crate) fn repair_weapon(ep: &mut Episode, a: CombatantId, w: usize) {
    let spec = ep.spec_arc(a);
    let s = &mut ep.st[idx(a)].weapons[w];
    s.broken = false;
    s.hp = spec.attacks[w].item_hit_points();
    ep.log_turn(
        a,
        format!("repairs its {} (move action)", spec.attacks[w].name),
    );
}
