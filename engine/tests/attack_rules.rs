//! Attack rules against the PF1e SRD, with fully scripted dice: hit/miss, critical hits,
//! damage, DR, energy resistance, iteratives, natural attacks, range, shooting into melee,
//! flanking, high ground, flat-footed AC.
//!
//! Layout of the duel tests: room of 3 × 6 floor squares; `hero` (side a) at (2,2), `dummy`
//! (side b) at (2,3). Initiative script `[20, 1]`: the hero acts first.

mod common;

use common::*;
use pf1e_engine::{CombatantId, Episode, RulesOptions};
use serde_json::{json, Value};

fn with_ac(v: Value, ac: i32) -> Value {
    set(
        v,
        "ac",
        json!({ "total": ac, "touch": ac, "flat_footed": ac }),
    )
}

fn hero_with(weapon: Value) -> Value {
    set(creature("hero"), "attacks", json!([weapon]))
}

/// Hero vs dummy, adjacent; the hero acts first and its decision is pending.
fn duel(hero: Value, dummy: Value, faces: &[u32]) -> (Episode, CombatantId) {
    let enc = encounter(
        &room(3, 6),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "dummy", dummy, (2, 3)),
        ],
    );
    let mut ep = episode(enc, faces);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    (ep, d)
}

/// One standard attack of the hero against the dummy; asserts it was accepted.
fn swing(ep: &mut Episode, d: CombatantId) {
    let r = submit(ep, &[attack(d)]);
    assert_all_ok(&r);
}

// ----- CRB — Combat: Attack Roll ("natural 1 … always a miss; natural 20 … always a hit") --

#[test]
fn crb_attack_roll_natural_1_always_misses() {
    let hero = hero_with(melee("longsword", 50, "1d8", "slashing"));
    let (mut ep, d) = duel(hero, creature("dummy"), &[20, 1, 1]);
    swing(&mut ep, d);
    assert_eq!(ep.hp(d), 30);
    assert_eq!(
        lines_of(&ep, "hero"),
        vec!["longsword vs dummy d20=1+50=51 AC 10 -> MISS"]
    );
    assert_eq!(ep.attrition()[0].attacks, 1);
    assert_eq!(ep.attrition()[0].hits, 0);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_attack_roll_natural_20_hits_and_threatens_unconfirmed() {
    // AC 100: the natural 20 hits; the confirmation 5+5=10 misses -> normal damage (1d8 = 6).
    let (mut ep, d) = duel(
        creature("hero"),
        with_ac(creature("dummy"), 100),
        &[20, 1, 20, 5, 6],
    );
    swing(&mut ep, d);
    assert_eq!(ep.hp(d), 24, "{}", log(&ep));
    assert_eq!(ep.attrition()[0].hits, 1);
    assert_eq!(ep.attrition()[0].crits, 0);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_critical_hits_natural_20_on_confirmation_confirms() {
    // CRB — Combat: Critical Hits: the confirmation is an attack roll; a natural 20 hits.
    let (mut ep, d) = duel(
        creature("hero"),
        with_ac(creature("dummy"), 100),
        &[20, 1, 20, 20, 3, 5],
    );
    swing(&mut ep, d);
    assert_eq!(ep.hp(d), 30 - 8, "{}", log(&ep));
    assert_eq!(ep.attrition()[0].crits, 1);
    assert_eq!(ep.attrition()[0].damage_dealt, 8);
    assert_eq!(ep.attrition()[1].damage_taken, 8);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_critical_hits_natural_1_on_confirmation_fails() {
    let hero = hero_with(melee("longsword", 50, "1d8", "slashing"));
    let (mut ep, d) = duel(hero, creature("dummy"), &[20, 1, 20, 1, 4]);
    swing(&mut ep, d);
    assert_eq!(ep.hp(d), 26, "{}", log(&ep));
    assert_eq!(ep.attrition()[0].crits, 0);
    assert!(lines_of(&ep, "hero")[0].contains("threat not confirmed d20=1+50=51"));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_critical_hits_threat_range_19_20() {
    // 19 threatens with a 19-20 weapon; confirmation 5+5 = 10 vs AC 10 confirms: 2 × 1d8.
    let mut w = melee("longsword", 5, "1d8", "slashing");
    w = set(w, "crit_range", json!(19));
    let (mut ep, d) = duel(hero_with(w), creature("dummy"), &[20, 1, 19, 5, 2, 7]);
    swing(&mut ep, d);
    assert_eq!(ep.hp(d), 30 - 9, "{}", log(&ep));
    assert_eq!(ep.attrition()[0].crits, 1);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_critical_hits_19_does_not_threaten_with_20_only_weapon() {
    // No confirmation roll: the next die is the damage die.
    let (mut ep, d) = duel(creature("hero"), creature("dummy"), &[20, 1, 19, 4]);
    swing(&mut ep, d);
    assert_eq!(ep.hp(d), 26, "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_critical_hits_a_threat_must_hit_to_threaten() {
    // 19 (19-20 weapon) + 0 = 19 < AC 25: a miss, no confirmation roll.
    let w = set(
        melee("longsword", 0, "1d8", "slashing"),
        "crit_range",
        json!(19),
    );
    let (mut ep, d) = duel(hero_with(w), with_ac(creature("dummy"), 25), &[20, 1, 19]);
    swing(&mut ep, d);
    assert_eq!(ep.hp(d), 30);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_critical_hits_weapon_dice_and_flat_bonus_multiplied_energy_and_precision_once() {
    // ×3 weapon: 1d8 + 3 slashing (rolled three times), 1d6 fire (once), 2d6 precision (once).
    let w = json!({
        "name": "flaming axe",
        "kind": "melee",
        "attack_bonus": 5,
        "damage_bonus": 3,
        "crit_mult": 3,
        "damage": [
            { "formula": "1d8", "types": ["slashing"] },
            { "formula": "1d6", "types": ["fire"] },
            { "formula": "2d6", "types": ["slashing"], "precision": true }
        ]
    });
    let dummy = set(creature("dummy"), "hp_max", json!(60));
    // attack 20, confirm 15, d8 ×3 = 2,5,7, fire d6 = 4, precision 1,6.
    let (mut ep, d) = duel(hero_with(w), dummy, &[20, 1, 20, 15, 2, 5, 7, 4, 1, 6]);
    swing(&mut ep, d);
    // (2+3)+(5+3)+(7+3) = 23, + 4 fire + 7 precision = 34.
    assert_eq!(ep.hp(d), 60 - 34, "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_critical_hits_flat_bonus_in_formula_is_multiplied() {
    let w = melee("club", 5, "1d6+2", "bludgeoning");
    let (mut ep, d) = duel(hero_with(w), creature("dummy"), &[20, 1, 20, 10, 3, 4]);
    swing(&mut ep, d);
    assert_eq!(ep.hp(d), 30 - (5 + 6), "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_damage_minimum_is_zero_here() {
    // 1d4-5 rolling 3 -> -2 -> 0 damage (the engine's floor is 0).
    let w = melee("weak", 5, "1d4-5", "bludgeoning");
    let (mut ep, d) = duel(hero_with(w), creature("dummy"), &[20, 1, 10, 3]);
    swing(&mut ep, d);
    assert_eq!(ep.hp(d), 30);
    assert_eq!(ep.attrition()[0].hits, 1);
    assert_eq!(ep.attrition()[0].damage_dealt, 0);
    assert!(
        lines_of(&ep, "hero")[0].contains(" 0 damage"),
        "{}",
        log(&ep)
    );
}

// ----- CRB — Glossary: Damage Reduction ------------------------------------------------

fn dr(v: Value, amount: i32, bypass: &[&str]) -> Value {
    set(v, "dr", json!({ "amount": amount, "bypass": bypass }))
}

#[test]
fn glossary_dr_applies_once_after_crit_multiplication_physical_part_only() {
    let w = json!({
        "name": "flaming sword", "kind": "melee", "attack_bonus": 5, "damage_bonus": 2,
        "damage": [
            { "formula": "1d8", "types": ["slashing"] },
            { "formula": "1d6", "types": ["fire"] }
        ]
    });
    // attack 20, confirm 10 -> ×2: (4+2)+(6+2) = 14 physical - DR 5 = 9; fire 3 -> 12.
    let (mut ep, d) = duel(
        hero_with(w),
        dr(creature("dummy"), 5, &[]),
        &[20, 1, 20, 10, 4, 6, 3],
    );
    swing(&mut ep, d);
    assert_eq!(ep.hp(d), 30 - 12, "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn glossary_dr_does_not_reduce_energy_damage() {
    // Physical 3 fully absorbed by DR 10/—; the 4 fire damage goes through.
    let w = json!({
        "name": "flaming dagger", "kind": "melee", "attack_bonus": 5,
        "damage": [
            { "formula": "1d4", "types": ["piercing"] },
            { "formula": "1d6", "types": ["fire"] }
        ]
    });
    let (mut ep, d) = duel(
        hero_with(w),
        dr(creature("dummy"), 10, &[]),
        &[20, 1, 10, 3, 4],
    );
    swing(&mut ep, d);
    assert_eq!(ep.hp(d), 26, "{}", log(&ep));
}

fn dr_and_case(weapon_bypass: &[&str]) -> i32 {
    let w = set(
        set(
            melee("sword", 5, "1d8", "slashing"),
            "damage_bonus",
            json!(5),
        ),
        "dr_bypass",
        json!(weapon_bypass),
    );
    let (mut ep, d) = duel(
        hero_with(w),
        dr(creature("dummy"), 10, &["cold iron", "magic"]),
        &[20, 1, 10, 8],
    );
    swing(&mut ep, d);
    30 - ep.hp(d)
}

#[test]
fn glossary_dr_with_and_requires_every_bypass_component() {
    // DR 10/cold iron and magic: a magic (not cold iron) weapon is reduced, 13 -> 3.
    assert_eq!(dr_and_case(&["magic"]), 3);
    assert_eq!(dr_and_case(&["cold iron"]), 3);
    // Both components: bypassed.
    assert_eq!(dr_and_case(&["magic", "cold iron"]), 13);
}

#[test]
fn glossary_dr_bypassed_by_matching_damage_type() {
    let run = |ty: &str| {
        let w = set(melee("w", 5, "1d8", ty), "damage_bonus", json!(5));
        let (mut ep, d) = duel(
            hero_with(w),
            dr(creature("dummy"), 5, &["slashing"]),
            &[20, 1, 10, 8],
        );
        swing(&mut ep, d);
        30 - ep.hp(d)
    };
    assert_eq!(run("slashing"), 13);
    assert_eq!(run("piercing"), 8);
}

// ----- CRB — Glossary: Energy Resistance, Immunity -------------------------------------------

#[test]
fn glossary_energy_resistance_per_component_and_type() {
    let w = json!({
        "name": "elemental blade", "kind": "melee", "attack_bonus": 5,
        "damage": [
            { "formula": "1d4", "types": ["slashing"] },
            { "formula": "1d6", "types": ["fire"] },
            { "formula": "1d6", "types": ["cold"] }
        ]
    });
    let dummy = set(creature("dummy"), "resistances", json!({ "fire": 5 }));
    // 2 slashing + (4 fire - 5 -> 0) + 3 cold = 5.
    let (mut ep, d) = duel(hero_with(w), dummy, &[20, 1, 10, 2, 4, 3]);
    swing(&mut ep, d);
    assert_eq!(ep.hp(d), 25, "{}", log(&ep));
}

#[test]
fn glossary_energy_immunity_removes_that_component() {
    let w = json!({
        "name": "flaming blade", "kind": "melee", "attack_bonus": 5,
        "damage": [
            { "formula": "1d4", "types": ["slashing"] },
            { "formula": "2d6", "types": ["fire"] }
        ]
    });
    let dummy = set(creature("dummy"), "immunities", json!(["fire"]));
    let (mut ep, d) = duel(hero_with(w), dummy, &[20, 1, 10, 2, 6, 6]);
    swing(&mut ep, d);
    assert_eq!(ep.hp(d), 28, "{}", log(&ep));
}

// ----- CRB — Combat: Full Attack (iteratives), Natural Attacks --------------------------------

/// Attack roll lines of a full attack with BAB `bab`, `count` swings per iterative; every
/// swing rolls 2 and misses AC 40.
fn full_attack_lines(bab: i32, count: u32) -> Vec<String> {
    let w = set(
        melee("longsword", 10, "1d8", "slashing"),
        "count",
        json!(count),
    );
    let hero = set(hero_with(w), "bab", json!(bab));
    let mut faces = vec![20, 1];
    faces.extend(std::iter::repeat_n(2, 16));
    let (mut ep, d) = duel(hero, with_ac(creature("dummy"), 40), &faces);
    let r = submit(&mut ep, &[full_attack(d)]);
    assert_all_ok(&r);
    lines_of(&ep, "hero")
        .into_iter()
        .map(|l| l.split(" AC").next().unwrap().to_string())
        .collect()
}

#[test]
fn crb_full_attack_iteratives_at_bab_6_11_16() {
    let at = |b: &str| format!("longsword vs dummy d20=2{b}");
    assert_eq!(full_attack_lines(1, 1), vec![at("+10=12")]);
    assert_eq!(full_attack_lines(5, 1), vec![at("+10=12")]);
    assert_eq!(full_attack_lines(6, 1), vec![at("+10=12"), at("+5=7")]);
    assert_eq!(full_attack_lines(10, 1), vec![at("+10=12"), at("+5=7")]);
    assert_eq!(
        full_attack_lines(11, 1),
        vec![at("+10=12"), at("+5=7"), at("+0=2")]
    );
    assert_eq!(
        full_attack_lines(16, 1),
        vec![at("+10=12"), at("+5=7"), at("+0=2"), at("-5=-3")]
    );
    assert_eq!(full_attack_lines(20, 1).len(), 4);
}

#[test]
fn crb_full_attack_count_swings_at_each_iterative() {
    let at = |b: &str| format!("longsword vs dummy d20=2{b}");
    assert_eq!(
        full_attack_lines(6, 2),
        vec![at("+10=12"), at("+10=12"), at("+5=7"), at("+5=7")]
    );
}

#[test]
fn bestiary_natural_attacks_never_iterative_secondary_bonus_as_printed() {
    let claw = json!({
        "name": "claw", "kind": "melee", "attack_bonus": 4, "natural": true, "count": 2,
        "damage": [{ "formula": "1d4", "types": ["slashing"] }]
    });
    let bite = json!({
        "name": "bite", "kind": "melee", "attack_bonus": -1, "natural": true, "secondary": true,
        "damage": [{ "formula": "1d6", "types": ["piercing"] }]
    });
    for weapon in [0usize, 1] {
        let hero = set(
            set(creature("hero"), "attacks", json!([claw, bite])),
            "bab",
            json!(16),
        );
        let (mut ep, d) = duel(hero, with_ac(creature("dummy"), 40), &[20, 1, 2, 2, 2]);
        let r = submit(&mut ep, &[full_attack_with(d, weapon)]);
        assert_all_ok(&r);
        let lines: Vec<String> = lines_of(&ep, "hero")
            .into_iter()
            .map(|l| l.split(" AC").next().unwrap().to_string())
            .collect();
        assert_eq!(
            lines,
            vec![
                "claw vs dummy d20=2+4=6",
                "claw vs dummy d20=2+4=6",
                "bite vs dummy d20=2-1=1"
            ],
            "full attack with weapon {weapon}"
        );
        assert_eq!(dice_left(&ep), 0);
    }
}

#[test]
fn crb_attack_action_is_a_single_swing_even_with_count_2() {
    let claw = json!({
        "name": "claw", "kind": "melee", "attack_bonus": 4, "natural": true, "count": 2,
        "damage": [{ "formula": "1d4", "types": ["slashing"] }]
    });
    let hero = set(creature("hero"), "attacks", json!([claw]));
    let (mut ep, d) = duel(hero, with_ac(creature("dummy"), 40), &[20, 1, 2]);
    swing(&mut ep, d);
    assert_eq!(lines_of(&ep, "hero").len(), 1);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_full_attack_stops_when_target_falls() {
    // BAB 11: three attacks; the first drops the 5-hp dummy (1d8 = 8), the rest are lost.
    let hero = set(creature("hero"), "bab", json!(11));
    let dummy = set(creature("dummy"), "hp_max", json!(5));
    let (mut ep, d) = duel(hero, dummy, &[20, 1, 15, 8]);
    let r = submit(&mut ep, &[full_attack(d)]);
    assert_all_ok(&r);
    assert_eq!(ep.hp(d), -3);
    assert_eq!(ep.attrition()[0].attacks, 1);
    assert_eq!(dice_left(&ep), 0);
}

// ----- CRB — Combat: Range Penalty ----------------------------------------------------------

/// Shooter at (1,1), target `squares` squares east on one row; one shot rolling 10 vs AC 50.
/// Returns the results and the shooter's transcript.
fn shoot(weapon: Value, squares: i32) -> (bool, Option<String>, Vec<String>, usize) {
    let enc = encounter(
        &room(1, 24),
        vec![
            unit("a", "hero", hero_with(weapon), (1, 1)),
            unit(
                "b",
                "dummy",
                with_ac(creature("dummy"), 50),
                (1, 1 + squares),
            ),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 10]);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    let r = submit(&mut ep, &[attack(d)]);
    (
        r[0].ok,
        r[0].code().map(str::to_string),
        lines_of(&ep, "hero"),
        dice_left(&ep),
    )
}

#[test]
fn crb_range_penalty_minus_2_per_full_increment_beyond_first() {
    let bow = || ranged("bow", 0, "1d6", "piercing", 10);
    for (squares, expect) in [
        (1, "d20=10+0=10 AC 50 -> MISS"),
        (2, "d20=10+0=10 AC 50 -> MISS"),
        (3, "d20=10-2=8 AC 50 [range -2] -> MISS"),
        (4, "d20=10-2=8 AC 50 [range -2] -> MISS"),
        (5, "d20=10-4=6 AC 50 [range -4] -> MISS"),
        (20, "d20=10-18=-8 AC 50 [range -18] -> MISS"),
    ] {
        let (ok, _, lines, left) = shoot(bow(), squares);
        assert!(ok, "{squares} squares");
        assert_eq!(left, 0);
        assert_eq!(lines, vec![format!("bow vs dummy {expect}")], "{squares}");
    }
}

#[test]
fn crb_range_max_10_increments_5_for_thrown_and_ranged_touch() {
    let bow = ranged("bow", 0, "1d6", "piercing", 10);
    assert!(shoot(bow.clone(), 20).0, "100 ft = 10 increments");
    let (ok, reason, lines, left) = shoot(bow, 21);
    assert!(!ok);
    assert_eq!(reason.as_deref(), Some("out_of_range"));
    assert!(lines.is_empty());
    assert_eq!(left, 1, "a rejected attack rolls nothing");

    let javelin = set(
        ranged("javelin", 0, "1d6", "piercing", 10),
        "thrown",
        json!(true),
    );
    let (ok, _, lines, _) = shoot(javelin.clone(), 10);
    assert!(ok);
    assert_eq!(
        lines,
        vec!["javelin vs dummy d20=10-8=2 AC 50 [range -8] -> MISS"]
    );
    assert_eq!(
        shoot(javelin, 11).1.as_deref(),
        Some("out_of_range"),
        "thrown: 5 increments"
    );

    let ray = json!({
        "name": "ray", "kind": "touch", "attack_bonus": 0, "range_increment_ft": 10,
        "damage": [{ "formula": "1d6", "types": ["fire"] }]
    });
    assert!(shoot(ray.clone(), 10).0);
    assert_eq!(shoot(ray, 11).1.as_deref(), Some("out_of_range"));
}

// ----- CRB — Combat: Shooting or Throwing into a Melee ------------------------------------

fn shoot_into_melee(ally_at: (i32, i32), ally_weapon: Value) -> String {
    let ally = set(creature("ally"), "attacks", json!([ally_weapon]));
    let enc = encounter(
        &room(3, 12),
        vec![
            unit(
                "a",
                "hero",
                hero_with(ranged("bow", 0, "1d6", "piercing", 100)),
                (2, 1),
            ),
            unit("a", "ally", ally, ally_at),
            unit("b", "dummy", with_ac(creature("dummy"), 50), (2, 7)),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 1, 10]);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    assert_all_ok(&submit(&mut ep, &[attack(d)]));
    lines_of(&ep, "hero").join("\n")
}

#[test]
fn crb_shooting_into_melee_minus_4() {
    let l = shoot_into_melee((2, 8), melee("sword", 0, "1d6", "slashing"));
    assert_eq!(l, "bow vs dummy d20=10-4=6 AC 50 [into melee -4] -> MISS");
}

#[test]
fn crb_shooting_into_melee_no_penalty_when_target_10ft_from_friend() {
    // The ally threatens the dummy with a 10-ft reach weapon from 10 ft away.
    let glaive = set(
        melee("glaive", 0, "1d10", "slashing"),
        "reach_ft",
        json!(10),
    );
    let l = shoot_into_melee((2, 9), glaive);
    assert_eq!(l, "bow vs dummy d20=10+0=10 AC 50 -> MISS");
}

#[test]
fn crb_shooting_into_melee_no_penalty_when_not_engaged() {
    // An ally 5 ft away that has only a bow and a dummy that does not threaten it are not
    // engaged in melee.
    let enc = encounter(
        &room(3, 12),
        vec![
            unit(
                "a",
                "hero",
                hero_with(ranged("bow", 0, "1d6", "piercing", 100)),
                (2, 1),
            ),
            unit(
                "a",
                "ally",
                hero_with(ranged("sling", 0, "1d4", "bludgeoning", 50)),
                (2, 8),
            ),
            unit(
                "b",
                "dummy",
                with_ac(hero_with(ranged("sling", 0, "1d4", "bludgeoning", 50)), 50),
                (2, 7),
            ),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 1, 10]);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    assert_all_ok(&submit(&mut ep, &[attack(d)]));
    assert_eq!(
        lines_of(&ep, "hero"),
        vec!["bow vs dummy d20=10+0=10 AC 50 -> MISS"]
    );
}

#[test]
fn crb_shooting_into_melee_no_penalty_past_an_immobilized_friend() {
    // CRB — Shooting or Throwing into a Melee: "An unconscious or otherwise immobilized
    // character is not considered engaged". The dummy threatens the ally next to it, but a
    // paralyzed, helpless, asleep or pinned ally is not engaged: no −4.
    let sword = melee("sword", 0, "1d6", "slashing");
    let ally_with = |cond: &str| {
        let ally = set(creature("ally"), "attacks", json!([sword.clone()]));
        set(ally, "conditions", json!([{ "name": cond }]))
    };
    for cond in ["paralyzed", "helpless", "asleep", "pinned"] {
        let l = shoot_past_ally(ally_with(cond));
        assert_eq!(l, "bow vs dummy d20=10+0=10 AC 50 -> MISS", "{cond} ally");
    }
    // Control: a grappled ally can still fight (it threatens the dummy): engaged, −4.
    let l = shoot_past_ally(ally_with("grappled"));
    assert_eq!(l, "bow vs dummy d20=10-4=6 AC 50 [into melee -4] -> MISS");
}

/// The hero shoots the dummy (AC 50) with `ally` (side a) adjacent to it; the shot's line.
fn shoot_past_ally(ally: Value) -> String {
    let enc = encounter(
        &room(3, 12),
        vec![
            unit(
                "a",
                "hero",
                hero_with(ranged("bow", 0, "1d6", "piercing", 100)),
                (2, 1),
            ),
            unit("a", "ally", ally, (2, 8)),
            unit("b", "dummy", with_ac(creature("dummy"), 50), (2, 7)),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 1, 10]);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    assert_all_ok(&submit(&mut ep, &[attack(d)]));
    assert_eq!(dice_left(&ep), 0);
    lines_of(&ep, "hero").join("\n")
}

// ----- CRB — Combat Modifiers: Flanking; Table: Attack Roll Modifiers (higher ground) ------

fn melee_with_ally(hero_at: (i32, i32), ally_at: (i32, i32), ally_weapon: Value) -> String {
    let ally = set(creature("ally"), "attacks", json!([ally_weapon]));
    melee_beside(hero_at, ally_at, ally)
}

/// The hero's melee attack on the dummy (AC 50, at (2,3)) with `ally` (side a) at `ally_at`.
fn melee_beside(hero_at: (i32, i32), ally_at: (i32, i32), ally: Value) -> String {
    let mut units = vec![
        unit("a", "hero", creature("hero"), hero_at),
        unit("a", "ally", ally, ally_at),
    ];
    if ally_at < hero_at {
        units.swap(0, 1);
    }
    units.push(unit("b", "dummy", with_ac(creature("dummy"), 50), (2, 3)));
    let enc = encounter(&room(3, 6), units);
    let mut ep = episode(enc, &[1, 1, 1, 10]);
    // Everyone rolled 1: list order. Let the ally pass if it acts before the hero.
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    assert_all_ok(&submit(&mut ep, &[attack(d)]));
    lines_of(&ep, "hero").join("\n")
}

#[test]
fn crb_flanking_opposite_sides_plus_2() {
    let sword = || melee("sword", 0, "1d6", "slashing");
    assert_eq!(
        melee_with_ally((2, 2), (2, 4), sword()),
        "longsword vs dummy d20=10+7=17 AC 50 [flanking +2] -> MISS"
    );
    // Opposite corners.
    assert_eq!(
        melee_with_ally((1, 2), (3, 4), sword()),
        "longsword vs dummy d20=10+7=17 AC 50 [flanking +2] -> MISS"
    );
}

#[test]
fn crb_flanking_needs_opposite_border() {
    let sword = || melee("sword", 0, "1d6", "slashing");
    // Ally north of the target, hero west: adjacent borders.
    assert_eq!(
        melee_with_ally((2, 2), (1, 3), sword()),
        "longsword vs dummy d20=10+5=15 AC 50 -> MISS"
    );
    // Knight's move: hero west, ally north-east.
    assert_eq!(
        melee_with_ally((2, 2), (1, 4), sword()),
        "longsword vs dummy d20=10+5=15 AC 50 -> MISS"
    );
}

#[test]
fn crb_flanking_ally_must_threaten() {
    let sling = ranged("sling", 0, "1d4", "bludgeoning", 50);
    assert_eq!(
        melee_with_ally((2, 2), (2, 4), sling),
        "longsword vs dummy d20=10+5=15 AC 50 -> MISS"
    );
}

/// CRB — Combat Modifiers: Flanking needs an ally that threatens the target, and a creature
/// threatens only the squares "into which you can make a melee attack" (CRB — Combat:
/// Threatened Squares). A nauseated ("unable to attack"), panicked or pinned ally cannot
/// attack (CRB — Appendix: Conditions): it threatens nothing and gives no flanking bonus.
#[test]
fn crb_flanking_no_bonus_from_an_ally_that_cannot_attack() {
    for cond in ["nauseated", "panicked", "pinned"] {
        let ally = set(creature("ally"), "conditions", json!([{ "name": cond }]));
        assert_eq!(
            melee_beside((2, 2), (2, 4), ally),
            "longsword vs dummy d20=10+5=15 AC 50 -> MISS",
            "{cond} ally"
        );
    }
    // Control: a grappled ally can still attack, so it threatens and flanks.
    let ally = set(
        creature("ally"),
        "conditions",
        json!([{ "name": "grappled" }]),
    );
    assert_eq!(
        melee_beside((2, 2), (2, 4), ally),
        "longsword vs dummy d20=10+7=17 AC 50 [flanking +2] -> MISS"
    );
}

fn high_ground(elevation: &[&str]) -> String {
    let enc = encounter_with(
        &room(3, 6),
        Some(elevation),
        vec![
            unit("a", "hero", creature("hero"), (2, 2)),
            unit("b", "dummy", with_ac(creature("dummy"), 50), (2, 3)),
        ],
        RulesOptions::default(),
    );
    let mut ep = episode(enc, &[20, 1, 10]);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    assert_all_ok(&submit(&mut ep, &[attack(d)]));
    lines_of(&ep, "hero").join("\n")
}

#[test]
fn crb_higher_ground_plus_1_melee() {
    let hero_high = ["00000000", "00000000", "00100000", "00000000", "00000000"];
    assert_eq!(
        high_ground(&hero_high),
        "longsword vs dummy d20=10+6=16 AC 50 [high ground +1] -> MISS"
    );
    let dummy_high = ["00000000", "00000000", "00010000", "00000000", "00000000"];
    assert_eq!(
        high_ground(&dummy_high),
        "longsword vs dummy d20=10+5=15 AC 50 -> MISS"
    );
}

// ----- CRB — Combat: Flat-Footed, Touch Attacks ----------------------------------------------

fn flat_footed_case(weapon: Value) -> Vec<String> {
    let dummy = set(
        creature("dummy"),
        "ac",
        json!({ "total": 15, "touch": 11, "flat_footed": 12 }),
    );
    let (mut ep, d) = duel(hero_with(weapon), dummy, &[20, 1, 2, 2]);
    // Round 1: the dummy has not acted yet -> flat-footed.
    swing(&mut ep, d);
    end_turn(&mut ep);
    turn_of(&mut ep, "dummy");
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    swing(&mut ep, d);
    assert_eq!(dice_left(&ep), 0);
    lines_of(&ep, "hero")
}

#[test]
fn crb_flat_footed_denies_dex_before_first_turn() {
    assert_eq!(
        flat_footed_case(melee("longsword", 5, "1d8", "slashing")),
        vec![
            "longsword vs dummy d20=2+5=7 AC 12 -> MISS",
            "longsword vs dummy d20=2+5=7 AC 15 -> MISS"
        ]
    );
}

#[test]
fn crb_flat_footed_touch_ac_loses_dex_part() {
    let touch = json!({
        "name": "shocking grasp", "kind": "touch", "attack_bonus": 5,
        "damage": [{ "formula": "1d6", "types": ["electricity"] }]
    });
    // Touch 11 minus the Dex/dodge part (15 - 12 = 3) while flat-footed.
    assert_eq!(
        flat_footed_case(touch),
        vec![
            "shocking grasp vs dummy d20=2+5=7 touch AC 8 -> MISS",
            "shocking grasp vs dummy d20=2+5=7 touch AC 11 -> MISS"
        ]
    );
}

#[test]
fn crb_critical_confirmation_uses_the_same_modifiers_as_the_attack() {
    // Flanked dummy (AC 12): the natural 20 threatens; the confirmation 5 + 5 + 2 (flanking)
    // = 12 confirms — it would miss without the flanking bonus. Damage 2 × 1d8 = 3 + 4.
    let enc = encounter(
        &room(3, 6),
        vec![
            unit("a", "hero", creature("hero"), (2, 2)),
            unit("a", "ally", creature("ally"), (2, 4)),
            unit("b", "dummy", with_ac(creature("dummy"), 12), (2, 3)),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 1, 20, 5, 3, 4]);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    swing(&mut ep, d);
    assert_eq!(ep.hp(d), 23, "{}", log(&ep));
    assert!(lines_of(&ep, "hero")[0].contains("confirm d20=5+7=12"));
    assert_eq!(dice_left(&ep), 0);
}

// ----- Edge cases of issue 4: flanking with reach and with Large creatures; soft cover and
// shooting into melee together --------------------------------------------------------------

/// CRB — Combat Modifiers: Flanking. An ally with a reach weapon flanks from 10 ft on the
/// opposite side (it threatens the target); in its dead zone (adjacent) it does not.
#[test]
fn crb_flanking_with_a_reach_weapon_ally() {
    let longspear = || {
        let mut w = melee("longspear", 0, "1d8", "piercing");
        w["reach_weapon"] = json!(true);
        w
    };
    // Hero west of the dummy at (2,2); ally two squares east at (2,5): threatens with reach.
    let ally = set(creature("ally"), "attacks", json!([longspear()]));
    let enc = encounter(
        &room(3, 6),
        vec![
            unit("a", "hero", creature("hero"), (2, 2)),
            unit("a", "ally", ally, (2, 5)),
            unit("b", "dummy", with_ac(creature("dummy"), 50), (2, 3)),
        ],
    );
    let mut ep = episode(enc, &[1, 1, 1, 10]);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    assert_all_ok(&submit(&mut ep, &[attack(d)]));
    assert_eq!(
        lines_of(&ep, "hero").join("\n"),
        "longsword vs dummy d20=10+7=17 AC 50 [flanking +2] -> MISS"
    );
    // Adjacent on the opposite side, the longspear's dead zone: no threat, no flanking.
    assert_eq!(
        melee_with_ally((2, 2), (2, 4), longspear()),
        "longsword vs dummy d20=10+5=15 AC 50 -> MISS"
    );
}

/// CRB — Combat Modifiers: Flanking, "if a flanker takes up more than 1 square, it gets the
/// flanking bonus if any square it occupies counts": a Large ally whose far square is on the
/// opposite side flanks.
#[test]
fn crb_flanking_with_a_large_ally_any_occupied_square_counts() {
    let mut ogre = creature("ally");
    ogre["size"] = json!("Large");
    // Dummy at (2,3); hero west at (2,2); the Large ally's 2×2 space is (1,4)-(2,5): its
    // square (2,4) is directly east of the dummy.
    let enc = encounter(
        &room(4, 7),
        vec![
            unit("a", "ally", ogre, (1, 4)),
            unit("a", "hero", creature("hero"), (2, 2)),
            unit("b", "dummy", with_ac(creature("dummy"), 50), (2, 3)),
        ],
    );
    let mut ep = episode(enc, &[1, 1, 1, 10]);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    assert_all_ok(&submit(&mut ep, &[attack(d)]));
    assert_eq!(
        lines_of(&ep, "hero").join("\n"),
        "longsword vs dummy d20=10+7=17 AC 50 [flanking +2] -> MISS"
    );
}

/// CRB — Combat Modifiers: Soft Cover, and Shooting into a Melee: a friend between the archer
/// and a target it is fighting gives the target +4 AC and the archer −4 — both apply.
#[test]
fn crb_soft_cover_and_shooting_into_melee_together() {
    let l = shoot_into_melee((2, 6), melee("sword", 0, "1d6", "slashing"));
    assert_eq!(
        l,
        "bow vs dummy d20=10-4=6 AC 54 [into melee -4, cover +4] -> MISS"
    );
}
