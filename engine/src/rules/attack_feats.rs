//! Deadly Aim and Combat Expertise (CRB — Feats): X = 1 + BAB / 4 (−1 at BAB +0–3, −2 at
//! +4–7…, "when your base attack bonus reaches +4, and every +4 thereafter").
//!
//! - Deadly Aim (toggle `activate_deadly_aim`): −X on ranged attack rolls, +2X damage on
//!   ranged attacks; the damage bonus does not apply to touch attacks.
//! - Combat Expertise (toggle `activate_combat_expertise`): on a turn it makes a melee attack
//!   or full attack with it on, −X on melee attack rolls and combat maneuver checks and +X
//!   dodge bonus to AC until the start of its next turn (`CState::combat_expertise_ac`, the
//!   modifiers are in `Episode::modifiers_for`). A turn without a melee attack action has
//!   neither.

use crate::actions::CombatantId;
use crate::content::combatant::{AttackKind, AttackSpec};
use crate::effects::{BonusType, Modifier, Stat};
use crate::episode::Episode;
use crate::rules::idx;

/// X of Deadly Aim and Combat Expertise: 1 + BAB / 4 (as Power Attack's).
pub(crate) fn feat_x(ep: &Episode, a: CombatantId) -> i32 {
    ep.spec(a).bab.max(0) / 4 + 1
}

/// The Deadly Aim modifiers of a ranged attack with `w` when it is on: −X on the attack roll,
/// +2X damage unless `w` is a (ranged) touch attack (CRB — Feats: Deadly Aim).
pub(crate) fn deadly_aim_mods(ep: &Episode, a: CombatantId, w: &AttackSpec) -> Vec<Modifier> {
    if !ep.st[idx(a)].deadly_aim {
        return Vec::new();
    }
    let x = feat_x(ep, a);
    let mut mods = vec![Modifier::new(
        Stat::RangedAttack,
        -x,
        BonusType::Untyped,
        "Deadly Aim",
    )];
    if w.kind != AttackKind::Touch {
        mods.push(Modifier::new(
            Stat::Damage,
            2 * x,
            BonusType::Untyped,
            "Deadly Aim",
        ));
    }
    mods
}

impl Episode {
    /// Deadly Aim is on for `c`.
    pub fn deadly_aim_on(&self, c: CombatantId) -> bool {
        self.st[idx(c)].deadly_aim
    }
    /// Combat Expertise is on for `c` (the toggle; its effect needs a melee attack action).
    pub fn combat_expertise_on(&self, c: CombatantId) -> bool {
        self.st[idx(c)].combat_expertise
    }
}
