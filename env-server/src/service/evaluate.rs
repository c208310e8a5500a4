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
//!    data directory only), the subset or the results checked against it (ASSEMBLE: the report
//!    is assembled here, so bad results are refused before the work starts), and the size of
//!    the final message bounded ([`check_final_size`]): a report or partial results that could
//!    exceed `--max-message-bytes` are refused now with OUT_OF_RANGE, naming what to reduce,
//!    rather than after every combat. Errors are the call's status (INVALID_ARGUMENT naming
//!    the field, OUT_OF_RANGE).
//! 3. **Work** (one `spawn_blocking` thread driving the Evaluate rayon pool, apart from the
//!    global pool of the batches, see `evaluation_pool`) while a driver task
//!    on the runtime forwards progress and watches for the end of the call: the client
//!    cancelling or going away (the response stream is dropped), the deadline, or server
//!    shutdown. Any of them raises the work's `cancel` flag, which [`run_placements`] checks
//!    before every combat and the engine inside every combat (its work budget's stop check),
//!    so the work stops within moments; only then is the slot released. The deadline is the
//!    client's, capped by the server's `max_evaluation_duration`. The final message's real size is checked again before it is sent
//!    (a safety net for the PNG heatmaps, whose size is estimated: OUT_OF_RANGE too).
//!
//! **Progress** messages (PARTIAL and REPORT) are at least [`PROGRESS_INTERVAL`] apart, the
//! first, sent at once with the totals, included, so a second never holds more than 10 (a
//! slow reader may miss some: they are dropped rather than queued). The last one before the
//! final message is complete. `eta_seconds` is absent — not 0 — while no combat has
//! finished (the first message, and any sent before the first combats end): readers must
//! test its presence (`HasField("eta_seconds")` in Python, `Option` in Rust); 0 means done.
//!
//! **Counters** (`Stats`): a call counts as started (`evaluations_started`) once it has
//! passed every check and its work begins; calls refused earlier (INVALID_ARGUMENT,
//! OUT_OF_RANGE before playing, RESOURCE_EXHAUSTED for want of a slot) are not counted at
//! all. Every started call then ends as exactly one of `evaluations_completed` (its final
//! message was sent) or `evaluations_cancelled` (it stopped before that: client cancelled or
//! gone, deadline, shutdown, or a failure after its work began — INTERNAL, the size safety
//! net), so `started = completed + cancelled` whenever `evaluations_running` is 0.
//!
//! Placements are played one [`run_placements`] call each (the runs of a placement are
//! themselves parallel), so that whole placements can be counted in the progress; the results
//! are the same as one call over every placement (each placement's combats depend only on the
//! plan), and the report is built by the same [`assemble_report`] as `pf1e-sim sweep`.
use super::exec::{blocking, deadline_of};
use super::spec::rules_data_version;
use super::{EnvironmentService, ServiceError};
use crate::heatmap::Heatmap;
use crate::proto;
use crate::sweep::{
    assemble_report, check_runs, run_placements, PlacementResult, SweepError, SweepPlan,
    SweepReport, SweepSpec, Widest, MAX_PLACEMENTS,
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
/// Shortest time between two progress messages of one call, the first and the last
/// included (so at most 10 in any second).
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
    /// Render this report, assembled from the request's results.
    Assemble(Box<SweepReport>),
    /// Send the plan summary.
    Plan,
}

/// One of the `max_evaluations` slots; released (counter decremented) on drop.
struct EvaluationSlot {
    svc: EnvironmentService,
}

impl Drop for EvaluationSlot {
    fn drop(&mut self) {
        let mut per = self
            .svc
            .inner
            .evaluations_by_client
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let owner = &self.svc.principal.owner;
        if let Some(n) = per.get_mut(owner) {
            *n -= 1;
            if *n == 0 {
                per.remove(owner);
            }
        }
        drop(per);
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
    /// Take an evaluation slot, or RESOURCE_EXHAUSTED. (The call counts as started only
    /// when its work begins, in [`drive`].)
    fn acquire_evaluation(&self) -> Result<EvaluationSlot, ServiceError> {
        let max = self.inner.config.max_evaluations;
        // The client's quota first (under its lock, so two calls cannot both take the last
        // one), then a server-wide slot.
        let mut per = self
            .inner
            .evaluations_by_client
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let mine = per.get(&self.principal.owner).copied().unwrap_or(0);
        let quota = self.principal.quotas.max_evaluations;
        if mine >= quota {
            return Err(ServiceError::Quota {
                what: "evaluations running".into(),
                limit: quota as u64,
            });
        }
        self.inner
            .counters
            .evaluations_running
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
                (n < max as u64).then_some(n + 1)
            })
            .map_err(|_| ServiceError::TooManyEvaluations(max))?;
        *per.entry(self.principal.owner.clone()).or_default() += 1;
        Ok(EvaluationSlot { svc: self.clone() })
    }

    /// The Evaluate RPC (see the module documentation).
    pub(super) async fn evaluate_call(
        &self,
        request: Request<proto::EvaluateRequest>,
    ) -> Result<Response<EvaluateResponseStream>, tonic::Status> {
        // The client's deadline, capped by the server's longest Evaluate.
        let cap = self
            .inner
            .config
            .max_evaluation_duration
            .and_then(|d| Instant::now().checked_add(d));
        let deadline = match (deadline_of(&request), cap) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let req = request.into_inner();
        let mode = check_shape(&req)?;
        if *self.inner.shutdown.borrow() {
            return Err(ServiceError::ShuttingDown.into());
        }
        let slot = self.acquire_evaluation()?;
        let svc = self.clone();
        let job = blocking(&svc.clone(), deadline, move || svc.prepare(&req, mode)).await?;
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
        let max_rounds = self.inner.config.max_evaluation_rounds;
        if plan.base.options.round_cap > max_rounds {
            return Err(ServiceError::invalid(
                "spec.round_cap",
                format!(
                    "{} rounds (the spec's, else the scenario's): at most {max_rounds} per \
                     combat on this server (--max-evaluation-rounds)",
                    plan.base.options.round_cap
                ),
            ));
        }
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
                let results = req.results.iter().map(result_from_proto).collect();
                Work::Assemble(Box::new(assemble_report(&plan, results)?))
            }
            Mode::Plan => Work::Plan,
        };
        check_final_size(
            &plan,
            &work,
            req.heatmaps,
            req.text,
            self.inner.config.max_message_bytes,
        )?;
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
    let counters = &svc.inner.counters;
    counters.evaluations_started.fetch_add(1, Ordering::SeqCst);
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
            // Unknown (absent, not 0) until a combat has finished.
            eta_seconds: (done > 0)
                .then(|| elapsed * (combats_total.saturating_sub(done)) as f64 / done as f64),
        }
    };
    let progress_msg = |p: proto::EvaluateProgress| proto::EvaluateResponse {
        kind: Some(proto::evaluate_response::Kind::Progress(p)),
    };
    // When the last progress message was queued, and what it said.
    let mut last_at: Option<tokio::time::Instant> = None;
    let mut last_sent: Option<proto::EvaluateProgress> = None;
    if plays {
        // Totals first, so the client knows the size of the job at once.
        let p = snapshot(&progress);
        if tx.try_send(Ok(progress_msg(p))).is_ok() {
            last_at = Some(tokio::time::Instant::now());
            last_sent = Some(p);
        }
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
    // The next progress message is due at least PROGRESS_INTERVAL after the previous one.
    let next_progress = tokio::time::sleep_until(
        last_at.unwrap_or_else(tokio::time::Instant::now) + PROGRESS_INTERVAL,
    );
    tokio::pin!(next_progress);
    let expiry = async move {
        match deadline {
            Some(d) => tokio::time::sleep_until(d.into()).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(expiry);
    let mut stop: Option<Stop> = None;
    let joined = loop {
        tokio::select! {
            r = &mut work => break r,
            () = &mut next_progress, if plays && stop.is_none() => {
                let p = snapshot(&progress);
                let now = tokio::time::Instant::now();
                if last_sent.as_ref().map(|l| l.combats_done) != Some(p.combats_done) {
                    match tx.try_send(Ok(progress_msg(p))) {
                        Ok(()) => {
                            last_at = Some(now);
                            last_sent = Some(p);
                        }
                        // A slow reader misses a progress message, nothing else.
                        Err(tokio::sync::mpsc::error::TrySendError::Full(_)) => {}
                        Err(tokio::sync::mpsc::error::TrySendError::Closed(_)) => {
                            stop = Some(Stop::ClientGone);
                            cancel.store(true, Ordering::SeqCst);
                        }
                    }
                }
                next_progress.as_mut().reset(now + PROGRESS_INTERVAL);
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
    // The work has stopped (spawn_blocking cannot be aborted: `joined` is its end). From here
    // the call ends as exactly one of completed or cancelled.
    let outcome: Result<proto::EvaluateResponse, ServiceError> = match (stop, joined) {
        (Some(s), _) => {
            tracing::debug!(reason = ?s, "evaluation cancelled");
            match s {
                // Nobody is listening any more.
                Stop::ClientGone => {
                    counters
                        .evaluations_cancelled
                        .fetch_add(1, Ordering::SeqCst);
                    return;
                }
                // Counted below, with the calls that send no final message.
                Stop::Deadline => Err(ServiceError::DeadlineExceeded),
                Stop::Shutdown => Err(ServiceError::ShuttingDown),
            }
        }
        (None, Ok(r)) => r,
        (None, Err(e)) => Err(ServiceError::Internal(format!("engine panicked: {e}"))),
    }
    .and_then(|kind| {
        let msg = proto::EvaluateResponse { kind: Some(kind) };
        check_message_size(&msg, svc.inner.config.max_message_bytes)?;
        Ok(msg)
    });
    let sent = match outcome {
        Ok(msg) => {
            let mut ok = true;
            if plays {
                let p = snapshot(&progress);
                let complete = |q: &proto::EvaluateProgress| {
                    q.combats_done == combats_total && q.placements_done == placements_total
                };
                // The last progress message is complete; it too keeps its distance.
                if !last_sent.as_ref().is_some_and(complete) {
                    if let Some(t) = last_at {
                        tokio::time::sleep_until(t + PROGRESS_INTERVAL).await;
                    }
                    let p = proto::EvaluateProgress {
                        elapsed_seconds: started.elapsed().as_secs_f64(),
                        ..p
                    };
                    ok = tx.send(Ok(progress_msg(p))).await.is_ok();
                }
            }
            ok && tx.send(Ok(msg)).await.is_ok()
        }
        Err(e) => {
            tracing::debug!(error = %e, "evaluation ended without its final message");
            let _ = tx.send(Err(e.into())).await;
            false
        }
    };
    if sent {
        counters
            .evaluations_completed
            .fetch_add(1, Ordering::SeqCst);
    } else {
        counters
            .evaluations_cancelled
            .fetch_add(1, Ordering::SeqCst);
    }
    drop(slot);
}

/// The safety net: `msg` must fit `limit` (OUT_OF_RANGE otherwise). [`check_final_size`]
/// refuses, before playing, the calls whose final message could not fit, so this fires only
/// when a PNG heatmap came out larger than estimated.
fn check_message_size(msg: &proto::EvaluateResponse, limit: usize) -> Result<(), ServiceError> {
    let size = msg.encoded_len();
    if size > limit {
        return Err(ServiceError::TooLarge {
            what: "the final Evaluate message is".into(),
            size,
            limit,
            hint: "; evaluate fewer placements, or leave out `heatmaps` or `text`".into(),
        });
    }
    Ok(())
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
        Work::Assemble(report) => Ok(Kind::Report(report_to_proto(
            plan, &report, heatmaps, text,
        )?)),
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

/// Play `indices` in parallel on the Evaluate pool, one [`run_placements`] call per
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
    svc.evaluation_pool().install(|| {
        indices
            .par_iter()
            .map(|&k| {
                let mut r = run_placements(plan, &[k], Some(&tick), cancel)?;
                progress.placements.fetch_add(1, Ordering::Relaxed);
                r.pop()
                    .ok_or_else(|| ServiceError::Internal("no result for a placement".into()))
            })
            .collect()
    })
}

impl EnvironmentService {
    /// The rayon pool of Evaluate calls (one thread per core, built on first use), apart from
    /// the global pool of StepBatch / ResetBatch: rayon serves a pool's injected jobs only
    /// after its workers' local work, so on one pool an Evaluate's thousands of combats would
    /// make another client's batch wait for the whole sweep. On two pools the OS shares the
    /// cores between them.
    fn evaluation_pool(&self) -> &rayon::ThreadPool {
        self.inner.evaluation_pool.get_or_init(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(
                    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get),
                )
                .thread_name(|i| format!("pf1e-evaluate-{i}"))
                .build()
                .expect("the Evaluate thread pool starts")
        })
    }
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
    let text = if text {
        report.render_text()
    } else {
        String::new()
    };
    Ok(report_message(
        plan,
        report,
        report.to_json(),
        report.to_csv(),
        text,
        pngs,
    ))
}

/// The report message with the given renderings.
fn report_message(
    plan: &SweepPlan,
    report: &SweepReport,
    json: String,
    csv: String,
    text: String,
    pngs: Vec<Vec<u8>>,
) -> proto::SweepReport {
    let mut pngs = pngs.into_iter();
    let rank_side = report
        .sides
        .iter()
        .position(|s| s.name == report.rank_side)
        .unwrap_or(0);
    proto::SweepReport {
        json,
        csv,
        text,
        plan: Some(plan_summary(plan)),
        best: report.best,
        best_set: report.best_set.clone(),
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
                p_vs_best: p.p_vs_best,
                in_best_set: p.in_best_set,
                wilson_3sigma_lo: p.wins[rank_side].wilson_3sigma[0],
                wilson_3sigma_hi: p.wins[rank_side].wilson_3sigma[1],
            })
            .collect(),
        cell_stats: report
            .cell_stats
            .iter()
            .map(|cs| proto::SweepCellStats {
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
                png: pngs.next().unwrap_or_default(),
            })
            .collect(),
    }
}

/// A heatmap as PNG bytes.
fn png_bytes(h: &Heatmap) -> Result<Vec<u8>, ServiceError> {
    crate::heatmap::render_png_bytes(h)
        .map_err(|e| ServiceError::Internal(format!("heatmap: render: {e}")))
}

// ---------------------------------------------------------------------------------------------
// Size of the final message, before playing

/// Bytes added to the PNG size estimate ([`png_size_estimates`]).
const PNG_SLACK: usize = 8 << 10;

/// Bytes of a length-delimited field (1-byte key) of `len` bytes; 0 when empty (omitted).
fn field_len(len: usize) -> usize {
    if len == 0 {
        0
    } else {
        1 + prost::encoding::encoded_len_varint(len as u64) + len
    }
}

/// Estimated sizes of the PNG heatmaps of `plan`'s report: 1.5 times the size of each
/// heatmap drawn with the plan's squares, title and scale and varied values (every colour
/// band, every label width: what compresses worst), plus [`PNG_SLACK`]. PNG sizes depend on
/// the values through the compression, so this is an estimate, not a bound (real heatmaps
/// come out within a few % of the varied one); the picture's dimensions and text do not
/// depend on the values.
fn png_size_estimates(plan: &SweepPlan) -> Result<Vec<usize>, ServiceError> {
    let mut report = plan.widest_report(Widest::Binary);
    for cs in &mut report.cell_stats {
        for (i, c) in cs.cells.iter_mut().enumerate() {
            c.rate = ((i * 37) % 101) as f64 / 100.0;
        }
    }
    report
        .heatmaps()
        .iter()
        .map(|h| png_bytes(h).map(|b| b.len() + b.len() / 2 + PNG_SLACK))
        .collect()
}

/// What a report message could weigh, in bytes.
struct ReportBound {
    /// The whole `EvaluateResponse`.
    total: usize,
    json: usize,
    csv: usize,
    text: usize,
    pngs: usize,
}

/// An upper bound of the size of the final `EvaluateResponse` carrying `plan`'s report
/// (exact bounds for the JSON, CSV, text and typed fields, [`SweepPlan::report_size_bound`]
/// and [`SweepPlan::widest_report`]; an estimate for the PNG heatmaps).
fn report_bound(plan: &SweepPlan, heatmaps: bool, text: bool) -> Result<ReportBound, ServiceError> {
    let texts = plan.report_size_bound(text);
    let pngs = if heatmaps {
        png_size_estimates(plan)?
    } else {
        Vec::new()
    };
    let png_total = pngs.iter().sum();
    let typed = report_message(
        plan,
        &plan.widest_report(Widest::Binary),
        String::new(),
        String::new(),
        String::new(),
        pngs.into_iter().map(|n| vec![1u8; n]).collect(),
    );
    let report =
        typed.encoded_len() + field_len(texts.json) + field_len(texts.csv) + field_len(texts.text);
    Ok(ReportBound {
        total: 1 + prost::encoding::encoded_len_varint(report as u64) + report,
        json: texts.json,
        csv: texts.csv,
        text: texts.text,
        pngs: png_total,
    })
}

/// An upper bound of the size of the final `EvaluateResponse` carrying the partial results
/// of `indices`: every count at its largest (varints only grow with the value).
fn partial_bound(plan: &SweepPlan, indices: &[usize]) -> usize {
    let summary = plan_summary(plan);
    let runs = plan.runs;
    let cap = u64::from(plan.base.options.round_cap);
    let nsides = plan.base.sides.len();
    let results = indices
        .iter()
        .map(|&k| {
            let p = &plan.placements[k];
            proto::SweepPlacementResult {
                index: k as u64,
                product_index: p.product_index,
                starts: p.starts.iter().copied().map(cell_to_proto).collect(),
                wins: vec![runs; nsides],
                draws: runs,
                truncated: runs,
                rounds_sum: runs.saturating_mul(cap),
                runs,
                plan_fingerprint: summary.fingerprint.clone(),
            }
        })
        .collect();
    proto::EvaluateResponse {
        kind: Some(proto::evaluate_response::Kind::Partial(
            proto::SweepPartialResults {
                results,
                plan: Some(summary),
            },
        )),
    }
    .encoded_len()
}

/// About how many of `n` placements fit `limit` when all of them take up to `size` bytes
/// (proportionally: an underestimate when a fixed part dominates).
fn placements_that_fit(n: usize, size: usize, limit: usize) -> usize {
    ((n as f64) * (limit as f64) / (size.max(1) as f64)).floor() as usize
}

/// Refuse, before any combat, a call whose final message could exceed `limit`
/// (`--max-message-bytes`): OUT_OF_RANGE naming the bound, its parts and what to reduce.
/// PLAN answers are small and not checked.
fn check_final_size(
    plan: &SweepPlan,
    work: &Work,
    heatmaps: bool,
    text: bool,
    limit: usize,
) -> Result<(), ServiceError> {
    let too_large = |what: &str, size: usize, hint: String| ServiceError::TooLarge {
        what: what.into(),
        size,
        limit,
        hint,
    };
    match work {
        Work::Plan => Ok(()),
        Work::Play {
            indices,
            report: false,
        } => {
            let size = partial_bound(plan, indices);
            if size <= limit {
                return Ok(());
            }
            let k = placements_that_fit(indices.len(), size, limit);
            Err(too_large(
                "the partial results could take up to",
                size,
                format!(
                    "; refused before playing. To fit: ask for fewer placements per PARTIAL \
                     call (about {k} of these {} would fit), or raise the server's \
                     --max-message-bytes",
                    indices.len()
                ),
            ))
        }
        Work::Play { report: true, .. } | Work::Assemble(_) => {
            let b = report_bound(plan, heatmaps, text)?;
            if b.total <= limit {
                return Ok(());
            }
            let n = plan.placements.len();
            let mut parts = vec![format!("JSON ≤ {}", b.json), format!("CSV ≤ {}", b.csv)];
            // The text and the heatmaps hardly depend on the number of placements.
            let fixed = b.text + b.pngs;
            let k = if limit > fixed {
                placements_that_fit(n, b.total - fixed, limit - fixed)
            } else {
                0
            };
            // (When the text and heatmaps alone are too large, fewer placements cannot help.)
            let mut ways = Vec::new();
            if k > 0 {
                ways.push(format!(
                    "evaluate fewer placements (`sample: {{size: N}}` in the spec; about {k} of \
                     the {n} would fit)"
                ));
            }
            if text {
                parts.push(format!("text ≤ {}", b.text));
                ways.push("leave out `text`".into());
            }
            if heatmaps {
                parts.push(format!("PNG heatmaps ≈ {}", b.pngs));
                ways.push("leave out `heatmaps`".into());
            }
            ways.push("raise the server's --max-message-bytes".into());
            Err(too_large(
                "the report could take up to",
                b.total,
                format!(
                    "; refused before playing. Parts: {} bytes. To fit: {}",
                    parts.join(", "),
                    ways.join(", ")
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenarios::ScenarioStore;

    fn plan(yaml: &str) -> SweepPlan {
        let store = ScenarioStore::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../data"));
        SweepPlan::build(&SweepSpec::from_str(yaml, "t.yaml").unwrap(), &store).unwrap()
    }

    #[test]
    fn the_end_of_work_size_check_is_out_of_range() {
        let msg = proto::EvaluateResponse {
            kind: Some(proto::evaluate_response::Kind::Report(proto::SweepReport {
                json: "x".repeat(100),
                ..Default::default()
            })),
        };
        let size = msg.encoded_len();
        assert!(check_message_size(&msg, size).is_ok());
        let e = check_message_size(&msg, size - 1).unwrap_err();
        let status = tonic::Status::from(e);
        assert_eq!(status.code(), tonic::Code::OutOfRange);
        assert!(
            status
                .message()
                .starts_with(&format!("the final Evaluate message is {size} bytes, over")),
            "{}",
            status.message()
        );
        assert!(status.message().contains("--max-message-bytes"));
    }

    #[test]
    fn bounds_hold_for_varied_results() {
        let p = plan(
            "scenario: sample_arena\nplacements:\n  goblin: { zone: A }\n  goblin-2: { rect: { from: [3, 1], to: [6, 2] } }\nruns: 3\n",
        );
        let mut g = 0x1234_5678_u64;
        let mut next = |n: u64| {
            g = crate::sweep::splitmix64(g);
            g % (n + 1)
        };
        let b = report_bound(&p, true, true).unwrap();
        let all: Vec<usize> = (0..p.placements.len()).collect();
        let partial = partial_bound(&p, &all);
        for round in 0..6 {
            let results: Vec<PlacementResult> = p
                .placements
                .iter()
                .map(|pl| {
                    let w = if round == 0 { 0 } else { next(p.runs) };
                    let l = if round == 1 { 0 } else { next(p.runs - w) };
                    PlacementResult {
                        index: pl.index as u64,
                        product_index: pl.product_index,
                        starts: pl.starts.clone(),
                        wins: vec![w, l],
                        draws: p.runs - w - l,
                        truncated: 0,
                        rounds_sum: next(p.runs * 100),
                        runs: p.runs,
                    }
                })
                .collect();
            let fp = plan_fingerprint(&p);
            let msg = proto::EvaluateResponse {
                kind: Some(proto::evaluate_response::Kind::Partial(
                    proto::SweepPartialResults {
                        results: results.iter().map(|r| result_to_proto(r, &fp)).collect(),
                        plan: Some(plan_summary(&p)),
                    },
                )),
            };
            assert!(
                msg.encoded_len() <= partial,
                "{} > {partial}",
                msg.encoded_len()
            );
            let report = assemble_report(&p, results).unwrap();
            let pngs: usize = report
                .heatmaps()
                .iter()
                .map(|h| png_bytes(h).unwrap().len())
                .sum();
            assert!(pngs <= b.pngs, "PNG {pngs} > estimate {}", b.pngs);
            let msg = proto::EvaluateResponse {
                kind: Some(proto::evaluate_response::Kind::Report(
                    report_to_proto(&p, &report, true, true).unwrap(),
                )),
            };
            assert!(
                msg.encoded_len() <= b.total,
                "{} > {}",
                msg.encoded_len(),
                b.total
            );
        }
    }
}
