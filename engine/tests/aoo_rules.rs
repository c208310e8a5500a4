//! Attacks of opportunity against the PF1e SRD (CRB — Combat: Attacks of Opportunity;
//! Feats: Combat Reflexes; Combat: Flat-Footed), scripted dice.
//!
//! Layout: a 3 × 8 room. The guard (side b) acts first and ends its turn, so it is no longer
//! flat-footed, unless a test says otherwise.

mod common;

use common::*;
use pf1e_engine::{Cell, Episode};
use serde_json::{json, Value};

fn bow_hero(bab: i32) -> Value {
    set(
        set(
            creature("hero"),
            "attacks",
            json!([ranged("bow", 0, "1d6", "piercing", 100)]),
        ),
        "bab",
        json!(bab),
    )
}

fn reflexes(v: Value, dex: i32) -> Value {
    let v = set(v, "feats", json!(["Combat Reflexes"]));
    let mut abilities = v["abilities"].clone();
    abilities["dex_score"] = json!(dex);
    set(v, "abilities", abilities)
}

/// `units` placed in a 3 × 8 room; initiative faces given explicitly, then `more`.
fn setup(units: Vec<Unit>, init: &[u32], more: &[u32]) -> Episode {
    let enc = encounter(&room(3, 8), units);
    let mut faces = init.to_vec();
    faces.extend_from_slice(more);
    episode(enc, &faces)
}

fn aoo_lines(ep: &Episode) -> Vec<String> {
    lines_with(ep, "attack of opportunity")
}

#[test]
fn crb_aoo_leaving_threatened_squares_once_per_enemy_per_round() {
    // The hero walks (1,2) -> (1,3) -> (1,4) -> (1,5) along the guard's threatened squares:
    // leaving three threatened squares provokes once. The guard has Combat Reflexes (3 AoOs
    // per round), so the limit is the once-per-mover rule.
    let guard = reflexes(creature("guard"), 14);
    let mut ep = setup(
        vec![
            unit("a", "hero", creature("hero"), (1, 2)),
            unit("b", "guard", guard, (2, 3)),
        ],
        &[1, 20],
        &[2],
    );
    turn_of(&mut ep, "hero");
    assert_all_ok(&submit(&mut ep, &[move_to(1, 5)]));
    assert_eq!(ep.position(cid(&ep, "hero")), Cell::new(1, 5));
    assert_eq!(
        aoo_lines(&ep),
        vec!["round 1 guard: attack of opportunity on hero (leaves a threatened square)"],
        "{}",
        log(&ep)
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_aoo_one_per_round_without_combat_reflexes() {
    // Two heroes leave the guard's threatened squares: only the first provokes an AoO.
    let mut ep = setup(
        vec![
            unit("a", "hero", creature("hero"), (1, 2)),
            unit("a", "hero2", creature("hero2"), (3, 2)),
            unit("b", "guard", creature("guard"), (2, 3)),
        ],
        &[2, 2, 20],
        &[2],
    );
    turn_of(&mut ep, "hero");
    assert_all_ok(&submit(&mut ep, &[move_to(1, 1)]));
    end_turn(&mut ep);
    turn_of(&mut ep, "hero2");
    assert_all_ok(&submit(&mut ep, &[move_to(3, 1)]));
    assert_eq!(
        aoo_lines(&ep),
        vec!["round 1 guard: attack of opportunity on hero (leaves a threatened square)"]
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn feat_combat_reflexes_one_plus_dex_bonus_per_round() {
    // Dex 12 (+1): two AoOs per round; three heroes provoke, the third gets none.
    let guard = reflexes(creature("guard"), 12);
    let mut ep = setup(
        vec![
            unit("a", "hero", creature("hero"), (1, 2)),
            unit("a", "hero2", creature("hero2"), (1, 3)),
            unit("a", "hero3", creature("hero3"), (3, 2)),
            unit("b", "guard", guard, (2, 3)),
        ],
        &[2, 2, 2, 20],
        &[2, 2],
    );
    turn_of(&mut ep, "hero");
    assert_all_ok(&submit(&mut ep, &[move_to(1, 1)]));
    end_turn(&mut ep);
    turn_of(&mut ep, "hero2");
    assert_all_ok(&submit(&mut ep, &[move_to(1, 6)]));
    end_turn(&mut ep);
    turn_of(&mut ep, "hero3");
    assert_all_ok(&submit(&mut ep, &[move_to(3, 1)]));
    assert_eq!(
        aoo_lines(&ep),
        vec![
            "round 1 guard: attack of opportunity on hero (leaves a threatened square)",
            "round 1 guard: attack of opportunity on hero2 (leaves a threatened square)"
        ]
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_aoo_allowance_resets_each_round() {
    let mut ep = setup(
        vec![
            unit("a", "hero", creature("hero"), (1, 2)),
            unit("b", "guard", creature("guard"), (2, 3)),
        ],
        &[1, 20],
        &[2, 2],
    );
    turn_of(&mut ep, "hero");
    assert_all_ok(&submit(&mut ep, &[move_to(1, 4)]));
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    assert_eq!(ep.round(), 2);
    // Back out of the guard's reach: provokes again in round 2.
    assert_all_ok(&submit(&mut ep, &[move_to(1, 1)]));
    assert_eq!(
        aoo_lines(&ep),
        vec![
            "round 1 guard: attack of opportunity on hero (leaves a threatened square)",
            "round 2 guard: attack of opportunity on hero (leaves a threatened square)"
        ]
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_aoo_ranged_attack_in_threatened_square_provokes() {
    // Each shot of a full attack (BAB 6: two shots) is an opportunity; a guard with Combat
    // Reflexes (Dex 14) takes both; the guard's AoOs roll 2 and miss, the shots roll 2 too.
    let mut ep = setup(
        vec![
            unit("a", "hero", bow_hero(6), (2, 2)),
            unit("b", "guard", reflexes(creature("guard"), 14), (2, 3)),
        ],
        &[1, 20],
        &[2, 2, 2, 2],
    );
    turn_of(&mut ep, "hero");
    let g = cid(&ep, "guard");
    assert_all_ok(&submit(&mut ep, &[full_attack(g)]));
    assert_eq!(aoo_lines(&ep).len(), 2, "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_aoo_ranged_attack_provokes_once_without_combat_reflexes() {
    let mut ep = setup(
        vec![
            unit("a", "hero", bow_hero(6), (2, 2)),
            unit("b", "guard", creature("guard"), (2, 3)),
        ],
        &[1, 20],
        &[2, 2, 2],
    );
    turn_of(&mut ep, "hero");
    let g = cid(&ep, "guard");
    assert_all_ok(&submit(&mut ep, &[full_attack(g)]));
    assert_eq!(aoo_lines(&ep).len(), 1, "{}", log(&ep));
    assert_eq!(lines_with(&ep, "bow vs guard").len(), 2);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_aoo_ranged_attack_from_unthreatened_square_does_not_provoke() {
    let mut ep = setup(
        vec![
            unit("a", "hero", bow_hero(1), (2, 1)),
            unit("b", "guard", creature("guard"), (2, 3)),
        ],
        &[1, 20],
        &[2],
    );
    turn_of(&mut ep, "hero");
    let g = cid(&ep, "guard");
    assert_all_ok(&submit(&mut ep, &[attack(g)]));
    assert!(aoo_lines(&ep).is_empty());
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_flat_footed_creature_makes_no_aoo() {
    // The hero acts first: the guard has not acted yet and is flat-footed.
    let mut ep = setup(
        vec![
            unit("a", "hero", creature("hero"), (1, 2)),
            unit("b", "guard", creature("guard"), (2, 3)),
        ],
        &[20, 1],
        &[],
    );
    turn_of(&mut ep, "hero");
    assert_all_ok(&submit(&mut ep, &[move_to(1, 6)]));
    assert!(aoo_lines(&ep).is_empty());
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn feat_combat_reflexes_allows_aoo_while_flat_footed() {
    let mut ep = setup(
        vec![
            unit("a", "hero", creature("hero"), (1, 2)),
            unit("b", "guard", reflexes(creature("guard"), 12), (2, 3)),
        ],
        &[20, 1],
        &[2],
    );
    turn_of(&mut ep, "hero");
    assert_all_ok(&submit(&mut ep, &[move_to(1, 6)]));
    assert_eq!(
        aoo_lines(&ep),
        vec!["round 1 guard: attack of opportunity on hero (leaves a threatened square)"]
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_aoo_that_drops_the_mover_stops_its_movement() {
    // The guard's AoO (15+5 hits, 1d8 = 8) drops the 5-hp hero to -3 before it leaves (1,2).
    let hero = set(creature("hero"), "hp_max", json!(5));
    let mut ep = setup(
        vec![
            unit("a", "hero", hero, (1, 2)),
            unit("b", "guard", creature("guard"), (2, 3)),
        ],
        &[1, 20],
        &[15, 8],
    );
    turn_of(&mut ep, "hero");
    let h = cid(&ep, "hero");
    let r = submit(&mut ep, &[move_to(1, 6)]);
    assert!(r[0].ok);
    assert_eq!(ep.hp(h), -3);
    assert_eq!(ep.position(h), Cell::new(1, 2));
    assert!(
        lines_with(&ep, "move stopped at (1,2)").len() == 1,
        "{}",
        log(&ep)
    );
    assert_eq!(ep.attrition()[1].attacks, 1, "the AoO counts as an attack");
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_aoo_moving_within_reach_of_reach_weapon_provokes() {
    // A guard whose attack has a 10-ft reach (no dead zone) threatens (1,1), 10 ft away:
    // leaving it provokes.
    let glaive = set(
        melee("glaive", 5, "1d10", "slashing"),
        "reach_ft",
        json!(10),
    );
    let guard = set(creature("guard"), "attacks", json!([glaive]));
    let mut ep = setup(
        vec![
            unit("a", "hero", creature("hero"), (1, 1)),
            unit("b", "guard", guard, (1, 3)),
        ],
        &[1, 20],
        &[2],
    );
    turn_of(&mut ep, "hero");
    assert_all_ok(&submit(&mut ep, &[move_to(3, 1)]));
    assert_eq!(
        aoo_lines(&ep),
        vec!["round 1 guard: attack of opportunity on hero (leaves a threatened square)"]
    );
    assert!(lines_with(&ep, "glaive vs hero d20=2+5=7").len() == 1);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_reach_weapon_does_not_threaten_adjacent_squares() {
    // A glaive (reach weapon) threatens 10 ft away but not adjacent squares (CRB — Equipment:
    // Reach weapons; Combat: Reach Weapons): leaving an adjacent square provokes nothing,
    // leaving a square 10 ft away provokes.
    let glaive = set(
        set(
            melee("glaive", 5, "1d10", "slashing"),
            "reach_weapon",
            json!(true),
        ),
        "two_handed",
        json!(true),
    );
    let guard = set(creature("guard"), "attacks", json!([glaive]));
    let mut ep = setup(
        vec![
            unit("a", "hero", creature("hero"), (2, 4)),
            unit("b", "guard", guard.clone(), (2, 5)),
        ],
        &[1, 20],
        &[],
    );
    turn_of(&mut ep, "hero");
    // (2,4) -> (2,3) (10 ft from the guard, threatened) — leaving (2,4) provokes nothing.
    assert_all_ok(&submit(&mut ep, &[move_to(2, 3)]));
    assert!(aoo_lines(&ep).is_empty(), "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);

    let mut ep = setup(
        vec![
            unit("a", "hero", creature("hero"), (2, 3)),
            unit("b", "guard", guard, (2, 5)),
        ],
        &[1, 20],
        &[2],
    );
    turn_of(&mut ep, "hero");
    assert_all_ok(&submit(&mut ep, &[move_to(2, 1)]));
    assert_eq!(
        aoo_lines(&ep),
        vec!["round 1 guard: attack of opportunity on hero (leaves a threatened square)"]
    );
    assert_eq!(dice_left(&ep), 0);
}

/// CRB — Combat: Threatened Squares: a creature threatens the squares "into which you can make
/// a melee attack". A nauseated creature is "unable to attack", a panicked one flees and
/// "can't take any other actions", a pinned one can only try to free itself (CRB — Appendix:
/// Conditions): each threatens nothing. The guard next to the hero is offered no attack of
/// opportunity when the hero walks away, whether it is externally controlled or played by
/// the default policy (which takes every AoO offered), and the hero's observation shows no
/// threatened square and no threatening enemy (JSON and tensor plane).
#[test]
fn crb_a_creature_that_cannot_attack_threatens_nothing_and_makes_no_aoo() {
    use pf1e_engine::observe::tensor::PLANE_NAMES;
    use pf1e_engine::{Controller, DiceSource, ScriptedDice};
    for cond in ["nauseated", "panicked", "pinned"] {
        let guard = set(creature("guard"), "conditions", json!([{ "name": cond }]));
        let units = || {
            vec![
                unit("a", "hero", creature("hero"), (1, 2)),
                unit("b", "guard", guard.clone(), (2, 3)),
            ]
        };
        // Externally controlled guard: no reaction decision is offered ([2] would be its d20).
        let mut ep = setup(units(), &[1, 20], &[2]);
        turn_of(&mut ep, "hero");
        let obs = ep.observation(None);
        assert!(obs.enemies_threatening_me.is_empty(), "{cond}");
        assert!(!obs.pairs[0].target_threatens_me, "{cond}");
        assert!(obs.threatened.iter().flatten().all(|&t| !t), "{cond}");
        let tensor = ep.observation_tensor(cid(&ep, "hero"));
        let p = PLANE_NAMES
            .iter()
            .position(|&n| n == "threatened_by_enemies")
            .unwrap();
        let cells = tensor.plane_shape[1] * tensor.plane_shape[2];
        assert!(
            tensor.planes[p * cells..(p + 1) * cells]
                .iter()
                .all(|&v| v == 0.0),
            "{cond}"
        );
        assert_all_ok(&submit(&mut ep, &[move_to(1, 6)]));
        assert_eq!(ep.position(cid(&ep, "hero")), Cell::new(1, 6));
        assert!(aoo_lines(&ep).is_empty(), "{cond}: {}", log(&ep));
        assert_eq!(dice_left(&ep), 1, "{cond}: nothing rolled");

        // The guard played by the default policy takes no AoO either.
        let mut ep = Episode::with_dice(
            encounter(&room(3, 8), units()),
            DiceSource::Scripted(ScriptedDice::new([1, 20, 2])),
            &[Controller::External, Controller::DefaultPolicy],
        );
        turn_of(&mut ep, "hero");
        assert_all_ok(&submit(&mut ep, &[move_to(1, 6)]));
        assert!(aoo_lines(&ep).is_empty(), "{cond} (policy): {}", log(&ep));
        assert_eq!(dice_left(&ep), 1, "{cond} (policy): nothing rolled");
    }
}
