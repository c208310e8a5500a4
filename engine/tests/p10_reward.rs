//! P10: a `RewardTracker` serialized with a snapshot continues exactly: restored episode +
//! deserialized tracker report bit-for-bit the rewards the original would; `validate`
//! refuses a tracker that does not fit the episode.

#[path = "../examples/common/bundled.rs"]
mod bundled;

use pf1e_engine::reward::{RewardConfig, RewardTracker};
use pf1e_engine::{Action, Controller, Episode, Status};

const SHAPED: RewardConfig = RewardConfig {
    shaped: true,
    damage_weight: 1.0,
    kill_weight: 0.1,
    round_discount: 0.95,
};

/// The action `rng` picks at the pending decision (an attack when there is one).
fn pick(ep: &Episode, rng: &mut u64) -> Action {
    *rng = rng
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let legal = ep.legal_actions();
    legal
        .iter()
        .find(|l| {
            matches!(
                l.action.kind,
                pf1e_engine::ActionKind::Attack | pf1e_engine::ActionKind::FullAttack
            ) && !(*rng >> 40).is_multiple_of(4)
        })
        .unwrap_or(&legal[(*rng >> 33) as usize % legal.len()])
        .action
        .clone()
}

/// Play on from `status` to the end, settling after every status change; the rewards
/// reported, as bits.
fn play_on(
    ep: &mut Episode,
    tracker: &mut RewardTracker,
    mut status: Status,
    mut rng: u64,
) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    while let Status::Decision(d) = &status {
        let a = pick(ep, &mut rng);
        ep.submit(d.decision_id, &[a]).unwrap();
        status = ep.advance();
        out.extend(
            tracker
                .settle(ep, &status)
                .into_iter()
                .map(|(s, r)| (s, r.to_bits())),
        );
    }
    out
}

#[test]
fn a_restored_tracker_reports_exactly_the_original_rewards() {
    let mut compared = 0;
    for casters in [false, true] {
        let enc = bundled::encounter(casters);
        let sides = vec!["players".to_string(), "monsters".to_string()];
        for seed in 0..5u64 {
            for cut in [2usize, 5, 9] {
                let mut ep = Episode::new(enc.clone(), seed, &[Controller::External; 8]);
                let mut tracker = RewardTracker::new(&ep, sides.clone(), SHAPED);
                let mut status = ep.advance();
                tracker.settle(&ep, &status);
                let mut rng = seed;
                for _ in 0..cut {
                    let Status::Decision(d) = &status else { break };
                    let a = pick(&ep, &mut rng);
                    ep.submit(d.decision_id, &[a]).unwrap();
                    status = ep.advance();
                    tracker.settle(&ep, &status);
                }
                if matches!(status, Status::Terminal(_)) {
                    continue;
                }
                let snap = ep.snapshot();
                let json = serde_json::to_string(&tracker).unwrap();
                let mut back_ep = Episode::restore(enc.clone(), &snap).unwrap();
                let mut back: RewardTracker = serde_json::from_str(&json).unwrap();
                back.validate(&back_ep).unwrap();
                assert_eq!(back, tracker);
                let want = play_on(&mut ep, &mut tracker, status.clone(), rng);
                let back_status = back_ep.advance();
                assert_eq!(back_status, status);
                let got = play_on(&mut back_ep, &mut back, back_status, rng);
                assert_eq!(got, want, "casters {casters} seed {seed} cut {cut}");
                assert!(want.iter().any(|(_, r)| *r != 0), "no reward");
                compared += 1;
            }
        }
    }
    assert!(compared >= 10, "{compared}");
}

#[test]
fn validate_names_what_does_not_fit() {
    let enc = bundled::encounter(false);
    let mut ep = Episode::new(enc.clone(), 1, &[Controller::External]);
    let status = ep.advance();
    let mut tracker = RewardTracker::new(&ep, vec!["players".into()], SHAPED);
    tracker.settle(&ep, &status);
    let v: serde_json::Value = serde_json::to_value(&tracker).unwrap();
    let check = |edit: &dyn Fn(&mut serde_json::Value), field: &str| {
        let mut x = v.clone();
        edit(&mut x);
        let t: RewardTracker = serde_json::from_value(x).unwrap();
        let e = t.validate(&ep).expect_err(field);
        assert_eq!(e.field, field, "{e}");
    };
    check(&|x| x["sides"][0] = "dragons".into(), "sides[0]");
    check(
        &|x| x["sides"] = serde_json::json!(["players", "players"]),
        "sides[1]",
    );
    check(&|x| x["last"] = serde_json::json!([]), "last");
    check(
        &|x| x["config"]["round_discount"] = 0.0.into(),
        "config.round_discount",
    );
    check(
        &|x| x["config"]["round_discount"] = 1.5.into(),
        "config.round_discount",
    );
    // JSON cannot carry a non-finite baseline (serde_json refuses 1e999), nor an unknown
    // field.
    let mut x = v.clone();
    x["extra"] = 1.into();
    assert!(serde_json::from_value::<RewardTracker>(x).is_err());
    assert!(serde_json::from_str::<RewardTracker>(
        &serde_json::to_string(&v)
            .unwrap()
            .replace("\"last\":[", "\"last\":[1e999,")
    )
    .is_err());
    tracker.validate(&ep).unwrap();
}
