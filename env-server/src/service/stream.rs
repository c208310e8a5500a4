//! The Session bidirectional stream: one task per stream answering its items in order —
//! Echo in place, every other item an engine job of its client (see `exec::EngineGate`) —
//! owning the episodes the stream created (a [`StreamGuard`] closes them however the stream ends: end of
//! input, client gone, error, server shutdown, task aborted) and ending on server shutdown
//! after its current item.
use super::error::error_to_proto;
use super::exec::check_deadline;
use super::{EnvironmentService, ServiceError};
use crate::proto;
use prost::Message;
use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

impl EnvironmentService {
    /// Start the task that answers the items of a Session stream (`inbound`) in order, and
    /// return the stream of its responses. The task holds a [`StreamGuard`] and counts as an
    /// open stream until it ends.
    ///
    /// # Errors
    /// RESOURCE_EXHAUSTED when the server has `max_streams` open, or this client
    /// `max_streams_per_client` (reason "quota").
    pub(super) fn session_stream(
        &self,
        mut inbound: tonic::Streaming<proto::SessionRequest>,
    ) -> Result<SessionResponseStream, ServiceError> {
        self.open_stream()?;
        let (tx, rx) = tokio::sync::mpsc::channel(SESSION_BUFFER);
        // Bytes of replies the client has not taken yet (see `SessionResponseStream`).
        let unsent = Arc::new(tokio::sync::Semaphore::new(STREAM_BUFFER_BYTES));
        let mut shutdown = self.inner.shutdown.subscribe();
        let mut guard = StreamGuard {
            svc: self.clone(),
            owned: BTreeSet::new(),
        };
        // Raised when the client stops reading (gone, or cancelled the call): engine work of the
        // current item stops at its next check.
        let gone = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        // (Aborted when the stream's task ends, so that its sender does not keep the response
        // stream open.)
        let watcher = {
            let (gone, tx) = (gone.clone(), tx.clone());
            tokio::spawn(async move {
                tx.closed().await;
                gone.store(true, Ordering::SeqCst);
            })
        };
        tokio::spawn(async move {
            let unavailable = || tonic::Status::from(ServiceError::ShuttingDown);
            loop {
                if *shutdown.borrow() {
                    let _ = tx.send((Err(unavailable()), None)).await;
                    break;
                }
                let next = tokio::select! {
                    m = inbound.message() => m,
                    _ = shutdown.changed() => {
                        let _ = tx.send((Err(unavailable()), None)).await;
                        break;
                    }
                    () = tx.closed() => break,
                };
                let req = match next {
                    Ok(Some(r)) => r,
                    // End of input: the stream ends with OK.
                    Ok(None) => break,
                    // The client went away (nothing to tell), or the framing broke (an
                    // invalid compressed flag, a message over the limit): the stream ends with
                    // that status. Items whose bytes merely do not decode come as `malformed`
                    // items (see `crate::codec`) and are answered inline.
                    Err(st) => {
                        if st.code() != tonic::Code::Cancelled {
                            let _ = tx.send((Err(st), None)).await;
                        }
                        break;
                    }
                };
                let request_id = req.request_id;
                // Each item is a call of its own: the server's longest call duration and the
                // stream's cancellation bound its engine work.
                let svc = guard.svc.for_call(None, Some(gone.clone()));
                // Every item counts against the client's request rate, as a call would.
                if let Some(rate) = &svc.principal.rate {
                    if !rate.try_take() {
                        svc.inner
                            .transport
                            .requests_rate_limited
                            .fetch_add(1, Ordering::Relaxed);
                        let e = error_to_proto(ServiceError::RateLimited);
                        let resp = proto::SessionResponse {
                            request_id,
                            kind: Some(proto::session_response::Kind::Error(e)),
                        };
                        if tx.send((Ok(resp), None)).await.is_err() {
                            break;
                        }
                        continue;
                    }
                }
                use proto::session_request::Kind as Q;
                let item = if matches!(req.kind, Some(Q::Echo(_))) || !req.malformed.is_empty() {
                    // No engine work: answered on the spot.
                    Ok(svc.session_item(req, None))
                } else {
                    // An engine job: this client's share of the engine pool, on the blocking
                    // pool (see `EngineGate`), never on the runtime thread.
                    let permit = tokio::select! {
                        p = svc.engine_permit() => p,
                        () = tx.closed() => break,
                    };
                    match permit {
                        Ok(permit) => {
                            tokio::task::spawn_blocking(move || {
                                let _permit = permit;
                                svc.session_item(req, None)
                            })
                            .await
                        }
                        Err(e) => Ok((
                            proto::SessionResponse {
                                request_id,
                                kind: Some(proto::session_response::Kind::Error(error_to_proto(e))),
                            },
                            StreamEffect::None,
                        )),
                    }
                };
                let response = match item {
                    Ok((resp, effect)) => {
                        let (resp, effect) = guard.svc.fit_reply(resp, effect);
                        match effect {
                            StreamEffect::Created(id) => {
                                guard.owned.insert(id);
                            }
                            StreamEffect::Closed(id) => {
                                guard.owned.remove(&id);
                            }
                            StreamEffect::None => {}
                        }
                        resp
                    }
                    Err(e) => proto::SessionResponse {
                        request_id,
                        kind: Some(proto::session_response::Kind::Error(error_to_proto(
                            ServiceError::Internal(format!("engine panicked: {e}")),
                        ))),
                    },
                };
                // Wait until the client has taken enough of the earlier replies: at most
                // STREAM_BUFFER_BYTES of replies wait per stream (one larger reply alone).
                let n = response.encoded_len().clamp(1, STREAM_BUFFER_BYTES);
                let permit = tokio::select! {
                    p = unsent.clone().acquire_many_owned(n as u32) => p.ok(),
                    () = tx.closed() => break,
                };
                if tx.send((Ok(response), permit)).await.is_err() {
                    break;
                }
            }
            watcher.abort();
            drop(guard);
        });
        Ok(SessionResponseStream { rx })
    }

    /// Count a stream open for this client, or refuse it.
    fn open_stream(&self) -> Result<(), ServiceError> {
        let mut per = self
            .inner
            .streams_by_client
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let total = self.inner.counters.open_streams.load(Ordering::Relaxed);
        if total >= self.inner.config.max_streams as u64 {
            return Err(ServiceError::Quota {
                what: "Session streams open on the server".into(),
                limit: self.inner.config.max_streams as u64,
            });
        }
        let mine = per.entry(self.principal.owner.clone()).or_default();
        if *mine >= self.inner.config.max_streams_per_client {
            let limit = self.inner.config.max_streams_per_client as u64;
            if *mine == 0 {
                per.remove(&self.principal.owner);
            }
            return Err(ServiceError::Quota {
                what: "Session streams open".into(),
                limit,
            });
        }
        *mine += 1;
        self.inner
            .counters
            .open_streams
            .fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// One request of a Session stream. Returns the response and the id of an episode the
    /// request created (reset, restore, fork), or closed.
    fn session_item(
        &self,
        req: proto::SessionRequest,
        deadline: Option<Instant>,
    ) -> (proto::SessionResponse, StreamEffect) {
        use proto::session_request::Kind as Q;
        use proto::session_response::Kind as A;
        let mut effect = StreamEffect::None;
        if !req.malformed.is_empty() {
            let e = ServiceError::Malformed(format!(
                "the item (request_id {} as far as it could be read) is not a SessionRequest: {}",
                req.request_id, req.malformed
            ));
            return (
                proto::SessionResponse {
                    request_id: req.request_id,
                    kind: Some(A::Error(error_to_proto(e))),
                },
                effect,
            );
        }
        let result: Result<A, ServiceError> =
            check_deadline(deadline).and_then(|()| match req.kind {
                None => Err(ServiceError::invalid(
                    "kind",
                    "is required (reset, step, observe…)",
                )),
                Some(Q::Reset(r)) => self.reset_blocking(&r).map(|st| {
                    effect = StreamEffect::Created(st.episode_id.clone());
                    A::State(st)
                }),
                Some(Q::Step(r)) => self.step_blocking(&r).map(A::State),
                Some(Q::Observe(r)) => self.observe_blocking(&r).map(A::State),
                Some(Q::Validate(r)) => self.validate_blocking(&r).map(A::Validation),
                Some(Q::Close(r)) => self.close_episode(&r).map(|c| {
                    effect = StreamEffect::Closed(r.episode_id.clone());
                    A::Closed(c)
                }),
                Some(Q::Describe(r)) => self.describe_blocking(&r).map(A::Description),
                Some(Q::Snapshot(r)) => self.snapshot_blocking(&r).map(A::Snapshot),
                Some(Q::Restore(r)) => self.restore_blocking(&r).map(|(id, st)| {
                    effect = StreamEffect::Created(id);
                    A::State(st)
                }),
                Some(Q::Fork(r)) => self.fork_blocking(&r).map(|(id, st)| {
                    effect = StreamEffect::Created(id);
                    A::State(st)
                }),
                Some(Q::Echo(r)) => Ok(A::Echo(proto::EchoResponse { payload: r.payload })),
            });
        let kind = match result {
            Ok(k) => k,
            Err(e) => A::Error(error_to_proto(e)),
        };
        (
            proto::SessionResponse {
                request_id: req.request_id,
                kind: Some(kind),
            },
            effect,
        )
    }
}

impl EnvironmentService {
    /// A reply over the message limit would end the whole stream (tonic's encoder fails the
    /// call): it is replaced by an inline OUT_OF_RANGE error instead, and an episode the item
    /// created is closed again (the client never learns its id).
    fn fit_reply(
        &self,
        resp: proto::SessionResponse,
        effect: StreamEffect,
    ) -> (proto::SessionResponse, StreamEffect) {
        let size = resp.encoded_len();
        let limit = self.inner.config.max_message_bytes;
        if size <= limit {
            return (resp, effect);
        }
        let mut hint = String::from("; ask for leaner observations (ObservationOptions)");
        let effect = match effect {
            StreamEffect::Created(id) => {
                self.close_quietly([id.clone()]);
                hint.push_str("; the episode it created was closed");
                StreamEffect::None
            }
            other => other,
        };
        let e = ServiceError::TooLarge {
            what: "the reply would take".into(),
            size,
            limit,
            hint,
        };
        (
            proto::SessionResponse {
                request_id: resp.request_id,
                kind: Some(proto::session_response::Kind::Error(error_to_proto(e))),
            },
            effect,
        )
    }
}

/// What a Session stream item did to the set of episodes the stream owns.
enum StreamEffect {
    None,
    Created(String),
    Closed(String),
}

/// Closes a stream's episodes and updates the stream counter when the stream's task ends
/// (whichever way: end of input, client gone, error, shutdown, task aborted).
struct StreamGuard {
    svc: EnvironmentService,
    owned: BTreeSet<String>,
}

impl Drop for StreamGuard {
    fn drop(&mut self) {
        let n = self.svc.close_quietly(std::mem::take(&mut self.owned));
        let mut per = self
            .svc
            .inner
            .streams_by_client
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let owner = &self.svc.principal.owner;
        if let Some(k) = per.get_mut(owner) {
            *k -= 1;
            if *k == 0 {
                per.remove(owner);
            }
        }
        drop(per);
        self.svc
            .inner
            .counters
            .open_streams
            .fetch_sub(1, Ordering::Relaxed);
        tracing::debug!(closed = n, "session stream ended");
    }
}

/// A reply waiting for the client, with the bytes it holds of the stream's budget.
type Pending = (
    Result<proto::SessionResponse, tonic::Status>,
    Option<tokio::sync::OwnedSemaphorePermit>,
);

/// The response stream of a Session call: replies in order; a reply's bytes go back to the
/// stream's budget when tonic takes it to encode (the transport's own send buffer is bounded
/// by HTTP/2 flow control).
pub struct SessionResponseStream {
    rx: tokio::sync::mpsc::Receiver<Pending>,
}

impl tokio_stream::Stream for SessionResponseStream {
    type Item = Result<proto::SessionResponse, tonic::Status>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        self.rx
            .poll_recv(cx)
            .map(|item| item.map(|(reply, _permit)| reply))
    }
}

/// Replies buffered per Session stream before the server waits for the client to read.
const SESSION_BUFFER: usize = 64;

/// Bytes of replies buffered per Session stream before the server waits for the client to
/// read (one larger reply is sent alone): 1 MiB.
const STREAM_BUFFER_BYTES: usize = 1 << 20;
