//! P12 — fair under abuse (issue 25): no request of one client may stall, starve or outgrow
//! the others'. Each test runs an abusive client beside a well-behaved one on loopback,
//! bounded in count and time, and compares the well-behaved client's latency with its idle
//! value (a ratio, never an absolute time).
mod common;

use common::{connect_plain, start_transport, DATA_DIR};
use pf1e_env_server::proto::{self, environment_client::EnvironmentClient, scenario::Source};
use pf1e_env_server::service::ServiceConfig;
use pf1e_env_server::transport::TransportConfig;
use std::time::{Duration, Instant};
use tonic::transport::Channel;

/// Three sides: `west` (one goblin, the client's) stands in a room with `east` (three
/// goblins) next to it; `north` (two goblins) is walled off in the other room. Once `west`
/// falls, `east` and `north` never meet: the combat runs to its round cap (100,000), all of
/// it inside the Step in which `west` fell.
fn trap() -> proto::ResetRequest {
    trap_capped(100_000)
}

/// [`trap`] with a round cap of `round_cap` rounds.
fn trap_capped(round_cap: u32) -> proto::ResetRequest {
    let map_yaml = "name: trap\nsquare_size_ft: 5\nterrain: |\n  ###########\n  #....#....#\n  #....#....#\n  ###########\nlegend:\n  \"#\": { type: wall, move_cost: null, blocks_los: true }\n  \".\": { type: floor, move_cost: 1 }\nzones: |\n  ...........\n  .AB....CC..\n  .BB....CC..\n  ...........\ndeployment:\n  west: A\n  east: B\n  north: C\n".to_string();
    let goblin = common::read_data("monsters/goblin.json");
    let side = |name: &str, n: usize| proto::InlineSide {
        name: name.into(),
        combatants: (0..n)
            .map(|i| proto::InlineCombatant {
                json: goblin.clone(),
                base_id: format!("{name}_{i}"),
            })
            .collect(),
    };
    proto::ResetRequest {
        scenario: Some(proto::Scenario {
            source: Some(Source::Inline(proto::InlineScenario {
                map_yaml,
                sides: vec![side("west", 1), side("east", 3), side("north", 2)],
                round_cap,
                simple_monster_death: false,
            })),
        }),
        seed: 7,
        controlled: common::controlled_sides(&["west"]),
        ..Default::default()
    }
}

/// Ends the client's turn until a Step runs long: returns the wall time of the last Step
/// and its result (the long one is stopped by the server: `max_call_duration`).
async fn step_until_trapped(
    c: &mut EnvironmentClient<Channel>,
) -> (Duration, Result<proto::EpisodeState, tonic::Status>) {
    let mut s = c.reset(trap()).await.expect("reset").into_inner();
    for _ in 0..500 {
        let Some(d) = s.decision.clone() else {
            panic!("the episode ended before the trap closed: {:?}", s.outcome);
        };
        let t0 = Instant::now();
        let r = c
            .step(proto::StepRequest {
                episode_id: s.episode_id.clone(),
                decision_id: d.decision_id,
                actions: vec![proto::Action {
                    kind: proto::ActionKind::EndTurn as i32,
                    ..Default::default()
                }],
                ..Default::default()
            })
            .await
            .map(|r| r.into_inner());
        let took = t0.elapsed();
        match r {
            Ok(next) if next.decision.is_some() => s = next,
            other => return (took, other),
        }
    }
    panic!("west never fell in 500 rounds");
}

/// Round-trip times of `n` Echo calls, `pause` apart.
async fn echoes(c: &mut EnvironmentClient<Channel>, n: usize, pause: Duration) -> Vec<Duration> {
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let t0 = Instant::now();
        c.echo(proto::EchoRequest {
            payload: b"ping".to_vec(),
        })
        .await
        .expect("echo");
        out.push(t0.elapsed());
        tokio::time::sleep(pause).await;
    }
    out
}

fn quantile(v: &[Duration], q: f64) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// H1 — engine work off the async runtime. One Step of a fight that cannot end (its client's
/// combatant falls, the two other sides are walled off from each other) runs until the
/// server's longest call duration; meanwhile another connection's Echo must still be
/// answered promptly. The server and both clients share one runtime thread here
/// (`#[tokio::test]` is single-threaded), so engine work run on it stalls every Echo for the
/// whole Step: the longest Echo wait must stay under a quarter of the Step's duration.
#[tokio::test]
async fn a_worst_case_step_does_not_stall_another_connection() {
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_turns_per_call = u64::MAX;
    config.max_call_duration = Some(Duration::from_secs(2));
    let t = start_transport(config, TransportConfig::new(None)).await;
    let mut abuser = EnvironmentClient::new(connect_plain(t.addr).await);
    let mut good = EnvironmentClient::new(connect_plain(t.addr).await);
    let idle = echoes(&mut good, 30, Duration::from_millis(2)).await;

    let abuse = tokio::spawn(async move { step_until_trapped(&mut abuser).await });
    let mut during = Vec::new();
    while !abuse.is_finished() {
        during.extend(echoes(&mut good, 1, Duration::from_millis(10)).await);
    }
    let (took, r) = abuse.await.unwrap();
    let e = r.expect_err("the trapped Step is stopped by the server's longest call");
    assert_eq!(e.code(), tonic::Code::DeadlineExceeded, "{e:?}");
    assert!(took >= Duration::from_millis(1500), "the Step ran {took:?}");
    let worst = quantile(&during, 1.0);
    eprintln!(
        "idle echo p50 {:?} max {:?}; during a {took:?} Step: p50 {:?} max {worst:?} ({} echoes)",
        quantile(&idle, 0.5),
        quantile(&idle, 1.0),
        quantile(&during, 0.5),
        during.len()
    );
    assert!(
        worst * 4 < took,
        "an Echo waited {worst:?} while another client's Step ran {took:?}"
    );
}

