//! P12 — fair under abuse (issue 25): no request of one client may stall, starve or outgrow
//! the others'. Each test runs an abusive client beside a well-behaved one on loopback,
//! bounded in count and time, and compares the well-behaved client's latency with its idle
//! value (a ratio, never an absolute time).
mod common;

use common::{connect_plain, start_transport, DATA_DIR};
use pf1e_env_server::proto::{self, environment_client::EnvironmentClient, scenario::Source};
use pf1e_env_server::service::{EnvironmentService, ServiceConfig};
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
    // The deadline, not the episode's transcript growing past 16 MiB on a fast machine,
    // stops the Step.
    config.max_episode_memory_bytes = 1 << 30;
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
    // The server's longest call stops the Step — unless a fast machine plays the 100,000
    // rounds of the round cap first (the episode then ends, truncated): either way the Step
    // held the engine long enough for the Echo comparison below to mean something.
    match r {
        Err(e) => assert_eq!(e.code(), tonic::Code::DeadlineExceeded, "{e:?}"),
        Ok(end) => assert!(
            end.truncated && end.decision.is_none(),
            "the trapped Step ends only at the deadline or the round cap"
        ),
    }
    assert!(took >= Duration::from_millis(500), "the Step ran {took:?}");
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

/// In process: [`trap_capped`]`(30)` played to its end (the client's turn ended every time,
/// its goblin falls, the two other sides draw at the round cap). Returns the service, the
/// episode's id and how many Steps it took.
fn trapped_to_the_end(svc: &EnvironmentService) -> (String, usize) {
    let mut s = svc.reset_blocking(&trap_capped(30)).expect("reset");
    let mut steps = 0;
    while let Some(d) = s.decision.clone() {
        s = svc
            .step_blocking(&proto::StepRequest {
                episode_id: s.episode_id.clone(),
                decision_id: d.decision_id,
                actions: vec![proto::Action {
                    kind: proto::ActionKind::EndTurn as i32,
                    ..Default::default()
                }],
                ..Default::default()
            })
            .expect("step");
        steps += 1;
        assert!(steps < 500, "the trap never closed");
    }
    assert!(s.truncated, "a draw at the round cap: {:?}", s.outcome);
    (s.episode_id, steps)
}

fn reason(e: &tonic::Status) -> &str {
    e.metadata()
        .get("pf1e-reason")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
}

/// H2 and M2 — a transcript or a snapshot is client data: ReplayTranscript and Restore
/// replay its history under the call's work budget (`max_turns_per_call` for each call that
/// built it: the history's entries and the Reset), its deadline and its cancellation, as
/// Reset does. Here an honest episode whose last Step ran every turn to the round cap
/// (about 150 turns) replays on a server that allows 1 turn per call: both refused with
/// RESOURCE_EXHAUSTED "work_budget", counted as stopped calls; on the server that played
/// it, both replay.
#[test]
fn replays_and_restores_run_under_the_work_budget() {
    let key = vec![7u8; 32];
    let mut config = ServiceConfig::new(DATA_DIR);
    config.snapshot_key = Some(key.clone());
    let a = EnvironmentService::new(config.clone());
    let (id, steps) = trapped_to_the_end(&a);
    let doc = a
        .export_transcript_blocking(&proto::ExportTranscriptRequest {
            episode_id: id.clone(),
            json_only: true,
        })
        .unwrap()
        .transcript_json;
    let snap = a
        .snapshot_blocking(&proto::SnapshotRequest {
            episode_id: id.clone(),
        })
        .unwrap()
        .snapshot;
    let replay = proto::ReplayTranscriptRequest {
        transcript_json: doc.clone().into_bytes(),
        ..Default::default()
    };
    let restore = proto::RestoreRequest {
        scenario: trap_capped(30).scenario,
        snapshot: snap,
        ..Default::default()
    };
    // The server that played it replays and restores it.
    a.replay_transcript_blocking(&replay)
        .expect("an honest transcript replays");
    a.restore_blocking(&restore)
        .expect("an honest snapshot restores");

    config.max_turns_per_call = 1;
    let b = EnvironmentService::new(config);
    let t0 = Instant::now();
    let e: tonic::Status = b.replay_transcript_blocking(&replay).unwrap_err().into();
    assert_eq!(e.code(), tonic::Code::ResourceExhausted, "{e:?}");
    assert_eq!(reason(&e), "work_budget", "{e:?}");
    let e: tonic::Status = b.restore_blocking(&restore).unwrap_err().into();
    assert_eq!(e.code(), tonic::Code::ResourceExhausted, "{e:?}");
    assert_eq!(reason(&e), "work_budget", "{e:?}");
    assert!(t0.elapsed() < Duration::from_secs(10));
    let st = b.stats();
    assert_eq!(st.calls_stopped, 2);
    assert_eq!(st.live_episodes, 0);
    eprintln!(
        "{steps} steps; replay and restore stopped by a budget of {} turns",
        steps + 1
    );
}

/// H2 — `pf1e-sim replay` replays a transcript (client data) under a turn budget, a time
/// limit and a memory limit: beyond, exit 2 naming the option.
#[test]
fn pf1e_sim_replay_is_bounded_and_names_the_limit() {
    let a = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    let (id, _) = trapped_to_the_end(&a);
    let doc = a
        .export_transcript_blocking(&proto::ExportTranscriptRequest {
            episode_id: id,
            json_only: true,
        })
        .unwrap()
        .transcript_json;
    let dir = std::env::temp_dir().join(format!("p12_replay_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("trap.json");
    std::fs::write(&file, &doc).unwrap();
    let sim = |extra: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_pf1e-sim"))
            .arg("replay")
            .arg(&file)
            .args(["--data-dir", DATA_DIR])
            .args(extra)
            .output()
            .expect("run pf1e-sim");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = sim(&["--max-turns", "10"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--max-turns"), "{err}");
    // Memory: the page keeps a copy of the fight per step (quadratic in a long fight's
    // length); the process's resident set is bounded too. 16 MiB is below what the process
    // holds once it has loaded the data, so the first check stops it (Linux: /proc).
    if std::path::Path::new("/proc/self/statm").exists() {
        let (code, err) = sim(&["--max-memory-mib", "16"]);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains("--max-memory-mib"), "{err}");
    }
    // Within the default budget it replays and writes the page.
    let (code, err) = sim(&[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(dir.join("trap.html").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A data directory for tests: the bundled one's content (linked) plus a scenario `walled`
/// whose two sides stand in rooms walled off from each other (their combats run to the
/// round cap). Removed on drop.
struct WalledData(std::path::PathBuf);

impl WalledData {
    fn new(round_cap: u32) -> WalledData {
        // One directory per instance: tests run in parallel threads of one process.
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("p12_data_{}_{n}_{round_cap}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("scenarios")).unwrap();
        let data = std::path::Path::new(DATA_DIR).canonicalize().unwrap();
        for sub in ["pcs", "spells", "tactics", "agents"] {
            if data.join(sub).exists() {
                std::os::unix::fs::symlink(data.join(sub), dir.join(sub)).unwrap();
            }
        }
        std::fs::create_dir_all(dir.join("monsters")).unwrap();
        std::fs::create_dir_all(dir.join("maps")).unwrap();
        for sub in ["maps", "monsters", "scenarios"] {
            for f in std::fs::read_dir(data.join(sub)).unwrap() {
                let f = f.unwrap().path();
                std::os::unix::fs::symlink(&f, dir.join(sub).join(f.file_name().unwrap())).unwrap();
            }
        }
        // A goblin no weapon can hurt (DR 1000/—): their fight never ends.
        let mut ironclad: serde_json::Value =
            serde_json::from_str(&common::read_data("monsters/goblin.json")).unwrap();
        ironclad["name"] = "Ironclad".into();
        ironclad["dr"] = serde_json::json!({ "amount": 1000, "bypass": [] });
        std::fs::write(
            dir.join("monsters/ironclad.json"),
            serde_json::to_string(&ironclad).unwrap(),
        )
        .unwrap();
        std::fs::write(
            dir.join("scenarios/walled.yaml"),
            format!(
                "description: a fight that cannot end\nmap: sample_arena\nsides:\n  players: [ironclad, ironclad, ironclad]\n  monsters: [ironclad, ironclad]\nround_cap: {round_cap}\n"
            ),
        )
        .unwrap();
        WalledData(dir)
    }
}

impl Drop for WalledData {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A long Evaluate: combats of the `walled` scenario, which run to their round cap.
fn walled_sweep() -> proto::EvaluateRequest {
    proto::EvaluateRequest {
        spec: "scenario: walled\nplacements:\n  ironclad: { zone: A }\nruns: 1000\nseed: 1\n"
            .into(),
        origin: "walled.yaml".into(),
        mode: proto::EvaluateMode::Report as i32,
        ..Default::default()
    }
}

/// Wall time of one ResetBatch of 64 sample-arena episodes (closed again).
async fn reset_batch_64(c: &mut EnvironmentClient<Channel>, seed: u64) -> Duration {
    let resets = (0..64)
        .map(|i| common::reset_req("sample_arena", seed * 64 + i, &["players"]))
        .collect();
    let t0 = Instant::now();
    let r = c
        .reset_batch(proto::ResetBatchRequest { resets })
        .await
        .expect("reset batch")
        .into_inner();
    let took = t0.elapsed();
    for item in r.items {
        if let Some(proto::batch_item::Result::State(st)) = item.result {
            c.close(proto::CloseRequest {
                episode_id: st.episode_id,
            })
            .await
            .unwrap();
        }
    }
    took
}

async fn evaluations_running(c: &mut EnvironmentClient<Channel>) -> u64 {
    c.stats(proto::StatsRequest {})
        .await
        .unwrap()
        .into_inner()
        .evaluations_running
}

/// H5 and M1 — Evaluate runs on a rayon pool of its own, under a server cap on its time and
/// its combats' rounds, and stops inside a combat. An Evaluate of combats that each run to
/// a 100,000-round cap: (1) another client's ResetBatch(64) stays within a ratio of its
/// idle time (on one shared pool it waited for the whole Evaluate); (2) the server's cap on
/// an Evaluate's time (2 s) ends it with DEADLINE_EXCEEDED and frees its slot at once
/// (between combats, that took a whole combat of minutes); (3) a cancelled Evaluate frees
/// its slot within moments; (4) a round cap over the server's is refused naming the field.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evaluate_neither_starves_batches_nor_outlives_its_limits() {
    let data = WalledData::new(100_000);
    let mut config = ServiceConfig::new(&data.0);
    config.max_evaluation_rounds = 100_000;
    config.max_evaluation_duration = Some(Duration::from_secs(2));
    let t = start_transport(config, TransportConfig::new(None)).await;
    let mut sweeper = EnvironmentClient::new(connect_plain(t.addr).await);
    let mut batcher = EnvironmentClient::new(connect_plain(t.addr).await);
    let mut idle = Vec::new();
    for i in 0..3 {
        idle.push(reset_batch_64(&mut batcher, i).await);
    }
    let idle = quantile(&idle, 0.5);

    // (1) and (2): the server's cap ends the Evaluate.
    let t0 = Instant::now();
    let mut stream = sweeper.evaluate(walled_sweep()).await.unwrap().into_inner();
    let ending = tokio::spawn(async move {
        loop {
            match stream.message().await {
                Ok(Some(_)) => continue,
                Ok(None) => return Ok(()),
                Err(e) => return Err(e),
            }
        }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut during = Vec::new();
    for i in 0..3 {
        let took = tokio::time::timeout(
            Duration::from_secs(20),
            reset_batch_64(&mut batcher, 10 + i),
        )
        .await
        .expect("a ResetBatch beside an Evaluate starved");
        during.push(took);
    }
    let during = quantile(&during, 0.5);
    let end = tokio::time::timeout(Duration::from_secs(20), ending)
        .await
        .expect("the server's cap ends the Evaluate")
        .unwrap();
    let e = end.expect_err("ended by the server's cap");
    assert_eq!(e.code(), tonic::Code::DeadlineExceeded, "{e:?}");
    let ran = t0.elapsed();
    let mut freed = false;
    for _ in 0..100 {
        if evaluations_running(&mut batcher).await == 0 {
            freed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(freed, "the slot stays taken after the cap");
    eprintln!(
        "ResetBatch(64) idle {idle:?}, during an Evaluate {during:?}; the Evaluate ran {ran:?}"
    );
    assert!(
        during < idle * 20,
        "ResetBatch(64) took {during:?} beside an Evaluate, {idle:?} idle"
    );
    assert!(ran < Duration::from_secs(5), "the Evaluate ran {ran:?}");

    // (3) A cancelled Evaluate frees its slot within moments.
    let mut stream = sweeper.evaluate(walled_sweep()).await.unwrap().into_inner();
    let _ = stream.message().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(evaluations_running(&mut batcher).await, 1);
    drop(stream);
    let t0 = Instant::now();
    while evaluations_running(&mut batcher).await > 0 {
        assert!(
            t0.elapsed() < Duration::from_secs(3),
            "a cancelled Evaluate keeps its slot"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // (4) The server's cap on a combat's rounds.
    let mut config = ServiceConfig::new(&data.0);
    config.max_evaluation_rounds = 1_000;
    let t2 = start_transport(config, TransportConfig::new(None)).await;
    let mut c = EnvironmentClient::new(connect_plain(t2.addr).await);
    let e = c.evaluate(walled_sweep()).await.unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e:?}");
    assert!(e.message().contains("spec.round_cap"), "{e:?}");
    assert!(e.message().contains("--max-evaluation-rounds"), "{e:?}");
}

/// M3 — a connection on which no call has arrived within the first-request timeout is
/// closed, however many frames it sends: here the HTTP/2 preface, an empty SETTINGS, then a
/// 13-byte WINDOW_UPDATE every 100 ms. A client that made a call keeps its connection past
/// the timeout.
#[tokio::test]
async fn a_connection_that_never_makes_a_request_is_closed() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut tc = TransportConfig::new(None);
    tc.first_request_timeout = Duration::from_millis(600);
    let t = start_transport(ServiceConfig::new(DATA_DIR), tc).await;
    let mut good = EnvironmentClient::new(connect_plain(t.addr).await);
    good.echo(proto::EchoRequest::default()).await.unwrap();

    let mut s = tokio::net::TcpStream::connect(t.addr).await.unwrap();
    s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        .await
        .unwrap();
    s.write_all(&[0, 0, 0, 4, 0, 0, 0, 0, 0]).await.unwrap();
    let window_update = [0, 0, 4, 8, 0, 0, 0, 0, 0, 0, 0, 0, 1];
    let t0 = Instant::now();
    let mut buf = [0u8; 4096];
    let closed_after = loop {
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "the connection is still open after {:?}",
            t0.elapsed()
        );
        match tokio::time::timeout(Duration::from_millis(100), s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break t0.elapsed(),
            Ok(Ok(_)) | Err(_) => {}
        }
        if s.write_all(&window_update).await.is_err() {
            break t0.elapsed();
        }
    };
    assert!(
        closed_after >= Duration::from_millis(500),
        "{closed_after:?}"
    );
    // The client that made a call still has its connection.
    good.echo(proto::EchoRequest::default())
        .await
        .expect("a connection that made a call stays open");
}

/// L1 — without tokens a client is a connection; an operator may cap the connections of one
/// address (`--max-connections-per-address`): beyond, a connection is refused, and the
/// address gets its room back when one closes.
#[tokio::test]
async fn connections_per_address_can_be_capped() {
    let mut tc = TransportConfig::new(None);
    tc.max_connections_per_address = 2;
    let t = start_transport(ServiceConfig::new(DATA_DIR), tc).await;
    let ok = |addr| async move {
        let Ok(ch) = Channel::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect()
            .await
        else {
            return None;
        };
        let mut c = EnvironmentClient::new(ch);
        c.echo(proto::EchoRequest::default()).await.ok().map(|_| c)
    };
    let a = ok(t.addr).await.expect("first connection");
    let _b = ok(t.addr).await.expect("second connection");
    assert!(ok(t.addr).await.is_none(), "a third connection is refused");
    drop(a);
    let t0 = Instant::now();
    loop {
        if ok(t.addr).await.is_some() {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "no room after a close"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// L2 — combatant names are bounded (64 characters) and free of control and bidirectional
/// formatting characters, refused at load naming the field.
#[test]
fn combatant_names_are_bounded_and_sanitised() {
    let svc = EnvironmentService::new(ServiceConfig::new(DATA_DIR));
    let goblin: serde_json::Value =
        serde_json::from_str(&common::read_data("monsters/goblin.json")).unwrap();
    for (name, want) in [
        ("x".repeat(65), "at most 64 characters"),
        ("Gob\u{202E}nilb".to_string(), "U+202E"),
        ("Gob\nlin".to_string(), "U+000A"),
        ("Gob\u{1b}[31mlin".to_string(), "U+001B"),
    ] {
        let mut g = goblin.clone();
        g["name"] = name.clone().into();
        let mut req = trap_capped(10);
        if let Some(proto::Scenario {
            source: Some(Source::Inline(i)),
        }) = req.scenario.as_mut()
        {
            i.sides[0].combatants[0].json = g.to_string();
            i.sides[0].combatants[0].base_id = "west".into();
        }
        let e: tonic::Status = svc.reset_blocking(&req).unwrap_err().into();
        assert_eq!(e.code(), tonic::Code::InvalidArgument, "{name:?}: {e:?}");
        assert!(e.message().contains("name"), "{e:?}");
        assert!(e.message().contains(want), "{name:?}: {e:?}");
    }
    // 64 characters, accents included, are fine.
    let mut g = goblin.clone();
    g["name"] = "é".repeat(64).into();
    let mut req = trap_capped(10);
    if let Some(proto::Scenario {
        source: Some(Source::Inline(i)),
    }) = req.scenario.as_mut()
    {
        i.sides[0].combatants[0].json = g.to_string();
        i.sides[0].combatants[0].base_id = "west".into();
    }
    svc.reset_blocking(&req).expect("a 64-character name");
}

/// H3 — what a client makes the server keep counts in its memory quota: an inline
/// scenario's texts (kept for ExportTranscript) and the encounter built from them. Inline
/// Resets of about 1 MiB each under a 8 MiB quota: refused with RESOURCE_EXHAUSTED
/// ("memory") before the tenth, and the accounted bytes cover the texts.
#[test]
fn inline_scenario_texts_count_in_the_client_memory_quota() {
    let mut config = ServiceConfig::new(DATA_DIR);
    config.client_quotas.max_memory_bytes = 8 << 20;
    let svc = EnvironmentService::new(config);
    let client = svc.for_client(pf1e_env_server::service::Principal {
        owner: pf1e_env_server::service::Owner::Connection(1),
        quotas: std::sync::Arc::new(svc.config().client_quotas.clone()),
        rate: None,
    });
    // A YAML comment pads the map text to ~1 MiB.
    let mut req = trap_capped(10);
    let mut text_bytes = 0;
    if let Some(proto::Scenario {
        source: Some(Source::Inline(i)),
    }) = req.scenario.as_mut()
    {
        i.map_yaml
            .push_str(&format!("# {}\n", "x".repeat(1_000_000)));
        text_bytes = i.map_yaml.len()
            + i.sides
                .iter()
                .flat_map(|s| &s.combatants)
                .map(|c| c.json.len())
                .sum::<usize>();
    }
    let mut made = 0;
    let err = loop {
        match client.reset_blocking(&req) {
            Ok(_) => made += 1,
            Err(e) => break tonic::Status::from(e),
        }
        assert!(
            made < 40,
            "40 inline Resets of {text_bytes} bytes fit an 8 MiB quota"
        );
    };
    assert_eq!(err.code(), tonic::Code::ResourceExhausted, "{err:?}");
    assert_eq!(reason(&err), "memory", "{err:?}");
    let held = client.stats().client_episode_memory_bytes;
    assert!(
        held >= (made * text_bytes) as u64,
        "{made} episodes of {text_bytes} bytes of text accounted {held} bytes"
    );
    assert!(
        made < 8,
        "{made} inline Resets of {text_bytes} bytes fit an 8 MiB quota"
    );
}

/// A well-behaved client: `steps` Steps on sample-arena episodes (the players' turns
/// ended at once; a new episode when one ends). Returns each Step's wall time and the
/// number of calls that failed.
async fn well_behaved(
    mut c: EnvironmentClient<Channel>,
    seed: u64,
    steps: usize,
) -> (Vec<Duration>, usize) {
    let mut times = Vec::with_capacity(steps);
    let mut errors = 0;
    let mut s: Option<proto::EpisodeState> = None;
    let mut n = 0u64;
    while times.len() < steps {
        let Some(st) = s.take().filter(|st| st.decision.is_some()) else {
            n += 1;
            match c
                .reset(common::reset_req(
                    "sample_arena",
                    seed * 1000 + n,
                    &["players"],
                ))
                .await
            {
                Ok(r) => s = Some(r.into_inner()),
                Err(e) => {
                    eprintln!("well-behaved Reset: {e:?}");
                    errors += 1;
                    assert!(errors < 10, "Resets keep failing");
                }
            }
            continue;
        };
        let d = st.decision.clone().unwrap();
        let t0 = Instant::now();
        let r = c
            .step(proto::StepRequest {
                episode_id: st.episode_id.clone(),
                decision_id: d.decision_id,
                actions: vec![proto::Action {
                    kind: proto::ActionKind::EndTurn as i32,
                    ..Default::default()
                }],
                ..Default::default()
            })
            .await;
        times.push(t0.elapsed());
        match r {
            Ok(r) => s = Some(r.into_inner()),
            Err(e) => {
                eprintln!("well-behaved Step: {e:?}");
                errors += 1;
            }
        }
    }
    (times, errors)
}

/// Three well-behaved clients stepping, with or without abusers beside them; returns their
/// Step times and error count.
async fn soak_round(addr: std::net::SocketAddr, abuse: bool) -> (Vec<Duration>, usize) {
    let mut abusers = Vec::new();
    if abuse {
        // H1: Steps of fights that cannot end, back to back.
        let mut c = EnvironmentClient::new(connect_plain(addr).await);
        abusers.push(tokio::spawn(async move {
            loop {
                let _ = step_until_trapped(&mut c).await;
            }
        }));
        // H5 / M1: an Evaluate of combats that never end, again and again.
        let mut c = EnvironmentClient::new(connect_plain(addr).await);
        abusers.push(tokio::spawn(async move {
            loop {
                if let Ok(r) = c.evaluate(walled_sweep()).await {
                    let mut s = r.into_inner();
                    while let Ok(Some(_)) = s.message().await {}
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }));
        // M3: sockets that only send the HTTP/2 preface.
        abusers.push(tokio::spawn(async move {
            use tokio::io::AsyncWriteExt;
            let mut held = Vec::new();
            loop {
                if let Ok(mut s) = tokio::net::TcpStream::connect(addr).await {
                    let _ = s.write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").await;
                    held.push(s);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }));
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let mut good = Vec::new();
    for i in 0..3 {
        let c = EnvironmentClient::new(connect_plain(addr).await);
        good.push(tokio::spawn(well_behaved(c, i, 40)));
    }
    let mut times = Vec::new();
    let mut errors = 0;
    for g in good {
        let (t, e) = g.await.unwrap();
        times.extend(t);
        errors += e;
    }
    for a in abusers {
        a.abort();
    }
    (times, errors)
}

/// The fairness soak (issue 25): three well-behaved clients step sample-arena episodes,
/// first alone, then while abusers run worst-case Steps (H1), never-ending Evaluates (H5,
/// M1) and silent connections (M3). The well-behaved clients see no error, and their
/// median Step time stays within a ratio of the run without abusers (a ratio, not a time:
/// the abusers take CPU, which a 2-core machine shares).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fairness_soak() {
    let data = WalledData::new(100_000);
    let mut config = ServiceConfig::new(&data.0);
    config.max_evaluation_rounds = 100_000;
    config.max_evaluation_duration = Some(Duration::from_secs(3));
    config.max_turns_per_call = u64::MAX;
    config.max_call_duration = Some(Duration::from_secs(2));
    let mut tc = TransportConfig::new(None);
    tc.first_request_timeout = Duration::from_secs(1);
    let t = start_transport(config, tc).await;
    let (calm, calm_errors) = soak_round(t.addr, false).await;
    let (busy, busy_errors) = soak_round(t.addr, true).await;
    let (p_calm, p_busy) = (quantile(&calm, 0.5), quantile(&busy, 0.5));
    eprintln!(
        "soak: Step p50 {p_calm:?} alone, {p_busy:?} beside abusers (p90 {:?} / {:?})",
        quantile(&calm, 0.9),
        quantile(&busy, 0.9)
    );
    assert_eq!(calm_errors, 0);
    assert_eq!(
        busy_errors, 0,
        "well-behaved clients saw errors beside abusers"
    );
    assert!(
        p_busy < p_calm * 10,
        "median Step {p_busy:?} beside abusers, {p_calm:?} alone"
    );
}
