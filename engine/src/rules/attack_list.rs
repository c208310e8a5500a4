//! The attack list of a full attack (CRB — Combat: Full Attack; Two-Weapon Fighting; Feats:
//! Rapid Shot, Manyshot, Two-Weapon Fighting, Improved / Greater Two-Weapon Fighting;
//! Bestiary — Universal Monster Rules: Natural Attacks): **one** function,
//! [`full_attack_entries`], builds the attacks of every full attack as a list of
//! [`AttackEntry`]s — the weapon, the penalty of its place in the list and a tag saying why
//! it is there. A later source of extra attacks (haste, issue 12) is one more [`EntryTag`].
//!
//! The list, in order:
//! - **natural weapons** (the chosen weapon is natural): every natural attack of the creature
//!   that can reach the target, `count` times each, at its printed bonus (a secondary
//!   attack's −5 is already in it); no iteratives. With `printed_feats_included: false`,
//!   Multiattack makes a secondary attack −2 instead of −5 (+3 on the printed bonus).
//! - **manufactured weapons**: the iteratives of the chosen weapon at −0/−5/−10/−15 for BAB
//!   +1/+6/+11/+16, `count` swings each. With a ranged weapon and Rapid Shot, one extra attack
//!   at the highest bonus (right after the first) and −2 on every attack of the list; with a
//!   bow and Manyshot, the first attack fires two arrows ([`EntryTag::Manyshot`]).
//! - **two-weapon fighting**: when the chosen weapon is a manufactured primary weapon and the
//!   creature has an `off_hand` weapon that can attack the target, one off-hand attack at the
//!   highest bonus (Improved TWF: a second at −5; Greater TWF: a third at −10), and the
//!   penalties of the CRB table on every attack of the list ([`twf_penalties`]). Off-hand
//!   attacks add only ½ Str to damage (Double Slice: full Str) and ½ of Power Attack's bonus
//!   (`rules::attack_roll`). A full attack naming the off-hand weapon itself is a full
//!   attack with that weapon alone (no off-hand attacks, no TWF penalty, full Str).
//!
//! Two-weapon fighting, Rapid Shot and Manyshot are automatic: a full attack with such a
//! weapon always uses them (Manyshot is automatic by its text; for TWF and Rapid Shot the
//! choice not to is not offered — `docs/conformance.md`).

use crate::actions::CombatantId;
use crate::content::combatant::AttackSpec;
use crate::content::feats::Feat;
use crate::episode::Episode;
use crate::rules::idx;
use crate::rules::weapons::can_weapon_attack;
use serde::{Deserialize, Serialize};

/// Why an attack is in a full attack's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum EntryTag {
    /// The `n`-th iterative attack of the weapon (0: the first, at the full bonus).
    Iterative(u8),
    /// A primary natural attack.
    NaturalPrimary,
    /// A secondary natural attack.
    NaturalSecondary,
    /// The `n`-th off-hand attack of two-weapon fighting (0: TWF, 1: Improved, 2: Greater).
    OffHand(u8),
    /// Rapid Shot's extra attack at the highest bonus.
    RapidShot,
    /// The first attack of a bow's full attack with Manyshot: two arrows.
    Manyshot,
    /// Haste's extra attack at the full bonus (CRB — Spells: Haste).
    Haste,
}

impl EntryTag {
    /// An off-hand attack (½ Str to damage, ½ Power Attack bonus).
    pub(crate) fn off_hand(self) -> bool {
        matches!(self, EntryTag::OffHand(_))
    }
}

/// One attack of a full attack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct AttackEntry {
    /// Index of the weapon in the stat block's `attacks`.
    pub weapon: usize,
    /// Iterative penalty (−5 per step), or Multiattack's +3 on a secondary natural attack.
    pub penalty: i32,
    /// Two-weapon fighting penalty of this hand (0 without TWF), logged as a modifier.
    #[serde(default)]
    pub twf: i32,
    /// Rapid Shot's −2 applies (every attack of a Rapid Shot full attack).
    #[serde(default)]
    pub rapid_shot: bool,
    /// Why it is there.
    pub tag: EntryTag,
}

/// The two-weapon fighting penalties (primary hand, off hand) of the CRB table (CRB — Combat:
/// Two-Weapon Fighting, Table: Two-Weapon Fighting Penalties): normal −6/−10; a light off-hand
/// weapon −4/−8; the Two-Weapon Fighting feat −4/−4; feat and a light off-hand weapon −2/−2.
pub(crate) fn twf_penalties(feat: bool, light_off_hand: bool) -> (i32, i32) {
    match (feat, light_off_hand) {
        (false, false) => (-6, -10),
        (false, true) => (-4, -8),
        (true, false) => (-4, -4),
        (true, true) => (-2, -2),
    }
}

/// Number of iterative attacks at a base attack bonus: 1, +1 at BAB +6, +11 and +16 (CRB —
/// Combat: Full Attack).
pub(crate) fn iteratives(bab: i32) -> i32 {
    1 + [6, 11, 16].iter().filter(|&&b| bab >= b).count() as i32
}

/// A bow (longbow, shortbow, composite…) for Manyshot: the weapon's id or name contains
/// `bow` but not `crossbow`.
pub(crate) fn is_bow(w: &AttackSpec) -> bool {
    let name = format!("{} {}", w.weapon_id(), w.name).to_lowercase();
    name.contains("bow") && !name.contains("crossbow")
}

/// The off-hand weapon of `a` usable against `t` this full attack: the first manufactured
/// `off_hand` weapon other than `w` that can attack `t` from `a`'s square.
fn off_hand_weapon(ep: &Episode, a: CombatantId, t: CombatantId, w: usize) -> Option<usize> {
    let spec = ep.spec(a);
    let pos = ep.st[idx(a)].pos;
    spec.attacks.iter().enumerate().position(|(i, x)| {
        i != w && x.off_hand && !x.natural && can_weapon_attack(ep, a, pos, i, t).is_ok()
    })
}

/// Every attack of `a`'s full attack with weapon `w` against `t`, in order (see the module
/// documentation). The one builder of full attacks.
pub(crate) fn full_attack_entries(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    w: usize,
) -> Vec<AttackEntry> {
    let spec = ep.spec(a);
    let weapon = &spec.attacks[w];
    let mut out: Vec<AttackEntry> = Vec::new();
    let entry = |weapon: usize, penalty: i32, tag: EntryTag| AttackEntry {
        weapon,
        penalty,
        twf: 0,
        rapid_shot: false,
        tag,
    };
    if weapon.natural {
        let multiattack = !spec.printed_feats_included && spec.has_feat(Feat::Multiattack);
        let pos = ep.st[idx(a)].pos;
        for (i, x) in spec.attacks.iter().enumerate() {
            if !x.natural {
                continue;
            }
            if i != w && can_weapon_attack(ep, a, pos, i, t).is_err() {
                continue;
            }
            // `attack_bonus` is the stat block's printed value: a secondary attack's −5 is
            // already in it (Bestiary — Universal Monster Rules: Natural Attacks).
            let (tag, penalty) = if x.secondary {
                (EntryTag::NaturalSecondary, if multiattack { 3 } else { 0 })
            } else {
                (EntryTag::NaturalPrimary, 0)
            };
            for _ in 0..x.count {
                out.push(entry(i, penalty, tag));
            }
        }
        if crate::rules::magic::hasted(ep, a) {
            out.insert(1.min(out.len()), entry(w, 0, EntryTag::Haste));
        }
        return out;
    }
    for k in 0..iteratives(spec.bab) {
        for _ in 0..weapon.count {
            out.push(entry(w, -5 * k, EntryTag::Iterative(k as u8)));
        }
    }
    // Haste (CRB — Spells: Haste): one extra attack at the full base attack bonus.
    if crate::rules::magic::hasted(ep, a) {
        out.insert(1, entry(w, 0, EntryTag::Haste));
    }
    if weapon.is_ranged() && spec.has_feat(Feat::RapidShot) {
        out.insert(1, entry(w, 0, EntryTag::RapidShot));
        for e in &mut out {
            e.rapid_shot = true;
        }
    }
    if weapon.is_ranged() && is_bow(weapon) && spec.has_feat(Feat::Manyshot) {
        out[0].tag = EntryTag::Manyshot;
    }
    if !weapon.off_hand {
        if let Some(o) = off_hand_weapon(ep, a, t, w) {
            let (primary, off) = twf_penalties(
                spec.has_feat(Feat::TwoWeaponFighting),
                spec.attacks[o].light,
            );
            for e in &mut out {
                e.twf = primary;
            }
            let extra = if spec.has_feat(Feat::GreaterTwoWeaponFighting) {
                3
            } else if spec.has_feat(Feat::ImprovedTwoWeaponFighting) {
                2
            } else {
                1
            };
            for k in 0..extra {
                for _ in 0..spec.attacks[o].count {
                    out.push(AttackEntry {
                        twf: off,
                        ..entry(o, -5 * k, EntryTag::OffHand(k as u8))
                    });
                }
            }
        }
    }
    out
}

/// Vital Strike's extra rolls of the weapon dice on an attack action: 1 with Vital Strike, 2
/// with Improved, 3 with Greater Vital Strike (the dice ×2, ×3, ×4 in all — CRB — Feats:
/// Vital Strike, Improved Vital Strike, Greater Vital Strike); 0 without.
pub(crate) fn vital_strike_extra(spec: &crate::content::combatant::CombatantSpec) -> u8 {
    if spec.has_feat(Feat::GreaterVitalStrike) {
        3
    } else if spec.has_feat(Feat::ImprovedVitalStrike) {
        2
    } else {
        u8::from(spec.has_feat(Feat::VitalStrike))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CRB — Combat: Two-Weapon Fighting, Table: Two-Weapon Fighting Penalties, every row.
    #[test]
    fn twf_penalty_table() {
        assert_eq!(twf_penalties(false, false), (-6, -10));
        assert_eq!(twf_penalties(false, true), (-4, -8));
        assert_eq!(twf_penalties(true, false), (-4, -4));
        assert_eq!(twf_penalties(true, true), (-2, -2));
    }

    /// CRB — Feats: Manyshot ("with a bow"): longbows and shortbows, not crossbows.
    #[test]
    fn bows_for_manyshot() {
        let w = |name: &str| AttackSpec {
            id: None,
            name: name.into(),
            ..serde_json::from_value(serde_json::json!({
                "name": "x", "kind": "ranged", "attack_bonus": 0, "range_increment_ft": 60,
                "damage": [{"formula": "1d8"}]
            }))
            .unwrap()
        };
        assert!(is_bow(&w("composite longbow")));
        assert!(is_bow(&w("shortbow")));
        assert!(!is_bow(&w("light crossbow")));
        assert!(!is_bow(&w("javelin")));
    }
}
