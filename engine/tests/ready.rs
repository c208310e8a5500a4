//! Special initiative actions and immediate actions (CRB — Combat: Special Initiative
//! Actions: Delay, Ready; The Surprise Round; Actions in Combat: Immediate Actions; Feats:
//! Step Up). Scripted dice: initiative d20s in combatant list order, then every roll in the
//! order the rules make it.

mod common;

use common::*;
use pf1e_engine::actions::ReadyTrigger;
use pf1e_engine::{Action, ActionKind, CombatantId, DecisionKind, Episode};
use serde_json::{json, Value};

/// `ready` an attack (weapon 0 unless `weapon`) on `trigger`.
fn ready(trigger: ReadyTrigger, target: Option<CombatantId>) -> Action {
    Action {
        readied: Some(Box::new(Action {
            target,
            weapon: if target.is_none() { Some(0) } else { None },
            ..Action::new(ActionKind::Attack)
        })),
        trigger: Some(trigger),
        ..Action::new(ActionKind::Ready)
    }
}

fn on_entry() -> ReadyTrigger {
    ReadyTrigger::EnemyEntersReach { by: None }
}

fn fire() -> Action {
    Action::new(ActionKind::FireReadied)
}

fn decline() -> Action {
    Action::new(ActionKind::Decline)
}

fn delay(after: Option<CombatantId>) -> Action {
    Action {
        target: after,
        ..Action::new(ActionKind::Delay)
    }
}

fn code(r: &pf1e_engine::ActionResult) -> Option<&'static str> {
    r.code()
}

/// Advance to the next decision (panics at the end).
fn next(ep: &mut Episode) -> pf1e_engine::Decision {
    match ep.advance() {
        pf1e_engine::Status::Decision(d) => d,
        s => panic!("{s:?}\n{}", log(ep)),
    }
}

/// A 3 × 10 room: `hero` (side a) at (2,2), `guard` (side b) at `guard_at`; initiative faces
/// `init` in list order (hero, guard), then `faces`.
fn yard(hero: Value, guard: Value, guard_at: (i32, i32), init: [u32; 2], faces: &[u32]) -> Episode {
    let enc = encounter(
        &room(3, 10),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "guard", guard, guard_at),
        ],
    );
    let mut all = init.to_vec();
    all.extend_from_slice(faces);
    episode(enc, &all)
}

#[test]
fn crb_ready_an_external_readier_fires_on_the_trigger_decision_and_interrupts_a_charge() {
    // The guard acts first (initiative 20 vs 1). Round 1: the guard waits; the hero readies
    // an attack on an enemy entering its reach. Round 2: the guard charges; entering (2,3)
    // — a square the hero threatens — is the trigger: the hero's decision, fire: its attack
    // (d20 15 + 5 = 20 vs AC 10, 1d8 = 8) resolves before the charge attack (d20 10 + 5 + 2).
    let mut ep = yard(
        creature("hero"),
        creature("guard"),
        (2, 8),
        [1, 20],
        &[15, 8, 10, 5],
    );
    let (h, g) = (cid(&ep, "hero"), cid(&ep, "guard"));
    turn_of(&mut ep, "guard");
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    let r = submit(&mut ep, &[ready(on_entry(), None)]);
    assert!(r[0].ok);
    assert_eq!(code(&r[0]), Some("ready"), "{r:?}");
    let o = ep.observation(None);
    let readied = o.combatants[h.0 as usize]
        .readied
        .as_ref()
        .expect("readied");
    assert_eq!(readied.trigger, on_entry());
    assert!(obs_json(&ep).contains("\"readied\":{"), "{}", obs_json(&ep));
    // A standard action: no attack after it, a move still may.
    let r = submit(&mut ep, &[attack(g)]);
    assert_eq!(code(&r[0]), Some("downgraded:action_economy"));
    end_turn(&mut ep);
    turn_of(&mut ep, "guard");
    ep.submit(decision(&ep).decision_id, &[charge(h)]).unwrap();
    let d = decision(&ep);
    assert_eq!(d.actor, h);
    let DecisionKind::ReadiedTrigger {
        trigger_by,
        trigger,
        readied,
    } = &d.kind
    else {
        panic!("{d:?}");
    };
    assert_eq!((*trigger_by, *trigger), (g, on_entry()));
    assert_eq!(readied.target, Some(g));
    assert_eq!(ep.position(g), pf1e_engine::Cell::new(2, 3));
    let legal: Vec<ActionKind> = ep.legal_actions().iter().map(|l| l.action.kind).collect();
    assert_eq!(legal, vec![ActionKind::Decline, ActionKind::FireReadied]);
    let mask = ep.action_mask();
    assert_eq!(mask.iter().filter(|&&m| m == 1).count(), 2);
    ep.submit(d.decision_id, &[fire()]).unwrap();
    let text = log(&ep);
    let fired = text.find("readied action fires").expect(&text);
    let hero_hit = text.find("longsword vs guard d20=15+5=20").expect(&text);
    let charge_attack = text.find("longsword vs hero d20=10").expect(&text);
    assert!(fired < hero_hit && hero_hit < charge_attack, "{text}");
    assert_eq!(ep.hp(g), 22);
    assert!(ep.observation(None).combatants[h.0 as usize]
        .readied
        .is_none());
    // S4b: the hero now acts just ahead of the guard, in later rounds too; it has no second
    // turn in round 2 (its readied action was it).
    assert_eq!(ep.initiative_order(), &[h, g]);
    let d = next(&mut ep);
    assert_eq!((d.actor, d.round), (h, 3), "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_ready_held_at_the_trigger_and_lapsing_at_the_readiers_next_turn() {
    // L4: "If you come to your next action and have not yet performed your readied action,
    // you don't get to take the readied action." The hero holds at the trigger; the guard's
    // charge attack follows (d20 1: a miss); at the hero's next turn the readied action is gone.
    let mut ep = yard(creature("hero"), creature("guard"), (2, 8), [1, 20], &[1]);
    let (h, g) = (cid(&ep, "hero"), cid(&ep, "guard"));
    turn_of(&mut ep, "guard");
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    submit(&mut ep, &[ready(on_entry(), None)]);
    end_turn(&mut ep);
    turn_of(&mut ep, "guard");
    ep.submit(decision(&ep).decision_id, &[charge(h)]).unwrap();
    let d = decision(&ep);
    assert!(matches!(d.kind, DecisionKind::ReadiedTrigger { .. }));
    ep.submit(d.decision_id, &[decline()]).unwrap();
    take_reactions(&mut ep);
    assert!(
        log(&ep).contains("holds its readied action"),
        "{}",
        log(&ep)
    );
    assert!(ep.observation(None).combatants[h.0 as usize]
        .readied
        .is_some());
    turn_of(&mut ep, "hero");
    assert!(ep.observation(None).combatants[h.0 as usize]
        .readied
        .is_none());
    assert!(
        log(&ep).contains("ready expired (trigger never occurred)"),
        "{}",
        log(&ep)
    );
    // The order did not change.
    assert_eq!(ep.initiative_order(), &[g, h]);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_ready_on_an_enemy_attack_resolves_before_the_attack_roll() {
    // "The action occurs before the action that triggers it": the readied attack (d20 15,
    // 1d8 8) drops the 5-hp guard before its own attack roll is made (no die left for it).
    let guard = set(creature("guard"), "hp_max", json!(5));
    let mut ep = yard(creature("hero"), guard, (2, 3), [20, 1], &[15, 8]);
    let (h, g) = (cid(&ep, "hero"), cid(&ep, "guard"));
    turn_of(&mut ep, "hero");
    submit(
        &mut ep,
        &[ready(ReadyTrigger::EnemyAttacks { by: None }, None)],
    );
    end_turn(&mut ep);
    turn_of(&mut ep, "guard");
    ep.submit(decision(&ep).decision_id, &[attack(h)]).unwrap();
    let d = decision(&ep);
    assert!(
        matches!(&d.kind, DecisionKind::ReadiedTrigger { trigger_by, .. } if *trigger_by == g),
        "{d:?}"
    );
    ep.submit(d.decision_id, &[fire()]).unwrap();
    ep.advance();
    assert!(!ep.life_state(g).is_conscious(), "{}", log(&ep));
    assert!(!log(&ep).contains("longsword vs hero"), "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_ready_on_an_allys_signal_fires_before_the_allys_action() {
    // The ally readies an attack on the guard "when the hero acts"; the hero's attack is the
    // signal: the ally's readied attack (d20 12, 1d8 3) resolves first, then the hero's
    // (d20 11, 1d8 4).
    let enc = encounter(
        &room(3, 10),
        vec![
            unit("a", "ally", creature("ally"), (1, 3)),
            unit("a", "hero", creature("hero"), (2, 2)),
            unit("b", "guard", creature("guard"), (2, 3)),
        ],
    );
    let mut ep = episode(enc, &[20, 10, 1, 12, 3, 11, 4]);
    let (h, g) = (cid(&ep, "hero"), cid(&ep, "guard"));
    turn_of(&mut ep, "ally");
    let r = submit(
        &mut ep,
        &[ready(ReadyTrigger::AllyActs { by: Some(h) }, Some(g))],
    );
    assert!(r[0].ok, "{r:?}");
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    let rs = submit(&mut ep, &[attack(g)]);
    assert_eq!(rs.len(), 1);
    assert!(rs[0].ok, "{rs:?}");
    let text = log(&ep);
    let ally = text.find("ally: longsword vs guard d20=12").expect(&text);
    let hero = text.find("hero: longsword vs guard d20=11").expect(&text);
    assert!(ally < hero, "{text}");
    assert_eq!(ep.hp(g), 30 - 3 - 4);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn ready_refuses_malformed_readied_actions_with_the_reason() {
    let mut ep = yard(creature("hero"), creature("guard"), (2, 8), [20, 1], &[]);
    let g = cid(&ep, "guard");
    turn_of(&mut ep, "hero");
    let cases: Vec<(Action, &str)> = vec![
        (Action::new(ActionKind::Ready), "no readied action"),
        (
            Action {
                trigger: None,
                ..ready(on_entry(), None)
            },
            "no trigger",
        ),
        (
            Action {
                readied: Some(Box::new(Action {
                    target: Some(g),
                    ..Action::new(ActionKind::Charge)
                })),
                ..ready(on_entry(), None)
            },
            "only attack",
        ),
        (
            ready(ReadyTrigger::AllyActs { by: Some(g) }, Some(g)),
            "wrong side",
        ),
        (
            ready(ReadyTrigger::EnemyWithin { ft: 7, by: None }, None),
            "5 to 120 ft",
        ),
        (
            ready(ReadyTrigger::AllyActs { by: None }, None),
            "target or destination",
        ),
    ];
    for (a, why) in cases {
        let r = ep.validate(&a).unwrap();
        assert!(!r.ok, "{a:?}");
        assert_eq!(code(&r), Some("invalid_ready"), "{a:?}");
        let detail = r.reason.unwrap().detail();
        assert!(detail.contains(why), "{a:?}: {detail}");
    }
}

#[test]
fn crb_delay_acts_after_the_named_combatant_keeps_the_place_and_replays_no_start_of_turn() {
    // The bleeding hero (1 hp at the start of each of its turns) delays until after the
    // guard: the guard acts, then the hero's turn comes back without bleeding again; next
    // round the order is guard, hero.
    let hero = set(
        creature("hero"),
        "conditions",
        json!([{ "name": "bleeding" }]),
    );
    let mut ep = yard(hero, creature("guard"), (2, 8), [20, 1], &[]);
    let (h, g) = (cid(&ep, "hero"), cid(&ep, "guard"));
    turn_of(&mut ep, "hero");
    assert_eq!(ep.hp(h), 29);
    // Nobody acts after the guard: delay past it only.
    let r = submit(&mut ep, &[delay(Some(g))]);
    assert!(r[0].ok);
    assert_eq!(code(&r[0]), Some("delayed"), "{r:?}");
    let d = next(&mut ep);
    assert_eq!(d.actor, g, "{}", log(&ep));
    assert!(ep.observation(None).combatants[h.0 as usize].delayed);
    end_turn(&mut ep);
    let d = next(&mut ep);
    assert_eq!((d.actor, d.round), (h, 1), "{}", log(&ep));
    assert_eq!(ep.hp(h), 29, "no second bleed");
    assert!(log(&ep).contains("acts after delaying"), "{}", log(&ep));
    assert!(!ep.observation(None).combatants[h.0 as usize].delayed);
    // A second delay this round: already_delayed (even with someone to delay past).
    let r = ep.validate(&delay(None)).unwrap();
    assert_eq!(code(&r), Some("already_delayed"));
    end_turn(&mut ep);
    assert_eq!(ep.initiative_order(), &[g, h]);
    let d = next(&mut ep);
    assert_eq!((d.actor, d.round), (g, 2));
}

#[test]
fn delay_is_only_before_acting_and_only_past_a_later_combatant() {
    let mut ep = yard(creature("hero"), creature("guard"), (2, 8), [20, 1], &[]);
    let (h, g) = (cid(&ep, "hero"), cid(&ep, "guard"));
    turn_of(&mut ep, "hero");
    assert_eq!(
        code(&ep.validate(&delay(Some(h))).unwrap()),
        Some("invalid_target")
    );
    assert!(ep.validate(&delay(None)).unwrap().ok);
    assert!(ep.validate(&delay(Some(g))).unwrap().ok);
    submit(&mut ep, &[move_to(2, 4)]);
    assert_eq!(
        code(&ep.validate(&delay(None)).unwrap()),
        Some("already_acted")
    );
    end_turn(&mut ep);
    turn_of(&mut ep, "guard");
    // The guard acts last: nobody to delay past (the hero already acted this round).
    assert_eq!(
        code(&ep.validate(&delay(None)).unwrap()),
        Some("invalid_delay")
    );
    assert_eq!(
        code(&ep.validate(&delay(Some(h))).unwrap()),
        Some("invalid_delay")
    );
}

#[test]
fn crb_surprise_round_the_aware_take_one_action_the_unaware_none_and_stay_flat_footed() {
    // The guard is unaware: round 0 is a surprise round. The hero (aware) takes one standard
    // or move action: its attack hits the flat-footed guard (the guard never acted); a second
    // action, a full attack or a charge is `downgraded:surprise`. The guard does not act in
    // round 0; round 1 is a normal round.
    let guard = set(creature("guard"), "aware", json!(false));
    let mut ep = yard(creature("hero"), guard, (2, 3), [20, 1], &[12, 5]);
    let (h, g) = (cid(&ep, "hero"), cid(&ep, "guard"));
    turn_of(&mut ep, "hero");
    let d = decision(&ep);
    assert_eq!(d.round, 0);
    let o = ep.observation(None);
    assert!(o.surprise_round);
    assert!(!o.combatants[g.0 as usize].aware);
    assert!(o.combatants[g.0 as usize]
        .conditions
        .contains_key("flat_footed"));
    assert!(!d.budget.full_round && !d.budget.swift);
    assert_eq!(
        code(&ep.validate(&full_attack(g)).unwrap()),
        Some("downgraded:surprise")
    );
    let r = submit(&mut ep, &[attack(g), move_to(2, 1)]);
    assert!(r[0].ok);
    assert_eq!(code(&r[1]), Some("downgraded:surprise"), "{r:?}");
    assert_eq!(ep.hp(g), 25);
    end_turn(&mut ep);
    let d = next(&mut ep);
    assert!(
        log(&ep).contains("guard: unaware: no action in the surprise round"),
        "{}",
        log(&ep)
    );
    assert_eq!((d.actor, d.round), (h, 1));
    assert!(d.budget.full_round);
    assert!(!ep.observation(None).surprise_round);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn no_surprise_round_when_everyone_is_aware() {
    let mut ep = yard(creature("hero"), creature("guard"), (2, 8), [20, 1], &[]);
    turn_of(&mut ep, "hero");
    assert_eq!(decision(&ep).round, 1);
    assert!(!log(&ep).contains("surprise round"));
}

#[test]
fn crb_step_up_an_immediate_action_follows_a_5_foot_step_and_costs_the_next_swift_and_step() {
    // The guard (Step Up) acted first, so it is not flat-footed. The hero steps away from
    // (2,2) to (2,1); the guard is offered Step Up: the squares 5 ft away that stay adjacent
    // to the hero. It follows; its immediate action is used: at its next turn no swift
    // action, no 5-foot step, 5 ft less speed (CRB — Feats: Step Up; Immediate Actions).
    let guard = set(creature("guard"), "feats", json!(["Step Up"]));
    let mut ep = yard(creature("hero"), guard, (2, 3), [1, 20], &[]);
    let (h, g) = (cid(&ep, "hero"), cid(&ep, "guard"));
    turn_of(&mut ep, "guard");
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    ep.submit(decision(&ep).decision_id, &[step(2, 1)]).unwrap();
    let d = decision(&ep);
    assert_eq!(d.actor, g);
    let DecisionKind::StepUp { foe, squares } = &d.kind else {
        panic!("{d:?}");
    };
    assert_eq!(*foe, h);
    assert_eq!(
        squares,
        &vec![
            pf1e_engine::Cell::new(1, 2),
            pf1e_engine::Cell::new(2, 2),
            pf1e_engine::Cell::new(3, 2)
        ]
    );
    // An unoffered square is refused.
    let r = ep.submit(d.decision_id, &[step(2, 4)]).unwrap();
    assert_eq!(code(&r[0]), Some("invalid_destination"));
    let d = decision(&ep);
    ep.submit(d.decision_id, &[step(2, 2)]).unwrap();
    assert_eq!(ep.position(g), pf1e_engine::Cell::new(2, 2));
    assert!(ep.observation(Some(g)).combatants[g.0 as usize].immediate_used);
    end_turn(&mut ep);
    turn_of(&mut ep, "guard");
    let d = decision(&ep);
    assert!(
        !d.budget.swift && !d.budget.five_foot_step,
        "{:?}",
        d.budget
    );
    assert_eq!(
        ep.observation(None).combatants[g.0 as usize].speed_effective_ft,
        25
    );
    assert!(!ep.observation(None).combatants[g.0 as usize].immediate_used);
}

#[test]
fn crb_immediate_actions_none_while_flat_footed() {
    // L5: "You also cannot use an immediate action if you are flat-footed": the guard has
    // not acted yet (flat-footed), so the hero's step away offers no Step Up.
    let guard = set(creature("guard"), "feats", json!(["Step Up"]));
    let mut ep = yard(creature("hero"), guard, (2, 3), [20, 1], &[]);
    turn_of(&mut ep, "hero");
    let r = submit(&mut ep, &[step(2, 1)]);
    assert!(r[0].ok);
    let d = decision(&ep);
    assert_eq!(d.kind, DecisionKind::TurnAction, "{d:?}");
    assert!(!log(&ep).contains("step up"), "{}", log(&ep));
}

#[test]
fn readied_state_survives_a_snapshot_and_restore() {
    let mut ep = yard(creature("hero"), creature("guard"), (2, 8), [1, 20], &[]);
    let h = cid(&ep, "hero");
    turn_of(&mut ep, "guard");
    end_turn(&mut ep);
    turn_of(&mut ep, "hero");
    submit(&mut ep, &[ready(on_entry(), None)]);
    let snap = ep.snapshot();
    let back = Episode::restore(ep.encounter().clone(), &snap).unwrap();
    assert_eq!(
        back.observation(None).combatants[h.0 as usize].readied,
        ep.observation(None).combatants[h.0 as usize].readied
    );
}

#[test]
fn crb_ready_a_readied_5_foot_step_away_from_a_charger_makes_it_lose_its_attack() {
    // Break-it finding: the charge attack followed the hero out of reach. The hero readies a
    // 5-foot step to (1,1) on an enemy entering its reach; the guard's charge ends at (2,3)
    // next to (2,2), the hero steps away: the charge attack is lost (no die rolled for it).
    let mut ep = yard(creature("hero"), creature("guard"), (2, 8), [20, 1], &[]);
    let (h, g) = (cid(&ep, "hero"), cid(&ep, "guard"));
    turn_of(&mut ep, "hero");
    let step_away = Action {
        readied: Some(Box::new(step(1, 1))),
        trigger: Some(on_entry()),
        ..Action::new(ActionKind::Ready)
    };
    assert!(submit(&mut ep, &[step_away])[0].ok);
    end_turn(&mut ep);
    turn_of(&mut ep, "guard");
    ep.submit(decision(&ep).decision_id, &[charge(h)]).unwrap();
    let d = decision(&ep);
    assert!(
        matches!(d.kind, DecisionKind::ReadiedTrigger { .. }),
        "{d:?}"
    );
    ep.submit(d.decision_id, &[fire()]).unwrap();
    ep.advance();
    assert_eq!(ep.position(h), pf1e_engine::Cell::new(1, 1));
    assert_eq!(ep.position(g), pf1e_engine::Cell::new(2, 3));
    assert!(
        log(&ep).contains("charge attack lost (hero out of reach)"),
        "{}",
        log(&ep)
    );
    assert!(!log(&ep).contains("longsword vs hero"), "{}", log(&ep));
    assert_eq!(ep.hp(h), 30);
    assert_eq!(dice_left(&ep), 0);
}
