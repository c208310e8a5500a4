//! How a request's work is run: its deadline (`grpc-timeout`, checked before any engine work,
//! [`deadline_of`], [`check_deadline`]); in place on the async runtime for the short calls
//! ([`inline`], with `catch_unwind`); on the blocking pool for the rest ([`blocking`]); and,
//! for calls that create episodes, closing them again when the reply cannot reach the client
//! ([`blocking_creating`]). An engine panic becomes INTERNAL in every case.
use super::{EnvironmentService, ServiceError};
use crate::proto;
use std::time::{Duration, Instant};
use tonic::{Request, Response};

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

/// Run `f` on the blocking pool, unless `deadline` passed before it starts; an engine panic
/// becomes INTERNAL.
pub(super) async fn blocking<T, F>(deadline: Option<Instant>, f: F) -> Result<T, tonic::Status>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ServiceError> + Send + 'static,
{
    match tokio::task::spawn_blocking(move || check_deadline(deadline).and_then(|()| f())).await {
        Ok(r) => r.map_err(tonic::Status::from),
        Err(e) => Err(ServiceError::Internal(format!("engine panicked: {e}")).into()),
    }
}

/// Run short engine work on the calling (runtime) thread, a panic becoming an internal error.
///
/// One env step (`Step`, `Observe`, `Validate`, `Explain` of one action, and their
/// Session-stream items) is tens of
/// microseconds of engine work, about what a hop to the blocking pool and back costs in
/// thread wake-ups, so these run in place; everything that creates episodes or may be long
/// (Reset, batches, Evaluate, snapshots) goes through [`blocking`].
pub(super) fn inline<T>(f: impl FnOnce() -> Result<T, ServiceError>) -> Result<T, ServiceError> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(e) => {
            let what = e
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| e.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(ServiceError::Internal(format!("engine panicked: {what}")))
        }
    }
}

impl EnvironmentService {
    /// A short unary RPC run in place ([`inline`]), honouring the request's deadline.
    pub(super) fn unary_inline<Req, Resp>(
        &self,
        request: Request<Req>,
        f: fn(&EnvironmentService, &Req) -> Result<Resp, ServiceError>,
    ) -> Result<Response<Resp>, tonic::Status> {
        let deadline = deadline_of(&request);
        let svc = self.for_client(super::Principal::of(&request));
        let req = request.into_inner();
        inline(|| check_deadline(deadline).and_then(|()| f(&svc, &req)))
            .map(Response::new)
            .map_err(tonic::Status::from)
    }

    /// The shape of every plain unary RPC: run `f` on the request in the blocking pool,
    /// honouring the request's deadline (see [`blocking`]).
    pub(super) async fn unary<Req, Resp>(
        &self,
        request: Request<Req>,
        f: fn(&EnvironmentService, &Req) -> Result<Resp, ServiceError>,
    ) -> Result<Response<Resp>, tonic::Status>
    where
        Req: Send + 'static,
        Resp: Send + 'static,
    {
        let svc = self.for_client(super::Principal::of(&request));
        let deadline = deadline_of(&request);
        let req = request.into_inner();
        blocking(deadline, move || f(&svc, &req))
            .await
            .map(Response::new)
    }
}

/// Episodes a response created (Reset, Fork, Restore: the one; batches: the reset items).
pub(super) trait CreatedEpisodes: prost::Message {
    fn created(&self, reset_items_from: usize) -> Vec<String>;
}

impl CreatedEpisodes for proto::EpisodeState {
    fn created(&self, _: usize) -> Vec<String> {
        vec![self.episode_id.clone()]
    }
}

impl CreatedEpisodes for proto::BatchResponse {
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
    blocking(deadline, move || {
        let out = f()?;
        let created = out.created(reset_items_from);
        if created.is_empty() {
            return check_deadline(deadline).map(|()| out);
        }
        let size = out.encoded_len();
        let limit = svc.inner.config.max_message_bytes;
        let refused = if size > limit {
            Some(ServiceError::TooLarge {
                what: "the reply would take".into(),
                size,
                limit,
                hint: "; ask for fewer episodes per call or leaner observations \
                       (ObservationOptions); nothing was created"
                    .into(),
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
