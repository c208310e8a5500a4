//! Coup de grace (CRB — Combat: Helpless Defenders, Coup de Grace): a full-round action
//! against a helpless opponent, an automatic critical hit, a Fortitude save DC 10 + damage or
//! die, provoking; never against a creature immune to critical hits.

mod common;

use common::*;
use pf1e_engine::episode::LifeState;
use pf1e_engine::{Action, ActionKind, CombatantId, Episode};
use serde_json::{json, Value};

fn cdg(t: CombatantId) -> Action {
    Action {
        target: Some(t),
        ..Action::new(ActionKind::CoupDeGrace)
    }
}

fn paralyzed(v: Value) -> Value {
    set(v, "conditions", json!([{ "name": "paralyzed" }]))
}

/// The hero at (2,2) next to `victim` at (2,3) in a 3 × 8 room; the hero acts first; then
/// `faces`.
fn duel(hero: Value, victim: Value, faces: &[u32]) -> (Episode, CombatantId, CombatantId) {
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "victim", victim, (2, 3)),
        ],
    );
    let mut all = vec![20, 1];
    all.extend_from_slice(faces);
    let mut ep = episode(enc, &all);
    turn_of(&mut ep, "hero");
    let (h, v) = (cid(&ep, "hero"), cid(&ep, "victim"));
    (ep, h, v)
}

#[test]
fn crb_coup_de_grace_automatic_critical_then_fort_dc_10_plus_damage_or_die() {
    // Longsword ×2: 1d8 twice, 3 + 4 = 7 damage; Fort d20 5 + 0 = 5 vs DC 17 fails: dies.
    let (mut ep, _h, v) = duel(creature("hero"), paralyzed(creature("victim")), &[3, 4, 5]);
    assert_all_ok(&submit(&mut ep, &[cdg(v)]));
    let l = log(&ep);
    assert!(
        l.contains("coup de grace on victim with its longsword (full-round action)"),
        "{l}"
    );
    assert!(
        l.contains("longsword vs victim coup de grace -> CRIT x2 7 damage (victim hp 30->23)"),
        "{l}"
    );
    assert!(l.contains("Fort save d20=5+0=5 vs DC 17 -> failure"), "{l}");
    assert!(l.contains("dies of the coup de grace"), "{l}");
    assert_eq!(ep.life_state(v), LifeState::Dead);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_coup_de_grace_a_successful_save_survives_and_the_action_is_full_round() {
    let (mut ep, _h, v) = duel(creature("hero"), paralyzed(creature("victim")), &[1, 1, 20]);
    let r = submit_raw(&mut ep, &[cdg(v), Action::new(ActionKind::Move)]);
    assert!(ok(&r[0]), "{r:?}");
    assert!(log(&ep).contains("vs DC 12 -> success"), "{}", log(&ep));
    assert_eq!(ep.life_state(v), LifeState::Healthy);
    assert_eq!(ep.hp(v), 28);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_coup_de_grace_on_a_dying_opponent() {
    // Turn 1: the hero's attack d20 15 hits the 1-hp victim for 4: dying at -3. Its turn: the
    // stabilization check d20 1 fails (-4). Turn 2: the coup de grace 2 + 2 = 4: -8, still
    // dying (Con 10); Fort d20 3 vs DC 14 fails: dead. A far guard keeps the fight going.
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", creature("hero"), (2, 2)),
            unit(
                "b",
                "victim",
                set(creature("victim"), "hp_max", json!(1)),
                (2, 3),
            ),
            unit("b", "guard", creature("guard"), (3, 8)),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 1, 15, 4, 1, 2, 2, 3]);
    turn_of(&mut ep, "hero");
    let v = cid(&ep, "victim");
    assert_all_ok(&submit(&mut ep, &[attack(v)]));
    assert_eq!(ep.life_state(v), LifeState::Dying);
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    assert_all_ok(&submit(&mut ep, &[cdg(v)]));
    assert!(
        log(&ep).contains("CRIT x2 4 damage (victim hp -4->-8)"),
        "{}",
        log(&ep)
    );
    assert_eq!(ep.life_state(v), LifeState::Dead);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_coup_de_grace_provokes_attacks_of_opportunity() {
    // The guard at (1,2) threatens the hero: its attack of opportunity (d20 10 hits, 1d8 5)
    // comes first, then the blow (2 + 2) and the save (20). (Round 2: the guard is no
    // longer flat-footed.)
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", creature("hero"), (2, 2)),
            unit("b", "guard", creature("guard"), (1, 2)),
            unit("b", "victim", paralyzed(creature("victim")), (2, 3)),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 1, 10, 5, 2, 2, 20]);
    turn_of(&mut ep, "hero");
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    let v = cid(&ep, "victim");
    assert_all_ok(&submit(&mut ep, &[cdg(v)]));
    let l = log(&ep);
    assert!(
        l.contains("attack of opportunity on hero (delivers a coup de grace)"),
        "{l}"
    );
    let aoo = l.find("attack of opportunity on hero").unwrap();
    let blow = l.find("coup de grace -> CRIT").unwrap();
    assert!(aoo < blow, "{l}");
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_coup_de_grace_refusals() {
    // Not helpless (a plain guard, a pinned one: pinned is not helpless in PF1e), immune to
    // critical hits, a blinded attacker (total concealment), no such weapon.
    let (mut ep, h, v) = duel(creature("hero"), creature("victim"), &[]);
    let code = |ep: &mut Episode, a: Action| submit_raw(ep, &[a])[0].code();
    assert_eq!(code(&mut ep, cdg(v)), Some("not_helpless"));
    ep.apply_condition(v, "pinned", None).unwrap();
    assert_eq!(code(&mut ep, cdg(v)), Some("not_helpless"));
    assert_eq!(
        code(&mut ep, Action::new(ActionKind::CoupDeGrace)),
        Some("missing_target")
    );
    assert_eq!(code(&mut ep, cdg(h)), Some("invalid_target"));
    let immune = set(
        paralyzed(creature("victim")),
        "traits",
        json!(["immune_critical"]),
    );
    let (mut ep, h, v) = duel(creature("hero"), immune, &[]);
    assert_eq!(code(&mut ep, cdg(v)), Some("immune_to_critical_hits"));
    let (mut ep2, _, v2) = duel(creature("hero"), paralyzed(creature("victim")), &[]);
    let mut with = cdg(v2);
    with.weapon = Some(3);
    assert_eq!(code(&mut ep2, with), Some("weapon_unavailable"));
    ep2.apply_condition(cid(&ep2, "hero"), "blinded", None)
        .unwrap();
    assert_eq!(code(&mut ep2, cdg(v2)), Some("target_concealed"));
    let _ = (h, &mut ep);
}

#[test]
fn crb_coup_de_grace_with_a_bow_only_when_adjacent() {
    let archer = set(
        creature("hero"),
        "attacks",
        json!([ranged("shortbow", 4, "1d6", "piercing", 60)]),
    );
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", archer, (2, 1)),
            unit("b", "victim", paralyzed(creature("victim")), (2, 3)),
            unit("b", "near", paralyzed(creature("near")), (3, 2)),
        ],
    );
    // Shortbow ×2 (the default multiplier of the fixture): 1d6 twice, 1 + 1; save 20.
    let mut ep = episode(enc, &[20, 1, 1, 1, 1, 20]);
    turn_of(&mut ep, "hero");
    let (v, n) = (cid(&ep, "victim"), cid(&ep, "near"));
    let r = submit_raw(&mut ep, &[cdg(v)]);
    assert_eq!(r[0].code(), Some("out_of_range"));
    assert_all_ok(&submit(&mut ep, &[cdg(n)]));
    assert!(
        log(&ep).contains("shortbow vs near coup de grace -> CRIT x2 2 damage"),
        "{}",
        log(&ep)
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn bestiary_undead_take_the_damage_but_make_no_fortitude_save() {
    // Break-it finding: undead are immune to "any effect that requires a Fortitude save
    // (unless the effect also works on objects)" (Bestiary — Creature Types: Undead): the
    // automatic critical (3 + 4 = 7) stands, no save is rolled, it does not die of it.
    let undead = set(
        paralyzed(creature("victim")),
        "creature_type",
        serde_json::json!("undead"),
    );
    let (mut ep, _h, v) = duel(creature("hero"), undead, &[3, 4]);
    assert_all_ok(&submit(&mut ep, &[cdg(v)]));
    let l = log(&ep);
    assert!(l.contains("CRIT x2 7 damage (victim hp 30->23)"), "{l}");
    assert!(
        l.contains("victim: no Fortitude save (immune to Fortitude effects)"),
        "{l}"
    );
    assert!(!l.contains("Fort save"), "{l}");
    assert_ne!(ep.life_state(v), LifeState::Dead);
    assert_eq!(dice_left(&ep), 0);
}
