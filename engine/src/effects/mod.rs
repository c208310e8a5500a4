//! Typed modifiers and the PF1e stacking rules (the seed's `effects.py`).
//!
//! SRD (CRB — Magic: Special Spell Effects, Bonus Types; Combining Magic Effects): two bonuses
//! of the same type do not stack — only the best applies — except dodge bonuses, most
//! circumstance bonuses and racial bonuses, which stack; bonuses without a type always stack
//! unless they come from the same source. Penalties of the same type: only the worst applies;
//! most penalties have no type and **always stack** (here: unless from the same source).
//!
//! SRD-vs-seed difference (recorded in `docs/conformance.md`): the seed applies "the same rules
//! as bonuses" to penalties; we follow the SRD text (untyped penalties stack, a repeated source
//! counts once). The seed's "trait" bonuses stack (traits are an APG concept, not in the CRB
//! text; we keep the seed's rule).
//!
//! Every roll that takes situational modifiers (attack rolls, AC, weapon damage, saving throws,
//! CMB/CMD) collects them with [`crate::episode::Episode`]'s `modifiers_for` (conditions + feats
//! + situation) and sums them with [`resolve`].

use serde::{Deserialize, Serialize};

pub mod conditions;

/// Bonus types (CRB — Magic: Bonus Types, plus the seed's `trait`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BonusType {
    Untyped,
    Dodge,
    Racial,
    Trait,
    Circumstance,
    Alchemical,
    Armor,
    Competence,
    Deflection,
    Enhancement,
    Insight,
    Luck,
    Morale,
    NaturalArmor,
    Profane,
    Resistance,
    Sacred,
    Shield,
    Size,
}

impl BonusType {
    /// Whether two modifiers of this type (from different sources) add up.
    pub fn stacks(self) -> bool {
        matches!(
            self,
            BonusType::Untyped
                | BonusType::Dodge
                | BonusType::Racial
                | BonusType::Trait
                | BonusType::Circumstance
        )
    }
}

/// What a modifier applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stat {
    /// Every attack roll (and critical confirmation).
    Attack,
    /// Melee attack rolls only.
    MeleeAttack,
    /// Ranged attack rolls only.
    RangedAttack,
    /// Weapon damage rolls.
    Damage,
    /// Melee weapon damage rolls.
    MeleeDamage,
    /// Armor Class against every attack.
    Ac,
    /// Armor Class against melee attacks.
    AcVsMelee,
    /// Armor Class against ranged attacks.
    AcVsRanged,
    /// Every saving throw.
    Saves,
    Fort,
    Ref,
    Will,
    Cmb,
    Cmd,
    Initiative,
}

/// Fortitude, Reflex or Will.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SaveKind {
    Fort,
    Ref,
    Will,
}

impl SaveKind {
    pub(crate) fn stat(self) -> Stat {
        match self {
            SaveKind::Fort => Stat::Fort,
            SaveKind::Ref => Stat::Ref,
            SaveKind::Will => Stat::Will,
        }
    }
    pub(crate) fn name(self) -> &'static str {
        match self {
            SaveKind::Fort => "Fort",
            SaveKind::Ref => "Ref",
            SaveKind::Will => "Will",
        }
    }
}

/// A condition under which a modifier applies (the seed's `StatModifier.condition`). An
/// unknown condition never holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum When {
    /// A ranged attack against a target within 30 ft (Point-Blank Shot).
    TargetWithin30ftRanged,
    /// The weapon's id or name contains this text, case-insensitive (Weapon Focus (axe)…).
    Weapon(String),
    /// A saving throw against an effect with this descriptor (`fear`, `mind_affecting`,
    /// `poison`, `disease`, `cold`, `electricity`, `fey`, `divination`…).
    SaveDescriptor(String),
}

/// One modifier: `value` (negative = penalty) of `bonus_type` to `stat`, from `source`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Modifier {
    pub stat: Stat,
    pub value: i32,
    pub bonus_type: BonusType,
    /// Where it comes from ("shaken", "Point-Blank Shot", "flanking"): one source counts once.
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<When>,
}

impl Modifier {
    /// An unconditional modifier.
    pub fn new(stat: Stat, value: i32, bonus_type: BonusType, source: &str) -> Modifier {
        Modifier {
            stat,
            value,
            bonus_type,
            source: source.to_string(),
            when: None,
        }
    }
    /// The same modifier, applying only when `when` holds.
    pub fn when(mut self, when: When) -> Modifier {
        self.when = Some(when);
        self
    }
}

/// What is being rolled, to decide which modifiers apply.
#[derive(Debug, Clone, Default)]
pub struct RollContext<'a> {
    /// The attack is (or the AC is against) a ranged attack.
    pub ranged: bool,
    /// Distance to the target in feet (attacks).
    pub distance_ft: Option<i32>,
    /// Weapon id and name (attacks, damage).
    pub weapon: Option<(&'a str, &'a str)>,
    /// Descriptors of the effect a save is against.
    pub descriptors: &'a [String],
}

impl Stat {
    /// Whether a modifier to `self` counts for a roll of `roll` in `ctx`.
    fn applies_to(self, roll: Stat, ctx: &RollContext<'_>) -> bool {
        if self == roll {
            return true;
        }
        match (self, roll) {
            (Stat::Attack, Stat::MeleeAttack | Stat::RangedAttack) => true,
            (Stat::MeleeAttack, Stat::Attack) => !ctx.ranged,
            (Stat::RangedAttack, Stat::Attack) => ctx.ranged,
            (Stat::MeleeDamage, Stat::Damage) => !ctx.ranged,
            (Stat::AcVsMelee, Stat::Ac) => !ctx.ranged,
            (Stat::AcVsRanged, Stat::Ac) => ctx.ranged,
            (Stat::Saves, Stat::Fort | Stat::Ref | Stat::Will) => true,
            _ => false,
        }
    }
}

/// Whether the modifier's condition holds in `ctx`.
pub fn condition_holds(when: &Option<When>, ctx: &RollContext<'_>) -> bool {
    match when {
        None => true,
        Some(When::TargetWithin30ftRanged) => {
            ctx.ranged && ctx.distance_ft.is_some_and(|d| d <= 30)
        }
        Some(When::Weapon(w)) => ctx.weapon.is_some_and(|(id, name)| {
            let w = w.to_lowercase().replace(' ', "_");
            id.to_lowercase().contains(&w) || name.to_lowercase().replace(' ', "_").contains(&w)
        }),
        Some(When::SaveDescriptor(d)) => ctx.descriptors.iter().any(|x| x.eq_ignore_ascii_case(d)),
    }
}

/// The result of stacking: the total and the modifiers that count, for the transcript.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    pub total: i32,
    /// `(source, value)` of each modifier that counts, in input order.
    pub applied: Vec<(String, i32)>,
}

impl Resolved {
    /// `"shaken -2, flanking +2"`, or empty.
    pub fn note(&self) -> String {
        self.applied
            .iter()
            .map(|(s, v)| format!("{s} {v:+}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Sum the modifiers of `mods` that apply to a roll of `roll` in `ctx`, with the stacking
/// rules: for a stacking type (untyped, dodge, racial, trait, circumstance) every source counts
/// once (its best bonus and its worst penalty); for any other type only the best bonus and the
/// worst penalty of that type count. Bonuses and penalties are resolved separately.
pub fn resolve(mods: &[Modifier], roll: Stat, ctx: &RollContext<'_>) -> Resolved {
    // Winner per (type, sign, key); key = source for stacking types, "" otherwise.
    let mut best: Vec<(BonusType, bool, String, usize)> = Vec::new();
    for (i, m) in mods.iter().enumerate() {
        if m.value == 0 || !m.stat.applies_to(roll, ctx) || !condition_holds(&m.when, ctx) {
            continue;
        }
        let positive = m.value > 0;
        let key = if m.bonus_type.stacks() {
            m.source.clone()
        } else {
            String::new()
        };
        match best
            .iter_mut()
            .find(|(t, p, k, _)| *t == m.bonus_type && *p == positive && *k == key)
        {
            Some(slot) => {
                if m.value.abs() > mods[slot.3].value.abs() {
                    slot.3 = i;
                }
            }
            None => best.push((m.bonus_type, positive, key, i)),
        }
    }
    let mut winners: Vec<usize> = best.into_iter().map(|b| b.3).collect();
    winners.sort_unstable();
    Resolved {
        total: winners.iter().map(|&i| mods[i].value).sum(),
        applied: winners
            .iter()
            .map(|&i| (mods[i].source.clone(), mods[i].value))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn morale_bonuses_do_not_stack_dodge_bonuses_do() {
        let m = vec![
            Modifier::new(Stat::Ac, 1, BonusType::Dodge, "a"),
            Modifier::new(Stat::Ac, 1, BonusType::Dodge, "b"),
            Modifier::new(Stat::Ac, 2, BonusType::Morale, "c"),
            Modifier::new(Stat::Ac, 1, BonusType::Morale, "d"),
        ];
        assert_eq!(resolve(&m, Stat::Ac, &RollContext::default()).total, 4);
    }
}
