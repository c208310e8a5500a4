//! The default policy's spell choice (the seed's order: heal a wounded ally, an area on
//! clustered enemies, a buff before melee, offence; `engine/src/policy.rs`, `spell_plan`),
//! and the persistent areas of spells (CRB — Spells: Web, Fog Cloud).

mod common;

use common::*;
use pf1e_engine::{Controller, DiceSource, Episode, Status};
use serde_json::{json, Value};

/// `units` in a 9 × 16 room; the first (`caster`, initiative +40) is played by the default
/// policy, the others are external and end their turns; `setup` runs before the first turn;
/// advance until the caster has acted, seeded dice.
fn first_turn(units: Vec<Unit>) -> Episode {
    first_turn_with(units, |_| {})
}

fn first_turn_with(units: Vec<Unit>, setup: impl Fn(&mut Episode)) -> Episode {
    let enc = encounter(&room(9, 16), units);
    let mut ctl = vec![Controller::External; enc.combatants.len()];
    ctl[0] = Controller::DefaultPolicy;
    let mut ep = Episode::with_dice(enc, DiceSource::seeded(7), &ctl);
    setup(&mut ep);
    // Force the caster first: every external combatant ends its turns until the caster acted.
    for _ in 0..20 {
        if log(&ep).contains("round 1 caster") {
            break;
        }
        match ep.advance() {
            Status::Decision(d) => {
                let a = if d.kind.is_reaction() {
                    pf1e_engine::Action::new(pf1e_engine::ActionKind::Decline)
                } else {
                    pf1e_engine::Action::new(pf1e_engine::ActionKind::EndTurn)
                };
                ep.submit(d.decision_id, &[a]).unwrap();
            }
            Status::Terminal(_) => break,
        }
    }
    ep
}

fn caster_with(spells: &[&str], class: &str) -> Value {
    let mut v = caster("caster", 5, spells, json!({"1": 4, "2": 3, "3": 2}));
    v["caster_class"] = json!(class);
    v["initiative_mod"] = json!(40);
    v
}

fn casts(ep: &Episode) -> Vec<String> {
    lines_of(ep, "caster")
        .into_iter()
        .filter(|l| l.starts_with("casts "))
        .collect()
}

#[test]
fn the_default_policy_heals_a_wounded_ally_first() {
    let ep = first_turn_with(
        vec![
            unit(
                "a",
                "caster",
                caster_with(&["cure light wounds", "magic missile"], "cleric"),
                (4, 1),
            ),
            unit("a", "ally", creature("ally"), (4, 2)),
            unit("b", "foe", creature("foe"), (4, 12)),
        ],
        |ep| ep.set_hp_for_tests(cid(ep, "ally"), 10),
    );
    let c = casts(&ep);
    assert!(
        c.first()
            .is_some_and(|l| l.starts_with("casts cure light wounds on ally")),
        "{}",
        log(&ep)
    );
}

#[test]
fn the_default_policy_aims_an_area_at_two_clustered_enemies() {
    let ep = first_turn(vec![
        unit(
            "a",
            "caster",
            caster_with(&["magic missile", "fireball"], "wizard"),
            (4, 1),
        ),
        unit("b", "foe", creature("foe"), (4, 10)),
        unit("b", "foe-2", creature("foe-2"), (5, 10)),
    ]);
    let c = casts(&ep);
    assert!(
        c.first()
            .is_some_and(|l| l.starts_with("casts fireball at")),
        "{}",
        log(&ep)
    );
}

#[test]
fn the_default_policy_uses_offence_on_a_lone_enemy_and_never_a_spell_it_cannot_affect() {
    // Hold person works on humanoids only: the undead foe gets magic missile instead.
    let undead = set(creature("foe"), "creature_type", json!("undead"));
    let ep = first_turn(vec![
        unit(
            "a",
            "caster",
            caster_with(&["magic missile", "hold person"], "wizard"),
            (4, 1),
        ),
        unit("b", "foe", undead, (4, 10)),
    ]);
    let c = casts(&ep);
    assert!(
        c.first()
            .is_some_and(|l| l.starts_with("casts magic missile on foe")),
        "{}",
        log(&ep)
    );
}

#[test]
fn the_default_policy_buffs_itself_before_melee() {
    let ep = first_turn(vec![
        unit("a", "caster", caster_with(&["shield"], "wizard"), (4, 1)),
        unit("b", "foe", creature("foe"), (4, 12)),
    ]);
    let c = casts(&ep);
    assert!(
        c.first().is_some_and(|l| l.starts_with("casts shield")),
        "{}",
        log(&ep)
    );
}

#[test]
fn crb_fog_cloud_gives_concealment_to_attacks_into_or_out_of_it() {
    // The default caster aims nothing here: the area is cast by hand.
    let enc = encounter(
        &room(9, 16),
        vec![
            unit("a", "caster", caster_with(&["fog cloud"], "wizard"), (4, 1)),
            unit("b", "foe", creature("foe"), (4, 8)),
        ],
    );
    let mut ep = episode(enc, &[20, 1]);
    turn_of(&mut ep, "caster");
    let cast = pf1e_engine::Action {
        spell: Some(0),
        target_pos: Some(pf1e_engine::Cell::new(4, 8)),
        ..pf1e_engine::Action::new(pf1e_engine::ActionKind::CastSpell)
    };
    assert_all_ok(&submit(&mut ep, &[cast]));
    let obs = obs_json(&ep);
    assert!(obs.contains("fog cloud"), "{obs}");
    // The foe is inside the fog: an attack on it from afar is at 50 % (total concealment).
    let f = cid(&ep, "foe");
    let c = cid(&ep, "caster");
    assert_eq!(ep.miss_chance_for_tests(c, f), 50);
}
