//! Explain (`actions::explain`): the verdict is `validate`'s for every id of the action
//! space; the reasons name creatures, squares and feet (pinned here for the common ones).

mod common;

use common::*;
use pf1e_engine::actions::explain::{explain, explain_all, explain_id, ExplainError};
use pf1e_engine::{Action, ActionKind, Controller, Episode, Status};
use serde_json::json;

fn rows(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|s| s.to_string()).collect()
}

/// Every id: legal exactly where the mask says; otherwise `validate`'s code and a reason.
fn agrees_with_validate_and_the_mask(ep: &Episode) {
    let all = explain_all(ep).unwrap();
    let mask = ep.action_mask();
    assert_eq!(all.len(), mask.len());
    for (id, x) in all.iter().enumerate() {
        assert_eq!(x.action_id, Some(id as u32));
        let a = ep.action_from_id(id as u32).unwrap();
        let v = ep.validate(&a).unwrap();
        assert_eq!(x.legal, mask[id] == 1, "id {id} {}: {}", x.label, x.reason);
        assert_eq!(x.legal, v.ok, "id {id} {}", x.label);
        assert_eq!(x.reject, v.reason, "id {id} {}", x.label);
        assert!(!x.reason.is_empty(), "id {id}");
        assert_eq!(explain_id(ep, id as u32).unwrap(), *x);
    }
}

#[test]
fn a_blocked_charge_names_the_blocker_and_its_square() {
    let enc = encounter(
        &room(1, 10),
        vec![
            unit("a", "hero", creature("hero"), (1, 1)),
            unit("a", "ally", creature("ally"), (1, 3)),
            unit("b", "orc", creature("orc"), (1, 6)),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 1]);
    turn_of(&mut ep, "hero");
    let orc = cid(&ep, "orc");
    let x = explain(&ep, &charge(orc)).unwrap();
    assert!(!x.legal);
    assert_eq!(x.reject.unwrap().code(), "no_charge_path");
    assert_eq!(x.reason, "the line to orc crosses ally at (1,3)");
    assert_eq!(x.field, "target");
    assert_eq!(x.label, "charge orc");
    assert!(x.action_id.is_some());
    agrees_with_validate_and_the_mask(&ep);
}

#[test]
fn a_charge_through_difficult_terrain_or_too_short_says_so() {
    let terrain = rows(&["##########", "#..T....##", "##########"]);
    let enc = encounter(
        &terrain,
        vec![
            unit("a", "hero", creature("hero"), (1, 1)),
            unit("b", "orc", creature("orc"), (1, 6)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "hero");
    let x = explain(&ep, &charge(cid(&ep, "orc"))).unwrap();
    assert_eq!(
        x.reason,
        "the line to orc crosses difficult terrain at (1,3)"
    );
    let enc = encounter(
        &room(3, 10),
        vec![
            unit("a", "hero", creature("hero"), (2, 1)),
            unit("b", "orc", creature("orc"), (2, 3)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "hero");
    let x = explain(&ep, &charge(cid(&ep, "orc"))).unwrap();
    assert_eq!(
        x.reason,
        "the closest square from which to attack orc is 5 ft away: a charge moves at least 10 ft"
    );
    // Too far: out_of_range, with the feet.
    let enc = encounter(
        &room(1, 16),
        vec![
            unit("a", "hero", creature("hero"), (1, 1)),
            unit("b", "orc", creature("orc"), (1, 15)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "hero");
    let x = explain(&ep, &charge(cid(&ep, "orc"))).unwrap();
    assert_eq!(x.reject.unwrap().code(), "out_of_range");
    assert_eq!(
        x.reason,
        "the line to orc is 65 ft long; a charge moves at most 60 ft (twice the speed)"
    );
}

#[test]
fn out_of_range_gives_the_feet_and_the_weapons_range() {
    let archer = set(
        creature("archer"),
        "attacks",
        json!([ranged("shortbow", 4, "1d6", "piercing", 10)]),
    );
    let enc = encounter(
        &room(1, 40),
        vec![
            unit("a", "archer", archer, (1, 1)),
            unit("b", "orc", creature("orc"), (1, 30)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "archer");
    let orc = cid(&ep, "orc");
    let x = explain(&ep, &attack(orc)).unwrap();
    assert_eq!(x.reject.unwrap().code(), "out_of_range");
    assert_eq!(
        x.reason,
        "orc is 145 ft away; the shortbow's maximum range is 100 ft"
    );
    assert_eq!(x.field, "target");
    // With the weapon named (an id), the weapon is at fault, for the same reason.
    let x = explain(&ep, &attack_with(orc, 0)).unwrap();
    assert_eq!(x.reject.unwrap().code(), "weapon_unavailable");
    assert_eq!(x.field, "weapon");
    assert_eq!(
        x.reason,
        "orc is 145 ft away; the shortbow's maximum range is 100 ft"
    );
    // A melee weapon: its reach.
    let enc = encounter(
        &room(3, 10),
        vec![
            unit("a", "hero", creature("hero"), (2, 1)),
            unit("b", "orc", creature("orc"), (2, 5)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "hero");
    let x = explain(&ep, &attack(cid(&ep, "orc"))).unwrap();
    assert_eq!(x.reason, "orc is 20 ft away; the longsword reaches 5 ft");
    agrees_with_validate_and_the_mask(&ep);
}

#[test]
fn a_wall_on_the_line_is_named() {
    let archer = set(
        creature("archer"),
        "attacks",
        json!([ranged("shortbow", 4, "1d6", "piercing", 60)]),
    );
    let terrain = rows(&[
        "#########",
        "#...#...#",
        "#...#...#",
        "#...#...#",
        "#########",
    ]);
    let enc = encounter(
        &terrain,
        vec![
            unit("a", "archer", archer, (2, 1)),
            unit("b", "orc", creature("orc"), (2, 7)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "archer");
    let x = explain(&ep, &attack(cid(&ep, "orc"))).unwrap();
    assert_eq!(x.reject.unwrap().code(), "no_line_of_effect");
    assert_eq!(
        x.reason,
        "no line of effect from archer at (2,1) to orc at (2,7): the square (2,4) blocks it"
    );
    assert_eq!(x.field, "target");
}

#[test]
fn destinations_the_budget_and_conditions_in_words() {
    let enc = encounter(
        &room(3, 14),
        vec![
            unit("a", "hero", creature("hero"), (2, 1)),
            unit("b", "orc", creature("orc"), (2, 4)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "hero");
    let x = explain(&ep, &move_to(2, 14)).unwrap();
    assert_eq!(x.reject.unwrap().code(), "unreachable_destination");
    assert_eq!(x.field, "destination");
    assert_eq!(
        x.reason,
        "(2,14) needs 70 ft of movement; a move allows 30 ft (speed 30 ft)"
    );
    let x = explain(&ep, &move_to(2, 4)).unwrap();
    assert_eq!(x.reason, "(2,4) is occupied by orc");
    let x = explain(&ep, &move_to(0, 4)).unwrap();
    assert_eq!(x.reason, "(0,4) is a wall or impassable terrain");
    let x = explain(&ep, &move_to(9, 9)).unwrap();
    assert_eq!(x.reason, "(9,9) is off the map (5 rows × 16 columns)");
    let x = explain(&ep, &step(2, 3)).unwrap();
    assert_eq!(
        x.reason,
        "a 5-foot step goes to an adjacent square; (2,3) is 10 ft from hero's (2,1)"
    );
    // Spend the move: a full attack is refused by the budget, named.
    assert_all_ok(&submit(&mut ep, &[move_to(1, 1)]));
    let x = explain(&ep, &full_attack(cid(&ep, "orc"))).unwrap();
    assert_eq!(x.reject.unwrap().code(), "downgraded:action_economy");
    assert_eq!(x.field, "");
    assert_eq!(
        x.reason,
        "full_attack is a full-round action: hero already spent part of this turn; left this turn: standard action, move action, swift action"
    );
    let x = explain(&ep, &step(1, 2)).unwrap();
    assert_eq!(x.reject.unwrap().code(), "already_moved");
    assert_eq!(
        x.reason,
        "hero already moved this turn: no 5foot_step after other movement"
    );
    // A legal action says what it does.
    let x = explain(&ep, &Action::new(ActionKind::TotalDefense)).unwrap();
    assert!(x.legal);
    assert_eq!(x.reason, "legal (standard action): total_defense");
    assert_eq!(x.field, "");
    let x = explain(&ep, &Action::new(ActionKind::StandUp)).unwrap();
    assert_eq!(x.reason, "hero is not prone");
    let x = explain(&ep, &Action::new(ActionKind::Decline)).unwrap();
    assert_eq!(x.reject.unwrap().code(), "wrong_decision_kind");
    assert_eq!(x.field, "kind");
    agrees_with_validate_and_the_mask(&ep);
}

#[test]
fn reactions_are_explained_too() {
    // The orc walks past the hero: an attack of opportunity is offered.
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", creature("hero"), (2, 2)),
            unit("b", "orc", creature("orc"), (2, 3)),
        ],
    );
    // The hero acts first (not flat-footed when the orc moves).
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "hero");
    end_turn(&mut ep);
    turn_of(&mut ep, "orc");
    let d = decision(&ep);
    ep.submit(d.decision_id, &[move_to(2, 7)]).unwrap();
    let Status::Decision(r) = ep.advance() else {
        panic!("no reaction")
    };
    assert!(r.kind.is_reaction(), "{r:?}");
    let x = explain(&ep, &attack(cid(&ep, "orc"))).unwrap();
    assert_eq!(x.reject.unwrap().code(), "wrong_decision_kind");
    assert_eq!(
        x.reason,
        "hero is offered an attack of opportunity against orc: answer with attack_of_opportunity or decline"
    );
    let x = explain(
        &ep,
        &Action {
            weapon: Some(3),
            ..Action::new(ActionKind::AttackOfOpportunity)
        },
    )
    .unwrap();
    assert_eq!(x.field, "weapon");
    assert_eq!(
        x.reason,
        "the weapon 3 is not offered for this attack of opportunity; offered: longsword"
    );
    let legal: Vec<_> = explain_all(&ep)
        .unwrap()
        .into_iter()
        .filter(|x| x.legal)
        .map(|x| x.label)
        .collect();
    assert_eq!(
        legal,
        ["attack_of_opportunity on orc with longsword", "decline"]
    );
    agrees_with_validate_and_the_mask(&ep);
}

#[test]
fn spells_name_their_range_and_slots() {
    let mage = caster("mage", 1, &["magic missile"], json!({"1": 1}));
    let enc = encounter(
        &room(1, 40),
        vec![
            unit("a", "mage", mage, (1, 1)),
            unit("b", "orc", creature("orc"), (1, 35)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "mage");
    let orc = cid(&ep, "orc");
    let cast = Action {
        spell: Some(0),
        target: Some(orc),
        ..Action::new(ActionKind::CastSpell)
    };
    let x = explain(&ep, &cast).unwrap();
    assert_eq!(x.reject.unwrap().code(), "out_of_range");
    assert_eq!(
        x.reason,
        "orc is 170 ft away; magic missile's range is 110 ft"
    );
    assert_eq!(x.field, "target");
    let x = explain(
        &ep,
        &Action {
            spell: Some(4),
            ..Action::new(ActionKind::CastSpell)
        },
    )
    .unwrap();
    assert_eq!(x.field, "spell");
    assert_eq!(x.reason, "mage has no spell 4; spells: magic missile");
    agrees_with_validate_and_the_mask(&ep);
}

#[test]
fn no_decision_and_ids_out_of_range_are_errors() {
    let enc = encounter(
        &room(3, 3),
        vec![
            unit("a", "hero", creature("hero"), (1, 1)),
            unit("b", "orc", creature("orc"), (3, 3)),
        ],
    );
    let n = enc.combatants.len();
    let ep = Episode::new(enc, 1, &vec![Controller::External; n]);
    assert_eq!(
        explain(&ep, &Action::new(ActionKind::EndTurn)),
        Err(ExplainError::NoDecision)
    );
    let mut ep = ep;
    ep.advance();
    let size = ep.action_space_size();
    assert_eq!(
        explain_id(&ep, size),
        Err(ExplainError::IdOutOfRange { id: size, size })
    );
    let x = explain_id(&ep, 0).unwrap();
    assert!(x.legal);
    assert_eq!(x.reason, "legal: ends the turn");
}

/// Break-it (P8): a creature-targeted spell aimed at a square (`cast_spell command at
/// (10,16)`, the `cast_spell_at` ids) was explained as "cast_spell needs a target_pos"
/// (field `target_pos`) — it has one; what it lacks is a target creature.
#[test]
fn a_creature_spell_aimed_at_a_square_asks_for_a_target_creature() {
    let mage = caster(
        "mage",
        1,
        &["magic missile", "fireball"],
        json!({"1": 1, "3": 1}),
    );
    let enc = encounter(
        &room(3, 12),
        vec![
            unit("a", "mage", mage, (1, 1)),
            unit("b", "orc", creature("orc"), (1, 8)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "mage");
    let at_square = Action {
        spell: Some(0),
        target_pos: Some(pf1e_engine::geometry::grid::Cell::new(1, 8)),
        ..Action::new(ActionKind::CastSpell)
    };
    let x = explain(&ep, &at_square).unwrap();
    assert_eq!(x.reject.unwrap().code(), "missing_target");
    assert_eq!(x.field, "target");
    assert_eq!(
        x.reason,
        "magic missile targets a creature: give a target combatant, not a target_pos square"
    );
    // A creature spell without any target, and an area spell without its square, as before.
    let bare = Action {
        spell: Some(0),
        ..Action::new(ActionKind::CastSpell)
    };
    let x = explain(&ep, &bare).unwrap();
    assert_eq!(
        (x.field, x.reason.as_str()),
        ("target", "cast_spell needs a target")
    );
    let area = Action {
        spell: Some(1),
        ..Action::new(ActionKind::CastSpell)
    };
    let x = explain(&ep, &area).unwrap();
    assert_eq!(x.field, "target_pos");
    agrees_with_validate_and_the_mask(&ep);
}
