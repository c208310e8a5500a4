//! Bonus stacking (CRB — Magic: Special Spell Effects, Bonus Types; Combining Magic Effects),
//! the pure resolver and its use in attack rolls and damage.

mod common;

use common::*;
use pf1e_engine::effects::{resolve, BonusType, Modifier, RollContext, Stat, When};
use serde_json::json;

fn m(stat: Stat, v: i32, t: BonusType, src: &str) -> Modifier {
    Modifier::new(stat, v, t, src)
}

#[test]
fn crb_bonus_types_same_type_only_the_best_counts() {
    let mods = [
        m(Stat::Attack, 2, BonusType::Morale, "heroism"),
        m(Stat::Attack, 1, BonusType::Morale, "bless"),
        m(Stat::Attack, 1, BonusType::Luck, "prayer"),
        m(Stat::Attack, 3, BonusType::Enhancement, "a"),
        m(Stat::Attack, 1, BonusType::Enhancement, "b"),
    ];
    assert_eq!(
        resolve(&mods, Stat::Attack, &RollContext::default()).total,
        6
    );
}

#[test]
fn crb_bonus_types_dodge_racial_circumstance_stack() {
    let mods = [
        m(Stat::Ac, 1, BonusType::Dodge, "Dodge"),
        m(Stat::Ac, 1, BonusType::Dodge, "haste"),
        m(Stat::Ac, 2, BonusType::Circumstance, "x"),
        m(Stat::Ac, 2, BonusType::Circumstance, "y"),
        m(Stat::Ac, 1, BonusType::Racial, "z"),
    ];
    assert_eq!(resolve(&mods, Stat::Ac, &RollContext::default()).total, 7);
}

#[test]
fn crb_bonus_types_untyped_stack_unless_same_source() {
    let mods = [
        m(Stat::Attack, 2, BonusType::Untyped, "charge"),
        m(Stat::Attack, 2, BonusType::Untyped, "flanking"),
        m(Stat::Attack, 2, BonusType::Untyped, "flanking"),
    ];
    assert_eq!(
        resolve(&mods, Stat::Attack, &RollContext::default()).total,
        4
    );
}

#[test]
fn crb_bonus_types_untyped_penalties_stack_typed_penalties_worst_only() {
    let mods = [
        m(Stat::Attack, -2, BonusType::Untyped, "sickened"),
        m(Stat::Attack, -1, BonusType::Untyped, "dazzled"),
        m(Stat::Attack, -1, BonusType::Morale, "bane"),
        m(Stat::Attack, -2, BonusType::Morale, "other morale penalty"),
        // A bonus and a penalty of the same type are resolved separately.
        m(Stat::Attack, 1, BonusType::Morale, "bless"),
    ];
    assert_eq!(
        resolve(&mods, Stat::Attack, &RollContext::default()).total,
        -4
    );
}

#[test]
fn seed_conditional_modifiers_range_weapon_descriptor() {
    let pbs = m(Stat::Attack, 1, BonusType::Untyped, "pbs").when(When::TargetWithin30ftRanged);
    let wf = m(Stat::Attack, 1, BonusType::Untyped, "wf").when(When::Weapon("axe".into()));
    let fear =
        m(Stat::Saves, -1, BonusType::Morale, "bane").when(When::SaveDescriptor("fear".into()));
    let mods = [pbs, wf, fear];
    let near = RollContext {
        ranged: true,
        distance_ft: Some(30),
        ..Default::default()
    };
    let far = RollContext {
        ranged: true,
        distance_ft: Some(35),
        ..Default::default()
    };
    assert_eq!(resolve(&mods, Stat::Attack, &near).total, 1);
    assert_eq!(resolve(&mods, Stat::Attack, &far).total, 0);
    let axe = RollContext {
        weapon: Some(("battleaxe", "battleaxe")),
        ..Default::default()
    };
    assert_eq!(resolve(&mods, Stat::MeleeAttack, &axe).total, 1);
    let d = vec!["fear".to_string()];
    let vs_fear = RollContext {
        descriptors: &d,
        ..Default::default()
    };
    assert_eq!(resolve(&mods, Stat::Will, &vs_fear).total, -1);
    assert_eq!(resolve(&mods, Stat::Will, &RollContext::default()).total, 0);
}

fn duel_with(
    hero: serde_json::Value,
    faces: &[u32],
) -> (pf1e_engine::Episode, pf1e_engine::CombatantId) {
    let enc = encounter(
        &room(3, 6),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "dummy", creature("dummy"), (2, 3)),
        ],
    );
    let mut ep = episode(enc, faces);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    (ep, d)
}

#[test]
fn crb_conditions_fear_penalties_do_not_stack_other_penalties_do() {
    // Shaken and frightened are one fear source (-2 once); sickened adds -2 attack and damage.
    let hero = set(
        creature("hero"),
        "conditions",
        json!([{"name": "shaken"}, {"name": "frightened"}, {"name": "sickened"}]),
    );
    let (mut ep, d) = duel_with(hero, &[20, 1, 15, 6]);
    assert_all_ok(&submit(&mut ep, &[attack(d)]));
    assert_eq!(
        lines_of(&ep, "hero"),
        vec!["longsword vs dummy d20=15+1=16 AC 10 [fear -2, sickened -2] -> HIT 4 damage (dummy hp 30->26)"]
    );
    assert_eq!(dice_left(&ep), 0);
}
