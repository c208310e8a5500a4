//! Damage (CRB — Combat: Damage; Critical Hits; Glossary: Damage Reduction, Energy
//! Resistance, Immunity): the modifiers of a weapon's damage, rolling a hit's damage
//! (multiplied on a critical), DR on its physical part, energy resistance and immunity per
//! component, and the one place where hit points are lost ([`take_damage`]).

use crate::actions::CombatantId;
use crate::content::combatant::{AttackSpec, PHYSICAL};
use crate::effects::{Modifier, RollContext, Stat};
use crate::episode::Episode;

/// The modifiers of `a`'s own rolls with weapon `w` that can count on its damage: its
/// conditions and feats ([`Episode::modifiers_for`]), Power Attack (melee), a broken weapon's
/// −2 (CRB — Conditions: Broken). The one collector of weapon-damage modifiers: an attack
/// roll adds its situational ones to the same list.
pub(crate) fn weapon_mods(ep: &Episode, a: CombatantId, w: usize) -> Vec<Modifier> {
    weapon_mods_hand(ep, a, w, false)
}

/// [`weapon_mods`] of an attack with `w` in the off hand of a two-weapon full attack when
/// `off_hand` (Power Attack adds half its bonus — CRB — Feats: Power Attack), and Deadly Aim
/// on a ranged attack (CRB — Feats: Deadly Aim).
pub(crate) fn weapon_mods_hand(
    ep: &Episode,
    a: CombatantId,
    w: usize,
    off_hand: bool,
) -> Vec<Modifier> {
    let weapon = &ep.spec(a).attacks[w];
    let mut mods = ep.modifiers_for(a);
    if !weapon.is_ranged() {
        mods.extend(crate::rules::power_attack::power_attack_mods(
            ep, a, weapon, off_hand,
        ));
    } else {
        mods.extend(crate::rules::attack_feats::deadly_aim_mods(ep, a, weapon));
    }
    if ep.weapon_broken(a, w) {
        let sit =
            |stat: Stat| Modifier::new(stat, -2, crate::effects::BonusType::Untyped, "broken");
        mods.push(sit(Stat::Attack));
        mods.push(sit(Stat::Damage));
    }
    mods
}

/// The damage modifier of `mods` for a roll with `weapon` (ranged or not), stacked.
pub(crate) fn damage_bonus(
    mods: &[Modifier],
    weapon: &AttackSpec,
    distance_ft: Option<i32>,
) -> i32 {
    let wid = weapon.weapon_id();
    let ctx = RollContext {
        ranged: weapon.is_ranged(),
        distance_ft,
        weapon: Some((&wid, &weapon.name)),
        descriptors: &[],
    };
    crate::effects::resolve(mods, Stat::Damage, &ctx).total
}

/// Hit points lost by `t`, the one place they are (CRB — Combat: Injury and Death): the hp
/// drop; with an attacker `by`, its damage dealt and `t`'s damage taken (attrition counts
/// attack damage only); `describe(before, after)`, if given, logged as `by`'s line; then the
/// life state (disabled, dying, dead…). Attack damage of 0 leaves the life state as it is;
/// other hit point loss (bleeding, dying, straining) always updates it.
pub(crate) fn take_damage(
    ep: &mut Episode,
    by: Option<CombatantId>,
    t: CombatantId,
    amount: i32,
    describe: Option<&dyn Fn(i32, i32) -> String>,
) {
    let i = t.0 as usize;
    let before = ep.st[i].hp;
    ep.st[i].hp -= amount;
    let after = ep.st[i].hp;
    if let Some(a) = by {
        ep.attrition[a.0 as usize].damage_dealt += amount as i64;
        ep.attrition[i].damage_taken += amount as i64;
        if let Some(f) = describe.filter(|_| ep.keeps_transcript()) {
            let line = f(before, after);
            ep.log_turn(a, line);
        }
    }
    if by.is_none() || amount > 0 {
        ep.update_life(t);
    }
}

/// How a hit's damage is rolled ([`roll_damage`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct HitDamage {
    /// Critical multiplier (1: not a critical hit).
    pub mult: i32,
    /// Stacked damage modifiers, added to the first component (multiplied with it).
    pub dmg_mod: i32,
    /// Sneak attack d6s (precision: rolled once).
    pub sneak_d6: u32,
    /// Vital Strike: extra rolls of the first component's dice, never multiplied (CRB —
    /// Feats: Vital Strike).
    pub vital_dice: u32,
    /// Leave out precision components (Manyshot's second arrow — CRB — Feats: Manyshot).
    pub skip_precision: bool,
}

pub(crate) struct DamageRoll {
    pub(crate) total: i32,
    pub(crate) note: String,
}

/// Roll damage of a hit (CRB — Combat: Damage; Critical Hits; Glossary: Damage Reduction,
/// Energy Resistance, Immunity):
/// - a confirmed critical rolls the weapon damage (dice and flat bonus) `mult` times and adds
///   them; precision and energy components are rolled once; `dmg_mod` (stacked damage
///   modifiers: sickened, Point-Blank Shot, Str penalty) is a flat bonus multiplied with the
///   dice; `sneak_d6` precision dice are added once, as physical damage (subject to DR);
/// - DR applies once to the physical part of the hit, after multiplication, unless the attack
///   has every bypass component; energy resistance/immunity applies per component;
/// - the total never goes below 0.
/// - Vital Strike's extra weapon dice (`h.vital_dice` rolls of the first component's dice,
///   without its constant) are added once to the first component, after the multiplication
///   (CRB — Feats: Vital Strike: not multiplied on a critical hit; precision and other extra
///   damage dice are not rolled again).
pub(crate) fn roll_damage(
    ep: &mut Episode,
    a: CombatantId,
    wi: usize,
    t: CombatantId,
    h: HitDamage,
) -> DamageRoll {
    let HitDamage {
        mult,
        dmg_mod,
        sneak_d6,
        vital_dice,
        skip_precision,
    } = h;
    let aspec = ep.spec_arc(a);
    let w = &aspec.attacks[wi];
    let resolved = &aspec.resolved().damage[wi];
    let tspec = ep.spec_arc(t);
    let mut physical = 0i32;
    let mut energy_total = 0i32;
    let mut notes: Vec<String> = Vec::new();
    for (i, (comp, r)) in w.damage.iter().zip(resolved).enumerate() {
        if skip_precision && comp.precision {
            continue;
        }
        let phys = r.physical && !comp.precision;
        let times = if phys { mult } else { 1 };
        let mut sum = 0;
        for _ in 0..times {
            sum += r.dice.roll(&mut ep.dice).total;
            if i == 0 {
                sum += w.damage_bonus + dmg_mod;
            }
        }
        if i == 0 && vital_dice > 0 && !comp.precision {
            let dice_only = crate::dice::DiceExpr {
                terms: r
                    .dice
                    .terms
                    .iter()
                    .filter(|t| matches!(t, crate::dice::Term::Dice { .. }))
                    .cloned()
                    .collect(),
            };
            let mut extra = 0;
            for _ in 0..vital_dice {
                extra += dice_only.roll(&mut ep.dice).total;
            }
            sum += extra;
            let times = if vital_dice == 1 {
                String::new()
            } else {
                format!("{vital_dice}x")
            };
            notes.push(format!("Vital Strike +{times}{dice_only}={extra}"));
        }
        let sum = sum.max(0);
        if r.physical {
            physical += sum;
        } else {
            // Energy: immunity, then resistance, per damage type of the component.
            let mut v = sum;
            if comp.types.iter().any(|ty| tspec.immunities.contains(ty)) {
                notes.push(format!("immune {}", comp.types.join("/")));
                v = 0;
            } else if let Some(r) = comp
                .types
                .iter()
                .filter_map(|ty| tspec.resistances.get(ty))
                .max()
            {
                let cut = (*r).min(v);
                if cut > 0 {
                    notes.push(format!("resist {} -{cut}", comp.types.join("/")));
                }
                v -= cut;
            }
            energy_total += v;
        }
    }
    if sneak_d6 > 0 {
        let mut sa = 0;
        for _ in 0..sneak_d6 {
            sa += ep.roll(6) as i32;
        }
        physical += sa;
        notes.push(format!("sneak attack {sneak_d6}d6={sa}"));
    }
    // Immunity to a physical type (rare) removes it too.
    if physical > 0 {
        let phys_types: Vec<&String> = w
            .damage
            .iter()
            .flat_map(|c| c.types.iter())
            .filter(|ty| PHYSICAL.contains(&ty.as_str()))
            .collect();
        if !phys_types.is_empty() && phys_types.iter().all(|ty| tspec.immunities.contains(ty)) {
            notes.push("immune".into());
            physical = 0;
        }
    }
    if let Some(dr) = &tspec.dr {
        if physical > 0 && !bypasses_dr(w, &dr.bypass) {
            let cut = dr.amount.min(physical);
            let label = if dr.bypass.is_empty() {
                "—".to_string()
            } else {
                dr.bypass.join(" and ")
            };
            notes.push(format!("DR {}/{label} -{cut}", dr.amount));
            physical -= cut;
        }
    }
    let total = (physical + energy_total).max(0);
    DamageRoll {
        total,
        note: if notes.is_empty() {
            String::new()
        } else {
            format!(" [{}]", notes.join(", "))
        },
    }
}

/// An attack bypasses DR when it has every bypass component: its physical damage types plus
/// its declared `dr_bypass` materials/alignments. DR X/— is never bypassed.
fn bypasses_dr(w: &AttackSpec, bypass: &[String]) -> bool {
    if bypass.is_empty() {
        return false;
    }
    bypass.iter().all(|b| {
        let b = b.to_lowercase();
        w.dr_bypass.iter().any(|x| x.to_lowercase() == b)
            || w.damage
                .iter()
                .any(|c| c.types.iter().any(|t| t.to_lowercase() == b))
    })
}
