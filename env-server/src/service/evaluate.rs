//! The `Evaluate` RPC: position sweeps ([`crate::sweep`]) over gRPC, with progress, partial
//! results for fan-out, and cancellation.
//!
//! A call goes through three stages:
//!
//! 1. **Admission** (on the async runtime): the request's shape is checked, then one of the
//!    `max_evaluations` slots is taken (RESOURCE_EXHAUSTED when none is free). The slot is held
//!    until the call's work has stopped, whatever way the call ends.
//! 2. **Preparation** (blocking pool): the spec is parsed ([`SweepSpec::from_str`]), the
//!    overrides applied, the plan built ([`SweepPlan::build`], names resolved in the server's
//!    data directory only) and the subset or the results checked against it. Errors are the
//!    call's status (INVALID_ARGUMENT naming the field).
//! 3. **Work** (one `spawn_blocking` thread driving the global rayon pool) while a driver task
//!    on the runtime forwards progress at most every [`PROGRESS_INTERVAL`] and watches for the
//!    end of the call: the client cancelling or going away (the response stream is dropped),
//!    the deadline, or server shutdown. Any of them raises the work's `cancel` flag, which
//!    [`run_placements`] checks before every combat, so the work stops within one combat per
//!    worker thread; only then is the slot released.
//!
//! Placements are played one [`run_placements`] call each (the runs of a placement are
//! themselves parallel), so that whole placements can be counted in the progress; the results
//! are the same as one call over every placement (each placement's combats depend only on the
//! plan), and the report is built by the same [`assemble_report`] as `pf1e-sim sweep`.
use super::{blocking, deadline_of, rules_data_version, EnvironmentService, ServiceError};
use crate::heatmap::Heatmap;
use crate::proto;
use crate::sweep::{
    assemble_report, check_runs, run_placements, PlacementResult, SweepError, SweepPlan,
    SweepReport, SweepSpec, MAX_PLACEMENTS,
};
use pf1e_engine::Cell;
use prost::Message;
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tonic::{Request, Response};

/// Default of [`super::ServiceConfig::max_evaluations`].
pub const DEFAULT_MAX_EVALUATIONS: usize = 2;
/// Shortest time between two progress messages of one call (so at most 10 per second).
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);
/// Longest accepted `EvaluateRequest.origin`, in bytes.
pub const MAX_ORIGIN_LEN: usize = 256;
/// `EvaluateRequest.origin` when empty.
const DEFAULT_ORIGIN: &str = "spec";
/// Messages buffered per Evaluate stream. Progress is dropped rather than queued when the
/// client reads slowly; the final message waits for room.
const EVALUATE_BUFFER: usize = 4;

/// The response stream of Evaluate.
pub type EvaluateResponseStream =
    tokio_stream::wrappers::ReceiverStream<Result<proto::EvaluateResponse, tonic::Status>>;

/// What a call does, once its request is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Report,
    Partial,
    Assemble,
    Plan,
}

/// A prepared call: the plan and what to do with it.
struct Job {
    plan: SweepPlan,
    work: Work,
    heatmaps: bool,
    text: bool,
}

enum Work {
    /// Play these placements, then send the report (`report`) or the results.
    Play { indices: Vec<usize>, report: bool },
    /// Assemble the report from these results.
    Assemble(Vec<PlacementResult>),
    /// Send the plan summary.
    Plan,
}

/// One of the `max_evaluations` slots; released (counter decremented) on drop.
struct EvaluationSlot {
    svc: EnvironmentService,
}

impl Drop for EvaluationSlot {
    fn drop(&mut self) {
        self.svc
            .inner
            .counters
            .evaluations_running
            .fetch_sub(1, Ordering::SeqCst);
    }
}

/// Progress of one call, updated from the rayon workers.
#[derive(Default)]
struct Progress {
    combats: AtomicU64,
    placements: AtomicU64,
}

/// Why a call stopped before the end of its work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// The client cancelled or went away: nobody to answer.
    ClientGone,
    Deadline,
    Shutdown,
}

impl From<SweepError> for ServiceError {
    fn from(e: SweepError) -> Self {
        match e {
            SweepError::Invalid { field, reason } => {
                ServiceError::InvalidArgument { field, reason }
            }
            // Only raised by our own cancel flag; the driver reports why it raised it.
            SweepError::Cancelled => ServiceError::Internal("evaluation cancelled".into()),
        }
    }
}

impl EnvironmentService {
    /// Take an evaluation slot, or RESOURCE_EXHAUSTED.
    fn acquire_evaluation(&self) -> Result<EvaluationSlot, ServiceError> {
        let max = self.inner.config.max_evaluations;
        let c = &self.inner.counters;
        c.evaluations_running
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max as u64).then_some(n + 1)
            })
            .map_err(|_| ServiceError::TooManyEvaluations(max))?;
        c.evaluations_started.fetch_add(1, Ordering::SeqCst);
        Ok(EvaluationSlot { svc: self.clone() })
    }

    /// The Evaluate RPC (see the module documentation).
    pub(super) async fn evaluate_call(
        &self,
        request: Request<proto::EvaluateRequest>,
    ) -> Result<Response<EvaluateResponseStream>, tonic::Status> {
        let deadline = deadline_of(&request);
        let req = request.into_inner();
        let mode = check_shape(&req)?;
        if *self.inner.shutdown.borrow() {
            return Err(ServiceError::ShuttingDown.into());
        }
        let slot = self.acquire_evaluation()?;
        let svc = self.clone();
        let job = blocking(deadline, move || svc.prepare(&req, mode)).await?;
        let (tx, rx) = tokio::sync::mpsc::channel(EVALUATE_BUFFER);
        tokio::spawn(drive(self.clone(), job, slot, deadline, tx));
        Ok(Response::new(tokio_stream::wrappers::ReceiverStream::new(
            rx,
        )))
    }

    /// Parse the spec, apply the overrides, build the plan and check the request against it.
    fn prepare(&self, req: &proto::EvaluateRequest, mode: Mode) -> Result<Job, ServiceError> {
        let origin = if req.origin.is_empty() {
            DEFAULT_ORIGIN
        } else {
            req.origin.as_str()
        };
        let mut spec = SweepSpec::from_str(&req.spec, origin)?;
        if let Some(r) = req.runs {
            spec.runs = Some(r);
        }
        if let Some(s) = req.seed {
            spec.seed = Some(s);
        }
        let plan = SweepPlan::build(&spec, &self.inner.scenarios)?;
        let n = plan.placements.len();
        let work = match mode {
            Mode::Report => Work::Play {
                indices: (0..n).collect(),
                report: true,
            },
            Mode::Partial if req.placements.is_empty() => Work::Play {
                indices: (0..n).collect(),
                report: false,
            },
            Mode::Partial => {
                let mut seen = BTreeSet::new();
                let mut indices = Vec::with_capacity(req.placements.len());
                for (j, &k) in req.placements.iter().enumerate() {
                    let field = format!("placements[{j}]");
                    let k = usize::try_from(k).ok().filter(|&k| k < n).ok_or_else(|| {
                        ServiceError::invalid(
                            &field,
                            format!("placement {k} is not in the plan ({n} placements: 0..{n})"),
                        )
                    })?;
                    if !seen.insert(k) {
                        return Err(ServiceError::invalid(
                            field,
                            format!("placement {k} is listed twice"),
                        ));
                    }
                    indices.push(k);
                }
                Work::Play {
                    indices,
                    report: false,
                }
            }
            Mode::Assemble => {
                let fp = plan_fingerprint(&plan);
                for (j, r) in req.results.iter().enumerate() {
                    if r.plan_fingerprint != fp {
                        return Err(ServiceError::invalid(
                            format!("results[{j}].plan_fingerprint"),
                            format!(
                                "{:?} is not this plan's ({fp}): the result comes from another seed, run count, spec, data or server version",
                                r.plan_fingerprint
                            ),
                        ));
                    }
                }
                Work::Assemble(req.results.iter().map(result_from_proto).collect())
            }
            Mode::Plan => Work::Plan,
        };
        Ok(Job {
            plan,
            work,
            heatmaps: req.heatmaps,
            text: req.text,
        })
    }
}

/// Check what needs no data files: mode and field combinations, sizes, the runs override.
fn check_shape(req: &proto::EvaluateRequest) -> Result<Mode, ServiceError> {
    use proto::EvaluateMode as M;
    if req.spec.trim().is_empty() {
        return Err(ServiceError::invalid(
            "spec",
            "is required: the sweep spec text, YAML or JSON (see data/sweeps/)",
        ));
    }
    if req.origin.len() > MAX_ORIGIN_LEN {
        return Err(ServiceError::invalid(
            "origin",
            format!("longer than {MAX_ORIGIN_LEN} bytes"),
        ));
    }
    if req.origin.chars().any(char::is_control) {
        return Err(ServiceError::invalid(
            "origin",
            "must not contain control characters",
        ));
    }
    if let Some(r) = req.runs {
        check_runs(r).map_err(|reason| ServiceError::invalid("runs", reason))?;
    }
    let mode =
        match M::try_from(req.mode) {
            Ok(M::Unspecified) => match (req.results.is_empty(), req.placements.is_empty()) {
                (false, false) => return Err(ServiceError::invalid(
                    "placements",
                    "give either placements (to play them) or results (to assemble them), not both",
                )),
                (false, true) => Mode::Assemble,
                (true, false) => Mode::Partial,
                (true, true) => Mode::Report,
            },
            Ok(M::Report) => Mode::Report,
            Ok(M::Partial) => Mode::Partial,
            Ok(M::Assemble) => Mode::Assemble,
            Ok(M::Plan) => Mode::Plan,
            Err(_) => {
                return Err(ServiceError::invalid(
                    "mode",
                    format!("unknown evaluate mode {}", req.mode),
                ))
            }
        };
    if !req.placements.is_empty() && mode != Mode::Partial {
        return Err(ServiceError::invalid(
            "placements",
            "only with mode EVALUATE_MODE_PARTIAL",
        ));
    }
    if !req.results.is_empty() && mode != Mode::Assemble {
        return Err(ServiceError::invalid(
            "results",
            "only with mode EVALUATE_MODE_ASSEMBLE",
        ));
    }
    let report = matches!(mode, Mode::Report | Mode::Assemble);
    if req.heatmaps && !report {
        return Err(ServiceError::invalid(
            "heatmaps",
            "only for a report (mode REPORT or ASSEMBLE)",
        ));
    }
    if req.text && !report {
        return Err(ServiceError::invalid(
            "text",
            "only for a report (mode REPORT or ASSEMBLE)",
        ));
    }
    for (field, len) in [
        ("placements", req.placements.len()),
        ("results", req.results.len()),
    ] {
        if len > MAX_PLACEMENTS {
            return Err(ServiceError::invalid(
                field,
                format!("{len} items: a sweep has at most {MAX_PLACEMENTS} placements"),
            ));
        }
    }
    Ok(mode)
}

/// Run the call's work on the blocking pool while forwarding progress and watching for the
/// call's end; then send the final message (or the error), update the counters and release
/// the slot.
async fn drive(
    svc: EnvironmentService,
    job: Job,
    slot: EvaluationSlot,
    deadline: Option<Instant>,
    tx: tokio::sync::mpsc::Sender<Result<proto::EvaluateResponse, tonic::Status>>,
) {
    let cancel = Arc::new(AtomicBool::new(false));
    let progress = Arc::new(Progress::default());
    let plan = Arc::new(job.plan);
    let (placements_total, plays) = match &job.work {
        Work::Play { indices, .. } => (indices.len() as u64, true),
        _ => (0, false),
    };
    let combats_total = placements_total * plan.runs;
    let started = Instant::now();
    let snapshot = |p: &Progress| {
        let done = p.combats.load(Ordering::Relaxed);
        let elapsed = started.elapsed().as_secs_f64();
        proto::EvaluateProgress {
            combats_done: done,
            combats_total,
            placements_done: p.placements.load(Ordering::Relaxed),
            placements_total,
            elapsed_seconds: elapsed,
            eta_seconds: (done > 0)
                .then(|| elapsed * (combats_total.saturating_sub(done)) as f64 / done as f64),
        }
    };
    let progress_msg = |p: proto::EvaluateProgress| proto::EvaluateResponse {
        kind: Some(proto::evaluate_response::Kind::Progress(p)),
    };
    if plays {
        // Totals first, so the client knows the size of the job at once.
        let _ = tx.try_send(Ok(progress_msg(snapshot(&progress))));
    }

    let work = {
        let (plan, progress, cancel, svc) = (
            Arc::clone(&plan),
            Arc::clone(&progress),
            Arc::clone(&cancel),
            svc.clone(),
        );
        let (work, heatmaps, text) = (job.work, job.heatmaps, job.text);
        tokio::task::spawn_blocking(move || {
            do_work(&svc, &plan, work, heatmaps, text, &progress, &cancel)
        })
    };
    tokio::pin!(work);
    let mut shutdown = svc.inner.shutdown.subscribe();
    let mut tick = tokio::time::interval_at(
        tokio::time::Instant::now() + PROGRESS_INTERVAL,
        PROGRESS_INTERVAL,
    );
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let expiry = async move {
        match deadline {
            Some(d) => tokio::time::sleep_until(d.into()).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(expiry);
    let mut stop: Option<Stop> = None;
    let mut last_sent = 0u64;
    let joined = loop {
        tokio::select! {
            r = &mut work => break r,
            _ = tick.tick(), if plays && stop.is_none() => {
                let p = snapshot(&progress);
                if p.combats_done != last_sent {
                    last_sent = p.combats_done;
                    match tx.try_send(Ok(progress_msg(p))) {
                        // A slow reader misses a progress message, nothing else.
                        Ok(()) | Err(tokio::sync::mpsc::error::TrySendError::Full(_)) => {}
                        Err(tokio::sync::mpsc::error::TrySendError::Closed(_)) => {
                            stop = Some(Stop::ClientGone);
                            cancel.store(true, Ordering::SeqCst);
                        }
                    }
                }
            }
            () = tx.closed(), if stop.is_none() => {
                stop = Some(Stop::ClientGone);
                cancel.store(true, Ordering::SeqCst);
            }
            () = &mut expiry, if stop.is_none() => {
                stop = Some(Stop::Deadline);
                cancel.store(true, Ordering::SeqCst);
            }
            _ = shutdown_signal(&mut shutdown), if stop.is_none() => {
                stop = Some(Stop::Shutdown);
                cancel.store(true, Ordering::SeqCst);
            }
        }
    };
    // The work has stopped (spawn_blocking cannot be aborted: `joined` is its end).
    let counters = &svc.inner.counters;
    let outcome: Result<proto::evaluate_response::Kind, ServiceError> = match (stop, joined) {
        (Some(s), _) => {
            counters
                .evaluations_cancelled
                .fetch_add(1, Ordering::SeqCst);
            tracing::debug!(reason = ?s, "evaluation cancelled");
            match s {
                // Nobody is listening any more.
                Stop::ClientGone => return,
                Stop::Deadline => Err(ServiceError::DeadlineExceeded),
                Stop::Shutdown => Err(ServiceError::ShuttingDown),
            }
        }
        (None, Ok(r)) => r,
        (None, Err(e)) => Err(ServiceError::Internal(format!("engine panicked: {e}"))),
    };
    let outcome = outcome.and_then(|kind| {
        let msg = proto::EvaluateResponse { kind: Some(kind) };
        let size = msg.encoded_len();
        let limit = svc.inner.config.max_message_bytes;
        if size > limit {
            return Err(ServiceError::TooLarge {
                what: "the final Evaluate message".into(),
                size,
                limit,
            });
        }
        Ok(msg)
    });
    match outcome {
        Ok(msg) => {
            if plays {
                let _ = tx.send(Ok(progress_msg(snapshot(&progress)))).await;
            }
            if tx.send(Ok(msg)).await.is_ok() {
                counters
                    .evaluations_completed
                    .fetch_add(1, Ordering::SeqCst);
            }
        }
        Err(e) => {
            let _ = tx.send(Err(e.into())).await;
        }
    }
    drop(slot);
}

/// Resolves when the server starts shutting down (never if the sender is gone).
async fn shutdown_signal(rx: &mut tokio::sync::watch::Receiver<bool>) {
    if rx.wait_for(|&down| down).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// The call's work, on a blocking thread: play, assemble, render. `Err(Internal)` when
/// cancelled (the driver then reports why).
fn do_work(
    svc: &EnvironmentService,
    plan: &SweepPlan,
    work: Work,
    heatmaps: bool,
    text: bool,
    progress: &Progress,
    cancel: &AtomicBool,
) -> Result<proto::evaluate_response::Kind, ServiceError> {
    use proto::evaluate_response::Kind;
    match work {
        Work::Plan => Ok(Kind::Plan(plan_summary(plan))),
        Work::Assemble(results) => {
            let report = assemble_report(plan, results)?;
            Ok(Kind::Report(report_to_proto(
                plan, &report, heatmaps, text,
            )?))
        }
        Work::Play { indices, report } => {
            let results = play(svc, plan, &indices, progress, cancel)?;
            if report {
                let report = assemble_report(plan, results)?;
                Ok(Kind::Report(report_to_proto(
                    plan, &report, heatmaps, text,
                )?))
            } else {
                let summary = plan_summary(plan);
                Ok(Kind::Partial(proto::SweepPartialResults {
                    results: results
                        .iter()
                        .map(|r| result_to_proto(r, &summary.fingerprint))
                        .collect(),
                    plan: Some(summary),
                }))
            }
        }
    }
}

/// Play `indices` in parallel on the global rayon pool, one [`run_placements`] call per
/// placement (so whole placements are counted); results in the order of `indices`.
fn play(
    svc: &EnvironmentService,
    plan: &SweepPlan,
    indices: &[usize],
    progress: &Progress,
    cancel: &AtomicBool,
) -> Result<Vec<PlacementResult>, ServiceError> {
    use rayon::prelude::*;
    let global = &svc.inner.counters.combats_evaluated;
    let tick = |n: u64| {
        progress.combats.fetch_add(n, Ordering::Relaxed);
        global.fetch_add(n, Ordering::Relaxed);
    };
    indices
        .par_iter()
        .map(|&k| {
            let mut r = run_placements(plan, &[k], Some(&tick), cancel)?;
            progress.placements.fetch_add(1, Ordering::Relaxed);
            r.pop()
                .ok_or_else(|| ServiceError::Internal("no result for a placement".into()))
        })
        .collect()
}

fn cell_to_proto(c: Cell) -> proto::Cell {
    proto::Cell {
        row: c.row,
        col: c.col,
    }
}

/// The plan summary.
fn plan_summary(plan: &SweepPlan) -> proto::SweepPlanSummary {
    proto::SweepPlanSummary {
        placements: plan.placements.len() as u64,
        runs: plan.runs,
        seed: plan.seed,
        combats: plan.total_combats(),
        product_size: plan.product_size,
        excluded: plan.excluded.iter().map(|e| e.count).sum(),
        swept: plan.swept.iter().map(|s| s.id.clone()).collect(),
        sides: plan.base.sides.clone(),
        rank_side: plan.rank_side.clone(),
        fingerprint: plan_fingerprint(plan),
    }
}

/// FNV-1a 64 of what determines a placement's results and the report: the built encounter
/// ([`rules_data_version`]), the engine and RNG versions, seed, runs, rank side, and every
/// placement's product index and start squares. 16 hex digits.
fn plan_fingerprint(plan: &SweepPlan) -> String {
    struct Fnv(u64);
    impl Fnv {
        fn bytes(&mut self, b: &[u8]) {
            for &x in b {
                self.0 ^= u64::from(x);
                self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        fn str(&mut self, s: &str) {
            self.bytes(&(s.len() as u64).to_le_bytes());
            self.bytes(s.as_bytes());
        }
        fn u64(&mut self, x: u64) {
            self.bytes(&x.to_le_bytes());
        }
    }
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    h.str(&rules_data_version(&plan.base));
    h.str(pf1e_engine::VERSION);
    h.str(pf1e_engine::dice::RNG_VERSION);
    h.u64(plan.seed);
    h.u64(plan.runs);
    h.str(&plan.rank_side);
    h.u64(plan.placements.len() as u64);
    for p in &plan.placements {
        h.u64(p.product_index);
        for c in &p.starts {
            h.bytes(&c.row.to_le_bytes());
            h.bytes(&c.col.to_le_bytes());
        }
    }
    format!("{:016x}", h.0)
}

/// A placement result as its message, stamped with the plan's fingerprint.
fn result_to_proto(r: &PlacementResult, fingerprint: &str) -> proto::SweepPlacementResult {
    proto::SweepPlacementResult {
        index: r.index,
        product_index: r.product_index,
        starts: r.starts.iter().copied().map(cell_to_proto).collect(),
        wins: r.wins.clone(),
        draws: r.draws,
        truncated: r.truncated,
        rounds_sum: r.rounds_sum,
        runs: r.runs,
        plan_fingerprint: fingerprint.to_string(),
    }
}

/// A placement result from its message (checked against the plan by [`assemble_report`]).
fn result_from_proto(r: &proto::SweepPlacementResult) -> PlacementResult {
    PlacementResult {
        index: r.index,
        product_index: r.product_index,
        starts: r.starts.iter().map(|c| Cell::new(c.row, c.col)).collect(),
        wins: r.wins.clone(),
        draws: r.draws,
        truncated: r.truncated,
        rounds_sum: r.rounds_sum,
        runs: r.runs,
    }
}

fn rate_to_proto(w: &crate::montecarlo::WinRate) -> proto::SweepRate {
    proto::SweepRate {
        count: w.count,
        rate: w.rate,
        band_3sigma_lo: w.band_3sigma[0],
        band_3sigma_hi: w.band_3sigma[1],
    }
}

/// The report message: the JSON and CSV documents, the typed table and cell statistics, and
/// the text and PNG heatmaps when asked.
fn report_to_proto(
    plan: &SweepPlan,
    report: &SweepReport,
    heatmaps: bool,
    text: bool,
) -> Result<proto::SweepReport, ServiceError> {
    let pngs: Vec<Vec<u8>> = if heatmaps {
        report
            .heatmaps()
            .iter()
            .map(png_bytes)
            .collect::<Result<_, _>>()?
    } else {
        Vec::new()
    };
    Ok(proto::SweepReport {
        json: report.to_json(),
        csv: report.to_csv(),
        text: if text {
            report.render_text()
        } else {
            String::new()
        },
        plan: Some(plan_summary(plan)),
        best: report.best,
        ranking: report.ranking.clone(),
        placements: report
            .placements
            .iter()
            .map(|p| proto::SweepRow {
                index: p.index,
                product_index: p.product_index,
                rank: p.rank,
                cells: p.cells.iter().copied().map(cell_to_proto).collect(),
                starts: p.starts.iter().copied().map(cell_to_proto).collect(),
                displaced: p
                    .displaced
                    .iter()
                    .map(|d| proto::SweepDisplaced {
                        id: d.id.clone(),
                        from_cell: Some(cell_to_proto(d.from)),
                        to_cell: Some(cell_to_proto(d.to)),
                    })
                    .collect(),
                runs: p.runs,
                wins: p.wins.iter().map(rate_to_proto).collect(),
                draws: Some(rate_to_proto(&p.draws)),
                truncated: p.truncated,
                mean_rounds: p.mean_rounds,
                z_vs_best: p.z_vs_best,
                significantly_worse: p.significantly_worse,
            })
            .collect(),
        cell_stats: report
            .cell_stats
            .iter()
            .enumerate()
            .map(|(i, cs)| proto::SweepCellStats {
                combatant: cs.combatant.clone(),
                side: cs.side.clone(),
                cells: cs
                    .cells
                    .iter()
                    .map(|c| proto::SweepCellRate {
                        cell: Some(cell_to_proto(c.cell)),
                        placements: c.placements,
                        wins: c.wins,
                        runs: c.runs,
                        rate: c.rate,
                    })
                    .collect(),
                png: pngs.get(i).cloned().unwrap_or_default(),
            })
            .collect(),
    })
}

/// A heatmap as PNG bytes.
fn png_bytes(h: &Heatmap) -> Result<Vec<u8>, ServiceError> {
    crate::heatmap::render_png_bytes(h)
        .map_err(|e| ServiceError::Internal(format!("heatmap: render: {e}")))
}
