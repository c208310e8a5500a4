//! The default policy's rules of thumb for the menu actions (engine/src/policy.rs): (b) a
//! coup de grace (CRB — Combat: Coup de Grace) on a helpless enemy in reach and (a) total
//! defense (CRB — Actions in Combat: Total Defense) when threatened, both only when no
//! conscious enemy can be attacked this turn.

mod common;

use common::*;
use pf1e_engine::episode::LifeState;
use pf1e_engine::{Controller, DiceSource, Episode, ScriptedDice};
use serde_json::json;

fn policy_hero(enc: std::sync::Arc<pf1e_engine::Encounter>, faces: &[u32]) -> Episode {
    let n = enc.combatants.len();
    let mut ctl = vec![Controller::External; n];
    ctl[0] = Controller::DefaultPolicy;
    Episode::with_dice(
        enc,
        DiceSource::Scripted(ScriptedDice::new(faces.iter().copied())),
        &ctl,
    )
}

#[test]
fn policy_coup_de_grace_on_a_dying_enemy_when_no_conscious_enemy_can_be_attacked() {
    // Turn 1: the hero's full attack (d20 15, 1d8 4) drops the 1-hp victim (dying, -3); its
    // stabilization d20 1 fails (-4). The guard is 90 ft away: out of reach this turn. Turn
    // 2: coup de grace, 3 + 3 = 6 → -10: dead (Con 10).
    let enc = encounter(
        &room(3, 22),
        vec![
            unit("a", "hero", creature("hero"), (2, 2)),
            unit(
                "b",
                "victim",
                set(creature("victim"), "hp_max", json!(1)),
                (2, 3),
            ),
            unit("b", "guard", creature("guard"), (2, 21)),
        ],
    );
    let mut ep = policy_hero(enc, &[20, 1, 1, 15, 4, 1, 3, 3]);
    turn_of(&mut ep, "guard");
    end_turn(&mut ep);
    turn_of(&mut ep, "guard");
    let l = log(&ep);
    assert!(
        l.contains("coup de grace on victim with its longsword"),
        "{l}"
    );
    assert_eq!(ep.life_state(cid(&ep, "victim")), LifeState::Dead);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn policy_total_defense_when_threatened_and_it_cannot_attack() {
    // The hero's only weapon is a bow without arrows: it can attack no one, the guard next to
    // it threatens it: total defense.
    let hero = set(
        creature("hero"),
        "attacks",
        json!([{
            "name": "shortbow", "kind": "ranged", "attack_bonus": 4, "range_increment_ft": 60,
            "ammunition": 0, "damage": [{"formula": "1d6", "types": ["piercing"]}]
        }]),
    );
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "guard", creature("guard"), (2, 3)),
        ],
    );
    let mut ep = policy_hero(enc, &[20, 1]);
    turn_of(&mut ep, "guard");
    let l = log(&ep);
    assert!(l.contains("hero: total defense (standard action)"), "{l}");
    let o = ep.observation(None);
    assert_eq!(
        o.combatants[cid(&ep, "hero").0 as usize].defensive_ac_bonus,
        4
    );
}
