//! Issue 14 (P9): padding cannot pay. Two episodes on the same seed, the same scripted
//! agent, identical except that in one the agent pads every turn with a no-op — Power
//! Attack switched on and straight off again (two free actions, no dice, the state as it
//! was: CRB — Feats: Power Attack) — before each real action. With the per-round discount
//! (`RewardConfig::round_discount` < 1) and a learner's gamma of 1, the two returns are
//! equal, bit for bit; with the old timing (no round discount, the learner discounting per
//! decision) the padded episode's return differs, which an agent could farm.

mod common;

use common::*;
use pf1e_engine::reward::{RewardConfig, RewardTracker};
use pf1e_engine::{Action, ActionKind, Controller, Episode, Status};
use serde_json::json;

/// Two Power Attack fighters (`players`, the agent) against two default-policy brutes.
fn arena() -> std::sync::Arc<pf1e_engine::Encounter> {
    let hero = || {
        let mut v = set(creature("hero"), "feats", json!(["Power Attack"]));
        v["bab"] = json!(4);
        v
    };
    let brute = || set(creature("brute"), "hp_max", json!(24));
    encounter(
        &room(5, 8),
        vec![
            unit("players", "a", hero(), (2, 1)),
            unit("players", "b", hero(), (4, 1)),
            unit("monsters", "x", brute(), (2, 8)),
            unit("monsters", "y", brute(), (4, 8)),
        ],
    )
}

/// What one played episode shows: every reward reported to `players` (in order, with
/// whether it came at a padding decision), the number of padding actions, and the end.
struct Played {
    rewards: Vec<(f32, bool)>,
    padding: usize,
    end: String,
}

/// Play `seed` with the scripted agent: at a reaction its default answer; at a turn
/// decision an attack (full attack first) on the first target it can, else a move toward
/// the first enemy it can, else end the turn. With `pad`, each real turn action is preceded
/// by Power Attack on, then off.
fn play(seed: u64, pad: bool, config: RewardConfig) -> Played {
    let enc = arena();
    let ctl = [
        Controller::External,
        Controller::External,
        Controller::DefaultPolicy,
        Controller::DefaultPolicy,
    ];
    let mut ep = Episode::new(enc, seed, &ctl);
    let mut tracker = RewardTracker::new(&ep, vec!["players".into()], config);
    let toggle = Action::new(ActionKind::ActivatePowerAttack);
    // 0: switch on next, 1: switch off next, 2: the real action next.
    let mut phase = 0;
    let mut padding_now = false;
    let mut out = Played {
        rewards: Vec::new(),
        padding: 0,
        end: String::new(),
    };
    loop {
        let status = ep.advance();
        for (side, r) in tracker.settle(&ep, &status) {
            assert_eq!(side, "players");
            out.rewards.push((r, padding_now));
        }
        let d = match status {
            Status::Terminal(o) => {
                let hp: Vec<i32> = (0..4).map(|i| ep.hp(pf1e_engine::CombatantId(i))).collect();
                out.end = format!("{o:?} round {} hp {hp:?}", ep.round());
                return out;
            }
            Status::Decision(d) => d,
        };
        if d.kind.is_reaction() {
            padding_now = false;
            ep.submit(d.decision_id, &[take_reaction(&d)]).unwrap();
            continue;
        }
        let legal = ep.legal_actions();
        let can_toggle = legal
            .iter()
            .any(|l| l.action.kind == ActionKind::ActivatePowerAttack);
        if pad && phase < 2 && (can_toggle || phase == 1) {
            assert!(can_toggle, "the toggle back is legal");
            assert_eq!(ep.power_attack_on(d.actor), phase == 1);
            phase += 1;
            out.padding += 1;
            padding_now = true;
            ep.submit(d.decision_id, std::slice::from_ref(&toggle))
                .unwrap();
            continue;
        }
        phase = 0;
        padding_now = false;
        assert!(!ep.power_attack_on(d.actor), "padding left Power Attack on");
        let first = |k: ActionKind| legal.iter().find(|l| l.action.kind == k);
        let pick = first(ActionKind::FullAttack)
            .or_else(|| first(ActionKind::Attack))
            .or_else(|| {
                legal.iter().find(|l| {
                    l.action.kind == ActionKind::Move
                        && l.action.target.is_some()
                        && l.action.destination.is_none()
                })
            })
            .map(|l| l.action.clone())
            .unwrap_or_else(|| Action::new(ActionKind::EndTurn));
        ep.submit(d.decision_id, &[pick]).unwrap();
    }
}

/// The learner's return Σ gamma^t r_t over its decisions t (one per reported reward).
fn learner_return(p: &Played, gamma: f64) -> f64 {
    p.rewards
        .iter()
        .enumerate()
        .map(|(t, (r, _))| gamma.powi(t as i32) * f64::from(*r))
        .sum()
}

#[test]
fn padding_with_no_op_actions_earns_nothing_under_the_round_discount() {
    let discounted = RewardConfig {
        shaped: true,
        damage_weight: 1.0,
        kill_weight: 0.1,
        round_discount: 0.95,
    };
    let undiscounted = RewardConfig {
        round_discount: 1.0,
        ..discounted
    };
    let mut farmable = 0;
    for seed in 0..4 {
        let plain = play(seed, false, discounted);
        let padded = play(seed, true, discounted);
        // The padding changed nothing of the fight.
        assert_eq!(plain.end, padded.end, "seed {seed}");
        assert!(padded.padding >= 4, "seed {seed}: {} pads", padded.padding);
        assert_eq!(
            padded.rewards.len(),
            plain.rewards.len() + padded.padding,
            "seed {seed}"
        );
        // Every padding decision is rewarded exactly 0 and the others are the same.
        assert!(padded.rewards.iter().all(|(r, pad)| !pad || *r == 0.0));
        let real: Vec<f32> = padded
            .rewards
            .iter()
            .filter(|(_, pad)| !pad)
            .map(|(r, _)| *r)
            .collect();
        let plain_r: Vec<f32> = plain.rewards.iter().map(|(r, _)| *r).collect();
        assert_eq!(real, plain_r, "seed {seed}");
        // The learner's gamma = 1: the same return, exactly.
        assert_eq!(
            learner_return(&plain, 1.0).to_bits(),
            learner_return(&padded, 1.0).to_bits(),
            "seed {seed}"
        );
        // The old timing — no round discount, a learner discounting per decision (0.99) —
        // gives the padded episode another return: padding moved the rewards in time.
        let (p0, q0) = (
            play(seed, false, undiscounted),
            play(seed, true, undiscounted),
        );
        let (a, b) = (learner_return(&p0, 0.99), learner_return(&q0, 0.99));
        if (a - b).abs() > 1e-3 {
            farmable += 1;
        }
    }
    assert!(farmable > 0, "the per-decision discount was never gamed");
}
