//! Saving throws (CRB — Combat/Magic: Saving Throws): d20 + save + modifiers; natural 1
//! always fails, natural 20 always succeeds; descriptors select conditional modifiers.

mod common;

use common::*;
use pf1e_engine::rules::saves::SaveKind;
use pf1e_engine::{CombatantId, Episode};
use serde_json::{json, Value};

fn one(hero: Value, faces: &[u32]) -> (Episode, CombatantId) {
    let enc = encounter(
        &room(3, 6),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "dummy", creature("dummy"), (2, 5)),
        ],
    );
    let mut ep = episode(enc, faces);
    turn_of(&mut ep, "hero");
    let h = cid(&ep, "hero");
    (ep, h)
}

fn saver() -> Value {
    set(
        creature("hero"),
        "saves",
        json!({"fort": 5, "ref": 3, "will": 2}),
    )
}

#[test]
fn crb_saving_throw_natural_1_always_fails() {
    let (mut ep, h) = one(
        set(saver(), "saves", json!({"fort": 50, "ref": 0, "will": 0})),
        &[20, 1, 1],
    );
    let r = ep.resolve_save(h, SaveKind::Fort, 10, &[]);
    assert!(!r.success);
    assert_eq!((r.roll, r.total), (1, 51));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_saving_throw_natural_20_always_succeeds() {
    let (mut ep, h) = one(saver(), &[20, 1, 20]);
    let r = ep.resolve_save(h, SaveKind::Will, 100, &[]);
    assert!(r.success);
    assert_eq!(r.total, 22);
}

#[test]
fn crb_saving_throw_total_meets_dc() {
    let (mut ep, h) = one(saver(), &[20, 1, 10, 9]);
    assert!(ep.resolve_save(h, SaveKind::Fort, 15, &[]).success); // 10+5 = 15
    assert!(!ep.resolve_save(h, SaveKind::Fort, 15, &[]).success); // 9+5 = 14
    assert_eq!(
        lines_of(&ep, "hero"),
        vec![
            "Fort save d20=10+5=15 vs DC 15 -> success",
            "Fort save d20=9+5=14 vs DC 15 -> failure"
        ]
    );
}

#[test]
fn crb_conditions_shaken_minus_2_on_saves() {
    let hero = set(saver(), "conditions", json!([{"name": "shaken"}]));
    let (mut ep, h) = one(hero, &[20, 1, 10]);
    let r = ep.resolve_save(h, SaveKind::Ref, 10, &[]);
    assert_eq!(r.bonus, 1);
    assert!(r.success);
    assert_eq!(
        lines_of(&ep, "hero"),
        vec!["Ref save d20=10+1=11 vs DC 10 [fear -2] -> success"]
    );
}

#[test]
fn crb_bane_minus_1_only_against_fear() {
    let hero = set(saver(), "conditions", json!([{"name": "bane"}]));
    let (ep, h) = one(hero, &[20, 1]);
    assert_eq!(ep.save_bonus(h, SaveKind::Will, &[]), 2);
    assert_eq!(ep.save_bonus(h, SaveKind::Will, &["fear".to_string()]), 1);
}

#[test]
fn crb_entangled_dex_penalty_lowers_reflex() {
    // Dex 14 (+2) -4 = Dex 10 (+0): Reflex -2; Fortitude unchanged.
    let mut hero = set(saver(), "conditions", json!([{"name": "entangled"}]));
    hero["abilities"]["dex_score"] = json!(14);
    let (ep, h) = one(hero, &[20, 1]);
    assert_eq!(ep.save_bonus(h, SaveKind::Ref, &[]), 1);
    assert_eq!(ep.save_bonus(h, SaveKind::Fort, &[]), 5);
}
