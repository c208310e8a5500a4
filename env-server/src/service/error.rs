//! [`ServiceError`], every way a request can fail, and its one exhaustive mapping to a gRPC
//! status (`impl From<ServiceError> for tonic::Status`), also used for the inline errors of
//! batches and Session streams ([`error_to_proto`]).
use crate::proto;
use crate::scenarios::ScenarioError;
use pf1e_engine::episode::SubmitError;

/// Every way a request can fail. Display is the status message: it names the request field at
/// fault where there is one.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// A malformed request field (INVALID_ARGUMENT).
    #[error("{field}: {reason}")]
    InvalidArgument {
        /// The request field, e.g. `actions[0].kind`.
        field: String,
        /// Why it is rejected.
        reason: String,
    },
    /// The bytes of a request are not the message (INVALID_ARGUMENT, reason "malformed").
    #[error("malformed request: {0}")]
    Malformed(String),
    /// Resolving the scenario failed (status depends on the variant).
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// No open episode of this client has this id (NOT_FOUND). Another client's episode is
    /// reported the same way.
    #[error("episode_id: unknown episode `{0}` (closed, expired, or never created)")]
    UnknownEpisode(String),
    /// The id is from another server instance: the server restarted and the episode is lost
    /// (NOT_FOUND, reason "episode_lost").
    #[error("episode_id: server restarted; episode lost: `{episode}` was created by server instance {instance}, this is instance {current}; start a new episode with Reset")]
    EpisodeLost {
        /// The episode id.
        episode: String,
        /// The instance id in it.
        instance: String,
        /// This server's instance id.
        current: String,
    },
    /// The client's quota (RESOURCE_EXHAUSTED, reason "quota").
    #[error("too many {what} (quota {limit}): close some, or wait for some to end")]
    Quota {
        /// What is counted, e.g. `open episodes`.
        what: String,
        /// The quota.
        limit: u64,
    },
    /// The client's request rate (RESOURCE_EXHAUSTED, reason "rate"): a Session item over it.
    #[error("request rate limit exceeded; retry later")]
    RateLimited,
    /// A memory limit of an episode or a client (RESOURCE_EXHAUSTED, reason "memory").
    #[error("{0}")]
    Memory(String),
    /// The call ran out of its work budget of default-policy turns (RESOURCE_EXHAUSTED,
    /// reason "work_budget").
    #[error("work budget exhausted: the engine ran {turns} default-policy turns in this call without reaching a decision of yours or the end (--max-turns-per-call)")]
    WorkBudget {
        /// Turns run.
        turns: u64,
    },
    /// The call's client cancelled it while the engine worked (CANCELLED).
    #[error("cancelled by the client")]
    Cancelled,
    /// The call changed an episode, then failed: the episode was closed (the code is the
    /// cause's).
    #[error("{cause}; episode `{episode}` was closed")]
    EpisodeClosed {
        /// The episode id.
        episode: String,
        /// Why.
        cause: Box<ServiceError>,
    },
    /// The episode has ended (FAILED_PRECONDITION).
    #[error("episode `{0}` is over: call Reset to start a new one")]
    EpisodeOver(String),
    /// The step names another decision than the current one (FAILED_PRECONDITION).
    #[error("decision_id: stale decision {given}: the current decision of episode `{episode}` is {current}")]
    StaleDecision {
        /// The episode id.
        episode: String,
        /// The decision id of the request.
        given: u64,
        /// The pending decision id.
        current: u64,
    },
    /// A StepBatch steps this episode in an earlier item already (FAILED_PRECONDITION): one
    /// step per episode per batch, so the outcome never depends on the parallel order.
    #[error("episode `{episode}` is stepped by {first} of this batch already: one step per episode per batch")]
    SteppedTwice {
        /// The episode id.
        episode: String,
        /// The earlier item, e.g. `steps[0]` or `columnar_steps[3]`.
        first: String,
    },
    /// The engine refused the submission (status depends on the variant).
    #[error("{0}")]
    Submit(#[from] SubmitError),
    /// Too many open episodes (RESOURCE_EXHAUSTED).
    #[error("too many open episodes (limit {0}): close some with Close")]
    TooManyEpisodes(usize),
    /// The request's deadline (`grpc-timeout`, or the server's `--max-call-secs`) passed
    /// (DEADLINE_EXCEEDED).
    #[error("deadline exceeded")]
    DeadlineExceeded,
    /// The call ran past the server's longest call duration (DEADLINE_EXCEEDED, reason
    /// "call_duration").
    #[error("deadline exceeded: the call ran past the server's longest call duration ({} s, --max-call-secs)", .0.as_secs_f64())]
    CallTooLong(std::time::Duration),
    /// Too many Evaluate calls at once (RESOURCE_EXHAUSTED).
    #[error("too many evaluations running (limit {0}, --max-evaluations): retry later")]
    TooManyEvaluations(usize),
    /// A response would exceed the server's message limit (OUT_OF_RANGE).
    #[error("{what} {size} bytes, over the server's message limit of {limit} bytes (--max-message-bytes){hint}")]
    TooLarge {
        /// What would be sent and how its size is known, e.g. `the report could take up to`.
        what: String,
        /// Its encoded size (or a bound of it) in bytes.
        size: usize,
        /// The limit in bytes.
        limit: usize,
        /// What to reduce, starting with its separator (`; …`), or empty.
        hint: String,
    },
    /// The server is shutting down (UNAVAILABLE).
    #[error("the server is shutting down")]
    ShuttingDown,
    /// An episode left unusable by an earlier internal error (INTERNAL; the message is sent
    /// as is: it says what to do).
    #[error("internal error: {0}")]
    Poisoned(String),
    /// A server bug or an engine panic (INTERNAL).
    #[error("internal error: {0}")]
    Internal(String),
}

impl ServiceError {
    /// This error, saying the call closed `episode`.
    pub(super) fn closing(self, episode: &str) -> ServiceError {
        match self {
            e @ ServiceError::EpisodeClosed { .. } => e,
            e => ServiceError::EpisodeClosed {
                episode: episode.to_string(),
                cause: Box::new(e),
            },
        }
    }

    /// The machine-readable reason (`Error.reason`, the `pf1e-reason` trailer), or "".
    pub fn reason(&self) -> &'static str {
        match self {
            ServiceError::EpisodeLost { .. } => "episode_lost",
            ServiceError::Malformed(_) => "malformed",
            ServiceError::WorkBudget { .. } => "work_budget",
            ServiceError::Memory(_) => "memory",
            ServiceError::RateLimited => "rate",
            ServiceError::CallTooLong(_) => "call_duration",
            ServiceError::Quota { .. } => "quota",
            ServiceError::EpisodeClosed { cause, .. } => cause.reason(),
            _ => "",
        }
    }

    /// The gRPC code.
    pub fn code(&self) -> tonic::Code {
        use tonic::Code;
        match self {
            ServiceError::InvalidArgument { .. } | ServiceError::Malformed(_) => {
                Code::InvalidArgument
            }
            ServiceError::Scenario(s) => match s {
                ScenarioError::Missing { .. }
                | ScenarioError::InvalidName { .. }
                | ScenarioError::InvalidInline { .. } => Code::InvalidArgument,
                ScenarioError::UnknownScenario { .. } => Code::NotFound,
                ScenarioError::BrokenData { .. } => Code::Internal,
            },
            ServiceError::UnknownEpisode(_) | ServiceError::EpisodeLost { .. } => Code::NotFound,
            ServiceError::EpisodeOver(_)
            | ServiceError::StaleDecision { .. }
            | ServiceError::SteppedTwice { .. } => Code::FailedPrecondition,
            ServiceError::Submit(s) => match s {
                SubmitError::Terminal => Code::FailedPrecondition,
                SubmitError::Empty => Code::InvalidArgument,
                SubmitError::NotAwaitingDecision => Code::Internal,
                SubmitError::StaleDecision { .. } => Code::FailedPrecondition,
            },
            ServiceError::TooManyEpisodes(_)
            | ServiceError::TooManyEvaluations(_)
            | ServiceError::Quota { .. }
            | ServiceError::Memory(_)
            | ServiceError::WorkBudget { .. }
            | ServiceError::RateLimited => Code::ResourceExhausted,
            ServiceError::TooLarge { .. } => Code::OutOfRange,
            ServiceError::ShuttingDown => Code::Unavailable,
            ServiceError::DeadlineExceeded | ServiceError::CallTooLong(_) => Code::DeadlineExceeded,
            ServiceError::Cancelled => Code::Cancelled,
            ServiceError::EpisodeClosed { cause, .. } => cause.code(),
            ServiceError::Internal(_) | ServiceError::Poisoned(_) => Code::Internal,
        }
    }

    pub(super) fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        ServiceError::InvalidArgument {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl From<ServiceError> for tonic::Status {
    fn from(e: ServiceError) -> Self {
        let (code, message, reason) = status_parts(e);
        let mut st = tonic::Status::new(code, message);
        if !reason.is_empty() {
            st.metadata_mut().insert(
                "pf1e-reason",
                tonic::metadata::MetadataValue::from_static(reason),
            );
        }
        st
    }
}

/// Code, client-facing message and reason of an error. Internal errors (server bugs, broken
/// bundled data) are logged with their details and a reference number; the client gets a
/// generic message with that number, never server paths or file contents.
fn status_parts(e: ServiceError) -> (tonic::Code, String, &'static str) {
    static NEXT_REF: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    let code = e.code();
    let reason = e.reason();
    let message = if code == tonic::Code::Internal && !matches!(e, ServiceError::Poisoned(_)) {
        let r = NEXT_REF.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        tracing::error!(error = %e, reference = r, "internal error");
        match &e {
            ServiceError::Scenario(ScenarioError::BrokenData { .. }) => format!(
                "internal error: the server's bundled data for this scenario is broken (reference {r} in the server log)"
            ),
            _ => format!("internal error (reference {r} in the server log)"),
        }
    } else {
        bounded_message(e.to_string())
    };
    (code, message, reason)
}

/// Most bytes of an error message sent back: messages may quote client input, and gRPC
/// clients refuse status metadata beyond 16 KiB.
const MAX_STATUS_MESSAGE: usize = 1024;

/// `message`, cut to [`MAX_STATUS_MESSAGE`] bytes on a character boundary, with a marker.
fn bounded_message(mut message: String) -> String {
    if message.len() > MAX_STATUS_MESSAGE {
        let mut cut = MAX_STATUS_MESSAGE;
        while !message.is_char_boundary(cut) {
            cut -= 1;
        }
        message.truncate(cut);
        message.push_str("… (truncated)");
    }
    message
}

/// A service error as an inline error (same code and message as the unary status).
pub(super) fn error_to_proto(e: ServiceError) -> proto::Error {
    let (code, message, reason) = status_parts(e);
    proto::Error {
        code: code as i32,
        message,
        reason: reason.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses() {
        let s: tonic::Status = ServiceError::UnknownEpisode("x".into()).into();
        assert_eq!(s.code(), tonic::Code::NotFound);
        let s: tonic::Status = ServiceError::StaleDecision {
            episode: "e".into(),
            given: 1,
            current: 2,
        }
        .into();
        assert_eq!(s.code(), tonic::Code::FailedPrecondition);
        assert!(s.message().contains("decision_id"));
        let s: tonic::Status = ServiceError::invalid("actions[0].kind", "must be set").into();
        assert_eq!(s.code(), tonic::Code::InvalidArgument);
        assert!(s.message().starts_with("actions[0].kind: "));
    }
}
