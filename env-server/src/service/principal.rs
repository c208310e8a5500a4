//! Who is calling: the [`Principal`] of a request, the owner of the episodes it creates and
//! the quotas that apply to it.
//!
//! The transport layer (`crate::transport`: the authentication interceptor) puts a
//! [`Principal`] into every request's extensions: a bearer token's identity when the server
//! has a token file, else the TCP connection's. A request without one (in-process calls of
//! the `*_blocking` methods, examples, benchmarks) acts as [`Principal::local`].
use std::sync::Arc;

/// The owner of episodes: two requests see the same episodes exactly when their owners are
/// equal.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Owner {
    /// A bearer token's name (from the token file): its episodes outlive connections (until
    /// closed or evicted by the idle timeout).
    Token(Arc<str>),
    /// An anonymous TCP connection, by the transport's connection number: its episodes are
    /// closed when the connection ends.
    Connection(u64),
    /// In-process calls (no gRPC request).
    Local,
}

impl Owner {
    /// How `StatsResponse.client` names it: the token's name, `connection` or `local`.
    pub fn name(&self) -> &str {
        match self {
            Owner::Token(n) => n,
            Owner::Connection(_) => "connection",
            Owner::Local => "local",
        }
    }
}

/// What one client may hold at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quotas {
    /// Most episodes open at once (beyond: RESOURCE_EXHAUSTED, reason "quota").
    pub max_episodes: usize,
    /// Most Evaluate calls at once (beyond: RESOURCE_EXHAUSTED, reason "quota").
    pub max_evaluations: usize,
    /// Most bytes accounted to its live episodes (beyond: RESOURCE_EXHAUSTED, reason
    /// "memory").
    pub max_memory_bytes: u64,
}

/// A client's request rate (the transport's token bucket): every call start takes one
/// request, and so does every item of a Session stream.
pub trait RateLimit: Send + Sync + std::fmt::Debug {
    /// Take one request; `false` when over the rate (the request is refused with
    /// RESOURCE_EXHAUSTED, reason "rate").
    fn try_take(&self) -> bool;
}

/// The identity of a request, its quotas and its request rate.
#[derive(Debug, Clone)]
pub struct Principal {
    /// Whose episodes it sees and creates.
    pub owner: Owner,
    /// Its quotas.
    pub quotas: Arc<Quotas>,
    /// Its request rate, if limited.
    pub rate: Option<Arc<dyn RateLimit>>,
}

impl Principal {
    /// In-process calls: [`Owner::Local`] with unlimited quotas (the server-wide limits of
    /// [`super::ServiceConfig`] still apply).
    pub fn local() -> Principal {
        Principal {
            owner: Owner::Local,
            quotas: Arc::new(Quotas {
                max_episodes: usize::MAX,
                max_evaluations: usize::MAX,
                max_memory_bytes: u64::MAX,
            }),
            rate: None,
        }
    }

    /// The principal the transport attached to `req`, else [`Principal::local`].
    pub fn of<T>(req: &tonic::Request<T>) -> Principal {
        req.extensions()
            .get::<Principal>()
            .cloned()
            .unwrap_or_else(Principal::local)
    }
}
