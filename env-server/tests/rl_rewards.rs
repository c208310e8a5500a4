//! Issue 14 (P9): `RewardOptions.round_discount` through the server (validation, Reset,
//! the per-round discount of the reported rewards) and `ActionBlock.axes` of `GetSpec`
//! (decoding an id by the axes gives the action `ActionSpace::decode` gives).

use pf1e_engine::actions::space::{ActionSpace, STEP_DIRECTIONS};
use pf1e_engine::{ActionKind, Cell};
use pf1e_env_server::proto;
use pf1e_env_server::scenarios::ScenarioStore;
use tonic::Code;

mod common;
use common::*;

/// Mask only: the RL hot path.
fn lean() -> Option<proto::ObservationOptions> {
    Some(proto::ObservationOptions {
        json: Some(false),
        tensors: false,
        legal_actions: Some(false),
        typed: Some(false),
        action_mask: true,
        ..Default::default()
    })
}

/// Deterministic: the smallest legal id above `end_turn` (the attack blocks come first), else
/// `end_turn`.
fn pick(s: &proto::EpisodeState) -> u32 {
    (1..s.action_mask.len())
        .find(|&i| s.action_mask[i] == 1)
        .unwrap_or(0) as u32
}

/// Every state of an episode played with [`pick`] from `s`.
async fn play(
    c: &mut pf1e_env_server::proto::environment_client::EnvironmentClient<
        tonic::transport::Channel,
    >,
    mut s: proto::EpisodeState,
) -> Vec<proto::EpisodeState> {
    let mut all = vec![s.clone()];
    while !(s.terminated || s.truncated) {
        let req = proto::StepRequest {
            episode_id: s.episode_id.clone(),
            decision_id: s.decision.as_ref().unwrap().decision_id,
            action_ids: vec![pick(&s)],
            ..Default::default()
        };
        s = c.step(req).await.unwrap().into_inner();
        all.push(s.clone());
    }
    all
}

fn reward(shaped: bool, g: Option<f32>) -> Option<proto::RewardOptions> {
    Some(proto::RewardOptions {
        shaped,
        round_discount: g,
        ..Default::default()
    })
}

#[tokio::test]
async fn round_discount_is_validated_and_discounts_by_rounds() {
    let mut t = start().await;
    let spec = spec_of(&mut t.client, "sample_arena").await;
    let caps = spec.capabilities.unwrap();
    assert!(caps.round_discount && caps.action_block_axes);

    for bad in [0.0, -0.5, 1.0001, 2.0, f32::NAN, f32::INFINITY] {
        let mut req = reset_req("sample_arena", 0, &["players"]);
        req.reward = reward(true, Some(bad));
        let e = t.client.reset(req).await.unwrap_err();
        assert_eq!(e.code(), Code::InvalidArgument, "{bad}");
        assert!(
            e.message().contains("reward.round_discount"),
            "{bad}: {e:?}"
        );
    }

    // The same seed and actions with g = 1 (the rewards of before) and g = 0.8: the
    // trajectories are the same, and each reward of the discounted run is
    // d(r) × phi − d(r') × phi' (+ d(R) × sparse at the end), phi being the running sum of
    // the undiscounted run's rewards — the potential, as the proto documents.
    let g = 0.8f32;
    let mut later_rounds = 0;
    for seed in 0..3 {
        let mut runs = Vec::new();
        for disc in [None, Some(1.0), Some(g)] {
            let mut req = reset_req("sample_arena", seed, &["players"]);
            req.reward = reward(true, disc);
            req.observation = lean();
            let s = t.client.reset(req).await.unwrap().into_inner();
            runs.push(play(&mut t.client, s).await);
        }
        let (plain, one, disc) = (&runs[0], &runs[1], &runs[2]);
        assert_eq!(plain.len(), disc.len());
        // Unset and 1.0 are the same, bit for bit.
        let bits = |r: &Vec<proto::EpisodeState>| -> Vec<u32> {
            r.iter().map(|s| s.reward.to_bits()).collect()
        };
        assert_eq!(bits(plain), bits(one));
        let last = plain.last().unwrap();
        let outcome = last.outcome.as_ref().unwrap();
        let sparse = match outcome.winner.as_str() {
            "players" => 1.0,
            "" => 0.0,
            _ => -1.0,
        };
        let d = |round: u32| f64::from(g).powi(round.max(1) as i32 - 1);
        let (mut phi, mut prev) = (0.0f64, 0.0f64);
        for (p, q) in plain.iter().zip(disc) {
            assert_eq!(p.action_mask, q.action_mask);
            let reported = p.rewards.contains_key("players");
            assert_eq!(reported, q.rewards.contains_key("players"));
            if !reported {
                continue;
            }
            let round = match &p.decision {
                Some(dc) => dc.round,
                None => outcome.rounds,
            };
            later_rounds += usize::from(round > 1);
            let end = p.decision.is_none();
            phi += f64::from(p.reward) - if end { sparse } else { 0.0 };
            let now = d(round) * phi;
            let want = now - prev + if end { d(round) * sparse } else { 0.0 };
            prev = now;
            assert!(
                (f64::from(q.reward) - want).abs() < 1e-4,
                "seed {seed} round {round}: {} vs {want}",
                q.reward
            );
        }
    }
    assert!(later_rounds > 0, "every fight ended in round 1");
}

#[tokio::test]
async fn action_block_axes_decode_as_the_engine_does() {
    let mut t = start().await;
    let store = ScenarioStore::new(DATA_DIR);
    let names: Vec<String> = store.list().into_iter().map(|i| i.name).collect();
    assert!(names.len() >= 4, "{names:?}");
    for name in &names {
        let spec = spec_of(&mut t.client, name).await;
        let enc = store.named(name, "scenario").unwrap();
        let space = ActionSpace::of(&enc);
        let cols = enc.map.cols;
        assert_eq!(spec.action_blocks.len(), space.blocks().len());
        for (bi, b) in spec.action_blocks.iter().enumerate() {
            assert_eq!(b.name, space.blocks()[bi].0);
            assert_eq!(b.axes.len(), b.axis_sizes.len(), "{name} {}", b.name);
            let product: u32 = b.axis_sizes.iter().product();
            assert_eq!(product, b.size, "{name} {}", b.name);
            let enumerated = matches!(
                b.axes.last().map(String::as_str),
                Some("direction" | "maneuver" | "mode" | "metamagic")
            );
            if enumerated {
                assert_eq!(
                    b.last_axis_values.len() as u32,
                    *b.axis_sizes.last().unwrap()
                );
            } else {
                assert!(b.last_axis_values.is_empty(), "{}", b.name);
            }
            // An actor somewhere inside the map (the 5-foot step is relative to it).
            let pos = Cell::new(3, 4);
            for k in 0..b.size {
                let id = b.first_id + k;
                let a = space.decode(id, pos).unwrap();
                // The effective action (a readied attack's target and weapon are its own).
                let inner = a.readied.as_deref().unwrap_or(&a);
                // Row-major over the axes, the last fastest.
                let mut rest = k;
                let mut value = vec![0u32; b.axes.len()];
                for i in (0..b.axes.len()).rev() {
                    value[i] = rest % b.axis_sizes[i];
                    rest /= b.axis_sizes[i];
                }
                let ctx = format!("{name} {} #{k}: {a:?}", b.name);
                let mut seen_target = false;
                for (axis, &v) in b.axes.iter().zip(&value) {
                    let vname = || b.last_axis_values[v as usize].as_str();
                    match axis.as_str() {
                        "target" | "opponent" => {
                            assert_eq!(inner.target.map(|c| u32::from(c.0)), Some(v), "{ctx}");
                            seen_target = true;
                        }
                        "ally" => assert_eq!(a.ally.map(|c| u32::from(c.0)), Some(v), "{ctx}"),
                        "weapon" => assert_eq!(inner.weapon, Some(v as usize), "{ctx}"),
                        "square" => {
                            let c = Cell::new(v as i32 / cols, v as i32 % cols);
                            assert_eq!(a.destination.or(a.target_pos), Some(c), "{ctx}");
                        }
                        "direction" => {
                            let (dr, dc) = STEP_DIRECTIONS[v as usize];
                            assert_eq!(
                                a.destination,
                                Some(Cell::new(pos.row + dr, pos.col + dc)),
                                "{ctx}"
                            );
                            assert_eq!(
                                vname(),
                                ["N", "NE", "E", "SE", "S", "SW", "W", "NW"][v as usize]
                            );
                        }
                        "maneuver" => {
                            assert_eq!(a.maneuver.map(|m| m.name()), Some(vname()), "{ctx}")
                        }
                        "mode" => assert_eq!(a.aid_mode.map(|m| m.name()), Some(vname()), "{ctx}"),
                        "metamagic" => {
                            assert_eq!(
                                a.metamagic.iter().map(|m| m.name()).collect::<Vec<_>>(),
                                vec![vname()],
                                "{ctx}"
                            )
                        }
                        "spell" => assert_eq!(a.spell, Some(v as usize), "{ctx}"),
                        "delay" => {
                            assert_eq!(a.kind, ActionKind::Delay);
                            assert_eq!(
                                a.target.map(|c| u32::from(c.0) + 1).unwrap_or(0),
                                v,
                                "{ctx}"
                            );
                            seen_target = true;
                        }
                        other => panic!("unknown axis {other}"),
                    }
                }
                // No axis left out: a target the axes do not name is none (spring attack
                // and shot on the run aside, whose destination is the actor's own square).
                if !seen_target {
                    assert_eq!(inner.target, None, "{ctx}");
                }
                if !b.axes.iter().any(|x| x == "weapon") {
                    assert_eq!(inner.weapon, None, "{ctx}");
                }
                if b.axes.is_empty() {
                    assert_eq!(b.size, 1, "{ctx}");
                }
            }
        }
    }
}
