//! Cleave and Great Cleave (CRB — Feats: Cleave, Great Cleave), scripted dice.
//!
//! Layout: a 3 × 8 room; the hero at (2,2); foes A (1,3), B (2,3), C (3,3) in a column east
//! of it (A–B and B–C adjacent, A–C two squares apart), all within the hero's reach. The hero
//! acts first (initiative faces 20, then 1 for each foe).

mod common;

use common::*;
use pf1e_engine::{Action, ActionKind, CombatantId, Episode};
use serde_json::{json, Value};

fn cleave(t: CombatantId) -> Action {
    Action {
        target: Some(t),
        ..Action::new(ActionKind::Cleave)
    }
}

fn hero(feats: &[&str]) -> Value {
    set(creature("hero"), "feats", json!(feats))
}

/// The hero and three foes (see the module doc); `faces` after the initiative.
fn column(hero: Value, faces: &[u32]) -> Episode {
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "A", creature("foe"), (1, 3)),
            unit("b", "B", creature("foe"), (2, 3)),
            unit("b", "C", creature("foe"), (3, 3)),
        ],
    );
    let mut all = vec![20, 1, 1, 1];
    all.extend_from_slice(faces);
    let mut ep = episode(enc, &all);
    turn_of(&mut ep, "hero");
    ep
}

#[test]
fn crb_cleave_on_a_hit_attacks_a_foe_adjacent_to_the_first_once_and_takes_minus_2_ac() {
    // Cleave on B (d20 10 hits AC 10, 1d8 = 3): one more attack, on A (the first foe in list
    // order adjacent to B and within reach: d20 10, 1d8 = 4); Cleave allows one only, so C is
    // not attacked.
    let mut ep = column(hero(&["Cleave"]), &[10, 3, 10, 4, 3, 2]);
    let (a, b, c) = (cid(&ep, "A"), cid(&ep, "B"), cid(&ep, "C"));
    assert_all_ok(&submit(&mut ep, &[cleave(b)]));
    assert_eq!(ep.hp(b), 27);
    assert_eq!(ep.hp(a), 26);
    assert_eq!(ep.hp(c), 30);
    assert!(
        log(&ep).contains("cleave (standard action): -2 AC until its next turn"),
        "{}",
        log(&ep)
    );
    assert_eq!(
        lines_with(&ep, "cleave: hit B, attacks A").len(),
        1,
        "{}",
        log(&ep)
    );
    assert_eq!(dice_left(&ep), 2);
    // −2 AC until the start of the hero's next turn (observation `cleave_ac_penalty`).
    let h = cid(&ep, "hero");
    assert_eq!(
        ep.observation(None).combatants[h.0 as usize].cleave_ac_penalty,
        -2
    );
    assert!(obs_json(&ep).contains("\"cleave_ac_penalty\":-2"));
    end_turn(&mut ep);
    turn_of(&mut ep, "A");
    // The foe's +5 attack: d20 3 → 8 hits AC 8 (10 − 2), 1d8 = 2.
    assert_all_ok(&submit(&mut ep, &[attack(h)]));
    assert!(log(&ep).contains("d20=3+5=8 AC 8"), "{}", log(&ep));
    assert_eq!(ep.hp(h), 28);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_cleave_ac_penalty_ends_at_the_start_of_the_next_turn() {
    let mut ep = column(hero(&["Cleave"]), &[2]);
    let (b, h) = (cid(&ep, "B"), cid(&ep, "hero"));
    // A miss (d20 2 → 7 < AC 10): no second attack, but the −2 AC is taken anyway.
    assert_all_ok(&submit(&mut ep, &[cleave(b)]));
    assert_eq!(lines_with(&ep, "-> MISS").len(), 1, "{}", log(&ep));
    assert!(lines_with(&ep, "cleave: hit").is_empty(), "{}", log(&ep));
    assert_eq!(
        ep.observation(None).combatants[h.0 as usize].cleave_ac_penalty,
        -2
    );
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    assert_eq!(
        ep.observation(None).combatants[h.0 as usize].cleave_ac_penalty,
        0
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_great_cleave_goes_on_to_a_foe_adjacent_to_the_previous_one_each_foe_once() {
    // Great Cleave on A: hit (3) → B, adjacent to A: hit (3) → C, adjacent to B (not to A):
    // hit (3) → no foe left that was not attacked: the chain ends.
    let mut ep = column(hero(&["Cleave", "Great Cleave"]), &[10, 3, 10, 3, 10, 3]);
    let (a, b, c) = (cid(&ep, "A"), cid(&ep, "B"), cid(&ep, "C"));
    assert_all_ok(&submit(&mut ep, &[cleave(a)]));
    for t in [a, b, c] {
        assert_eq!(ep.hp(t), 27, "{}", log(&ep));
    }
    assert_eq!(lines_with(&ep, "cleave: hit A, attacks B").len(), 1);
    assert_eq!(lines_with(&ep, "cleave: hit B, attacks C").len(), 1);
    assert_eq!(
        lines_with(&ep, "cleave: no other foe adjacent and within reach").len(),
        1,
        "{}",
        log(&ep)
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_great_cleave_stops_at_the_first_miss() {
    // A hit on A (3), then B missed (d20 2): C is not attacked.
    let mut ep = column(hero(&["Cleave", "Great Cleave"]), &[10, 3, 2]);
    let (a, c) = (cid(&ep, "A"), cid(&ep, "C"));
    assert_all_ok(&submit(&mut ep, &[cleave(a)]));
    assert_eq!(ep.hp(c), 30);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_cleave_refusals_name_the_reason() {
    // Without the feat: missing_feat; a ranged weapon: weapon_unavailable; a foe out of
    // reach: out_of_range; after the standard action: downgraded:action_economy.
    let mut ep = column(creature("hero"), &[]);
    let b = cid(&ep, "B");
    let r = submit(&mut ep, &[cleave(b)]);
    assert_eq!(r[0].code(), Some("missing_feat"));
    let bow = set(
        hero(&["Cleave"]),
        "attacks",
        json!([
            melee("longsword", 5, "1d8", "slashing"),
            ranged("bow", 0, "1d6", "piercing", 100)
        ]),
    );
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", bow, (2, 2)),
            unit("b", "far", creature("foe"), (2, 6)),
            unit("b", "near", creature("foe"), (3, 3)),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 1, 10, 3]);
    turn_of(&mut ep, "hero");
    let (far, near) = (cid(&ep, "far"), cid(&ep, "near"));
    let with_bow = Action {
        weapon: Some(1),
        ..cleave(near)
    };
    let r = submit(&mut ep, &[with_bow, cleave(far)]);
    assert_eq!(r[0].code(), Some("weapon_unavailable"));
    assert_eq!(r[1].code(), Some("out_of_range"));
    // The legal actions offer cleave on the near foe only, with the melee weapon.
    let legal: Vec<String> = ep
        .legal_actions()
        .into_iter()
        .filter(|l| l.action.kind == ActionKind::Cleave)
        .map(|l| l.label)
        .collect();
    assert_eq!(legal, ["cleave near with longsword"]);
    let r = submit(&mut ep, &[cleave(near), cleave(near)]);
    assert!(r[0].ok);
    assert_eq!(r[1].code(), Some("downgraded:action_economy"));
    assert_eq!(dice_left(&ep), 0);
}
