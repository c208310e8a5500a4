//! Spring Attack, Shot on the Run, Lunge, Mobility and Stand Still (CRB — Feats), scripted
//! dice. Every combatant is externally controlled unless a test says otherwise.

mod common;

use common::*;
use pf1e_engine::{Action, ActionKind, Cell, CombatantId, Controller, DecisionKind, Episode};
use serde_json::{json, Value};

fn with_feats(v: Value, feats: &[&str]) -> Value {
    set(v, "feats", json!(feats))
}

fn move_attack(kind: ActionKind, t: CombatantId, row: i32, col: i32) -> Action {
    Action {
        target: Some(t),
        destination: Some(Cell::new(row, col)),
        ..Action::new(kind)
    }
}

/// `units` in a room of `rows` × `cols`; initiative faces 1 for the first unit, 20 for the
/// others (they act first and end their turns, so none is flat-footed), then `faces`;
/// advanced to the first unit's turn.
fn setup(rows: usize, cols: usize, units: Vec<Unit>, faces: &[u32]) -> Episode {
    let first = units[0].id;
    let n = units.len();
    let enc = encounter(&room(rows, cols), units);
    let mut all = vec![1];
    all.extend(std::iter::repeat_n(20, n - 1));
    all.extend_from_slice(faces);
    let mut ep = episode(enc, &all);
    turn_of(&mut ep, first);
    ep
}

fn aoo_lines(ep: &Episode) -> Vec<String> {
    lines_with(ep, "attack of opportunity on")
}

// ----- Spring Attack ---------------------------------------------------------------------

#[test]
fn crb_spring_attack_no_aoo_from_the_target_but_from_others() {
    // A 2 × 8 room: the hero (1,1), the guard (1,6), an orc (2,3) next to the path. Spring
    // Attack on the guard, ending at (1,3): in along row 1 (the orc's opportunity as the hero
    // leaves a square it threatens: d20 1 misses), the attack from (1,5) (d20 10 hits, 1d8 =
    // 3), back to (1,3) leaving the guard's threatened square: the guard, the target, makes
    // no attack of opportunity; the orc already had its one for this movement.
    let hero = with_feats(creature("hero"), &["Dodge", "Mobility", "Spring Attack"]);
    let mut ep = setup(
        2,
        8,
        vec![
            unit("a", "hero", hero, (1, 1)),
            unit("b", "guard", creature("guard"), (1, 6)),
            unit("b", "orc", creature("orc"), (2, 3)),
        ],
        &[1, 10, 3],
    );
    let (h, g) = (cid(&ep, "hero"), cid(&ep, "guard"));
    // Valid as a structured action; the action space has ids only for the hit-and-run-back
    // form (the move ends on the starting square, here out of reach: 40 ft > 30 ft).
    let a = move_attack(ActionKind::SpringAttack, g, 1, 3);
    assert!(ep.validate(&a).unwrap().ok);
    assert_eq!(ep.action_id(&a), None);
    let back = move_attack(ActionKind::SpringAttack, g, 1, 1);
    let id = ep
        .action_id(&back)
        .expect("the hit-and-run-back form has an id");
    assert_eq!(ep.action_from_id(id), Some(back.clone()));
    assert!(!ep.validate(&back).unwrap().ok);
    assert_all_ok(&submit(&mut ep, &[a]));
    assert_eq!(ep.position(h), Cell::new(1, 3), "{}", log(&ep));
    assert_eq!(ep.hp(g), 27, "{}", log(&ep));
    let aoos = aoo_lines(&ep);
    assert_eq!(aoos.len(), 1, "{}", log(&ep));
    assert!(aoos[0].contains("orc:"), "{}", log(&ep));
    assert!(log(&ep).contains("spring_attack (1,1)->"), "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_spring_attack_refusals_adjacent_at_start_ten_feet_before_and_the_speed() {
    // A 1 × 8 corridor. Adjacent at the start of the turn: adjacent_at_start.
    let hero = with_feats(creature("hero"), &["Spring Attack"]);
    let mut ep = setup(
        1,
        8,
        vec![
            unit("a", "hero", hero.clone(), (1, 1)),
            unit("b", "guard", creature("guard"), (1, 2)),
        ],
        &[],
    );
    let g = cid(&ep, "guard");
    let r = submit_raw(&mut ep, &[move_attack(ActionKind::SpringAttack, g, 1, 1)]);
    assert_eq!(r[0].code(), Some("adjacent_at_start"));
    // The guard two squares away: the only attack square (1,2) is 5 ft away, less than the
    // 10 ft of movement before the attack: no destination works.
    let mut ep = setup(
        1,
        8,
        vec![
            unit("a", "hero", hero.clone(), (1, 1)),
            unit("b", "guard", creature("guard"), (1, 3)),
        ],
        &[],
    );
    let g = cid(&ep, "guard");
    let r = submit_raw(&mut ep, &[move_attack(ActionKind::SpringAttack, g, 1, 1)]);
    assert_eq!(r[0].code(), Some("unreachable_destination"));
    assert!(ep
        .legal_actions()
        .iter()
        .all(|l| l.action.kind != ActionKind::SpringAttack));
    // The guard at (1,6): attack from (1,5) after 4 squares; back to (1,1) would be 8 > 6.
    let mut ep = setup(
        1,
        8,
        vec![
            unit("a", "hero", hero, (1, 1)),
            unit("b", "guard", creature("guard"), (1, 6)),
        ],
        &[],
    );
    let g = cid(&ep, "guard");
    let r = submit_raw(
        &mut ep,
        &[
            move_attack(ActionKind::SpringAttack, g, 1, 1),
            Action {
                destination: None,
                ..move_attack(ActionKind::SpringAttack, g, 1, 1)
            },
        ],
    );
    assert_eq!(r[0].code(), Some("unreachable_destination"));
    assert_eq!(r[1].code(), Some("missing_target"));
    // Without the feat: missing_feat.
    let mut ep = setup(
        1,
        8,
        vec![
            unit("a", "hero", creature("hero"), (1, 1)),
            unit("b", "guard", creature("guard"), (1, 6)),
        ],
        &[],
    );
    let g = cid(&ep, "guard");
    let r = submit_raw(&mut ep, &[move_attack(ActionKind::SpringAttack, g, 1, 3)]);
    assert_eq!(r[0].code(), Some("missing_feat"));
}

// ----- Shot on the Run -------------------------------------------------------------------

#[test]
fn crb_shot_on_the_run_one_ranged_attack_during_a_move_up_to_speed() {
    // The archer at (1,1), the guard at (2,8) of a 2 × 8 room: the cheapest plan shoots from
    // the start (d20 15 hits AC 10 at 35 ft, 1d6 = 4), then moves to (1,4).
    let archer = set(
        with_feats(creature("archer"), &["Shot on the Run"]),
        "attacks",
        json!([ranged("bow", 5, "1d6", "piercing", 100)]),
    );
    let mut ep = setup(
        2,
        8,
        vec![
            unit("a", "archer", archer, (1, 1)),
            unit("b", "guard", creature("guard"), (2, 8)),
        ],
        &[15, 4],
    );
    let (a, g) = (cid(&ep, "archer"), cid(&ep, "guard"));
    // Beyond the speed (7 squares): unreachable_destination.
    let r = submit_raw(
        &mut ep,
        &[
            move_attack(ActionKind::ShotOnTheRun, g, 1, 8),
            move_attack(ActionKind::ShotOnTheRun, g, 1, 4),
        ],
    );
    assert_eq!(r[0].code(), Some("unreachable_destination"));
    assert!(r[1].ok);
    take_reactions(&mut ep);
    assert_eq!(ep.hp(g), 26, "{}", log(&ep));
    assert_eq!(ep.position(a), Cell::new(1, 4));
    let l = log(&ep);
    let shot = l.find("bow vs guard").expect("the shot");
    let walk = l.find("shot_on_the_run (1,1)->").expect("the move");
    assert!(shot < walk, "{l}");
    // A full-round action: nothing but end_turn is left, so the turn is over.
    assert!(ep.decision().is_none_or(|d| d.actor != a));
    assert_eq!(dice_left(&ep), 0);
}

// ----- Lunge -------------------------------------------------------------------------------

#[test]
fn crb_lunge_plus_5_ft_reach_on_its_attacks_this_turn_and_minus_2_ac_until_its_next() {
    // A 1 × 8 corridor: the hero (1,1), the guard (1,3), 10 ft away. Out of reach without
    // Lunge; with it the attack reaches (d20 10 hits, 1d8 = 3). The guard's attack at its
    // turn (a 5-foot step to (1,2) first): d20 3 → 8 hits AC 8 (10 − 2), 1d8 = 2.
    let hero = with_feats(creature("hero"), &["Lunge"]);
    let mut ep = setup(
        1,
        8,
        vec![
            unit("a", "hero", hero, (1, 1)),
            unit("b", "guard", creature("guard"), (1, 3)),
        ],
        &[10, 3, 3, 2],
    );
    let (h, g) = (cid(&ep, "hero"), cid(&ep, "guard"));
    let lunge = Action::new(ActionKind::ActivateLunge);
    let r = submit_raw(
        &mut ep,
        &[attack(g), lunge.clone(), lunge.clone(), attack(g)],
    );
    assert_eq!(r[0].code(), Some("out_of_range"));
    assert!(r[1].ok);
    assert_eq!(r[2].code(), Some("feat_not_applicable"));
    assert!(r[3].ok, "{r:?}");
    assert_eq!(ep.hp(g), 27);
    assert!(log(&ep).contains("lunges: +5 ft reach"), "{}", log(&ep));
    let o = ep.observation(None);
    assert!(o.combatants[h.0 as usize].lunge);
    end_turn(&mut ep);
    turn_of(&mut ep, "guard");
    assert_all_ok(&submit(&mut ep, &[step(1, 2), attack(h)]));
    assert!(log(&ep).contains("d20=3+5=8 AC 8"), "{}", log(&ep));
    turn_of(&mut ep, "hero");
    assert!(!ep.observation(None).combatants[h.0 as usize].lunge);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_lunge_is_declared_before_any_attack_and_needs_the_feat() {
    let hero = with_feats(creature("hero"), &["Lunge"]);
    let mut ep = setup(
        1,
        8,
        vec![
            unit("a", "hero", hero, (1, 1)),
            unit("b", "guard", creature("guard"), (1, 2)),
        ],
        &[2],
    );
    let g = cid(&ep, "guard");
    let r = submit_raw(
        &mut ep,
        &[attack(g), Action::new(ActionKind::ActivateLunge)],
    );
    assert!(r[0].ok);
    assert_eq!(r[1].code(), Some("downgraded:action_economy"));
    let mut ep = setup(
        1,
        8,
        vec![
            unit("a", "hero", creature("hero"), (1, 1)),
            unit("b", "guard", creature("guard"), (1, 2)),
        ],
        &[],
    );
    let r = submit_raw(&mut ep, &[Action::new(ActionKind::ActivateLunge)]);
    assert_eq!(r[0].code(), Some("missing_feat"));
}

// ----- Mobility ----------------------------------------------------------------------------

#[test]
fn crb_mobility_plus_4_dodge_ac_only_against_movement_aoos() {
    // A 3 × 8 room: the hero (2,2) with Mobility and a bow, the guard (2,3). Leaving the
    // guard's threatened square provokes: the guard's AoO is against AC 14 (d20 8 → 13
    // misses). Then, at the next turn, the hero shoots while threatened: that AoO is not
    // caused by movement, AC 10 (d20 8 → 13 hits, 1d8 = 2).
    let hero = set(
        with_feats(creature("hero"), &["Dodge", "Mobility"]),
        "attacks",
        json!([ranged("bow", 0, "1d6", "piercing", 100)]),
    );
    let mut ep = setup(
        3,
        8,
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "guard", creature("guard"), (2, 3)),
        ],
        &[8, 8, 2, 1],
    );
    let g = cid(&ep, "guard");
    assert_all_ok(&submit(&mut ep, &[move_to(2, 1)]));
    let aoos = lines_with(&ep, "longsword vs hero");
    assert_eq!(aoos.len(), 1, "{}", log(&ep));
    assert!(aoos[0].contains("AC 14"), "{}", log(&ep));
    assert!(aoos[0].contains("Mobility dodge +4"), "{}", log(&ep));
    assert!(aoos[0].contains("MISS"), "{}", log(&ep));
    end_turn(&mut ep);
    // Back next to the guard, the hero shoots (the guard's turn passes).
    turn_of(&mut ep, "hero");
    let r = submit(&mut ep, &[step(2, 2), attack(g)]);
    assert_all_ok(&r);
    let aoos = lines_with(&ep, "longsword vs hero");
    assert_eq!(aoos.len(), 2, "{}", log(&ep));
    assert!(aoos[1].contains("d20=8+5=13 AC 10"), "{}", log(&ep));
    assert!(!aoos[1].contains("Mobility"), "{}", log(&ep));
    assert_eq!(ep.hp(cid(&ep, "hero")), 28);
    assert_eq!(dice_left(&ep), 0);
}

// ----- Stand Still ---------------------------------------------------------------------------

/// The hero (2,2) next to the guard (2,3) with Stand Still in a 3 × 8 room; the guard acts
/// first and ends its turn; `faces` follow the initiative.
fn stand_still_room(faces: &[u32]) -> (Episode, CombatantId, CombatantId) {
    let guard = with_feats(creature("guard"), &["Combat Reflexes", "Stand Still"]);
    let ep = setup(
        3,
        8,
        vec![
            unit("a", "hero", creature("hero"), (2, 2)),
            unit("b", "guard", guard, (2, 3)),
        ],
        faces,
    );
    let (h, g) = (cid(&ep, "hero"), cid(&ep, "guard"));
    (ep, h, g)
}

#[test]
fn crb_stand_still_a_successful_check_ends_the_movement_for_the_rest_of_the_turn() {
    // The hero leaves (2,2), adjacent to the guard: the guard is offered stand_still, answers
    // it: d20 15 + CMB 1 = 16 ≥ CMD 11. The walk stops in (2,2); a 5-foot step after it is
    // refused (`stood_still`); at its next turn the hero moves again.
    let (mut ep, h, g) = stand_still_room(&[15]);
    submit_raw(&mut ep, &[move_to(2, 1)]);
    let d = decision(&ep);
    assert_eq!(d.actor, g);
    assert!(matches!(
        d.kind,
        DecisionKind::AttackOfOpportunity {
            stand_still: true,
            ..
        }
    ));
    let labels: Vec<String> = ep.legal_actions().into_iter().map(|l| l.label).collect();
    assert!(labels.contains(&"stand_still".to_string()), "{labels:?}");
    let r = ep
        .submit(d.decision_id, &[Action::new(ActionKind::StandStill)])
        .unwrap();
    assert!(r[0].ok, "{r:?}");
    assert_eq!(ep.position(h), Cell::new(2, 2));
    assert!(
        log(&ep).contains("stand still on hero (leaves a threatened square): CMB d20=15+1=16 vs CMD 11 -> success"),
        "{}",
        log(&ep)
    );
    assert!(
        log(&ep)
            .contains("move stopped at (2,2) (stand still: cannot move for the rest of its turn)"),
        "{}",
        log(&ep)
    );
    assert!(ep.observation(None).combatants[h.0 as usize].stood_still);
    assert!(obs_json(&ep).contains("\"stood_still\":true"));
    // The attack of opportunity is spent.
    assert_eq!(
        ep.observation(None).combatants[g.0 as usize].aoo_remaining,
        0
    );
    let d = decision(&ep);
    assert_eq!(d.actor, h);
    let r = submit_raw(&mut ep, &[step(1, 1)]);
    assert_eq!(r[0].code(), Some("stood_still"));
    // The hero may still act (an attack), not move.
    assert!(ep
        .legal_actions()
        .iter()
        .all(|l| !matches!(l.action.kind, ActionKind::Move | ActionKind::FiveFootStep)));
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    assert!(!ep.observation(None).combatants[h.0 as usize].stood_still);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_stand_still_a_failed_check_lets_the_move_go_on() {
    // d20 2 + 1 = 3 < CMD 11: the hero reaches (2,1).
    let (mut ep, h, _) = stand_still_room(&[2]);
    submit_raw(&mut ep, &[move_to(2, 1)]);
    let d = decision(&ep);
    ep.submit(d.decision_id, &[Action::new(ActionKind::StandStill)])
        .unwrap();
    assert!(log(&ep).contains("-> failure"), "{}", log(&ep));
    assert_eq!(ep.position(h), Cell::new(2, 1));
    assert!(!ep.observation(None).combatants[h.0 as usize].stood_still);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_stand_still_only_against_movement_out_of_an_adjacent_square() {
    // A ranged attack from the adjacent square provokes, but not by moving: no stand_still
    // offered, and the answer is refused (`feat_not_applicable`); the guard declines.
    let guard = with_feats(creature("guard"), &["Combat Reflexes", "Stand Still"]);
    let archer = set(
        creature("hero"),
        "attacks",
        json!([ranged("bow", 0, "1d6", "piercing", 100)]),
    );
    let mut ep = setup(
        3,
        8,
        vec![
            unit("a", "hero", archer, (2, 2)),
            unit("b", "guard", guard, (2, 3)),
        ],
        &[1],
    );
    let g = cid(&ep, "guard");
    submit_raw(&mut ep, &[attack(g)]);
    let d = decision(&ep);
    assert!(matches!(
        d.kind,
        DecisionKind::AttackOfOpportunity {
            stand_still: false,
            ..
        }
    ));
    assert!(ep
        .legal_actions()
        .iter()
        .all(|l| l.action.kind != ActionKind::StandStill));
    let r = ep
        .submit(
            d.decision_id,
            &[
                Action::new(ActionKind::StandStill),
                Action::new(ActionKind::Decline),
            ],
        )
        .unwrap();
    assert_eq!(r[0].code(), Some("feat_not_applicable"));
    assert!(r[1].ok);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn stand_still_the_default_policy_takes_the_attack_of_opportunity_instead() {
    // A default-policy guard with Stand Still attacks (d20 1 misses): the policy never
    // answers stand_still (documented), so the hero's move goes on.
    let guard = with_feats(creature("guard"), &["Combat Reflexes", "Stand Still"]);
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", creature("hero"), (2, 2)),
            unit("b", "guard", guard, (2, 3)),
        ],
    );
    let mut ep = Episode::with_dice(
        enc,
        pf1e_engine::DiceSource::Scripted(pf1e_engine::ScriptedDice::new([20, 1, 1])),
        &[Controller::External, Controller::DefaultPolicy],
    );
    turn_of(&mut ep, "hero");
    let h = cid(&ep, "hero");
    submit_raw(&mut ep, &[move_to(2, 1)]);
    assert_eq!(ep.position(h), Cell::new(2, 1));
    assert_eq!(
        lines_with(&ep, "attack of opportunity on hero").len(),
        1,
        "{}",
        log(&ep)
    );
    assert!(lines_with(&ep, "stand still").is_empty());
    assert_eq!(dice_left(&ep), 0);
}
