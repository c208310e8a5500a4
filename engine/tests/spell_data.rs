//! The spell registry `data/spells/`: every file loads, names its source and license, and is
//! in the file its key names; the spells the engine's scenarios and casters rely on are there;
//! the format rules the files use (dice scaling, projectiles, durations, areas) give the SRD's
//! numbers.

use pf1e_engine::content::spells::{
    spell_key, AreaOrigin, AreaShape, OnSave, SpellAttack, SpellEffect, SpellRange, SpellRegistry,
    SpellSpec, Targeting,
};
use pf1e_engine::dice::DiceExpr;
use std::path::PathBuf;
use std::sync::OnceLock;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data")
}

fn registry() -> &'static SpellRegistry {
    static REG: OnceLock<SpellRegistry> = OnceLock::new();
    REG.get_or_init(|| SpellRegistry::load_dir(&data_dir().join("spells")).expect("registry loads"))
}

fn spell(name: &str) -> &'static SpellSpec {
    registry()
        .get(name)
        .unwrap_or_else(|| panic!("spell `{name}` is not in data/spells"))
}

/// The spells the registry must hold (issue 12's list; names the SRD has).
const REQUIRED: &[&str] = &[
    "magic missile",
    "scorching ray",
    "burning hands",
    "shocking grasp",
    "color spray",
    "sleep",
    "fear",
    "cause fear",
    "bless",
    "bane",
    "shield",
    "mage armor",
    "mirror image",
    "web",
    "silence",
    "heroism",
    "acid arrow",
    "fireball",
    "lightning bolt",
    "sound burst",
    "bleed",
    "cure light wounds",
    "cure moderate wounds",
    "cure serious wounds",
    "inflict light wounds",
    "inflict moderate wounds",
    "summon monster i",
    "summon monster ii",
    "summon monster iii",
    "haste",
    "slow",
    "hold person",
    "glitterdust",
    "grease",
    "entangle",
    "enlarge person",
    "reduce person",
    "bull's strength",
    "cat's grace",
    "bear's endurance",
    "divine favor",
    "shield of faith",
    "protection from evil",
    "protection from good",
    "spiritual weapon",
    "vampiric touch",
    "dispel magic",
    "daze",
    "ray of frost",
    "ray of enfeeblement",
    "acid splash",
    "disrupt undead",
    "flare",
    "stabilize",
    "virtue",
    "guidance",
    "resistance",
    "blur",
    "displacement",
    "invisibility",
    "magic weapon",
    "magic fang",
    "barkskin",
    "produce flame",
    "flame blade",
    "call lightning",
    "hideous laughter",
    "hold animal",
    "doom",
    "command",
    "sanctuary",
    "darkness",
    "obscuring mist",
    "fog cloud",
    "stinking cloud",
    "frostbite",
    "chill touch",
    "ghoul touch",
    "touch of idiocy",
    "scare",
    "prayer",
    "aid",
    "false life",
    "searing light",
    "deep slumber",
    "hypnotism",
    "charm person",
    "shatter",
    "corrosive touch",
    "force punch",
    "ear-piercing scream",
    "hydraulic push",
];

#[test]
fn every_spell_file_loads_with_source_and_license() {
    let reg = registry();
    assert!(!reg.is_empty());
    for (key, s) in reg.iter() {
        assert!(
            s.source.starts_with("PF1e SRD"),
            "{key}: source {}",
            s.source
        );
        assert_eq!(s.license.as_deref(), Some("OGL-1.0a"), "{key}");
        assert!(!s.summary.is_empty(), "{key}: summary");
    }
}

#[test]
fn the_required_spells_are_all_there() {
    for name in REQUIRED {
        let s = spell(name);
        assert_eq!(s.name, *name, "the file of `{name}` names it so");
    }
    assert!(
        registry().len() >= 108,
        "{} spells; at least 108",
        registry().len()
    );
}

#[test]
fn every_file_stem_is_its_key_and_the_sources_are_the_three_books() {
    let dir = data_dir().join("spells");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "json") {
            let s = SpellSpec::load(&p).unwrap();
            assert_eq!(p.file_stem().unwrap().to_str().unwrap(), spell_key(&s.name));
            let book_ok = [
                "PF1e SRD — Core Rulebook: ",
                "PF1e SRD — Advanced Player's Guide: ",
                "PF1e SRD — Ultimate Magic: ",
            ]
            .iter()
            .any(|b| s.source.starts_with(b));
            assert!(book_ok, "{}: source {}", s.name, s.source);
            n += 1;
        }
    }
    assert_eq!(n, registry().len());
}

#[test]
fn levels_are_0_to_9_and_most_spells_are_of_levels_0_to_3() {
    let reg = registry();
    let mut low = 0;
    for (key, s) in reg.iter() {
        assert!(!s.levels.is_empty(), "{key}");
        for (class, lv) in &s.levels {
            assert!(*lv <= 9, "{key}: {class} {lv}");
        }
        if s.min_level() <= 3 {
            low += 1;
        }
    }
    assert!(
        2 * low >= reg.len(),
        "{low} of {} spells at levels 0-3",
        reg.len()
    );
}

fn dice_of(e: &SpellEffect) -> Vec<&str> {
    match e {
        SpellEffect::Damage {
            dice, recurring, ..
        } => {
            let mut v = vec![dice.as_str()];
            if let Some(r) = recurring {
                v.push(r.dice.as_str());
            }
            v
        }
        SpellEffect::Heal { dice, .. } => vec![dice.as_str()],
        SpellEffect::MirrorImage { dice, .. } => vec![dice.as_str()],
        SpellEffect::Summon { count, .. } => vec![count.as_str()],
        _ => vec![],
    }
}

#[test]
fn every_damage_and_heal_dice_parses() {
    for (key, s) in registry().iter() {
        for e in &s.effects {
            for d in dice_of(e) {
                d.parse::<DiceExpr>()
                    .unwrap_or_else(|err| panic!("{key}: `{d}`: {err}"));
            }
        }
        if let Some(d) = &s.duration.dice {
            d.parse::<DiceExpr>()
                .unwrap_or_else(|err| panic!("{key}: duration `{d}`: {err}"));
        }
    }
}

#[test]
fn every_area_spell_has_an_area_and_touch_attacks_have_touch_range() {
    for (key, s) in registry().iter() {
        if s.targeting == Targeting::Area {
            assert!(s.area.is_some(), "{key}: an area spell has an area");
        }
        if s.attack == SpellAttack::MeleeTouch {
            assert_eq!(s.range, SpellRange::Touch, "{key}");
        }
        if let Some(a) = &s.area {
            if matches!(a.shape, AreaShape::Cone | AreaShape::Line) {
                assert_eq!(
                    a.origin,
                    AreaOrigin::Caster,
                    "{key}: a cone or line starts at the caster"
                );
            }
        }
        assert!(
            s.not_modelled.iter().all(|n| !n.trim().is_empty()),
            "{key}: empty not_modelled entry"
        );
    }
}

/// The first damage effect's (base dice count, extra dice, flat) at caster level `cl`.
fn damage_at(name: &str, cl: i32) -> (String, u32, u32) {
    let s = spell(name);
    for e in &s.effects {
        if let SpellEffect::Damage {
            dice,
            dice_scaling,
            flat_scaling,
            ..
        } = e
        {
            return (
                dice.clone(),
                dice_scaling.map_or(0, |x| x.at(cl)),
                flat_scaling.map_or(0, |x| x.at(cl)),
            );
        }
    }
    panic!("{name} has no damage effect")
}

#[test]
fn dice_scaling_gives_the_srd_totals() {
    // Fireball: 1d6 per caster level, max 10d6 — base 1d6 plus extra dice.
    assert_eq!(damage_at("fireball", 5), ("1d6".into(), 4, 0));
    assert_eq!(damage_at("fireball", 10).1 + 1, 10);
    assert_eq!(damage_at("fireball", 15).1 + 1, 10);
    // Burning hands, shocking grasp: 1d4/1d6 per level, max 5 dice.
    assert_eq!(damage_at("burning hands", 1).1 + 1, 1);
    assert_eq!(damage_at("burning hands", 3).1 + 1, 3);
    assert_eq!(damage_at("burning hands", 9).1 + 1, 5);
    assert_eq!(damage_at("shocking grasp", 7).1 + 1, 5);
    // Lightning bolt: max 10d6.
    assert_eq!(damage_at("lightning bolt", 12).1 + 1, 10);
    // Vampiric touch: 1d6 per two caster levels (max 10d6).
    assert_eq!(damage_at("vampiric touch", 5).1 + 1, 2);
    assert_eq!(damage_at("vampiric touch", 6).1 + 1, 3);
    assert_eq!(damage_at("vampiric touch", 20).1 + 1, 10);
    // Searing light on the living: 1d8 per two levels (max 5d8).
    assert_eq!(damage_at("searing light", 5).1 + 1, 2);
    assert_eq!(damage_at("searing light", 14).1 + 1, 5);
    // Ear-piercing scream: 1d6 per two levels (max 5d6).
    assert_eq!(damage_at("ear-piercing scream", 4).1 + 1, 2);
    assert_eq!(damage_at("ear-piercing scream", 11).1 + 1, 5);
    // Force punch: 1d4 per level (max 10d4).
    assert_eq!(damage_at("force punch", 5).1 + 1, 5);
    assert_eq!(damage_at("force punch", 12).1 + 1, 10);
}

#[test]
fn flat_scaling_gives_the_srd_caps() {
    // Cure / inflict: +1 per caster level, max +5 / +10 / +15.
    assert_eq!(damage_at("cure light wounds", 3).2, 3);
    assert_eq!(damage_at("cure light wounds", 9).2, 5);
    assert_eq!(damage_at("inflict moderate wounds", 12).2, 10);
    assert_eq!(damage_at("inflict serious wounds", 20).2, 15);
    // Flame blade: +1 per two caster levels (max +10).
    assert_eq!(damage_at("flame blade", 5).2, 2);
    assert_eq!(damage_at("flame blade", 25).2, 10);
}

#[test]
fn projectiles_magic_missile_and_scorching_ray() {
    let count = |name: &str, cl: i32| -> u32 {
        for e in &spell(name).effects {
            if let SpellEffect::Damage {
                projectiles: Some(p),
                ..
            } = e
            {
                return p.base + p.scaling.map_or(0, |s| s.at(cl));
            }
        }
        panic!("{name} has no projectiles")
    };
    // Magic missile: one, +1 per two levels beyond 1st, max 5.
    assert_eq!(
        [1, 3, 5, 9, 20].map(|cl| count("magic missile", cl)),
        [1, 2, 3, 5, 5]
    );
    // Scorching ray: one, +1 per four levels beyond 3rd, max 3 (at 11th).
    assert_eq!(
        [3, 6, 7, 10, 11, 20].map(|cl| count("scorching ray", cl)),
        [1, 1, 2, 2, 3, 3]
    );
}

#[test]
fn acid_arrow_recurs_one_round_per_three_levels() {
    let s = spell("acid arrow");
    assert_eq!(s.attack, SpellAttack::RangedTouch);
    let SpellEffect::Damage {
        recurring: Some(r), ..
    } = &s.effects[0]
    else {
        panic!("acid arrow recurs")
    };
    let extra = |cl| r.rounds + r.scaling.map_or(0, |x| x.at(cl));
    assert_eq!([1, 3, 6, 18, 20].map(extra), [0, 1, 2, 6, 6]);
}

#[test]
fn durations_in_rounds() {
    // 1 round/level, 1 min./level = 10 rounds/level, 10 min./level, 1 hour/level.
    assert_eq!(spell("haste").duration.fixed_rounds(5), 5);
    assert_eq!(spell("bless").duration.fixed_rounds(3), 30);
    assert_eq!(spell("heroism").duration.fixed_rounds(3), 300);
    assert_eq!(spell("mage armor").duration.fixed_rounds(2), 1200);
    // 1 minute flat.
    assert_eq!(spell("divine favor").duration.fixed_rounds(9), 10);
    // Instantaneous.
    assert!(spell("fireball").duration.is_instantaneous());
    // Concentration + 2 rounds.
    let hp = &spell("hypnotic pattern").duration;
    assert!(hp.concentration);
    assert_eq!(hp.fixed_rounds(5), 2);
    // Dice: ghoul touch lasts 1d6+2 rounds.
    let gt = &spell("ghoul touch").duration;
    assert_eq!((gt.dice.as_deref(), gt.rounds), (Some("1d6"), 2));
}

#[test]
fn saves_harmless_and_spell_resistance() {
    let fb = spell("fireball");
    assert_eq!(fb.save.map(|s| s.on_success), Some(OnSave::Half));
    assert!(fb.spell_resistance);
    let ma = spell("mage armor");
    assert!(ma.harmless);
    assert!(!ma.spell_resistance, "Spell Resistance: no");
    assert!(spell("web").save.is_some() && !spell("web").spell_resistance);
    assert_eq!(
        spell("sound burst").save.map(|s| s.on_success),
        Some(OnSave::Partial)
    );
}

#[test]
fn areas_and_multi_target_spells() {
    let bh = spell("burning hands").area.unwrap();
    assert_eq!(
        (bh.shape, bh.size_ft, bh.origin),
        (AreaShape::Cone, 15, AreaOrigin::Caster)
    );
    let lb = spell("lightning bolt").area.unwrap();
    assert_eq!((lb.shape, lb.size_ft), (AreaShape::Line, 120));
    // "No two more than 30 ft. apart": a 15-ft.-radius burst at a point.
    for name in ["haste", "slow", "scare", "good hope"] {
        let a = spell(name)
            .area
            .unwrap_or_else(|| panic!("{name} has an area"));
        assert_eq!(
            (a.shape, a.size_ft, a.origin),
            (AreaShape::Burst, 15, AreaOrigin::Point),
            "{name}"
        );
        assert!(
            spell(name).not_modelled.iter().any(|n| n.contains("30 ft")),
            "{name} says so"
        );
    }
}

#[test]
fn mirror_image_summons_dispel_and_specials() {
    let SpellEffect::MirrorImage { dice, scaling, max } = &spell("mirror image").effects[0] else {
        panic!("mirror image")
    };
    assert_eq!((dice.as_str(), *max), ("1d4", 8));
    assert_eq!(scaling.unwrap().at(9), 3);
    for (name, creature) in [
        ("summon monster i", "dire_rat"),
        ("summon monster ii", "wolf"),
        ("summon monster iii", "dire_bat"),
    ] {
        assert!(
            spell(name)
                .effects
                .iter()
                .any(|e| matches!(e, SpellEffect::Summon { creature: c, .. } if c == creature)),
            "{name} summons a {creature}"
        );
    }
    assert!(matches!(
        spell("dispel magic").effects[0],
        SpellEffect::Dispel { max_cl: 10 }
    ));
    for (name, special) in [
        ("haste", "haste"),
        ("slow", "slow"),
        ("enlarge person", "enlarge_person"),
        ("reduce person", "reduce_person"),
        ("invisibility", "invisibility"),
    ] {
        assert!(
            spell(name)
                .effects
                .iter()
                .any(|e| matches!(e, SpellEffect::Special { name: n } if n == special)),
            "{name} names the special {special}"
        );
    }
}
