//! P10: the cooperative work budget of `Episode::advance_within` — turn budgets and stop
//! polls interrupt the advance loop, and resuming gives exactly the uninterrupted episode.

#[path = "../examples/common/bundled.rs"]
mod bundled;

use pf1e_engine::episode::STOP_CHECK_EVERY_FRAMES;
use pf1e_engine::{Controller, Encounter, Episode, Interrupted, Status, WorkBudget};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Play `ep` to the end: every external decision a seeded pick among the legal actions
/// (an attack when there is one), every advance through `advance`.
fn play(ep: &mut Episode, seed: u64, advance: &mut dyn FnMut(&mut Episode) -> Status) {
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    loop {
        let status = advance(ep);
        let Status::Decision(d) = status else { return };
        let legal = ep.legal_actions();
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let pick = legal
            .iter()
            .find(|l| {
                matches!(
                    l.action.kind,
                    pf1e_engine::ActionKind::Attack | pf1e_engine::ActionKind::FullAttack
                ) && !rng.is_multiple_of(3)
            })
            .unwrap_or(&legal[(rng % legal.len() as u64) as usize]);
        ep.submit(d.decision_id, std::slice::from_ref(&pick.action))
            .unwrap();
    }
}

fn controllers(enc: &Encounter, external: usize) -> Vec<Controller> {
    (0..enc.combatants.len())
        .map(|i| {
            if i < external {
                Controller::External
            } else {
                Controller::DefaultPolicy
            }
        })
        .collect()
}

fn uninterrupted(enc: &Arc<Encounter>, seed: u64, external: usize) -> Episode {
    let mut ep = Episode::new(enc.clone(), seed, &controllers(enc, external));
    play(&mut ep, seed, &mut |ep| ep.advance());
    ep
}

#[test]
fn interrupted_every_n_turns_resumes_to_the_same_episode() {
    for casters in [false, true] {
        let enc = bundled::encounter(casters);
        for seed in 0..4u64 {
            for external in [0usize, 1] {
                let want = uninterrupted(&enc, seed, external);
                let mut interruptions = 0;
                for max_turns in [1u64, 2, 5] {
                    let mut ep = Episode::new(enc.clone(), seed, &controllers(&enc, external));
                    let never = || false;
                    play(&mut ep, seed, &mut |ep| loop {
                        let mut budget = WorkBudget::new(max_turns, &never);
                        match ep.advance_within(&mut budget) {
                            Ok(s) => break s,
                            Err(Interrupted::TurnBudget { turns }) => {
                                assert_eq!(turns, max_turns);
                                assert_eq!(budget.turns_used(), max_turns);
                                assert!(ep.status().is_none());
                                interruptions += 1;
                            }
                            Err(e) => panic!("{e}"),
                        }
                    });
                    assert_eq!(
                        ep.transcript(),
                        want.transcript(),
                        "casters {casters} seed {seed} external {external} max_turns {max_turns}"
                    );
                    assert_eq!(ep.snapshot(), want.snapshot());
                    assert_eq!(ep.history(), want.history());
                }
                assert!(interruptions > 0, "seed {seed}: never interrupted");
            }
        }
    }
}

#[test]
fn a_stop_mid_turn_stops_at_once_and_resumes_exactly() {
    let enc = bundled::encounter(true);
    let mut mid_turn = 0;
    for seed in 0..3u64 {
        let want = uninterrupted(&enc, seed, 0);
        for j in [1u64, 2, 3, 5, 8, 13, 21, 34] {
            let calls = AtomicU64::new(0);
            // True at the j-th call only.
            let stop = || calls.fetch_add(1, Ordering::Relaxed) + 1 == j;
            let mut ep = Episode::new(enc.clone(), seed, &controllers(&enc, 0));
            let mut budget = WorkBudget::new(u64::MAX, &stop);
            let mut stopped = 0;
            play(&mut ep, seed, &mut |ep| loop {
                match ep.advance_within(&mut budget) {
                    Ok(s) => break s,
                    Err(Interrupted::Stopped) => {
                        // Promptly: the call that said stop was the last one.
                        assert_eq!(calls.load(Ordering::Relaxed), j);
                        assert_eq!(budget.stop_checks(), j);
                        mid_turn += usize::from(ep.is_resolving());
                        stopped += 1;
                    }
                    Err(e) => panic!("{e}"),
                }
            });
            assert!(!ep.is_resolving());
            // A poll between frames every STOP_CHECK_EVERY_FRAMES frames, besides the
            // polls at turn starts.
            assert!(
                budget.stop_checks()
                    >= budget.turns_used()
                        + budget.frames_stepped() / u64::from(STOP_CHECK_EVERY_FRAMES)
            );
            if calls.load(Ordering::Relaxed) >= j {
                assert_eq!(stopped, 1, "seed {seed} j {j}");
            }
            assert_eq!(ep.transcript(), want.transcript(), "seed {seed} j {j}");
            assert_eq!(ep.snapshot(), want.snapshot(), "seed {seed} j {j}");
        }
    }
    // Some stops came between two frames of a turn, not at a turn start.
    assert!(mid_turn > 0, "no stop happened inside a turn");
}

#[test]
fn a_stop_that_is_always_true_does_no_work_and_a_pending_decision_needs_no_budget() {
    let enc = bundled::encounter(false);
    let mut ep = Episode::new(enc.clone(), 7, &controllers(&enc, 0));
    let yes = || true;
    let mut budget = WorkBudget::new(10, &yes);
    assert_eq!(ep.advance_within(&mut budget), Err(Interrupted::Stopped));
    assert!(ep.transcript().is_empty(), "initiative was rolled");
    assert_eq!(budget.turns_used(), 0);
    // A zero budget at a pending decision returns the decision.
    let mut ext = Episode::new(enc.clone(), 7, &controllers(&enc, 5));
    let first = ext.advance();
    let never = || false;
    let mut zero = WorkBudget::new(0, &never);
    assert_eq!(ext.advance_within(&mut zero), Ok(first));
    assert_eq!(zero.stop_checks(), 0);
}

#[test]
fn every_turn_start_counts_and_polls() {
    let enc = bundled::encounter(false);
    let want = uninterrupted(&enc, 3, 0);
    let mut ep = Episode::new(enc.clone(), 3, &controllers(&enc, 0));
    let never = || false;
    let mut budget = WorkBudget::new(u64::MAX, &never);
    let status = ep.advance_within(&mut budget).unwrap();
    assert!(matches!(status, Status::Terminal(_)));
    assert_eq!(ep.transcript(), want.transcript());
    // One turn per line "round N id: …" start at least: the turns of every round.
    let rounds = u64::from(ep.round());
    assert!(
        budget.turns_used() >= rounds,
        "{} turns",
        budget.turns_used()
    );
    // Initiative + every turn start polled.
    assert!(budget.stop_checks() > budget.turns_used());
}
