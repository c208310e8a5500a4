//! Concealment (CRB — Combat: Concealment; Conditions: Blinded, Invisible; spells Blur,
//! Displacement): miss chance rolled (d100) after the hit and the critical confirmation; no
//! attack of opportunity against total concealment.

mod common;

use common::*;
use pf1e_engine::{Controller, DiceSource, Episode};
use serde_json::{json, Value};

fn duel(hero: Value, dummy: Value, faces: &[u32]) -> (Episode, pf1e_engine::CombatantId) {
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "dummy", dummy, (2, 3)),
        ],
    );
    let mut ep = episode(enc, faces);
    turn_of(&mut ep, "hero");
    let d = cid(&ep, "dummy");
    (ep, d)
}

fn blurred() -> Value {
    set(
        creature("dummy"),
        "conditions",
        json!([{"name": "blurred"}]),
    )
}

#[test]
fn crb_concealment_blur_20_percent_roll_within_misses() {
    let (mut ep, d) = duel(creature("hero"), blurred(), &[20, 1, 15, 20]);
    submit(&mut ep, &[attack(d)]);
    assert_eq!(
        lines_of(&ep, "hero"),
        vec!["longsword vs dummy d20=15+5=20 AC 10 -> MISS (concealment d100=20 <= 20%)"]
    );
    assert_eq!(ep.hp(d), 30);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_concealment_blur_roll_above_hits() {
    let (mut ep, d) = duel(creature("hero"), blurred(), &[20, 1, 15, 21, 4]);
    submit(&mut ep, &[attack(d)]);
    assert_eq!(ep.hp(d), 26);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_concealment_rolled_after_critical_confirmation() {
    // Threat (19 on 19-20), confirmation 10, then d100 = 5 <= 50 (displacement): a miss.
    let hero = set(
        creature("hero"),
        "attacks",
        json!([set(
            melee("longsword", 5, "1d8", "slashing"),
            "crit_range",
            json!(19)
        )]),
    );
    let dummy = set(
        creature("dummy"),
        "conditions",
        json!([{"name": "displaced"}]),
    );
    let (mut ep, d) = duel(hero, dummy, &[20, 1, 19, 10, 5]);
    submit(&mut ep, &[attack(d)]);
    assert_eq!(
        lines_of(&ep, "hero"),
        vec!["longsword vs dummy d20=19+5=24 AC 10 -> MISS (concealment d100=5 <= 50%) x2 (confirm d20=10+5=15)"]
    );
}

#[test]
fn crb_blinded_attacker_treats_every_target_as_total_concealment() {
    let hero = set(creature("hero"), "conditions", json!([{"name": "blinded"}]));
    let (mut ep, d) = duel(hero, creature("dummy"), &[20, 1, 15, 50]);
    submit(&mut ep, &[attack(d)]);
    assert!(lines_of(&ep, "hero")[0].ends_with("-> MISS (concealment d100=50 <= 50%)"));
}

#[test]
fn crb_no_attack_of_opportunity_against_total_concealment() {
    // The invisible hero walks away from the (not flat-footed) dummy: no AoO.
    let hero = set(
        creature("hero"),
        "conditions",
        json!([{"name": "invisible"}]),
    );
    let enc = encounter(
        &room(3, 8),
        vec![
            unit("a", "hero", hero, (2, 2)),
            unit("b", "dummy", creature("dummy"), (2, 3)),
        ],
    );
    let mut ep = episode(enc, &[1, 20]);
    turn_of(&mut ep, "hero");
    assert_all_ok(&submit(&mut ep, &[move_to(1, 1), move_to(3, 1)]));
    assert!(lines_with(&ep, "attack of opportunity").is_empty());
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_concealment_20_percent_rate_within_3_sigma_over_5000_attacks() {
    // +50 vs AC 10: every roll but a natural 1 hits (p = 0.95); blur keeps 80 %:
    // p = 0.76, sigma = sqrt(p(1-p)/n).
    let hero = set(
        creature("hero"),
        "attacks",
        json!([set(
            melee("longsword", 50, "1", "slashing"),
            "count",
            json!(20)
        )]),
    );
    let dummy = set(
        set(blurred(), "hp_max", json!(100000)),
        "ac",
        json!({"total": 10, "touch": 10, "flat_footed": 10}),
    );
    let (mut hits, mut n) = (0u64, 0u64);
    for seed in 0..250u64 {
        let enc = encounter(
            &room(3, 8),
            vec![
                unit(
                    "a",
                    "hero",
                    set(hero.clone(), "initiative_mod", json!(50)),
                    (2, 2),
                ),
                unit("b", "dummy", dummy.clone(), (2, 3)),
            ],
        );
        let mut ep = Episode::with_dice(
            enc,
            DiceSource::seeded(seed),
            &[Controller::External, Controller::External],
        );
        turn_of(&mut ep, "hero");
        let d = cid(&ep, "dummy");
        assert_all_ok(&submit(&mut ep, &[full_attack(d)]));
        n += ep.attrition()[0].attacks as u64;
        hits += ep.attrition()[0].hits as u64;
    }
    assert_eq!(n, 5000);
    let p = 0.76f64;
    let sigma = (p * (1.0 - p) / n as f64).sqrt();
    let rate = hits as f64 / n as f64;
    assert!(
        (rate - p).abs() <= 3.0 * sigma,
        "rate {rate} vs {p} ± {}",
        3.0 * sigma
    );
}
