//! Life states, initiative and the end of combat against the PF1e SRD (CRB — Combat: Injury and
//! Death; Initiative; Bestiary — Creature Types: Undead, Construct), scripted dice.
//!
//! Layout: a 1 × 12 corridor; `hero` (side a) at (1,1), `dummy` (side b) at (1,2) and, when the
//! combat must go on after the dummy falls, `buddy` (side b) far away at (1,12).

mod common;

use common::*;
use pf1e_engine::episode::LifeState;
use pf1e_engine::{Episode, RulesOptions, Status};
use serde_json::{json, Value};

fn with_weapon(v: Value, formula: &str) -> Value {
    set(
        v,
        "attacks",
        json!([melee("longsword", 5, formula, "slashing")]),
    )
}

fn with_con(v: Value, con: Option<i32>) -> Value {
    let mut ab = v["abilities"].clone();
    ab["con_score"] = json!(con);
    set(v, "abilities", ab)
}

fn hp(v: Value, hp: i32) -> Value {
    set(v, "hp_max", json!(hp))
}

/// The hero attacks the dummy once (the dice are scripted by the caller).
fn hit(ep: &mut Episode) {
    let d = cid(ep, "dummy");
    assert_all_ok(&submit(ep, &[attack(d)]));
}

/// Hero (weapon `formula`) vs dummy (+ buddy when `buddy`); initiative 20, 1(, 1): the hero
/// acts first, then the dummy, then the buddy. The hero's decision is pending.
fn fight_with(
    hero_formula: &str,
    dummy: Value,
    buddy: bool,
    options: RulesOptions,
    faces_after_init: &[u32],
) -> Episode {
    let mut units = vec![
        unit(
            "a",
            "hero",
            with_weapon(creature("hero"), hero_formula),
            (1, 1),
        ),
        unit("b", "dummy", dummy, (1, 2)),
    ];
    let mut faces = vec![20, 1];
    if buddy {
        units.push(unit("b", "buddy", creature("buddy"), (1, 12)));
        faces.push(1);
    }
    faces.extend_from_slice(faces_after_init);
    let enc = encounter_with(&room(1, 12), None, units, options);
    let mut ep = episode(enc, &faces);
    turn_of(&mut ep, "hero");
    ep
}

// ----- CRB — Injury and Death: Disabled (exactly 0 hp) ------------------------------------

#[test]
fn crb_disabled_at_exactly_0_hp() {
    let mut ep = fight_with(
        "1d8",
        hp(creature("dummy"), 5),
        false,
        RulesOptions::default(),
        &[15, 5],
    );
    hit(&mut ep);
    let d = cid(&ep, "dummy");
    assert_eq!(ep.hp(d), 0);
    assert_eq!(ep.life_state(d), LifeState::Disabled);
    assert!(ep.outcome().is_none(), "a disabled creature is conscious");
    assert_eq!(lines_with(&ep, "dummy: is disabled").len(), 1);
    let obs = ep.observation(None);
    let c = &obs.combatants[d.0 as usize];
    assert!(c.disabled && c.active && !c.dying);
}

#[test]
fn crb_disabled_standard_action_costs_1_hp() {
    // Dummy at 0 hp attacks (roll 2, miss), then loses 1 hp: dying at -1. The buddy keeps the
    // combat going.
    let mut ep = fight_with(
        "1d8",
        hp(creature("dummy"), 5),
        true,
        RulesOptions::default(),
        &[15, 5, 2],
    );
    hit(&mut ep);
    turn_of(&mut ep, "dummy");
    let h = cid(&ep, "hero");
    let d = cid(&ep, "dummy");
    let r = submit(&mut ep, &[attack(h)]);
    assert_all_ok(&r);
    assert_eq!(ep.hp(d), -1);
    assert_eq!(ep.life_state(d), LifeState::Dying);
    assert_eq!(
        lines_of(&ep, "dummy"),
        vec![
            "is disabled (hp 0)",
            "longsword vs hero d20=2+5=7 AC 10 -> MISS",
            "strains while disabled: loses 1 hp",
            "is dying (hp -1)"
        ]
    );
    assert_eq!(dice_left(&ep), 0);
    // Its turn is over: the next decision is the buddy's.
    match ep.advance() {
        Status::Decision(dec) => assert_eq!(dec.actor, cid(&ep, "buddy")),
        s => panic!("{s:?}"),
    }
}

#[test]
fn crb_disabled_single_move_or_standard_half_speed_no_full_round() {
    // The disabled dummy: full attack refused; 20 ft of movement refused (half of 30 = 15 ft);
    // a 15-ft move is fine (the hero's AoO rolls 2 and misses) and costs no hp; then no
    // standard action is left.
    let mut ep = fight_with(
        "1d8",
        hp(creature("dummy"), 5),
        true,
        RulesOptions::default(),
        &[15, 5, 2],
    );
    hit(&mut ep);
    turn_of(&mut ep, "dummy");
    let h = cid(&ep, "hero");
    let d = cid(&ep, "dummy");
    let dec = ep.decision().unwrap().clone();
    assert!(dec.budget.standard && dec.budget.move_action && !dec.budget.full_round);
    let r = submit(
        &mut ep,
        &[full_attack(h), move_to(1, 6), move_to(1, 5), attack(h)],
    );
    assert_eq!(r[0].code(), Some("downgraded:disabled"));
    assert_eq!(r[1].code(), Some("unreachable_destination"));
    assert!(ok(&r[2]));
    assert_eq!(r[3].code(), Some("downgraded:disabled"));
    assert_eq!(ep.position(d), pf1e_engine::Cell::new(1, 5));
    assert_eq!(ep.hp(d), 0);
    assert_eq!(ep.life_state(d), LifeState::Disabled);
    assert_eq!(dice_left(&ep), 0);
}

// ----- CRB — Injury and Death: Dying, Stable Characters and Recovery, Dead -------------------

/// The hero drops the dummy (Con `con`, 5 hp) with `formula` rolling `dmg`; the dummy then
/// rolls `stab` to stabilize at the start of its turn. Returns the episode at the buddy's turn.
fn dying_case(con: i32, formula: &str, dmg: u32, stab: u32) -> Episode {
    let dummy = with_con(hp(creature("dummy"), 5), Some(con));
    let mut ep = fight_with(
        formula,
        dummy,
        true,
        RulesOptions::default(),
        &[15, dmg, stab],
    );
    hit(&mut ep);
    turn_of(&mut ep, "buddy");
    assert_eq!(dice_left(&ep), 0);
    ep
}

#[test]
fn crb_dying_con_check_dc_10_success_stabilizes() {
    // Con 12 (+1), hp -3: 12 + 1 - 3 = 10 -> stable.
    let ep = dying_case(12, "1d8", 8, 12);
    let d = cid(&ep, "dummy");
    assert_eq!(ep.life_state(d), LifeState::Stable);
    assert_eq!(ep.hp(d), -3);
    assert_eq!(
        lines_with(&ep, "stabilize"),
        vec!["round 1 dummy: stabilize d20=12+1-3=10 vs DC 10 -> stable"]
    );
}

#[test]
fn crb_dying_con_check_failure_loses_1_hp() {
    let ep = dying_case(12, "1d8", 8, 11);
    let d = cid(&ep, "dummy");
    assert_eq!(ep.life_state(d), LifeState::Dying);
    assert_eq!(ep.hp(d), -4);
}

#[test]
fn crb_dying_con_check_natural_20_always_stabilizes() {
    // Con 14 (+2), hp 5 - 18 = -13: 20 + 2 - 13 = 9 < 10, but a natural 20 succeeds.
    let ep = dying_case(14, "1d8+10", 8, 20);
    let d = cid(&ep, "dummy");
    assert_eq!(ep.hp(d), -13);
    assert_eq!(ep.life_state(d), LifeState::Stable);
}

#[test]
fn crb_dying_until_negative_con_score_then_dead() {
    // Con 10: 5 - 14 = -9 is dying; a failed check (d20 = 1) makes it -10 = -Con: dead.
    let ep = dying_case(10, "1d8+6", 8, 1);
    let d = cid(&ep, "dummy");
    assert_eq!(ep.hp(d), -10);
    assert_eq!(ep.life_state(d), LifeState::Dead);
    assert_eq!(lines_with(&ep, "dies (hp -10)").len(), 1);
}

#[test]
fn crb_dead_when_damage_reaches_negative_con_score() {
    // Con 10, 5 hp: 15 damage -> -10: dead at once (no stabilization roll).
    let dummy = with_con(hp(creature("dummy"), 5), Some(10));
    let mut ep = fight_with("1d8+7", dummy, true, RulesOptions::default(), &[15, 8]);
    hit(&mut ep);
    let d = cid(&ep, "dummy");
    assert_eq!(ep.hp(d), -10);
    assert_eq!(ep.life_state(d), LifeState::Dead);
    turn_of(&mut ep, "buddy");
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_dying_creature_does_not_act() {
    // Stable dummy: its turn passes without a decision (the hero's next decision is round 2
    // after the buddy's).
    let mut ep = dying_case(12, "1d8", 8, 12);
    end_turn(&mut ep);
    match ep.advance() {
        Status::Decision(dec) => {
            assert_eq!(dec.actor, cid(&ep, "hero"));
            assert_eq!(dec.round, 2);
        }
        s => panic!("{s:?}"),
    }
}

/// CRB — Combat: Injury and Death, Stable Characters and Recovery: "If the character is
/// taking continuous damage, such as from an acid arrow or a bleed effect, he automatically
/// fails all Constitution checks made to stabilize. Such a character loses 1 hit point per
/// round in addition to the continuous damage." (CRB — Appendix: Conditions, Bleed: the
/// damage comes at the start of its turn.) A dying, bleeding dummy (Con 12, −3 hp) bleeds
/// 1 hp, then fails its check without a roll and loses 1 more: −5, still dying, no die left.
#[test]
fn crb_dying_with_continuous_damage_bleeds_and_automatically_fails_to_stabilize() {
    let dummy = set(
        with_con(hp(creature("dummy"), 5), Some(12)),
        "conditions",
        json!([{"name": "bleeding"}]),
    );
    // Attack d20 15, damage 8: 5 → −3. The dummy's turn rolls no die (a natural 20 would
    // have stabilized it).
    let mut ep = fight_with("1d8", dummy, true, RulesOptions::default(), &[15, 8]);
    hit(&mut ep);
    turn_of(&mut ep, "buddy");
    let d = cid(&ep, "dummy");
    assert_eq!(ep.hp(d), -5, "{}", log(&ep));
    assert_eq!(ep.life_state(d), LifeState::Dying);
    assert_eq!(dice_left(&ep), 0);
    assert_eq!(
        lines_of(&ep, "dummy"),
        vec![
            "is dying (hp -3)",
            "bleeds: loses 1 hp",
            "stabilize: automatically fails (taking continuous damage) -> loses 1 hp",
        ]
    );
}

/// CRB — Stable Characters and Recovery (as above): a stable creature that still bleeds
/// takes the bleed damage, which makes it dying again (new damage below 0), and then loses
/// 1 more hit point from the failed check.
#[test]
fn crb_stable_creature_still_bleeding_takes_the_damage_and_resumes_dying() {
    let dummy = set(
        with_con(hp(creature("dummy"), 5), Some(12)),
        "conditions",
        json!([{"name": "bleeding"}]),
    );
    let mut ep = fight_with("1d8", dummy, true, RulesOptions::default(), &[15, 8]);
    hit(&mut ep);
    let d = cid(&ep, "dummy");
    // Stable at −3 (test state: e.g. a Heal check that did not stop the bleeding).
    ep.set_hp_for_tests(d, -3);
    ep.set_life_for_tests(d, LifeState::Stable);
    turn_of(&mut ep, "buddy");
    assert_eq!(ep.hp(d), -5, "{}", log(&ep));
    assert_eq!(ep.life_state(d), LifeState::Dying);
    assert_eq!(dice_left(&ep), 0);
}

// ----- Bestiary — Creature Types: undead and constructs destroyed at 0 hp --------------------

#[test]
fn bestiary_undead_without_con_destroyed_at_0() {
    let skel = set(
        with_con(hp(creature("dummy"), 5), None),
        "creature_type",
        json!("undead"),
    );
    let mut ep = fight_with("1d8", skel, true, RulesOptions::default(), &[15, 5]);
    hit(&mut ep);
    let d = cid(&ep, "dummy");
    assert_eq!(ep.hp(d), 0);
    assert_eq!(ep.life_state(d), LifeState::Dead);
    assert_eq!(lines_with(&ep, "is destroyed (hp 0)").len(), 1);
}

#[test]
fn bestiary_construct_destroyed_at_0() {
    let golem = set(
        with_con(hp(creature("dummy"), 5), None),
        "creature_type",
        json!("construct"),
    );
    let mut ep = fight_with("1d8", golem, true, RulesOptions::default(), &[15, 5]);
    hit(&mut ep);
    assert_eq!(ep.life_state(cid(&ep, "dummy")), LifeState::Dead);
}

// ----- simple_monster_death option ------------------------------------------------------------

#[test]
fn option_simple_monster_death_monsters_die_at_0_pcs_never() {
    let opts = RulesOptions {
        simple_monster_death: true,
        ..RulesOptions::default()
    };
    let mut ep = fight_with(
        "1d8",
        hp(creature("dummy"), 5),
        true,
        opts.clone(),
        &[15, 5],
    );
    hit(&mut ep);
    assert_eq!(ep.life_state(cid(&ep, "dummy")), LifeState::Dead);

    let pc = set(hp(creature("dummy"), 5), "player_character", json!(true));
    let mut ep = fight_with("1d8", pc, true, opts, &[15, 5]);
    hit(&mut ep);
    assert_eq!(ep.life_state(cid(&ep, "dummy")), LifeState::Disabled);
}

// ----- End of combat -------------------------------------------------------------------------

#[test]
fn combat_ends_when_one_side_has_no_conscious_combatant() {
    let mut ep = fight_with(
        "1d8",
        hp(creature("dummy"), 5),
        false,
        RulesOptions::default(),
        &[15, 8],
    );
    hit(&mut ep);
    match ep.advance() {
        Status::Terminal(o) => {
            assert_eq!(o.winner.as_deref(), Some("a"));
            assert_eq!(o.rounds, 1);
            assert!(!o.truncated);
        }
        s => panic!("{s:?}"),
    }
    assert!(ep.submit(1, &[attack(cid(&ep, "dummy"))]).is_err());
}

#[test]
fn round_cap_is_a_truncated_draw() {
    let opts = RulesOptions {
        round_cap: 2,
        ..RulesOptions::default()
    };
    let mut ep = fight_with("1d8", creature("dummy"), false, opts, &[]);
    let mut decisions = 1;
    loop {
        match ep.advance() {
            Status::Decision(_) => {
                end_turn(&mut ep);
                decisions += 1;
            }
            Status::Terminal(o) => {
                assert_eq!(o.winner, None);
                assert_eq!(o.rounds, 2);
                assert!(o.truncated);
                break;
            }
        }
    }
    // 2 rounds × 2 combatants (the first one was pending when `fight` returned).
    assert_eq!(decisions, 5);
    assert_eq!(ep.round(), 2);
}

// ----- CRB — Combat: Initiative ---------------------------------------------------------------

#[test]
fn crb_initiative_d20_plus_mod_ties_by_mod_then_list_order() {
    let m = |name: &str, init: i32| set(creature(name), "initiative_mod", json!(init));
    let enc = encounter(
        &room(1, 12),
        vec![
            unit("a", "alpha", m("alpha", 0), (1, 1)),
            unit("a", "bravo", m("bravo", 2), (1, 2)),
            unit("b", "charlie", m("charlie", 0), (1, 8)),
            unit("b", "delta", m("delta", 5), (1, 9)),
        ],
    );
    let mut ep = episode(enc, &[10, 8, 10, 1]);
    let _ = ep.advance();
    let names: Vec<String> = ep
        .initiative_order()
        .iter()
        .map(|c| ep.encounter().combatants[c.0 as usize].id.clone())
        .collect();
    assert_eq!(names, vec!["bravo", "alpha", "charlie", "delta"]);
    assert!(lines_with(&ep, "initiative: bravo d20=8+2=10").len() == 1);
    assert!(lines_with(&ep, "initiative: delta d20=1+5=6").len() == 1);
    assert_eq!(
        ep.decision().unwrap().actor,
        cid(&ep, "bravo"),
        "highest initiative acts first"
    );
}

/// A disabled default-policy combatant next to its enemy takes its one standard action — an
/// attack — and strains for 1 hp (CRB — Injury and Death: Disabled: "a single move or
/// standard action each turn … if he performs any standard action … he takes 1 point of
/// damage"); it does not try a full attack that the rules refuse and lose its turn.
#[test]
fn crb_disabled_default_policy_takes_its_one_standard_action() {
    // Initiative: hero 20, dummy 1. The hero hits (15, 1d8 = 5): the dummy is at 0 hp. The
    // dummy (default policy) attacks once: d20 = 2 misses AC 10; it strains to -1 (dying).
    let units = vec![
        unit("a", "hero", creature("hero"), (1, 1)),
        unit("b", "dummy", hp(creature("dummy"), 5), (1, 2)),
    ];
    let enc = encounter_with(&room(1, 12), None, units, RulesOptions::default());
    let mut ep = Episode::with_dice(
        enc,
        pf1e_engine::DiceSource::Scripted(pf1e_engine::ScriptedDice::new([20, 1, 15, 5, 2])),
        &[
            pf1e_engine::Controller::External,
            pf1e_engine::Controller::DefaultPolicy,
        ],
    );
    turn_of(&mut ep, "hero");
    // (Nothing else is left to the hero in the corridor: its turn ends after the attack.)
    hit(&mut ep);
    let d = cid(&ep, "dummy");
    assert!(matches!(ep.advance(), Status::Terminal(_)), "{}", log(&ep));
    assert_eq!(
        lines_of(&ep, "dummy"),
        [
            "is disabled (hp 0)",
            "longsword vs hero d20=2+5=7 AC 10 -> MISS",
            "strains while disabled: loses 1 hp",
            "is dying (hp -1)"
        ],
        "{}",
        log(&ep)
    );
    assert_eq!(ep.life_state(d), LifeState::Dying);
    assert!(lines_with(&ep, "refused").is_empty());
    assert_eq!(dice_left(&ep), 0);
}
