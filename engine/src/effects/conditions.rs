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

use crate::actions::CombatantId;
use crate::content::combatant::ability_modifier;
use crate::episode::Episode;

impl Episode {
    /// Put condition `cond` on `c` for `rounds` of its turns (`None` = until removed). If it
    /// already has it, the longer duration wins. Logged.
    pub(crate) fn add_condition(&mut self, c: CombatantId, cond: Condition, rounds: Option<u32>) {
        let list = &mut self.st[c.0 as usize].conditions;
        match list.iter_mut().find(|x| x.condition == cond) {
            Some(x) => {
                x.rounds = match (x.rounds, rounds) {
                    (None, _) | (_, None) => None,
                    (Some(a), Some(b)) => Some(a.max(b)),
                }
            }
            None => list.push(ActiveCondition {
                condition: cond,
                rounds,
            }),
        }
        let how = rounds.map_or(String::new(), |r| format!(" ({r} rounds)"));
        self.log_turn(c, format!("is {cond}{how}"));
    }

    /// Test-only: put condition `name` on `c` as [`Episode::add_condition`] does (feature
    /// `testing`; a combatant's initial conditions are data, `conditions` in its JSON).
    ///
    /// # Errors
    /// [`UnknownCondition`] when `name` is not one of [`CONDITIONS`]; nothing changes.
    #[cfg(feature = "testing")]
    pub fn apply_condition(
        &mut self,
        c: CombatantId,
        name: &str,
        rounds: Option<u32>,
    ) -> Result<(), UnknownCondition> {
        let cond = Condition::from_name(name).ok_or_else(|| UnknownCondition(name.to_string()))?;
        self.add_condition(c, cond, rounds);
        Ok(())
    }

    /// Remove condition `cond` from `c`; returns whether it had it.
    pub(crate) fn remove_condition(&mut self, c: CombatantId, cond: Condition) -> bool {
        let list = &mut self.st[c.0 as usize].conditions;
        let before = list.len();
        list.retain(|x| x.condition != cond);
        list.len() != before
    }

    /// The conditions on `c` (and rounds left).
    pub fn conditions(&self, c: CombatantId) -> &[ActiveCondition] {
        &self.st[c.0 as usize].conditions
    }

    /// Whether `c` has condition `cond`.
    pub fn has_condition(&self, c: CombatantId, cond: Condition) -> bool {
        self.st[c.0 as usize]
            .conditions
            .iter()
            .any(|x| x.condition == cond)
    }

    pub(crate) fn cond_defs(
        &self,
        c: CombatantId,
    ) -> impl Iterator<Item = &'static ConditionDef> + '_ {
        self.st[c.0 as usize]
            .conditions
            .iter()
            .map(|x| x.condition.def())
    }

    /// The first condition of `c` (in the order it got them) with the flag.
    pub(crate) fn first_condition(
        &self,
        c: CombatantId,
        f: impl Fn(&ConditionDef) -> bool,
    ) -> Option<Condition> {
        self.st[c.0 as usize]
            .conditions
            .iter()
            .map(|x| x.condition)
            .find(|x| f(x.def()))
    }

    /// Any condition of `c` has the flag.
    pub(crate) fn cond_flag(&self, c: CombatantId, f: impl Fn(&ConditionDef) -> bool) -> bool {
        self.cond_defs(c).any(f)
    }

    /// The combatant's rule traits (`immune_critical`, `immune_flanking`…) from its data.
    pub(crate) fn traits(&self, c: CombatantId) -> crate::content::combatant::Traits {
        self.spec(c).resolved().traits
    }

    /// Base and effective Dexterity modifiers (after condition penalties; Dex 0 → −5).
    pub(crate) fn dex_mods(&self, c: CombatantId) -> (i32, i32) {
        let s = &self.spec(c).abilities;
        let base = ability_modifier(s.dex_score);
        if self.cond_flag(c, |d| d.dex_zero) {
            return (base, -5);
        }
        let pen: i32 = self.cond_defs(c).map(|d| d.dex_penalty).sum();
        match s.dex_score {
            Some(sc) if pen > 0 => (base, ability_modifier(Some((sc - pen).max(0)))),
            _ => (base, base),
        }
    }

    /// Base and effective Strength modifiers (after condition penalties).
    pub(crate) fn str_mods(&self, c: CombatantId) -> (i32, i32) {
        let s = &self.spec(c).abilities;
        let base = ability_modifier(s.str_score);
        let pen: i32 = self.cond_defs(c).map(|d| d.str_penalty).sum();
        match s.str_score {
            Some(sc) if pen > 0 => (base, ability_modifier(Some((sc - pen).max(0)))),
            _ => (base, base),
        }
    }

    /// Every modifier to `c`'s own rolls: its conditions, its feats, and the effect of its
    /// ability penalties on the printed numbers (Dex: ranged attacks, Reflex, CMD; Str: melee
    /// attacks and damage, CMB, CMD). AC's Dex part is computed in the AC itself.
    pub fn modifiers_for(&self, c: CombatantId) -> Vec<crate::effects::Modifier> {
        use crate::effects::{BonusType, Modifier};
        let mut out: Vec<Modifier> = self.cond_defs(c).flat_map(modifiers_of).collect();
        out.extend(self.spec(c).resolved().feat_mods.iter().cloned());
        let (db, de) = self.dex_mods(c);
        let (sb, se) = self.str_mods(c);
        let (dd, sd) = (de - db, se - sb);
        for (stat, v, src) in [
            (Stat::RangedAttack, dd, "Dex penalty"),
            (Stat::Ref, dd, "Dex penalty"),
            (Stat::Cmd, dd, "Dex penalty"),
            (Stat::MeleeAttack, sd, "Str penalty"),
            (Stat::MeleeDamage, sd, "Str penalty"),
            (Stat::Cmb, sd, "Str penalty"),
            (Stat::Cmd, sd, "Str penalty"),
        ] {
            if v != 0 {
                out.push(Modifier::new(stat, v, BonusType::Untyped, src));
            }
        }
        out
    }

    /// Whether `c` is denied its Dexterity bonus to AC by its own state (flat-footed, stunned,
    /// blinded, helpless…).
    pub(crate) fn denied_dex(&self, c: CombatantId) -> bool {
        self.cond_flag(c, |d| d.denies_dex_to_ac)
            || (self.st[c.0 as usize].running
                && !self.spec(c).has_feat(crate::content::feats::Feat::Run))
    }

    /// Speed multiplier in halves (2 = full): half speed when any condition says so.
    pub(crate) fn speed_halves(&self, c: CombatantId) -> i32 {
        self.cond_defs(c).map(|d| d.speed_halves).min().unwrap_or(2)
    }

    /// Turn-order bookkeeping: durations count down at the end of the bearer's turn.
    pub(crate) fn tick_conditions(&mut self, c: CombatantId) {
        let mut ended = Vec::new();
        for x in &mut self.st[c.0 as usize].conditions {
            if let Some(r) = x.rounds.as_mut() {
                *r = r.saturating_sub(1);
                if *r == 0 {
                    ended.push(x.condition);
                }
            }
        }
        if !ended.is_empty() {
            self.st[c.0 as usize]
                .conditions
                .retain(|x| x.rounds != Some(0));
            for n in ended {
                self.log_turn(c, format!("is no longer {n}"));
            }
        }
    }
}
