//! Sneak attack (CRB — Classes: Rogue, Sneak Attack) and creature traits (Bestiary — Creature
//! Types: elemental/ooze traits "not subject to critical hits or flanking", precision
//! immunity). PF1e undead and constructs are not immune (D&D 3.5 rule, which the seed kept).

mod common;

use common::*;
use pf1e_engine::{CombatantId, Episode};
use serde_json::{json, Value};

fn rogue() -> Value {
    set(
        set(creature("rogue"), "features", json!(["sneak attack +2d6"])),
        "attacks",
        json!([
            melee("short sword", 5, "1d6", "piercing"),
            ranged("light crossbow", 5, "1d8", "piercing", 80)
        ]),
    )
}

/// Rogue at (2,2), dummy at `at`; the rogue acts first (dummy flat-footed in round 1).
fn setup(r: Value, dummy: Value, at: (i32, i32), faces: &[u32]) -> (Episode, CombatantId) {
    let enc = encounter(
        &room(3, 12),
        vec![unit("a", "rogue", r, (2, 2)), unit("b", "dummy", dummy, at)],
    );
    let mut ep = episode(enc, faces);
    turn_of(&mut ep, "rogue");
    let d = cid(&ep, "dummy");
    (ep, d)
}

#[test]
fn crb_sneak_attack_against_flat_footed_target() {
    let (mut ep, d) = setup(rogue(), creature("dummy"), (2, 3), &[20, 1, 15, 4, 3, 5]);
    submit(&mut ep, &[attack(d)]);
    assert_eq!(
        lines_of(&ep, "rogue"),
        vec!["short sword vs dummy d20=15+5=20 AC 10 -> HIT 12 damage [sneak attack 2d6=8] (dummy hp 30->18)"]
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_no_sneak_attack_when_target_keeps_dex_and_is_not_flanked() {
    let dummy = set(creature("dummy"), "initiative_mod", json!(0));
    let enc = encounter(
        &room(3, 12),
        vec![
            unit("a", "rogue", rogue(), (2, 2)),
            unit("b", "dummy", dummy, (2, 3)),
        ],
    );
    let mut ep = episode(enc, &[1, 20, 15, 4]);
    turn_of(&mut ep, "rogue");
    let d = cid(&ep, "dummy");
    submit(&mut ep, &[attack(d)]);
    assert_eq!(ep.hp(d), 26);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_sneak_attack_when_flanking() {
    let enc = encounter(
        &room(3, 12),
        vec![
            unit("a", "rogue", rogue(), (2, 2)),
            unit("a", "ally", creature("ally"), (2, 4)),
            unit("b", "dummy", creature("dummy"), (2, 3)),
        ],
    );
    // Initiative: dummy first (not flat-footed), then rogue.
    let mut ep = episode(enc, &[19, 1, 20, 10, 4, 1, 1]);
    turn_of(&mut ep, "rogue");
    let d = cid(&ep, "dummy");
    submit(&mut ep, &[attack(d)]);
    assert!(lines_of(&ep, "rogue")[0].contains("[flanking +2]"));
    assert!(
        lines_of(&ep, "rogue")[0].contains("sneak attack 2d6=2"),
        "{}",
        log(&ep)
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_sneak_attack_ranged_only_within_30_ft() {
    // 30 ft away (2,2) -> (2,8): sneak attack; 35 ft: none.
    let (mut ep, d) = setup(rogue(), creature("dummy"), (2, 8), &[20, 1, 15, 4, 1, 1]);
    submit(&mut ep, &[attack_with(d, 1)]);
    assert!(lines_of(&ep, "rogue")[0].contains("sneak attack 2d6=2"));
    let (mut ep, d) = setup(rogue(), creature("dummy"), (2, 9), &[20, 1, 15, 4]);
    submit(&mut ep, &[attack_with(d, 1)]);
    assert!(!lines_of(&ep, "rogue")[0].contains("sneak"));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_sneak_attack_never_multiplied_on_a_critical() {
    // Natural 20, confirmed: 1d6 x2 (3 + 4) + 2d6 once (1 + 1).
    let (mut ep, d) = setup(
        rogue(),
        creature("dummy"),
        (2, 3),
        &[20, 1, 20, 15, 3, 4, 1, 1],
    );
    submit(&mut ep, &[attack(d)]);
    assert_eq!(ep.hp(d), 30 - 9);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_no_sneak_attack_against_concealment() {
    let dummy = set(
        creature("dummy"),
        "conditions",
        json!([{"name": "blurred"}]),
    );
    let (mut ep, d) = setup(rogue(), dummy, (2, 3), &[20, 1, 15, 50, 4]);
    submit(&mut ep, &[attack(d)]);
    assert_eq!(ep.hp(d), 26);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn bestiary_immune_precision_trait_blocks_sneak_attack() {
    let dummy = set(creature("dummy"), "traits", json!(["immune_precision"]));
    let (mut ep, d) = setup(rogue(), dummy, (2, 3), &[20, 1, 15, 4]);
    submit(&mut ep, &[attack(d)]);
    assert_eq!(ep.hp(d), 26);
}

#[test]
fn bestiary_immune_critical_trait_no_confirmation_roll() {
    let dummy = set(creature("dummy"), "traits", json!(["immune_critical"]));
    let (mut ep, d) = setup(creature("rogue"), dummy, (2, 3), &[20, 1, 20, 5]);
    submit(&mut ep, &[attack(d)]);
    assert_eq!(
        lines_of(&ep, "rogue"),
        vec!["longsword vs dummy d20=20+5=25 AC 10 -> HIT (immune to critical hits) 5 damage (dummy hp 30->25)"]
    );
}

#[test]
fn bestiary_immune_flanking_trait_no_flanking_bonus_nor_sneak_attack() {
    let dummy = set(creature("dummy"), "traits", json!(["immune_flanking"]));
    let enc = encounter(
        &room(3, 12),
        vec![
            unit("a", "rogue", rogue(), (2, 2)),
            unit("a", "ally", creature("ally"), (2, 4)),
            unit("b", "dummy", dummy, (2, 3)),
        ],
    );
    let mut ep = episode(enc, &[19, 1, 20, 10, 4]);
    turn_of(&mut ep, "rogue");
    let d = cid(&ep, "dummy");
    submit(&mut ep, &[attack(d)]);
    assert_eq!(
        lines_of(&ep, "rogue")[0],
        "short sword vs dummy d20=10+5=15 AC 10 -> HIT 4 damage (dummy hp 30->26)"
    );
}

#[test]
fn pf1e_undead_are_not_immune_to_sneak_attack() {
    let mut dummy = set(creature("dummy"), "creature_type", json!("undead"));
    dummy["abilities"]["con_score"] = json!(null);
    let (mut ep, d) = setup(rogue(), dummy, (2, 3), &[20, 1, 15, 4, 1, 1]);
    submit(&mut ep, &[attack(d)]);
    assert_eq!(ep.hp(d), 24);
}

#[test]
fn crb_rogue_sneak_attack_dice_by_level() {
    let r = set(
        set(creature("rogue"), "features", json!(["sneak attack"])),
        "level",
        json!(5),
    );
    let (ep, _) = setup(r, creature("dummy"), (2, 3), &[20, 1]);
    assert_eq!(ep.sneak_attack_dice(cid(&ep, "rogue")), 3);
    assert_eq!(ep.observation(None).combatants[0].sneak_dice, 3);
}

#[test]
fn data_tiefling_and_earth_elemental() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/monsters");
    let t = pf1e_engine::CombatantSpec::load(&dir.join("tiefling.json")).unwrap();
    assert!(t.features.iter().any(|f| f == "sneak attack +1d6"));
    assert_eq!(t.source, "PF1e SRD — Bestiary: Tiefling");
    let e = pf1e_engine::CombatantSpec::load(&dir.join("small_earth_elemental.json")).unwrap();
    assert_eq!(
        e.traits,
        vec!["immune_critical", "immune_flanking", "immune_precision"]
    );
    assert!(pf1e_engine::content::feats::unknown_feats(&e).is_empty());
}
