//! Combatant data: the JSON schema of `data/monsters/*.json` and `data/pcs/*.json`.
//!
//! The schema is the seed's "Monstre (JSON)" format plus the fields the seed added over time
//! (`count`, `natural`, `secondary`, `reach_ft`, `two_handed`, `reach_weapon`, `firearm`, `dr`,
//! `resistances`, `immunities`, `spell_resistance`, `creature_type`, `aware`, `features`,
//! `source`) and two of ours: `player_character` (explicit PC marker, replaces the seed's guess
//! from `source`) and `thrown` (thrown weapons are limited to 5 range increments).
//!
//! Every struct is `deny_unknown_fields`: a typo in a field name is an error naming the file and
//! the field path (a typo must never silently change a fight). Numbers are **final** stat-block
//! values: size modifiers are already included in `ac` and `attack_bonus` (CRB — Combat: Size
//! Modifiers) and the engine never applies them again.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// Error while loading a combatant JSON file. Display names the file, the field path and why.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// The file could not be read.
    #[error("{file}: cannot read: {source}")]
    Io {
        file: String,
        #[source]
        source: std::io::Error,
    },
    /// The JSON is malformed, has an unknown field, or a field of the wrong type.
    #[error("{file}: field `{field}`: {reason}")]
    Field {
        file: String,
        field: String,
        reason: String,
    },
}

impl DataError {
    pub(crate) fn field(file: &str, field: impl Into<String>, reason: impl Into<String>) -> Self {
        DataError::Field {
            file: file.to_string(),
            field: field.into(),
            reason: reason.into(),
        }
    }
}

/// PF1e size categories (CRB — Combat: Big and Little Creatures in Combat, Table 8-4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Size {
    Fine,
    Diminutive,
    Tiny,
    Small,
    Medium,
    Large,
    Huge,
    Gargantuan,
    Colossal,
}

impl Size {
    /// Side of the square footprint, in squares (Fine–Medium 1, Large 2, Huge 3,
    /// Gargantuan 4, Colossal 6). Creatures smaller than Small take up less than a square;
    /// we model them as one square (co-occupation is not modelled yet).
    pub fn footprint_side(self) -> i32 {
        match self {
            Size::Fine | Size::Diminutive | Size::Tiny | Size::Small | Size::Medium => 1,
            Size::Large => 2,
            Size::Huge => 3,
            Size::Gargantuan => 4,
            Size::Colossal => 6,
        }
    }

    /// Natural reach in feet for a tall creature of this size (CRB Table 8-4): Tiny and smaller
    /// 0, Small/Medium 5, Large 10, Huge 15, Gargantuan 20, Colossal 30.
    pub fn natural_reach_ft(self) -> i32 {
        match self {
            Size::Fine | Size::Diminutive | Size::Tiny => 0,
            Size::Small | Size::Medium => 5,
            Size::Large => 10,
            Size::Huge => 15,
            Size::Gargantuan => 20,
            Size::Colossal => 30,
        }
    }

    /// Special size modifier to CMB and CMD (CRB — Combat: Combat Maneuvers).
    pub fn cmb_modifier(self) -> i32 {
        match self {
            Size::Fine => -8,
            Size::Diminutive => -4,
            Size::Tiny => -2,
            Size::Small => -1,
            Size::Medium => 0,
            Size::Large => 1,
            Size::Huge => 2,
            Size::Gargantuan => 4,
            Size::Colossal => 8,
        }
    }
}

/// Ability scores. `con_score` is `null` for creatures without a Constitution score (undead,
/// constructs — Bestiary: Creature Types).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Abilities {
    pub str_score: Option<i32>,
    pub dex_score: Option<i32>,
    pub con_score: Option<i32>,
    pub int_score: Option<i32>,
    pub wis_score: Option<i32>,
    pub cha_score: Option<i32>,
}

/// Ability modifier of a score: `floor((score - 10) / 2)` (CRB — Getting Started: Ability
/// Modifiers). A missing score has modifier 0.
pub fn ability_modifier(score: Option<i32>) -> i32 {
    match score {
        Some(s) => (s - 10).div_euclid(2),
        None => 0,
    }
}

impl Abilities {
    /// Dexterity modifier.
    pub fn dex_mod(&self) -> i32 {
        ability_modifier(self.dex_score)
    }
    /// Constitution modifier (0 without a Con score).
    pub fn con_mod(&self) -> i32 {
        ability_modifier(self.con_score)
    }
    /// Strength modifier (0 without a Str score).
    pub fn str_mod(&self) -> i32 {
        ability_modifier(self.str_score)
    }
}

/// Armor Class profile, final values (CRB — Combat: Armor Class).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcProfile {
    pub total: i32,
    pub touch: i32,
    pub flat_footed: i32,
}

/// Base saving throw totals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Saves {
    pub fort: i32,
    #[serde(rename = "ref")]
    pub reflex: i32,
    pub will: i32,
}

/// Attack kind: `melee`, `ranged` or `touch` (a touch attack with `range_increment_ft` is a
/// ranged touch attack; without, a melee touch attack — CRB — Combat: Touch Attacks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttackKind {
    Melee,
    Ranged,
    Touch,
}

/// One damage component: a dice formula and its damage types
/// (`slashing`/`piercing`/`bludgeoning` are physical; `fire`, `cold`, `acid`, `electricity`,
/// `sonic` are energy; other types are untyped for DR purposes).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DamageComponent {
    /// Dice notation: `NdM`, `NdM+K`, `NdM-K`, `K`, sums like `1d6+1d4+2`.
    pub formula: String,
    /// Damage types of this component.
    #[serde(default)]
    pub types: Vec<String>,
    /// Precision damage (sneak attack…): never multiplied on a critical hit.
    #[serde(default)]
    pub precision: bool,
}

/// One attack line of a stat block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttackSpec {
    /// Stable weapon id (snake_case); defaults to the name with spaces as `_`.
    #[serde(default)]
    pub id: Option<String>,
    pub name: String,
    pub kind: AttackKind,
    /// Final attack bonus of the first attack (BAB + ability + size + enhancement…).
    pub attack_bonus: i32,
    pub damage: Vec<DamageComponent>,
    /// Flat bonus added to the first damage component (rolled and multiplied with the dice).
    #[serde(default)]
    pub damage_bonus: i32,
    /// Lowest natural d20 roll that threatens a critical hit (20 → 20, 19 → 19–20).
    #[serde(default = "default_crit_range")]
    pub crit_range: i32,
    /// Critical multiplier (×2, ×3, ×4).
    #[serde(default = "default_crit_mult")]
    pub crit_mult: i32,
    /// Range increment in feet (ranged and ranged-touch attacks only).
    #[serde(default)]
    pub range_increment_ft: Option<i32>,
    /// Number of swings of this attack in one action ("2 claws").
    #[serde(default = "default_count")]
    pub count: u32,
    /// Natural weapon: never gets iterative attacks (CRB — Combat: Natural Attacks).
    #[serde(default)]
    pub natural: bool,
    /// Secondary natural attack (Bestiary — Universal Monster Rules: Natural Attacks). Its
    /// `attack_bonus` is the printed one, which already includes the −5 of secondary attacks.
    #[serde(default)]
    pub secondary: bool,
    /// Reach of this attack in feet; for a natural attack it is the creature's natural reach.
    #[serde(default)]
    pub reach_ft: Option<i32>,
    /// Held in two hands (Power Attack +3X).
    #[serde(default)]
    pub two_handed: bool,
    /// Held in the off hand (CRB — Combat: Two-Weapon Fighting): a full attack with another
    /// manufactured weapon adds this weapon's off-hand attacks (one; two with Improved, three
    /// with Greater Two-Weapon Fighting) and takes the two-weapon penalties. Its
    /// `attack_bonus` and `damage_bonus`/formula are those of a single attack with it (no
    /// two-weapon penalty, full Str to damage): the engine applies the penalties and the ½ Str
    /// of off-hand damage (Double Slice: full Str) — see `data/README.md`.
    #[serde(default)]
    pub off_hand: bool,
    /// A light weapon (CRB — Equipment: Light, One-Handed, and Two-Handed Melee Weapons): a
    /// light off-hand weapon lessens the two-weapon penalties; Weapon Finesse applies to it.
    #[serde(default)]
    pub light: bool,
    /// Weapon with the reach quality: threatens only beyond natural reach, up to twice it.
    #[serde(default)]
    pub reach_weapon: bool,
    /// Firearm: resolves against touch AC within its first range increment.
    #[serde(default)]
    pub firearm: bool,
    /// Thrown weapon: usable up to 5 range increments instead of 10.
    #[serde(default)]
    pub thrown: bool,
    /// Shots or throws carried (arrows, javelins), from the stat block's gear; `None` = not
    /// counted. Each ranged attack uses one; at 0 the attack is unavailable
    /// (`out_of_ammunition`). Recovering thrown weapons is not modelled.
    #[serde(default)]
    pub ammunition: Option<u32>,
    /// Special materials/alignments the weapon counts as for DR (`magic`, `silver`,
    /// `cold iron`, `adamantine`, `good`, `evil`, `lawful`, `chaotic`). Its physical damage
    /// types are added automatically.
    #[serde(default)]
    pub dr_bypass: Vec<String>,
    /// Hardness of the item for sunder (CRB — Table: Hardness and Hit Points of weapons);
    /// default 10 (metal) for melee weapons, 5 for ranged ones.
    #[serde(default)]
    pub hardness: Option<i32>,
    /// Hit points of the item for sunder; default 10 for two-handed weapons, 5 otherwise.
    #[serde(default)]
    pub item_hp: Option<i32>,
    /// A manufactured weapon that starts the combat sheathed: not in hand, so it neither
    /// attacks nor threatens until drawn (`draw_weapon`; CRB — Actions in Combat: Draw or
    /// Sheathe a Weapon). Default `false`: every weapon of a stat block starts in hand. Not
    /// allowed on a natural attack.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sheathed: bool,
}

fn default_crit_range() -> i32 {
    20
}
fn default_crit_mult() -> i32 {
    2
}
fn default_count() -> u32 {
    1
}

/// Damage reduction `amount/bypass` (CRB — Glossary: Damage Reduction). All bypass components
/// are required ("DR 15/bludgeoning and magic"); an empty list is DR X/—.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DamageReduction {
    pub amount: i32,
    #[serde(default)]
    pub bypass: Vec<String>,
}

/// A combatant as described by its JSON file (immutable template; runtime state lives in the
/// episode).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CombatantSpec {
    pub name: String,
    #[serde(default = "default_level")]
    pub level: i32,
    pub size: Size,
    #[serde(default)]
    pub cr: Option<String>,
    #[serde(default)]
    pub xp: Option<i64>,
    /// Where the numbers come from, e.g. "PF1e SRD — Bestiary: Goblin".
    pub source: String,
    #[serde(default)]
    pub license: Option<String>,
    /// `true` for player characters: never affected by `--simple-monster-death`.
    #[serde(default)]
    pub player_character: bool,
    pub abilities: Abilities,
    pub hp_max: i32,
    pub ac: AcProfile,
    pub bab: i32,
    pub initiative_mod: i32,
    pub speed_land_ft: i32,
    #[serde(default)]
    pub speed_fly_ft: Option<i32>,
    pub saves: Saves,
    pub attacks: Vec<AttackSpec>,
    #[serde(default)]
    pub dr: Option<DamageReduction>,
    /// Energy resistance by type, e.g. `{"fire": 10}`.
    #[serde(default)]
    pub resistances: BTreeMap<String, i32>,
    /// Damage types the creature is immune to.
    #[serde(default)]
    pub immunities: Vec<String>,
    #[serde(default)]
    pub spell_resistance: i32,
    /// Bestiary creature type (`humanoid`, `undead`, `construct`, `animal`, …).
    #[serde(default)]
    pub creature_type: Option<String>,
    /// Aware of its opponents at the start of combat (surprise round; default true).
    #[serde(default = "default_true")]
    pub aware: bool,
    /// Feat names (e.g. "Combat Reflexes"). See `feats` in the engine for what each does.
    #[serde(default)]
    pub feats: Vec<String>,
    /// Special abilities and qualities by name (e.g. "ferocity", "darkvision 60 ft.").
    #[serde(default)]
    pub features: Vec<String>,
    /// Free-form notes (what the file simplifies).
    #[serde(default)]
    pub notes: Option<String>,
    /// Rule traits from the creature's type/subtype or abilities, transcribed as data:
    /// `immune_critical` (not subject to critical hits), `immune_flanking` (cannot be
    /// flanked), `immune_precision` (no extra damage from precision-based attacks such as
    /// sneak attack) — e.g. Bestiary: Creature Types, elemental and ooze traits;
    /// `cannot_be_tripped`, `no_legs` (an ooze, a snake: cannot be tripped — CRB — Combat:
    /// Trip). PF1e undead and constructs are **not** immune to these (that was D&D 3.5).
    #[serde(default)]
    pub traits: Vec<String>,
    /// Conditions the combatant starts with (e.g. `{"name": "prone"}`,
    /// `{"name": "stunned", "rounds": 2}`): see `engine/src/effects/conditions.rs`.
    #[serde(default)]
    pub conditions: Vec<InitialCondition>,
    /// `true` (default): the printed numbers already include static feats (Weapon Focus,
    /// Dodge, Improved Critical…), as in every Bestiary stat block; `false`: the engine applies
    /// them (see `engine/src/content/feats.rs`).
    #[serde(default = "default_true")]
    pub printed_feats_included: bool,
    /// Printed Combat Maneuver Bonus (final, as in the stat block); absent = computed as
    /// BAB + Str (Dex for Tiny and smaller) + special size modifier (CRB — Combat Maneuvers).
    #[serde(default)]
    pub cmb: Option<i32>,
    /// Printed Combat Maneuver Defense; absent = 10 + BAB + Str + Dex + special size modifier.
    #[serde(default)]
    pub cmd: Option<i32>,
    /// Per-maneuver printed CMB ("+6 grapple" → `{"grapple": 6}`); keys: `trip`, `disarm`,
    /// `bull_rush`, `sunder`, `grapple`, `escape`, `overrun`, `dirty_trick`, `steal`,
    /// `reposition`, `drag`.
    #[serde(default)]
    pub cmb_vs: BTreeMap<String, i32>,
    /// Per-maneuver printed CMD ("14 (18 vs. trip)" → `cmd: 14, cmd_vs: {"trip": 18}`).
    #[serde(default)]
    pub cmd_vs: BTreeMap<String, i32>,
    /// Escape Artist skill bonus, used to escape a grapple when better than the CMB.
    #[serde(default)]
    pub escape_artist: Option<i32>,
    /// Caster level for its spells and spell-like abilities (CRB — Magic: Caster Level);
    /// absent = `level`.
    #[serde(default)]
    pub caster_level: Option<i32>,
    /// The class list its spells' levels are read from (`cleric`, `wizard`, `sorcerer`,
    /// `druid`, `bard`, `witch`, `magus`…); absent = each spell's lowest level.
    #[serde(default)]
    pub caster_class: Option<String>,
    /// The ability of its spell DCs and concentration checks: `int`, `wis` or `cha`.
    #[serde(default)]
    pub casting_ability: Option<CastingAbility>,
    /// Spells known or prepared, by name (see [`KnownSpell`]); `data/spells/<key>.json`.
    #[serde(default)]
    pub spells: Vec<KnownSpell>,
    /// Spell slots per encounter by spell level (`{"1": 4, "2": 3}`): final values, bonus
    /// spells included by the file's author (the seed's convention); level 0 is unlimited.
    #[serde(default)]
    pub spell_slots: BTreeMap<String, u32>,
    /// Printed concentration bonus (the stat block's "concentration +N"); absent = caster
    /// level + casting ability modifier (CRB — Magic: Concentration).
    #[serde(default)]
    pub concentration_bonus: Option<i32>,
    /// Spell-like abilities (Bestiary: Universal Monster Rules — Spell-Like Abilities).
    #[serde(default)]
    pub spell_like_abilities: Vec<SpellLikeAbility>,
    /// Class features the engine does not model yet (channel energy, bardic performance,
    /// hexes…): reported as not modelled, like unknown feats.
    #[serde(default)]
    pub class_features: Vec<String>,
    /// The spells of `spells` then `spell_like_abilities`, resolved against a spell registry
    /// ([`CombatantSpec::resolve_spells`]).
    #[serde(skip)]
    spellbook: Option<Vec<CasterSpell>>,
    /// What the rules read of the names above, resolved once (on first use): see
    /// [`CombatantSpec::resolved`].
    #[serde(skip)]
    resolved: std::sync::OnceLock<Resolved>,
}

/// A casting ability (CRB — Magic: Spells; the spell DC is 10 + spell level + its modifier).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CastingAbility {
    Int,
    Wis,
    Cha,
}

/// A spell a caster knows or has prepared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KnownSpell {
    /// The spell's name ("magic missile").
    pub name: String,
    /// Its level for this caster; absent = the level on `caster_class`'s list.
    #[serde(default)]
    pub level: Option<u8>,
    /// Prepared copies (prepared casters: each cast spends one, no slot); absent = cast from
    /// `spell_slots` of its level (spontaneous casters; level 0 unlimited).
    #[serde(default)]
    pub prepared: Option<u32>,
    /// Printed save DC (a stat block's); absent = 10 + level + casting ability modifier.
    #[serde(default)]
    pub dc: Option<i32>,
}

/// A spell-like ability: a spell cast without slots or components, `per_day` times (or at
/// will), at its own caster level (Bestiary: Spell-Like Abilities).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpellLikeAbility {
    pub name: String,
    /// Uses per day (per encounter here); absent with `at_will` false = 1.
    #[serde(default)]
    pub per_day: Option<u32>,
    #[serde(default)]
    pub at_will: bool,
    /// Absent = the creature's `caster_level`.
    #[serde(default)]
    pub caster_level: Option<i32>,
    /// Printed save DC; absent = 10 + spell level + Cha modifier.
    #[serde(default)]
    pub dc: Option<i32>,
    /// Its level; absent = the spell's lowest level.
    #[serde(default)]
    pub level: Option<u8>,
}

/// How a caster's spell is paid for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SpellUses {
    /// A slot of its level (level 0: unlimited).
    Slot,
    /// Prepared copies or a spell-like ability's uses per day.
    Counted(u32),
    /// A cantrip or an at-will spell-like ability.
    Unlimited,
}

/// One spell of a caster's spellbook, resolved: the spell, its level, DC, caster level and
/// what a cast costs. Its index is the spell's index in the action space's `cast_spell`
/// blocks.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CasterSpell {
    pub spell: Arc<crate::content::spells::SpellSpec>,
    /// Spell level for this caster (0–9).
    pub level: u8,
    /// Caster level.
    pub caster_level: i32,
    /// Save DC.
    pub dc: i32,
    /// The DC is the stat block's printed one (final: Spell Focus already in it).
    pub dc_printed: bool,
    pub uses: SpellUses,
    /// A spell-like ability (no slot, no components; concentration and AoO still apply).
    pub spell_like: bool,
    /// The creature its `summon` effect brings and how many at most (the count's maximum):
    /// the encounter reserves that many combatant slots for it.
    #[serde(skip)]
    pub summon: Option<(Arc<CombatantSpec>, u32)>,
}

/// The rule traits of a stat block (`traits`), as flags.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Traits {
    /// Not subject to critical hits.
    pub immune_critical: bool,
    /// Cannot be flanked.
    pub immune_flanking: bool,
    /// No extra damage from precision-based attacks (sneak attack).
    pub immune_precision: bool,
    /// Cannot be tripped.
    pub cannot_be_tripped: bool,
    /// Has no legs (oozes, snakes…), so cannot be tripped (CRB — Combat: Trip: "Some
    /// creatures—such as oozes, creatures without legs, and flying creatures—cannot be
    /// tripped").
    pub no_legs: bool,
}

/// One damage component of an attack as the rules roll it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedDamage {
    /// The parsed `formula`.
    pub dice: crate::dice::DiceExpr,
    /// Physical damage (no type, or bludgeoning, piercing or slashing): subject to DR.
    pub physical: bool,
}

/// What the rules read of a stat block's names and formulas, resolved once: its known feats,
/// rule traits, sneak attack dice, the modifiers its feats give, its attacks' parsed damage
/// and trip riders. Built on first use from the validated spec (see
/// [`CombatantSpec::resolved`]), so no rule parses a formula or compares a name per roll.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    pub feats: crate::content::feats::FeatSet,
    pub traits: Traits,
    /// Sneak attack d6 (CRB — Classes: Rogue): a `features` entry "sneak attack +Nd6" (N
    /// dice, at most 20), or "sneak attack" alone: (level + 1) / 2 dice.
    pub sneak_dice: u32,
    /// The modifiers its feats give to its own rolls ([`crate::content::feats::modifiers`]).
    pub feat_mods: Vec<crate::effects::Modifier>,
    /// Per attack (list order), per damage component.
    pub damage: Vec<Vec<ResolvedDamage>>,
    /// Per attack: it carries the Trip universal monster rule (Bestiary — Universal Monster
    /// Rules: Trip): a feature `trip` (every natural melee attack) or `trip (bite)` (the named
    /// attack).
    pub trip_rider: Vec<bool>,
    /// Spell slots per encounter by spell level (index 0 unused), from `spell_slots`.
    pub slots: [u32; 10],
}

/// A condition at the start of combat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InitialCondition {
    /// A condition name of `engine/src/effects/conditions.rs` (`flat-footed` = `flat_footed`).
    pub name: String,
    /// The bearer's turns it lasts; absent = until removed.
    #[serde(default)]
    pub rounds: Option<u32>,
    /// `bleeding` only: hit points lost at the start of each of its turns, dice notation
    /// rolled each turn (`"1d6"`, `"2"`; CRB — Appendix: Conditions, Bleed; Bestiary —
    /// Universal Monster Rules, Bleed); absent = 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub amount: Option<String>,
}

/// Physical damage types (subject to DR; multiplied on a critical hit).
pub const PHYSICAL: [&str; 3] = ["bludgeoning", "piercing", "slashing"];

/// Most sneak attack dice a `features` entry may give (`sneak attack +20d6`, a 39th-level
/// rogue's; CRB — Classes: Rogue gives +10d6 at 19th).
pub const MAX_SNEAK_DICE: u32 = 20;

/// The dice count written in a `sneak attack +Nd6` feature, as written (`None`: no number).
fn sneak_dice_written(feature: &str) -> Option<String> {
    let l = feature.to_lowercase();
    let rest = l.trim().strip_prefix("sneak attack")?;
    let rest = rest.trim().trim_start_matches(['+', '(']).trim();
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    (!digits.is_empty()).then_some(digits)
}

/// Sneak attack dice of a stat block (see [`Resolved::sneak_dice`]).
fn sneak_dice(s: &CombatantSpec) -> u32 {
    for f in &s.features {
        let l = f.to_lowercase();
        let Some(rest) = l.trim().strip_prefix("sneak attack") else {
            continue;
        };
        let rest = rest.trim().trim_start_matches(['+', '(']).trim();
        if let Some(n) = rest
            .split("d6")
            .next()
            .and_then(|n| n.trim().parse::<u32>().ok())
        {
            // Validated at load: 1..=MAX_SNEAK_DICE (a hand-built spec is capped).
            return n.min(MAX_SNEAK_DICE);
        }
        return (s.level.max(0) as u32).div_ceil(2);
    }
    0
}

/// Whether attack `w` of `s` carries the Trip universal monster rule (see
/// [`Resolved::trip_rider`]).
fn trip_rider(s: &CombatantSpec, w: &AttackSpec) -> bool {
    s.features.iter().any(|f| {
        let (base, arg) = crate::content::feats::split_name(f);
        if !base.eq_ignore_ascii_case("trip") {
            return false;
        }
        match arg {
            Some(name) => {
                let n = name.to_lowercase();
                w.weapon_id().to_lowercase() == n || w.name.to_lowercase() == n
            }
            None => w.natural && !w.is_ranged(),
        }
    })
}

/// Known values of `traits`.
pub const KNOWN_TRAITS: [&str; 5] = [
    "immune_critical",
    "immune_flanking",
    "immune_precision",
    "cannot_be_tripped",
    "no_legs",
];

/// Read a data file of at most `max` bytes ([`crate::content::read_text_bounded`]); errors
/// name the file: [`DataError::Io`], or [`DataError::Field`] `<root>` for a file over the
/// limit or not UTF-8.
pub(crate) fn read_data_file(path: &Path, max: usize) -> Result<String, DataError> {
    let file = path.display().to_string();
    crate::content::read_text_bounded(path, max).map_err(|e| match e {
        crate::content::ReadError::Io(source) => DataError::Io { file, source },
        other => DataError::field(&file, "<root>", other.to_string()),
    })
}

/// Largest combatant file accepted, in bytes.
pub const MAX_TEXT_BYTES: usize = 1 << 20;
/// Longest list accepted in a combatant (attacks, feats, features…).
pub const MAX_LIST_LEN: usize = 256;
/// Largest magnitude of one damage formula (before multiplication).
pub const MAX_DAMAGE: i32 = 10_000;

fn default_level() -> i32 {
    1
}
fn default_true() -> bool {
    true
}

impl AttackSpec {
    /// Hardness for sunder: the JSON value, else 10 for melee weapons, 5 for ranged ones.
    pub fn item_hardness(&self) -> i32 {
        self.hardness
            .unwrap_or(if self.is_ranged() { 5 } else { 10 })
    }

    /// Item hit points for sunder: the JSON value, else 10 two-handed, 5 otherwise.
    pub fn item_hit_points(&self) -> i32 {
        self.item_hp.unwrap_or(if self.two_handed { 10 } else { 5 })
    }

    /// The weapon id: `id` if given, else the name lower-cased with spaces as `_`.
    pub fn weapon_id(&self) -> String {
        match &self.id {
            Some(id) => id.clone(),
            None => self.name.to_lowercase().replace(' ', "_"),
        }
    }

    /// Whether this attack is resolved as a ranged attack (ranged, or touch with a range
    /// increment).
    pub fn is_ranged(&self) -> bool {
        match self.kind {
            AttackKind::Ranged => true,
            AttackKind::Touch => self.range_increment_ft.is_some(),
            AttackKind::Melee => false,
        }
    }
}

impl CombatantSpec {
    /// The spec's names and formulas resolved for the rules (computed once, on first use).
    pub fn resolved(&self) -> &Resolved {
        self.resolved.get_or_init(|| {
            let traits = |t: &str| self.traits.iter().any(|x| x == t);
            Resolved {
                feats: crate::content::feats::FeatSet::of(&self.feats),
                traits: Traits {
                    immune_critical: traits("immune_critical"),
                    immune_flanking: traits("immune_flanking"),
                    immune_precision: traits("immune_precision"),
                    cannot_be_tripped: traits("cannot_be_tripped"),
                    no_legs: traits("no_legs"),
                },
                sneak_dice: sneak_dice(self),
                feat_mods: crate::content::feats::modifiers(self),
                damage: self
                    .attacks
                    .iter()
                    .map(|a| {
                        a.damage
                            .iter()
                            .map(|c| ResolvedDamage {
                                // Validated when the combatant was loaded; a spec built
                                // otherwise rolls an unparsable formula as 0.
                                dice: c
                                    .formula
                                    .parse()
                                    .unwrap_or(crate::dice::DiceExpr { terms: Vec::new() }),
                                physical: c.types.is_empty()
                                    || c.types.iter().any(|t| PHYSICAL.contains(&t.as_str())),
                            })
                            .collect()
                    })
                    .collect(),
                trip_rider: self.attacks.iter().map(|w| trip_rider(self, w)).collect(),
                slots: std::array::from_fn(|l| {
                    if l == 0 {
                        0
                    } else {
                        self.spell_slots.get(&l.to_string()).copied().unwrap_or(0)
                    }
                }),
            }
        })
    }

    /// Maximum hit points in play: `hp_max`, plus Toughness's hit points when the printed
    /// numbers do not include static feats (CRB — Feats: Toughness;
    /// [`crate::content::feats::toughness_hp`]).
    pub fn max_hp(&self) -> i32 {
        self.hp_max + crate::content::feats::toughness_hp(self)
    }

    /// Whether the combatant has the feat (any spelling of its name in `feats`).
    pub fn has_feat(&self, feat: crate::content::feats::Feat) -> bool {
        self.resolved().feats.contains(feat)
    }

    /// Combat Maneuver Bonus for `family` (CRB — Combat: Combat Maneuver Bonus): the printed
    /// per-maneuver value, else the printed CMB, else BAB + Str modifier (Dex modifier for Tiny
    /// and smaller) + special size modifier.
    pub fn base_cmb(&self, family: &str) -> i32 {
        if let Some(v) = self.cmb_vs.get(family) {
            return *v;
        }
        if let Some(v) = self.cmb {
            return v;
        }
        let ability = if self.size <= Size::Tiny {
            self.abilities.dex_mod()
        } else {
            self.abilities.str_mod()
        };
        self.bab + ability + self.size.cmb_modifier() + self.improved_bonus(family)
    }

    /// +2 to CMB and CMD for a maneuver whose Improved feat the creature has (CRB — Feats:
    /// Improved Bull Rush…), when the values are computed rather than printed.
    fn improved_bonus(&self, family: &str) -> i32 {
        let feat = crate::actions::Maneuver::ALL
            .into_iter()
            .find(|m| m.family() == family)
            .and_then(|m| m.improved_feat());
        match feat {
            Some(f) if self.has_feat(f) => 2,
            _ => 0,
        }
    }

    /// Combat Maneuver Defense for `family` (CRB — Combat: Combat Maneuver Defense): the
    /// printed per-maneuver value, else the printed CMD, else 10 + BAB + Str + Dex + special
    /// size modifier (+2 with the Improved feat, +1 with Dodge when the printed numbers
    /// include static feats: [`CombatantSpec::dodge_in_printed_numbers`]) — the value a
    /// stat block would print, before any condition (denied Dex: `rules::maneuvers::cmd_of`).
    pub fn base_cmd(&self, family: &str) -> i32 {
        if let Some(v) = self.cmd_vs.get(family) {
            return *v;
        }
        if let Some(v) = self.cmd {
            return v;
        }
        10 + self.bab
            + self.abilities.str_mod()
            + self.abilities.dex_mod()
            + self.size.cmb_modifier()
            + self.improved_bonus(family)
            + self.dodge_in_printed_numbers()
    }

    /// The Dodge feat's +1 dodge bonus (CRB — Feats: Dodge) that [`CombatantSpec::base_cmd`]
    /// holds: 1 for a creature with Dodge whose printed numbers include static feats (a
    /// Bestiary CMD counts it, and so does the computed one, to agree), 0 otherwise (with
    /// `printed_feats_included: false` the feat is an AC modifier the CMD collects like any
    /// dodge bonus).
    pub fn dodge_in_printed_numbers(&self) -> i32 {
        i32::from(self.printed_feats_included && self.has_feat(crate::content::feats::Feat::Dodge))
    }

    /// Parse a combatant from JSON text. `origin` names the file in errors.
    ///
    /// # Errors
    /// [`DataError::Field`] naming the field path (`attacks[1].crit_range`) and the reason for
    /// malformed JSON, unknown fields, wrong types and values out of range.
    pub fn from_json_str(text: &str, origin: &str) -> Result<CombatantSpec, DataError> {
        if text.len() > MAX_TEXT_BYTES {
            return Err(DataError::field(
                origin,
                "<root>",
                format!("the file is {} bytes; at most {MAX_TEXT_BYTES}", text.len()),
            ));
        }
        let de = &mut serde_json::Deserializer::from_str(text);
        let spec: CombatantSpec = serde_path_to_error::deserialize(&mut *de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            let field = if path == "." {
                "<root>".to_string()
            } else {
                path
            };
            DataError::field(origin, field, inner.to_string())
        })?;
        de.end().map_err(|e| {
            DataError::field(
                origin,
                "<root>",
                format!("trailing characters after the JSON value: {e}"),
            )
        })?;
        spec.validate(origin)?;
        Ok(spec)
    }

    /// Read and parse a combatant JSON file.
    ///
    /// # Errors
    /// [`DataError::Io`] if unreadable, else as [`CombatantSpec::from_json_str`].
    pub fn load(path: &Path) -> Result<CombatantSpec, DataError> {
        let file = path.display().to_string();
        let text = read_data_file(path, MAX_TEXT_BYTES)?;
        let mut spec = Self::from_json_str(&text, &file)?;
        if spec.has_spells() {
            let reg = crate::content::spells::SpellRegistry::for_combatant_file(path)?;
            spec.resolve_spells(&reg, &file)?;
        }
        Ok(spec)
    }

    /// Whether it names any spell or spell-like ability.
    pub fn has_spells(&self) -> bool {
        !self.spells.is_empty() || !self.spell_like_abilities.is_empty()
    }

    /// Caster level (`caster_level`, else `level`).
    pub fn caster_level(&self) -> i32 {
        self.caster_level.unwrap_or(self.level)
    }

    /// The casting ability's modifier (0 without one).
    pub fn casting_modifier(&self) -> i32 {
        let a = &self.abilities;
        ability_modifier(match self.casting_ability {
            Some(CastingAbility::Int) => a.int_score,
            Some(CastingAbility::Wis) => a.wis_score,
            Some(CastingAbility::Cha) => a.cha_score,
            None => None,
        })
    }

    /// Concentration check bonus (CRB — Magic: Concentration): the printed one, else caster
    /// level + casting ability modifier.
    pub fn concentration(&self) -> i32 {
        self.concentration_bonus
            .unwrap_or_else(|| self.caster_level() + self.casting_modifier())
    }

    /// Its resolved spells (`spells`, then `spell_like_abilities`); empty until
    /// [`CombatantSpec::resolve_spells`].
    pub fn spellbook(&self) -> &[CasterSpell] {
        self.spellbook.as_deref().unwrap_or(&[])
    }

    /// Whether its spell names were resolved (or it has none).
    pub fn spells_resolved(&self) -> bool {
        self.spellbook.is_some() || !self.has_spells()
    }

    /// Slots of spell level `level` (0: unlimited = `None`).
    pub fn slots_of(&self, level: u8) -> Option<u32> {
        if level == 0 {
            return None;
        }
        Some(
            self.resolved()
                .slots
                .get(usize::from(level))
                .copied()
                .unwrap_or(0),
        )
    }

    /// Resolve `spells` and `spell_like_abilities` against `reg` (DC = 10 + level + casting
    /// ability modifier, or the printed one; Cha for spell-like abilities without a casting
    /// ability). `origin` names the file in errors.
    ///
    /// # Errors
    /// [`DataError::Field`] naming `spells[i].name` for an unknown spell.
    pub fn resolve_spells(
        &mut self,
        reg: &crate::content::spells::SpellRegistry,
        origin: &str,
    ) -> Result<(), DataError> {
        let unknown = |f: String, name: &str| {
            DataError::field(
                origin,
                f,
                format!(
                    "unknown spell `{name}`: no {}.json in the spell registry ({} spells)",
                    crate::content::spells::spell_key(name),
                    reg.len()
                ),
            )
        };
        let cl = self.caster_level();
        let mut book = Vec::new();
        let summon_of = |spell: &crate::content::spells::SpellSpec,
                         f: String|
         -> Result<Option<(Arc<CombatantSpec>, u32)>, DataError> {
            for e in &spell.effects {
                if let crate::content::spells::SpellEffect::Summon { creature, count } = e {
                    let spec = reg.summon(creature).ok_or_else(|| {
                        DataError::field(
                            origin,
                            f.clone(),
                            format!(
                                "{}: the summoned creature `{creature}` is not loaded (no monsters/{creature}.json)",
                                spell.name
                            ),
                        )
                    })?;
                    let max = count
                        .parse::<crate::dice::DiceExpr>()
                        .map(|d| d.max())
                        .unwrap_or(1)
                        .clamp(1, 4) as u32;
                    return Ok(Some((spec.clone(), max)));
                }
            }
            Ok(None)
        };
        for (i, k) in self.spells.iter().enumerate() {
            let spell = reg
                .get(&k.name)
                .ok_or_else(|| unknown(format!("spells[{i}].name"), &k.name))?
                .clone();
            let level = k
                .level
                .unwrap_or_else(|| spell.level_for(self.caster_class.as_deref()));
            let uses = match (k.prepared, level) {
                (Some(n), _) => SpellUses::Counted(n),
                (None, 0) => SpellUses::Unlimited,
                (None, _) => SpellUses::Slot,
            };
            book.push(CasterSpell {
                summon: summon_of(&spell, format!("spells[{i}].name"))?,
                dc_printed: k.dc.is_some(),
                dc: k
                    .dc
                    .unwrap_or(10 + i32::from(level) + self.casting_modifier()),
                spell,
                level,
                caster_level: cl,
                uses,
                spell_like: false,
            });
        }
        for (i, k) in self.spell_like_abilities.iter().enumerate() {
            let spell = reg
                .get(&k.name)
                .ok_or_else(|| unknown(format!("spell_like_abilities[{i}].name"), &k.name))?
                .clone();
            let level = k.level.unwrap_or_else(|| spell.min_level());
            let cha = if self.casting_ability.is_some() {
                self.casting_modifier()
            } else {
                ability_modifier(self.abilities.cha_score)
            };
            book.push(CasterSpell {
                summon: summon_of(&spell, format!("spell_like_abilities[{i}].name"))?,
                dc_printed: k.dc.is_some(),
                dc: k.dc.unwrap_or(10 + i32::from(level) + cha),
                spell,
                level,
                caster_level: k.caster_level.unwrap_or(cl),
                uses: if k.at_will {
                    SpellUses::Unlimited
                } else {
                    SpellUses::Counted(k.per_day.unwrap_or(1))
                },
                spell_like: true,
            });
        }
        self.spellbook = Some(book);
        self.resolved = std::sync::OnceLock::new();
        Ok(())
    }

    /// Semantic checks beyond types: ranges of numbers, dice formulas, weapon ids, the name.
    fn validate(&self, origin: &str) -> Result<(), DataError> {
        let err = |f: String, r: &str| Err(DataError::field(origin, f, r));
        // Bounds far beyond any published creature, so arithmetic can never overflow.
        let bounded = |f: &str, v: i64, lo: i64, hi: i64| -> Result<(), DataError> {
            if (lo..=hi).contains(&v) {
                Ok(())
            } else {
                Err(DataError::field(
                    origin,
                    f,
                    format!("must be in {lo}..={hi}, got {v}"),
                ))
            }
        };
        bounded("hp_max", self.hp_max.into(), 1, 100_000)?;
        bounded("bab", self.bab.into(), 0, 100)?;
        bounded("initiative_mod", self.initiative_mod.into(), -100, 100)?;
        bounded("level", self.level.into(), 0, 100)?;
        bounded("ac.total", self.ac.total.into(), -50, 200)?;
        bounded("ac.touch", self.ac.touch.into(), -50, 200)?;
        bounded("ac.flat_footed", self.ac.flat_footed.into(), -50, 200)?;
        bounded("saves.fort", self.saves.fort.into(), -100, 100)?;
        bounded("saves.ref", self.saves.reflex.into(), -100, 100)?;
        bounded("saves.will", self.saves.will.into(), -100, 100)?;
        bounded("speed_land_ft", self.speed_land_ft.into(), 0, 1000)?;
        if let Some(f) = self.speed_fly_ft {
            bounded("speed_fly_ft", f.into(), 0, 1000)?;
        }
        bounded("spell_resistance", self.spell_resistance.into(), 0, 100)?;
        if let Some(v) = self.cmb {
            bounded("cmb", v.into(), -100, 200)?;
        }
        if let Some(v) = self.cmd {
            bounded("cmd", v.into(), -100, 300)?;
        }
        if let Some(v) = self.escape_artist {
            bounded("escape_artist", v.into(), -100, 200)?;
        }
        for (field, map, hi) in [("cmb_vs", &self.cmb_vs, 200), ("cmd_vs", &self.cmd_vs, 300)] {
            for (k, v) in map {
                if !crate::actions::MANEUVER_FAMILIES.contains(&k.as_str()) {
                    return err(
                        format!("{field}.{k}"),
                        &format!(
                            "unknown maneuver; known: {}",
                            crate::actions::MANEUVER_FAMILIES.join(", ")
                        ),
                    );
                }
                bounded(&format!("{field}.{k}"), (*v).into(), -100, hi)?;
            }
        }
        if let Some(dr) = &self.dr {
            bounded("dr.amount", dr.amount.into(), 1, 1000)?;
        }
        for (t, v) in &self.resistances {
            bounded(&format!("resistances.{t}"), (*v).into(), 1, 1000)?;
        }
        if let Some(v) = self.caster_level {
            bounded("caster_level", v.into(), 0, 40)?;
        }
        if let Some(v) = self.concentration_bonus {
            bounded("concentration_bonus", v.into(), -100, 200)?;
        }
        for (k, v) in &self.spell_slots {
            match k.parse::<u8>() {
                Ok(1..=9) => bounded(&format!("spell_slots.{k}"), (*v).into(), 0, 100)?,
                _ => return err(format!("spell_slots.{k}"), "spell level must be 1 to 9"),
            }
        }
        for (i, k) in self.spells.iter().enumerate() {
            if let Some(l) = k.level {
                bounded(&format!("spells[{i}].level"), l.into(), 0, 9)?;
            }
            if let Some(n) = k.prepared {
                bounded(&format!("spells[{i}].prepared"), n.into(), 0, 100)?;
            }
            if let Some(d) = k.dc {
                bounded(&format!("spells[{i}].dc"), d.into(), 1, 100)?;
            }
        }
        for (i, k) in self.spell_like_abilities.iter().enumerate() {
            if let Some(l) = k.level {
                bounded(&format!("spell_like_abilities[{i}].level"), l.into(), 0, 9)?;
            }
            if let Some(n) = k.per_day {
                bounded(
                    &format!("spell_like_abilities[{i}].per_day"),
                    n.into(),
                    0,
                    100,
                )?;
            }
            if let Some(v) = k.caster_level {
                bounded(
                    &format!("spell_like_abilities[{i}].caster_level"),
                    v.into(),
                    0,
                    40,
                )?;
            }
            if let Some(d) = k.dc {
                bounded(&format!("spell_like_abilities[{i}].dc"), d.into(), 1, 100)?;
            }
        }
        if let Some(c) = &self.caster_class {
            let known = crate::content::spells::CLASS_LISTS.contains(&c.as_str())
                || ["sorcerer", "wizard", "arcanist"].contains(&c.as_str());
            if !known {
                return err(
                    "caster_class".into(),
                    &format!(
                        "unknown class `{c}`: expected sorcerer, wizard or one of {}",
                        crate::content::spells::CLASS_LISTS.join(", ")
                    ),
                );
            }
        }
        for (i, k) in self.spell_like_abilities.iter().enumerate() {
            if k.at_will && k.per_day.is_some() {
                return err(
                    format!("spell_like_abilities[{i}].per_day"),
                    "an at-will ability has no uses per day",
                );
            }
        }
        if (self.has_spells()) && self.casting_ability.is_none() && !self.spells.is_empty() {
            return err(
                "casting_ability".into(),
                "a caster with `spells` needs one (int, wis or cha)",
            );
        }
        for (name, len) in [
            ("spells", self.spells.len()),
            ("spell_like_abilities", self.spell_like_abilities.len()),
            ("class_features", self.class_features.len()),
            ("attacks", self.attacks.len()),
            ("feats", self.feats.len()),
            ("features", self.features.len()),
            ("immunities", self.immunities.len()),
            ("resistances", self.resistances.len()),
            ("traits", self.traits.len()),
            ("conditions", self.conditions.len()),
        ] {
            if len > MAX_LIST_LEN {
                return err(name.into(), &format!("at most {MAX_LIST_LEN} entries"));
            }
        }
        for (i, a) in self.attacks.iter().enumerate() {
            let p = |f: &str| format!("attacks[{i}].{f}");
            bounded(&p("attack_bonus"), a.attack_bonus.into(), -100, 100)?;
            bounded(&p("damage_bonus"), a.damage_bonus.into(), -1000, 1000)?;
            if let Some(r) = a.range_increment_ft {
                bounded(&p("range_increment_ft"), r.into(), 5, 1000)?;
            }
            if let Some(r) = a.reach_ft {
                bounded(&p("reach_ft"), r.into(), 0, 100)?;
            }
            if let Some(h) = a.hardness {
                bounded(&p("hardness"), h.into(), 0, 1000)?;
            }
            if let Some(h) = a.item_hp {
                bounded(&p("item_hp"), h.into(), 1, 10_000)?;
            }
            if a.damage.len() > MAX_LIST_LEN {
                return err(p("damage"), &format!("at most {MAX_LIST_LEN} components"));
            }
            for (j, d) in a.damage.iter().enumerate() {
                if let Ok(expr) = d.formula.parse::<crate::dice::DiceExpr>() {
                    if expr.max() > MAX_DAMAGE || expr.min() < -MAX_DAMAGE {
                        return err(
                            format!("attacks[{i}].damage[{j}].formula"),
                            &format!("must stay within ±{MAX_DAMAGE}"),
                        );
                    }
                }
            }
        }
        if self.name.trim().is_empty() {
            return err("name".into(), "must not be empty");
        }
        // The name reaches labels, text observations and transcripts: bounded, and free of
        // control and bidirectional-formatting characters (which could forge or reorder
        // what a reader sees).
        if self.name.chars().count() > MAX_NAME_CHARS {
            return err(
                "name".into(),
                &format!("must be at most {MAX_NAME_CHARS} characters"),
            );
        }
        if let Some(c) = self.name.chars().find(|&c| forbidden_in_name(c)) {
            return err(
                "name".into(),
                &format!(
                    "must not contain control or bidirectional-formatting characters (found U+{:04X})",
                    c as u32
                ),
            );
        }
        if self.hp_max <= 0 {
            return err("hp_max".into(), "must be > 0");
        }
        if self.speed_land_ft < 0 || self.speed_land_ft % 5 != 0 {
            return err(
                "speed_land_ft".into(),
                "must be a non-negative multiple of 5 feet",
            );
        }
        if let Some(f) = self.speed_fly_ft {
            if f < 0 || f % 5 != 0 {
                return err(
                    "speed_fly_ft".into(),
                    "must be a non-negative multiple of 5 feet",
                );
            }
        }
        if self.level < 0 {
            return err("level".into(), "must be >= 0");
        }
        for (k, v) in [
            ("str_score", self.abilities.str_score),
            ("dex_score", self.abilities.dex_score),
            ("con_score", self.abilities.con_score),
            ("int_score", self.abilities.int_score),
            ("wis_score", self.abilities.wis_score),
            ("cha_score", self.abilities.cha_score),
        ] {
            if let Some(s) = v {
                if !(0..=99).contains(&s) {
                    return err(format!("abilities.{k}"), "ability score must be in 0..=99");
                }
            }
        }
        if let Some(dr) = &self.dr {
            if dr.amount <= 0 {
                return err("dr.amount".into(), "must be > 0");
            }
        }
        for (t, v) in &self.resistances {
            if *v <= 0 {
                return err(format!("resistances.{t}"), "must be > 0");
            }
        }
        if self.spell_resistance < 0 {
            return err("spell_resistance".into(), "must be >= 0");
        }
        for (i, f) in self.features.iter().enumerate() {
            if let Some(n) = sneak_dice_written(f) {
                let ok = n
                    .parse::<u32>()
                    .is_ok_and(|n| (1..=MAX_SNEAK_DICE).contains(&n));
                if !ok {
                    return err(
                        format!("features[{i}]"),
                        &format!(
                            "sneak attack dice {n} out of range: must be in 1..={MAX_SNEAK_DICE} (`sneak attack +Nd6`)"
                        ),
                    );
                }
            }
        }
        for (i, t) in self.traits.iter().enumerate() {
            if !KNOWN_TRAITS.contains(&t.as_str()) {
                return err(
                    format!("traits[{i}]"),
                    &format!("unknown trait `{t}`; known: {}", KNOWN_TRAITS.join(", ")),
                );
            }
        }
        for (i, c) in self.conditions.iter().enumerate() {
            if crate::effects::conditions::def(&c.name).is_none() {
                return err(
                    format!("conditions[{i}].name"),
                    &format!("unknown condition `{}`", c.name),
                );
            }
            if c.rounds == Some(0) || c.rounds.is_some_and(|r| r > 10_000) {
                return err(format!("conditions[{i}].rounds"), "must be in 1..=10000");
            }
            if let Some(a) = &c.amount {
                if crate::effects::conditions::Condition::from_name(&c.name)
                    != Some(crate::effects::conditions::Condition::Bleeding)
                {
                    return err(
                        format!("conditions[{i}].amount"),
                        "only a `bleeding` condition has an amount",
                    );
                }
                if let Err(e) = check_bleed_amount(a) {
                    return err(format!("conditions[{i}].amount"), &e);
                }
            }
        }
        let mut ids = std::collections::BTreeSet::new();
        for (i, a) in self.attacks.iter().enumerate() {
            let p = |f: &str| format!("attacks[{i}].{f}");
            if !ids.insert(a.weapon_id()) {
                return err(p("id"), "duplicate weapon id in this combatant");
            }
            if a.damage.is_empty() {
                return err(p("damage"), "must have at least one damage component");
            }
            for (j, d) in a.damage.iter().enumerate() {
                if let Err(e) = d.formula.parse::<crate::dice::DiceExpr>() {
                    return err(format!("attacks[{i}].damage[{j}].formula"), &e.to_string());
                }
            }
            if !(2..=20).contains(&a.crit_range) {
                return err(p("crit_range"), "must be in 2..=20");
            }
            if !(2..=6).contains(&a.crit_mult) {
                return err(p("crit_mult"), "must be in 2..=6");
            }
            if a.count == 0 || a.count > 20 {
                return err(p("count"), "must be in 1..=20");
            }
            match (a.kind, a.range_increment_ft) {
                (AttackKind::Melee, Some(_)) => {
                    return err(
                        p("range_increment_ft"),
                        "only ranged and touch attacks have a range increment",
                    )
                }
                (AttackKind::Ranged, None) => {
                    return err(
                        p("range_increment_ft"),
                        "a ranged attack needs a range increment",
                    )
                }
                (_, Some(r)) if r <= 0 || r % 5 != 0 => {
                    return err(
                        p("range_increment_ft"),
                        "must be a positive multiple of 5 feet",
                    )
                }
                _ => {}
            }
            if let Some(r) = a.reach_ft {
                if r < 0 || r % 5 != 0 {
                    return err(p("reach_ft"), "must be a non-negative multiple of 5 feet");
                }
            }
            if a.off_hand && a.natural {
                return err(
                    p("off_hand"),
                    "a natural attack is not held in a hand: only manufactured weapons can be off-hand weapons",
                );
            }
            if a.off_hand && a.two_handed {
                return err(
                    p("off_hand"),
                    "a two-handed weapon cannot be held in the off hand",
                );
            }
            if a.secondary && !a.natural {
                return err(p("secondary"), "only natural attacks can be secondary");
            }
            if a.sheathed && a.natural {
                return err(
                    p("sheathed"),
                    "a natural attack is always ready: it cannot start sheathed",
                );
            }
            if a.ammunition.is_some() && !a.is_ranged() {
                return err(p("ammunition"), "only ranged attacks use ammunition");
            }
            if a.firearm && !a.is_ranged() {
                return err(
                    p("firearm"),
                    "a firearm must be a ranged or ranged-touch attack",
                );
            }
        }
        Ok(())
    }
}

/// Longest combatant name accepted, in characters (`name`).
pub const MAX_NAME_CHARS: usize = 64;

/// Characters refused in a combatant name: control characters (C0, DEL, C1) and the Unicode
/// bidirectional formatting characters (LRM, RLM, ALM, LRE…RLO, LRI…PDI), plus line and
/// paragraph separators.
fn forbidden_in_name(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// Most hit points a bleed amount may take in one turn (far above any creature's bleed).
const MAX_BLEED: i32 = 10_000;

/// Whether `text` is a usable bleed amount (an initial `bleeding` condition's `amount`, a snapshot's `bleed_damage`):
/// dice notation whose maximum is 0..=10000 hp. `Err` says why.
pub(crate) fn check_bleed_amount(text: &str) -> Result<(), String> {
    let d: crate::dice::DiceExpr = text.parse().map_err(|e| format!("{e}"))?;
    if d.min() < 0 || d.max() > MAX_BLEED {
        return Err(format!("`{text}` must lose 0 to {MAX_BLEED} hit points"));
    }
    Ok(())
}
