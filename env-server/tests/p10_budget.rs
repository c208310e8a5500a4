//! P10 work budgets (finding: "Reset and Step play every default-policy turn inside the call
//! … the deadline is checked only before the work and a cancel does not stop it"): a
//! runaway Reset — two sides walled off from each other, a round cap of 100,000, nobody
//! controlled — is stopped by its turn budget, its deadline, the server's longest call
//! duration, or its client going away, during the engine work.
mod common;

use common::{start_with, DATA_DIR};
use pf1e_env_server::proto::{self, scenario::Source};
use pf1e_env_server::service::{EnvironmentService, ServiceConfig};
use std::time::{Duration, Instant};

/// Two goblins per side, each side in its own walled room: they never meet, so the combat
/// runs to its round cap.
fn walled_off(round_cap: u32) -> proto::ResetRequest {
    let map_yaml = "name: walled\nsquare_size_ft: 5\nterrain: |\n  #########\n  #...#...#\n  #...#...#\n  #########\nlegend:\n  \"#\": { type: wall, move_cost: null, blocks_los: true }\n  \".\": { type: floor, move_cost: 1 }\nzones: |\n  .........\n  .A.....B.\n  .A.....B.\n  .........\ndeployment:\n  west: A\n  east: B\n".to_string();
    let goblin = common::read_data("monsters/goblin.json");
    let side = |name: &str| proto::InlineSide {
        name: name.into(),
        combatants: vec![
            proto::InlineCombatant {
                json: goblin.clone(),
                base_id: format!("{name}_a"),
            },
            proto::InlineCombatant {
                json: goblin.clone(),
                base_id: format!("{name}_b"),
            },
        ],
    };
    proto::ResetRequest {
        scenario: Some(proto::Scenario {
            source: Some(Source::Inline(proto::InlineScenario {
                map_yaml,
                sides: vec![side("west"), side("east")],
                round_cap,
                simple_monster_death: false,
            })),
        }),
        seed: 1,
        controlled: Some(proto::Controlled::default()),
        ..Default::default()
    }
}

/// The server's Stats once it counts a stopped call, if that happens within `limit`.
async fn stopped_within(
    c: &mut pf1e_env_server::proto::environment_client::EnvironmentClient<
        tonic::transport::Channel,
    >,
    limit: Duration,
) -> Option<proto::StatsResponse> {
    let poll = async {
        loop {
            let s = c.stats(proto::StatsRequest {}).await.unwrap().into_inner();
            if s.calls_stopped >= 1 {
                return s;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(limit, poll).await.ok()
}

fn reason(st: &tonic::Status) -> String {
    st.metadata()
        .get("pf1e-reason")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string()
}

#[test]
fn a_runaway_reset_is_stopped_by_its_turn_budget() {
    // A short cap first: the same fight ends (a draw at the cap) within the default budget.
    let svc = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    let done = svc.reset_blocking(&walled_off(5)).unwrap();
    assert!(done.truncated, "{done:?}");
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_turns_per_call = 500;
    let svc = EnvironmentService::new(config);
    let t0 = Instant::now();
    let e: tonic::Status = svc.reset_blocking(&walled_off(100_000)).unwrap_err().into();
    assert_eq!(e.code(), tonic::Code::ResourceExhausted, "{e:?}");
    assert_eq!(reason(&e), "work_budget");
    assert!(e.message().contains("500 default-policy turns"), "{e:?}");
    assert!(t0.elapsed() < Duration::from_secs(10));
    let st = svc.stats();
    assert_eq!(st.live_episodes, 0);
    assert_eq!(st.calls_stopped, 1);
}

#[tokio::test]
async fn a_runaway_reset_is_stopped_by_its_deadline_and_by_the_servers_longest_call() {
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_turns_per_call = u64::MAX;
    let t = start_with(config).await;
    let mut c = t.client.clone();
    let mut req = tonic::Request::new(walled_off(100_000));
    req.set_timeout(Duration::from_millis(300));
    let t0 = Instant::now();
    let e = c.reset(req).await.unwrap_err();
    // tonic's client enforces the deadline too (CANCELLED "Timeout expired" when its timer
    // wins the race with the server's DEADLINE_EXCEEDED).
    assert!(
        matches!(
            e.code(),
            tonic::Code::DeadlineExceeded | tonic::Code::Cancelled
        ),
        "{e:?}"
    );
    // The server stopped working too (not only the client giving up): the call is counted
    // as stopped within moments of its deadline.
    let s = stopped_within(&mut c, Duration::from_secs(5))
        .await
        .expect("the engine work stops at its deadline");
    assert_eq!(s.live_episodes, 0);
    assert!(t0.elapsed() < Duration::from_secs(5));

    // No client deadline: the server's own longest call duration applies.
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_turns_per_call = u64::MAX;
    config.max_call_duration = Some(Duration::from_millis(300));
    let t = start_with(config).await;
    let mut c = t.client.clone();
    let t0 = Instant::now();
    let e = c.reset(walled_off(100_000)).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::DeadlineExceeded, "{e:?}");
    assert!(t0.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_cancelled_call_stops_its_engine_work() {
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_turns_per_call = u64::MAX;
    config.max_call_duration = None;
    let t = start_with(config).await;
    let mut c = t.client.clone();
    // The client gives up without a deadline on the wire (its future dropped: a cancel).
    let gone = tokio::time::timeout(Duration::from_millis(300), c.reset(walled_off(100_000)));
    assert!(gone.await.is_err());
    let s = stopped_within(&mut c, Duration::from_secs(5))
        .await
        .expect("the engine work stops when its client cancels");
    assert_eq!(s.live_episodes, 0);
}
