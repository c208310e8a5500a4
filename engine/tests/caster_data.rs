//! The sample player characters of `data/pcs/` and the Bestiary casters of `data/monsters/`:
//! every PC loads with its spells resolved against `data/spells/`, is a player character, and
//! has the spells per day of its class table plus the bonus spells of its casting ability
//! (CRB — Classes: the class tables; CRB — Getting Started, Table 1-3: Ability Modifiers and
//! Bonus Spells); spell DCs are 10 + spell level + the casting ability modifier (CRB — Magic:
//! Saving Throw). The Bestiary casters keep their printed DCs, SR and caster levels.

use pf1e_engine::content::combatant::{ability_modifier, CastingAbility, CombatantSpec, SpellUses};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data")
}

fn load(dir: &str, file: &str) -> CombatantSpec {
    CombatantSpec::load(&data_dir().join(dir).join(file)).unwrap_or_else(|e| panic!("{e}"))
}

fn pc(file: &str) -> CombatantSpec {
    load("pcs", file)
}

fn monster(file: &str) -> CombatantSpec {
    load("monsters", file)
}

/// Bonus spells per day of spell level `level` for an ability modifier `m` (CRB Table 1-3).
fn bonus_spells(m: i32, level: u8) -> u32 {
    let l = i32::from(level);
    if level == 0 || m < l {
        0
    } else {
        ((m - l) / 4 + 1) as u32
    }
}

/// Spells per day by class level (index 0 = 1st level) and spell level (index 0 = cantrips),
/// levels 1–5 of the CRB/APG class tables, without bonus spells or domain/school slots.
fn class_table(class: &str) -> [[u32; 4]; 5] {
    match class {
        // CRB Table: Cleric (the "+1" domain slots are added separately) and Table: Druid.
        "cleric" | "druid" => [
            [3, 1, 0, 0],
            [4, 2, 0, 0],
            [4, 2, 1, 0],
            [4, 3, 2, 0],
            [4, 3, 2, 1],
        ],
        // CRB Table: Wizard; APG Table: Witch (the same numbers).
        "wizard" | "witch" => [
            [3, 1, 0, 0],
            [4, 2, 0, 0],
            [4, 2, 1, 0],
            [4, 3, 2, 0],
            [4, 3, 2, 1],
        ],
        // CRB Table: Sorcerer (spells per day; cantrips at will).
        "sorcerer" => [
            [0, 3, 0, 0],
            [0, 4, 0, 0],
            [0, 5, 0, 0],
            [0, 6, 3, 0],
            [0, 6, 4, 0],
        ],
        // CRB Table: Bard.
        "bard" => [
            [0, 1, 0, 0],
            [0, 2, 0, 0],
            [0, 3, 0, 0],
            [0, 3, 1, 0],
            [0, 4, 2, 0],
        ],
        other => panic!("no table for {other}"),
    }
}

/// Spells known of a spontaneous caster (CRB Table: Sorcerer / Bard Spells Known), levels 1–5.
fn known_table(class: &str) -> [[u32; 3]; 5] {
    match class {
        "sorcerer" => [[4, 2, 0], [5, 2, 0], [5, 3, 0], [6, 3, 1], [6, 4, 2]],
        "bard" => [[4, 2, 0], [5, 3, 0], [6, 4, 0], [6, 4, 2], [6, 4, 3]],
        other => panic!("no spells known table for {other}"),
    }
}

/// Extra prepared slots per spell level 1+: a cleric's domain slot, a druid's domain slot
/// (nature bond), a specialist wizard's school slot — when the PC has one.
fn extra_slots(spec: &CombatantSpec) -> u32 {
    let has = |what: &str| spec.class_features.iter().any(|f| f.contains(what));
    match spec.caster_class.as_deref() {
        Some("cleric") => 1,
        Some("druid") if has("domain") => 1,
        Some("wizard") if has("arcane school") && !has("universalist") => 1,
        _ => 0,
    }
}

/// Spells the engine's list lacks, named in `class_features` as "spell known: NAME (LEVEL, …".
fn unlisted_known(spec: &CombatantSpec, level: u8) -> u32 {
    let tag = format!("({level}, ");
    spec.class_features
        .iter()
        .filter(|f| f.starts_with("spell known:") && f.contains(&tag))
        .count() as u32
}

const PCS: [(&str, &str, i32); 6] = [
    ("cleric_3.json", "cleric", 3),
    ("wizard_5.json", "wizard", 5),
    ("sorcerer_4.json", "sorcerer", 4),
    ("druid_3.json", "druid", 3),
    ("bard_2.json", "bard", 2),
    ("witch_1.json", "witch", 1),
];

#[test]
fn every_pc_file_loads_as_a_player_character() {
    let dir = data_dir().join("pcs");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 6,
        "expected at least 6 PCs, found {}",
        files.len()
    );
    for path in &files {
        let spec = CombatantSpec::load(path).unwrap_or_else(|e| panic!("{e}"));
        let file = path.display();
        assert!(spec.player_character, "{file}: player_character");
        assert!(
            spec.source.starts_with("PF1e SRD — ")
                && spec.source.contains("sample character built by the CRB"),
            "{file}: source `{}`",
            spec.source
        );
        assert_eq!(spec.license.as_deref(), Some("OGL-1.0a"), "{file}: license");
        assert!((1..=5).contains(&spec.level), "{file}: level 1-5");
        assert!(spec.spells_resolved(), "{file}: spells resolved");
        assert!(!spec.spellbook().is_empty(), "{file}: a caster");
        assert!(
            spec.caster_class.is_some() && spec.casting_ability.is_some(),
            "{file}"
        );
        assert_eq!(
            spec.caster_level(),
            spec.level,
            "{file}: caster level = class level"
        );
        assert!(
            !spec.class_features.is_empty(),
            "{file}: class features listed"
        );
        assert!(!spec.attacks.is_empty(), "{file}: weapons");
        let notes = spec.notes.as_deref().unwrap_or("");
        assert!(
            notes.contains("20-point buy"),
            "{file}: notes name the ability method"
        );
        for a in &spec.attacks {
            assert!(a.id.is_some(), "{file}: `{}` has an id", a.name);
            assert!(
                a.damage.iter().all(|d| !d.types.is_empty()),
                "{file}: types"
            );
        }
    }
}

#[test]
fn pc_spells_match_their_class_tables_and_bonus_spells() {
    for (file, class, level) in PCS {
        let s = pc(file);
        assert_eq!(s.caster_class.as_deref(), Some(class), "{file}");
        assert_eq!(s.level, level, "{file}");
        let ability = match class {
            "cleric" | "druid" => CastingAbility::Wis,
            "wizard" | "witch" => CastingAbility::Int,
            _ => CastingAbility::Cha,
        };
        assert_eq!(s.casting_ability, Some(ability), "{file}: casting ability");
        let m = s.casting_modifier();
        let row = (level - 1) as usize;
        let table = class_table(class)[row];
        let book = s.spellbook();
        let mut count: BTreeMap<u8, u32> = BTreeMap::new();
        for sp in book.iter().filter(|sp| !sp.spell_like) {
            *count.entry(sp.level).or_default() += match sp.uses {
                SpellUses::Counted(n) => n,
                SpellUses::Slot | SpellUses::Unlimited => 1,
            };
            assert!(
                usize::from(sp.level) < 4 && (sp.level == 0 || table[usize::from(sp.level)] > 0),
                "{file}: {} at level {} has no slot of its level",
                sp.spell.name,
                sp.level
            );
            // Every spell is on the class's list at the level it is known/prepared at, except
            // a domain spell in a domain slot (the druid's produce flame at 2nd).
            let listed = sp.spell.level_for(Some(class));
            assert!(
                listed == sp.level || (extra_slots(&s) == 1 && listed < sp.level),
                "{file}: {} is level {listed} for a {class}, not {}",
                sp.spell.name,
                sp.level
            );
        }
        match class {
            "sorcerer" | "bard" => {
                // Spontaneous: spells known, and slots = table + bonus spells.
                let known = known_table(class)[row];
                for lv in 0..3u8 {
                    let mut want = known[usize::from(lv)];
                    if class == "sorcerer" && level >= 3 && lv == 1 {
                        want += 1; // bloodline spell of 1st level (3rd)
                    }
                    let have = count.get(&lv).copied().unwrap_or(0) + unlisted_known(&s, lv);
                    assert_eq!(have, want, "{file}: spells known of level {lv}");
                }
                for lv in 1..4u8 {
                    let base = table[usize::from(lv)];
                    let want = if base == 0 {
                        0
                    } else {
                        base + bonus_spells(m, lv)
                    };
                    assert_eq!(s.slots_of(lv), Some(want), "{file}: slots of level {lv}");
                }
                assert!(
                    book.iter().all(|sp| sp.uses
                        == if sp.level == 0 {
                            SpellUses::Unlimited
                        } else {
                            SpellUses::Slot
                        }),
                    "{file}: spontaneous spells are cast from slots"
                );
            }
            _ => {
                // Prepared: cantrips (unlimited once prepared) = the table's count; each level
                // 1+ = table + bonus spells + domain/school slot.
                assert!(
                    s.spell_slots.is_empty(),
                    "{file}: a prepared caster has no spell_slots"
                );
                for lv in 0..4u8 {
                    let base = table[usize::from(lv)];
                    let want = if lv == 0 || base == 0 {
                        base
                    } else {
                        base + bonus_spells(m, lv) + extra_slots(&s)
                    };
                    assert_eq!(
                        count.get(&lv).copied().unwrap_or(0),
                        want,
                        "{file}: spells prepared of level {lv}"
                    );
                }
                assert!(
                    book.iter()
                        .all(|sp| (sp.level == 0) == (sp.uses == SpellUses::Unlimited)),
                    "{file}: cantrips unlimited, others counted"
                );
            }
        }
    }
}

/// The DC of `name` in `spec`'s spellbook.
fn dc(spec: &CombatantSpec, name: &str) -> i32 {
    spec.spellbook()
        .iter()
        .find(|sp| sp.spell.name == name)
        .unwrap_or_else(|| panic!("{} has no {name}", spec.name))
        .dc
}

#[test]
fn pc_spell_dcs_are_ten_plus_level_plus_modifier() {
    // One spell of each PC (CRB — Magic: Saving Throw).
    let cases = [
        ("cleric_3.json", "command", 1, 18),
        ("wizard_5.json", "color spray", 1, 19),
        ("sorcerer_4.json", "burning hands", 1, 20),
        ("druid_3.json", "entangle", 1, 18),
        ("bard_2.json", "sleep", 1, 18),
        ("witch_1.json", "sleep", 1, 18),
    ];
    for (file, spell, level, score) in cases {
        let s = pc(file);
        let m = ability_modifier(Some(score));
        assert_eq!(s.casting_modifier(), m, "{file}");
        assert_eq!(dc(&s, spell), 10 + level + m, "{file}: {spell}");
    }
    // Spell Focus (evocation) is in the wizard's printed evocation DCs: +1.
    let w = pc("wizard_5.json");
    assert_eq!(dc(&w, "fireball"), 10 + 3 + 4 + 1);
    assert!(w.feats.iter().any(|f| f == "Spell Focus (evocation)"));
    assert!(w.feats.iter().any(|f| f == "Empower Spell"));
}

#[test]
fn pc_numbers_follow_the_crb_rules() {
    // Cleric 3: d8, max at 1st, 5 after, Con +2, favored class +1/level, Toughness +3.
    let c = pc("cleric_3.json");
    assert_eq!(c.hp_max, 8 + 5 + 5 + 6 + 3 + 3);
    assert_eq!((c.ac.total, c.ac.touch, c.ac.flat_footed), (17, 10, 17));
    assert_eq!((c.saves.fort, c.saves.reflex, c.saves.will), (5, 1, 7));
    assert_eq!((c.bab, c.initiative_mod, c.speed_land_ft), (2, 4, 20));
    // Wizard 5: d6, 4 after 1st, Con +2, favored class, Toughness +5.
    let w = pc("wizard_5.json");
    assert_eq!(w.hp_max, 6 + 4 * 4 + 10 + 5 + 5);
    assert_eq!((w.saves.fort, w.saves.reflex, w.saves.will), (3, 3, 5));
    assert_eq!(w.bab, 2);
    // Sorcerer 4: draconic resist fire 5 and +1 natural armor.
    let s = pc("sorcerer_4.json");
    assert_eq!(s.resistances.get("fire"), Some(&5));
    assert_eq!((s.ac.total, s.ac.touch, s.ac.flat_footed), (12, 11, 11));
    // Druid 3: Dodge in AC and touch AC, not flat-footed.
    let d = pc("druid_3.json");
    assert_eq!((d.ac.total, d.ac.touch, d.ac.flat_footed), (19, 13, 16));
    // Bard 2: Weapon Finesse in the rapier.
    let b = pc("bard_2.json");
    assert_eq!(b.attacks[0].attack_bonus, 1 + 2);
    // Witch 1: 6 + 2 + 1.
    assert_eq!(pc("witch_1.json").hp_max, 9);
}

#[test]
fn drow_noble_matches_the_srd() {
    let d = monster("drow_noble.json");
    assert_eq!(d.spell_resistance, 14);
    assert_eq!(d.caster_level(), 3);
    assert_eq!(dc(&d, "hold person"), 15);
    assert_eq!(dc(&d, "cause fear"), 14);
    assert_eq!(dc(&d, "bleed"), 13);
    assert_eq!((d.ac.total, d.ac.touch, d.ac.flat_footed), (21, 13, 18));
    assert!(d
        .spellbook()
        .iter()
        .any(|s| s.spell.name == "dispel magic" && s.spell_like));
}

#[test]
fn lich_matches_the_srd() {
    let l = monster("lich.json");
    assert_eq!(l.hp_max, 111);
    assert_eq!(l.caster_level(), 11);
    assert_eq!(dc(&l, "fireball"), 19);
    assert_eq!(dc(&l, "bleed"), 16);
    let dr = l.dr.as_ref().unwrap();
    assert_eq!(
        (dr.amount, dr.bypass.clone()),
        (15, vec!["bludgeoning".into(), "magic".into()])
    );
    assert_eq!(l.abilities.con_score, None);
    assert!(l.immunities.contains(&"cold".to_string()));
}

#[test]
fn spirit_naga_matches_the_srd() {
    let n = monster("naga_spirit.json");
    assert_eq!(n.caster_level(), 7);
    assert_eq!(dc(&n, "fireball"), 16);
    assert_eq!(dc(&n, "daze"), 13);
    assert_eq!(
        (n.slots_of(1), n.slots_of(2), n.slots_of(3)),
        (Some(7), Some(7), Some(5))
    );
    assert_eq!(n.hp_max, 95);
}

#[test]
fn nymph_matches_the_srd() {
    let n = monster("nymph.json");
    assert_eq!(n.caster_level(), 7);
    assert_eq!(dc(&n, "call lightning"), 16);
    assert_eq!(dc(&n, "entangle"), 14);
    assert_eq!(n.dr.as_ref().unwrap().amount, 10);
    assert_eq!((n.ac.total, n.ac.touch, n.ac.flat_footed), (23, 23, 17));
}

#[test]
fn green_hag_matches_the_srd() {
    let h = monster("green_hag.json");
    assert_eq!(h.spell_resistance, 16);
    let inv = &h.spellbook()[0];
    assert_eq!(
        (inv.spell.name.as_str(), inv.caster_level),
        ("invisibility", 9)
    );
    assert_eq!(inv.uses, SpellUses::Unlimited);
    assert_eq!(h.attacks[0].count, 2);
}

#[test]
fn imp_and_quasit_match_the_srd() {
    let i = monster("devil_imp.json");
    assert_eq!(i.spellbook()[0].caster_level, 6);
    assert_eq!(i.speed_fly_ft, Some(50));
    assert!(i.immunities.contains(&"fire".to_string()));
    let q = monster("demon_quasit.json");
    assert_eq!(dc(&q, "cause fear"), 11);
    let fear = q
        .spellbook()
        .iter()
        .find(|s| s.spell.name == "cause fear")
        .unwrap();
    assert_eq!((fear.uses, fear.caster_level), (SpellUses::Counted(1), 6));
    assert_eq!(q.initiative_mod, 6);
}

#[test]
fn pixie_matches_the_srd() {
    let p = monster("pixie.json");
    assert_eq!(p.spell_resistance, 15);
    assert_eq!(dc(&p, "entangle"), 14);
    assert!(p
        .spellbook()
        .iter()
        .all(|s| s.spell_like && s.caster_level == 8));
    assert_eq!(p.spellbook().len(), 3);
}

#[test]
fn dire_bat_matches_the_srd() {
    let b = monster("dire_bat.json");
    assert_eq!(b.hp_max, 22);
    assert_eq!((b.ac.total, b.ac.touch, b.ac.flat_footed), (14, 11, 12));
    assert_eq!(b.speed_fly_ft, Some(40));
    assert_eq!(b.attacks[0].damage[0].formula, "1d8+4");
    assert!(!b.has_spells());
}

#[test]
fn casters_scenario_names_existing_files_and_fits_its_zones() {
    use pf1e_engine::content::map::MapSpec;
    let text = std::fs::read_to_string(data_dir().join("scenarios/casters.yaml")).unwrap();
    let v: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    let map_name = v["map"].as_str().unwrap();
    let map = MapSpec::load(&data_dir().join("maps").join(format!("{map_name}.yaml")))
        .unwrap_or_else(|e| panic!("{e}"));
    let sides = v["sides"].as_mapping().unwrap();
    assert_eq!(sides.len(), 2);
    let mut xp = 0;
    for (side, names) in sides {
        let side = side.as_str().unwrap();
        let letter = map
            .deployment
            .iter()
            .find(|(s, _)| s == side)
            .unwrap_or_else(|| panic!("side {side} not deployed"))
            .1;
        let mut squares = 0;
        for n in names.as_sequence().unwrap() {
            let n = n.as_str().unwrap();
            let (dir, spec) = ["pcs", "monsters"]
                .iter()
                .find_map(|d| {
                    let p = data_dir().join(d).join(format!("{n}.json"));
                    p.exists().then(|| (*d, CombatantSpec::load(&p).unwrap()))
                })
                .unwrap_or_else(|| panic!("{n}: no pcs/ or monsters/ file"));
            assert_eq!(spec.player_character, side == "players", "{n} in {dir}");
            squares += spec.size.footprint_side().pow(2);
            xp += spec.xp.unwrap_or(0);
        }
        assert!(
            map.zone_cells(letter).len() as i32 >= 2 * squares,
            "zone {letter} is roomy enough for {side}"
        );
    }
    // Green hag 1,600 + two ogres 800 each: CR 7 on paper for the party of APL 4.
    assert_eq!(xp, 3200);
}
