//! P10 (safe to expose): episode ownership, unguessable ids with the server instance, quotas,
//! memory accounting, authenticated snapshots and exact Restore — each a finding of the
//! break-it review, checked on in-process handles acting for distinct clients
//! (`EnvironmentService::for_client`), as the transport's interceptor makes them.
mod common;

use common::{named, reset_req, DATA_DIR};
use pf1e_env_server::proto;
use pf1e_env_server::service::{
    EnvironmentService, Owner, Principal, Quotas, ServiceConfig, ServiceError,
};
use std::sync::Arc;

fn client(svc: &EnvironmentService, name: &str, max_episodes: usize) -> EnvironmentService {
    svc.for_client(Principal {
        owner: Owner::Token(name.into()),
        quotas: Arc::new(Quotas {
            max_episodes,
            max_evaluations: 2,
            max_memory_bytes: 1 << 30,
        }),
        rate: None,
    })
}

fn status(e: ServiceError) -> tonic::Status {
    e.into()
}

fn reason(st: &tonic::Status) -> &str {
    st.metadata()
        .get("pf1e-reason")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

fn decide_first(svc: &EnvironmentService, st: &proto::EpisodeState) -> proto::EpisodeState {
    let d = st.decision.as_ref().expect("a decision");
    svc.step_blocking(&proto::StepRequest {
        episode_id: st.episode_id.clone(),
        decision_id: d.decision_id,
        action_ids: vec![first_legal(st)],
        ..Default::default()
    })
    .unwrap()
}

fn first_legal(st: &proto::EpisodeState) -> u32 {
    st.legal_actions
        .iter()
        .map(|a| a.id)
        .find(|&id| id != 0)
        .unwrap_or(st.legal_actions[0].id)
}

/// Finding: "no RPC checks who owns an episode — another client's episodes can be observed,
/// stepped and closed".
#[test]
fn another_clients_episode_is_not_found_for_every_rpc() {
    let svc = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    let alice = client(&svc, "alice", 16);
    let bob = client(&svc, "bob", 16);
    let st = alice
        .reset_blocking(&reset_req("sample_arena", 1, &["players"]))
        .unwrap();
    let id = st.episode_id.clone();
    let d = st.decision.as_ref().unwrap().decision_id;
    let not_found = |r: Result<(), ServiceError>| {
        let e = status(r.unwrap_err());
        assert_eq!(e.code(), tonic::Code::NotFound, "{e:?}");
        assert!(e.message().contains("unknown episode"), "{e:?}");
    };
    not_found(
        bob.observe_blocking(&proto::ObserveRequest {
            episode_id: id.clone(),
        })
        .map(drop),
    );
    not_found(
        bob.step_blocking(&proto::StepRequest {
            episode_id: id.clone(),
            decision_id: d,
            action_ids: vec![0],
            ..Default::default()
        })
        .map(drop),
    );
    not_found(
        bob.close_episode(&proto::CloseRequest {
            episode_id: id.clone(),
        })
        .map(drop),
    );
    not_found(
        bob.snapshot_blocking(&proto::SnapshotRequest {
            episode_id: id.clone(),
        })
        .map(drop),
    );
    not_found(
        bob.fork_blocking(&proto::ForkRequest {
            episode_id: id.clone(),
        })
        .map(drop),
    );
    not_found(
        bob.describe_blocking(&proto::DescribeRequest {
            episode_id: id.clone(),
        })
        .map(drop),
    );
    // The owner still has it, untouched.
    let again = alice
        .observe_blocking(&proto::ObserveRequest {
            episode_id: id.clone(),
        })
        .unwrap();
    assert_eq!(again.decision.unwrap().decision_id, d);
    alice
        .close_episode(&proto::CloseRequest { episode_id: id })
        .unwrap();
}

/// Finding: "`ep-` + splitmix64(counter ^ salt) is invertible; one's own id plus
/// `Stats.episodes_created` gives every other id".
#[test]
fn ids_are_128_random_bits_after_the_instance_id() {
    let svc = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    let inst = svc.instance_id().to_string();
    assert_eq!(inst.len(), 8);
    let ids: Vec<String> = (0..200)
        .map(|s| {
            svc.reset_blocking(&reset_req("sample_arena", s, &["players"]))
                .unwrap()
                .episode_id
        })
        .collect();
    let mut seen = std::collections::HashSet::new();
    // Bits that differ between consecutive ids: about half of 128 for random ids (a counter
    // through an invertible mix would also look random, so also check no two ids share their
    // first 64 random bits and that the bit balance is near 1/2 over all ids).
    let mut ones = 0u32;
    for id in &ids {
        let (prefix, random) = id.split_at(3 + 8 + 1);
        assert_eq!(prefix, format!("ep-{inst}-"));
        assert_eq!(random.len(), 32);
        let v = u128::from_str_radix(random, 16).unwrap();
        ones += v.count_ones();
        assert!(seen.insert(v >> 64), "two ids share 64 bits");
    }
    let mean = f64::from(ones) / ids.len() as f64;
    // 128 fair bits: mean 64, sd of the mean 8/sqrt(200) ≈ 0.57; 6 sd.
    assert!((mean - 64.0).abs() < 3.4, "mean ones per id {mean}");
}

/// Finding: "a restarted server answers NOT_FOUND with no hint that it restarted".
#[test]
fn an_id_of_an_earlier_instance_says_server_restarted() {
    let before = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    let id = before
        .reset_blocking(&reset_req("sample_arena", 1, &["players"]))
        .unwrap()
        .episode_id;
    let after = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    assert_ne!(before.instance_id(), after.instance_id());
    let e = status(
        after
            .observe_blocking(&proto::ObserveRequest { episode_id: id })
            .unwrap_err(),
    );
    assert_eq!(e.code(), tonic::Code::NotFound);
    assert!(
        e.message().contains("server restarted; episode lost"),
        "{e:?}"
    );
    assert_eq!(reason(&e), "episode_lost");
    // An id of this instance that is not open, or a made-up one: a plain unknown episode.
    let e = status(
        after
            .observe_blocking(&proto::ObserveRequest {
                episode_id: "ep-whatever".into(),
            })
            .unwrap_err(),
    );
    assert_eq!(e.code(), tonic::Code::NotFound);
    assert_eq!(reason(&e), "");
}

/// Finding: "one killed vector client's 4,096 orphaned episodes lock every other client out".
#[test]
fn one_client_at_its_quota_does_not_starve_another() {
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_episodes = 10;
    let svc = EnvironmentService::new(config);
    let greedy = client(&svc, "greedy", 6);
    let other = client(&svc, "other", 6);
    for s in 0..6 {
        greedy
            .reset_blocking(&reset_req("sample_arena", s, &["players"]))
            .unwrap();
    }
    let e = status(
        greedy
            .reset_blocking(&reset_req("sample_arena", 9, &["players"]))
            .unwrap_err(),
    );
    assert_eq!(e.code(), tonic::Code::ResourceExhausted);
    assert_eq!(reason(&e), "quota");
    assert!(e.message().contains("quota 6"), "{e:?}");
    for s in 0..4 {
        other
            .reset_blocking(&reset_req("sample_arena", s, &["players"]))
            .unwrap();
    }
    let st = greedy.stats();
    assert_eq!(st.client, "greedy");
    assert_eq!(st.client_live_episodes, 6);
    assert_eq!(st.client_max_episodes, 6);
    assert_eq!(st.live_episodes, 10);
}

/// Episodes of an anonymous connection are closed when it ends; others are kept.
#[test]
fn a_connection_closing_closes_only_its_episodes() {
    let svc = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    let conn = |n| {
        svc.for_client(Principal {
            owner: Owner::Connection(n),
            quotas: Arc::new(svc.config().client_quotas.clone()),
            rate: None,
        })
    };
    for s in 0..3 {
        conn(7)
            .reset_blocking(&reset_req("sample_arena", s, &["players"]))
            .unwrap();
    }
    conn(8)
        .reset_blocking(&reset_req("sample_arena", 5, &["players"]))
        .unwrap();
    assert_eq!(svc.open_episodes(), 4);
    assert_eq!(svc.connection_closed(7), 3);
    assert_eq!(svc.open_episodes(), 1);
    assert_eq!(conn(8).stats().client_live_episodes, 1);
}

/// Finding: "200 tiny Fork calls reached 3.7 GiB": every episode's memory is accounted
/// (Stats) and bounded per episode and per client.
#[test]
fn memory_is_accounted_and_bounded() {
    let svc = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    assert_eq!(svc.stats().episode_memory_bytes, 0);
    let st = svc
        .reset_blocking(&reset_req("sample_arena", 1, &["players"]))
        .unwrap();
    let one = svc.stats().episode_memory_bytes;
    assert!(one > 1000, "{one}");
    let fork = svc
        .fork_blocking(&proto::ForkRequest {
            episode_id: st.episode_id.clone(),
        })
        .unwrap()
        .1;
    let two = svc.stats().episode_memory_bytes;
    assert!(two >= 2 * one - 64, "{one} {two}");
    for id in [st.episode_id, fork.episode_id] {
        svc.close_episode(&proto::CloseRequest { episode_id: id })
            .unwrap();
    }
    assert_eq!(svc.stats().episode_memory_bytes, 0);

    // A per-episode limit below one episode's size: refused with reason "memory".
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_episode_memory_bytes = 1000;
    let tight = EnvironmentService::new(config);
    let e = status(
        tight
            .reset_blocking(&reset_req("sample_arena", 1, &["players"]))
            .unwrap_err(),
    );
    assert_eq!(e.code(), tonic::Code::ResourceExhausted);
    assert_eq!(reason(&e), "memory");
    assert_eq!(tight.open_episodes(), 0);

    // A client's memory quota: forks stop when it is reached, another client is unaffected.
    let svc = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    let small = svc.for_client(Principal {
        owner: Owner::Token("small".into()),
        quotas: Arc::new(Quotas {
            max_episodes: 1000,
            max_evaluations: 1,
            max_memory_bytes: 5 * one,
        }),
        rate: None,
    });
    let st = small
        .reset_blocking(&reset_req("sample_arena", 1, &["players"]))
        .unwrap();
    let mut forks = 0;
    let err = loop {
        match small.fork_blocking(&proto::ForkRequest {
            episode_id: st.episode_id.clone(),
        }) {
            Ok(_) => forks += 1,
            Err(e) => break status(e),
        }
        assert!(forks < 100, "the memory quota never applied");
    };
    assert_eq!(reason(&err), "memory", "{err:?}");
    assert!((3..=5).contains(&forks), "{forks} forks");
    client(&svc, "other", 4)
        .reset_blocking(&reset_req("sample_arena", 2, &["players"]))
        .unwrap();
}

/// Finding: "snapshots are unsigned client data (hp 1006 of 6 accepted)".
#[test]
fn snapshots_are_authenticated() {
    let svc = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    let st = svc
        .reset_blocking(&reset_req("sample_arena", 1, &["players"]))
        .unwrap();
    let snap = svc
        .snapshot_blocking(&proto::SnapshotRequest {
            episode_id: st.episode_id.clone(),
        })
        .unwrap()
        .snapshot;
    let restore = |svc: &EnvironmentService, bytes: Vec<u8>| {
        svc.restore_blocking(&proto::RestoreRequest {
            scenario: named("sample_arena"),
            snapshot: bytes,
            ..Default::default()
        })
    };
    restore(&svc, snap.clone()).unwrap();
    // The engine's JSON inside, edited: an hp of 1006 where the snapshot has another value.
    let text = String::from_utf8_lossy(&snap).into_owned();
    let hp_at = text.find("\"hp\":").expect("an hp field");
    let mut tampered = text.clone();
    let end = hp_at
        + 5
        + text[hp_at + 5..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap();
    tampered.replace_range(hp_at + 5..end, "1006");
    let e = status(restore(&svc, tampered.into_bytes()).unwrap_err());
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    assert!(e.message().starts_with("snapshot: "), "{e:?}");
    assert!(e.message().contains("does not verify"), "{e:?}");
    // The bare engine snapshot (no envelope) is not accepted either.
    let e = status(restore(&svc, b"{\"format\":8}".to_vec()).unwrap_err());
    assert!(e.message().contains("not snapshot bytes"), "{e:?}");
    // Another instance: another random key…
    let other = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    assert!(restore(&other, snap.clone()).is_err());
    // …unless both share a key.
    let keyed = |key: &[u8]| {
        let mut c = ServiceConfig::new(DATA_DIR);
        c.snapshot_key = Some(key.to_vec());
        EnvironmentService::new(c)
    };
    let a = keyed(b"0123456789abcdef0123456789abcdef");
    let b = keyed(b"0123456789abcdef0123456789abcdef");
    let st = a
        .reset_blocking(&reset_req("sample_arena", 1, &["players"]))
        .unwrap();
    let snap = a
        .snapshot_blocking(&proto::SnapshotRequest {
            episode_id: st.episode_id,
        })
        .unwrap()
        .snapshot;
    restore(&b, snap).unwrap();
    // Over the size limit: refused before anything is read.
    let mut c = ServiceConfig::new(DATA_DIR);
    c.max_snapshot_bytes = 100;
    let e = status(restore(&EnvironmentService::new(c), vec![b'P'; 101]).unwrap_err());
    assert!(e.message().contains("--max-snapshot-bytes"), "{e:?}");
}

/// Finding: "Restore is not an exact continuation: it resets `steps` and drops the
/// shaped-reward bookkeeping (a self-play return came out wrong)". Self-play (both sides
/// controlled, shaped rewards): the restored session and the original, given the same
/// actions, report the same rewards bit for bit and the same step counts.
#[test]
fn restore_is_an_exact_continuation_in_self_play() {
    let svc = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    for seed in 0..6u64 {
        let mut req = reset_req("mirror_duel", seed, &[]);
        req.controlled = Some(proto::Controlled {
            sides: vec![],
            combatant_ids: vec![],
        });
        let spec = svc
            .get_spec_blocking(&proto::GetSpecRequest {
                scenario: named("mirror_duel"),
            })
            .unwrap();
        let sides: Vec<String> = spec.sides.clone();
        req.controlled =
            common::controlled_sides(&sides.iter().map(String::as_str).collect::<Vec<_>>());
        req.reward = Some(proto::RewardOptions {
            shaped: true,
            ..Default::default()
        });
        let mut st = svc.reset_blocking(&req).unwrap();
        // Play a few steps, then snapshot.
        for _ in 0..3 {
            if st.decision.is_none() {
                break;
            }
            st = decide_first(&svc, &st);
        }
        if st.decision.is_none() {
            continue;
        }
        let snap = svc
            .snapshot_blocking(&proto::SnapshotRequest {
                episode_id: st.episode_id.clone(),
            })
            .unwrap()
            .snapshot;
        let (_, restored) = svc
            .restore_blocking(&proto::RestoreRequest {
                scenario: named("mirror_duel"),
                snapshot: snap,
                reward: req.reward,
                ..Default::default()
            })
            .unwrap();
        let (mut a, mut b) = (st, restored);
        let mut n = 0;
        while let Some(d) = a.decision.clone() {
            let bd = b.decision.clone().expect("the copy decides too");
            assert_eq!(d.decision_id, bd.decision_id);
            let act = first_legal(&a);
            a = svc
                .step_blocking(&proto::StepRequest {
                    episode_id: a.episode_id.clone(),
                    decision_id: d.decision_id,
                    action_ids: vec![act],
                    ..Default::default()
                })
                .unwrap();
            b = svc
                .step_blocking(&proto::StepRequest {
                    episode_id: b.episode_id.clone(),
                    decision_id: d.decision_id,
                    action_ids: vec![act],
                    ..Default::default()
                })
                .unwrap();
            let bits = |s: &proto::EpisodeState| {
                let mut v: Vec<(String, u32)> = s
                    .rewards
                    .iter()
                    .map(|(side, r)| (side.clone(), r.to_bits()))
                    .collect();
                v.sort();
                v
            };
            assert_eq!(bits(&a), bits(&b), "seed {seed} step {n}");
            n += 1;
        }
        let steps = |s: &proto::EpisodeState| {
            svc.describe_blocking(&proto::DescribeRequest {
                episode_id: s.episode_id.clone(),
            })
            .unwrap()
            .steps
        };
        assert_eq!(steps(&a), steps(&b), "seed {seed}");
    }
}
