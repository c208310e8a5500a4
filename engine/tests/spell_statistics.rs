//! Closed-form checks of spell rates (as the seed's statistical tests): a save-for-half area
//! (CRB — Spells: Fireball; Magic: Saving Throw) over 10,000 seeded casts lands within 3σ
//! of its exact expected damage.

mod common;

use common::*;
use pf1e_engine::{Action, ActionKind, Controller, DiceSource, Episode, Status};
use serde_json::json;

/// The exact distribution of the sum of `n` d6.
fn nd6(n: usize) -> Vec<f64> {
    let mut dist = vec![1.0];
    for _ in 0..n {
        let mut next = vec![0.0; dist.len() + 6];
        for (s, p) in dist.iter().enumerate() {
            for f in 1..=6 {
                next[s + f] += p / 6.0;
            }
        }
        dist = next;
    }
    dist
}

#[test]
fn crb_fireball_reflex_half_mean_damage_within_3_sigma_over_10000_casts() {
    // CL 5: 5d6 fire; the target's Reflex +0 against DC 10 + 3 + 3 = 16 saves on 16–20
    // (p = 1/4) and takes half, rounded down.
    let mut mage = caster("mage", 5, &["fireball"], json!({"3": 1}));
    mage["initiative_mod"] = json!(50);
    let target = set(creature("target"), "hp_max", json!(1000));
    let enc = encounter(
        &room(5, 14),
        vec![
            unit("a", "mage", mage, (2, 1)),
            unit("b", "target", target, (2, 10)),
        ],
    );
    let p_save = 0.25;
    let dist = nd6(5);
    let (mut mean, mut sq) = (0.0, 0.0);
    for (s, p) in dist.iter().enumerate() {
        for (dmg, q) in [(s as f64, 1.0 - p_save), ((s / 2) as f64, p_save)] {
            mean += p * q * dmg;
            sq += p * q * dmg * dmg;
        }
    }
    let var = sq - mean * mean;
    const N: u64 = 10_000;
    let mut total = 0.0;
    for seed in 0..N {
        let mut ep = Episode::with_dice(
            enc.clone(),
            DiceSource::seeded(seed),
            &[Controller::External, Controller::External],
        );
        let Status::Decision(d) = ep.advance() else {
            panic!("a decision")
        };
        assert_eq!(d.actor, cid(&ep, "mage"));
        let cast = Action {
            spell: Some(0),
            target_pos: Some(pf1e_engine::Cell::new(2, 10)),
            ..Action::new(ActionKind::CastSpell)
        };
        let r = ep.submit(d.decision_id, &[cast]).unwrap();
        assert!(r[0].ok, "{r:?}");
        let t = cid(&ep, "target");
        total += f64::from(1000 - ep.observation(None).combatants[t.0 as usize].hp);
    }
    let avg = total / N as f64;
    let sigma = (var / N as f64).sqrt();
    assert!(
        (avg - mean).abs() <= 3.0 * sigma,
        "mean damage {avg:.3}, expected {mean:.3} ± {:.3} (3σ)",
        3.0 * sigma
    );
    // The closed form itself: 0.75 × 17.5 + 0.25 × 8.5.
    assert!((mean - 15.25).abs() < 1e-9, "{mean}");
}
