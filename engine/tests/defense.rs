//! Total defense and fighting defensively (CRB — Combat: Actions in Combat: Total Defense;
//! Attack: Fighting Defensively as a Standard Action; Full Attack: Fighting Defensively as a
//! Full-Round Action; Armor Class: Dodge Bonuses).

mod common;

use common::*;
use pf1e_engine::{Action, ActionKind, CombatantId, Episode};
use serde_json::{json, Value};

fn total_defense() -> Action {
    Action::new(ActionKind::TotalDefense)
}

fn fight_defensively() -> Action {
    Action::new(ActionKind::FightDefensively)
}

/// The hero at (2,2) next to the guard at (2,3) in a 3 × 8 room; the hero acts first
/// (initiative faces 20 then 1), and `faces` follow.
fn duel(hero: Value, faces: &[u32]) -> (Episode, CombatantId, CombatantId) {
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "guard", creature("guard"), (2, 3)),
        ],
    );
    let mut all = vec![20, 1];
    all.extend_from_slice(faces);
    let mut ep = episode(enc, &all);
    turn_of(&mut ep, "hero");
    let (h, g) = (cid(&ep, "hero"), cid(&ep, "guard"));
    (ep, h, g)
}

fn code(r: &pf1e_engine::ActionResult) -> Option<&'static str> {
    r.code()
}

#[test]
fn crb_total_defense_plus_4_dodge_ac_until_the_start_of_its_next_turn() {
    // The guard's +5 attack: d20 8 → 13 would hit AC 10 but misses AC 14; at the hero's next
    // turn the bonus is gone and the same roll hits (1d8 = 4).
    let (mut ep, h, g) = duel(creature("hero"), &[8, 8, 4]);
    let cmd_before = ep.observation(None).combatants[h.0 as usize].cmd;
    assert_all_ok(&submit(&mut ep, &[total_defense()]));
    let o = ep.observation(None);
    let me = &o.combatants[h.0 as usize];
    assert!(me.total_defense);
    assert_eq!(me.defensive_ac_bonus, 4);
    // A dodge bonus to AC counts in the CMD.
    assert_eq!(me.cmd, cmd_before + 4);
    assert!(obs_json(&ep).contains("\"defensive_ac_bonus\":4"));
    assert!(
        log(&ep).contains("total defense (standard action)"),
        "{}",
        log(&ep)
    );
    end_turn(&mut ep);
    turn_of(&mut ep, "guard");
    assert_all_ok(&submit(&mut ep, &[attack(h)]));
    assert!(
        log(&ep).contains("longsword vs hero d20=8+5=13 AC 14"),
        "{}",
        log(&ep)
    );
    assert!(log(&ep).contains("-> MISS"), "{}", log(&ep));
    assert_eq!(ep.hp(h), 30);
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    let o = ep.observation(None);
    assert!(!o.combatants[h.0 as usize].total_defense);
    assert_eq!(o.combatants[h.0 as usize].defensive_ac_bonus, 0);
    end_turn(&mut ep);
    turn_of(&mut ep, "guard");
    assert_all_ok(&submit(&mut ep, &[attack(h)]));
    assert!(
        lines_with(&ep, "d20=8+5=13 AC 10 -> HIT").len() == 1,
        "{}",
        log(&ep)
    );
    assert_eq!(ep.hp(h), 30 - 4);
    let _ = g;
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_total_defense_no_attack_of_opportunity_while_in_it() {
    // The guard walks out of the hero's reach: no attack of opportunity is offered (no
    // reaction decision, no die rolled); the same walk provokes without total defense.
    for defend in [true, false] {
        let faces: &[u32] = if defend { &[] } else { &[1] };
        let (mut ep, _h, g) = duel(creature("hero"), faces);
        if defend {
            assert_all_ok(&submit(&mut ep, &[total_defense()]));
        }
        end_turn(&mut ep);
        turn_of(&mut ep, "guard");
        assert_all_ok(&submit(&mut ep, &[move_to(2, 7)]));
        assert_eq!(ep.position(g), pf1e_engine::Cell::new(2, 7));
        let aoo = lines_with(&ep, "attack of opportunity on guard");
        assert_eq!(aoo.is_empty(), defend, "{}", log(&ep));
        assert_eq!(dice_left(&ep), 0);
    }
}

#[test]
fn crb_total_defense_is_a_standard_action_no_attack_after_it() {
    let (mut ep, _h, g) = duel(creature("hero"), &[]);
    let legal: Vec<ActionKind> = ep.legal_actions().iter().map(|l| l.action.kind).collect();
    assert!(legal.contains(&ActionKind::TotalDefense));
    assert!(legal.contains(&ActionKind::FightDefensively));
    let rs = submit(
        &mut ep,
        &[total_defense(), attack(g), full_attack(g), charge(g)],
    );
    assert!(ok(&rs[0]));
    for r in &rs[1..] {
        assert_eq!(code(r), Some("downgraded:action_economy"), "{r:?}");
    }
    // Nothing that attacks is legal now; a move action still is.
    let legal: Vec<ActionKind> = ep.legal_actions().iter().map(|l| l.action.kind).collect();
    for k in [
        ActionKind::Attack,
        ActionKind::FullAttack,
        ActionKind::Charge,
        ActionKind::Maneuver,
        ActionKind::TotalDefense,
        ActionKind::FightDefensively,
    ] {
        assert!(!legal.contains(&k), "{k:?} legal after total defense");
    }
    assert!(legal.contains(&ActionKind::Move));
    assert_all_ok(&submit(&mut ep, &[move_to(1, 1)]));
}

#[test]
fn crb_total_defense_not_after_an_attack_nor_with_fighting_defensively() {
    let (mut ep, _h, g) = duel(creature("hero"), &[1]);
    let rs = submit(&mut ep, &[attack(g), total_defense()]);
    assert!(ok(&rs[0]));
    assert_eq!(code(&rs[1]), Some("downgraded:action_economy"));
    let (mut ep, _h, _g) = duel(creature("hero"), &[]);
    let rs = submit(&mut ep, &[fight_defensively(), total_defense()]);
    assert!(ok(&rs[0]));
    assert_eq!(code(&rs[1]), Some("fighting_defensively"));
}

#[test]
fn crb_dodge_bonus_of_total_defense_lost_when_flat_footed() {
    // "Any situation that denies you your Dexterity bonus also denies you dodge bonuses": a
    // flat-footed defender keeps AC 10; the guard's 13 hits (1d8 = 5).
    let (mut ep, h, _g) = duel(creature("hero"), &[8, 5]);
    assert_all_ok(&submit(&mut ep, &[total_defense()]));
    ep.apply_condition(h, "flat_footed", Some(3)).unwrap();
    end_turn(&mut ep);
    turn_of(&mut ep, "guard");
    assert_all_ok(&submit(&mut ep, &[attack(h)]));
    assert_eq!(
        lines_with(&ep, "d20=8+5=13 AC 10 -> HIT").len(),
        1,
        "{}",
        log(&ep)
    );
    assert_eq!(ep.hp(h), 30 - 5);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_fight_defensively_minus_4_on_every_attack_of_the_full_attack_plus_2_dodge_ac() {
    // BAB +6: two swings, +5 and +0, each −4: d20 10 → 11 hits AC 10 (1d8 = 3), d20 10 → 6
    // misses. Then the guard's d20 6 → 11 misses AC 12.
    let mut hero = creature("hero");
    hero["bab"] = json!(6);
    let (mut ep, h, g) = duel(hero, &[10, 3, 10, 6]);
    assert_all_ok(&submit(&mut ep, &[fight_defensively(), full_attack(g)]));
    assert!(log(&ep).contains("d20=10+1=11"), "{}", log(&ep));
    assert!(log(&ep).contains("d20=10-4=6"), "{}", log(&ep));
    assert!(log(&ep).contains("fighting defensively"), "{}", log(&ep));
    assert_eq!(ep.hp(g), 30 - 3);
    let o = ep.observation(None);
    assert!(o.combatants[h.0 as usize].fight_defensively);
    assert_eq!(o.combatants[h.0 as usize].defensive_ac_bonus, 2);
    assert!(obs_json(&ep).contains("\"fight_defensively\":true"));
    end_turn(&mut ep);
    turn_of(&mut ep, "guard");
    assert_all_ok(&submit(&mut ep, &[attack(h)]));
    assert!(log(&ep).contains("d20=6+5=11 AC 12"), "{}", log(&ep));
    assert_eq!(ep.hp(h), 30);
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    let o = ep.observation(None);
    assert!(!o.combatants[h.0 as usize].fight_defensively);
    assert_eq!(o.combatants[h.0 as usize].defensive_ac_bonus, 0);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_fight_defensively_with_a_standard_attack_and_on_attacks_of_opportunity() {
    // The standard attack: d20 12 → 13 (+5 − 4 + ... = +1). Then the guard walks away and
    // the hero's attack of opportunity, still in the same round, takes −4 too: d20 9 → 10.
    let (mut ep, _h, g) = duel(creature("hero"), &[12, 2, 9, 1]);
    assert_all_ok(&submit(&mut ep, &[fight_defensively(), attack(g)]));
    assert!(log(&ep).contains("d20=12+1=13"), "{}", log(&ep));
    end_turn(&mut ep);
    turn_of(&mut ep, "guard");
    assert_all_ok(&submit(&mut ep, &[move_to(2, 7)]));
    assert_eq!(
        lines_with(&ep, "d20=9+1=10").len(),
        1,
        "the attack of opportunity at -4: {}",
        log(&ep)
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn fight_defensively_is_declared_before_the_attack_once_and_only_with_an_attack() {
    // After an attack: the standard action is spent.
    let (mut ep, _h, g) = duel(creature("hero"), &[1]);
    let rs = submit(&mut ep, &[attack(g), fight_defensively()]);
    assert_eq!(code(&rs[1]), Some("downgraded:action_economy"));
    // Twice, or followed by a charge or a maneuver (escape too: not an attack action, and the
    // −4 would apply to its check): refused.
    let (mut ep, _h, g) = duel(creature("hero"), &[]);
    let mut trip = Action::new(ActionKind::Maneuver);
    trip.target = Some(g);
    trip.maneuver = Some(pf1e_engine::Maneuver::Trip);
    let mut escape = trip.clone();
    escape.maneuver = Some(pf1e_engine::Maneuver::Escape);
    let rs = submit(
        &mut ep,
        &[
            fight_defensively(),
            fight_defensively(),
            trip,
            escape,
            charge(g),
        ],
    );
    assert!(ok(&rs[0]));
    for r in &rs[1..] {
        assert_eq!(code(r), Some("fighting_defensively"), "{r:?}");
    }
    let legal: Vec<ActionKind> = ep.legal_actions().iter().map(|l| l.action.kind).collect();
    assert!(legal.contains(&ActionKind::Attack) && legal.contains(&ActionKind::FullAttack));
    assert!(!legal.contains(&ActionKind::FightDefensively));
    assert!(!legal.contains(&ActionKind::Maneuver));
}

#[test]
fn fight_defensively_without_an_attack_lapses_at_the_end_of_the_turn() {
    // Declared, then only a move: no +2 AC, and the declaration is gone after the turn (no
    // −4 on a later attack of opportunity).
    let (mut ep, h, _g) = duel(creature("hero"), &[]);
    assert_all_ok(&submit(&mut ep, &[fight_defensively(), move_to(1, 1)]));
    let o = ep.observation(None);
    assert_eq!(o.combatants[h.0 as usize].defensive_ac_bonus, 0);
    end_turn(&mut ep);
    let o = ep.observation(None);
    assert!(!o.combatants[h.0 as usize].fight_defensively);
}

#[test]
fn total_defense_survives_a_snapshot_and_restore() {
    let (mut ep, h, _g) = duel(creature("hero"), &[]);
    assert_all_ok(&submit(&mut ep, &[total_defense()]));
    let bytes = ep.snapshot();
    let back = Episode::restore(ep.encounter().clone(), &bytes).unwrap();
    let o = back.observation(None);
    assert!(o.combatants[h.0 as usize].total_defense);
    assert_eq!(o.combatants[h.0 as usize].defensive_ac_bonus, 4);
    assert_eq!(back.snapshot(), bytes);
}
