//! Damage (CRB — Combat: Damage; Critical Hits; Glossary: Damage Reduction, Energy
//! Resistance, Immunity): rolling a hit's damage (multiplied on a critical), DR on its
//! physical part, energy resistance and immunity per component.

use crate::actions::CombatantId;
use crate::content::combatant::AttackSpec;
use crate::episode::Episode;

/// Physical damage types (subject to DR; multiplied on a critical hit).
pub(crate) const PHYSICAL: [&str; 3] = ["bludgeoning", "piercing", "slashing"];

fn is_physical_component(types: &[String]) -> bool {
    types.is_empty() || types.iter().any(|t| PHYSICAL.contains(&t.as_str()))
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
pub(crate) fn roll_damage(
    ep: &mut Episode,
    w: &AttackSpec,
    mult: i32,
    t: CombatantId,
    dmg_mod: i32,
    sneak_d6: u32,
) -> DamageRoll {
    let tspec = ep.spec_arc(t);
    let mut physical = 0i32;
    let mut energy_total = 0i32;
    let mut notes: Vec<String> = Vec::new();
    for (i, comp) in w.damage.iter().enumerate() {
        let expr: crate::dice::DiceExpr = comp
            .formula
            .parse()
            .expect("validated when the combatant was loaded");
        let phys = is_physical_component(&comp.types) && !comp.precision;
        let times = if phys { mult } else { 1 };
        let mut sum = 0;
        for _ in 0..times {
            sum += expr.roll(&mut ep.dice).total;
            if i == 0 {
                sum += w.damage_bonus + dmg_mod;
            }
        }
        let sum = sum.max(0);
        if is_physical_component(&comp.types) {
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
