//! Power Attack (CRB — Feats: Power Attack): −X on melee attack rolls and combat maneuver
//! checks, +2X damage (+3X two-handed, +X with a secondary natural attack), X = 1 + BAB / 4.

use crate::actions::CombatantId;
use crate::content::combatant::AttackSpec;
use crate::effects::{BonusType, Modifier, Stat};
use crate::episode::Episode;
use crate::rules::idx;

/// X of Power Attack: 1 + BAB / 4 (CRB — Feats: Power Attack).
pub(crate) fn power_attack_x(ep: &Episode, a: CombatantId) -> i32 {
    ep.spec(a).bab.max(0) / 4 + 1
}

/// The damage bonus of Power Attack with melee weapon `w` for a given X: 2X, 3X two-handed,
/// X with a secondary natural attack (CRB — Feats: Power Attack).
pub(crate) fn power_attack_damage(w: &AttackSpec, x: i32) -> i32 {
    power_attack_halves(w) * x / 2
}

/// The damage bonus factor of Power Attack for weapon `w`, in halves of X: 4 (2X) normally,
/// 6 (3X) two-handed, 2 (X) with a secondary natural attack.
fn power_attack_halves(w: &AttackSpec) -> i32 {
    if w.two_handed {
        6
    } else if w.secondary {
        2
    } else {
        4
    }
}

/// The Power Attack modifiers of a melee attack with `w` when it is on.
pub(crate) fn power_attack_mods(ep: &Episode, a: CombatantId, w: &AttackSpec) -> Vec<Modifier> {
    if !ep.st[idx(a)].power_attack {
        return Vec::new();
    }
    let x = power_attack_x(ep, a);
    vec![
        Modifier::new(Stat::MeleeAttack, -x, BonusType::Untyped, "Power Attack"),
        Modifier::new(
            Stat::MeleeDamage,
            x * power_attack_halves(w) / 2,
            BonusType::Untyped,
            "Power Attack",
        ),
    ]
}

impl Episode {
    /// Power Attack is on for `c`.
    pub fn power_attack_on(&self, c: CombatantId) -> bool {
        self.st[idx(c)].power_attack
    }
}
