//! Tactics specs (engine/src/tactics.rs, docs/tactics.md): parsing errors name the field, the
//! names are checked against the encounter, each criterion / rule / positioning changes the
//! decision the way it says, determinism, no refused action over many seeded fights of every
//! example in data/tactics/, and a closed-form statistical check.

mod common;

use common::*;
use pf1e_engine::tactics::built_in_plan;
use pf1e_engine::{
    Action, ActionKind, CombatantSpec, Encounter, Episode, MapSpec, RulesOptions, TacticsSpec,
};
use serde_json::json;
use std::path::PathBuf;
use std::sync::Arc;

fn data() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data")
}

fn parse(text: &str) -> TacticsSpec {
    TacticsSpec::from_yaml_or_json(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn parse_err(text: &str) -> (String, String) {
    let e = TacticsSpec::from_yaml_or_json(text).expect_err("should be refused");
    (e.field, e.reason)
}

fn with(enc: &Arc<Encounter>, side: &str, text: &str) -> Arc<Encounter> {
    Arc::new(
        enc.with_tactics(side, Arc::new(parse(text)))
            .unwrap_or_else(|e| panic!("{e}")),
    )
}

/// The plan of `actor` at its first turn (everyone else ends its turn at once).
fn plan_of(enc: Arc<Encounter>, actor: &str) -> (Vec<Action>, Option<Action>) {
    let mut ep = episode(enc, &[10; 64]);
    turn_of(&mut ep, actor);
    let a = cid(&ep, actor);
    built_in_plan(&ep, a)
}

#[test]
fn parsing_errors_name_the_field() {
    let cases = [
        (
            "name: x\ndescription: d\ndefault:\n  rules:\n    - when: { hp_below_fraction: 1.5 }\n      do: withdraw\n",
            "default.rules[0].when.hp_below_fraction",
            "fraction",
        ),
        (
            "name: x\ndescription: d\ndefault:\n  rules:\n    - do: withdraw\n    - when: { hp_below: 0.5 }\n      do: withdraw\n",
            "default.rules[1].when.hp_below",
            "unknown field `hp_below`",
        ),
        (
            "name: x\ndescription: d\ndefault:\n  target: [nearest, weakest]\n",
            "default.target[1]",
            "unknown variant `weakest`",
        ),
        (
            "name: x\ndescription: d\ndefault:\n  rules:\n    - do: dance\n",
            "default.rules[0].do",
            "unknown variant `dance`",
        ),
        (
            "name: x\ndescription: d\ncombatants:\n  goblin:\n    positioning: { keep_range_ft: 33 }\n",
            "combatants.goblin.positioning.keep_range_ft",
            "multiple of 5",
        ),
        (
            "name: x\ndescription: d\ndefault:\n  positioning: { prefer_cover: true }\n",
            "default.positioning.prefer_cover",
            "keep_range_ft",
        ),
        (
            "description: d\n",
            "(document)",
            "missing field `name`",
        ),
        (
            "name: x\ndescription: d\nextra: 1\n",
            "extra",
            "unknown field `extra`",
        ),
        (
            r#"{"name": "x", "description": "d", "default": {"rules": [{"when": {"round_at_least": 0}, "do": "end_turn"}]}}"#,
            "default.rules[0].when.round_at_least",
            "rounds start at 1",
        ),
        (
            "name: x\ndescription: d\ndefault:\n  rules:\n    - do: { cast: { spell: fireball, on: everyone } }\n",
            "default.rules[0].do.cast.on",
            "unknown variant `everyone`",
        ),
    ];
    for (text, field, reason) in cases {
        let (f, r) = parse_err(text);
        assert_eq!(f, field, "{text}: {r}");
        assert!(r.contains(reason), "{text}: {f}: {r}");
    }
}

#[test]
fn every_example_parses_and_round_trips_through_json() {
    let dir = data().join("tactics");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("yaml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let spec = parse(&text);
        assert!(!spec.description.trim().is_empty(), "{}", path.display());
        let json = serde_json::to_string(&spec).unwrap();
        assert_eq!(parse(&json), spec, "{}", path.display());
        n += 1;
    }
    assert!(n >= 4, "{n} examples");
}

#[test]
fn the_schema_lists_every_vocabulary() {
    let s = pf1e_engine::tactics_json_schema();
    assert_eq!(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert_eq!(s["additionalProperties"], false);
    let crit = s["$defs"]["criterion"]["anyOf"][0]["enum"]
        .as_array()
        .unwrap();
    for c in [
        "nearest",
        "lowest_hp",
        "highest_hp",
        "lowest_hp_fraction",
        "lowest_ac",
        "highest_ac",
        "casters_first",
        "threatened_by_ally",
        "attackable_now",
    ] {
        assert!(crit.iter().any(|x| x == c), "{c}");
        // Each criterion of the schema parses.
        parse(&format!(
            "name: x\ndescription: d\ndefault: {{ target: [{c}] }}\n"
        ));
    }
    let acts = s["$defs"]["action"]["anyOf"][0]["enum"].as_array().unwrap();
    for a in acts {
        parse(&format!(
            "name: x\ndescription: d\ndefault: {{ rules: [{{ do: {} }}] }}\n",
            a.as_str().unwrap()
        ));
    }
    let when = s["$defs"]["when"]["properties"].as_object().unwrap();
    assert_eq!(when.len(), 10);
    for b in ["positioning", "when", "rule", "block"] {
        assert_eq!(s["$defs"][b]["additionalProperties"], false, "{b}");
    }
}

/// hero (a) at (1,1); a wounded far goblin and a healthy near orc (b).
fn two_targets() -> Arc<Encounter> {
    let hero = set(
        creature("hero"),
        "attacks",
        json!([ranged("bow", 5, "1d6", "piercing", 60)]),
    );
    encounter(
        &room(5, 12),
        vec![
            unit("a", "hero", hero, (1, 1)),
            unit("a", "friend", creature("friend"), (5, 1)),
            unit("b", "orc", creature("orc"), (1, 5)),
            unit(
                "b",
                "goblin",
                set(creature("goblin"), "hp_max", json!(5)),
                (3, 10),
            ),
        ],
    )
}

fn target_of(p: &(Vec<Action>, Option<Action>)) -> Option<u16> {
    p.0.iter()
        .chain(p.1.iter())
        .find_map(|a| a.target)
        .map(|t| t.0)
}

#[test]
fn target_criteria_choose_the_target() {
    let enc = two_targets();
    let (orc, goblin) = (2, 3);
    // Default: the nearest (the orc).
    assert_eq!(target_of(&plan_of(enc.clone(), "hero")), Some(orc));
    let cases = [
        ("[lowest_hp]", goblin),
        ("[highest_hp]", orc),
        ("[nearest]", orc),
        ("[{ named: goblin }]", goblin),
        ("[{ named: Goblin }, nearest]", goblin),
        ("[casters_first, lowest_hp]", goblin),
        ("[threatened_by_ally, lowest_hp]", goblin),
    ];
    for (criteria, want) in cases {
        let e = with(
            &enc,
            "a",
            &format!("name: t\ndescription: d\ndefault: {{ target: {criteria} }}\n"),
        );
        let p = plan_of(e, "hero");
        assert_eq!(target_of(&p), Some(want), "{criteria}: {p:?}");
        assert_eq!(p.0[0].kind, ActionKind::FullAttack, "{criteria}: {p:?}");
    }
}

#[test]
fn names_are_checked_against_the_encounter() {
    let enc = two_targets();
    let bad = [
        (
            "name: t\ndescription: d\ndefault: { target: [{ named: ogre }] }\n",
            "default.target[0].named",
            "no enemy",
        ),
        (
            "name: t\ndescription: d\ndefault: { target: [{ named: friend }] }\n",
            "default.target[0].named",
            "no enemy",
        ),
        (
            "name: t\ndescription: d\ndefault: { positioning: { stay_adjacent_to: wizard } }\n",
            "default.positioning.stay_adjacent_to",
            "no combatant of side a",
        ),
        (
            "name: t\ndescription: d\ncombatants: { orc: {} }\n",
            "combatants.orc",
            "no combatant of side a",
        ),
        (
            "name: t\ndescription: d\ndefault: { rules: [{ do: { cast: { spell: fireball } } }] }\n",
            "default.rules[0].do.cast.spell",
            "knows the spell",
        ),
    ];
    for (text, field, why) in bad {
        let e = enc
            .with_tactics("a", Arc::new(parse(text)))
            .expect_err(text);
        assert_eq!(e.field, "tactics[a]");
        assert!(
            e.reason.starts_with(&format!("{field}: ")) && e.reason.contains(why),
            "{text}: {e}"
        );
    }
    let e = enc
        .with_tactics("c", Arc::new(parse("name: t\ndescription: d\n")))
        .unwrap_err();
    assert!(e.reason.contains("unknown side"), "{e}");
}

#[test]
fn tactics_change_the_encounter_hash_and_nothing_without_them() {
    let enc = two_targets();
    let plain = serde_json::to_string(&*enc).unwrap();
    assert!(!plain.contains("tactics"), "no key without tactics");
    let e = with(&enc, "a", "name: t\ndescription: d\n");
    assert_ne!(serde_json::to_string(&*e).unwrap(), plain);
}

/// A melee hero next to an enemy, with a second enemy far away.
fn melee_pair() -> Arc<Encounter> {
    encounter(
        &room(5, 12),
        vec![
            unit("a", "hero", creature("hero"), (3, 3)),
            unit("b", "brute", creature("brute"), (3, 4)),
            unit("b", "mage", creature("mage"), (3, 11)),
        ],
    )
}

#[test]
fn rules_in_order_first_applicable_wins() {
    let enc = melee_pair();
    let p = plan_of(enc.clone(), "hero");
    assert_eq!(p.0[0].kind, ActionKind::FullAttack, "{p:?}");
    let td = with(
        &enc,
        "a",
        "name: t\ndescription: d\ndefault: { rules: [{ when: { enemies_adjacent_at_least: 1 }, do: total_defense }] }\n",
    );
    assert_eq!(plan_of(td, "hero").0[0].kind, ActionKind::TotalDefense);
    // A condition that does not hold: the rule is skipped.
    let not = with(
        &enc,
        "a",
        "name: t\ndescription: d\ndefault: { rules: [{ when: { enemies_adjacent_at_least: 2 }, do: total_defense }, { when: { round_at_least: 2 }, do: withdraw }] }\n",
    );
    assert_eq!(plan_of(not, "hero").0[0].kind, ActionKind::FullAttack);
    // Order: withdraw first, then total defense.
    let w = with(
        &enc,
        "a",
        "name: t\ndescription: d\ndefault: { rules: [{ when: { threatened: true, target_adjacent: true }, do: withdraw }, { do: total_defense }] }\n",
    );
    let p = plan_of(w, "hero");
    assert_eq!(p.0[0].kind, ActionKind::Withdraw, "{p:?}");
    // hp_below_fraction 1 holds only when wounded: the hero is not.
    let hp = with(
        &enc,
        "a",
        "name: t\ndescription: d\ndefault: { rules: [{ when: { hp_below_fraction: 1.0 }, do: total_defense }] }\n",
    );
    assert_eq!(plan_of(hp, "hero").0[0].kind, ActionKind::FullAttack);
    // fight_defensively declares before the attack the rest would make.
    let fd = with(
        &enc,
        "a",
        "name: t\ndescription: d\ndefault: { rules: [{ when: { target_ac_at_most: 10 }, do: fight_defensively }] }\n",
    );
    let p = plan_of(fd, "hero");
    assert_eq!(
        p.0.iter().map(|a| a.kind).collect::<Vec<_>>(),
        vec![ActionKind::FightDefensively, ActionKind::FullAttack]
    );
    // A charge that is not possible (adjacent) is skipped: the next rule wins.
    let ch = with(
        &enc,
        "a",
        "name: t\ndescription: d\ndefault: { rules: [{ do: charge }, { do: end_turn }] }\n",
    );
    let p = plan_of(ch, "hero");
    assert!(p.0.is_empty() && p.1.is_none(), "{p:?}");
}

#[test]
fn positioning_changes_the_move() {
    let enc = melee_pair();
    // Target the far mage: the default plan moves (and provokes from the brute).
    let far = with(
        &enc,
        "a",
        "name: t\ndescription: d\ndefault: { target: [{ named: mage }] }\n",
    );
    let p = plan_of(far, "hero");
    assert!(
        p.0.iter()
            .any(|a| matches!(a.kind, ActionKind::Move | ActionKind::Charge)),
        "{p:?}"
    );
    // avoid_provoking: it stays and attacks the brute in melee instead.
    let safe = with(
        &enc,
        "a",
        "name: t\ndescription: d\ndefault: { target: [{ named: mage }], positioning: { avoid_provoking: true } }\n",
    );
    let p = plan_of(safe, "hero");
    assert_eq!(p.0[0].kind, ActionKind::FullAttack, "{p:?}");
    assert_eq!(p.0[0].target.map(|t| t.0), Some(1));
    // hold: no movement either way.
    let hold = with(
        &enc,
        "a",
        "name: t\ndescription: d\ndefault: { target: [{ named: mage }], positioning: { hold: true } }\n",
    );
    let p = plan_of(hold, "hero");
    assert!(
        p.0.iter().all(|a| !matches!(
            a.kind,
            ActionKind::Move | ActionKind::Charge | ActionKind::FiveFootStep
        )),
        "{p:?}"
    );
}

#[test]
fn keep_range_steps_away_and_shoots() {
    let archer = set(
        creature("archer"),
        "attacks",
        json!([ranged("bow", 5, "1d6", "piercing", 60)]),
    );
    let enc = encounter(
        &room(5, 12),
        vec![
            unit("a", "archer", archer, (3, 3)),
            unit("b", "brute", creature("brute"), (3, 4)),
        ],
    );
    let e = with(
        &enc,
        "a",
        "name: t\ndescription: d\ndefault: { positioning: { keep_range_ft: 20 } }\n",
    );
    let p = plan_of(e, "archer");
    // Threatened next to the brute: a 5-foot step out of its reach, then shoot, or a move
    // away then an attack — never a shot from where it stands.
    assert!(
        matches!(p.0[0].kind, ActionKind::FiveFootStep | ActionKind::Move),
        "{p:?}"
    );
    let dest = p.0[0].destination.unwrap();
    assert!(dest.col < 4, "moves away: {p:?}");
}

#[test]
fn seek_flanking_moves_to_the_opposite_side() {
    // The ally at (3,5) threatens the brute at (3,6); the hero comes from (1,2): the flanking
    // square is (3,7).
    let enc = encounter(
        &room(5, 12),
        vec![
            unit("a", "hero", creature("hero"), (1, 2)),
            unit("a", "ally", creature("ally"), (3, 5)),
            unit("b", "brute", creature("brute"), (3, 6)),
        ],
    );
    let plain = plan_of(enc.clone(), "hero");
    let e = with(
        &enc,
        "a",
        "name: t\ndescription: d\ndefault: { positioning: { seek_flanking: true } }\n",
    );
    let p = plan_of(e, "hero");
    assert_eq!(p.0[0].kind, ActionKind::Move, "{p:?} (default {plain:?})");
    let d = p.0[0].destination.unwrap();
    assert_eq!((d.row, d.col), (3, 7), "{p:?}");
    assert_eq!(p.1.as_ref().map(|a| a.kind), Some(ActionKind::Attack));
}

#[test]
fn stay_adjacent_to_keeps_the_bodyguard_home() {
    let enc = encounter(
        &room(5, 14),
        vec![
            unit("a", "wizard", creature("wizard"), (3, 1)),
            unit("a", "guard", creature("guard"), (3, 2)),
            unit("b", "brute", creature("brute"), (3, 12)),
        ],
    );
    let plain = plan_of(enc.clone(), "guard");
    assert!(
        plain
            .0
            .iter()
            .any(|a| matches!(a.kind, ActionKind::Move | ActionKind::Charge)),
        "{plain:?}"
    );
    let e = with(
        &enc,
        "a",
        "name: t\ndescription: d\ncombatants: { guard: { positioning: { stay_adjacent_to: wizard } } }\n",
    );
    let p = plan_of(e, "guard");
    assert!(
        p.0.iter()
            .all(|a| !matches!(a.kind, ActionKind::Move | ActionKind::Charge)),
        "{p:?}"
    );
}

#[test]
fn cast_rules_cast_the_spell_named() {
    let mage = caster("mage", 3, &["magic missile", "shield"], json!({"1": 3}));
    let enc = encounter(
        &room(5, 12),
        vec![
            unit("a", "mage", mage, (3, 1)),
            unit("b", "brute", creature("brute"), (3, 9)),
        ],
    );
    let e = with(
        &enc,
        "a",
        "name: t\ndescription: d\ndefault: { rules: [{ when: { has_spell_slot: shield }, do: { cast: { spell: shield, on: self } } }] }\n",
    );
    let p = plan_of(e, "mage");
    assert_eq!(p.0[0].kind, ActionKind::CastSpell, "{p:?}");
    assert_eq!(p.0[0].spell, Some(1));
    assert_eq!(p.0[0].target.map(|t| t.0), Some(0));
    let e = with(
        &enc,
        "a",
        "name: t\ndescription: d\ndefault: { rules: [{ do: { cast: { spell: Magic Missile } } }] }\n",
    );
    let p = plan_of(e, "mage");
    assert_eq!(
        (p.0[0].spell, p.0[0].target.map(|t| t.0)),
        (Some(0), Some(1))
    );
}

// ----- the examples on their scenarios --------------------------------------------------

fn load(name: &str) -> CombatantSpec {
    let m = data().join("monsters").join(format!("{name}.json"));
    let path = if m.is_file() {
        m
    } else {
        data().join("pcs").join(format!("{name}.json"))
    };
    CombatantSpec::load(&path).unwrap()
}

fn build(map: &str, sides: &[(&str, &[&str])]) -> Encounter {
    let map = MapSpec::load(&data().join("maps").join(format!("{map}.yaml"))).unwrap();
    let sides = sides
        .iter()
        .map(|(s, names)| {
            (
                s.to_string(),
                names.iter().map(|n| (n.to_string(), load(n))).collect(),
            )
        })
        .collect();
    Encounter::build(map, sides, RulesOptions::default()).unwrap()
}

fn arena() -> Encounter {
    build(
        "sample_arena",
        &[
            ("players", &["goblin", "goblin", "goblin"]),
            ("monsters", &["orc", "orc"]),
        ],
    )
}

fn casters() -> Encounter {
    build(
        "caster_hall",
        &[
            (
                "players",
                &["cleric_3", "wizard_5", "sorcerer_4", "druid_3"],
            ),
            ("monsters", &["green_hag", "ogre", "ogre"]),
        ],
    )
}

fn example(enc: &Encounter, file: &str) -> Arc<Encounter> {
    let text = std::fs::read_to_string(data().join("tactics").join(file)).unwrap();
    Arc::new(
        enc.with_tactics("players", Arc::new(parse(&text)))
            .unwrap_or_else(|e| panic!("{file}: {e}")),
    )
}

fn examples() -> Vec<(&'static str, Arc<Encounter>)> {
    let (a, c) = (arena(), casters());
    vec![
        ("focus_fire_weakest", example(&a, "focus_fire_weakest.yaml")),
        (
            "archers_hold_the_pillar",
            example(&a, "archers_hold_the_pillar.yaml"),
        ),
        ("flank_the_ogre", example(&c, "flank_the_ogre.yaml")),
        (
            "casters_open_with_areas",
            example(&c, "casters_open_with_areas.yaml"),
        ),
    ]
}

fn play(enc: &Arc<Encounter>, seed: u64) -> Episode {
    let mut ep = Episode::new(enc.clone(), seed, &[]);
    ep.advance();
    ep
}

#[test]
fn tactics_never_make_the_engine_refuse_an_action() {
    let runs = if cfg!(debug_assertions) { 60 } else { 400 };
    for (name, enc) in examples() {
        let mut refused = 0;
        for seed in 0..runs {
            let ep = play(&enc, seed);
            assert!(ep.outcome().is_some(), "{name} seed {seed}");
            refused += ep
                .transcript()
                .iter()
                .filter(|l| l.message.contains(" refused: "))
                .count();
        }
        assert_eq!(
            refused, 0,
            "{name}: {refused} refused actions in {runs} fights"
        );
    }
}

#[test]
fn same_seed_same_transcript() {
    for (name, enc) in examples() {
        for seed in [1, 7, 42] {
            let a = play(&enc, seed);
            let b = play(&enc, seed);
            assert_eq!(a.transcript(), b.transcript(), "{name} seed {seed}");
            assert_eq!(a.snapshot(), b.snapshot(), "{name} seed {seed}");
            // A clone mid-way and a snapshot restore reproduce the same state.
            let r = Episode::restore(enc.clone(), &a.snapshot()).unwrap();
            assert_eq!(r.snapshot(), a.snapshot(), "{name} seed {seed}");
        }
    }
}

#[test]
fn tactics_that_only_defend_lose_more_than_the_default_at_3_sigma() {
    // Closed form: two proportions over n fights each; the difference must exceed 3 pooled σ.
    let n = if cfg!(debug_assertions) { 150 } else { 600 };
    let base = Arc::new(arena());
    let turtle = with(
        &base,
        "players",
        "name: turtle\ndescription: always take total defense\ndefault: { rules: [{ do: total_defense }] }\n",
    );
    let wins = |enc: &Arc<Encounter>| {
        (0..n)
            .filter(|&s| {
                play(enc, s)
                    .outcome()
                    .and_then(|o| o.winner.clone())
                    .as_deref()
                    == Some("players")
            })
            .count() as f64
    };
    let (p1, p2) = (wins(&base) / n as f64, wins(&turtle) / n as f64);
    let p = (p1 + p2) / 2.0;
    let sigma = (p * (1.0 - p) * 2.0 / n as f64).sqrt();
    assert!(
        p1 - p2 > 3.0 * sigma,
        "default {p1:.3} vs total defense {p2:.3} (σ {sigma:.3})"
    );
}

#[test]
fn the_documented_schema_is_the_published_one() {
    let doc = std::fs::read_to_string(data().join("../docs/tactics.md")).unwrap();
    let start = doc
        .find("<!-- schema -->\n```json\n")
        .expect("docs/tactics.md has the schema block")
        + "<!-- schema -->\n```json\n".len();
    let end = start + doc[start..].find("```").unwrap();
    if std::env::var_os("PRINT_TACTICS_SCHEMA").is_some() {
        println!(
            "{}",
            serde_json::to_string_pretty(&pf1e_engine::tactics_json_schema()).unwrap()
        );
    }
    let documented: serde_json::Value = serde_json::from_str(&doc[start..end]).unwrap();
    assert_eq!(documented, pf1e_engine::tactics_json_schema());
}

/// Break-it (P8): YAML's `.nan` / `.inf` went through a JSON value as `null`, so the
/// condition vanished and the rule held always (`hp_below_fraction: .nan` → withdraw every
/// turn). They are refused, naming the field.
#[test]
fn non_finite_yaml_numbers_are_refused_not_dropped() {
    for (v, field) in [
        (".nan", "default.rules[0].when.hp_below_fraction"),
        (".inf", "default.rules[0].when.hp_below_fraction"),
        ("-.inf", "default.rules[0].when.hp_below_fraction"),
    ] {
        let text = format!(
            "name: t\ndescription: d\ndefault:\n  rules:\n    - when: {{hp_below_fraction: {v}}}\n      do: withdraw\n"
        );
        let (f, reason) = parse_err(&text);
        assert_eq!(f, field, "{v}: {reason}");
        assert!(reason.contains("finite"), "{v}: {reason}");
    }
    let (f, _) = parse_err("name: t\ndescription: d\nsource: .nan\n");
    assert_eq!(f, "source");
    let (f, _) = parse_err("name: t\ndescription: d\ndefault: {target: [{named: .inf}]}\n");
    assert_eq!(f, "default.target[0].named");
}

/// Review of P10: serde_yaml read `round: !!str 2` as 2 and `named: !goblin orc` as "orc",
/// dropping the tag silently, as it did for maps and scenarios: a tag is refused, naming the
/// field and the tag as written. JSON has no tags; the same spec without one parses.
#[test]
fn explicit_yaml_tags_are_refused_naming_the_field() {
    for (text, field, tag) in [
        (
            "name: t\ndescription: d\ndefault:\n  rules:\n    - when: {hp_below_fraction: !!float 0.5}\n      do: withdraw\n",
            "default.rules[0].when.hp_below_fraction",
            "!!float",
        ),
        (
            "name: t\ndescription: d\ndefault: {target: [{named: !goblin orc}]}\n",
            "default.target[0].named",
            "!goblin",
        ),
        ("name: !!binary dA==\ndescription: d\n", "name", "!!binary"),
    ] {
        let (f, reason) = parse_err(text);
        assert_eq!(f, field, "{reason}");
        assert!(
            reason.contains("explicit YAML tag") && reason.contains(&format!("`{tag}`")),
            "{reason}"
        );
    }
    parse("name: t\ndescription: d\ndefault:\n  rules:\n    - when: {hp_below_fraction: 0.5}\n      do: withdraw\n");
    parse(r#"{"name": "t", "description": "d", "default": {"target": [{"named": "!goblin"}]}}"#);
}

/// Review of the second P10 stop: a combatant key that is not plain (`Green Hag`, a
/// creature's name) is quoted alike by the tag scan, the range checks and serde's errors; a
/// tag on the document itself names `(document)`, as every other whole-document error does.
#[test]
fn a_combatant_key_has_one_spelling_in_every_error() {
    let block =
        |rules: &str| format!("name: t\ndescription: d\ncombatants:\n  Green Hag:\n    {rules}\n");
    let at = r#"combatants["Green Hag"].rules[0].when.hp_below_fraction"#;
    let (f, r) = parse_err(&block(
        "rules: [{when: {hp_below_fraction: !!float 0.5}, do: withdraw}]",
    ));
    assert_eq!(f, at, "{r}");
    let (f, r) = parse_err(&block(
        "rules: [{when: {hp_below_fraction: 2}, do: withdraw}]",
    ));
    assert_eq!(f, at, "{r}");
    let (f, r) = parse_err(&block(
        "rules: [{when: {hp_below_fraction: .nan}, do: withdraw}]",
    ));
    assert_eq!(f, at, "{r}");
    let (f, r) = parse_err(&block("rulez: []"));
    assert_eq!(f, r#"combatants["Green Hag"].rulez"#, "{r}");
    let (f, r) = parse_err("!!map\nname: t\ndescription: d\n");
    assert_eq!(f, "(document)", "{r}");
}
