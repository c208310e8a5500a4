//! The spell data format (`data/spells/*.json`, one spell per file) and the registry that
//! loads it.
//!
//! What a spell does is data over a small set of effect kinds ([`SpellEffect`]) that the
//! engine implements in `rules::magic`; a spell's parts the engine does not model are listed
//! in its `not_modelled` field (reported in the observation and the spec, never dropped
//! silently). Numbers are transcribed from the PF1e SRD (CRB, APG, UM spell entries) and each
//! file names its `source` and `license`.
//!
//! Units: every distance is in **feet** (`range`, `area.size_ft`); durations are in
//! **rounds** (a minute is 10 rounds; CRB — Magic: Duration).
//!
//! SRD: CRB — Magic: Casting Time, Range, Aiming a Spell, Saving Throw, Spell Resistance,
//! Duration; the seed's `SpellSpec` (`cast_time` codes and their aliases).

use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use crate::content::combatant::DataError;
use crate::effects::{BonusType, Stat, When};

/// The behaviours a spell's `special` effect may name, each implemented in `rules::magic`:
/// `haste` gives its bearer the extra attack of a full attack; the others mark the spell
/// effect (their modifiers and conditions are the spell file's `buff` and `condition`
/// effects) — `invisibility` ends the invisible condition when dispelled; `shield` negates
/// *magic missile* aimed at its bearer (CRB — Spells: Shield).
pub const SPECIALS: [&str; 6] = [
    "haste",
    "slow",
    "enlarge_person",
    "reduce_person",
    "invisibility",
    "shield",
];

/// Largest spell file accepted, in bytes.
pub const MAX_SPELL_BYTES: usize = 64 * 1024;

/// Most spell files a registry loads (a directory of more is an error, not a slow start).
pub const MAX_SPELLS: usize = 4096;

/// The seed's normalized casting-time codes (CRB — Magic: Casting Time). The loader also
/// accepts the SRD's wordings: `"1 standard action"`, `"1 round"`, `"1 full-round action"`,
/// `"1 swift action"`, `"1 immediate action"`, `"1 free action"`, `"1 minute"`,
/// `"10 minutes"`, `"1 hour"`…
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CastTime {
    Standard,
    Swift,
    Immediate,
    Free,
    FullRound,
    /// 1 round: a full-round action whose effect comes just before the caster's next turn.
    OneRound,
    /// Longer than 1 round: never castable in combat (`downgraded:cast_time`).
    Long,
}

impl CastTime {
    /// The code (`one_round`).
    pub fn name(self) -> &'static str {
        match self {
            CastTime::Standard => "standard",
            CastTime::Swift => "swift",
            CastTime::Immediate => "immediate",
            CastTime::Free => "free",
            CastTime::FullRound => "full_round",
            CastTime::OneRound => "one_round",
            CastTime::Long => "long",
        }
    }

    /// Parse a code or an SRD wording (case-insensitive); `None` if unknown.
    pub fn parse(text: &str) -> Option<CastTime> {
        let t = text.trim().to_ascii_lowercase();
        let t = t.strip_prefix("1 ").unwrap_or(&t).trim();
        Some(match t {
            "standard" | "standard action" => CastTime::Standard,
            "swift" | "swift action" => CastTime::Swift,
            "immediate" | "immediate action" => CastTime::Immediate,
            "free" | "free action" => CastTime::Free,
            "full_round" | "full-round" | "full-round action" | "full round" => CastTime::FullRound,
            "one_round" | "round" | "one round" => CastTime::OneRound,
            "long" => CastTime::Long,
            _ if t.ends_with("minute")
                || t.ends_with("minutes")
                || t.ends_with("hour")
                || t.ends_with("hours")
                || t.ends_with("rounds") =>
            {
                CastTime::Long
            }
            _ => return None,
        })
    }
}

impl<'de> Deserialize<'de> for CastTime {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        CastTime::parse(&s).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "unknown casting time `{s}`: expected standard, swift, immediate, free, \
                 full_round, one_round, long or an SRD wording (\"1 round\", \"1 minute\"…)"
            ))
        })
    }
}

/// A spell's range (CRB — Magic: Range). Close = 25 ft + 5 ft per 2 caster levels, medium =
/// 100 ft + 10 ft per level, long = 400 ft + 40 ft per level; `feet` is a fixed distance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpellRange {
    Personal,
    Touch,
    Close,
    Medium,
    Long,
    /// A fixed range in feet (`{"feet": 30}`; 0 for effects centred on the caster).
    Feet(u32),
}

impl SpellRange {
    /// The range in feet at caster level `cl` (personal and touch: 0; touch is reach).
    pub fn feet(self, cl: i32) -> i32 {
        let cl = cl.max(1);
        match self {
            SpellRange::Personal | SpellRange::Touch => 0,
            SpellRange::Close => 25 + 5 * (cl / 2),
            SpellRange::Medium => 100 + 10 * cl,
            SpellRange::Long => 400 + 40 * cl,
            SpellRange::Feet(f) => f as i32,
        }
    }
}

/// Who or what a spell is aimed at (CRB — Magic: Aiming a Spell).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Targeting {
    /// The caster only (range personal, or "target you").
    Caster,
    /// One creature (a touch, a ray, a targeted spell).
    Creature,
    /// An area ([`SpellSpec::area`]): aimed at a grid intersection or square (burst, spread,
    /// cylinder), from the caster (cone, line, emanation centred on the caster).
    Area,
}

/// The attack a spell needs (CRB — Magic: Touch spells; Combat: Touch Spells in Combat).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SpellAttack {
    #[default]
    None,
    /// Melee touch attack (range touch); a miss holds the charge.
    MeleeTouch,
    /// Ranged touch attack (rays, acid arrow): no range increments; a ray can score a
    /// critical hit.
    RangedTouch,
}

/// An area's shape (CRB — Magic: Aiming a Spell — Area).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AreaShape {
    /// From a grid intersection, `size_ft` radius; does not go around corners.
    Burst,
    /// Like a burst, but it spreads around corners (modelled as a burst; see `rules::areas`).
    Spread,
    /// A burst that lasts (centred on the caster or a point).
    Emanation,
    /// A quarter circle from a corner of the caster's square, `size_ft` long.
    Cone,
    /// A 5-ft-wide line from a corner of the caster's square, `size_ft` long.
    Line,
    /// A cylinder (`size_ft` radius): a burst on the grid (height is not modelled).
    Cylinder,
}

/// Where an area starts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AreaOrigin {
    /// A grid intersection chosen by the caster, within range (`target_pos`).
    #[default]
    Point,
    /// The caster (cones, lines, bursts "centered on you").
    Caster,
}

/// Which creatures in an area are affected (bless: the caster's allies; bane: its enemies).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Affects {
    #[default]
    All,
    Allies,
    Enemies,
}

/// An area template.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AreaSpec {
    pub shape: AreaShape,
    /// Radius (burst, spread, emanation, cylinder) or length (cone, line), in feet.
    pub size_ft: u32,
    #[serde(default)]
    pub origin: AreaOrigin,
    #[serde(default)]
    pub affects: Affects,
    /// Whether the caster is affected when inside (a burst centred on the caster).
    #[serde(default)]
    pub includes_caster: bool,
}

/// The saving throw a spell allows (CRB — Magic: Saving Throw).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SaveSpec {
    /// `fort`, `ref` or `will`.
    pub kind: crate::effects::SaveKind,
    /// What a successful save does.
    pub on_success: OnSave,
}

/// A successful save's effect: the whole spell negated, damage halved, or the `partial` part
/// of each effect instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnSave {
    Negates,
    Half,
    Partial,
    /// A save that changes nothing the engine models (a "disbelief" save…).
    None,
}

/// A duration (CRB — Magic: Duration), in rounds: `rounds + per_level × caster level` (or
/// `dice` rounds), `per_level` counted every `per_levels` levels; `max` caps it. A minute is
/// 10 rounds. Instantaneous: every field 0/absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DurationSpec {
    #[serde(default)]
    pub rounds: u32,
    #[serde(default)]
    pub per_level: u32,
    /// Levels per step of `per_level` (default 1: "1 round/level").
    #[serde(default)]
    pub per_levels: Option<u32>,
    /// Rounds rolled (`"1d4"`), added to the rest.
    #[serde(default)]
    pub dice: Option<String>,
    #[serde(default)]
    pub max: Option<u32>,
    /// Lasts while the caster concentrates (modelled as its fixed part plus `rounds`).
    #[serde(default)]
    pub concentration: bool,
    /// Lasts until discharged (a held charge, a stored effect).
    #[serde(default)]
    pub until_discharged: bool,
}

impl DurationSpec {
    /// Whether it is instantaneous.
    pub fn is_instantaneous(&self) -> bool {
        self.rounds == 0 && self.per_level == 0 && self.dice.is_none()
    }
    /// The fixed part in rounds at caster level `cl` (dice not rolled).
    pub fn fixed_rounds(&self, cl: i32) -> u32 {
        let step = self.per_levels.unwrap_or(1).max(1);
        let lv = (cl.max(0) as u32) / step;
        let r = self.rounds + self.per_level * lv;
        match self.max {
            Some(m) => r.min(m),
            None => r,
        }
    }
}

/// Extra dice, a bonus or a count that grows with the caster level: `amount` per
/// `per_levels` caster levels — counted beyond `from_level` when given — at most `max`.
/// As `dice_scaling` it gives dice **added** to the base `dice`: fireball's "1d6 per caster
/// level (maximum 10d6)" is `"dice": "1d6"` with `{"amount": 1, "per_levels": 1,
/// "from_level": 1, "max": 9}`; as `flat_scaling`, cure light wounds' "+1 per caster level
/// (maximum +5)" is `{"amount": 1, "per_levels": 1, "max": 5}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scaling {
    pub amount: u32,
    #[serde(default = "one")]
    pub per_levels: u32,
    /// The level of the first step (magic missile: one more per two levels beyond 1st).
    #[serde(default)]
    pub from_level: Option<u32>,
    #[serde(default)]
    pub max: Option<u32>,
}

fn one() -> u32 {
    1
}

impl Scaling {
    /// `amount × steps` at caster level `cl`, capped.
    pub fn at(&self, cl: i32) -> u32 {
        let cl = cl.max(0) as u32;
        let steps = match self.from_level {
            // "one plus one per two levels beyond 1st": steps counted past from_level.
            Some(f) => cl.saturating_sub(f) / self.per_levels.max(1),
            None => cl / self.per_levels.max(1),
        };
        let v = self.amount.saturating_mul(steps);
        match self.max {
            Some(m) => v.min(m),
            None => v,
        }
    }
}

/// Which creatures an effect can work on (cure harms undead: two effects, one per kind).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CreatureFilter {
    #[default]
    Any,
    /// Not undead nor construct.
    Living,
    Undead,
    /// Humanoids only (hold person, charm person…).
    Humanoid,
    /// A dying creature (−1 hit points or fewer, not stable nor dead: stabilize).
    Dying,
    /// A living creature at −1 hit points or fewer, dying or stable (bleed).
    BelowZero,
}

/// One modifier a buff or debuff gives its bearer: `value` (+ `scaling` per caster level)
/// of `bonus_type` to `stat`, stacked by the PF1e rules ([`crate::effects`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuffModifier {
    pub stat: Stat,
    pub value: i32,
    pub bonus_type: BonusType,
    #[serde(default)]
    pub scaling: Option<Scaling>,
    #[serde(default)]
    pub when: Option<When>,
}

/// What a spell does to each creature it affects, in order. The kinds are implemented in
/// `rules::magic`; the spell's save decides how each kind is changed by a successful save
/// (`negates`: no effect; `half`: half damage, no condition; `partial`: the `partial` part).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SpellEffect {
    /// Hit point damage: `dice` plus `dice_scaling` more dice of the same size per caster
    /// level, plus `flat_scaling`; energy `types` (empty: untyped). Spell damage ignores DR;
    /// energy resistance and immunity apply (CRB — Combat: Energy Resistance).
    Damage {
        dice: String,
        #[serde(default)]
        dice_scaling: Option<Scaling>,
        #[serde(default)]
        flat_scaling: Option<Scaling>,
        #[serde(default)]
        types: Vec<String>,
        /// Several projectiles (magic missile, scorching ray): `base` plus `scaling`; each
        /// rolls its own damage (and its own ranged touch attack for a ray).
        #[serde(default)]
        projectiles: Option<Projectiles>,
        /// Damage again at the start of the target's turns (acid arrow).
        #[serde(default)]
        recurring: Option<Recurring>,
        #[serde(default)]
        creatures: CreatureFilter,
        /// Damage on a successful `partial` save (sound burst: none, the stun is negated —
        /// use `half` for "half damage").
        #[serde(default)]
        partial: Option<PartialDamage>,
    },
    /// Hit points healed: `dice` + `flat_scaling` (cure: +1 per level, max +5).
    Heal {
        dice: String,
        #[serde(default)]
        flat_scaling: Option<Scaling>,
        #[serde(default)]
        creatures: CreatureFilter,
    },
    /// A condition of `effects::conditions` for `duration` (or the spell's duration).
    Condition {
        condition: String,
        #[serde(default)]
        duration: Option<DurationSpec>,
        /// On a successful `partial` save: this condition instead (none: nothing).
        #[serde(default)]
        partial: Option<PartialCondition>,
        #[serde(default)]
        creatures: CreatureFilter,
        /// Creatures of more Hit Dice (levels) are not affected (sleep: 4; color spray: by
        /// tiers, see `hd_tiers`).
        #[serde(default)]
        max_hd: Option<u32>,
        /// Total Hit Dice affected, lowest first (sleep: 4 HD).
        #[serde(default)]
        total_hd: Option<u32>,
    },
    /// Typed modifiers for the spell's duration (bless, shield, mage armor, bane…).
    Buff {
        modifiers: Vec<BuffModifier>,
        #[serde(default)]
        creatures: CreatureFilter,
    },
    /// Mirror image: `dice` images + 1 per `scaling`, at most `max`; each attack against the
    /// caster picks among it and its images (CRB — Spells: Mirror Image).
    MirrorImage {
        dice: String,
        #[serde(default)]
        scaling: Option<Scaling>,
        max: u32,
    },
    /// Summon `count` `creature`s (a file of `data/monsters/`) into reserved combatant slots,
    /// acting on the caster's initiative for the spell's duration.
    Summon {
        creature: String,
        #[serde(default = "one_str")]
        count: String,
    },
    /// Dispel magic (targeted): each spell effect on the target, a caster level check
    /// d20 + CL against 11 + the effect's caster level ends it.
    Dispel { max_cl: u32 },
    /// Terrain in the area for the spell's duration (web, grease, entangle): `difficult`
    /// terrain, and the `condition` on creatures inside (save each round it applies).
    Terrain {
        #[serde(default)]
        difficult: bool,
        #[serde(default)]
        condition: Option<String>,
        /// Blocks line of sight (obscuring mist, fog cloud: concealment).
        #[serde(default)]
        concealment: bool,
    },
    /// A behaviour implemented by name in `rules::magic` (haste, slow, enlarge person…).
    Special { name: String },
    /// Conditions in phases that follow one another (color spray: unconscious, blinded and
    /// stunned 2d4 rounds, then blinded and stunned 1d4 rounds, then stunned 1 round). A
    /// creature goes through every phase whose `max_hd` it fits, in order; each phase's
    /// duration is rolled once for it, and each condition lasts from the casting to the end
    /// of the last of its phases. A later phase's conditions are among the earlier ones'
    /// (checked when loaded), so the sequence is exact.
    Phases { phases: Vec<ConditionPhase> },
    /// Bleed (CRB — Spells: Bleed): works only on a living creature at −1 hit points or
    /// fewer ([`CreatureFilter::BelowZero`]); a stable one begins dying again (it rolls to
    /// stabilize on its turns as before), a dying one loses `damage` hit points (default 1).
    ResumeDying {
        #[serde(default = "one_str")]
        damage: String,
    },
}

/// One phase of [`SpellEffect::Phases`]: its conditions, for `duration`, on creatures of
/// at most `max_hd` Hit Dice (levels).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConditionPhase {
    pub conditions: Vec<PhaseCondition>,
    pub duration: DurationSpec,
    #[serde(default)]
    pub max_hd: Option<u32>,
}

/// A condition of a [`ConditionPhase`], on the creatures of `creatures` only (color spray
/// knocks only living creatures unconscious).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhaseCondition {
    pub condition: String,
    #[serde(default)]
    pub creatures: CreatureFilter,
}

fn one_str() -> String {
    "1".into()
}

/// Several projectiles: `base` plus [`Scaling`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Projectiles {
    pub base: u32,
    #[serde(default)]
    pub scaling: Option<Scaling>,
}

/// Damage again at the start of the target's turns: `dice` for `rounds` (+ scaling) rounds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recurring {
    pub dice: String,
    pub rounds: u32,
    #[serde(default)]
    pub scaling: Option<Scaling>,
}

/// Damage on a successful partial save.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartialDamage {
    Half,
    None,
    Full,
}

/// The condition a successful partial save leaves instead (cause fear: shaken 1 round).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartialCondition {
    pub condition: String,
    #[serde(default)]
    pub duration: Option<DurationSpec>,
}

/// One spell (one `data/spells/<name>.json` file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpellSpec {
    /// The SRD name, lower case ("magic missile").
    pub name: String,
    /// Where the numbers come from: "PF1e SRD — Core Rulebook: Magic Missile".
    pub source: String,
    #[serde(default)]
    pub license: Option<String>,
    /// abjuration, conjuration, divination, enchantment, evocation, illusion, necromancy,
    /// transmutation, universal.
    pub school: String,
    #[serde(default)]
    pub subschool: Option<String>,
    /// fire, cold, mind-affecting, fear, … (the SRD's descriptors).
    #[serde(default)]
    pub descriptors: Vec<String>,
    /// Level by class list (`{"sorcerer/wizard": 3, "magus": 3}`); keys: `bard`, `cleric`,
    /// `druid`, `sorcerer/wizard`, `witch`, `magus`, `paladin`, `ranger`, `inquisitor`,
    /// `alchemist`, `summoner`, `oracle`, `antipaladin`.
    pub levels: BTreeMap<String, u8>,
    #[serde(default = "standard")]
    pub cast_time: CastTime,
    pub range: SpellRange,
    pub targeting: Targeting,
    #[serde(default)]
    pub attack: SpellAttack,
    #[serde(default)]
    pub area: Option<AreaSpec>,
    #[serde(default)]
    pub save: Option<SaveSpec>,
    /// The save line says "(harmless)": a willing target forgoes it (CRB — Magic: Saving
    /// Throw — Voluntarily Giving up a Saving Throw).
    #[serde(default)]
    pub harmless: bool,
    /// Spell resistance applies ("Spell Resistance: yes"; default true).
    #[serde(default = "yes")]
    pub spell_resistance: bool,
    #[serde(default)]
    pub duration: DurationSpec,
    pub effects: Vec<SpellEffect>,
    /// One line of what it does, in our words (the observation's `summary`).
    pub summary: String,
    /// Parts of the SRD spell the engine does not model, each with the reason.
    #[serde(default)]
    pub not_modelled: Vec<String>,
}

fn standard() -> CastTime {
    CastTime::Standard
}

fn yes() -> bool {
    true
}

/// The eight schools plus universal (CRB — Magic: Schools of Magic).
pub const SCHOOLS: [&str; 9] = [
    "abjuration",
    "conjuration",
    "divination",
    "enchantment",
    "evocation",
    "illusion",
    "necromancy",
    "transmutation",
    "universal",
];

/// The class lists a spell's `levels` may name.
pub const CLASS_LISTS: [&str; 13] = [
    "bard",
    "cleric",
    "druid",
    "sorcerer/wizard",
    "witch",
    "magus",
    "paladin",
    "ranger",
    "inquisitor",
    "alchemist",
    "summoner",
    "oracle",
    "antipaladin",
];

impl SpellSpec {
    /// Parse a spell from JSON text. `origin` names the file in errors.
    ///
    /// # Errors
    /// [`DataError::Field`] naming the field path and the reason: malformed JSON, unknown
    /// fields, an unknown school, class list, condition or casting time, a bad dice formula,
    /// an area spell without `area` (or the reverse), a save without a save kind's effect.
    pub fn from_json_str(text: &str, origin: &str) -> Result<SpellSpec, DataError> {
        if text.len() > MAX_SPELL_BYTES {
            return Err(DataError::field(
                origin,
                "<root>",
                format!(
                    "the file is {} bytes; at most {MAX_SPELL_BYTES}",
                    text.len()
                ),
            ));
        }
        let de = &mut serde_json::Deserializer::from_str(text);
        let spec: SpellSpec = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let field = if path == "." { "<root>".into() } else { path };
            DataError::field(origin, field, inner.to_string())
        })?;
        de.end()
            .map_err(|e| DataError::field(origin, "<root>", format!("trailing characters: {e}")))?;
        spec.validate(origin)?;
        Ok(spec)
    }

    /// Read and parse a spell file.
    ///
    /// # Errors
    /// [`DataError::Io`] if unreadable, else as [`SpellSpec::from_json_str`].
    pub fn load(path: &Path) -> Result<SpellSpec, DataError> {
        let file = path.display().to_string();
        let text = read_bounded(path, MAX_SPELL_BYTES)?;
        Self::from_json_str(&text, &file)
    }

    /// The registry key: the name, lower case, spaces and punctuation as `_`
    /// ("cure light wounds" → `cure_light_wounds`), also the file stem.
    pub fn key(&self) -> String {
        spell_key(&self.name)
    }

    /// The lowest level on any class list (the level used when a caster's class is not on
    /// the spell's lists).
    pub fn min_level(&self) -> u8 {
        self.levels.values().copied().min().unwrap_or(0)
    }

    /// The level for caster class `class` (`sorcerer`/`wizard` → `sorcerer/wizard`), else
    /// the lowest level.
    pub fn level_for(&self, class: Option<&str>) -> u8 {
        let class = class.map(|c| match c {
            "sorcerer" | "wizard" | "arcanist" => "sorcerer/wizard",
            other => other,
        });
        class
            .and_then(|c| self.levels.get(c).copied())
            .unwrap_or_else(|| self.min_level())
    }

    fn validate(&self, origin: &str) -> Result<(), DataError> {
        let err = |f: &str, r: String| Err(DataError::field(origin, f, r));
        if self.name.trim().is_empty() || self.name.len() > 80 {
            return err("name", "must be 1 to 80 characters".into());
        }
        if !SCHOOLS.contains(&self.school.as_str()) {
            return err(
                "school",
                format!(
                    "unknown school `{}`: expected one of {}",
                    self.school,
                    SCHOOLS.join(", ")
                ),
            );
        }
        if self.levels.is_empty() {
            return err("levels", "names no class list".into());
        }
        for (class, lv) in &self.levels {
            if !CLASS_LISTS.contains(&class.as_str()) {
                return err(
                    &format!("levels.{class}"),
                    format!(
                        "unknown class list: expected one of {}",
                        CLASS_LISTS.join(", ")
                    ),
                );
            }
            if *lv > 9 {
                return err(&format!("levels.{class}"), format!("level {lv} is above 9"));
            }
        }
        match (self.targeting, &self.area) {
            (Targeting::Area, None) => {
                return err(
                    "area",
                    "an area spell (targeting `area`) needs an `area`".into(),
                )
            }
            (Targeting::Caster | Targeting::Creature, Some(_))
                if !self
                    .effects
                    .iter()
                    .any(|e| matches!(e, SpellEffect::Terrain { .. })) =>
            {
                return err(
                    "area",
                    "only an area spell (targeting `area`) has an `area`".into(),
                )
            }
            _ => {}
        }
        if let Some(a) = &self.area {
            if a.size_ft == 0 || a.size_ft > 1000 || a.size_ft % 5 != 0 {
                return err(
                    "area.size_ft",
                    format!("must be a multiple of 5 in 5..=1000 ft, got {}", a.size_ft),
                );
            }
        }
        if let SpellRange::Feet(f) = self.range {
            if f > 10_000 {
                return err("range", format!("{f} ft is more than 10,000 ft"));
            }
        }
        if self.attack == SpellAttack::MeleeTouch && self.range != SpellRange::Touch {
            return err("attack", "a melee touch attack needs range `touch`".into());
        }
        if self.effects.is_empty() {
            return err("effects", "lists no effect".into());
        }
        let dice = |f: &str, s: &str| -> Result<(), DataError> {
            s.parse::<crate::dice::DiceExpr>()
                .map(|_| ())
                .map_err(|e| DataError::field(origin, f, format!("bad dice `{s}`: {e}")))
        };
        let condition = |f: &str, s: &str| -> Result<(), DataError> {
            crate::effects::conditions::Condition::from_name(s)
                .map(|_| ())
                .ok_or_else(|| DataError::field(origin, f, format!("unknown condition `{s}`")))
        };
        let duration = |f: &str, d: &DurationSpec| -> Result<(), DataError> {
            if let Some(s) = &d.dice {
                dice(&format!("{f}.dice"), s)?;
            }
            Ok(())
        };
        duration("duration", &self.duration)?;
        for (i, e) in self.effects.iter().enumerate() {
            let f = format!("effects[{i}]");
            match e {
                SpellEffect::Damage {
                    dice: d, recurring, ..
                } => {
                    dice(&format!("{f}.dice"), d)?;
                    if let Some(r) = recurring {
                        dice(&format!("{f}.recurring.dice"), &r.dice)?;
                    }
                }
                SpellEffect::Heal { dice: d, .. } => dice(&format!("{f}.dice"), d)?,
                SpellEffect::ResumeDying { damage } => dice(&format!("{f}.damage"), damage)?,
                SpellEffect::Phases { phases } => {
                    if phases.is_empty() {
                        return err(&format!("{f}.phases"), "lists no phase".into());
                    }
                    for (k, ph) in phases.iter().enumerate() {
                        let g = format!("{f}.phases[{k}]");
                        if ph.conditions.is_empty() {
                            return err(&format!("{g}.conditions"), "lists no condition".into());
                        }
                        for (j, c) in ph.conditions.iter().enumerate() {
                            condition(&format!("{g}.conditions[{j}].condition"), &c.condition)?;
                            if k > 0
                                && !phases[k - 1]
                                    .conditions
                                    .iter()
                                    .any(|p| p.condition == c.condition)
                            {
                                return err(
                                    &format!("{g}.conditions[{j}].condition"),
                                    format!(
                                        "`{}` is not in the phase before: a phase's conditions \
                                         must be among the earlier phase's",
                                        c.condition
                                    ),
                                );
                            }
                        }
                        duration(&format!("{g}.duration"), &ph.duration)?;
                    }
                }
                SpellEffect::Condition {
                    condition: c,
                    duration: du,
                    partial,
                    ..
                } => {
                    condition(&format!("{f}.condition"), c)?;
                    if let Some(du) = du {
                        duration(&format!("{f}.duration"), du)?;
                    }
                    if let Some(p) = partial {
                        condition(&format!("{f}.partial.condition"), &p.condition)?;
                        if let Some(du) = &p.duration {
                            duration(&format!("{f}.partial.duration"), du)?;
                        }
                    }
                }
                SpellEffect::Buff { modifiers, .. } if modifiers.is_empty() => {
                    return err(&format!("{f}.modifiers"), "lists no modifier".into());
                }
                SpellEffect::MirrorImage { dice: d, max, .. } => {
                    dice(&format!("{f}.dice"), d)?;
                    if *max == 0 || *max > 20 {
                        return err(&format!("{f}.max"), "must be in 1..=20".into());
                    }
                }
                SpellEffect::Summon { creature, count } => {
                    if creature.is_empty() {
                        return err(&format!("{f}.creature"), "is empty".into());
                    }
                    dice(&format!("{f}.count"), count)?;
                }
                SpellEffect::Terrain {
                    condition: Some(c), ..
                } => condition(&format!("{f}.condition"), c)?,
                SpellEffect::Special { name } if !SPECIALS.contains(&name.as_str()) => {
                    return err(
                        &format!("{f}.name"),
                        format!(
                            "unknown special behaviour `{name}`: the engine implements {}",
                            SPECIALS.join(", ")
                        ),
                    );
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// The registry key of a spell name: lower case, runs of anything but letters and digits
/// as one `_` ("Cure Light Wounds" → `cure_light_wounds`, "Bull's Strength" →
/// `bull_s_strength`).
pub fn spell_key(name: &str) -> String {
    let mut out = String::new();
    for ch in name.trim().chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch.to_ascii_lowercase());
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

/// Read a file of at most `max` bytes (a bigger one, or `/dev/zero`, is refused without
/// reading it whole): [`crate::content::read_text_bounded`].
fn read_bounded(path: &Path, max: usize) -> Result<String, DataError> {
    crate::content::combatant::read_data_file(path, max)
}

/// The spells of a data directory (`<data>/spells/*.json`), by key, and the creatures their
/// `summon` effects name (`<data>/monsters/<creature>.json`).
#[derive(Debug, Clone, Default)]
pub struct SpellRegistry {
    spells: BTreeMap<String, Arc<SpellSpec>>,
    summons: BTreeMap<String, Arc<crate::content::combatant::CombatantSpec>>,
}

impl SpellRegistry {
    /// Load every `*.json` file of `dir` (not recursive). A missing directory is an empty
    /// registry.
    ///
    /// # Errors
    /// The first file that does not load ([`DataError`]); a file whose stem is not the
    /// spell's key; two files of one spell; more than [`MAX_SPELLS`] files.
    pub fn load_dir(dir: &Path) -> Result<SpellRegistry, DataError> {
        let mut reg = SpellRegistry::default();
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(reg),
            Err(source) => {
                return Err(DataError::Io {
                    file: dir.display().to_string(),
                    source,
                })
            }
        };
        let mut paths: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        paths.sort();
        if paths.len() > MAX_SPELLS {
            return Err(DataError::field(
                &dir.display().to_string(),
                "<dir>",
                format!("{} spell files; at most {MAX_SPELLS}", paths.len()),
            ));
        }
        for p in paths {
            let spec = SpellSpec::load(&p)?;
            let key = spec.key();
            let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            if stem != key {
                return Err(DataError::field(
                    &p.display().to_string(),
                    "name",
                    format!("the spell `{}` must be in {key}.json", spec.name),
                ));
            }
            reg.spells.insert(key, Arc::new(spec));
        }
        Ok(reg)
    }

    /// The registry of the data directory that holds `combatant_file`
    /// (`<data>/monsters/x.json` → `<data>/spells/`, summons from `<data>/monsters/`).
    ///
    /// # Errors
    /// As [`SpellRegistry::load_dir`] and [`SpellRegistry::load_summons`].
    pub fn for_combatant_file(combatant_file: &Path) -> Result<SpellRegistry, DataError> {
        let data = combatant_file
            .parent()
            .and_then(Path::parent)
            .unwrap_or(Path::new("."));
        Self::for_data_dir(data)
    }

    /// The registry of a data directory: its spells and their summoned creatures.
    ///
    /// # Errors
    /// As [`SpellRegistry::load_dir`] and [`SpellRegistry::load_summons`].
    pub fn for_data_dir(data: &Path) -> Result<SpellRegistry, DataError> {
        let mut reg = Self::load_dir(&data.join("spells"))?;
        reg.load_summons(&data.join("monsters"))?;
        Ok(reg)
    }

    /// Load the creature of every `summon` effect from `monsters_dir/<creature>.json` (a
    /// summoned creature casts no spells of its own here).
    ///
    /// # Errors
    /// [`DataError`] of a creature file that does not load, or names spells.
    pub fn load_summons(&mut self, monsters_dir: &Path) -> Result<(), DataError> {
        let names: BTreeMap<String, (String, usize)> = self
            .spells
            .iter()
            .flat_map(|(key, s)| {
                s.effects
                    .iter()
                    .enumerate()
                    .filter_map(move |(i, e)| match e {
                        SpellEffect::Summon { creature, .. } => {
                            Some((creature.clone(), (key.clone(), i)))
                        }
                        _ => None,
                    })
            })
            .collect();
        for (name, (spell, effect)) in names {
            if self.summons.contains_key(&name) {
                continue;
            }
            let path = monsters_dir.join(format!("{name}.json"));
            let file = path.display().to_string();
            let text =
                read_bounded(&path, crate::content::combatant::MAX_TEXT_BYTES).map_err(|e| {
                    DataError::field(
                        &format!("spells/{spell}.json"),
                        format!("effects[{effect}].creature"),
                        format!("the summoned creature `{name}` does not load: {e}"),
                    )
                })?;
            let spec = crate::content::combatant::CombatantSpec::from_json_str(&text, &file)?;
            if spec.has_spells() {
                return Err(DataError::field(
                    &file,
                    "spells",
                    "a summoned creature cannot cast spells here",
                ));
            }
            self.summons.insert(name, Arc::new(spec));
        }
        Ok(())
    }

    /// The creature a `summon` effect names, if loaded.
    pub fn summon(&self, creature: &str) -> Option<&Arc<crate::content::combatant::CombatantSpec>> {
        self.summons.get(creature)
    }

    /// Add (or replace) a spell.
    pub fn insert(&mut self, spec: SpellSpec) {
        self.spells.insert(spec.key(), Arc::new(spec));
    }

    /// The spell named `name` (any case or punctuation: `"Magic Missile"`, `magic_missile`).
    pub fn get(&self, name: &str) -> Option<&Arc<SpellSpec>> {
        self.spells.get(&spell_key(name))
    }

    /// Every spell, by key.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Arc<SpellSpec>)> {
        self.spells.iter()
    }

    /// Number of spells.
    pub fn len(&self) -> usize {
        self.spells.len()
    }

    /// Whether it has no spell.
    pub fn is_empty(&self) -> bool {
        self.spells.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cast_time_aliases() {
        assert_eq!(
            CastTime::parse("1 standard action"),
            Some(CastTime::Standard)
        );
        assert_eq!(CastTime::parse("1 round"), Some(CastTime::OneRound));
        assert_eq!(
            CastTime::parse("1 full-round action"),
            Some(CastTime::FullRound)
        );
        assert_eq!(CastTime::parse("10 minutes"), Some(CastTime::Long));
        assert_eq!(
            CastTime::parse("1 immediate action"),
            Some(CastTime::Immediate)
        );
        assert_eq!(CastTime::parse("soon"), None);
    }

    #[test]
    fn ranges_in_feet() {
        // CRB — Magic: Range.
        assert_eq!(SpellRange::Close.feet(1), 25);
        assert_eq!(SpellRange::Close.feet(5), 35);
        assert_eq!(SpellRange::Medium.feet(5), 150);
        assert_eq!(SpellRange::Long.feet(5), 600);
    }

    #[test]
    fn scaling_magic_missile_and_fireball() {
        // Magic missile: one more missile per two levels beyond 1st, at most 4 more.
        let mm = Scaling {
            amount: 1,
            per_levels: 2,
            from_level: Some(1),
            max: Some(4),
        };
        assert_eq!([1, 2, 3, 4, 9, 20].map(|cl| mm.at(cl)), [0, 0, 1, 1, 4, 4]);
        let fb = Scaling {
            amount: 1,
            per_levels: 1,
            from_level: None,
            max: Some(10),
        };
        assert_eq!([5, 10, 15].map(|cl| fb.at(cl)), [5, 10, 10]);
    }

    #[test]
    fn keys() {
        assert_eq!(spell_key("Cure Light Wounds"), "cure_light_wounds");
        assert_eq!(spell_key("Bull's Strength"), "bull_s_strength");
        assert_eq!(spell_key("Summon Monster I"), "summon_monster_i");
    }
}
