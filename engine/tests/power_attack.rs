//! Power Attack (CRB — Feats: Power Attack): −X melee attack rolls and CMB, +2X melee damage
//! (+3X two-handed, +X secondary natural), X = 1 + BAB / 4; a free toggle.

mod common;

use common::*;
use pf1e_engine::{Action, ActionKind, CombatantId, Controller, Episode, Maneuver};
use serde_json::{json, Value};

fn fighter(two_handed: bool) -> Value {
    let mut v = set(creature("hero"), "feats", json!(["Power Attack"]));
    v["bab"] = json!(4);
    v["attacks"][0]["two_handed"] = json!(two_handed);
    v
}

fn duel(hero: Value, faces: &[u32]) -> (Episode, CombatantId) {
    let enc = encounter(
        &room(3, 8),
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
fn crb_power_attack_minus_x_attack_plus_2x_damage() {
    // BAB 4: X = 2. d20 10 + 5 − 2 = 13; 1d8 = 4, +4 → 8.
    let (mut ep, d) = duel(fighter(false), &[20, 1, 10, 4]);
    let pa = Action::new(ActionKind::ActivatePowerAttack);
    assert_all_ok(&submit(&mut ep, &[pa, attack(d)]));
    assert!(ep.power_attack_on(cid(&ep, "hero")));
    assert!(
        log(&ep).contains("activates Power Attack (-2 melee attack and CMB; damage +4 longsword)"),
        "{}",
        log(&ep)
    );
    assert!(log(&ep).contains("d20=10+3=13"), "{}", log(&ep));
    assert_eq!(ep.hp(d), 30 - 8);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_power_attack_plus_3x_two_handed() {
    let (mut ep, d) = duel(fighter(true), &[20, 1, 10, 4]);
    submit(
        &mut ep,
        &[Action::new(ActionKind::ActivatePowerAttack), attack(d)],
    );
    // The transcript names the two-handed bonus, 3X (X = 2).
    assert!(log(&ep).contains("damage +6 longsword)"), "{}", log(&ep));
    assert_eq!(ep.hp(d), 30 - (4 + 6));
}

#[test]
fn crb_power_attack_applies_to_cmb_and_toggles_off() {
    // CMB 4 + 0 − 2 = 2: d20 9 → 11 vs CMD 11.
    let (mut ep, d) = duel(fighter(false), &[20, 1, 9]);
    let pa = Action::new(ActionKind::ActivatePowerAttack);
    let mut trip = Action::new(ActionKind::Maneuver);
    trip.target = Some(d);
    trip.maneuver = Some(Maneuver::Trip);
    submit(&mut ep, &[pa.clone(), trip]);
    assert!(
        log(&ep).contains("trip vs dummy d20=9+2=11"),
        "{}",
        log(&ep)
    );
    let h = cid(&ep, "hero");
    submit(&mut ep, &[pa]);
    assert!(!ep.power_attack_on(h));
    assert!(ep.observation(None).combatants[0].cmb == 4);
}

#[test]
fn crb_power_attack_melee_touch_attack_takes_the_penalty_not_the_damage() {
    // A melee touch attack (no range increment): −X on the roll, no damage bonus (CRB —
    // Feats: Power Attack). BAB 4: X = 2. d20 10 + 5 − 2 = 13 vs touch AC 10; 1d6 = 4 → 4.
    let mut hero = fighter(false);
    hero["attacks"] = json!([{
        "name": "shocking grasp", "kind": "touch", "attack_bonus": 5,
        "damage": [{ "formula": "1d6", "types": ["electricity"] }]
    }]);
    let (mut ep, d) = duel(hero, &[20, 1, 10, 4]);
    let pa = Action::new(ActionKind::ActivatePowerAttack);
    assert_all_ok(&submit(&mut ep, &[pa, attack(d)]));
    assert!(
        log(&ep).contains(
            "activates Power Attack (-2 melee attack and CMB; damage unchanged: melee touch attacks only)"
        ),
        "{}",
        log(&ep)
    );
    assert!(log(&ep).contains("d20=10+3=13 touch AC 10"), "{}", log(&ep));
    assert_eq!(ep.hp(d), 30 - 4);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_power_attack_needs_the_feat() {
    let (ep, _) = duel(creature("hero"), &[20, 1]);
    let pa = Action::new(ActionKind::ActivatePowerAttack);
    assert_eq!(ep.validate(&pa).unwrap().code(), Some("no_power_attack"));
    assert!(!ep.legal_actions().iter().any(|l| l.action == pa));
}

#[test]
fn policy_power_attack_when_it_pays() {
    // Against AC 10 with +5 and 1d8, −2 / +4 pays: the default policy turns it on.
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", fighter(false), (2, 2)),
            unit("b", "dummy", creature("dummy"), (2, 3)),
        ],
    );
    let mut ep = Episode::new(enc, 3, &[Controller::DefaultPolicy; 2]);
    let _ = ep.advance();
    assert!(
        lines_of(&ep, "hero")
            .iter()
            .any(|l| l.starts_with("activates Power Attack")),
        "{}",
        log(&ep)
    );
    // Against a very high AC it does not pay.
    let tank = set(
        creature("dummy"),
        "ac",
        json!({"total": 25, "touch": 10, "flat_footed": 25}),
    );
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", fighter(false), (2, 2)),
            unit("b", "dummy", tank, (2, 3)),
        ],
    );
    let mut ep = Episode::new(enc, 3, &[Controller::DefaultPolicy, Controller::External]);
    let _ = ep.advance();
    assert!(!lines_of(&ep, "hero")
        .iter()
        .any(|l| l.contains("Power Attack")));
}

/// CRB — Feats: Power Attack ("+50% if you are making an attack with a two-handed weapon, a
/// one handed weapon using two hands, or a primary natural weapon that adds 1-1/2 times your
/// Strength modifier"); Paizo FAQ: a light weapon wielded in two hands gets no extra
/// damage. BAB 4: X = 2; a light weapon held in two hands: +2X = +4, not +6.
#[test]
fn crb_power_attack_light_weapon_in_two_hands_gets_the_one_handed_bonus() {
    let mut hero = fighter(true);
    hero["attacks"][0]["light"] = json!(true);
    let (mut ep, d) = duel(hero, &[20, 1, 10, 4]);
    submit(
        &mut ep,
        &[Action::new(ActionKind::ActivatePowerAttack), attack(d)],
    );
    assert!(log(&ep).contains("damage +4 longsword)"), "{}", log(&ep));
    assert_eq!(ep.hp(d), 30 - (4 + 4));
}

/// CRB — Feats: Power Attack (+50% with "a primary natural weapon that adds 1-1/2 times your
/// Strength modifier on damage rolls"); Bestiary — Universal Monster Rules: Natural Attacks
/// ("If a creature has only one natural attack, it adds 1-1/2 times its Strength bonus").
/// BAB 4: X = 2; a bite that is the creature's only attack: +3X = +6; with a second natural
/// attack (claws) the bite gets +2X = +4.
#[test]
fn bestiary_power_attack_sole_natural_attack_gets_one_and_a_half() {
    let bite = set(melee("bite", 5, "1d8", "piercing"), "natural", json!(true));
    let mut beast = fighter(false);
    beast["attacks"] = json!([bite]);
    let (mut ep, d) = duel(beast.clone(), &[20, 1, 10, 4]);
    submit(
        &mut ep,
        &[Action::new(ActionKind::ActivatePowerAttack), attack(d)],
    );
    assert!(log(&ep).contains("damage +6 bite)"), "{}", log(&ep));
    assert_eq!(ep.hp(d), 30 - (4 + 6));
    let claw = set(
        set(melee("claw", 5, "1d4", "slashing"), "natural", json!(true)),
        "count",
        json!(2),
    );
    beast["attacks"] = json!([bite, claw]);
    let (mut ep, _) = duel(beast, &[20, 1]);
    submit(&mut ep, &[Action::new(ActionKind::ActivatePowerAttack)]);
    assert!(
        log(&ep).contains("damage +4 bite, +4 claw)"),
        "{}",
        log(&ep)
    );
}
