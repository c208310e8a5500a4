//! Weapons: disarm / retrieve, sunder / broken / destroyed, repair (CRB — Combat Maneuvers:
//! Disarm, Sunder; Conditions: Broken; Actions in Combat: Move Actions, "Pick up an item").

mod common;

use common::*;
use pf1e_engine::{Action, ActionKind, CombatantId, Episode, Maneuver};
use serde_json::{json, Value};

fn man(t: CombatantId, m: Maneuver) -> Action {
    let mut a = Action::new(ActionKind::Maneuver);
    a.target = Some(t);
    a.maneuver = Some(m);
    a
}

fn weapon_action(kind: ActionKind, w: usize) -> Action {
    let mut a = Action::new(kind);
    a.weapon = Some(w);
    a
}

fn duel(hero: Value, dummy: Value, faces: &[u32]) -> (Episode, CombatantId, CombatantId) {
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "dummy", dummy, (2, 3)),
        ],
    );
    let mut ep = episode(enc, faces);
    turn_of(&mut ep, "hero");
    let (h, d) = (cid(&ep, "hero"), cid(&ep, "dummy"));
    (ep, h, d)
}

fn smasher() -> Value {
    set(
        creature("hero"),
        "attacks",
        json!([melee("greatsword", 5, "2d6+6", "slashing")]),
    )
}

#[test]
fn crb_sunder_damage_beyond_hardness_breaks_then_destroys() {
    // Longsword: hardness 10, 5 hp. 2d6+6 = 3+4+6 = 13 → 3 through → 2 hp ≤ half: broken.
    let (mut ep, _, d) = duel(smasher(), creature("dummy"), &[20, 1, 10, 3, 4]);
    submit(&mut ep, &[man(d, Maneuver::Sunder)]);
    let st = ep.weapon_state(d, 0).unwrap();
    assert!(
        st.broken && !st.destroyed && st.hp == 2,
        "{st:?}\n{}",
        log(&ep)
    );
    // Next sunder: 2d6+6 = 6+6+6 = 18 → 8 through → below 0: destroyed.
    let (mut ep, _, d) = duel(smasher(), creature("dummy"), &[20, 1, 10, 6, 6]);
    submit(&mut ep, &[man(d, Maneuver::Sunder)]);
    assert!(ep.weapon_state(d, 0).unwrap().destroyed);
    assert!(log(&ep).contains("destroyed"), "{}", log(&ep));
}

#[test]
fn crb_broken_weapon_minus_2_threat_only_on_20_then_repair() {
    // Dummy's longsword threatens on 19–20; broken: 19 is a plain hit at −2.
    let dummy = {
        let mut v = creature("dummy");
        v["attacks"][0]["crit_range"] = json!(19);
        v
    };
    let (mut ep, h, d) = duel(smasher(), dummy, &[20, 1, 10, 3, 4, 19, 2]);
    submit(&mut ep, &[man(d, Maneuver::Sunder)]);
    end_turn(&mut ep);
    turn_of(&mut ep, "dummy");
    submit(&mut ep, &[attack(h)]);
    let line = lines_of(&ep, "dummy")[0].clone();
    assert!(line.starts_with("longsword vs hero d20=19+3=22"), "{line}");
    assert!(
        line.contains("broken -2") && line.contains("-> HIT"),
        "{line}"
    );
    assert_eq!(ep.hp(h), 30);
    // Repair (the seed's move action) makes it whole.
    let repair = weapon_action(ActionKind::RepairWeapon, 0);
    assert!(ep.legal_actions().iter().any(|l| l.action == repair));
    assert_all_ok(&submit(&mut ep, &[repair]));
    assert!(!ep.weapon_state(d, 0).unwrap().broken);
}

#[test]
fn crb_disarm_by_10_drops_then_retrieve_is_a_move_action_that_provokes() {
    let (mut ep, h, d) = duel(creature("hero"), creature("dummy"), &[20, 1, 10, 1]);
    submit(&mut ep, &[man(d, Maneuver::Disarm)]);
    assert!(ep.weapon_state(d, 0).unwrap().dropped_at.is_some());
    let obs = ep.observation(None);
    assert!(obs.combatants[d.0 as usize].attacks[0].weapon_dropped);
    end_turn(&mut ep);
    turn_of(&mut ep, "dummy");
    let pick = weapon_action(ActionKind::RetrieveWeapon, 0);
    assert_all_ok(&submit(&mut ep, &[pick]));
    assert_eq!(
        lines_with(&ep, "attack of opportunity"),
        vec!["round 1 hero: attack of opportunity on dummy (picks up an item)"]
    );
    assert!(ep.weapon_state(d, 0).unwrap().dropped_at.is_none());
    let b = ep.decision().unwrap().budget;
    assert!(!b.full_round && b.standard);
    let _ = h;
    assert_eq!(
        ep.validate(&weapon_action(ActionKind::RetrieveWeapon, 0))
            .unwrap()
            .code(),
        Some("weapon_unavailable")
    );
}

#[test]
fn crb_disarm_failed_by_10_drops_the_attackers_weapon() {
    let dummy = set(creature("dummy"), "cmd", json!(25));
    let (mut ep, h, d) = duel(creature("hero"), dummy, &[20, 1, 5]);
    submit(&mut ep, &[man(d, Maneuver::Disarm)]);
    assert!(ep.weapon_state(h, 0).unwrap().dropped_at.is_some());
    assert!(ep.weapon_state(d, 0).unwrap().dropped_at.is_none());
}

/// Ultimate Combat — Firearms, Misfires: a natural 1 (the misfire value) misses and breaks the
/// firearm; a broken firearm's misfire value is 4 higher, and misfiring again destroys it.
#[test]
fn uc_firearm_misfire_breaks_then_explodes() {
    let mut pistol = ranged("pistol", 30, "1d8", "piercing", 20);
    pistol["kind"] = json!("touch");
    pistol["firearm"] = json!(true);
    let gunner = set(creature("hero"), "attacks", json!([pistol]));
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", gunner, (2, 1)),
            unit("b", "dummy", creature("dummy"), (2, 5)),
        ],
    );
    // Initiative 20 / 1; first shot: natural 1 (misfire even at +30); second: natural 4.
    let mut ep = episode(enc, &[20, 1, 1, 4]);
    turn_of(&mut ep, "hero");
    let (h, d) = (cid(&ep, "hero"), cid(&ep, "dummy"));
    submit(
        &mut ep,
        &[attack_with(d, 0), Action::new(ActionKind::EndTurn)],
    );
    let st = ep.weapon_state(h, 0).unwrap();
    assert!(st.broken && !st.destroyed, "{st:?}\n{}", log(&ep));
    assert_eq!(
        lines_with(&ep, "MISFIRE: the firearm is broken").len(),
        1,
        "{}",
        log(&ep)
    );
    assert_eq!(
        ep.hp(d),
        spec(&creature("dummy")).hp_max,
        "a misfire misses"
    );
    turn_of(&mut ep, "hero");
    submit(&mut ep, &[attack_with(d, 0)]);
    assert!(ep.weapon_state(h, 0).unwrap().destroyed, "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}
