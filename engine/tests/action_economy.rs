//! Action economy (CRB — Combat: Actions in Combat; the seed's X4 greedy downgrade), the
//! discrete action space, and the "a rejected action changes nothing" guarantee.

mod common;

use common::*;
use pf1e_engine::{Action, ActionKind, Cell, Controller, Episode, Status};
use serde_json::json;

fn reason(r: &pf1e_engine::ActionResult) -> Option<&str> {
    assert!(!r.ok, "expected a rejection, got {r:?}");
    r.code()
}

const DOWN: Option<&str> = Some("downgraded:action_economy");

/// Hero at `hero_at` and dummy at `dummy_at` in a 3 × 12 room; the hero acts first; `more`
/// faces after initiative.
fn setup(hero_at: (i32, i32), dummy_at: (i32, i32), more: &[u32]) -> Episode {
    let enc = encounter(
        &room(3, 12),
        vec![
            unit("a", "hero", creature("hero"), hero_at),
            unit("b", "dummy", creature("dummy"), dummy_at),
        ],
    );
    let mut faces = vec![20, 1];
    faces.extend_from_slice(more);
    let mut ep = episode(enc, &faces);
    turn_of(&mut ep, "hero");
    ep
}

// ----- CRB — Actions in Combat: standard + move, or one full-round action -------------------

#[test]
fn x4_attack_attack_keeps_the_first() {
    let mut ep = setup((2, 2), (2, 3), &[2]);
    let d = cid(&ep, "dummy");
    let r = submit(&mut ep, &[attack(d), attack(d)]);
    assert!(ok(&r[0]));
    assert_eq!(reason(&r[1]), DOWN);
    assert_eq!(lines_with(&ep, "longsword vs dummy").len(), 1);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn x4_move_may_replace_the_standard_action() {
    let mut ep = setup((2, 1), (2, 12), &[]);
    let d = cid(&ep, "dummy");
    let r = submit(
        &mut ep,
        &[move_to(2, 3), move_to(2, 5), attack(d), move_to(2, 6)],
    );
    assert!(ok(&r[0]) && ok(&r[1]));
    assert_eq!(reason(&r[2]), DOWN);
    assert_eq!(reason(&r[3]), DOWN);
    assert_eq!(ep.position(cid(&ep, "hero")), pf1e_engine::Cell::new(2, 5));
}

#[test]
fn x4_attack_full_attack_move_downgrades_the_full_attack() {
    let mut ep = setup((2, 2), (2, 3), &[2]);
    let d = cid(&ep, "dummy");
    let r = submit(&mut ep, &[attack(d), full_attack(d), move_to(1, 1)]);
    assert!(ok(&r[0]));
    assert_eq!(reason(&r[1]), DOWN);
    assert!(ok(&r[2]));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn x4_move_attack_move_downgrades_the_second_move() {
    let mut ep = setup((2, 1), (2, 5), &[2]);
    let d = cid(&ep, "dummy");
    let r = submit(&mut ep, &[move_to(2, 4), attack(d), move_to(1, 1)]);
    assert!(ok(&r[0]) && ok(&r[1]));
    assert_eq!(reason(&r[2]), DOWN);
    assert_eq!(ep.position(cid(&ep, "hero")), pf1e_engine::Cell::new(2, 4));
}

#[test]
fn x4_charge_attack_downgrades_the_attack() {
    let mut ep = setup((2, 1), (2, 6), &[2]);
    let d = cid(&ep, "dummy");
    let r = submit(&mut ep, &[charge(d), attack(d)]);
    assert!(ok(&r[0]));
    assert_eq!(reason(&r[1]), DOWN);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn x4_move_then_full_round_actions_downgraded() {
    let mut ep = setup((2, 1), (2, 5), &[]);
    let d = cid(&ep, "dummy");
    let r = submit(
        &mut ep,
        &[move_to(2, 4), full_attack(d), charge(d), withdraw(1, 1)],
    );
    assert!(ok(&r[0]));
    for x in &r[1..] {
        assert_eq!(reason(x), DOWN, "{x:?}");
    }
}

#[test]
fn crb_five_foot_step_after_full_attack() {
    // BAB 1: a single swing (roll 2, miss), then a 5-foot step, both accepted.
    let mut ep = setup((2, 2), (2, 3), &[2]);
    let d = cid(&ep, "dummy");
    let r = submit(&mut ep, &[full_attack(d), step(2, 1)]);
    assert_all_ok(&r);
    assert_eq!(ep.position(cid(&ep, "hero")), pf1e_engine::Cell::new(2, 1));
}

#[test]
fn every_action_gets_a_result_and_actions_after_end_turn_are_turn_ended() {
    let mut ep = setup((2, 2), (2, 3), &[]);
    let d = cid(&ep, "dummy");
    let r = submit(
        &mut ep,
        &[Action::new(ActionKind::EndTurn), attack(d), move_to(1, 1)],
    );
    assert_eq!(r.len(), 3);
    assert!(ok(&r[0]));
    assert_eq!(reason(&r[1]), Some("turn_ended"));
    assert_eq!(reason(&r[2]), Some("turn_ended"));
    assert_eq!(r[1].kind, ActionKind::Attack);
    // Every result of the turn, `turn_ended` ones included, is visible in the next observation
    // (seed: excess actions are reported in `last_turn_results`).
    turn_of(&mut ep, "dummy");
    let obs = ep.observation(None);
    assert_eq!(observed(&obs.combatants[0].last_turn_results), codes(&r));
}

#[test]
fn x4_downgrades_are_visible_in_last_turn_results() {
    let mut ep = setup((2, 2), (2, 3), &[2]);
    let d = cid(&ep, "dummy");
    let r = submit(
        &mut ep,
        &[attack(d), attack(d), Action::new(ActionKind::EndTurn)],
    );
    assert_eq!(reason(&r[1]), DOWN);
    turn_of(&mut ep, "dummy");
    assert_eq!(
        observed(&ep.observation(None).combatants[0].last_turn_results),
        codes(&r)
    );
}

#[test]
fn submit_errors_apply_nothing() {
    let mut ep = setup((2, 2), (2, 3), &[]);
    let d = decision(&ep);
    assert!(ep.submit(d.decision_id, &[]).is_err());
    // A stale decision id is refused too, and changes nothing.
    let before = ep.snapshot();
    assert!(matches!(
        ep.submit(d.decision_id + 1, &[Action::new(ActionKind::EndTurn)]),
        Err(pf1e_engine::episode::SubmitError::StaleDecision { .. })
    ));
    assert_eq!(ep.snapshot(), before);
    assert!(ep.decision().is_some());
}

// ----- A rejected action changes nothing ------------------------------------------------------

#[test]
fn rejected_actions_change_nothing() {
    let enc = encounter(
        &room(3, 12),
        vec![
            unit("a", "hero", creature("hero"), (2, 2)),
            unit("a", "ally", creature("ally"), (3, 2)),
            unit("b", "dummy", creature("dummy"), (2, 3)),
            unit("b", "far", creature("far"), (2, 12)),
        ],
    );
    let mut ep = episode(enc, &[20, 1, 1, 1, 7, 7, 7]);
    turn_of(&mut ep, "hero");
    let ally = cid(&ep, "ally");
    let hero = cid(&ep, "hero");
    let far = cid(&ep, "far");
    let d = cid(&ep, "dummy");
    let bad = vec![
        attack(far),                          // out of range
        attack(ally),                         // not an enemy
        attack(hero),                         // self
        attack(pf1e_engine::CombatantId(99)), // no such combatant
        attack_with(d, 5),                    // no such weapon
        Action::new(ActionKind::Attack),      // no target
        charge(d),                            // adjacent: no charge path
        move_to(0, 0),                        // a wall
        move_to(2, 3),                        // an enemy's square
        move_to(3, 2),                        // an ally's square
        step(2, 4),                           // two squares away
        withdraw(2, 2),                       // own square
    ];
    for a in bad {
        let before = obs_json(&ep);
        let dice = serde_json::to_string(ep.dice_source()).unwrap();
        let budget = ep.decision().unwrap().budget;
        let r = submit(&mut ep, std::slice::from_ref(&a));
        assert!(!r[0].ok, "{a:?} accepted");
        assert!(r[0].reason.is_some());
        assert_eq!(obs_json(&ep), before, "{a:?} changed the observation");
        assert_eq!(
            serde_json::to_string(ep.dice_source()).unwrap(),
            dice,
            "{a:?} rolled dice"
        );
        assert_eq!(ep.decision().unwrap().budget, budget);
        assert_eq!(ep.decision().unwrap().actor, hero);
    }
    assert_eq!(dice_left(&ep), 3);
    assert!(ep.transcript().iter().all(|l| l.actor.is_none()));
}

// ----- The discrete action space --------------------------------------------------------------

fn mixed_encounter() -> std::sync::Arc<pf1e_engine::Encounter> {
    let archer = set(
        creature("archer"),
        "attacks",
        json!([
            ranged("bow", 4, "1d6", "piercing", 60),
            melee("dagger", 1, "1d4", "piercing")
        ]),
    );
    let wolf = set(
        creature("wolf"),
        "attacks",
        json!([{
            "name": "bite", "kind": "melee", "attack_bonus": 2, "natural": true,
            "damage": [{ "formula": "1d6+1", "types": ["piercing"] }]
        }]),
    );
    let terrain: Vec<String> = [
        "##########",
        "#....T...#",
        "#..#.T...#",
        "#....T...#",
        "#........#",
        "##########",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    encounter(
        &terrain,
        vec![
            unit("a", "hero", set(creature("hero"), "bab", json!(6)), (1, 1)),
            unit("a", "archer", archer, (4, 1)),
            unit("b", "wolf", wolf, (1, 8)),
            unit("b", "orc", creature("orc"), (4, 8)),
        ],
    )
}

#[test]
fn action_ids_decode_encode_round_trip() {
    let enc = mixed_encounter();
    let mut ep = Episode::new(enc, 7, &[Controller::External; 4]);
    let Status::Decision(_) = ep.advance() else {
        panic!("no decision")
    };
    let size = ep.action_space_size();
    for id in 0..size {
        let a = ep
            .action_from_id(id)
            .unwrap_or_else(|| panic!("id {id} does not decode"));
        assert_eq!(ep.action_id(&a), Some(id), "{a:?}");
    }
    assert_eq!(ep.action_from_id(size), None);
}

#[test]
fn action_id_only_for_an_action_its_id_decodes_to_and_never_overflows() {
    // `Episode::action_id` (`ActionSpace::encode`): an action gets an id only if that id
    // decodes back to it, and no input makes it panic (checked arithmetic, no `as`
    // truncation). Hero at (2,2), dummy at (2,3); the hero's first decision.
    let ep = setup((2, 2), (2, 3), &[]);
    let d = cid(&ep, "dummy");
    let mut checked = 0;
    let mut no_id = |a: Action| {
        let id = ep.action_id(&a);
        assert_eq!(
            id,
            None,
            "{a:?} has id {id:?} → {:?}",
            id.and_then(|i| ep.action_from_id(i))
        );
        checked += 1;
    };
    // `end_turn` with parameters: id 0 is the bare `end_turn`.
    no_id(Action {
        target: Some(d),
        ..Action::new(ActionKind::EndTurn)
    });
    no_id(Action {
        weapon: Some(0),
        ..Action::new(ActionKind::EndTurn)
    });
    no_id(Action {
        destination: Some(Cell::new(1, 1)),
        ..Action::new(ActionKind::EndTurn)
    });
    // Weapon indices past `u32`: never the id of weapon `w mod 2^32`, never an overflow.
    for w in [
        u32::MAX as usize + 1,
        usize::MAX - 1,
        usize::MAX,
        u32::MAX as usize,
    ] {
        for kind in [ActionKind::Attack, ActionKind::FullAttack] {
            no_id(Action {
                target: Some(d),
                weapon: Some(w),
                ..Action::new(kind)
            });
        }
        for kind in [
            ActionKind::RetrieveWeapon,
            ActionKind::RepairWeapon,
            ActionKind::AttackOfOpportunity,
        ] {
            no_id(Action {
                weapon: Some(w),
                ..Action::new(kind)
            });
        }
    }
    // 5-foot steps (relative to the actor) and squares at extreme coordinates.
    let extreme = [
        Cell::new(i32::MAX - 1, i32::MIN),
        Cell::new(i32::MIN, i32::MAX),
        Cell::new(i32::MAX, i32::MAX),
        Cell::new(i32::MIN, i32::MIN),
    ];
    for c in extreme {
        for kind in [
            ActionKind::FiveFootStep,
            ActionKind::Move,
            ActionKind::Withdraw,
            ActionKind::Run,
        ] {
            no_id(Action {
                destination: Some(c),
                ..Action::new(kind)
            });
        }
    }
    assert_eq!(checked, 3 + 4 * 5 + 4 * 4);
    // Control: the bare actions keep their ids.
    assert_eq!(ep.action_id(&Action::new(ActionKind::EndTurn)), Some(0));
    let a = attack_with(d, 0);
    let id = ep.action_id(&a).expect("an id");
    assert_eq!(ep.action_from_id(id), Some(a));
    let s = step(1, 1);
    let id = ep.action_id(&s).expect("an id");
    assert_eq!(ep.action_from_id(id), Some(s));
}

#[test]
fn legal_actions_never_empty_round_trip_and_are_accepted() {
    // A seeded fight where every combatant is external: at every decision, the legal actions
    // start with end_turn (id 0), every id decodes to its action and back, and every legal
    // action is accepted (checked on a clone). The episode then plays a deterministic choice.
    for seed in 0..6u64 {
        let mut ep = Episode::new(mixed_encounter(), seed, &[Controller::External; 4]);
        let mut k = 0usize;
        loop {
            let d = match ep.advance() {
                Status::Terminal(_) => break,
                Status::Decision(d) => d,
            };
            k += 1;
            assert!(k < 2000, "seed {seed}: no end");
            let legal = ep.legal_actions();
            assert!(!legal.is_empty());
            if d.kind.is_reaction() {
                assert!(legal.iter().any(|l| l.action.kind == ActionKind::Decline));
            } else {
                assert_eq!(legal[0].id, 0);
                assert_eq!(legal[0].action.kind, ActionKind::EndTurn);
            }
            for la in &legal {
                assert_eq!(ep.action_from_id(la.id).as_ref(), Some(&la.action));
                assert_eq!(ep.action_id(&la.action), Some(la.id));
                let mut probe = ep.clone();
                let r = probe
                    .submit(d.decision_id, std::slice::from_ref(&la.action))
                    .unwrap();
                assert!(
                    r[0].ok,
                    "seed {seed}: legal action {} rejected: {:?}",
                    la.label, r[0]
                );
            }
            // Prefer attacks, then moves toward a target, else a spread of the rest.
            let pick = legal
                .iter()
                .find(|l| l.action.kind == ActionKind::FullAttack)
                .or_else(|| legal.iter().find(|l| l.action.kind == ActionKind::Attack))
                .or_else(|| {
                    legal
                        .iter()
                        .find(|l| l.action.kind == ActionKind::Move && l.action.target.is_some())
                })
                .unwrap_or(&legal[(k * 7) % legal.len()]);
            let r = ep
                .submit(d.decision_id, std::slice::from_ref(&pick.action))
                .unwrap();
            assert!(r[0].ok, "{r:?}");
        }
    }
}

#[test]
fn action_mask_is_exactly_the_set_of_valid_action_ids() {
    // Completeness as well as soundness: at every decision of seeded fights, every id of the
    // action space is legal in the mask if and only if `validate` accepts its action. This pins
    // the shortcuts of the legal-action enumeration (the movement-field memo, the bulk run
    // destinations) to the rules the engine applies to a submitted action.
    mask_matches_validate(&mixed_encounter(), 0..4);
}

/// Plays seeded fights (every combatant external, pseudo-random legal actions) and asserts at
/// every decision that the mask is exactly the set of ids `validate` accepts. Returns how
/// many legal runs it saw.
fn mask_matches_validate(
    enc: &std::sync::Arc<pf1e_engine::Encounter>,
    seeds: std::ops::Range<u64>,
) -> usize {
    let mut runs = 0;
    for seed in seeds {
        let n = enc.combatants.len();
        let mut ep = Episode::new(enc.clone(), seed, &vec![Controller::External; n]);
        for k in 0.. {
            let Status::Decision(d) = ep.advance() else {
                break;
            };
            assert!(k < 2000, "seed {seed}: no end");
            let mask = ep.action_mask();
            assert!(
                mask.contains(&1),
                "seed {seed}, decision {k}: empty mask at {d:?}"
            );
            for (id, &m) in mask.iter().enumerate() {
                let a = ep.action_from_id(id as u32).unwrap();
                let valid = ep.validate(&a).unwrap().ok;
                assert_eq!(
                    m == 1,
                    valid,
                    "seed {seed}, decision {k}: id {id} ({a:?}) mask {m} but validate {valid}"
                );
                runs += usize::from(valid && a.kind == ActionKind::Run);
            }
            let legal: Vec<u32> = (0..mask.len() as u32)
                .filter(|&i| mask[i as usize] == 1)
                .collect();
            let a = ep.action_from_id(legal[(k * 7 + 3) % legal.len()]).unwrap();
            assert!(ep.submit(d.decision_id, &[a]).unwrap()[0].ok);
        }
    }
    runs
}

/// A turn goes on while an action besides `end_turn` is legal, even when every square the
/// mover could reach costs 2 (CRB — Combat: Difficult Terrain; no 5-foot step into it): after
/// its standard action the hero, hemmed in by difficult terrain, still gets its move action.
/// (The "anything left?" probe once searched only squares 1 square away and ended the turn.)
#[test]
fn a_move_action_costing_two_squares_keeps_the_turn_going() {
    let terrain: Vec<String> = ["######", "#..TT#", "#TTTT#", "######"]
        .map(String::from)
        .to_vec();
    let enc = encounter(
        &terrain,
        vec![
            unit("a", "hero", creature("hero"), (1, 1)),
            unit("b", "dummy", creature("dummy"), (1, 2)),
        ],
    );
    // Initiative 20 / 1; the attack rolls a natural 1 (a miss, no damage roll).
    let mut ep = episode(enc, &[20, 1, 1]);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    assert_all_ok(&submit(&mut ep, &[attack(d)]));
    match ep.advance() {
        Status::Decision(dec) => {
            assert_eq!(dec.actor, cid(&ep, "hero"));
            assert!(
                dec.budget.move_action && !dec.budget.standard,
                "{:?}",
                dec.budget
            );
        }
        other => panic!("the hero's turn ended: {other:?}"),
    }
    let legal = ep.legal_actions();
    assert!(
        legal
            .iter()
            .any(|l| l.action.kind == ActionKind::Move && l.action.destination.is_some()),
        "{legal:?}"
    );
    assert!(!legal
        .iter()
        .any(|l| l.action.kind == ActionKind::FiveFootStep));
    assert_all_ok(&submit(&mut ep, &[move_to(2, 2)]));
    assert_eq!(ep.position(cid(&ep, "hero")), pf1e_engine::Cell::new(2, 2));
}

/// The same exhaustive check on the bundled sample arena (elevation, water, pillars, five
/// combatants): the grid's run-line table, the movement memo and every enumeration shortcut
/// agree with `validate` at every decision.
#[test]
fn action_mask_matches_validate_on_the_sample_arena() {
    use pf1e_engine::content::combatant::CombatantSpec;
    use pf1e_engine::content::map::MapSpec;
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
    let map = MapSpec::load(&data.join("maps/sample_arena.yaml")).unwrap();
    let m = |n: &str| {
        let spec = CombatantSpec::load(&data.join(format!("monsters/{n}.json"))).unwrap();
        (n.to_string(), spec)
    };
    let sides = vec![
        (
            "players".into(),
            vec![m("goblin"), m("goblin"), m("goblin")],
        ),
        ("monsters".into(), vec![m("orc"), m("orc")]),
    ];
    let enc = std::sync::Arc::new(
        pf1e_engine::Encounter::build(map, sides, pf1e_engine::RulesOptions::default()).unwrap(),
    );
    let runs = mask_matches_validate(&enc, 0..6);
    assert!(runs > 100, "only {runs} legal runs seen");
}

/// (kind, ok, reason code) of observed results.
fn observed(
    r: &[pf1e_engine::observe::observation::ResultObs],
) -> Vec<(ActionKind, bool, Option<&'static str>)> {
    r.iter().map(|x| (x.kind, x.ok, x.reason)).collect()
}

/// (kind, ok, reason code) of results.
fn codes(r: &[pf1e_engine::ActionResult]) -> Vec<(ActionKind, bool, Option<&'static str>)> {
    r.iter().map(|x| (x.kind, x.ok, x.code())).collect()
}
