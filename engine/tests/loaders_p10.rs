//! P10 loader findings (break-it review): misleading dice messages, questionable input
//! accepted silently (negative dice, clamped numbers, explicit YAML tags, sides without
//! bound), unbounded file reads; and the regressions of the loader fuzz target (fuzz/).
mod common;

use common::{creature, melee, set};
use pf1e_engine::content::map::{MapError, MAX_MOVE_COST};
use pf1e_engine::content::{encounter::MAX_COMBATANTS, encounter::MAX_SIDES};
use pf1e_engine::dice::DiceExpr;
use pf1e_engine::{CombatantSpec, Encounter, MapSpec, RulesOptions};
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};

fn dice_err(text: &str) -> String {
    text.parse::<DiceExpr>().expect_err(text).to_string()
}

fn map_field_err(text: &str) -> (String, String) {
    match MapSpec::from_yaml_str(text, "t.yaml") {
        Err(MapError::Field { field, reason, .. }) => (field, reason),
        other => panic!("expected a field error, got {other:?}"),
    }
}

fn combatant_err(v: &serde_json::Value) -> String {
    CombatantSpec::from_json_str(&v.to_string(), "c.json")
        .expect_err("rejected")
        .to_string()
}

const TINY: &str = "name: t\nterrain: |\n  ..\nlegend:\n  \".\": { type: floor, move_cost: 1 }\n";

// Finding 1: `99999999999999999999d6` was reported as "dice count 1099511627776" (the
// tokenizer's saturation cap). Now: the number as written and the allowed range.
#[test]
fn dice_errors_quote_the_number_as_written_and_the_range() {
    let e = dice_err("99999999999999999999d6");
    assert!(e.contains("dice count 99999999999999999999"), "{e}");
    assert!(e.contains("1..=1000"), "{e}");
    assert!(!e.contains("1099511627776"), "{e}");
    let e = dice_err("1d99999999999999999999");
    assert!(
        e.contains("99999999999999999999") && e.contains("1..=1000"),
        "{e}"
    );
    assert!(!e.contains("1099511627776"), "{e}");
    let e = dice_err("1d6+99999999999999999999");
    assert!(
        e.contains("99999999999999999999") && e.contains("-100000..=100000"),
        "{e}"
    );
    let e = dice_err("1001d6");
    assert!(e.contains("1001") && e.contains("1..=1000"), "{e}");
    let e = dice_err("0d6");
    assert!(e.contains("dice count 0") && e.contains("1..=1000"), "{e}");
}

// Finding 2: `-1d6` parsed as a subtracted die, so a damage of `-1d6` healed silently.
#[test]
fn a_negative_dice_count_is_an_error() {
    for bad in ["-1d6", "-d6", " - 2d4 + 3", "2-1d4"] {
        let e = dice_err(bad);
        assert!(e.contains("negative dice count"), "{bad}: {e}");
        assert!(e.contains("1..=1000"), "{bad}: {e}");
    }
    // A later term may still subtract dice (CRB — Getting Started: Dice).
    assert_eq!(
        "1d8-1d4".parse::<DiceExpr>().unwrap().to_string(),
        "1d8-1d4"
    );
    let c = set(
        creature("x"),
        "attacks",
        json!([melee("claw", 2, "-1d6", "slashing")]),
    );
    let e = combatant_err(&c);
    assert!(e.contains("attacks[0].damage[0].formula"), "{e}");
    assert!(e.contains("negative dice count"), "{e}");
}

// Finding 2: `move_cost 4294967295` was accepted and clamped to 255 by the grid.
#[test]
fn move_cost_out_of_range_is_an_error_not_a_clamp() {
    for bad in ["4294967295", "256", "99999999999999"] {
        let text = TINY.replace("move_cost: 1", &format!("move_cost: {bad}"));
        let (f, r) = map_field_err(&text);
        assert_eq!(f, r#"legend["."].move_cost"#, "{r}");
        assert!(
            r.contains(bad) && r.contains(&format!("1..={MAX_MOVE_COST}")),
            "{r}"
        );
    }
    let ok = TINY.replace("move_cost: 1", "move_cost: 255");
    let m = MapSpec::from_yaml_str(&ok, "t").unwrap();
    assert_eq!(m.legend[&'.'].move_cost, Some(255));
}

// Finding 2: explicit tags (`!!binary`, `!!str`, local `!x`) were dropped by serde_yaml,
// silently: they are refused with the field.
#[test]
fn explicit_yaml_tags_are_refused_with_the_field() {
    let cases = [
        (
            TINY.replace("name: t", "name: !!binary dA=="),
            "name",
            "binary",
        ),
        (
            TINY.replace("move_cost: 1", "move_cost: !!str 1"),
            r#"legend["."].move_cost"#,
            "str",
        ),
        (
            TINY.replace("type: floor", "type: !floor floor"),
            r#"legend["."].type"#,
            "!floor",
        ),
        (
            TINY.replace("terrain: |", "terrain: !!str |"),
            "terrain",
            "str",
        ),
    ];
    for (text, field, tag) in cases {
        let (f, r) = map_field_err(&text);
        assert_eq!(f, field, "{text}: {r}");
        assert!(r.contains("explicit YAML tag") && r.contains(tag), "{r}");
    }
    // `!` as a terrain character, in a quoted or a plain scalar, is no tag.
    let bang = "name: Hello!\nterrain: |\n  !.\nlegend:\n  \"!\": { type: \"!x\", move_cost: 1 }\n  \".\": { type: floor, move_cost: 1 }\n";
    assert!(MapSpec::from_yaml_str(bang, "t").is_ok());
}

// Finding 2: a map's deployment, an encounter's sides and its combatants are bounded.
#[test]
fn sides_and_combatants_are_bounded() {
    let letters: Vec<char> = ('A'..='Z').take(MAX_SIDES + 1).collect();
    let row: String = letters.iter().collect();
    let floor = ".".repeat(letters.len());
    let dep: String = letters
        .iter()
        .enumerate()
        .map(|(i, l)| format!("  s{i}: {l}\n"))
        .collect();
    let text = format!(
        "name: t\nterrain: |\n  {floor}\nlegend:\n  \".\": {{ type: floor, move_cost: 1 }}\nzones: |\n  {row}\ndeployment:\n{dep}"
    );
    let (f, r) = map_field_err(&text);
    assert_eq!(f, "deployment");
    assert!(r.contains(&format!("at most {MAX_SIDES}")), "{r}");

    let map = MapSpec::from_yaml_str(
        "name: t\nterrain: |\n  ..\nlegend:\n  \".\": { type: floor, move_cost: 1 }\nzones: |\n  AB\ndeployment:\n  a: A\n  b: B\n",
        "t",
    )
    .unwrap();
    let spec = common::spec(&creature("x"));
    let sides: Vec<_> = (0..100_000)
        .map(|i| (format!("s{i}"), vec![("x".to_string(), spec.clone())]))
        .collect();
    let t = Instant::now();
    let e = Encounter::build(map.clone(), sides, RulesOptions::default()).unwrap_err();
    assert_eq!(e.field, "sides");
    assert!(e.reason.contains(&format!("at most {MAX_SIDES}")), "{e}");
    assert!(t.elapsed() < Duration::from_secs(5));
    let many = vec![("x".to_string(), spec.clone()); MAX_COMBATANTS + 1];
    let e = Encounter::build(
        map,
        vec![("a".into(), many), ("b".into(), vec![("x".into(), spec)])],
        RulesOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.field, "sides");
    assert!(
        e.reason.contains(&format!("at most {MAX_COMBATANTS}")),
        "{e}"
    );
}

// Finding 2 (combatant numbers): `sneak attack +100d6` was clamped to 20 dice, and a count
// past u32 fell back to the level formula, silently.
#[test]
fn sneak_attack_dice_out_of_range_are_errors() {
    for bad in [
        "sneak attack +100d6",
        "sneak attack +99999999999d6",
        "sneak attack +0d6",
    ] {
        let c = set(creature("x"), "features", json!([bad]));
        let e = combatant_err(&c);
        assert!(
            e.contains("features[0]") && e.contains("1..=20"),
            "{bad}: {e}"
        );
    }
    let c = set(creature("x"), "features", json!(["sneak attack +20d6"]));
    assert_eq!(common::spec(&c).resolved().sneak_dice, 20);
    // Numbers past their type are refused by the parser, naming the field.
    let c = set(creature("x"), "hp_max", json!(4_294_967_296_i64));
    assert!(combatant_err(&c).contains("hp_max"));
}

// Finding 3: files were read whole before the size check (`/dev/zero` → out of memory).
#[test]
fn loaders_read_through_a_bounded_reader() {
    let zero = Path::new("/dev/zero");
    if !zero.exists() {
        return;
    }
    let t = Instant::now();
    let e = MapSpec::load(zero).unwrap_err().to_string();
    assert!(
        e.contains("/dev/zero") && e.contains("1048576 bytes"),
        "{e}"
    );
    let e = CombatantSpec::load(zero).unwrap_err().to_string();
    assert!(
        e.contains("/dev/zero") && e.contains("1048576 bytes"),
        "{e}"
    );
    let e = pf1e_engine::content::read_text_bounded(zero, 10).unwrap_err();
    assert!(e.to_string().contains("more than 10 bytes"), "{e}");
    assert!(t.elapsed() < Duration::from_secs(10));
}

// Review of the second P10 stop: a key the author chose is quoted in a field path when it is
// not plain (letters, digits, `_`, `-`), by the tag scan and by every other check alike, so one
// field has one spelling whichever check refuses it.
#[test]
fn a_key_is_spelled_the_same_by_the_tag_scan_and_the_other_checks() {
    let markers = |v: &str| format!("{TINY}markers:\n  \".\": {v}\n");
    // serde_yaml's own raw path no longer precedes the reason.
    let dup = format!("{TINY}markers:\n  \"a b\": [0, 0]\n  \"a b\": [0, 1]\n");
    let (f, r) = map_field_err(&dup);
    assert!(f.starts_with("markers"), "{f}: {r}");
    assert!(!r.contains("a b:"), "{f}: {r}");
    let (off_map, r) = map_field_err(&markers("[9, 9]"));
    assert_eq!(off_map, r#"markers["."]"#, "{r}");
    let (tagged, r) = map_field_err(&markers("[0, !!int 0]"));
    assert_eq!(tagged, r#"markers["."][1]"#, "{r}");
    let spaced = |v: &str| format!("{TINY}markers:\n  \"a b\": {v}\n");
    assert_eq!(map_field_err(&spaced("[9, 9]")).0, r#"markers["a b"]"#);
    assert_eq!(
        map_field_err(&spaced("!!seq [0, 0]")).0,
        r#"markers["a b"]"#
    );
    // Unknown fields: at the top and inside a legend entry.
    let top = |v: &str| TINY.replace("name: t\n", &format!("name: t\n\"x y\": {v}\n"));
    assert_eq!(map_field_err(&top("1")).0, r#"["x y"]"#);
    assert_eq!(map_field_err(&top("!!int 1")).0, r#"["x y"]"#);
    let inner = TINY.replace("move_cost: 1 }", "move_cost: 1, \"x y\": 2 }");
    assert_eq!(map_field_err(&inner).0, r#"legend["."]["x y"]"#);
    // The unknown field's name runs to serde's closing text (a key may hold a backtick), and
    // a string value quoting serde's phrase is not taken for it.
    let backtick = TINY.replace("move_cost: 1 }", "move_cost: 1, \"a`b\": 2 }");
    assert_eq!(map_field_err(&backtick).0, r#"legend["."]["a`b"]"#);
    let quoting = TINY.replace("move_cost: 1", "move_cost: \"unknown field `zz`\"");
    assert_eq!(map_field_err(&quoting).0, r#"legend["."].move_cost"#);
    // An alias as a key has no text of its own: `[?]`, not the key `"?"`.
    let alias =
        "name: &n t\nterrain: |\n  ..\nlegend:\n  *n : { type: floor, move_cost: !!str 1 }\n";
    assert_eq!(map_field_err(alias).0, "legend[?].move_cost");
}
