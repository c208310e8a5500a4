//! P10: `Episode::memory_bytes` is counted incrementally (O(1) in the episode's length) and
//! equals a from-scratch recount after play, snapshot/restore, clone and step recording.

#[path = "../examples/common/bundled.rs"]
mod bundled;

use pf1e_engine::{Controller, Episode, Status};

fn play_some(ep: &mut Episode, seed: u64, decisions: usize) -> Status {
    let mut rng = seed | 1;
    let mut status = ep.advance();
    for _ in 0..decisions {
        let Status::Decision(d) = &status else { break };
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let legal = ep.legal_actions();
        let pick = &legal[(rng >> 33) as usize % legal.len()];
        ep.submit(d.decision_id, std::slice::from_ref(&pick.action))
            .unwrap();
        status = ep.advance();
    }
    status
}

#[test]
fn memory_grows_with_the_log_and_equals_a_recount() {
    for casters in [false, true] {
        let enc = bundled::encounter(casters);
        for seed in 0..6u64 {
            let mut ep = Episode::new(enc.clone(), seed, &[Controller::External; 2]);
            let start = ep.memory_bytes();
            assert_eq!(start, ep.memory_bytes_recount());
            let mut last_len = 0;
            let mut last_mem = start;
            let mut rng_seed = seed;
            loop {
                let status = play_some(&mut ep, rng_seed, 1);
                rng_seed += 1;
                assert_eq!(ep.memory_bytes(), ep.memory_bytes_recount(), "seed {seed}");
                let len = ep.transcript().len();
                let log_text: usize = ep.transcript().iter().map(|l| l.message.len()).sum();
                // The transcript's text is counted.
                assert!(ep.memory_bytes() as usize > log_text);
                if len > last_len + 20 {
                    assert!(ep.memory_bytes() > last_mem, "seed {seed}: no growth");
                    last_len = len;
                    last_mem = ep.memory_bytes();
                }
                // A clone and a restore count the same.
                let copy = ep.clone();
                assert_eq!(copy.memory_bytes(), ep.memory_bytes());
                if ep.history().len().is_multiple_of(3) {
                    let back = Episode::restore(enc.clone(), &ep.snapshot()).unwrap();
                    assert_eq!(back.memory_bytes(), ep.memory_bytes());
                    assert_eq!(back.memory_bytes(), back.memory_bytes_recount());
                }
                if matches!(status, Status::Terminal(_)) {
                    break;
                }
            }
            assert!(ep.memory_bytes() > start + 1000, "seed {seed}");
        }
    }
}

#[test]
fn the_step_recording_is_counted() {
    let enc = bundled::encounter(false);
    let mut plain = Episode::new(enc.clone(), 4, &[Controller::External]);
    let mut recorded = plain.clone();
    recorded.record_steps();
    play_some(&mut plain, 4, 6);
    play_some(&mut recorded, 4, 6);
    assert_eq!(plain.transcript(), recorded.transcript());
    assert_eq!(recorded.memory_bytes(), recorded.memory_bytes_recount());
    // Every kept copy costs at least a whole episode.
    assert!(recorded.memory_bytes() > 3 * plain.memory_bytes());
}

/// `keep_transcript(false)` (Monte Carlo runs) changes nothing but the transcript: the same
/// decisions, masks, tensors, attrition and outcome as with the transcript, for whole
/// default-policy combats and for externally played ones, on the sample arena and the
/// casters' scenario; no line is kept and none is counted in `memory_bytes`.
#[test]
fn transcript_off_changes_nothing_but_the_transcript() {
    for casters in [false, true] {
        let enc = bundled::encounter(casters);
        let players = enc
            .combatants
            .iter()
            .filter(|c| c.side == "players")
            .count();
        for seed in 0..8u64 {
            for external in [false, true] {
                let ctl = if external {
                    vec![Controller::External; players]
                } else {
                    Vec::new()
                };
                let mut on = Episode::new(enc.clone(), seed, &ctl);
                let mut off = Episode::new(enc.clone(), seed, &ctl);
                off.keep_transcript(false);
                let mut rng = seed | 1;
                let mut decisions = 0;
                let outcome = loop {
                    let (a, b) = (on.advance(), off.advance());
                    assert_eq!(a, b, "seed {seed}");
                    let Status::Decision(d) = a else {
                        let Status::Terminal(o) = a else {
                            unreachable!()
                        };
                        break o;
                    };
                    let actor = d.actor;
                    assert_eq!(on.action_mask(), off.action_mask(), "seed {seed}");
                    assert_eq!(
                        on.observation_tensor(actor),
                        off.observation_tensor(actor),
                        "seed {seed}"
                    );
                    rng = rng
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let legal = on.legal_actions();
                    let pick = &legal[(rng >> 33) as usize % legal.len()];
                    let act = std::slice::from_ref(&pick.action);
                    assert_eq!(
                        on.submit(d.decision_id, act).unwrap(),
                        off.submit(d.decision_id, act).unwrap()
                    );
                    decisions += 1;
                };
                assert!(outcome.rounds > 0);
                assert_eq!(on.attrition(), off.attrition(), "seed {seed}");
                assert!(!on.transcript().is_empty());
                assert!(off.transcript().is_empty());
                assert!(off.memory_bytes() < on.memory_bytes());
                assert_eq!(off.memory_bytes(), off.memory_bytes_recount());
                assert_eq!(decisions > 0, external, "seed {seed}");
            }
        }
    }
}
