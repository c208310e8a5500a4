//! Power Attack (CRB — Feats: Power Attack): −X on melee attack rolls and combat maneuver
//! checks, +2X damage (+3X two-handed, +X with a secondary natural attack or an off-hand
//! attack of two-weapon fighting), X = 1 + BAB / 4. By grip (CRB — Feats: Power Attack;
//! Paizo FAQ): a light weapon wielded in two hands gets the one-handed +2X (its Strength
//! bonus is not raised either); a creature's sole natural attack gets the two-handed +3X, as
//! its Strength bonus is ×1.5 (Bestiary — Universal Monster Rules: Natural Attacks).
//! The damage bonus does not apply to touch attacks (the feat's text: the bonus damage does
//! not apply to touch attacks or effects that deal no hit point damage); the attack penalty
//! does, so a melee touch attack takes −X and gains nothing.

use crate::actions::CombatantId;
use crate::content::combatant::{AttackKind, AttackSpec, CombatantSpec};
use crate::effects::{BonusType, Modifier, Stat};
use crate::episode::Episode;
use crate::rules::idx;

/// X of Power Attack: 1 + BAB / 4 (CRB — Feats: Power Attack).
pub(crate) fn power_attack_x(ep: &Episode, a: CombatantId) -> i32 {
    ep.spec(a).bab.max(0) / 4 + 1
}

/// The damage bonus of Power Attack with melee weapon `w` of `spec` for a given X: 2X, 3X
/// two-handed (not a light weapon) or with a sole natural attack, X with a secondary natural
/// attack, none with a melee touch attack (CRB — Feats: Power Attack).
pub(crate) fn power_attack_damage(spec: &CombatantSpec, w: &AttackSpec, x: i32) -> i32 {
    power_attack_halves(spec, w) * x / 2
}

/// Whether `w` is the sole natural attack of `spec`: its only natural attack, primary, one
/// swing (Bestiary — Universal Monster Rules: Natural Attacks: "If a creature has only one
/// natural attack, it adds 1-1/2 times its Strength bonus on damage rolls made with that
/// attack").
pub(crate) fn sole_natural_attack(spec: &CombatantSpec, w: &AttackSpec) -> bool {
    w.natural
        && !w.secondary
        && w.count == 1
        && spec.attacks.iter().filter(|x| x.natural).count() == 1
}

/// The damage bonus factor of Power Attack for weapon `w` of `spec`, in halves of X: 4 (2X)
/// normally and with a light weapon in two hands, 6 (3X) two-handed or with a sole natural
/// attack, 2 (X) with a secondary natural attack, 0 with a touch attack (CRB — Feats: Power
/// Attack: the bonus damage does not apply to touch attacks; "+50% if you are making an
/// attack with a two-handed weapon, a one handed weapon using two hands, or a primary
/// natural weapon that adds 1-1/2 times your Strength modifier on damage rolls").
fn power_attack_halves(spec: &CombatantSpec, w: &AttackSpec) -> i32 {
    if w.kind == AttackKind::Touch {
        0
    } else if (w.two_handed && !w.light) || sole_natural_attack(spec, w) {
        6
    } else if w.secondary {
        2
    } else {
        4
    }
}

/// The damage bonus of Power Attack with `w` held in the off hand (CRB — Feats: Power
/// Attack: "half … with a weapon wielded in your off hand"): X, as a secondary natural
/// attack's; none with a touch attack.
pub(crate) fn power_attack_damage_off_hand(w: &AttackSpec, x: i32) -> i32 {
    if w.kind == AttackKind::Touch {
        0
    } else {
        x
    }
}

/// The Power Attack modifiers of a melee attack with `w` when it is on: −X on the attack
/// roll always, the damage bonus ([`power_attack_damage`]; [`power_attack_damage_off_hand`]
/// for an off-hand attack of a two-weapon full attack) unless `w` is a touch attack.
pub(crate) fn power_attack_mods(
    ep: &Episode,
    a: CombatantId,
    w: &AttackSpec,
    off_hand: bool,
) -> Vec<Modifier> {
    if !ep.st[idx(a)].power_attack {
        return Vec::new();
    }
    let x = power_attack_x(ep, a);
    let mut mods = vec![Modifier::new(
        Stat::MeleeAttack,
        -x,
        BonusType::Untyped,
        "Power Attack",
    )];
    let damage = if off_hand {
        power_attack_damage_off_hand(w, x)
    } else {
        power_attack_damage(ep.spec(a), w, x)
    };
    if damage != 0 {
        mods.push(Modifier::new(
            Stat::MeleeDamage,
            damage,
            BonusType::Untyped,
            "Power Attack",
        ));
    }
    mods
}

impl Episode {
    /// Power Attack is on for `c`.
    pub fn power_attack_on(&self, c: CombatantId) -> bool {
        self.st[idx(c)].power_attack
    }
}
