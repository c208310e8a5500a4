//! End-to-end tests of the Evaluate RPC (issue 5, position sweeps): the report equals the
//! in-process computation and the `pf1e-sim sweep` JSON byte for byte; subsets assembled on
//! another server give the same report; bad requests name the field; cancellation, deadlines
//! and shutdown stop the server's work; the `--max-evaluations` and message-size limits.
use pf1e_env_server::proto::environment_client::EnvironmentClient;
use pf1e_env_server::proto::{self, evaluate_response::Kind, EvaluateMode};
use pf1e_env_server::scenarios::ScenarioStore;
use pf1e_env_server::service::ServiceConfig;
use pf1e_env_server::sweep::{assemble_report, run_placements, SweepPlan, SweepSpec};
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use tonic::transport::Channel;
use tonic::Code;

mod common;
use common::*;

const SIM: &str = env!("CARGO_BIN_EXE_pf1e-sim");
const ARCHER: &str = "sweeps/sample_arena_archer.yaml";
const RECT: &str = "sweeps/sample_arena_rect.yaml";

fn data_path(rel: &str) -> String {
    format!("{DATA_DIR}/{rel}")
}

/// A request for the bundled spec `rel`, labelled with its path (as `pf1e-sim sweep PATH`).
fn request(rel: &str, runs: u64, seed: u64, mode: EvaluateMode) -> proto::EvaluateRequest {
    proto::EvaluateRequest {
        spec: read_data(rel),
        origin: data_path(rel),
        runs: Some(runs),
        seed: Some(seed),
        mode: mode as i32,
        ..Default::default()
    }
}

/// Every message of an Evaluate call: the progress messages and the final one.
async fn collect(
    c: &mut EnvironmentClient<Channel>,
    req: proto::EvaluateRequest,
) -> Result<(Vec<proto::EvaluateProgress>, Kind), tonic::Status> {
    let mut stream = c.evaluate(req).await?.into_inner();
    let mut progress = Vec::new();
    let mut last = None;
    while let Some(msg) = stream.message().await? {
        match msg.kind.expect("kind is set") {
            Kind::Progress(p) => {
                assert!(last.is_none(), "progress after the final message");
                progress.push(p);
            }
            other => {
                assert!(last.is_none(), "two final messages");
                last = Some(other);
            }
        }
    }
    Ok((progress, last.expect("a final message")))
}

async fn report(
    c: &mut EnvironmentClient<Channel>,
    req: proto::EvaluateRequest,
) -> proto::SweepReport {
    match collect(c, req).await.expect("evaluate").1 {
        Kind::Report(r) => r,
        other => panic!("expected a report, got {other:?}"),
    }
}

async fn partial(
    c: &mut EnvironmentClient<Channel>,
    req: proto::EvaluateRequest,
) -> Vec<proto::SweepPlacementResult> {
    match collect(c, req).await.expect("evaluate").1 {
        Kind::Partial(p) => p.results,
        other => panic!("expected partial results, got {other:?}"),
    }
}

async fn stats(c: &mut EnvironmentClient<Channel>) -> proto::StatsResponse {
    c.stats(proto::StatsRequest {}).await.unwrap().into_inner()
}

/// Wait until no evaluation holds a slot; returns how long it took.
async fn wait_idle(c: &mut EnvironmentClient<Channel>, within: Duration) -> Duration {
    let t = Instant::now();
    while stats(c).await.evaluations_running > 0 {
        assert!(
            t.elapsed() < within,
            "evaluations still running after {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    t.elapsed()
}

/// The JSON document computed in-process from the same spec, origin, runs and seed.
fn in_process_json(rel: &str, runs: u64, seed: u64) -> (String, String) {
    let mut spec = SweepSpec::from_str(&read_data(rel), &data_path(rel)).unwrap();
    spec.runs = Some(runs);
    spec.seed = Some(seed);
    let plan = SweepPlan::build(&spec, &ScenarioStore::new(DATA_DIR)).unwrap();
    let all: Vec<usize> = (0..plan.placements.len()).collect();
    let results = run_placements(&plan, &all, None, &AtomicBool::new(false)).unwrap();
    let report = assemble_report(&plan, results).unwrap();
    (report.to_json(), report.to_csv())
}

fn expect_invalid(r: Result<(Vec<proto::EvaluateProgress>, Kind), tonic::Status>, field: &str) {
    match r {
        Err(s) => {
            assert_eq!(s.code(), Code::InvalidArgument, "{s:?}");
            assert!(
                s.message().starts_with(&format!("{field}: ")),
                "`{}` should name `{field}`",
                s.message()
            );
        }
        Ok((_, k)) => panic!("expected INVALID_ARGUMENT on {field}, got {k:?}"),
    }
}

/// Progress messages are at least 100 ms apart (the first and the last included), so no
/// second holds more than 10; the ETA is absent (not 0) until a combat has finished, then
/// positive until the end.
fn assert_paced(progress: &[proto::EvaluateProgress]) {
    for w in progress.windows(2) {
        let gap = w[1].elapsed_seconds - w[0].elapsed_seconds;
        assert!(
            gap >= 0.1 - 1e-9,
            "{gap} s between {:?} and {:?}",
            w[0],
            w[1]
        );
    }
    for (i, p) in progress.iter().enumerate() {
        let in_a_second = progress[i..]
            .iter()
            .take_while(|q| q.elapsed_seconds < p.elapsed_seconds + 1.0)
            .count();
        assert!(in_a_second <= 10, "{in_a_second} messages within a second");
        match p.eta_seconds {
            None => assert_eq!(p.combats_done, 0, "{p:?}"),
            Some(eta) => assert!(
                eta > 0.0 || p.combats_done == p.combats_total,
                "an ETA of 0 before the end: {p:?}"
            ),
        }
    }
}

/// The encoded size of a final message.
fn final_size(kind: Kind) -> usize {
    use prost::Message;
    proto::EvaluateResponse { kind: Some(kind) }.encoded_len()
}

/// A long evaluation (7 placements × 100,000 runs) for the cancellation tests.
fn long_request() -> proto::EvaluateRequest {
    request(ARCHER, 100_000, 1, EvaluateMode::Report)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn report_equals_in_process_and_cli_json() {
    let mut t = start().await;
    let (runs, seed) = (20, 3);
    let mut req = request(ARCHER, runs, seed, EvaluateMode::Report);
    req.heatmaps = true;
    req.text = true;
    let (progress, last) = collect(&mut t.client, req).await.unwrap();
    let Kind::Report(r) = last else {
        panic!("expected a report")
    };

    // Same bytes as the in-process computation…
    let (json, csv) = in_process_json(ARCHER, runs, seed);
    assert_eq!(r.json, json);
    assert_eq!(r.csv, csv);
    // …and as the CLI's JSON document and heatmap, for the same spec path, runs and seed.
    let out = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("evaluate-cli");
    let _ = std::fs::remove_dir_all(&out);
    let o = Command::new(SIM)
        .args(["sweep", &data_path(ARCHER), "--runs", "20", "--seed", "3"])
        .args(["--format", "json", "--data-dir", DATA_DIR, "--out"])
        .arg(&out)
        .output()
        .expect("run pf1e-sim sweep");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8(o.stdout).unwrap(), r.json);
    assert_eq!(
        std::fs::read_to_string(out.join("sweep.csv")).unwrap(),
        r.csv
    );
    let png = std::fs::read(out.join("heatmap-goblin.png")).unwrap();
    assert_eq!(r.cell_stats.len(), 1);
    assert_eq!(r.cell_stats[0].combatant, "goblin");
    assert_eq!(r.cell_stats[0].png, png, "the PNG heatmap is the CLI's");
    assert!(r.text.starts_with("=== Position sweep ==="), "{}", r.text);

    // The typed table agrees with the JSON document.
    let doc: serde_json::Value = serde_json::from_str(&r.json).unwrap();
    let plan = r.plan.as_ref().unwrap();
    assert_eq!((plan.placements, plan.runs, plan.seed), (7, runs, seed));
    assert_eq!(plan.combats, 7 * runs);
    assert_eq!(plan.swept, ["goblin"]);
    assert_eq!(plan.sides, ["players", "monsters"]);
    assert_eq!(plan.rank_side, "players");
    assert_eq!(r.placements.len(), 7);
    assert_eq!(r.best, doc["best"].as_u64().unwrap());
    assert_eq!(r.ranking[0], r.best);
    for (k, row) in r.placements.iter().enumerate() {
        let j = &doc["placements"][k];
        assert_eq!(row.index, k as u64);
        assert_eq!(row.rank, j["rank"].as_u64().unwrap());
        assert_eq!(r.ranking[row.rank as usize - 1], row.index);
        assert_eq!(row.runs, runs);
        assert_eq!(row.cells.len(), 1);
        assert_eq!(row.starts.len(), 5);
        for (s, w) in row.wins.iter().enumerate() {
            assert_eq!(w.count, j["wins"][s]["count"].as_u64().unwrap());
            // (serde_json's float parsing may differ in the last bit: the JSON text itself is
            // compared exactly above.)
            let near = |a: f64, b: &serde_json::Value| (a - b.as_f64().unwrap()).abs() < 1e-12;
            assert!(near(w.rate, &j["wins"][s]["rate"]));
            assert!(near(w.band_3sigma_lo, &j["wins"][s]["band_3sigma"][0]));
            assert!(near(w.band_3sigma_hi, &j["wins"][s]["band_3sigma"][1]));
        }
        let draws = row.draws.as_ref().unwrap().count;
        assert_eq!(row.wins.iter().map(|w| w.count).sum::<u64>() + draws, runs);
        assert_eq!(
            row.significantly_worse,
            j["significantly_worse"].as_bool().unwrap()
        );
        assert!((row.z_vs_best - j["z_vs_best"].as_f64().unwrap()).abs() < 1e-9);
    }

    // Progress: totals at once, never backwards, complete before the report, 100 ms apart.
    assert!(progress.len() >= 2, "{progress:?}");
    assert_eq!(progress[0].combats_total, 7 * runs);
    assert_eq!(progress[0].placements_total, 7);
    assert_eq!(progress[0].eta_seconds, None, "no ETA before a combat ends");
    assert_paced(&progress);
    for w in progress.windows(2) {
        assert!(w[0].combats_done <= w[1].combats_done);
        assert!(w[0].placements_done <= w[1].placements_done);
        assert!(w[0].elapsed_seconds <= w[1].elapsed_seconds);
    }
    let end = progress.last().unwrap();
    assert_eq!((end.combats_done, end.placements_done), (7 * runs, 7));
    assert_eq!(end.eta_seconds, Some(0.0));

    let s = stats(&mut t.client).await;
    assert_eq!((s.evaluations_started, s.evaluations_completed), (1, 1));
    assert_eq!((s.evaluations_running, s.evaluations_cancelled), (0, 0));
    assert_eq!(s.combats_evaluated, 7 * runs);
    assert_eq!(s.max_evaluations, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subsets_on_two_servers_assemble_to_the_whole_report() {
    let mut a = start().await;
    let mut b = start().await;
    let (runs, seed) = (10, 5);
    let whole = report(
        &mut a.client,
        request(RECT, runs, seed, EvaluateMode::Report),
    )
    .await;

    let plan = match collect(&mut b.client, request(RECT, runs, seed, EvaluateMode::Plan))
        .await
        .unwrap()
    {
        (p, Kind::Plan(plan)) => {
            assert!(p.is_empty(), "PLAN plays nothing");
            plan
        }
        (_, other) => panic!("expected a plan, got {other:?}"),
    };
    assert_eq!(plan.placements, 30);
    assert_eq!(plan.product_size, 92);
    assert_eq!(plan.excluded, 2);
    assert_eq!(plan.swept, ["goblin", "goblin-2"]);

    // Two subsets, out of order, on two servers; inferred mode (placements → PARTIAL).
    let first: Vec<u64> = (0..30).filter(|k| k % 3 == 0).rev().collect();
    let second: Vec<u64> = (0..30).filter(|k| k % 3 != 0).collect();
    let mut req = request(RECT, runs, seed, EvaluateMode::Unspecified);
    req.placements = first.clone();
    let mut results = partial(&mut a.client, req.clone()).await;
    assert_eq!(
        results.iter().map(|r| r.index).collect::<Vec<_>>(),
        first,
        "results in request order"
    );
    req.placements = second;
    results.extend(partial(&mut b.client, req).await);
    results.reverse();

    // Assembled on the second server (inferred mode: results → ASSEMBLE).
    let mut asm = request(RECT, runs, seed, EvaluateMode::Unspecified);
    asm.results = results.clone();
    let merged = report(&mut b.client, asm.clone()).await;
    assert_eq!(merged.json, whole.json);
    assert_eq!(merged.csv, whole.csv);
    assert_eq!(merged, whole, "every typed field too");

    // Every result carries the plan's fingerprint; the two servers agree on it.
    assert_eq!(plan.fingerprint.len(), 16);
    assert!(results
        .iter()
        .all(|r| r.plan_fingerprint == plan.fingerprint));
    assert_eq!(whole.plan.as_ref().unwrap().fingerprint, plan.fingerprint);
    // The same results do not assemble under another seed (same placements, other dice: the
    // counts alone could not tell) or run count.
    asm.seed = Some(seed + 1);
    expect_invalid(
        collect(&mut a.client, asm.clone()).await,
        "results[0].plan_fingerprint",
    );
    asm.seed = Some(seed);
    asm.runs = Some(runs + 1);
    expect_invalid(
        collect(&mut a.client, asm.clone()).await,
        "results[0].plan_fingerprint",
    );
    // A result whose counts were changed is refused by the report's own checks.
    asm.runs = Some(runs);
    asm.results[3].draws += 1;
    expect_invalid(collect(&mut a.client, asm).await, "results[3]");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_invalid_argument_naming_the_field() {
    let mut t = start().await;
    let c = &mut t.client;
    let base = || request(ARCHER, 5, 1, EvaluateMode::Unspecified);
    let with = |f: &dyn Fn(&mut proto::EvaluateRequest)| {
        let mut r = base();
        f(&mut r);
        r
    };
    let cases: Vec<(proto::EvaluateRequest, &str)> = vec![
        (with(&|r| r.spec = "  \n".into()), "spec"),
        (with(&|r| r.runs = Some(0)), "runs"),
        (with(&|r| r.runs = Some(2_000_000)), "runs"),
        (with(&|r| r.mode = 99), "mode"),
        (with(&|r| r.origin = "x".repeat(300)), "origin"),
        (with(&|r| r.origin = "a\nb".into()), "origin"),
        (with(&|r| r.placements = vec![7]), "placements[0]"),
        (with(&|r| r.placements = vec![1, 2, 1]), "placements[2]"),
        (
            with(&|r| {
                r.placements = vec![1];
                r.mode = EvaluateMode::Report as i32;
            }),
            "placements",
        ),
        (
            with(&|r| {
                r.placements = vec![1];
                r.results = vec![Default::default()];
            }),
            "placements",
        ),
        (
            with(&|r| {
                r.results = vec![Default::default()];
                r.mode = EvaluateMode::Partial as i32;
            }),
            "results",
        ),
        (
            with(&|r| {
                r.mode = EvaluateMode::Partial as i32;
                r.heatmaps = true;
            }),
            "heatmaps",
        ),
        (
            with(&|r| {
                r.mode = EvaluateMode::Plan as i32;
                r.text = true;
            }),
            "text",
        ),
        // ASSEMBLE without every placement, or with a result that is not the plan's.
        (with(&|r| r.mode = EvaluateMode::Assemble as i32), "results"),
        (
            with(&|r| {
                r.results = vec![proto::SweepPlacementResult {
                    index: 0,
                    ..Default::default()
                }]
            }),
            "results[0].plan_fingerprint",
        ),
        // The spec: the origin prefixes the spec's own fields.
        (
            with(&|r| {
                r.spec = "scenario: sample_arena\nplacements: {goblin: {cels: [[1, 1]]}}".into();
                r.origin = String::new();
            }),
            "spec: placements.goblin.cels",
        ),
        (
            with(&|r| {
                r.spec = "scenario: sample_arena\nplacements: {goblin: {cells: [[0, 0]]}}".into();
                r.origin = "mine.yaml".into();
            }),
            "mine.yaml: placements.goblin.cells[0]",
        ),
        (
            with(&|r| {
                r.spec = "scenario: sample_arena\nplacements: {nobody: {zone: A}}".into();
                r.origin = String::new();
            }),
            "spec: placements.nobody",
        ),
        // Names never reach the file system as paths.
        (
            with(&|r| {
                r.spec = "scenario: ../../etc/passwd\nplacements: {goblin: {zone: A}}".into();
                r.origin = String::new();
            }),
            "spec: scenario",
        ),
        (
            with(&|r| {
                r.spec = "scenario: nope\nplacements: {goblin: {zone: A}}".into();
                r.origin = String::new();
            }),
            "spec: scenario",
        ),
        // The sweep's own caps: 18 × 24 placements × 1,000,000 runs > 100,000,000 combats.
        (
            with(&|r| {
                r.spec = "scenario: sample_arena\nplacements:\n  \
                          goblin: {rect: {from: [3, 1], to: [5, 6]}}\n  \
                          goblin-2: {rect: {from: [3, 11], to: [5, 18]}}\n"
                    .into();
                r.origin = String::new();
                r.runs = Some(1_000_000);
            }),
            "spec: runs",
        ),
    ];
    for (req, field) in cases {
        expect_invalid(collect(c, req).await, field);
    }
    let s = stats(c).await;
    assert_eq!(s.evaluations_running, 0, "failed calls release their slot");
    // Refused before their work began: not started, so neither completed nor cancelled.
    assert_eq!(
        (
            s.evaluations_started,
            s.evaluations_completed,
            s.evaluations_cancelled
        ),
        (0, 0, 0)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_the_call_stops_the_servers_work() {
    let mut t = start().await;
    let mut stream = t
        .client
        .evaluate(long_request())
        .await
        .unwrap()
        .into_inner();
    // Wait for a progress message showing combats being played.
    loop {
        match stream.message().await.unwrap().unwrap().kind.unwrap() {
            Kind::Progress(p) if p.combats_done > 0 => {
                assert!(p.combats_done < p.combats_total);
                break;
            }
            Kind::Progress(_) => {}
            other => panic!("finished early: {other:?}"),
        }
    }
    assert_eq!(stats(&mut t.client).await.evaluations_running, 1);
    // Dropping the response stream cancels the call (RST_STREAM).
    drop(stream);
    let took = wait_idle(&mut t.client, Duration::from_secs(5)).await;
    assert!(took <= Duration::from_secs(1), "stopped after {took:?}");
    let s = stats(&mut t.client).await;
    eprintln!(
        "work stopped {took:?} after the cancellation, {} of 700000 combats played",
        s.combats_evaluated
    );
    assert_eq!(s.evaluations_cancelled, 1);
    assert_eq!(s.evaluations_completed, 0);
    assert!(
        s.combats_evaluated < 700_000 / 10,
        "{}",
        s.combats_evaluated
    );
    // Nothing goes on in the background.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        stats(&mut t.client).await.combats_evaluated,
        s.combats_evaluated
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_than_max_evaluations_is_resource_exhausted() {
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_evaluations = 1;
    let mut t = start_with(config).await;
    let mut running = t
        .client
        .evaluate(long_request())
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(
        running.message().await.unwrap().unwrap().kind,
        Some(Kind::Progress(_))
    ));
    let s = collect(&mut t.client, request(ARCHER, 5, 1, EvaluateMode::Report))
        .await
        .expect_err("second evaluation");
    assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
    assert!(s.message().contains("--max-evaluations"), "{}", s.message());
    // Other RPCs are served meanwhile (the runtime is not blocked).
    let t0 = Instant::now();
    t.client
        .get_spec(proto::GetSpecRequest {
            scenario: named("sample_arena"),
        })
        .await
        .unwrap();
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    drop(running);
    wait_idle(&mut t.client, Duration::from_secs(5)).await;
    // The slot is free again.
    report(&mut t.client, request(ARCHER, 5, 1, EvaluateMode::Report)).await;
    let s = stats(&mut t.client).await;
    assert_eq!(s.max_evaluations, 1);
    // The refused call is not counted: started = completed + cancelled.
    assert_eq!(
        (
            s.evaluations_started,
            s.evaluations_completed,
            s.evaluations_cancelled
        ),
        (2, 1, 1)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deadline_stops_the_work() {
    let mut t = start().await;
    let mut req = tonic::Request::new(long_request());
    req.set_timeout(Duration::from_millis(300));
    let t0 = Instant::now();
    let mut stream = t.client.evaluate(req).await.unwrap().into_inner();
    let err = loop {
        match stream.message().await {
            Ok(Some(m)) => assert!(matches!(m.kind, Some(Kind::Progress(_)))),
            Ok(None) => panic!("ended without an error"),
            Err(s) => break s,
        }
    };
    assert_eq!(err.code(), Code::DeadlineExceeded, "{err:?}");
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    wait_idle(&mut t.client, Duration::from_secs(2)).await;
    let s = stats(&mut t.client).await;
    assert_eq!(
        (
            s.evaluations_started,
            s.evaluations_completed,
            s.evaluations_cancelled
        ),
        (1, 0, 1)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_ends_running_evaluations() {
    let mut t = start().await;
    let mut stream = t
        .client
        .evaluate(long_request())
        .await
        .unwrap()
        .into_inner();
    assert!(matches!(
        stream.message().await.unwrap().unwrap().kind,
        Some(Kind::Progress(_))
    ));
    let t0 = Instant::now();
    drop(t.shutdown.take());
    let err = loop {
        match stream.message().await {
            Ok(Some(_)) => {}
            Ok(None) => panic!("ended without an error"),
            Err(s) => break s,
        }
    };
    assert_eq!(err.code(), Code::Unavailable, "{err:?}");
    tokio::time::timeout(Duration::from_secs(5), t.done)
        .await
        .expect("the server stops")
        .unwrap();
    assert!(t0.elapsed() < Duration::from_secs(5));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_report_over_the_message_limit_is_refused_before_playing() {
    // The real size of a report…
    let mut t = start().await;
    let mut req = request(ARCHER, 5, 1, EvaluateMode::Report);
    let size = final_size(Kind::Report(report(&mut t.client, req.clone()).await));
    // …is within the bound: a server whose limit is one byte less refuses the same call
    // before playing, and at once even when it would play 700,000 combats.
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_message_bytes = size - 1;
    let mut small = start_with(config).await;
    for runs in [5, 100_000] {
        req.runs = Some(runs);
        let t0 = Instant::now();
        let s = collect(&mut small.client, req.clone())
            .await
            .expect_err("too large");
        assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
        assert_eq!(s.code(), Code::OutOfRange, "{s:?}");
        for needle in [
            "the report could take up to",
            &format!("limit of {} bytes (--max-message-bytes)", size - 1),
            "refused before playing",
            "evaluate fewer placements (`sample: {size: N}` in the spec; about ",
            " of the 7 would fit)",
            "raise the server's --max-message-bytes",
        ] {
            assert!(s.message().contains(needle), "{needle:?}: {}", s.message());
        }
        assert!(!s.message().contains("`text`"), "{}", s.message());
    }
    // With the text and the heatmaps, leaving them out is named too.
    req.runs = Some(5);
    req.text = true;
    req.heatmaps = true;
    let s = collect(&mut small.client, req.clone())
        .await
        .expect_err("too large");
    assert_eq!(s.code(), Code::OutOfRange, "{s:?}");
    for needle in ["leave out `text`", "leave out `heatmaps`", "PNG heatmaps ≈"] {
        assert!(s.message().contains(needle), "{needle:?}: {}", s.message());
    }
    // ASSEMBLE is checked the same way, before rendering anything.
    let mut all = request(ARCHER, 5, 1, EvaluateMode::Partial);
    all.placements = (0..7).collect();
    let mut asm = request(ARCHER, 5, 1, EvaluateMode::Assemble);
    asm.results = partial(&mut t.client, all).await;
    let s = collect(&mut small.client, asm)
        .await
        .expect_err("too large");
    assert_eq!(s.code(), Code::OutOfRange, "{s:?}");
    assert!(
        s.message().contains("refused before playing"),
        "{}",
        s.message()
    );
    // A sample of 3 placements fits, and is the only call that played.
    let mut sampled = request(ARCHER, 5, 1, EvaluateMode::Report);
    sampled.spec.push_str("sample: {size: 3}\n");
    report(&mut small.client, sampled).await;
    let s = stats(&mut small.client).await;
    assert_eq!(s.combats_evaluated, 15, "only the call that fits played");
    assert_eq!(
        (
            s.evaluations_started,
            s.evaluations_completed,
            s.evaluations_running
        ),
        (1, 1, 0)
    );

    // PARTIAL results are bounded too: 23 placements do not fit 1 KiB, 2 do.
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_message_bytes = 1024;
    let mut tiny = start_with(config).await;
    let mut req = proto::EvaluateRequest {
        spec: "scenario: sample_arena\nplacements:\n  \
               goblin: {rect: {from: [3, 1], to: [6, 6]}, exclude: [[6, 3]]}\n"
            .into(),
        runs: Some(5),
        mode: EvaluateMode::Partial as i32,
        ..Default::default()
    };
    let s = collect(&mut tiny.client, req.clone())
        .await
        .expect_err("too large");
    assert_eq!(s.code(), Code::OutOfRange, "{s:?}");
    assert!(
        s.message().contains("the partial results could take up to")
            && s.message().contains("fewer placements per PARTIAL call")
            && s.message().contains("of these 23 would fit"),
        "{}",
        s.message()
    );
    req.placements = vec![0, 1];
    let results = partial(&mut tiny.client, req).await;
    assert_eq!(results.len(), 2);
    let s = stats(&mut tiny.client).await;
    assert_eq!((s.evaluations_started, s.evaluations_completed), (1, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_is_paced_and_has_no_eta_until_a_combat_ends() {
    let mut t = start().await;
    let mut stream = t
        .client
        .evaluate(long_request())
        .await
        .unwrap()
        .into_inner();
    let t0 = Instant::now();
    let mut progress = Vec::new();
    while t0.elapsed() < Duration::from_millis(1500) {
        match stream.message().await.unwrap().unwrap().kind.unwrap() {
            Kind::Progress(p) => progress.push(p),
            other => panic!("finished early: {other:?}"),
        }
    }
    drop(stream);
    assert!(progress.len() >= 5, "{progress:?}");
    assert_eq!(progress[0].combats_done, 0);
    assert_eq!(progress[0].eta_seconds, None);
    assert!(progress.iter().any(|p| p.eta_seconds.is_some()));
    assert_paced(&progress);
    wait_idle(&mut t.client, Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn report_text_escapes_control_characters() {
    let mut t = start().await;
    let spec = "scenario: sample_arena\n\
                description: \"line1\\nline2 \\e[31mRED\\e[0m \\u0007bell\"\n\
                placements: {goblin: {cells: [[3, 1], [3, 2]]}}\n";
    let req = proto::EvaluateRequest {
        spec: spec.into(),
        runs: Some(2),
        text: true,
        ..Default::default()
    };
    let r = report(&mut t.client, req).await;
    assert!(
        !r.text.chars().any(|c| c.is_control() && c != '\n'),
        "{:?}",
        r.text
    );
    assert!(
        r.text
            .contains("  line1\n  line2 \\u{1b}[31mRED\\u{1b}[0m \\u{7}bell\n"),
        "{}",
        r.text
    );
    // The JSON document keeps the description as it is (JSON escapes it).
    let doc: serde_json::Value = serde_json::from_str(&r.json).unwrap();
    assert_eq!(
        doc["description"],
        "line1\nline2 \u{1b}[31mRED\u{1b}[0m \u{7}bell"
    );
    assert!(r.json.contains(r"\u001b[31mRED"), "{}", r.json);
}
