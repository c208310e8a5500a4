//! Weapons in hand (CRB — Actions in Combat: Move Actions, Draw or Sheathe a Weapon; Table:
//! Actions in Combat; Feats: Quick Draw): a sheathed weapon neither attacks nor threatens;
//! drawing is a move action, free with a regular move at BAB +1 or higher and always with
//! Quick Draw; sheathing is a move action that provokes; hands limit what is in hand.

mod common;

use common::*;
use pf1e_engine::{Action, ActionKind, CombatantId, Episode};
use serde_json::{json, Value};

fn draw(w: usize) -> Action {
    Action {
        weapon: Some(w),
        ..Action::new(ActionKind::DrawWeapon)
    }
}

fn sheathe(w: usize) -> Action {
    Action {
        weapon: Some(w),
        ..Action::new(ActionKind::SheatheWeapon)
    }
}

/// A hero whose longsword starts sheathed (and whose BAB is `bab`).
fn sheathed_hero(bab: i32) -> Value {
    let mut v = creature("hero");
    v["attacks"][0]["sheathed"] = json!(true);
    v["bab"] = json!(bab);
    v
}

/// The hero at `at`, the guard at (2,4) in a 3 × 8 room; the hero acts first.
fn field(hero: Value, at: (i32, i32), faces: &[u32]) -> (Episode, CombatantId, CombatantId) {
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", hero, at),
            unit("b", "guard", creature("guard"), (2, 4)),
        ],
    );
    let mut all = vec![20, 1];
    all.extend_from_slice(faces);
    let mut ep = episode(enc, &all);
    turn_of(&mut ep, "hero");
    let (h, g) = (cid(&ep, "hero"), cid(&ep, "guard"));
    (ep, h, g)
}

#[test]
fn crb_a_sheathed_weapon_neither_attacks_nor_threatens() {
    let (ep, h, g) = field(sheathed_hero(1), (2, 3), &[]);
    let o = ep.observation(None);
    assert!(o.combatants[h.0 as usize].attacks[0].weapon_sheathed);
    assert_eq!(
        ep.validate(&attack_with(g, 0)).unwrap().code(),
        Some("weapon_unavailable")
    );
    // The guard is not threatened by the hero.
    let og = ep.observation(Some(g));
    assert!(
        og.enemies_threatening_me.is_empty(),
        "{:?}",
        og.enemies_threatening_me
    );
}

#[test]
fn crb_drawing_a_weapon_is_a_move_action_then_it_attacks() {
    // BAB +0: the draw takes the move action; the attack (d20 12 hits, 1d8 3) follows.
    let (mut ep, _h, g) = field(sheathed_hero(0), (2, 3), &[12, 3]);
    assert_all_ok(&submit(&mut ep, &[draw(0)]));
    assert!(
        log(&ep).contains("draws its longsword (move action)"),
        "{}",
        log(&ep)
    );
    let b = decision(&ep).budget;
    assert!(b.standard && !b.full_round, "{b:?}");
    assert_all_ok(&submit(&mut ep, &[attack(g)]));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_at_bab_1_a_draw_is_free_after_a_regular_move() {
    // Move (2,1) -> (2,3), then the free draw, then the standard action's attack.
    let (mut ep, _h, g) = field(sheathed_hero(1), (2, 1), &[12, 3]);
    assert_all_ok(&submit(&mut ep, &[move_to(2, 3), draw(0), attack(g)]));
    assert!(
        log(&ep).contains("draws its longsword (free action with its move)"),
        "{}",
        log(&ep)
    );
    // BAB +0: the same draw after the move takes the standard action; no attack follows.
    let (mut ep, _h, g) = field(sheathed_hero(0), (2, 1), &[]);
    let r = submit_raw(&mut ep, &[move_to(2, 3), draw(0), attack(g)]);
    assert!(ok(&r[0]) && ok(&r[1]), "{r:?}");
    assert_eq!(r[2].code(), Some("downgraded:action_economy"));
}

#[test]
fn crb_quick_draw_draws_as_a_free_action() {
    let hero = set(sheathed_hero(1), "feats", json!(["Quick Draw"]));
    let (mut ep, _h, _g) = field(hero, (2, 3), &[]);
    assert_all_ok(&submit(&mut ep, &[draw(0)]));
    assert!(
        log(&ep).contains("(free action, Quick Draw)"),
        "{}",
        log(&ep)
    );
    let b = decision(&ep).budget;
    assert!(b.move_action && b.standard && b.full_round);
}

#[test]
fn crb_sheathing_is_a_move_action_that_provokes() {
    // Round 2 (the guard is no longer flat-footed): its attack of opportunity d20 2 misses.
    let (mut ep, h, _g) = field(creature("hero"), (2, 3), &[2]);
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    assert_all_ok(&submit(&mut ep, &[sheathe(0)]));
    assert!(
        log(&ep).contains("attack of opportunity on hero (sheathes a weapon)"),
        "{}",
        log(&ep)
    );
    assert!(ep.observation(None).combatants[h.0 as usize].attacks[0].weapon_sheathed);
    // A natural weapon or an already sheathed one cannot be sheathed.
    assert_eq!(
        ep.validate(&sheathe(0)).unwrap().code(),
        Some("weapon_unavailable")
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn ours_hands_a_two_handed_weapon_needs_both_hands() {
    // A greatsword (two-handed) in hand and a sheathed dagger: no hand is free to draw it;
    // sheathing the greatsword first frees both (switching = sheathe then draw).
    let mut hero = creature("hero");
    hero["attacks"] = json!([
        {"name": "greatsword", "kind": "melee", "attack_bonus": 5, "two_handed": true,
         "damage": [{"formula": "2d6", "types": ["slashing"]}]},
        {"name": "dagger", "kind": "melee", "attack_bonus": 4, "sheathed": true,
         "damage": [{"formula": "1d4", "types": ["piercing"]}]}
    ]);
    let (mut ep, h, _g) = field(hero, (2, 1), &[]);
    assert_eq!(ep.validate(&draw(1)).unwrap().code(), Some("hands_full"));
    assert_all_ok(&submit(&mut ep, &[sheathe(0), draw(1)]));
    let o = ep.observation(None);
    let attacks = &o.combatants[h.0 as usize].attacks;
    assert!(attacks[0].weapon_sheathed && !attacks[1].weapon_sheathed);
}

#[test]
fn a_natural_attack_cannot_start_sheathed() {
    let mut v = creature("wolf");
    v["attacks"][0]["natural"] = json!(true);
    v["attacks"][0]["sheathed"] = json!(true);
    let e = pf1e_engine::CombatantSpec::from_json_str(&v.to_string(), "inline").unwrap_err();
    assert!(e.to_string().contains("sheathed"), "{e}");
}

#[test]
fn the_default_policy_draws_a_sheathed_weapon_before_fighting() {
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", sheathed_hero(0), (2, 3)),
            unit("b", "guard", creature("guard"), (2, 4)),
        ],
    );
    // Initiative 20 / 1; the hero draws (move action) then attacks once: d20 12, 1d8 3.
    let mut ep = pf1e_engine::Episode::with_dice(
        enc,
        pf1e_engine::DiceSource::Scripted(pf1e_engine::ScriptedDice::new([20, 1, 12, 3])),
        &[
            pf1e_engine::Controller::DefaultPolicy,
            pf1e_engine::Controller::External,
        ],
    );
    turn_of(&mut ep, "guard");
    let l = log(&ep);
    assert!(l.contains("draws its longsword (move action)"), "{l}");
    assert!(l.contains("longsword vs guard d20=12+5=17"), "{l}");
}
