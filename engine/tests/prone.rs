//! Prone, `stand_up` and `drop_prone` (CRB — Conditions: Prone; Actions in Combat: Move
//! Actions "Stand up from prone", Free Actions "Drop prone"; Attacks of Opportunity).

mod common;

use common::*;
use pf1e_engine::effects::conditions::Condition;
use pf1e_engine::{Action, ActionKind, Controller, Episode};
use serde_json::json;

#[test]
fn crb_standing_up_provokes_separately_from_leaving_threatened_squares() {
    // The dummy (Combat Reflexes, Dex 14: 3 AoOs) acts first; the prone hero stands up (one
    // opportunity) and then moves away (another one: standing up is not movement).
    let hero = set(creature("hero"), "conditions", json!([{"name": "prone"}]));
    let mut dummy = set(creature("dummy"), "feats", json!(["Combat Reflexes"]));
    dummy["abilities"]["dex_score"] = json!(14);
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "dummy", dummy, (2, 3)),
        ],
    );
    let mut ep = episode(enc, &[1, 20, 1, 1]);
    turn_of(&mut ep, "hero");
    let rs = submit(&mut ep, &[Action::new(ActionKind::StandUp), move_to(2, 1)]);
    assert_all_ok(&rs);
    assert_eq!(
        lines_with(&ep, "attack of opportunity"),
        vec![
            "round 1 dummy: attack of opportunity on hero (stands up)",
            "round 1 dummy: attack of opportunity on hero (leaves a threatened square)",
        ]
    );
    // The stand-up AoO is resolved while still prone (AC 10 − 4).
    assert!(log(&ep).contains("AC 6 [target prone -4]"), "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_stand_up_is_a_move_action_drop_prone_is_free() {
    let (mut ep, h) = {
        let enc = encounter(
            &room(3, 8),
            vec![
                unit("a", "hero", creature("hero"), (2, 2)),
                unit("b", "dummy", creature("dummy"), (2, 6)),
            ],
        );
        let mut ep = episode(enc, &[20, 1]);
        turn_of(&mut ep, "hero");
        let h = cid(&ep, "hero");
        (ep, h)
    };
    let stand = Action::new(ActionKind::StandUp);
    let drop = Action::new(ActionKind::DropProne);
    assert_eq!(ep.validate(&stand).unwrap().code(), Some("not_prone"));
    assert!(ep.legal_actions().iter().any(|l| l.action == drop));
    assert_all_ok(&submit(&mut ep, std::slice::from_ref(&drop)));
    assert!(ep.has_condition(h, Condition::Prone));
    let b = ep.decision().unwrap().budget;
    assert!(b.full_round, "dropping prone is free");
    assert_eq!(ep.validate(&drop).unwrap().code(), Some("already_prone"));
    assert!(ep.legal_actions().iter().any(|l| l.action == stand));
    assert_all_ok(&submit(&mut ep, &[stand]));
    let b = ep.decision().unwrap().budget;
    assert!(!b.full_round && b.standard, "standing up is a move action");
    assert!(!ep.has_condition(h, Condition::Prone));
    // Ids round-trip.
    for a in [
        Action::new(ActionKind::StandUp),
        Action::new(ActionKind::DropProne),
    ] {
        let id = ep.action_id(&a).unwrap();
        assert_eq!(ep.action_from_id(id), Some(a));
    }
}

#[test]
fn crb_prone_is_not_removed_at_turn_start_default_policy_stands_up() {
    // No automatic stand-up any more: the default policy chooses `stand_up` first, then
    // attacks once (the move action is spent).
    let hero = set(creature("hero"), "conditions", json!([{"name": "prone"}]));
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "dummy", creature("dummy"), (2, 3)),
        ],
    );
    let mut ep = Episode::new(
        enc,
        7,
        &[Controller::DefaultPolicy, Controller::DefaultPolicy],
    );
    let _ = ep.advance();
    let hero_lines = lines_of(&ep, "hero");
    assert_eq!(hero_lines[0], "stands up (move action)", "{}", log(&ep));
    assert!(
        hero_lines[1].starts_with("longsword vs dummy"),
        "{}",
        log(&ep)
    );
}

#[test]
fn crb_prone_creature_cannot_move_until_it_stands_up() {
    let hero = set(creature("hero"), "conditions", json!([{"name": "prone"}]));
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "dummy", creature("dummy"), (2, 6)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "hero");
    for a in [move_to(2, 1), step(1, 2), withdraw(1, 1)] {
        assert_eq!(
            ep.validate(&a).unwrap().code(),
            Some("prevented_by_condition")
        );
    }
    assert!(!ep.legal_actions().iter().any(|l| matches!(
        l.action.kind,
        ActionKind::Move | ActionKind::FiveFootStep | ActionKind::Withdraw | ActionKind::Run
    )));
    assert_all_ok(&submit(
        &mut ep,
        &[Action::new(ActionKind::StandUp), move_to(2, 1)],
    ));
}
