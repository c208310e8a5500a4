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
    /// Resolving the scenario failed (status depends on the variant).
    #[error(transparent)]
    Scenario(#[from] ScenarioError),
    /// No open episode has this id (NOT_FOUND).
    #[error("episode_id: unknown episode `{0}` (closed, expired, or never created)")]
    UnknownEpisode(String),
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
    /// The request's deadline (`grpc-timeout`) passed before the engine work started
    /// (DEADLINE_EXCEEDED).
    #[error("deadline exceeded before the request could be processed")]
    DeadlineExceeded,
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
    /// A server bug or an engine panic (INTERNAL).
    #[error("internal error: {0}")]
    Internal(String),
}

impl ServiceError {
    pub(super) fn invalid(field: impl Into<String>, reason: impl Into<String>) -> Self {
        ServiceError::InvalidArgument {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl From<ServiceError> for tonic::Status {
    fn from(e: ServiceError) -> Self {
        use tonic::Code;
        let code = match &e {
            ServiceError::InvalidArgument { .. } => Code::InvalidArgument,
            ServiceError::Scenario(s) => match s {
                ScenarioError::Missing { .. }
                | ScenarioError::InvalidName { .. }
                | ScenarioError::InvalidInline { .. } => Code::InvalidArgument,
                ScenarioError::UnknownScenario { .. } => Code::NotFound,
                ScenarioError::BrokenData { .. } => Code::Internal,
            },
            ServiceError::UnknownEpisode(_) => Code::NotFound,
            ServiceError::EpisodeOver(_)
            | ServiceError::StaleDecision { .. }
            | ServiceError::SteppedTwice { .. } => Code::FailedPrecondition,
            ServiceError::Submit(s) => match s {
                SubmitError::Terminal => Code::FailedPrecondition,
                SubmitError::Empty => Code::InvalidArgument,
                SubmitError::NotAwaitingDecision => Code::Internal,
                SubmitError::StaleDecision { .. } => Code::FailedPrecondition,
            },
            ServiceError::TooManyEpisodes(_) | ServiceError::TooManyEvaluations(_) => {
                Code::ResourceExhausted
            }
            ServiceError::TooLarge { .. } => Code::OutOfRange,
            ServiceError::ShuttingDown => Code::Unavailable,
            ServiceError::DeadlineExceeded => Code::DeadlineExceeded,
            ServiceError::Internal(_) => Code::Internal,
        };
        if code == Code::Internal {
            tracing::error!(error = %e, "internal error");
        }
        tonic::Status::new(code, bounded_message(e.to_string()))
    }
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
    let st = tonic::Status::from(e);
    proto::Error {
        code: st.code() as i32,
        message: st.message().to_string(),
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
