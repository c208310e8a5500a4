//! Movement rules against the PF1e SRD (CRB — Combat: Movement, Position, and Distance;
//! Actions in Combat: Take 5-Foot Step, Withdraw; Special Attacks: Charge), scripted dice.

mod common;

use common::*;
use pf1e_engine::episode::LifeState;
use pf1e_engine::{ActionKind, Cell, Episode};
use serde_json::json;

fn rows(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|s| s.to_string()).collect()
}

fn reason(r: &pf1e_engine::ActionResult) -> Option<&str> {
    assert!(!r.ok, "expected a rejection, got {r:?}");
    r.code()
}

/// Hero (side a) and dummy (side b) on `terrain`; the hero acts first (init 20 vs 1).
fn hero_first(
    terrain: &[String],
    hero: serde_json::Value,
    hero_at: (i32, i32),
    dummy_at: (i32, i32),
    more: &[u32],
) -> Episode {
    let enc = encounter(
        terrain,
        vec![
            unit("a", "hero", hero, hero_at),
            unit("b", "dummy", creature("dummy"), dummy_at),
        ],
    );
    let mut faces = vec![20, 1];
    faces.extend_from_slice(more);
    let mut ep = episode(enc, &faces);
    turn_of(&mut ep, "hero");
    ep
}

/// Same, but the dummy acts first and ends its turn (so it is no longer flat-footed and can
/// make attacks of opportunity).
fn dummy_first(
    terrain: &[String],
    hero: serde_json::Value,
    hero_at: (i32, i32),
    dummy_at: (i32, i32),
    more: &[u32],
) -> Episode {
    let enc = encounter(
        terrain,
        vec![
            unit("a", "hero", hero, hero_at),
            unit("b", "dummy", creature("dummy"), dummy_at),
        ],
    );
    let mut faces = vec![1, 20];
    faces.extend_from_slice(more);
    let mut ep = episode(enc, &faces);
    turn_of(&mut ep, "hero");
    ep
}

fn hero_id(ep: &Episode) -> pf1e_engine::CombatantId {
    cid(ep, "hero")
}

// ----- CRB — Combat: Measuring Distance (5-10-5 diagonals) ---------------------------------

#[test]
fn crb_move_diagonals_alternate_5_10() {
    // Speed 30 ft = 6 squares: 4 diagonals cost 1+2+1+2 = 6, 5 diagonals cost 7.
    let mut ep = hero_first(&room(8, 8), creature("hero"), (1, 1), (8, 8), &[]);
    let r = submit(&mut ep, &[move_to(6, 6)]);
    assert_eq!(reason(&r[0]), Some("unreachable_destination"));
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(1, 1));
    let r = submit(&mut ep, &[move_to(5, 5)]);
    assert_all_ok(&r);
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(5, 5));
}

#[test]
fn crb_move_up_to_speed_orthogonally() {
    let mut ep = hero_first(&room(1, 12), creature("hero"), (1, 1), (1, 12), &[]);
    assert_eq!(
        reason(&submit(&mut ep, &[move_to(1, 8)])[0]),
        Some("unreachable_destination")
    );
    assert_all_ok(&submit(&mut ep, &[move_to(1, 7)]));
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(1, 7));
}

#[test]
fn crb_difficult_terrain_costs_double() {
    // (1,3) and (1,4) are difficult: reaching (1,5) costs 1+2+2+1 = 6, (1,6) costs 7.
    let terrain = rows(&["#########", "#..TT...#", "#########"]);
    let mut ep = hero_first(&terrain, creature("hero"), (1, 1), (1, 7), &[]);
    assert_eq!(
        reason(&submit(&mut ep, &[move_to(1, 6)])[0]),
        Some("unreachable_destination")
    );
    assert_all_ok(&submit(&mut ep, &[move_to(1, 5)]));
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(1, 5));
}

#[test]
fn crb_cannot_move_diagonally_past_a_corner() {
    // Wall at (2,1): the diagonal (1,1) -> (2,2) cuts its corner. Speed 5 ft (1 square): no
    // way around within it.
    let terrain = rows(&["######", "#....#", "##...#", "######"]);
    let hero = set(creature("hero"), "speed_land_ft", json!(5));
    let mut ep = hero_first(&terrain, hero, (1, 1), (2, 4), &[]);
    assert_eq!(
        reason(&submit(&mut ep, &[move_to(2, 2)])[0]),
        Some("unreachable_destination")
    );
    // Nor a 5-foot step across the corner (speed 30 ft: a speed of 5 ft allows no step).
    let mut ep = hero_first(&terrain, creature("hero"), (1, 1), (2, 4), &[]);
    assert_eq!(
        reason(&submit(&mut ep, &[step(2, 2)])[0]),
        Some("unreachable_destination")
    );
    assert_all_ok(&submit(&mut ep, &[step(1, 2)]));
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(1, 2));
}

// ----- CRB — Combat: Moving Through a Square ----------------------------------------------

#[test]
fn crb_move_through_ally_but_not_stop_there() {
    let enc = encounter(
        &room(1, 10),
        vec![
            unit("a", "hero", creature("hero"), (1, 1)),
            unit("a", "ally", creature("ally"), (1, 2)),
            unit("b", "dummy", creature("dummy"), (1, 9)),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 1]);
    turn_of(&mut ep, "hero");
    assert_eq!(
        reason(&submit(&mut ep, &[move_to(1, 2)])[0]),
        Some("unreachable_destination")
    );
    assert_all_ok(&submit(&mut ep, &[move_to(1, 3)]));
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(1, 3));
}

#[test]
fn crb_opponent_square_blocks_movement() {
    let enc = encounter(
        &room(1, 10),
        vec![
            unit("a", "hero", creature("hero"), (1, 1)),
            unit("b", "dummy", creature("dummy"), (1, 2)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "hero");
    assert_eq!(
        reason(&submit(&mut ep, &[move_to(1, 3)])[0]),
        Some("unreachable_destination")
    );
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(1, 1));
}

// ----- CRB — Actions in Combat: Take 5-Foot Step ------------------------------------------

#[test]
fn crb_five_foot_step_never_provokes() {
    // The dummy has acted (not flat-footed) and threatens the hero: the step provokes nothing.
    let mut ep = dummy_first(&room(3, 6), creature("hero"), (2, 2), (2, 3), &[]);
    assert_all_ok(&submit(&mut ep, &[step(2, 1)]));
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(2, 1));
    assert!(lines_with(&ep, "attack of opportunity").is_empty());
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_moving_out_of_threatened_square_provokes_control() {
    // Control for the test above: the same square left with a move action provokes.
    let mut ep = dummy_first(&room(3, 6), creature("hero"), (2, 2), (2, 3), &[2]);
    assert_all_ok(&submit(&mut ep, &[move_to(2, 1)]));
    assert_eq!(
        lines_with(&ep, "attack of opportunity"),
        vec!["round 1 dummy: attack of opportunity on hero (leaves a threatened square)"]
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_five_foot_step_excludes_other_movement() {
    let terrain = room(3, 10);
    // step then move / withdraw / charge / step: already moved.
    let mut ep = hero_first(&terrain, creature("hero"), (2, 1), (2, 8), &[]);
    let d = cid(&ep, "dummy");
    let r = submit(
        &mut ep,
        &[
            step(2, 2),
            move_to(2, 4),
            withdraw(2, 4),
            charge(d),
            step(2, 3),
        ],
    );
    assert!(ok(&r[0]));
    for x in &r[1..] {
        assert_eq!(reason(x), Some("already_moved"), "{x:?}");
    }
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(2, 2));
    // move then step: already moved.
    let mut ep = hero_first(&terrain, creature("hero"), (2, 1), (2, 8), &[]);
    let r = submit(&mut ep, &[move_to(2, 3), step(2, 4)]);
    assert!(ok(&r[0]));
    assert_eq!(reason(&r[1]), Some("already_moved"));
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(2, 3));
}

#[test]
fn crb_five_foot_step_then_full_attack() {
    // BAB 6: two attacks after the step (both roll 2 and miss AC 10).
    let hero = set(creature("hero"), "bab", json!(6));
    let mut ep = hero_first(&room(3, 6), hero, (2, 1), (2, 3), &[2, 2]);
    let d = cid(&ep, "dummy");
    assert_all_ok(&submit(&mut ep, &[step(2, 2), full_attack(d)]));
    assert_eq!(lines_with(&ep, "longsword vs dummy").len(), 2);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_five_foot_step_not_into_difficult_terrain() {
    let terrain = rows(&["########", "#.T....#", "########"]);
    let mut ep = hero_first(&terrain, creature("hero"), (1, 1), (1, 6), &[]);
    assert_eq!(
        reason(&submit(&mut ep, &[step(1, 2)])[0]),
        Some("unreachable_destination")
    );
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(1, 1));
}

#[test]
fn crb_no_five_foot_step_with_a_speed_of_5_ft_or_less() {
    // CRB — Take 5-Foot Step: a creature with a speed of 5 feet or less can't take one. The
    // current speed counts: 10 ft halved by entangled or by being disabled is 5 ft.
    let no_step = |mut ep: Episode| {
        assert!(!ep
            .legal_actions()
            .iter()
            .any(|l| l.action.kind == ActionKind::FiveFootStep));
        let r = submit(&mut ep, &[step(2, 1)]);
        assert_eq!(reason(&r[0]), Some("unreachable_destination"));
        assert_eq!(ep.position(hero_id(&ep)), Cell::new(2, 2));
        assert_eq!(dice_left(&ep), 0);
    };
    let slow = |ft: i32| set(creature("hero"), "speed_land_ft", json!(ft));
    no_step(hero_first(&room(3, 6), slow(5), (2, 2), (2, 5), &[]));
    let entangled = set(slow(10), "conditions", json!([{"name": "entangled"}]));
    no_step(hero_first(&room(3, 6), entangled, (2, 2), (2, 5), &[]));
    // Disabled: the dummy acts first and hits the 5-hp hero for 5 (d20 15, 1d8 5).
    let enc = encounter(
        &room(3, 6),
        vec![
            unit("a", "hero", set(slow(10), "hp_max", json!(5)), (2, 2)),
            unit("b", "dummy", creature("dummy"), (2, 3)),
        ],
    );
    let mut ep = episode(enc, &[1, 20, 15, 5]);
    turn_of(&mut ep, "dummy");
    let h = hero_id(&ep);
    assert_all_ok(&submit(&mut ep, &[attack(h)]));
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    assert_eq!(ep.life_state(hero_id(&ep)), LifeState::Disabled);
    no_step(ep);
    // Control: 10 ft, unhampered, steps.
    let mut ep = hero_first(&room(3, 6), slow(10), (2, 2), (2, 5), &[]);
    assert_all_ok(&submit(&mut ep, &[step(2, 1)]));
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(2, 1));
}

/// The turn budget's `five_foot_step` (decision and observation) says no 5-foot step is left
/// exactly when none is legal for the speed (CRB — Take 5-Foot Step: none with a speed of 5
/// ft or less): false at 5 ft and at 10 ft halved by entangled, true at 10 ft and 30 ft.
#[test]
fn crb_budget_no_five_foot_step_with_a_speed_of_5_ft_or_less() {
    let slow = |ft: i32| set(creature("hero"), "speed_land_ft", json!(ft));
    let budget_step = |hero: serde_json::Value| {
        let ep = hero_first(&room(3, 6), hero, (2, 2), (2, 5), &[]);
        let from_decision = decision(&ep).budget.five_foot_step;
        let obs = ep.observation(None).budget.expect("a turn budget");
        assert_eq!(obs.five_foot_step, from_decision);
        let legal = ep
            .legal_actions()
            .iter()
            .any(|l| l.action.kind == ActionKind::FiveFootStep);
        assert_eq!(from_decision, legal, "budget and mask agree");
        from_decision
    };
    assert!(!budget_step(slow(5)), "5 ft");
    let entangled = set(slow(10), "conditions", json!([{"name": "entangled"}]));
    assert!(!budget_step(entangled), "10 ft, entangled: 5 ft");
    assert!(budget_step(slow(10)), "10 ft");
    assert!(budget_step(creature("hero")), "30 ft");
}

// ----- CRB — Special Attacks: Charge --------------------------------------------------------

#[test]
fn crb_charge_plus_2_attack_minus_2_ac_until_next_turn() {
    // Round 1: hero charges (10+5+2 = 17 hits AC 10, 1d8 = 4); dummy attacks the charging
    // hero (AC 10-2 = 8, roll 2+5 = 7: miss). Round 2: the dummy attacks again (AC back to 10).
    let mut ep = hero_first(
        &room(3, 10),
        creature("hero"),
        (2, 1),
        (2, 6),
        &[10, 4, 2, 2],
    );
    let d = cid(&ep, "dummy");
    let h = hero_id(&ep);
    assert_all_ok(&submit(&mut ep, &[charge(d)]));
    assert_eq!(ep.position(h), Cell::new(2, 5));
    assert_eq!(ep.hp(d), 26);
    assert_eq!(
        lines_of(&ep, "hero"),
        vec![
            "charge (2,1)->(2,2)->(2,3)->(2,4)->(2,5)",
            "longsword vs dummy d20=10+7=17 AC 10 [charge +2] -> HIT 4 damage (dummy hp 30->26)"
        ]
    );
    turn_of(&mut ep, "dummy");
    assert_all_ok(&submit(&mut ep, &[attack(h)]));
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    end_turn(&mut ep);
    turn_of(&mut ep, "dummy");
    assert_all_ok(&submit(&mut ep, &[attack(h)]));
    assert_eq!(
        lines_of(&ep, "dummy"),
        vec![
            "longsword vs hero d20=2+5=7 AC 8 [target charging AC -2] -> MISS",
            "longsword vs hero d20=2+5=7 AC 10 -> MISS"
        ]
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_charge_needs_at_least_10_ft() {
    let mut ep = hero_first(&room(3, 10), creature("hero"), (2, 1), (2, 3), &[]);
    let d = cid(&ep, "dummy");
    assert_eq!(
        reason(&submit(&mut ep, &[charge(d)])[0]),
        Some("no_charge_path")
    );
    let mut ep = hero_first(&room(3, 10), creature("hero"), (2, 1), (2, 2), &[]);
    let d = cid(&ep, "dummy");
    assert_eq!(
        reason(&submit(&mut ep, &[charge(d)])[0]),
        Some("no_charge_path")
    );
    // 10 ft of movement is enough.
    let mut ep = hero_first(&room(3, 10), creature("hero"), (2, 1), (2, 4), &[2]);
    let d = cid(&ep, "dummy");
    assert_all_ok(&submit(&mut ep, &[charge(d)]));
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(2, 3));
}

#[test]
fn crb_charge_at_most_double_speed() {
    // Speed 30: 12 squares. Dummy at col 14 -> attack square col 13, 12 squares: ok.
    let mut ep = hero_first(&room(1, 16), creature("hero"), (1, 1), (1, 14), &[2]);
    let d = cid(&ep, "dummy");
    assert_all_ok(&submit(&mut ep, &[charge(d)]));
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(1, 13));
    // One square further: out of range.
    let mut ep = hero_first(&room(1, 16), creature("hero"), (1, 1), (1, 15), &[]);
    let d = cid(&ep, "dummy");
    assert_eq!(
        reason(&submit(&mut ep, &[charge(d)])[0]),
        Some("out_of_range")
    );
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(1, 1));
}

#[test]
fn crb_charge_blocked_by_a_creature_even_an_ally() {
    let enc = encounter(
        &room(1, 10),
        vec![
            unit("a", "hero", creature("hero"), (1, 1)),
            unit("a", "ally", creature("ally"), (1, 3)),
            unit("b", "dummy", creature("dummy"), (1, 6)),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 1]);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    assert_eq!(
        reason(&submit(&mut ep, &[charge(d)])[0]),
        Some("no_charge_path")
    );
}

#[test]
fn crb_charge_blocked_by_difficult_terrain() {
    let terrain = rows(&["##########", "#..T....##", "##########"]);
    let mut ep = hero_first(&terrain, creature("hero"), (1, 1), (1, 6), &[]);
    let d = cid(&ep, "dummy");
    assert_eq!(
        reason(&submit(&mut ep, &[charge(d)])[0]),
        Some("no_charge_path")
    );
}

#[test]
fn crb_charge_helpless_creatures_do_not_stop_a_charge() {
    // Round 1: hero drops the 1-hp mook at (1,2) to -2 (dying); the mook fails its
    // stabilization check (d20 = 1) at the start of its turn. Round 2: the hero charges the
    // dummy through the mook's square.
    let mook = set(creature("mook"), "hp_max", json!(1));
    let enc = encounter(
        &room(1, 10),
        vec![
            unit("a", "hero", creature("hero"), (1, 1)),
            unit("b", "mook", mook, (1, 2)),
            unit("b", "dummy", creature("dummy"), (1, 6)),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 1, 15, 3, 1, 2]);
    turn_of(&mut ep, "hero");
    let m = cid(&ep, "mook");
    let d = cid(&ep, "dummy");
    assert_all_ok(&submit(&mut ep, &[attack(m)]));
    end_turn(&mut ep);
    turn_of(&mut ep, "dummy");
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    assert_eq!(ep.life_state(m), LifeState::Dying);
    assert_eq!(ep.hp(m), -3);
    assert_all_ok(&submit(&mut ep, &[charge(d)]));
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(1, 5));
    assert_eq!(dice_left(&ep), 0);
}

// ----- CRB — Actions in Combat: Withdraw ------------------------------------------------------

fn strip() -> Vec<String> {
    rows(&["##########", "#........#", "#........#", "##########"])
}

#[test]
fn crb_withdraw_first_square_does_not_provoke() {
    // The dummy at (2,4) threatens (1,3) only among the hero's path squares to (1,1).
    let mut ep = dummy_first(&strip(), creature("hero"), (1, 3), (2, 4), &[]);
    assert_all_ok(&submit(&mut ep, &[withdraw(1, 1)]));
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(1, 1));
    assert!(lines_with(&ep, "attack of opportunity").is_empty());
    assert_eq!(dice_left(&ep), 0);
    // Control: the same movement as a move action provokes.
    let mut ep = dummy_first(&strip(), creature("hero"), (1, 3), (2, 4), &[2]);
    assert_all_ok(&submit(&mut ep, &[move_to(1, 1)]));
    assert_eq!(lines_with(&ep, "attack of opportunity").len(), 1);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_withdraw_later_threatened_squares_provoke() {
    // Path (1,4), (1,5), (1,6), (1,7): leaving (1,4) — threatened, not the first square —
    // provokes (the dummy rolls 2 and misses).
    let mut ep = dummy_first(&strip(), creature("hero"), (1, 3), (2, 4), &[2]);
    assert_all_ok(&submit(&mut ep, &[withdraw(1, 7)]));
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(1, 7));
    let log = log(&ep);
    assert_eq!(
        lines_with(&ep, "attack of opportunity"),
        vec!["round 1 dummy: attack of opportunity on hero (leaves a threatened square)"],
        "{log}"
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_withdraw_up_to_double_speed_and_is_full_round() {
    let mut ep = hero_first(&room(1, 16), creature("hero"), (1, 1), (1, 16), &[]);
    assert_eq!(
        reason(&submit(&mut ep, &[withdraw(1, 14)])[0]),
        Some("unreachable_destination")
    );
    let r = submit(&mut ep, &[withdraw(1, 13), move_to(1, 12)]);
    assert!(ok(&r[0]));
    assert_eq!(reason(&r[1]), Some("downgraded:action_economy"));
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(1, 13));
    let _ = ActionKind::Withdraw;
}

/// The destinations of the legal withdraws now.
fn withdraw_squares(ep: &Episode) -> Vec<Cell> {
    ep.legal_actions()
        .into_iter()
        .filter(|l| l.action.kind == ActionKind::Withdraw)
        .filter_map(|l| l.action.destination)
        .collect()
}

#[test]
fn crb_restricted_withdraw_staggered_a_standard_action_up_to_speed() {
    // CRB — Withdraw, Restricted Withdraw (seed L6): "If you are limited to taking only a
    // standard action each round you can withdraw as a standard action. In this case, you
    // may move up to your speed." Staggered, 30 ft: 6 squares, not 12.
    let staggered = set(
        creature("hero"),
        "conditions",
        json!([{ "name": "staggered" }]),
    );
    let mut ep = hero_first(&room(1, 16), staggered.clone(), (1, 1), (1, 16), &[]);
    let w = withdraw_squares(&ep);
    assert!(w.contains(&Cell::new(1, 7)), "{w:?}");
    assert!(w.iter().all(|c| c.col <= 7), "{w:?}");
    assert_eq!(
        reason(&submit(&mut ep, &[withdraw(1, 8)])[0]),
        Some("unreachable_destination")
    );
    // Its one action: nothing after it.
    let r = submit(&mut ep, &[withdraw(1, 7), move_to(1, 8)]);
    assert!(ok(&r[0]), "{r:?}");
    assert_eq!(reason(&r[1]), Some("downgraded:staggered"));
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(1, 7));
    assert_eq!(dice_left(&ep), 0);
    // After its standard action, no withdraw (a move action is not enough).
    let mut ep = hero_first(&room(1, 16), staggered.clone(), (1, 1), (1, 16), &[]);
    assert_all_ok(&submit(&mut ep, &[move_to(1, 2)]));
    assert!(withdraw_squares(&ep).is_empty());
    // The square it starts in is still not threatened: the dummy at (2,4) threatens (1,3).
    let mut ep = dummy_first(&strip(), staggered, (1, 3), (2, 4), &[]);
    assert_all_ok(&submit(&mut ep, &[withdraw(1, 1)]));
    assert!(lines_with(&ep, "attack of opportunity").is_empty());
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_restricted_withdraw_disabled_at_half_speed_costs_1_hp() {
    // Disabled (0 hp): a single move or standard action, half speed (15 ft: 3 squares); the
    // withdraw is a standard action, so it costs 1 hp after (CRB — Injury and Death:
    // Disabled) and the hero is dying. The dummy acts first and hits for 5 (d20 15, 1d8 5).
    let hero = set(creature("hero"), "hp_max", json!(5));
    let enc = encounter(
        &room(1, 12),
        vec![
            unit("a", "hero", hero, (1, 5)),
            unit("b", "dummy", creature("dummy"), (1, 6)),
        ],
    );
    let mut ep = episode(enc, &[1, 20, 15, 5]);
    turn_of(&mut ep, "dummy");
    let h = hero_id(&ep);
    assert_all_ok(&submit(&mut ep, &[attack(h)]));
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    assert_eq!(ep.life_state(h), LifeState::Disabled);
    let w = withdraw_squares(&ep);
    assert!(w.contains(&Cell::new(1, 2)), "{w:?}");
    assert!(!w.contains(&Cell::new(1, 1)), "{w:?}");
    assert_eq!(
        reason(&submit(&mut ep, &[withdraw(1, 1)])[0]),
        Some("unreachable_destination")
    );
    assert_all_ok(&submit(&mut ep, &[withdraw(1, 2)]));
    assert_eq!(ep.position(h), Cell::new(1, 2));
    assert!(lines_with(&ep, "attack of opportunity").is_empty());
    assert_eq!(
        lines_with(&ep, "strains while disabled").len(),
        1,
        "{}",
        log(&ep)
    );
    assert_eq!(ep.life_state(h), LifeState::Dying);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_charge_along_a_diagonal_counts_5_10_5() {
    // (1,1) -> (6,6): 5 diagonals = 7 squares (35 ft) <= 60 ft; the attack (2+7) misses.
    let mut ep = hero_first(&room(8, 8), creature("hero"), (1, 1), (7, 7), &[2]);
    let d = cid(&ep, "dummy");
    assert_all_ok(&submit(&mut ep, &[charge(d)]));
    assert_eq!(ep.position(hero_id(&ep)), Cell::new(6, 6));
    assert_eq!(dice_left(&ep), 0);
}

/// A reflexive guard: Combat Reflexes with Dex 18 (5 AoOs per round), attacks that miss on the
/// scripted 1s.
fn reflexive(name: &str) -> serde_json::Value {
    let mut g = creature(name);
    g["feats"] = serde_json::json!(["Combat Reflexes"]);
    g["abilities"]["dex_score"] = serde_json::json!(18);
    g
}

/// CRB — Combat: Big and Little Creatures: a Tiny creature has no reach; it must enter its
/// opponent's square to attack in melee, which provokes from that opponent (a separate
/// opportunity from leaving the square before); both then share the square.
#[test]
fn crb_tiny_creature_enters_the_opponents_square_to_attack() {
    let mut tiny = creature("hero");
    tiny["size"] = serde_json::json!("Tiny");
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", tiny, (2, 2)),
            unit("b", "guard", reflexive("guard"), (2, 4)),
        ],
    );
    // Initiative 20 / 1; the guard's two AoOs miss (1, 1); the hero's attack hits (15), 1d8 = 3.
    let mut ep = episode(enc, &[20, 1, 1, 1, 15, 3]);
    turn_of(&mut ep, "hero");
    let (h, g) = (cid(&ep, "hero"), cid(&ep, "guard"));
    // From (2,2) the Tiny hero cannot reach the guard two squares away.
    assert!(!ok(&submit(&mut ep, &[attack_with(g, 0)])[0]));
    assert_all_ok(&submit(&mut ep, &[move_to(2, 4)]));
    assert_eq!(ep.position(h), ep.position(g), "{}", log(&ep));
    assert_eq!(
        lines_with(&ep, "(leaves a threatened square)").len(),
        1,
        "{}",
        log(&ep)
    );
    assert_eq!(
        lines_with(&ep, "(enters its square)").len(),
        1,
        "{}",
        log(&ep)
    );
    assert_all_ok(&submit(&mut ep, &[attack_with(g, 0)]));
    assert_eq!(ep.hp(g), 27, "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

/// CRB — Combat: Moving Through a Square: a creature may move through a square occupied by a
/// creature three size categories larger (or smaller), provoking on entry, but may not end its
/// movement there; two or fewer categories apart an opponent blocks.
#[test]
fn crb_moving_through_a_creature_three_sizes_apart() {
    let mut small = creature("hero");
    small["size"] = serde_json::json!("Small");
    let mut huge = reflexive("giant");
    huge["size"] = serde_json::json!("Huge");
    let enc = encounter(
        &room(5, 10),
        vec![
            unit("a", "hero", small, (3, 2)),
            unit("b", "giant", huge, (2, 4)),
        ],
    );
    // Initiative 20 / 1; the giant's AoOs miss (leaving a threatened square, then entering).
    let mut ep = episode(enc, &[20, 1, 1, 1]);
    turn_of(&mut ep, "hero");
    let h = cid(&ep, "hero");
    // Cannot stop inside the giant's 3×3 space.
    let r = submit(&mut ep, &[move_to(3, 5)]);
    assert_eq!(r[0].code(), Some("unreachable_destination"));
    assert_all_ok(&submit(&mut ep, &[move_to(3, 8)]));
    assert_eq!(ep.position(h), pf1e_engine::Cell::new(3, 8), "{}", log(&ep));
    assert_eq!(
        lines_with(&ep, "(enters its square)").len(),
        1,
        "{}",
        log(&ep)
    );
    assert_eq!(dice_left(&ep), 0, "{}", log(&ep));
}
