//! Every shipped data file loads, carries its SRD source and license, and a few stat blocks
//! match the SRD numbers exactly. Also checks that bad input is reported with the field path.

use pf1e_engine::content::combatant::{AttackKind, AttackSpec, CombatantSpec, DataError, Size};
use pf1e_engine::content::map::MapSpec;
use pf1e_engine::geometry::grid::Cell;
use serde_json::json;
use std::path::{Path, PathBuf};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../data")
}

/// Files of `dir` with extension `ext`, sorted by name.
fn files_with_ext(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    files
}

fn monster(file: &str) -> CombatantSpec {
    let path = data_dir().join("monsters").join(file);
    CombatantSpec::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn attack<'a>(spec: &'a CombatantSpec, id: &str) -> &'a AttackSpec {
    spec.attacks
        .iter()
        .find(|a| a.weapon_id() == id)
        .unwrap_or_else(|| panic!("{} has no attack `{id}`", spec.name))
}

fn is_snake_case(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

#[test]
fn every_monster_file_loads_with_source_and_license() {
    let files = files_with_ext(&data_dir().join("monsters"), "json");
    assert!(
        files.len() >= 10,
        "expected at least 10 monsters, found {}",
        files.len()
    );
    for path in &files {
        let spec = CombatantSpec::load(path).unwrap_or_else(|e| panic!("{e}"));
        let file = path.display();
        assert!(
            spec.source.starts_with("PF1e SRD — "),
            "{file}: source `{}` must start with `PF1e SRD — `",
            spec.source
        );
        assert_eq!(spec.license.as_deref(), Some("OGL-1.0a"), "{file}: license");
        assert!(!spec.player_character, "{file}: a monster is not a PC");
        assert!(spec.cr.is_some() && spec.xp.is_some(), "{file}: cr and xp");
        assert!(spec.creature_type.is_some(), "{file}: creature_type");
        assert!(spec.level >= 1, "{file}: level is the Hit Dice count");
        assert!(!spec.attacks.is_empty(), "{file}: at least one attack");
        for a in &spec.attacks {
            let id =
                a.id.as_deref()
                    .unwrap_or_else(|| panic!("{file}: `{}` has no id", a.name));
            assert!(is_snake_case(id), "{file}: id `{id}` is not snake_case");
            assert_eq!(
                a.damage_bonus, 0,
                "{file}: `{id}`: the flat bonus is in the formula"
            );
            for d in &a.damage {
                assert!(!d.types.is_empty(), "{file}: `{id}`: damage without a type");
            }
        }
    }
}

#[test]
fn goblin_matches_the_srd() {
    let g = monster("goblin.json");
    assert_eq!(g.name, "Goblin");
    assert_eq!(g.source, "PF1e SRD — Bestiary: Goblin");
    assert_eq!(g.size, Size::Small);
    assert_eq!((g.ac.total, g.ac.touch, g.ac.flat_footed), (16, 13, 14));
    assert_eq!(g.hp_max, 6);
    assert_eq!(g.level, 1);
    assert_eq!(g.initiative_mod, 6);
    assert_eq!(g.bab, 1);
    assert_eq!((g.saves.fort, g.saves.reflex, g.saves.will), (3, 2, -1));
    assert_eq!(g.cr.as_deref(), Some("1/3"));
    assert_eq!(g.xp, Some(135));
    assert_eq!(g.feats, vec!["Improved Initiative".to_string()]);

    let sword = attack(&g, "short_sword");
    assert_eq!(sword.kind, AttackKind::Melee);
    assert_eq!(sword.attack_bonus, 2);
    assert_eq!(sword.damage.len(), 1);
    assert_eq!(sword.damage[0].formula, "1d4");
    assert_eq!(sword.damage[0].types, vec!["piercing".to_string()]);
    assert_eq!((sword.crit_range, sword.crit_mult), (19, 2));
    assert_eq!(sword.range_increment_ft, None);

    let bow = attack(&g, "shortbow");
    assert_eq!(bow.kind, AttackKind::Ranged);
    assert_eq!(bow.attack_bonus, 4);
    assert_eq!(bow.damage[0].formula, "1d4");
    assert_eq!(bow.damage[0].types, vec!["piercing".to_string()]);
    assert_eq!((bow.crit_range, bow.crit_mult), (20, 3));
    assert_eq!(bow.range_increment_ft, Some(60));
    assert!(!bow.thrown);
}

#[test]
fn orc_matches_the_srd() {
    let o = monster("orc.json");
    assert_eq!((o.ac.total, o.ac.touch, o.ac.flat_footed), (13, 10, 13));
    assert_eq!(o.hp_max, 6);
    assert_eq!(o.initiative_mod, 0);
    assert!(o.features.iter().any(|f| f == "ferocity"));

    let falchion = attack(&o, "falchion");
    assert_eq!(o.attacks[0].weapon_id(), "falchion", "melee first");
    assert_eq!(falchion.kind, AttackKind::Melee);
    assert_eq!(falchion.attack_bonus, 5);
    assert_eq!(falchion.damage[0].formula, "2d4+4");
    assert_eq!(falchion.damage[0].types, vec!["slashing".to_string()]);
    assert_eq!((falchion.crit_range, falchion.crit_mult), (18, 2));
    assert!(falchion.two_handed);
    assert!(!falchion.reach_weapon);

    let javelin = attack(&o, "javelin");
    assert_eq!(javelin.kind, AttackKind::Ranged);
    assert_eq!(javelin.attack_bonus, 1);
    assert_eq!(javelin.damage[0].formula, "1d6+3");
    assert_eq!(javelin.range_increment_ft, Some(30));
    assert!(javelin.thrown);
}

#[test]
fn ogre_is_large_with_reach_10() {
    let o = monster("ogre.json");
    assert_eq!(o.size, Size::Large);
    assert_eq!(o.size.natural_reach_ft(), 10);
    assert_eq!((o.ac.total, o.ac.touch, o.ac.flat_footed), (17, 8, 17));
    assert_eq!(o.hp_max, 30);
    assert_eq!(o.level, 4);
    let club = attack(&o, "greatclub");
    assert_eq!(club.attack_bonus, 7);
    assert_eq!(club.damage[0].formula, "2d8+7");
    assert_eq!(club.damage[0].types, vec!["bludgeoning".to_string()]);
    assert_eq!(club.reach_ft, Some(10));
    assert!(club.two_handed);
    assert!(!club.reach_weapon, "a greatclub has no reach quality");
}

#[test]
fn skeleton_is_undead_with_dr_5_bludgeoning() {
    let s = monster("human_skeleton.json");
    assert_eq!(s.creature_type.as_deref(), Some("undead"));
    assert_eq!(s.abilities.con_score, None);
    assert_eq!(s.abilities.con_mod(), 0);
    let dr = s.dr.as_ref().expect("skeleton has DR");
    assert_eq!(dr.amount, 5);
    assert_eq!(dr.bypass, vec!["bludgeoning".to_string()]);
    assert_eq!(s.immunities, vec!["cold".to_string()]);
    assert_eq!(s.hp_max, 4);
    let claws = attack(&s, "claws");
    assert!(claws.natural);
    assert_eq!(claws.count, 2);
    assert_eq!(claws.attack_bonus, 2);
    let claw = attack(&s, "claw_secondary");
    assert!(claw.natural && claw.secondary);
    assert_eq!(claw.attack_bonus, -3);

    let z = monster("human_zombie.json");
    assert_eq!(z.abilities.con_score, None);
    let dr = z.dr.as_ref().expect("zombie has DR");
    assert_eq!(
        (dr.amount, dr.bypass.clone()),
        (5, vec!["slashing".to_string()])
    );
    assert!(z.immunities.is_empty());
    assert!(z.features.iter().any(|f| f == "staggered"));
}

// ---------------------------------------------------------------------------------------------
// Bad input: the error names the field path.

/// The goblin's JSON, edited by `edit`, parsed under the origin name `bad.json`.
fn load_edited(edit: impl FnOnce(&mut serde_json::Value)) -> Result<CombatantSpec, DataError> {
    let text = std::fs::read_to_string(data_dir().join("monsters/goblin.json")).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(&mut value);
    CombatantSpec::from_json_str(&value.to_string(), "bad.json")
}

/// The `(field, reason)` of a field error; panics on success or an I/O error.
fn field_error(result: Result<CombatantSpec, DataError>) -> (String, String) {
    match result {
        Err(err @ DataError::Field { .. }) => {
            let shown = err.to_string();
            assert!(shown.starts_with("bad.json: "), "names the file: {shown}");
            let DataError::Field { field, reason, .. } = err else {
                unreachable!()
            };
            (field, reason)
        }
        Err(other) => panic!("expected a field error, got {other}"),
        Ok(_) => panic!("expected an error, the edited file loaded"),
    }
}

#[test]
fn unedited_goblin_parses_from_text() {
    assert!(load_edited(|_| {}).is_ok());
}

#[test]
fn unknown_field_is_named() {
    let (field, reason) = field_error(load_edited(|v| {
        let hp = v["hp_max"].take();
        v.as_object_mut().unwrap().remove("hp_max");
        v["hp_maxx"] = hp;
    }));
    assert_eq!(field, "hp_maxx", "{reason}");
    assert!(reason.contains("unknown field"), "{reason}");

    let (field, reason) = field_error(load_edited(|v| {
        v["attacks"][0]["crit_rnage"] = serde_json::json!(19);
    }));
    assert_eq!(field, "attacks[0].crit_rnage", "{reason}");
}

#[test]
fn wrong_type_names_the_field() {
    let (field, _) = field_error(load_edited(|v| v["hp_max"] = serde_json::json!("six")));
    assert_eq!(field, "hp_max");

    let (field, _) = field_error(load_edited(|v| {
        v["attacks"][1]["range_increment_ft"] = serde_json::json!("60 ft.");
    }));
    assert_eq!(field, "attacks[1].range_increment_ft");
}

#[test]
fn bad_dice_formula_names_the_field() {
    let (field, _) = field_error(load_edited(|v| {
        v["attacks"][0]["damage"][0]["formula"] = serde_json::json!("1d4+");
    }));
    assert_eq!(field, "attacks[0].damage[0].formula");

    let (field, _) = field_error(load_edited(|v| {
        v["attacks"][1]["damage"][0]["formula"] = serde_json::json!("one d four");
    }));
    assert_eq!(field, "attacks[1].damage[0].formula");
}

#[test]
fn bad_crit_range_names_the_field() {
    // Out of range.
    let (field, _) = field_error(load_edited(|v| {
        v["attacks"][0]["crit_range"] = serde_json::json!(21);
    }));
    assert_eq!(field, "attacks[0].crit_range");
    // Stat-block notation instead of the lowest threatening roll.
    let (field, _) = field_error(load_edited(|v| {
        v["attacks"][0]["crit_range"] = serde_json::json!("19-20");
    }));
    assert_eq!(field, "attacks[0].crit_range");
}

// ---------------------------------------------------------------------------------------------
// Maps.

fn map(file: &str) -> MapSpec {
    let path = data_dir().join("maps").join(file);
    MapSpec::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_map_file_loads() {
    let files = files_with_ext(&data_dir().join("maps"), "yaml");
    assert!(
        files.len() >= 2,
        "expected at least 2 maps, found {}",
        files.len()
    );
    for path in &files {
        let m = MapSpec::load(path).unwrap_or_else(|e| panic!("{e}"));
        assert!(m.rows > 0 && m.cols > 0, "{}: empty map", path.display());
        for (side, letter) in &m.deployment {
            assert!(
                !m.zone_cells(*letter).is_empty(),
                "{}: side `{side}` deploys in empty zone {letter}",
                path.display()
            );
        }
    }
}

#[test]
fn sample_arena_is_the_seed_map() {
    let m = map("sample_arena.yaml");
    assert_eq!(m.name, "Arène d'essai");
    assert_eq!(m.square_size_ft, 5);
    assert_eq!((m.rows, m.cols), (8, 20));
    assert_eq!(
        m.deployment,
        vec![("players".to_string(), 'A'), ("monsters".to_string(), 'B')]
    );
    assert_eq!(
        m.markers,
        vec![("autel".to_string(), Cell { row: 1, col: 16 })]
    );
    assert_eq!(m.elevation[1][2], 1);
    assert_eq!(m.terrain_at(Cell { row: 4, col: 3 }).move_cost, Some(2));
    assert_eq!(m.terrain_at(Cell { row: 0, col: 0 }).move_cost, None);
}

#[test]
fn mirror_duel_zones_are_mirror_images() {
    let m = map("mirror_duel.yaml");
    assert_eq!(
        m.deployment,
        vec![("west".to_string(), 'A'), ("east".to_string(), 'B')]
    );
    for r in 0..m.rows {
        for c in 0..m.cols {
            let here = Cell { row: r, col: c };
            let there = Cell {
                row: r,
                col: m.cols - 1 - c,
            };
            assert_eq!(
                m.terrain_at(here),
                m.terrain_at(there),
                "terrain at {r},{c}"
            );
        }
    }
    let a = m.zone_cells('A');
    let b = m.zone_cells('B');
    assert!(!a.is_empty());
    assert_eq!(a.len(), b.len());
    for (ca, cb) in a.iter().zip(&b) {
        assert_eq!(ca.row, cb.row);
        assert_eq!(ca.col, m.cols - 1 - cb.col, "{ca:?} mirrors {cb:?}");
    }
}

/// Numbers beyond any published creature are refused by name (arithmetic can never overflow).
#[test]
fn out_of_range_numbers_are_named() {
    for (path, value, field) in [
        (
            &["attack_bonus"][..],
            json!(2147483647),
            "attacks[0].attack_bonus",
        ),
        (
            &["initiative_mod"][..],
            json!(-2147483648i64),
            "initiative_mod",
        ),
        (&["hp_max"][..], json!(1_000_000), "hp_max"),
        (
            &["damage_bonus"][..],
            json!(100_000),
            "attacks[0].damage_bonus",
        ),
    ] {
        let r = load_edited(|v| {
            let target = if path[0] == "attack_bonus" || path[0] == "damage_bonus" {
                &mut v["attacks"][0]
            } else {
                v
            };
            target[path[0]] = value.clone();
        });
        let (f, _) = field_error(r);
        assert_eq!(f, field);
    }
    let r = load_edited(|v| v["attacks"][0]["damage"][0]["formula"] = json!("1000d1000"));
    assert_eq!(field_error(r).0, "attacks[0].damage[0].formula");
}

/// Trailing characters after the JSON value are an error, not silently ignored.
#[test]
fn trailing_garbage_is_refused() {
    let text = std::fs::read_to_string(data_dir().join("monsters/goblin.json")).unwrap();
    let r = CombatantSpec::from_json_str(&format!("{text} garbage"), "bad.json");
    assert_eq!(field_error(r).0, "<root>");
}

/// Maps: deeply nested YAML and oversized maps are refused before any expensive work.
#[test]
fn map_nesting_and_size_limits() {
    let nested = format!(
        "name: {}x{}\nterrain: |\n  ..\nlegend:\n  \".\": {{ type: floor, move_cost: 1 }}\n",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let t = std::time::Instant::now();
    let e = MapSpec::from_yaml_str(&nested, "deep.yaml").unwrap_err();
    assert!(e.to_string().contains("nested deeper"), "{e}");
    assert!(t.elapsed().as_secs() < 5);
    let row = ".".repeat(300);
    let big = format!(
        "name: big\nterrain: |\n{}legend:\n  \".\": {{ type: floor, move_cost: 1 }}\n",
        format!("  {row}\n").repeat(3)
    );
    let e = MapSpec::from_yaml_str(&big, "big.yaml").unwrap_err();
    assert!(e.to_string().contains("at most 256"), "{e}");
}
