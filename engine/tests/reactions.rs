//! Attacks of opportunity as decisions of their controller (CRB — Combat: Attacks of
//! Opportunity: "an attack of opportunity … happens before the provoking action continues"),
//! the engine's guard of its own decisions, and suspension mid-resolution (clone, snapshot,
//! replay at a reaction decision). Scripted dice.
//!
//! Layout: a 3 × 8 room; the guard (side b) acts first and ends its turn, so it is no longer
//! flat-footed when the hero moves.

mod common;

use common::*;
use pf1e_engine::actions::{Reject, TargetIssue};
use pf1e_engine::episode::SubmitError;
use pf1e_engine::{
    Action, ActionKind, ActionResult, Cell, Controller, DecisionKind, DiceSource, Episode,
    Provocation, ScriptedDice, Status,
};
use serde_json::json;

/// The hero at (1,2), the guard at (2,3) (it threatens (1,2), (1,3), (1,4)); initiative:
/// the guard first. `more`: the faces after initiative.
fn guard_room(guard: serde_json::Value, more: &[u32]) -> Episode {
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", creature("hero"), (1, 2)),
            unit("b", "guard", guard, (2, 3)),
        ],
    );
    let mut faces = vec![1, 20];
    faces.extend_from_slice(more);
    episode(enc, &faces)
}

fn two_weapons() -> serde_json::Value {
    set(
        creature("guard"),
        "attacks",
        json!([
            melee("longsword", 5, "1d8", "slashing"),
            melee("dagger", 3, "1d4", "piercing")
        ]),
    )
}

fn answer(kind: ActionKind, weapon: Option<usize>) -> Action {
    Action {
        weapon,
        ..Action::new(kind)
    }
}

#[test]
fn leaving_a_threatened_square_asks_the_external_threatener() {
    let mut ep = guard_room(two_weapons(), &[]);
    turn_of(&mut ep, "hero");
    let (hero, guard) = (cid(&ep, "hero"), cid(&ep, "guard"));
    let mover = decision(&ep);
    let r = submit_raw(&mut ep, &[move_to(1, 6)]);
    // The move is accepted and under way; the guard decides before the hero leaves (1,2).
    assert_eq!(r.len(), 1);
    assert!(r[0].ok);
    assert_eq!(ep.position(hero), Cell::new(1, 2));
    let d = decision(&ep);
    assert_eq!(d.actor, guard);
    assert_eq!(
        d.kind,
        DecisionKind::AttackOfOpportunity {
            provoker: hero,
            provocation: Provocation::Leaving,
            weapons: vec![0, 1],
            stand_still: false,
        }
    );
    assert!(d.decision_id > mover.decision_id);
    // The legal answers: each weapon, then decline; the mask says the same.
    let legal = ep.legal_actions();
    let labels: Vec<&str> = legal.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "attack_of_opportunity on hero with longsword",
            "attack_of_opportunity on hero with dagger",
            "decline"
        ]
    );
    let mask = ep.action_mask();
    let ids: Vec<u32> = (0..mask.len() as u32)
        .filter(|&i| mask[i as usize] == 1)
        .collect();
    assert_eq!(ids, legal.iter().map(|l| l.id).collect::<Vec<_>>());
    assert_eq!(mask[0], 0, "end_turn is not an answer to a reaction");
    // `decline` is the last answer: its block's one id (the blocks appended after it are turn
    // actions).
    let decline = pf1e_engine::actions::space::ActionSpace::of(ep.encounter())
        .blocks()
        .iter()
        .find(|b| b.0 == "decline")
        .unwrap()
        .1;
    assert_eq!(*ids.last().unwrap(), decline);
    for l in &legal {
        assert_eq!(ep.action_from_id(l.id).as_ref(), Some(&l.action));
        assert!(ep.validate(&l.action).unwrap().ok);
    }
    assert_eq!(
        ep.validate(&Action::new(ActionKind::EndTurn))
            .unwrap()
            .code(),
        Some("wrong_decision_kind")
    );
}

/// CRB — Combat: Attacks of Opportunity, Moving Out of a Threatened Square: "Moving out of
/// more than one square threatened by the same opponent in the same round doesn't count as
/// more than one opportunity for that opponent." Declining is not taking it, but the
/// opportunity was there and is gone: the guard declines when the hero leaves (1,2) and is
/// not asked again when it leaves (1,3), nor on its second move of the round from (1,4);
/// the guard's attack of opportunity is not spent.
#[test]
fn crb_a_declined_movement_opportunity_is_spent_for_the_round() {
    let mut ep = guard_room(two_weapons(), &[]);
    turn_of(&mut ep, "hero");
    let (hero, guard) = (cid(&ep, "hero"), cid(&ep, "guard"));
    submit_raw(&mut ep, &[move_to(1, 4)]);
    let d = decision(&ep);
    assert_eq!(d.actor, guard);
    assert_eq!(ep.position(hero), Cell::new(1, 2));
    let r = ep
        .submit(d.decision_id, &[answer(ActionKind::Decline, None)])
        .unwrap();
    assert!(ok(&r[0]), "{r:?}");
    // The move went on past (1,3) without asking: the hero decides again.
    let d = decision(&ep);
    assert_eq!(d.actor, hero, "{d:?}");
    assert_eq!(ep.position(hero), Cell::new(1, 4));
    // A second move action the same round leaves (1,4): no new opportunity either.
    submit_raw(&mut ep, &[move_to(1, 6)]);
    assert_eq!(ep.position(hero), Cell::new(1, 6));
    // Nothing was asked: the hero's turn ended with its two move actions.
    assert!(ep.decision().is_none_or(|d| !d.kind.is_reaction()));
    assert_eq!(ep.observation(None).combatants[1].aoo_remaining, 1);
    assert!(lines_with(&ep, "attack of opportunity").is_empty());
    assert_eq!(dice_left(&ep), 0);
}

/// The same rule is about movement only (CRB — Attacks of Opportunity: each provoking act
/// is its own opportunity): after declining the hero's move, the guard is asked again when
/// the hero shoots from a square it threatens.
#[test]
fn crb_a_declined_movement_opportunity_leaves_other_provocations_new() {
    let bow = set(
        creature("hero"),
        "attacks",
        json!([ranged("bow", 0, "1d6", "piercing", 100)]),
    );
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", bow, (1, 2)),
            unit("b", "target", creature("target"), (1, 8)),
            unit("b", "guard", two_weapons(), (2, 3)),
        ],
    );
    // Initiative (hero, target, guard): the guard first; the shot rolls 1 (a miss).
    let mut ep = episode(enc, &[1, 1, 20, 1]);
    turn_of(&mut ep, "hero");
    let (hero, guard, t) = (cid(&ep, "hero"), cid(&ep, "guard"), cid(&ep, "target"));
    submit_raw(&mut ep, &[move_to(1, 3)]);
    let d = decision(&ep);
    assert_eq!(d.actor, guard);
    ep.submit(d.decision_id, &[answer(ActionKind::Decline, None)])
        .unwrap();
    assert_eq!(ep.position(hero), Cell::new(1, 3));
    submit_raw(&mut ep, &[attack(t)]);
    let d = decision(&ep);
    assert_eq!(d.actor, guard, "{d:?}");
    match &d.kind {
        DecisionKind::AttackOfOpportunity { provocation, .. } => {
            assert_eq!(*provocation, Provocation::RangedAttack)
        }
        k => panic!("{k:?}"),
    }
    ep.submit(d.decision_id, &[answer(ActionKind::Decline, None)])
        .unwrap();
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn an_interrupted_action_list_resumes_after_the_reaction() {
    // The hero moves next to the dummy and attacks; the guard declines; the list goes on:
    // the attack (d20 = 12, 1d8 = 4) resolves after the reaction, its result in the mover's
    // history entry.
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", creature("hero"), (1, 2)),
            unit("b", "dummy", creature("dummy"), (1, 7)),
            unit("b", "guard", creature("guard"), (2, 3)),
        ],
    );
    let mut ep = episode(enc, &[1, 2, 20, 12, 4]);
    turn_of(&mut ep, "hero");
    let dummy = cid(&ep, "dummy");
    let mover = decision(&ep);
    let r = submit_raw(&mut ep, &[move_to(1, 6), attack(dummy)]);
    assert_eq!(r.len(), 1, "only the move resolved so far: {r:?}");
    let mut declines = 0;
    while let Some(d) = ep.decision().cloned() {
        if !d.kind.is_reaction() {
            break;
        }
        let r = ep
            .submit(d.decision_id, &[answer(ActionKind::Decline, None)])
            .unwrap();
        assert_eq!(r.len(), 1, "a reaction's submit returns its own results");
        declines += 1;
    }
    // Asked once: a declined movement opportunity is spent for the round (CRB — Attacks
    // of Opportunity, Moving Out of a Threatened Square).
    assert_eq!(declines, 1, "asked once for the movement");
    let all = ep.results_of(mover.decision_id).unwrap();
    assert_eq!(all.len(), 2);
    assert!(all.iter().all(ok), "{all:?}");
    assert_eq!(ep.hp(dummy), 26);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn the_engine_refuses_anything_but_the_awaited_answer() {
    let mut ep = guard_room(two_weapons(), &[]);
    turn_of(&mut ep, "hero");
    let hero = cid(&ep, "hero");
    let mover = decision(&ep);
    // A reaction kind at a turn decision.
    let r = submit_raw(&mut ep, &[answer(ActionKind::Decline, None)]);
    assert_eq!(r[0].code(), Some("wrong_decision_kind"));
    let turn = decision(&ep);
    assert!(turn.decision_id > mover.decision_id);
    submit_raw(&mut ep, &[move_to(1, 6)]);
    let d = decision(&ep);
    // A stale id, and an empty list: errors, nothing applied.
    let before = ep.snapshot();
    assert!(matches!(
        ep.submit(turn.decision_id, &[answer(ActionKind::Decline, None)]),
        Err(SubmitError::StaleDecision { .. })
    ));
    assert_eq!(ep.submit(d.decision_id, &[]), Err(SubmitError::Empty));
    assert_eq!(ep.snapshot(), before);
    // A turn action, a weapon not offered, a wrong target: refused; the question comes back
    // with a new id, the window unchanged.
    let mut wrong_target = answer(ActionKind::AttackOfOpportunity, Some(0));
    wrong_target.target = Some(cid(&ep, "guard"));
    // A decline naming the provoker: a decline names no target (not "not the provoker").
    let mut decline_at = answer(ActionKind::Decline, None);
    decline_at.target = Some(hero);
    let r = ep
        .submit(
            d.decision_id,
            &[
                attack(hero),
                answer(ActionKind::AttackOfOpportunity, Some(7)),
                wrong_target,
                decline_at,
            ],
        )
        .unwrap();
    let reasons: Vec<Option<&str>> = r.iter().map(|x| x.code()).collect();
    assert_eq!(
        reasons,
        [
            Some("wrong_decision_kind"),
            Some("weapon_unavailable"),
            Some("invalid_target"),
            Some("invalid_target")
        ]
    );
    let why = |x: &ActionResult| match x.reason {
        Some(Reject::InvalidTarget { why, .. }) => Some(why),
        _ => None,
    };
    assert_eq!(why(&r[2]), Some(TargetIssue::NotTheProvoker));
    assert_eq!(why(&r[3]), Some(TargetIssue::DeclineTakesNone));
    let again = decision(&ep);
    assert!(again.decision_id > d.decision_id);
    assert_eq!(again.kind, d.kind);
    assert_eq!(ep.position(hero), Cell::new(1, 2));
    // The first answer counts; the rest of the list is `decision_answered`.
    let r = ep
        .submit(
            again.decision_id,
            &[
                answer(ActionKind::Decline, None),
                answer(ActionKind::AttackOfOpportunity, None),
            ],
        )
        .unwrap();
    assert!(ok(&r[0]));
    assert_eq!(r[1].code(), Some("decision_answered"));
}

#[test]
fn a_default_policy_mover_waits_for_an_external_threatener() {
    // The orc (default policy) walks past the external guard: the AoO decision arises inside
    // advance(), mid-turn of a default-policy combatant; after the answer the orc's turn
    // goes on (it reaches the hero and attacks).
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    let orc = serde_json::from_str::<serde_json::Value>(
        &std::fs::read_to_string(data.join("monsters/orc.json")).unwrap(),
    )
    .unwrap();
    // The guard's longspear (reach 10 ft, not adjacent) covers the orc's charge line to the
    // hero along row 1; the hero is the nearest enemy (a tie broken by list order). Combat
    // Reflexes: AoOs while still flat-footed in round 1.
    let spear = set(
        set(creature("guard"), "feats", json!(["Combat Reflexes"])),
        "attacks",
        json!([set(
            melee("longspear", 5, "1d8", "piercing"),
            "reach_weapon",
            json!(true)
        )]),
    );
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", creature("hero"), (1, 4)),
            unit("a", "guard", spear, (3, 5)),
            unit("b", "orc", orc, (1, 8)),
        ],
    );
    let controllers = [
        Controller::External,
        Controller::External,
        Controller::DefaultPolicy,
    ];
    let mut ep = Episode::new(enc, 3, &controllers);
    let mut asked = 0;
    for _ in 0..200 {
        match ep.advance() {
            Status::Terminal(_) => break,
            Status::Decision(d) if d.kind.is_reaction() => {
                let DecisionKind::AttackOfOpportunity { provoker, .. } = d.kind else {
                    unreachable!()
                };
                assert_eq!(provoker, cid(&ep, "orc"));
                asked += 1;
                ep.submit(d.decision_id, &[answer(ActionKind::Decline, None)])
                    .unwrap();
            }
            Status::Decision(d) => {
                ep.submit(d.decision_id, &[Action::new(ActionKind::EndTurn)])
                    .unwrap();
            }
        }
    }
    assert!(asked > 0, "{}", log(&ep));
    assert!(
        lines_with(&ep, "attack of opportunity").is_empty(),
        "every AoO declined: {}",
        log(&ep)
    );
}

/// At a reaction decision, a clone, a restored snapshot and a replay of the history all
/// continue exactly as the original.
#[test]
fn clone_snapshot_and_replay_at_a_reaction_decision() {
    let faces: Vec<u32> = vec![1, 20, 15, 2, 3, 4, 5, 6, 7, 8];
    let mut ep = guard_room(two_weapons(), &faces[2..]);
    turn_of(&mut ep, "hero");
    submit_raw(&mut ep, &[move_to(1, 6)]);
    let d = decision(&ep);
    assert!(d.kind.is_reaction());
    let copy = ep.clone();
    let restored = Episode::restore(ep.encounter().clone(), &ep.snapshot()).unwrap();
    let replayed = Episode::replay(
        ep.encounter().clone(),
        DiceSource::Scripted(ScriptedDice::new(faces.iter().copied())),
        &[Controller::External; 2],
        ep.history(),
    )
    .unwrap();
    assert_eq!(replayed.snapshot(), ep.snapshot());
    let take = answer(ActionKind::AttackOfOpportunity, Some(1));
    let mut finals = Vec::new();
    for mut e in [ep, copy, restored, replayed] {
        e.submit(d.decision_id, std::slice::from_ref(&take))
            .unwrap();
        finals.push((log(&e), e.snapshot()));
    }
    for f in &finals[1..] {
        assert_eq!(f, &finals[0]);
    }
}

/// A maneuver provokes from its target, asked of the target's controller; declined, the
/// maneuver is rolled without an AoO penalty.
#[test]
fn a_maneuver_asks_its_target() {
    let bow = set(
        creature("hero"),
        "attacks",
        json!([
            melee("longsword", 5, "1d8", "slashing"),
            ranged("bow", 0, "1d6", "piercing", 100)
        ]),
    );
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", bow, (1, 2)),
            unit("b", "guard", creature("guard"), (2, 3)),
        ],
    );
    // Trip: the AoO declined, then the CMB roll d20 = 10.
    let mut ep = episode(enc, &[1, 20, 10]);
    turn_of(&mut ep, "hero");
    let guard = cid(&ep, "guard");
    let mut trip = Action::new(ActionKind::Maneuver);
    trip.target = Some(guard);
    trip.maneuver = Some(pf1e_engine::Maneuver::Trip);
    submit_raw(&mut ep, &[trip]);
    let d = decision(&ep);
    assert!(matches!(
        d.kind,
        DecisionKind::AttackOfOpportunity {
            provocation: Provocation::Maneuver,
            ..
        }
    ));
    ep.submit(d.decision_id, &[answer(ActionKind::Decline, None)])
        .unwrap();
    assert_eq!(lines_with(&ep, "trip vs guard").len(), 1, "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

/// A snapshot of an older format (format 3: before frames and history; 4: before the start
/// dice; 5: before total defense and fighting defensively; 6: before readied actions, delay,
/// immediate actions, the movement feats, the attack list, aid another and weapons in hand;
/// 7: before spellcasting) is refused with an error that says so, never misread.
#[test]
fn an_older_snapshot_format_is_refused_clearly() {
    let mut ep = guard_room(two_weapons(), &[]);
    turn_of(&mut ep, "hero");
    submit_raw(&mut ep, &[move_to(1, 6)]);
    let text = String::from_utf8(ep.snapshot()).unwrap();
    assert!(text.starts_with("{\"format\":8,"), "{}", &text[..40]);
    for old in [3, 4, 5, 6, 7] {
        let bytes = text.replacen("{\"format\":8,", &format!("{{\"format\":{old},"), 1);
        let e = Episode::restore(ep.encounter().clone(), bytes.as_bytes()).unwrap_err();
        assert!(e.to_string().contains(&format!("format {old}")), "{e}");
    }
}
