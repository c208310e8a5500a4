//! PF1e conditions as data rows (the seed's `conditions.py`, 29 conditions), checked against
//! CRB — Appendix: Conditions (SRD `core_rulebook/rules/glossary/conditions/`).
//!
//! A row holds the condition's modifiers (as [`Modifier`]s stacked by [`crate::effects`]) and
//! its behaviour flags; the engine reads the flags (`cant_act`, `cant_attack`, `staggered`,
//! `cant_move`, `denies_dex_to_ac`, `miss_chance`, `speed_mult`…). Ability penalties are given
//! in ability-score points (`dex_penalty: 4` = −4 Dex) and turned into their effect on the
//! derived numbers by the engine (AC, Reflex, attack, damage, CMB/CMD), because stat-block
//! numbers are final.
//!
//! Runtime: a combatant carries a list of [`ActiveCondition`] (name, rounds left or `None` =
//! until removed). A duration counts the bearer's turns: it decreases by one at the **end** of
//! each of the bearer's turns and the condition ends at 0, so "stunned for 1 round" costs its
//! next turn (SRD duration: until the same initiative count in the next round; the seed
//! decrements at the start of the bearer's turn — see `docs/conformance.md`).

use crate::effects::{BonusType, Modifier, Stat};
use serde::{Deserialize, Serialize};

/// One condition definition.
#[derive(Debug, Clone, PartialEq)]
pub struct ConditionDef {
    pub name: &'static str,
    /// Modifiers to the bearer's rolls and AC (untyped unless said; the source is the name).
    pub modifiers: &'static [(Stat, i32)],
    /// Dexterity / Strength penalty in ability-score points.
    pub dex_penalty: i32,
    pub str_penalty: i32,
    /// Effective Dexterity 0 (helpless, paralyzed): Dex modifier −5.
    pub dex_zero: bool,
    /// No actions at all: the turn is skipped.
    pub cant_act: bool,
    /// No attacks (nauseated, pinned, panicked): see `single_move`.
    pub cant_attack: bool,
    /// Only a single move action per turn (nauseated).
    pub single_move: bool,
    /// A single move or standard action per turn, no full-round action (staggered).
    pub staggered: bool,
    /// No movement (grappled, pinned, paralyzed…).
    pub cant_move: bool,
    /// Loses its Dexterity bonus to AC.
    pub denies_dex_to_ac: bool,
    /// Concealment it grants against attacks on the bearer, in percent.
    pub miss_chance: u32,
    /// Speed multiplier in halves: 2 = full speed, 1 = half speed.
    pub speed_halves: i32,
    /// Helpless: melee attacks against it get +4 (CRB — Conditions: Helpless).
    pub helpless: bool,
    /// Cannot make attacks of opportunity (flat-footed, grappled, pinned, confused).
    pub no_aoo: bool,
    /// Cannot charge (fatigued, exhausted, entangled).
    pub no_charge: bool,
    /// Flees from the nearest enemy (frightened, panicked).
    pub flees: bool,
    /// Descriptor of the effect (fear conditions count as one fear source for stacking).
    pub fear: bool,
}

const fn base(name: &'static str) -> ConditionDef {
    ConditionDef {
        name,
        modifiers: &[],
        dex_penalty: 0,
        str_penalty: 0,
        dex_zero: false,
        cant_act: false,
        cant_attack: false,
        single_move: false,
        staggered: false,
        cant_move: false,
        denies_dex_to_ac: false,
        miss_chance: 0,
        speed_halves: 2,
        helpless: false,
        no_aoo: false,
        no_charge: false,
        flees: false,
        fear: false,
    }
}

const FEAR_MODS: &[(Stat, i32)] = &[(Stat::Attack, -2), (Stat::Saves, -2)];

/// The 29 conditions of the seed, in its order (plus `grappled`, `pinned`, `blurred`,
/// `displaced`, `asleep` at the end).
pub static CONDITIONS: [ConditionDef; 29] = [
    // −2 attack, saves, skills, ability checks.
    ConditionDef {
        modifiers: FEAR_MODS,
        fear: true,
        ..base("shaken")
    },
    // −2 attack, weapon damage, saves, skills, ability checks.
    ConditionDef {
        modifiers: &[(Stat::Attack, -2), (Stat::Damage, -2), (Stat::Saves, -2)],
        ..base("sickened")
    },
    // −2 Str and Dex; no run or charge.
    ConditionDef {
        dex_penalty: 2,
        str_penalty: 2,
        no_charge: true,
        ..base("fatigued")
    },
    // Half speed, −6 Str and Dex, no run or charge.
    ConditionDef {
        dex_penalty: 6,
        str_penalty: 6,
        no_charge: true,
        speed_halves: 1,
        ..base("exhausted")
    },
    // Half speed, no run or charge, −2 attack, −4 Dex.
    ConditionDef {
        modifiers: &[(Stat::Attack, -2)],
        dex_penalty: 4,
        no_charge: true,
        speed_halves: 1,
        ..base("entangled")
    },
    // −1 attack (and sight-based Perception).
    ConditionDef {
        modifiers: &[(Stat::Attack, -1)],
        ..base("dazzled")
    },
    // −2 AC, loses Dex to AC; opponents have total concealment (50 %) against it; half speed
    // (simplified: no Acrobatics check to move faster).
    ConditionDef {
        modifiers: &[(Stat::Ac, -2)],
        denies_dex_to_ac: true,
        speed_halves: 1,
        ..base("blinded")
    },
    // −4 initiative (initiative is rolled once: only an initial condition matters).
    ConditionDef {
        modifiers: &[(Stat::Initiative, -4)],
        ..base("deafened")
    },
    // Loses Dex to AC, no AoO (Combat Reflexes excepted — CRB — Feats: Combat Reflexes).
    ConditionDef {
        denies_dex_to_ac: true,
        no_aoo: true,
        ..base("flat_footed")
    },
    // −4 melee attack; AC −4 vs melee, +4 vs ranged; no ranged weapon but a crossbow.
    ConditionDef {
        modifiers: &[
            (Stat::MeleeAttack, -4),
            (Stat::AcVsMelee, -4),
            (Stat::AcVsRanged, 4),
        ],
        ..base("prone")
    },
    // No actions, −2 AC, loses Dex to AC (drops what it holds: not modelled).
    ConditionDef {
        modifiers: &[(Stat::Ac, -2)],
        cant_act: true,
        denies_dex_to_ac: true,
        ..base("stunned")
    },
    // Helpless, Str and Dex 0, cannot move or act.
    ConditionDef {
        cant_act: true,
        cant_move: true,
        denies_dex_to_ac: true,
        dex_zero: true,
        helpless: true,
        ..base("paralyzed")
    },
    // Only a single move action per turn; no attacks, spells.
    ConditionDef {
        cant_attack: true,
        single_move: true,
        ..base("nauseated")
    },
    // No actions, no penalty to AC.
    ConditionDef {
        cant_act: true,
        ..base("dazed")
    },
    // A single move or standard action per turn, no full-round action.
    ConditionDef {
        staggered: true,
        ..base("staggered")
    },
    // −2 attack and saves; flees from the source of fear if it can, else may fight.
    ConditionDef {
        modifiers: FEAR_MODS,
        flees: true,
        fear: true,
        ..base("frightened")
    },
    // −2 saves; flees; no other action (cowers if cornered).
    ConditionDef {
        modifiers: &[(Stat::Saves, -2)],
        flees: true,
        cant_attack: true,
        fear: true,
        ..base("panicked")
    },
    // No actions, −2 AC, loses Dex to AC.
    ConditionDef {
        modifiers: &[(Stat::Ac, -2)],
        cant_act: true,
        denies_dex_to_ac: true,
        fear: true,
        ..base("cowering")
    },
    // Dex 0, +4 to melee attacks against it; no actions.
    ConditionDef {
        cant_act: true,
        cant_move: true,
        denies_dex_to_ac: true,
        dex_zero: true,
        helpless: true,
        ..base("helpless")
    },
    // No actions (a threat allows a new save: not modelled).
    ConditionDef {
        cant_act: true,
        ..base("fascinated")
    },
    // Attacker: +2 attack, target loses Dex to AC; target: total concealment (50 %).
    ConditionDef {
        miss_chance: 50,
        ..base("invisible")
    },
    // Takes its bleed amount (1 hp here) at the start of its turn.
    base("bleeding"),
    // d% at the start of its turn (CRB — Conditions: Confused); no AoO.
    ConditionDef {
        no_aoo: true,
        ..base("confused")
    },
    // Bane (CRB spell): −1 morale penalty on attack rolls and on saves against fear.
    ConditionDef {
        modifiers: &[(Stat::Attack, -1)],
        ..base("bane")
    },
    // Cannot move, −4 Dex, −2 attack and CMB, no AoO.
    ConditionDef {
        modifiers: &[(Stat::Attack, -2), (Stat::Cmb, -2)],
        dex_penalty: 4,
        cant_move: true,
        no_aoo: true,
        ..base("grappled")
    },
    // Cannot move, loses Dex to AC, −4 AC more, can only try to free itself.
    ConditionDef {
        modifiers: &[(Stat::Ac, -4)],
        cant_move: true,
        cant_attack: true,
        denies_dex_to_ac: true,
        no_aoo: true,
        ..base("pinned")
    },
    // Blur (CRB spell): concealment, 20 % miss chance.
    ConditionDef {
        miss_chance: 20,
        ..base("blurred")
    },
    // Displacement (CRB spell): total concealment, 50 % miss chance.
    ConditionDef {
        miss_chance: 50,
        ..base("displaced")
    },
    // Asleep: helpless.
    ConditionDef {
        cant_act: true,
        cant_move: true,
        denies_dex_to_ac: true,
        dex_zero: true,
        helpless: true,
        ..base("asleep")
    },
];

/// The conditions the engine knows, in [`CONDITIONS`] order (CRB — Appendix: Conditions; the
/// seed's 29). Names resolve to a `Condition` once, where data is read (a combatant's initial
/// conditions, a snapshot); the engine never looks a condition up by its name at run time.
/// Serialized as its `snake_case` name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Condition {
    Shaken,
    Sickened,
    Fatigued,
    Exhausted,
    Entangled,
    Dazzled,
    Blinded,
    Deafened,
    FlatFooted,
    Prone,
    Stunned,
    Paralyzed,
    Nauseated,
    Dazed,
    Staggered,
    Frightened,
    Panicked,
    Cowering,
    Helpless,
    Fascinated,
    Invisible,
    Bleeding,
    Confused,
    Bane,
    Grappled,
    Pinned,
    Blurred,
    Displaced,
    Asleep,
}

impl Condition {
    /// Every condition, in table order.
    pub const ALL: [Condition; 29] = [
        Condition::Shaken,
        Condition::Sickened,
        Condition::Fatigued,
        Condition::Exhausted,
        Condition::Entangled,
        Condition::Dazzled,
        Condition::Blinded,
        Condition::Deafened,
        Condition::FlatFooted,
        Condition::Prone,
        Condition::Stunned,
        Condition::Paralyzed,
        Condition::Nauseated,
        Condition::Dazed,
        Condition::Staggered,
        Condition::Frightened,
        Condition::Panicked,
        Condition::Cowering,
        Condition::Helpless,
        Condition::Fascinated,
        Condition::Invisible,
        Condition::Bleeding,
        Condition::Confused,
        Condition::Bane,
        Condition::Grappled,
        Condition::Pinned,
        Condition::Blurred,
        Condition::Displaced,
        Condition::Asleep,
    ];

    /// Its row of [`CONDITIONS`].
    pub fn def(self) -> &'static ConditionDef {
        &CONDITIONS[self as usize]
    }

    /// The `snake_case` name (`flat_footed`).
    pub fn name(self) -> &'static str {
        self.def().name
    }

    /// The condition of a name: `snake_case`, any case, dashes or spaces for underscores
    /// (`Flat-Footed`).
    pub fn from_name(name: &str) -> Option<Condition> {
        if let Some(i) = CONDITIONS.iter().position(|c| c.name == name) {
            return Some(Condition::ALL[i]);
        }
        let n = name.trim().to_lowercase().replace(['-', ' '], "_");
        CONDITIONS
            .iter()
            .position(|c| c.name == n)
            .map(|i| Condition::ALL[i])
    }
}

impl std::fmt::Display for Condition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Condition {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Condition {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Condition::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown condition `{name}`")))
    }
}

/// The definition of a condition by name (`flat-footed` and `flat_footed` both work).
pub fn def(name: &str) -> Option<&'static ConditionDef> {
    Condition::from_name(name).map(Condition::def)
}

/// A condition on a combatant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActiveCondition {
    #[serde(rename = "name")]
    pub condition: Condition,
    /// Bearer's turns left; `None` until removed.
    pub rounds: Option<u32>,
}

/// The modifiers a condition row gives its bearer (source = the condition's name; fear
/// conditions share the source `fear` so that shaken + frightened count once).
pub fn modifiers_of(d: &ConditionDef) -> Vec<Modifier> {
    let source = if d.fear { "fear" } else { d.name };
    let bonus_type = if d.name == "bane" {
        BonusType::Morale
    } else {
        BonusType::Untyped
    };
    let mut out: Vec<Modifier> = d
        .modifiers
        .iter()
        .map(|&(stat, v)| Modifier::new(stat, v, bonus_type, source))
        .collect();
    if d.name == "bane" {
        out.push(
            Modifier::new(Stat::Saves, -1, BonusType::Morale, "bane")
                .when(crate::effects::When::SaveDescriptor("fear".into())),
        );
    }
    out
}

/// Error of [`crate::episode::Episode::apply_condition`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown condition `{0}`")]
pub struct UnknownCondition(pub String);
