//! Feats: every name in a combatant's `feats` is resolved to a real effect or to an explicit,
//! logged no-op; an unknown name is reported (`unknown_feats` in the observation and the
//! transcript's first lines), never silently ignored.
//!
//! **Printed numbers are final** (data convention, `data/README.md`): a Bestiary stat block's
//! attack bonus already includes Weapon Focus and Weapon Finesse, its crit range Improved
//! Critical, its AC Dodge, its hp Toughness, its saves Iron Will / Great Fortitude / Lightning
//! Reflexes, its initiative Improved Initiative, its secondary attacks Multiattack. Applying
//! them again would count them twice, so for such a combatant these feats are no-ops "in the
//! printed numbers". A combatant whose file sets `"printed_feats_included": false` (a
//! hand-built character written from base numbers) gets their static effects from the engine:
//! Weapon Focus +1 attack with the named weapon, Dodge +1 dodge AC, Improved Critical doubles
//! the threat range of the named weapon, Weapon Finesse (Dex instead of Str on melee attacks
//! with light and natural weapons), Toughness (+3 hp, +1 per HD beyond 3), Multiattack
//! (secondary natural attacks −2 instead of −5) (CRB — Feats; Bestiary — Feats). Situational
//! feats are never in the printed numbers and always apply: Point-Blank Shot, Precise Shot,
//! Combat Reflexes, Point-Blank Master, Power Attack, Deadly Aim, Combat Expertise, Vital
//! Strike, Rapid Shot, Manyshot and the two-weapon fighting feats.
//!
//! **Two-weapon fighting and printed numbers**: a Bestiary stat block prints a two-weapon
//! routine with its penalties and the off hand's ½ Str already applied; our data files
//! write each weapon's *single-attack* numbers instead (`attack_bonus` without the
//! two-weapon penalty, damage with the full Str bonus; `off_hand: true` on the off-hand
//! weapon, `light` when it is light), and the engine applies the table's penalties, the
//! ½ Str (from `abilities.str_score`) and the feats — so the same file gives the right
//! numbers for a single attack, an attack of opportunity and a full attack
//! (`data/README.md`, `rules::attack_list`).

use crate::content::combatant::CombatantSpec;
use crate::effects::{BonusType, Modifier, Stat, When};

/// How the engine treats a feat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeatKind {
    /// Applied by the engine in every case (situational feats).
    Applied,
    /// Static: in the printed numbers; applied only with `printed_feats_included: false`.
    Static,
    /// Already in the printed numbers in every case, or only affects what is not modelled
    /// (skills, out-of-combat): a documented no-op.
    NoOp,
    /// Known, but its mechanics are not modelled yet (needs an action or a rule we lack).
    NotModelled,
}

/// The feats the engine knows, in table order ([`FEATS`]). A combatant's feat names resolve
/// to these once (`CombatantSpec::has_feat`); the rules never compare feat names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Feat {
    Alertness,
    Cleave,
    CombatExpertise,
    CombatReflexes,
    DeadlyAim,
    Dodge,
    DoubleSlice,
    GreatCleave,
    GreatFortitude,
    GreaterTwoWeaponFighting,
    GreaterVitalStrike,
    ImprovedBullRush,
    ImprovedCritical,
    ImprovedDirtyTrick,
    ImprovedDisarm,
    ImprovedDrag,
    ImprovedGrapple,
    ImprovedInitiative,
    ImprovedOverrun,
    ImprovedReposition,
    ImprovedSteal,
    ImprovedSunder,
    ImprovedTrip,
    ImprovedTwoWeaponFighting,
    ImprovedUnarmedStrike,
    ImprovedVitalStrike,
    IntimidatingProwess,
    IronWill,
    LightningReflexes,
    Lunge,
    Manyshot,
    Mobility,
    Multiattack,
    PointBlankMaster,
    PointBlankShot,
    PowerAttack,
    PreciseShot,
    QuickDraw,
    RapidShot,
    Run,
    ShotOnTheRun,
    SkillFocus,
    SpringAttack,
    StandStill,
    StepUp,
    Toughness,
    TwoWeaponFighting,
    VitalStrike,
    WeaponFinesse,
    WeaponFocus,
    CombatCasting,
    EmpowerSpell,
    ExtendSpell,
    HeightenSpell,
    MaximizeSpell,
    QuickenSpell,
    SilentSpell,
    StillSpell,
    SpellFocus,
    GreaterSpellFocus,
    SpellPenetration,
    GreaterSpellPenetration,
    AbilityFocus,
    AgileManeuvers,
    BlindFight,
    ChannelSmite,
    CraftWondrousItem,
    Deceitful,
    DefensiveCombatTraining,
    EschewMaterials,
    ImprovedLightningReflexes,
    ScribeScroll,
    Stealthy,
}

impl Feat {
    /// Every feat, in table order.
    pub const ALL: [Feat; 73] = [
        Feat::Alertness,
        Feat::Cleave,
        Feat::CombatExpertise,
        Feat::CombatReflexes,
        Feat::DeadlyAim,
        Feat::Dodge,
        Feat::DoubleSlice,
        Feat::GreatCleave,
        Feat::GreatFortitude,
        Feat::GreaterTwoWeaponFighting,
        Feat::GreaterVitalStrike,
        Feat::ImprovedBullRush,
        Feat::ImprovedCritical,
        Feat::ImprovedDirtyTrick,
        Feat::ImprovedDisarm,
        Feat::ImprovedDrag,
        Feat::ImprovedGrapple,
        Feat::ImprovedInitiative,
        Feat::ImprovedOverrun,
        Feat::ImprovedReposition,
        Feat::ImprovedSteal,
        Feat::ImprovedSunder,
        Feat::ImprovedTrip,
        Feat::ImprovedTwoWeaponFighting,
        Feat::ImprovedUnarmedStrike,
        Feat::ImprovedVitalStrike,
        Feat::IntimidatingProwess,
        Feat::IronWill,
        Feat::LightningReflexes,
        Feat::Lunge,
        Feat::Manyshot,
        Feat::Mobility,
        Feat::Multiattack,
        Feat::PointBlankMaster,
        Feat::PointBlankShot,
        Feat::PowerAttack,
        Feat::PreciseShot,
        Feat::QuickDraw,
        Feat::RapidShot,
        Feat::Run,
        Feat::ShotOnTheRun,
        Feat::SkillFocus,
        Feat::SpringAttack,
        Feat::StandStill,
        Feat::StepUp,
        Feat::Toughness,
        Feat::TwoWeaponFighting,
        Feat::VitalStrike,
        Feat::WeaponFinesse,
        Feat::WeaponFocus,
        Feat::CombatCasting,
        Feat::EmpowerSpell,
        Feat::ExtendSpell,
        Feat::HeightenSpell,
        Feat::MaximizeSpell,
        Feat::QuickenSpell,
        Feat::SilentSpell,
        Feat::StillSpell,
        Feat::SpellFocus,
        Feat::GreaterSpellFocus,
        Feat::SpellPenetration,
        Feat::GreaterSpellPenetration,
        Feat::AbilityFocus,
        Feat::AgileManeuvers,
        Feat::BlindFight,
        Feat::ChannelSmite,
        Feat::CraftWondrousItem,
        Feat::Deceitful,
        Feat::DefensiveCombatTraining,
        Feat::EschewMaterials,
        Feat::ImprovedLightningReflexes,
        Feat::ScribeScroll,
        Feat::Stealthy,
    ];

    /// The feat's SRD name (`Power Attack`).
    pub fn name(self) -> &'static str {
        FEATS[self as usize].0
    }

    /// The feat of a base name (case-insensitive, without its parenthesised argument).
    pub fn from_base_name(base: &str) -> Option<Feat> {
        FEATS
            .iter()
            .position(|(n, _, _)| n.eq_ignore_ascii_case(base))
            .map(|i| Feat::ALL[i])
    }
}

/// A set of [`Feat`]s (a bit per feat).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FeatSet(u128);

impl FeatSet {
    /// The known feats among `names` (`"Weapon Focus (longsword)"` counts as Weapon Focus).
    pub fn of(names: &[String]) -> FeatSet {
        let mut bits = 0u128;
        for f in names {
            if let Some(x) = Feat::from_base_name(split_name(f).0) {
                bits |= 1 << x as u128;
            }
        }
        FeatSet(bits)
    }

    /// Whether the set holds `f`.
    pub fn contains(self, f: Feat) -> bool {
        self.0 & (1 << f as u128) != 0
    }
}

/// The table: (name, kind, what the engine does).
pub const FEATS: &[(&str, FeatKind, &str)] = &[
    (
        "Alertness",
        FeatKind::NoOp,
        "skills only (Perception, Sense Motive)",
    ),
    (
        "Cleave",
        FeatKind::Applied,
        "action `cleave`: an attack; on a hit one more on a foe adjacent to the first, in reach; -2 AC until next turn",
    ),
    (
        "Combat Expertise",
        FeatKind::Applied,
        "activate_combat_expertise toggle: on turns it attacks in melee, -X melee attack and CMB, +X dodge AC until its next turn (X = 1 + BAB/4)",
    ),
    (
        "Combat Reflexes",
        FeatKind::Applied,
        "1 + Dex AoOs per round; AoOs while flat-footed",
    ),
    (
        "Deadly Aim",
        FeatKind::Applied,
        "activate_deadly_aim toggle: -X ranged attack, +2X ranged damage (not touch attacks), X = 1 + BAB/4",
    ),
    (
        "Dodge",
        FeatKind::Static,
        "+1 dodge bonus to AC (in the printed AC; applied with printed_feats_included false)",
    ),
    (
        "Double Slice",
        FeatKind::Applied,
        "full Str bonus (not 1/2) to damage of off-hand attacks",
    ),
    (
        "Great Cleave",
        FeatKind::Applied,
        "action `cleave` goes on: each hit, a foe adjacent to the previous one, each foe once",
    ),
    (
        "Great Fortitude",
        FeatKind::NoOp,
        "+2 Fort, in the printed save",
    ),
    (
        "Greater Two-Weapon Fighting",
        FeatKind::Applied,
        "a third off-hand attack at -10 in a two-weapon full attack",
    ),
    (
        "Greater Vital Strike",
        FeatKind::Applied,
        "attack action: weapon damage dice x4 in all, not multiplied on a critical",
    ),
    (
        "Improved Bull Rush",
        FeatKind::Applied,
        "bull rush does not provoke (the +2 CMB/CMD is in the printed CMB/CMD)",
    ),
    (
        "Improved Critical",
        FeatKind::Static,
        "threat range doubled (in the printed crit range; applied with printed_feats_included false)",
    ),
    (
        "Improved Dirty Trick",
        FeatKind::Applied,
        "dirty trick does not provoke (+2 in printed CMB/CMD)",
    ),
    (
        "Improved Disarm",
        FeatKind::Applied,
        "disarm does not provoke (+2 in printed CMB/CMD)",
    ),
    (
        "Improved Drag",
        FeatKind::Applied,
        "drag does not provoke (+2 in printed CMB/CMD)",
    ),
    (
        "Improved Grapple",
        FeatKind::Applied,
        "grapple does not provoke (+2 in printed CMB/CMD)",
    ),
    (
        "Improved Initiative",
        FeatKind::NoOp,
        "+4 initiative, in the printed initiative",
    ),
    (
        "Improved Overrun",
        FeatKind::Applied,
        "overrun does not provoke (+2 in printed CMB/CMD)",
    ),
    (
        "Improved Reposition",
        FeatKind::Applied,
        "reposition does not provoke (+2 in printed CMB/CMD)",
    ),
    (
        "Improved Steal",
        FeatKind::Applied,
        "steal does not provoke (+2 in printed CMB/CMD)",
    ),
    (
        "Improved Sunder",
        FeatKind::Applied,
        "sunder does not provoke (+2 in printed CMB/CMD)",
    ),
    (
        "Improved Trip",
        FeatKind::Applied,
        "trip does not provoke (+2 in printed CMB/CMD)",
    ),
    (
        "Improved Two-Weapon Fighting",
        FeatKind::Applied,
        "a second off-hand attack at -5 in a two-weapon full attack",
    ),
    (
        "Improved Unarmed Strike",
        FeatKind::NotModelled,
        "not modelled: the engine has no unarmed strikes (docs/conformance.md)",
    ),
    (
        "Improved Vital Strike",
        FeatKind::Applied,
        "attack action: weapon damage dice x3 in all, not multiplied on a critical",
    ),
    (
        "Intimidating Prowess",
        FeatKind::NoOp,
        "skills only (Intimidate)",
    ),
    ("Iron Will", FeatKind::NoOp, "+2 Will, in the printed save"),
    (
        "Lightning Reflexes",
        FeatKind::NoOp,
        "+2 Ref, in the printed save",
    ),
    (
        "Lunge",
        FeatKind::Applied,
        "action `activate_lunge`: +5 ft reach on melee attacks this turn, -2 AC until next turn",
    ),
    (
        "Manyshot",
        FeatKind::Applied,
        "full attack with a bow: the first attack fires two arrows (precision and critical damage once)",
    ),
    (
        "Mobility",
        FeatKind::Applied,
        "+4 dodge AC against attacks of opportunity provoked by movement (lost when denied Dex)",
    ),
    (
        "Multiattack",
        FeatKind::Static,
        "secondary natural attacks at -2 (in the printed bonuses; +3 with printed_feats_included false)",
    ),
    (
        "Point-Blank Master",
        FeatKind::Applied,
        "ranged attacks with the named weapon do not provoke while threatened",
    ),
    (
        "Point-Blank Shot",
        FeatKind::Applied,
        "+1 attack and damage with ranged attacks within 30 ft",
    ),
    (
        "Power Attack",
        FeatKind::Applied,
        "activate_power_attack toggle: -X melee attack and CMB, +2X damage (+3X two-handed)",
    ),
    (
        "Precise Shot",
        FeatKind::Applied,
        "no -4 for shooting into melee",
    ),
    (
        "Quick Draw",
        FeatKind::Applied,
        "draw a weapon as a free action (`draw_weapon`); sheathing is still a move action",
    ),
    (
        "Rapid Shot",
        FeatKind::Applied,
        "full attack with a ranged weapon: one extra attack at the highest bonus, -2 on every attack",
    ),
    (
        "Run",
        FeatKind::Applied,
        "run at 5x speed and keep the Dex bonus to AC while running",
    ),
    (
        "Shot on the Run",
        FeatKind::Applied,
        "action `shot_on_the_run`: move up to speed with one ranged attack on the way",
    ),
    ("Skill Focus", FeatKind::NoOp, "skills only"),
    (
        "Spring Attack",
        FeatKind::Applied,
        "action `spring_attack`: move up to speed with one melee attack on the way, no AoO from the target",
    ),
    (
        "Stand Still",
        FeatKind::Applied,
        "answer `stand_still`: a maneuver check instead of an AoO on a foe leaving an adjacent square; success stops its move",
    ),
    (
        "Step Up",
        FeatKind::Applied,
        "immediate action: a 5-foot step after an adjacent foe's step away (step_up decision)",
    ),
    (
        "Toughness",
        FeatKind::Static,
        "+3 hp (+1 per HD beyond 3), in the printed hp; applied with printed_feats_included false",
    ),
    (
        "Two-Weapon Fighting",
        FeatKind::Applied,
        "two-weapon penalties -4/-4 (-2/-2 with a light off-hand weapon) instead of -6/-10 (-4/-8)",
    ),
    (
        "Vital Strike",
        FeatKind::Applied,
        "attack action: weapon damage dice x2 in all, not multiplied on a critical",
    ),
    (
        "Weapon Finesse",
        FeatKind::Static,
        "Dex instead of Str to melee attacks with light and natural weapons (in the printed bonus; applied with printed_feats_included false)",
    ),
    (
        "Weapon Focus",
        FeatKind::Static,
        "+1 attack with the named weapon (in the printed bonus)",
    ),
    (
        "Combat Casting",
        FeatKind::Applied,
        "+4 on concentration checks to cast defensively or while grappled",
    ),
    (
        "Empower Spell",
        FeatKind::Applied,
        "metamagic per cast (a cast's `metamagic` or `activate_metamagic`), from spell slots: variable numbers x1.5, a slot 2 levels higher",
    ),
    (
        "Extend Spell",
        FeatKind::Applied,
        "metamagic per cast (a cast's `metamagic` or `activate_metamagic`), from spell slots: duration x2, a slot 1 level higher",
    ),
    (
        "Heighten Spell",
        FeatKind::Applied,
        "metamagic per cast (a cast's `metamagic` or `activate_metamagic`), from spell slots: a slot 1 level higher, the save DC of that level (one level only)",
    ),
    (
        "Maximize Spell",
        FeatKind::Applied,
        "metamagic per cast (a cast's `metamagic` or `activate_metamagic`), from spell slots: variable numbers at their maximum, a slot 3 levels higher",
    ),
    (
        "Quicken Spell",
        FeatKind::Applied,
        "metamagic per cast (a cast's `metamagic` or `activate_metamagic`), from spell slots: a swift action that does not provoke, a slot 4 levels higher",
    ),
    (
        "Silent Spell",
        FeatKind::Applied,
        "metamagic per cast (a cast's `metamagic` or `activate_metamagic`), from spell slots: a slot 1 level higher (components are not modelled, so nothing else changes)",
    ),
    (
        "Still Spell",
        FeatKind::Applied,
        "metamagic per cast (a cast's `metamagic` or `activate_metamagic`), from spell slots: a slot 1 level higher (components are not modelled, so nothing else changes)",
    ),
    (
        "Spell Focus",
        FeatKind::Applied,
        "+1 to the save DCs of its school's spells (Spell Focus (school))",
    ),
    (
        "Greater Spell Focus",
        FeatKind::Applied,
        "+1 more to the save DCs of its school's spells",
    ),
    (
        "Spell Penetration",
        FeatKind::Applied,
        "+2 on caster level checks to overcome spell resistance",
    ),
    (
        "Greater Spell Penetration",
        FeatKind::Applied,
        "+2 more on caster level checks against spell resistance",
    ),
    (
        "Ability Focus",
        FeatKind::NoOp,
        "+2 to the DC of one special attack: already in the stat block's printed DCs",
    ),
    (
        "Agile Maneuvers",
        FeatKind::NoOp,
        "Dex instead of Str on CMB: already in the printed CMB",
    ),
    (
        "Blind-Fight",
        FeatKind::NotModelled,
        "not modelled: rerolling a concealment miss chance",
    ),
    (
        "Channel Smite",
        FeatKind::NotModelled,
        "not modelled: channel energy is not modelled yet",
    ),
    (
        "Craft Wondrous Item",
        FeatKind::NoOp,
        "item creation, out of combat",
    ),
    (
        "Deceitful",
        FeatKind::NoOp,
        "skills only (Bluff, Disguise)",
    ),
    (
        "Defensive Combat Training",
        FeatKind::NoOp,
        "Hit Dice for BAB in CMD: already in the printed CMD",
    ),
    (
        "Eschew Materials",
        FeatKind::NoOp,
        "material components are not modelled",
    ),
    (
        "Improved Lightning Reflexes",
        FeatKind::NotModelled,
        "not modelled: rerolling a Reflex save once a day",
    ),
    (
        "Scribe Scroll",
        FeatKind::NoOp,
        "item creation, out of combat",
    ),
    (
        "Stealthy",
        FeatKind::NoOp,
        "skills only (Escape Artist, Stealth)",
    ),
];

/// Split `"Weapon Focus (longsword)"` into `("Weapon Focus", Some("longsword"))`.
pub fn split_name(feat: &str) -> (&str, Option<&str>) {
    let f = feat.trim();
    match (f.find('('), f.rfind(')')) {
        (Some(a), Some(b)) if b > a => (f[..a].trim(), Some(f[a + 1..b].trim())),
        _ => (f, None),
    }
}

/// The table row of a feat name, if known.
pub fn lookup(feat: &str) -> Option<&'static (&'static str, FeatKind, &'static str)> {
    let (base, _) = split_name(feat);
    FEATS.iter().find(|(n, _, _)| n.eq_ignore_ascii_case(base))
}

/// Feat names of `spec` that are not in the table.
pub fn unknown_feats(spec: &CombatantSpec) -> Vec<String> {
    spec.feats
        .iter()
        .filter(|f| lookup(f).is_none())
        .cloned()
        .collect()
}

/// One line per feat for the transcript: what the engine does with it.
pub fn resolution_lines(spec: &CombatantSpec) -> Vec<String> {
    spec.feats
        .iter()
        .map(|f| match lookup(f) {
            None => format!("feat {f}: UNKNOWN, ignored (reported in unknown_feats)"),
            Some((_, kind, what)) => {
                let k = match kind {
                    FeatKind::Applied => "applied",
                    FeatKind::Static if spec.printed_feats_included => "no-op (printed numbers)",
                    FeatKind::Static => "applied",
                    FeatKind::NoOp => "no-op",
                    FeatKind::NotModelled => "not modelled yet",
                };
                format!("feat {f}: {k} — {what}")
            }
        })
        .collect()
}

/// Whether `spec` has the feat (resolved once: [`CombatantSpec::has_feat`]).
pub fn has(spec: &CombatantSpec, feat: Feat) -> bool {
    spec.has_feat(feat)
}

/// The modifiers `spec`'s feats give to its own rolls.
pub fn modifiers(spec: &CombatantSpec) -> Vec<Modifier> {
    let mut out = Vec::new();
    for f in &spec.feats {
        let (base, arg) = split_name(f);
        let is = |n: &str| base.eq_ignore_ascii_case(n);
        if is("Point-Blank Shot") {
            for stat in [Stat::Attack, Stat::Damage] {
                out.push(
                    Modifier::new(stat, 1, BonusType::Untyped, "Point-Blank Shot")
                        .when(When::TargetWithin30ftRanged),
                );
            }
        }
        if spec.printed_feats_included {
            continue;
        }
        if is("Weapon Focus") {
            if let Some(w) = arg {
                out.push(
                    Modifier::new(Stat::Attack, 1, BonusType::Untyped, "Weapon Focus")
                        .when(When::Weapon(w.to_string())),
                );
            }
        } else if is("Dodge") {
            out.push(Modifier::new(Stat::Ac, 1, BonusType::Dodge, "Dodge"));
        } else if is("Weapon Finesse") {
            // Dex instead of Str on melee attack rolls with light weapons and natural
            // weapons (CRB — Feats: Weapon Finesse; natural weapons count as light), when
            // Dex is the better one. The armor check penalty of a shield is not modelled.
            let gain = spec.abilities.dex_mod() - spec.abilities.str_mod();
            if gain > 0 {
                for w in spec
                    .attacks
                    .iter()
                    .filter(|w| !w.is_ranged() && (w.light || w.natural))
                {
                    out.push(
                        Modifier::new(
                            Stat::MeleeAttack,
                            gain,
                            BonusType::Untyped,
                            "Weapon Finesse",
                        )
                        .when(When::Weapon(w.weapon_id())),
                    );
                }
            }
        }
    }
    out
}

/// Whether `spec` has `feat` for weapon `w`: a feat name whose argument names the weapon
/// (`"Point-Blank Master (longbow)"`: the weapon's id or name contains the argument,
/// case-insensitive, spaces as `_`), as Weapon Focus matches its weapon.
pub fn named_weapon_feat(
    spec: &CombatantSpec,
    feat: Feat,
    w: &crate::content::combatant::AttackSpec,
) -> bool {
    if !spec.has_feat(feat) {
        return false;
    }
    let id = w.weapon_id();
    spec.feats.iter().any(|f| {
        let (base, arg) = split_name(f);
        base.eq_ignore_ascii_case(feat.name())
            && arg.is_some_and(|a| {
                let a = a.to_lowercase().replace(' ', "_");
                id.to_lowercase().contains(&a)
                    || w.name.to_lowercase().replace(' ', "_").contains(&a)
            })
    })
}

/// Toughness's hit points (CRB — Feats: Toughness: +3, +1 per Hit Die beyond 3; `level` is
/// the Hit Dice) for a combatant whose printed hp do not include it
/// (`printed_feats_included: false`); 0 otherwise.
pub fn toughness_hp(spec: &CombatantSpec) -> i32 {
    if spec.printed_feats_included || !spec.has_feat(Feat::Toughness) {
        0
    } else {
        spec.level.max(3)
    }
}

/// The threat range of weapon `w` with Improved Critical (CRB — Feats: Improved Critical: the
/// threat range doubles: 20 → 19–20, 19–20 → 17–20, 18–20 → 15–20), for a combatant whose
/// printed numbers do not include it.
pub fn crit_range(spec: &CombatantSpec, w: &crate::content::combatant::AttackSpec) -> i32 {
    if spec.printed_feats_included {
        return w.crit_range;
    }
    let has_ic = named_weapon_feat(spec, Feat::ImprovedCritical, w);
    if has_ic {
        let width = 21 - w.crit_range;
        21 - 2 * width
    } else {
        w.crit_range
    }
}

/// Whether `f` is a metamagic feat (CRB — Feats: Metamagic Feats).
pub fn is_metamagic(f: Feat) -> bool {
    matches!(
        f,
        Feat::EmpowerSpell
            | Feat::ExtendSpell
            | Feat::HeightenSpell
            | Feat::MaximizeSpell
            | Feat::QuickenSpell
            | Feat::SilentSpell
            | Feat::StillSpell
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every spelling of a known feat's name resolves to it, an argument in parentheses
    /// included; other names do not.
    #[test]
    fn feat_names_resolve_once() {
        let names: Vec<String> = [
            " power attack ",
            "Weapon Focus (longsword)",
            "weapon focus( longsword )",
            "Run",
            "Runx",
            "Combat Reflexes (x)",
            "",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let set = FeatSet::of(&names);
        for f in [
            Feat::PowerAttack,
            Feat::WeaponFocus,
            Feat::Run,
            Feat::CombatReflexes,
        ] {
            assert!(set.contains(f), "{f:?}");
        }
        assert!(!set.contains(Feat::Dodge));
        for f in Feat::ALL {
            assert_eq!(Feat::from_base_name(f.name()), Some(f));
        }
    }
}
