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
    /// Sheathed (not in hand): it neither attacks nor threatens until drawn (CRB — Actions
    /// in Combat: Draw or Sheathe a Weapon). Never true of a natural attack.
    #[serde(default)]
    pub sheathed: bool,
}

impl WeaponState {
    /// A whole item, in hand unless the stat block says it starts sheathed.
    pub fn new(w: &AttackSpec) -> WeaponState {
        WeaponState {
            dropped_at: None,
            hp: w.item_hit_points(),
            broken: false,
            destroyed: false,
            sheathed: w.sheathed && !w.natural,
        }
    }
}

/// The hands a manufactured weapon takes in hand: 2 for a two-handed weapon and for a bow or
/// a crossbow (but a hand crossbow: CRB — Equipment: Table: Weapons lists bows and heavy and
/// light crossbows among two-handed ranged weapons), else 1; a natural attack takes none.
pub(crate) fn hands_of(w: &AttackSpec) -> u32 {
    let name = w.name.to_lowercase();
    if w.natural {
        0
    } else if w.two_handed || (w.is_ranged() && name.contains("bow") && !name.contains("hand")) {
        2
    } else {
        1
    }
}

/// The hands of a combatant (ours: the SRD gives a humanoid two hands and no rule for a
/// stat block's loadout): 2, or the hands its starting in-hand weapons take when that is more
/// — a stat block lists its weapons as ready (a goblin's short sword and short bow), and
/// the engine keeps them so. Drawing or picking up a weapon must fit in them.
pub(crate) fn hands(spec: &crate::content::combatant::CombatantSpec) -> u32 {
    let start: u32 = spec
        .attacks
        .iter()
        .filter(|w| !w.sheathed)
        .map(hands_of)
        .sum();
    start.max(2)
}

impl Episode {
    /// The hands the weapons `c` holds take now: its manufactured weapons neither sheathed,
    /// dropped nor destroyed ([`hands_of`]).
    pub(crate) fn hands_in_use(&self, c: CombatantId) -> u32 {
        let spec = self.spec(c);
        spec.attacks
            .iter()
            .zip(&self.st[idx(c)].weapons)
            .filter(|(_, s)| !s.sheathed && s.dropped_at.is_none() && !s.destroyed)
            .map(|(w, _)| hands_of(w))
            .sum()
    }

    /// Whether weapon `w` of `c` fits in its free hands ([`hands`]).
    pub(crate) fn fits_in_hands(&self, c: CombatantId, w: usize) -> bool {
        let spec = self.spec(c);
        self.hands_in_use(c) + hands_of(&spec.attacks[w]) <= hands(spec)
    }

    /// Whether weapon `w` of `c` is sheathed.
    pub(crate) fn weapon_sheathed(&self, c: CombatantId, w: usize) -> bool {
        self.st[idx(c)].weapons.get(w).is_some_and(|s| s.sheathed)
    }
}

impl Episode {
    /// Whether attack `w` of `c` can be used: in hand (not dropped, not sheathed), not
    /// destroyed.
    pub(crate) fn weapon_usable(&self, c: CombatantId, w: usize) -> bool {
        self.st[idx(c)]
            .weapons
            .get(w)
            .is_none_or(|s| s.dropped_at.is_none() && !s.destroyed && !s.sheathed)
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

/// Whether `a` can pick up its dropped weapon `w`: it lies in or next to `a`'s space (its
/// hands: [`Episode::fits_in_hands`], checked by the action).
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

/// `draw_weapon`: the sheathed weapon `w` is in hand now (no attack of opportunity — CRB —
/// Table: Actions in Combat). A free draw combined with a move spends that move's free draw.
pub(crate) fn draw_weapon(ep: &mut Episode, a: CombatantId, w: usize) {
    let how = if ep.spec(a).has_feat(crate::content::feats::Feat::QuickDraw) {
        "free action, Quick Draw"
    } else if ep.draw_free_with_move(a) {
        ep.turn.free_draw_used = true;
        "free action with its move"
    } else {
        "move action"
    };
    ep.st[idx(a)].weapons[w].sheathed = false;
    let name = ep.spec(a).attacks[w].name.clone();
    ep.log_turn(a, format!("draws its {name} ({how})"));
}

/// `sheathe_weapon`: put weapon `w` away — a move action that provokes (CRB — Table:
/// Actions in Combat); it is sheathed once the opportunity is resolved, if `a` still stands.
pub(crate) fn sheathe_weapon(ep: &mut Episode, a: CombatantId, w: usize) {
    let name = ep.spec(a).attacks[w].name.clone();
    ep.log_turn(a, format!("sheathes its {name} (move action)"));
    ep.frames.push(Frame::Sheathe {
        actor: a,
        weapon: w,
    });
    ep.open_window(a, Provocation::Sheathe, None);
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
