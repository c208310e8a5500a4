//! How a request's work is run: its deadline (`grpc-timeout`, checked before any engine work,
//! [`deadline_of`], [`check_deadline`]); every call's engine work on the blocking pool under
//! its client's share of the engine pool ([`EngineGate`], [`blocking`]: the runtime threads
//! only do I/O, so one client's long Step does not delay another connection); and,
//! for calls that create episodes, closing them again when the reply cannot reach the client
//! ([`blocking_creating`]). An engine panic becomes INTERNAL in every case.
use super::{EnvironmentService, Owner, ServiceError};
use crate::proto;
use pf1e_engine::{Interrupted, WorkBudget};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tonic::{Request, Response};

/// What bounds the engine work of one call (see [`EnvironmentService::for_call`]): its
/// deadline (the client's `grpc-timeout`, capped by the server's `max_call_duration`) and a
/// flag raised when the client cancels or goes away. The server-wide shutdown flag and the
/// per-call turn budget (`max_turns_per_call`) apply as well.
#[derive(Clone, Default, Debug)]
pub(super) struct CallLimits {
    pub(super) deadline: Option<Instant>,
    /// The deadline is the server's `max_call_duration`, not the client's.
    pub(super) server_cap: bool,
    pub(super) cancelled: Option<Arc<AtomicBool>>,
}

/// Raises its flag when dropped: held by a call's async task, so that the blocking engine
/// work of a cancelled call (the task dropped by tonic) sees the cancellation.
pub(super) struct CancelOnDrop(pub(super) Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

impl EnvironmentService {
    /// The handle serving `request`: acting for its client ([`super::Principal::of`]), with
    /// its deadline, and a cancellation flag raised when the returned guard drops (keep it
    /// alive in the call's async task: tonic drops the task when the client cancels).
    pub(super) fn call<T>(&self, request: &Request<T>) -> (EnvironmentService, CancelOnDrop) {
        let flag = Arc::new(AtomicBool::new(false));
        let svc = self
            .for_client(super::Principal::of(request))
            .for_call(deadline_of(request), Some(flag.clone()));
        (svc, CancelOnDrop(flag))
    }

    /// A handle for one call with `deadline` (capped by `max_call_duration`) and the
    /// cancellation flag `cancelled`.
    pub(super) fn for_call(
        &self,
        deadline: Option<Instant>,
        cancelled: Option<Arc<AtomicBool>>,
    ) -> EnvironmentService {
        let cap = self
            .inner
            .config
            .max_call_duration
            .and_then(|d| Instant::now().checked_add(d));
        let server_cap = cap.is_some_and(|c| deadline.is_none_or(|d| c < d));
        let deadline = match (deadline, cap) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let mut h = self.clone();
        h.limits = CallLimits {
            deadline,
            server_cap,
            cancelled,
        };
        h
    }

    /// Why this call's engine work must stop now, if it must: the server's grace period is
    /// over (UNAVAILABLE), the client cancelled (CANCELLED), the deadline passed
    /// (DEADLINE_EXCEEDED).
    pub(super) fn stop_reason(&self) -> Option<ServiceError> {
        if self.inner.cancel_all.load(Ordering::Relaxed) {
            return Some(ServiceError::ShuttingDown);
        }
        if self
            .limits
            .cancelled
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
        {
            return Some(ServiceError::Cancelled);
        }
        match self.limits.deadline {
            Some(d) if Instant::now() >= d => Some(if self.limits.server_cap {
                ServiceError::CallTooLong(self.inner.config.max_call_duration.unwrap_or_default())
            } else {
                ServiceError::DeadlineExceeded
            }),
            _ => None,
        }
    }
}

impl EnvironmentService {
    /// Advance `episode` to its next controlled decision or its end within this call's limits
    /// (CRB rules unchanged: the engine's [`Episode::advance_within`], checked cooperatively):
    /// at most `max_turns_per_call` turns, stopping at the next check when the deadline
    /// passes, the client cancels or the shutdown grace period ends.
    ///
    /// # Errors
    /// [`ServiceError::WorkBudget`], [`ServiceError::DeadlineExceeded`],
    /// [`ServiceError::Cancelled`], [`ServiceError::ShuttingDown`]; the episode is then
    /// mid-resolution and the caller discards it (counted in `Stats.calls_stopped`).
    pub(super) fn advance_bounded(
        &self,
        episode: &mut pf1e_engine::Episode,
    ) -> Result<pf1e_engine::Status, ServiceError> {
        self.within(self.inner.config.max_turns_per_call, |budget| {
            episode.advance_within(budget)
        })?
        .map_err(|e| self.interrupted(e))
    }

    /// Run `f` with this call's work budget of `max_turns` turns (its stop function: the
    /// deadline, the client's cancel, the shutdown grace period).
    pub(super) fn within<T>(
        &self,
        max_turns: u64,
        f: impl FnOnce(&mut WorkBudget) -> T,
    ) -> Result<T, ServiceError> {
        let stop = || self.stop_reason().is_some();
        let mut budget = WorkBudget::new(max_turns, &stop);
        Ok(f(&mut budget))
    }

    /// The turn budget of replaying a history of `entries` decisions (ReplayTranscript,
    /// Restore): `max_turns_per_call` for each call that built it (one per entry, one for
    /// the Reset), so a history that honest calls built replays, and one edited to play a
    /// combat that never ends stops.
    pub(super) fn replay_turns(&self, entries: usize) -> u64 {
        self.inner
            .config
            .max_turns_per_call
            .saturating_mul(entries as u64 + 1)
    }

    /// The error of engine work stopped by this call's budget (counted in
    /// `Stats.calls_stopped`): [`ServiceError::WorkBudget`], or the stop reason
    /// (DEADLINE_EXCEEDED, CANCELLED, UNAVAILABLE).
    pub(super) fn interrupted(&self, e: Interrupted) -> ServiceError {
        self.inner
            .counters
            .calls_stopped
            .fetch_add(1, Ordering::Relaxed);
        match e {
            Interrupted::TurnBudget { turns } => ServiceError::WorkBudget { turns },
            Interrupted::Stopped => self.stop_reason().unwrap_or(ServiceError::DeadlineExceeded),
        }
    }
}

/// DEADLINE_EXCEEDED when `deadline` has passed.
pub(super) fn check_deadline(deadline: Option<Instant>) -> Result<(), ServiceError> {
    match deadline {
        Some(d) if Instant::now() >= d => Err(ServiceError::DeadlineExceeded),
        _ => Ok(()),
    }
}

/// The deadline of a request from its `grpc-timeout` header (`<digits><H|M|S|m|u|n>`).
pub(super) fn deadline_of<T>(req: &Request<T>) -> Option<Instant> {
    let v = req.metadata().get("grpc-timeout")?.to_str().ok()?;
    if v.len() < 2 {
        return None;
    }
    let (num, unit) = v.split_at(v.len() - 1);
    let n: u64 = num.parse().ok()?;
    let d = match unit {
        "H" => Duration::from_secs(n.saturating_mul(3600)),
        "M" => Duration::from_secs(n.saturating_mul(60)),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    };
    Instant::now().checked_add(d)
}

/// Admission to engine work: every call's engine work runs on tokio's blocking pool (never on
/// a runtime thread, which only does I/O) once it holds a permit of its client (at most
/// [`super::ServiceConfig::max_engine_jobs_per_client`] jobs at once) and one of the server
/// ([`super::ServiceConfig::max_engine_jobs`]). A job waits for its permits (in order of
/// arrival, tokio's semaphores being fair) until its deadline; so one client running
/// worst-case calls holds at most its share of the pool, and another client's calls go on.
pub(super) struct EngineGate {
    global: Arc<tokio::sync::Semaphore>,
    per_client: usize,
    clients: std::sync::Mutex<HashMap<Owner, Arc<tokio::sync::Semaphore>>>,
}

impl EngineGate {
    pub(super) fn new(total: usize, per_client: usize) -> EngineGate {
        EngineGate {
            global: Arc::new(tokio::sync::Semaphore::new(total.max(1))),
            per_client: per_client.max(1),
            clients: std::sync::Mutex::default(),
        }
    }
}

/// The permits of one engine job (see [`EngineGate`]); held by the blocking work itself, so
/// that a cancelled call frees its share only when its work has stopped.
pub(super) struct EnginePermit {
    permits: Option<(
        tokio::sync::OwnedSemaphorePermit,
        tokio::sync::OwnedSemaphorePermit,
    )>,
    svc: EnvironmentService,
}

impl Drop for EnginePermit {
    fn drop(&mut self) {
        self.permits = None;
        // Forget the client's semaphore once nobody holds or waits for it.
        let mut clients = self
            .svc
            .inner
            .engine
            .clients
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let owner = &self.svc.principal.owner;
        if clients
            .get(owner)
            .is_some_and(|s| Arc::strong_count(s) == 1)
        {
            clients.remove(owner);
        }
    }
}

impl EnvironmentService {
    /// Wait for this client's share of the engine pool and the server's (see [`EngineGate`])
    /// until this call's deadline.
    ///
    /// # Errors
    /// DEADLINE_EXCEEDED (or the server's longest call) when the deadline passes first.
    pub(super) async fn engine_permit(&self) -> Result<EnginePermit, ServiceError> {
        let gate = &self.inner.engine;
        let mine = gate
            .clients
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(self.principal.owner.clone())
            .or_insert_with(|| Arc::new(tokio::sync::Semaphore::new(gate.per_client)))
            .clone();
        // Built before waiting, so that a timed-out wait still forgets an unused semaphore.
        let mut permit = EnginePermit {
            permits: None,
            svc: self.clone(),
        };
        let acquire = async {
            let client = mine.acquire_owned().await.expect("never closed");
            let global = gate
                .global
                .clone()
                .acquire_owned()
                .await
                .expect("never closed");
            (client, global)
        };
        let got = match self.limits.deadline {
            Some(d) => tokio::time::timeout_at(d.into(), acquire).await.ok(),
            None => Some(acquire.await),
        };
        match got {
            Some(p) => {
                permit.permits = Some(p);
                Ok(permit)
            }
            None => Err(self.stop_reason().unwrap_or(ServiceError::DeadlineExceeded)),
        }
    }

    /// Run `f` as an engine job of this call: with its permits ([`Self::engine_permit`]), on
    /// the blocking pool, unless `deadline` passed before it starts; an engine panic becomes
    /// INTERNAL.
    pub(super) async fn engine<T, F>(
        &self,
        deadline: Option<Instant>,
        f: F,
    ) -> Result<T, ServiceError>
    where
        T: Send + 'static,
        F: FnOnce() -> Result<T, ServiceError> + Send + 'static,
    {
        let permit = self.engine_permit().await?;
        match tokio::task::spawn_blocking(move || {
            let _permit = permit;
            check_deadline(deadline).and_then(|()| f())
        })
        .await
        {
            Ok(r) => r,
            Err(e) => Err(ServiceError::Internal(format!("engine panicked: {e}"))),
        }
    }
}

/// Run `f` as an engine job of `svc`'s call ([`EnvironmentService::engine`]), as a gRPC
/// result.
pub(super) async fn blocking<T, F>(
    svc: &EnvironmentService,
    deadline: Option<Instant>,
    f: F,
) -> Result<T, tonic::Status>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ServiceError> + Send + 'static,
{
    svc.engine(deadline, f).await.map_err(tonic::Status::from)
}

impl EnvironmentService {
    /// The shape of every plain unary RPC: run `f` on the request as an engine job (its
    /// client's share of the engine pool, on the blocking pool), honouring the request's
    /// deadline (see [`EnvironmentService::engine`]).
    pub(super) async fn unary<Req, Resp>(
        &self,
        request: Request<Req>,
        f: fn(&EnvironmentService, &Req) -> Result<Resp, ServiceError>,
    ) -> Result<Response<Resp>, tonic::Status>
    where
        Req: Send + 'static,
        Resp: Send + 'static,
    {
        let (svc, _cancel) = self.call(&request);
        let deadline = deadline_of(&request);
        let req = request.into_inner();
        blocking(&svc.clone(), deadline, move || f(&svc, &req))
            .await
            .map(Response::new)
    }
}

/// Episodes a response created (Reset, Fork, Restore: the one; batches: the reset items).
pub(super) trait CreatedEpisodes: prost::Message {
    fn created(&self, reset_items_from: usize) -> Vec<String>;
    /// Items in the reply (1 for a single state).
    fn items(&self) -> usize {
        1
    }
}

impl CreatedEpisodes for proto::EpisodeState {
    fn created(&self, _: usize) -> Vec<String> {
        vec![self.episode_id.clone()]
    }
}

impl CreatedEpisodes for proto::BatchResponse {
    fn items(&self) -> usize {
        self.items
            .len()
            .max(self.columns.as_ref().map_or(0, |c| c.decision_ids.len()))
    }

    fn created(&self, reset_items_from: usize) -> Vec<String> {
        self.items
            .iter()
            .skip(reset_items_from)
            .filter_map(|i| match &i.result {
                Some(proto::batch_item::Result::State(s)) => Some(s.episode_id.clone()),
                _ => None,
            })
            .collect()
    }
}

/// [`blocking`] for calls that create episodes. The client learns the new ids only from the
/// reply, so when the reply cannot reach it the episodes are closed again (no orphans
/// counting against `--max-episodes`) and the call fails:
/// - the reply is over `--max-message-bytes` (OUT_OF_RANGE, which the encoder would otherwise
///   raise after the episodes exist);
/// - the deadline passed while the engine worked, or is so close that the reply could not
///   be encoded and sent in time (DEADLINE_EXCEEDED): a margin of 2 ms + 10 µs per created
///   episode + 1 ms per 100 KB of reply. A call that created nothing gets no margin.
///
/// A reply over the limit that created nothing (a StepBatch of steps only) fails the same way,
/// its steps applied (Observe gives each episode's state). The message of every such
/// refusal says how many items of the reply's mean size would fit: the real batch limit for
/// those observation options (`--max-batch-items` is only a cap).
///
/// A reply lost later still (a stalled network) leaves its episodes to the idle eviction
/// (`--idle-timeout-secs`). `reset_items_from`: index of the first batch item that created an
/// episode.
pub(super) async fn blocking_creating<T, F>(
    svc: EnvironmentService,
    deadline: Option<Instant>,
    reset_items_from: usize,
    f: F,
) -> Result<T, tonic::Status>
where
    T: CreatedEpisodes + Send + 'static,
    F: FnOnce() -> Result<T, ServiceError> + Send + 'static,
{
    blocking(&svc.clone(), deadline, move || {
        let out = f()?;
        let created = out.created(reset_items_from);
        let size = out.encoded_len();
        let limit = svc.inner.config.max_message_bytes;
        // How many items of this reply's mean size fit in the limit (batches: the real
        // batch limit with these observation options; `--max-batch-items` is only a cap).
        let items = out.items().max(1);
        let fit = |what: &str| {
            if items > 1 {
                format!(
                    "; about {} items of this size fit (--max-message-bytes / {} bytes per item){what}",
                    limit / (size / items).max(1),
                    size / items
                )
            } else {
                what.to_string()
            }
        };
        if created.is_empty() {
            if size > limit {
                // Steps only: they were applied; the client reads each episode's state with
                // Observe.
                return Err(ServiceError::TooLarge {
                    what: "the reply would take".into(),
                    size,
                    limit,
                    hint: fit(
                        "; the steps were applied: Observe each episode for its state, and \
                         send fewer items per call or leaner observations",
                    ),
                });
            }
            return check_deadline(deadline).map(|()| out);
        }
        let refused = if size > limit {
            Some(ServiceError::TooLarge {
                what: "the reply would take".into(),
                size,
                limit,
                hint: fit(
                    "; ask for fewer episodes per call or leaner observations \
                     (ObservationOptions); nothing was created",
                ),
            })
        } else {
            let margin =
                Duration::from_micros(2_000 + 10 * created.len() as u64 + size as u64 / 100);
            check_deadline(deadline.map(|d| d.checked_sub(margin).unwrap_or(d))).err()
        };
        if let Some(e) = refused {
            for id in created {
                let _ = svc.close_episode(&proto::CloseRequest { episode_id: id });
            }
            return Err(e);
        }
        Ok(out)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_timeout_header_is_parsed() {
        let with = |v: &str| {
            let mut r = Request::new(());
            r.metadata_mut().insert("grpc-timeout", v.parse().unwrap());
            deadline_of(&r).map(|d| d.saturating_duration_since(Instant::now()))
        };
        let near = |d: Option<Duration>, want: Duration| {
            let d = d.expect("a deadline");
            d <= want && want - d < Duration::from_secs(1)
        };
        assert!(near(with("5S"), Duration::from_secs(5)));
        assert!(near(with("250m"), Duration::from_millis(250)));
        assert!(near(with("2M"), Duration::from_secs(120)));
        assert!(near(with("1H"), Duration::from_secs(3600)));
        assert!(near(with("10u"), Duration::from_micros(10)));
        assert!(near(with("10n"), Duration::from_nanos(10)));
        assert_eq!(with("5x"), None);
        assert_eq!(with("S"), None);
        assert!(deadline_of(&Request::new(())).is_none());
        assert!(matches!(
            check_deadline(Some(Instant::now())),
            Err(ServiceError::DeadlineExceeded)
        ));
        assert!(check_deadline(None).is_ok());
    }
}
