//! Feats (CRB — Feats): every name resolves to an effect or a documented no-op; unknown names
//! are reported. Printed stat-block numbers already include static feats.

mod common;

use common::*;
use pf1e_engine::{CombatantId, Episode};
use serde_json::{json, Value};

fn duel(hero: Value, dummy: Value, dummy_at: (i32, i32), faces: &[u32]) -> (Episode, CombatantId) {
    let enc = encounter(
        &room(3, 14),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "dummy", dummy, dummy_at),
        ],
    );
    let mut ep = episode(enc, faces);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    (ep, d)
}

fn feats(v: Value, f: &[&str]) -> Value {
    set(v, "feats", json!(f))
}

fn base_numbers(v: Value) -> Value {
    set(v, "printed_feats_included", json!(false))
}

#[test]
fn unknown_feat_is_reported_not_silently_ignored() {
    let hero = feats(
        creature("hero"),
        &["Weapon Focus (longsword)", "Mystic Pancake"],
    );
    let (ep, _) = duel(hero, creature("dummy"), (2, 3), &[20, 1]);
    assert_eq!(
        ep.observation(None).combatants[0].unknown_feats,
        vec!["Mystic Pancake"]
    );
    assert_eq!(
        lines_with(&ep, "warning"),
        vec!["warning: hero: unknown feats ignored: Mystic Pancake"]
    );
}

#[test]
fn every_bundled_feat_is_known() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/monsters");
    for e in std::fs::read_dir(dir).unwrap() {
        let s = pf1e_engine::CombatantSpec::load(&e.unwrap().path()).unwrap();
        assert!(
            pf1e_engine::content::feats::unknown_feats(&s).is_empty(),
            "{}: {:?}",
            s.name,
            s.feats
        );
    }
}

#[test]
fn crb_weapon_focus_in_printed_numbers_is_a_no_op() {
    let hero = feats(creature("hero"), &["Weapon Focus (longsword)"]);
    let (mut ep, d) = duel(hero, creature("dummy"), (2, 3), &[20, 1, 2]);
    submit(&mut ep, &[attack(d)]);
    assert_eq!(
        lines_of(&ep, "hero"),
        vec!["longsword vs dummy d20=2+5=7 AC 10 -> MISS"]
    );
    let lines =
        pf1e_engine::content::feats::resolution_lines(ep.encounter().combatants[0].spec.as_ref());
    assert_eq!(lines, vec!["feat Weapon Focus (longsword): no-op (printed numbers) — +1 attack with the named weapon (in the printed bonus)"]);
}

#[test]
fn crb_weapon_focus_plus_1_with_the_named_weapon_from_base_numbers() {
    let hero = base_numbers(feats(creature("hero"), &["Weapon Focus (longsword)"]));
    let hero = set(
        hero,
        "attacks",
        json!([
            melee("longsword", 5, "1d8", "slashing"),
            melee("club", 5, "1d6", "bludgeoning")
        ]),
    );
    let (mut ep, d) = duel(hero, creature("dummy"), (2, 3), &[20, 1, 2, 2]);
    submit(&mut ep, &[attack_with(d, 0), move_to(1, 2)]);
    assert_eq!(
        lines_of(&ep, "hero")[0],
        "longsword vs dummy d20=2+6=8 AC 10 [Weapon Focus +1] -> MISS"
    );
    let (mut ep, d) = duel(
        set(
            base_numbers(feats(creature("hero"), &["Weapon Focus (longsword)"])),
            "attacks",
            json!([melee("club", 5, "1d6", "bludgeoning")]),
        ),
        creature("dummy"),
        (2, 3),
        &[20, 1, 2],
    );
    submit(&mut ep, &[attack(d)]);
    assert_eq!(
        lines_of(&ep, "hero")[0],
        "club vs dummy d20=2+5=7 AC 10 -> MISS"
    );
}

#[test]
fn crb_improved_critical_doubles_threat_range_from_base_numbers() {
    // 19-20 -> 17-20: a 17 threatens (confirmation 2+5=7 fails, one damage die).
    let w = set(
        melee("longsword", 5, "1d8", "slashing"),
        "crit_range",
        json!(19),
    );
    let hero = set(
        base_numbers(feats(creature("hero"), &["Improved Critical (longsword)"])),
        "attacks",
        json!([w]),
    );
    let (mut ep, d) = duel(hero, creature("dummy"), (2, 3), &[20, 1, 17, 2, 4]);
    submit(&mut ep, &[attack(d)]);
    assert!(
        lines_of(&ep, "hero")[0].contains("threat not confirmed"),
        "{}",
        log(&ep)
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_dodge_plus_1_ac_lost_when_flat_footed() {
    let dummy = base_numbers(feats(creature("dummy"), &["Dodge"]));
    let (mut ep, d) = duel(creature("hero"), dummy, (2, 3), &[20, 1, 2, 2]);
    submit(&mut ep, &[attack(d)]); // dummy flat-footed: AC 10
    end_turn(&mut ep);
    turn_of(&mut ep, "dummy");
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    submit(&mut ep, &[attack(d)]);
    let l = lines_of(&ep, "hero");
    assert_eq!(l[0], "longsword vs dummy d20=2+5=7 AC 10 -> MISS");
    assert_eq!(
        l[1],
        "longsword vs dummy d20=2+5=7 AC 11 [target Dodge +1] -> MISS"
    );
}

#[test]
fn crb_point_blank_shot_plus_1_attack_and_damage_within_30_ft() {
    let bow = json!([ranged("shortbow", 5, "1d6", "piercing", 60)]);
    let hero = set(
        feats(creature("hero"), &["Point-Blank Shot"]),
        "attacks",
        bow.clone(),
    );
    let (mut ep, d) = duel(hero.clone(), creature("dummy"), (2, 8), &[20, 1, 10, 3]);
    submit(&mut ep, &[attack(d)]);
    assert_eq!(lines_of(&ep, "hero")[0], "shortbow vs dummy d20=10+6=16 AC 10 [Point-Blank Shot +1] -> HIT 4 damage (dummy hp 30->26)");
    let (mut ep, d) = duel(hero, creature("dummy"), (2, 9), &[20, 1, 10, 3]);
    submit(&mut ep, &[attack(d)]);
    assert_eq!(
        lines_of(&ep, "hero")[0],
        "shortbow vs dummy d20=10+5=15 AC 10 -> HIT 3 damage (dummy hp 30->27)"
    );
}

#[test]
fn crb_precise_shot_removes_shooting_into_melee_penalty() {
    let bow = json!([ranged("shortbow", 5, "1d6", "piercing", 60)]);
    let run = |f: &[&str]| {
        let hero = set(feats(creature("hero"), f), "attacks", bow.clone());
        let enc = encounter(
            &room(3, 14),
            vec![
                unit("a", "hero", hero, (2, 2)),
                unit("a", "ally", creature("ally"), (2, 9)),
                unit("b", "dummy", creature("dummy"), (2, 10)),
            ],
        );
        let mut ep = episode(enc, &[20, 1, 1, 2]);
        turn_of(&mut ep, "hero");
        let d = cid(&ep, "dummy");
        submit(&mut ep, &[attack(d)]);
        lines_of(&ep, "hero")[0].clone()
    };
    assert!(run(&[]).contains("into melee -4"));
    assert!(!run(&["Precise Shot"]).contains("into melee"));
}

#[test]
fn crb_feats_in_printed_numbers_are_logged_no_ops() {
    let hero = feats(
        creature("hero"),
        &[
            "Toughness",
            "Iron Will",
            "Improved Initiative",
            "Power Attack",
            "Alertness",
        ],
    );
    let spec = spec(&hero);
    let lines = pf1e_engine::content::feats::resolution_lines(&spec);
    assert!(lines[0].starts_with("feat Toughness: no-op"));
    assert!(lines[1].starts_with("feat Iron Will: no-op"));
    assert!(lines[2].starts_with("feat Improved Initiative: no-op"));
    assert!(lines[3].starts_with("feat Power Attack: applied"));
    assert!(lines[4].starts_with("feat Alertness: no-op"));
}
