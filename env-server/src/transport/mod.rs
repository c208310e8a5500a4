//! The server's transport: its own TCP accept loop (connection numbers, a connection limit,
//! back-off on accept errors, per-connection idle timeout, optional TLS) feeding tonic's
//! `serve_with_incoming_shutdown`, bearer-token authentication and per-client request rates
//! ([`auth`]), and TLS settings ([`tls`]).
//!
//! Every accepted connection becomes a [`ConnIo`] whose [`ConnInfo`] (tonic's connect info,
//! in every request's extensions) carries its number. When the connection ends (the
//! `ConnIo` drops), the episodes of [`Owner::Connection`](crate::service::Owner) with that
//! number are closed and `open_connections` goes down.
pub mod auth;
pub mod tls;

use crate::service::EnvironmentService;
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Instant;

/// Default of [`TransportConfig::max_connections`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// Default of [`TransportConfig::max_streams_per_connection`].
pub const DEFAULT_MAX_STREAMS_PER_CONNECTION: u32 = 256;
/// Default of [`TransportConfig::max_header_list_bytes`]: 32 KiB.
pub const DEFAULT_MAX_HEADER_LIST_BYTES: u32 = 32 << 10;
/// Default of [`TransportConfig::max_frame_bytes`]: 64 KiB.
pub const DEFAULT_MAX_FRAME_BYTES: u32 = 64 << 10;
/// Default of [`TransportConfig::http2_keepalive_interval`]: 60 s.
pub const DEFAULT_HTTP2_KEEPALIVE_INTERVAL: Duration = Duration::from_secs(60);
/// Default of [`TransportConfig::http2_keepalive_timeout`]: 20 s.
pub const DEFAULT_HTTP2_KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(20);
/// Default of [`TransportConfig::shutdown_grace`]: 10 s.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(10);
/// Longest TLS handshake; beyond it the connection is closed.
pub const TLS_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Default of [`TransportConfig::first_request_timeout`].
pub const FIRST_REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// After the shutdown grace period, how long serving waits for connections it closed by
/// force before it returns anyway.
pub const FORCED_CLOSE_WAIT: Duration = Duration::from_millis(1500);

/// Settings of the transport (the service's own are [`crate::service::ServiceConfig`]).
#[derive(Debug, Clone)]
pub struct TransportConfig {
    /// Most TCP connections open at once; a connection beyond it is accepted and closed at
    /// once (counted in `connections_refused`).
    pub max_connections: usize,
    /// A connection from which no bytes were read for this long is closed (`None`: never).
    /// HTTP/2 PING frames alone do not count as activity (so that keepalive pings do not keep
    /// an idle connection open). Simplification: a call in progress whose client sends
    /// nothing (a long Evaluate) does not keep its connection active; keep this longer than
    /// `ServiceConfig::max_call_duration`.
    pub connection_idle: Option<Duration>,
    /// HTTP/2 `SETTINGS_MAX_CONCURRENT_STREAMS` of every connection.
    pub max_streams_per_connection: u32,
    /// HTTP/2 `SETTINGS_MAX_HEADER_LIST_SIZE`, in bytes: a call with more metadata fails
    /// alone (REFUSED_STREAM; the connection goes on) up to 4 times this (the `h2` crate's
    /// abuse limit; beyond, the peer is told to go away). A smaller limit with 16 KiB frames
    /// made a 100 KiB header block exceed h2's CONTINUATION-frame limit and close the
    /// connection.
    pub max_header_list_bytes: u32,
    /// HTTP/2 `SETTINGS_MAX_FRAME_SIZE` the server accepts (16 KiB to 16 MiB): with large
    /// frames a large header block takes few CONTINUATION frames (h2 allows at least 5).
    pub max_frame_bytes: u32,
    /// Interval of the server's HTTP/2 keepalive pings.
    pub http2_keepalive_interval: Duration,
    /// A connection whose peer does not answer a keepalive ping within this is closed.
    pub http2_keepalive_timeout: Duration,
    /// TLS (`None`: plaintext).
    pub tls: Option<Arc<tokio_rustls::rustls::ServerConfig>>,
    /// Bearer tokens (`None`: anonymous clients, one per connection).
    pub tokens: Option<Arc<auth::TokenTable>>,
    /// Request rate of one anonymous client (a connection), per second (0: unlimited).
    pub anonymous_requests_per_second: f64,
    /// On shutdown, how long calls in progress may go on before engine work is cancelled and
    /// connections are closed.
    pub shutdown_grace: Duration,
    /// A connection on which no call of the Environment service has arrived this long after
    /// it was accepted (after its TLS handshake) is closed — the HTTP/2 preface, SETTINGS,
    /// PINGs or any other frames alone do not count — so that sockets that never make a
    /// request cannot hold the connection slots (default [`FIRST_REQUEST_TIMEOUT`]).
    pub first_request_timeout: Duration,
    /// Most connections open at once from one IP address (0: no cap). Without tokens a
    /// client is a connection, so this also caps what one address may hold: this many times
    /// the per-client quotas. Off by default (a loopback server sees one address).
    pub max_connections_per_address: usize,
}

impl TransportConfig {
    /// The defaults, with the connection idle timeout equal to the episodes' `idle_timeout`.
    pub fn new(idle_timeout: Option<Duration>) -> Self {
        TransportConfig {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            connection_idle: idle_timeout,
            max_streams_per_connection: DEFAULT_MAX_STREAMS_PER_CONNECTION,
            max_header_list_bytes: DEFAULT_MAX_HEADER_LIST_BYTES,
            max_frame_bytes: DEFAULT_MAX_FRAME_BYTES,
            http2_keepalive_interval: DEFAULT_HTTP2_KEEPALIVE_INTERVAL,
            http2_keepalive_timeout: DEFAULT_HTTP2_KEEPALIVE_TIMEOUT,
            tls: None,
            tokens: None,
            anonymous_requests_per_second: 0.0,
            first_request_timeout: FIRST_REQUEST_TIMEOUT,
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
            max_connections_per_address: 0,
        }
    }
}

/// What a request knows of its connection (tonic's connect info: in every request's
/// extensions as `ConnInfo`).
#[derive(Debug, Clone)]
pub struct ConnInfo {
    /// The connection's number (1, 2, … in accept order): the owner of its anonymous
    /// episodes.
    pub number: u64,
    /// The peer's address.
    pub peer: SocketAddr,
    /// Whether the peer presented a TLS client certificate (verified: mTLS).
    pub tls_peer_cert: bool,
    /// The anonymous client's request-rate bucket (`None`: unlimited).
    pub(crate) bucket: Option<Arc<Mutex<auth::TokenBucket>>>,
    /// Raised when a call of the Environment service (authenticated) reaches the server on
    /// this connection: until then the first-request timeout applies.
    pub(crate) requested: Arc<std::sync::atomic::AtomicBool>,
}

/// Connections open, by peer address.
type PerAddress = Arc<Mutex<HashMap<std::net::IpAddr, usize>>>;

/// Closes the connection's anonymous episodes and counts it out when dropped.
struct ConnGuard {
    number: u64,
    svc: EnvironmentService,
    /// The peer's address and the per-address counts (when capped).
    per_address: Option<(std::net::IpAddr, PerAddress)>,
}

impl Drop for ConnGuard {
    fn drop(&mut self) {
        if let Some((ip, counts)) = &self.per_address {
            let mut counts = counts.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(n) = counts.get_mut(ip) {
                *n -= 1;
                if *n == 0 {
                    counts.remove(ip);
                }
            }
        }
        self.svc
            .transport_counters()
            .open_connections
            .fetch_sub(1, Ordering::Relaxed);
        let closed = self.svc.connection_closed(self.number);
        if closed > 0 {
            tracing::debug!(
                connection = self.number,
                closed,
                "connection ended: closed its episodes"
            );
        }
    }
}

/// The byte stream of a connection: TCP or TLS over TCP.
enum Stream {
    Plain(TcpStream),
    Tls(Box<tokio_rustls::server::TlsStream<TcpStream>>),
}

/// One accepted connection, as tonic reads and writes it: closes itself when idle (see
/// [`TransportConfig::connection_idle`]) or when the server closes connections by force.
pub struct ConnIo {
    stream: Stream,
    info: ConnInfo,
    idle: Option<Duration>,
    last_read: Instant,
    /// Until a call of the client reaches the service ([`ConnInfo::requested`]; the HTTP/2
    /// preface, SETTINGS or any other frame alone do not count): when the connection is
    /// closed if none has ([`FIRST_REQUEST_TIMEOUT`] after the accept).
    first_deadline: Option<Instant>,
    idle_timer: Pin<Box<tokio::time::Sleep>>,
    kill: Pin<Box<dyn Future<Output = ()> + Send>>,
    killed: bool,
    _guard: ConnGuard,
}

impl tonic::transport::server::Connected for ConnIo {
    type ConnectInfo = ConnInfo;
    fn connect_info(&self) -> ConnInfo {
        self.info.clone()
    }
}

/// Whether `b` is one or more whole HTTP/2 PING frames (keepalive traffic, not activity).
fn only_ping_frames(mut b: &[u8]) -> bool {
    if b.is_empty() {
        return false;
    }
    while !b.is_empty() {
        if b.len() < 9 {
            return false;
        }
        let len = u32::from_be_bytes([0, b[0], b[1], b[2]]) as usize;
        if b[3] != 0x6 || len != 8 || b.len() < 9 + len {
            return false;
        }
        b = &b[9 + len..];
    }
    true
}

impl ConnIo {
    fn poll_killed(&mut self, cx: &mut Context<'_>) -> bool {
        if !self.killed && self.kill.as_mut().poll(cx).is_ready() {
            self.killed = true;
        }
        self.killed
    }
}

fn aborted() -> io::Error {
    io::Error::new(io::ErrorKind::ConnectionAborted, "closed by the server")
}

impl AsyncRead for ConnIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.poll_killed(cx) {
            return Poll::Ready(Err(aborted()));
        }
        let before = buf.filled().len();
        let r = match &mut this.stream {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        };
        match r {
            Poll::Ready(Ok(())) => {
                let new = &buf.filled()[before..];
                if !new.is_empty() && !only_ping_frames(new) {
                    this.last_read = Instant::now();
                }
                if this.first_deadline.is_some() && this.info.requested.load(Ordering::Relaxed) {
                    this.first_deadline = None;
                }
                Poll::Ready(Ok(()))
            }
            Poll::Pending => {
                // The next deadline: the first request's while nothing came yet, else the
                // idle timeout's.
                let due = |this: &ConnIo| {
                    let idle = this.idle.map(|d| this.last_read + d);
                    match (this.first_deadline, idle) {
                        (Some(a), Some(b)) => Some(a.min(b)),
                        (a, b) => a.or(b),
                    }
                };
                while let Some(d) = due(this) {
                    if this.idle_timer.as_mut().poll(cx).is_pending() {
                        break;
                    }
                    if this.first_deadline.is_some() && this.info.requested.load(Ordering::Relaxed)
                    {
                        // A call came since the last read: only the idle timeout is left.
                        this.first_deadline = None;
                        continue;
                    }
                    if Instant::now() >= d {
                        let first = this.first_deadline.is_some_and(|f| f <= d);
                        tracing::debug!(
                            connection = this.info.number,
                            first_request = first,
                            "closing an idle connection"
                        );
                        return Poll::Ready(Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            if first {
                                "no request within the first-request timeout"
                            } else {
                                "connection idle"
                            },
                        )));
                    }
                    this.idle_timer.as_mut().reset(d);
                }
                Poll::Pending
            }
            other => other,
        }
    }
}

impl AsyncWrite for ConnIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.poll_killed(cx) {
            return Poll::Ready(Err(aborted()));
        }
        match &mut this.stream {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, data),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, data),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.poll_killed(cx) {
            return Poll::Ready(Err(aborted()));
        }
        match &mut this.stream {
            Stream::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match &self.stream {
            Stream::Plain(s) => s.is_write_vectored(),
            Stream::Tls(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().stream {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match &mut self.get_mut().stream {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

/// Back-off of the accept loop after an error that is not about one connection (out of file
/// descriptors: EMFILE / ENFILE, out of memory…): 10 ms, doubling up to 1 s, back to the
/// start after a successful accept. Without it the loop retries at once and spins (the
/// failing connection stays in the kernel's queue).
#[derive(Debug, Clone)]
pub struct AcceptBackoff {
    next: Duration,
}

impl AcceptBackoff {
    /// First wait.
    pub const MIN: Duration = Duration::from_millis(10);
    /// Longest wait.
    pub const MAX: Duration = Duration::from_secs(1);

    /// A fresh back-off (next wait [`Self::MIN`]).
    pub fn new() -> Self {
        AcceptBackoff { next: Self::MIN }
    }

    /// The wait after one more error in a row.
    pub fn on_error(&mut self) -> Duration {
        let d = self.next;
        self.next = (self.next * 2).min(Self::MAX);
        d
    }

    /// A connection was accepted: the next error waits [`Self::MIN`] again.
    pub fn on_success(&mut self) {
        self.next = Self::MIN;
    }
}

impl Default for AcceptBackoff {
    fn default() -> Self {
        Self::new()
    }
}

/// Whether an accept error concerns only the connection being accepted (retry at once).
fn per_connection_error(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
            | io::ErrorKind::WouldBlock
    )
}

/// Logs at most once per interval, counting what it suppressed in between.
#[derive(Debug)]
pub(crate) struct RateLimitedLog {
    interval: Duration,
    state: Mutex<(Option<Instant>, u64)>,
}

impl RateLimitedLog {
    pub(crate) fn new(interval: Duration) -> Self {
        RateLimitedLog {
            interval,
            state: Mutex::new((None, 0)),
        }
    }

    /// `Some(suppressed since the last log)` when it is time to log again.
    pub(crate) fn ready(&self) -> Option<u64> {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        match s.0 {
            Some(t) if now.duration_since(t) < self.interval => {
                s.1 += 1;
                None
            }
            _ => {
                let n = s.1;
                *s = (Some(now), 0);
                Some(n)
            }
        }
    }
}

/// Source of TCP connections (the listener; tests inject failing ones).
pub trait Acceptor: Send + 'static {
    /// Accept the next connection.
    fn accept(&mut self) -> impl Future<Output = io::Result<(TcpStream, SocketAddr)>> + Send;
}

impl Acceptor for tokio::net::TcpListener {
    fn accept(&mut self) -> impl Future<Output = io::Result<(TcpStream, SocketAddr)>> + Send {
        tokio::net::TcpListener::accept(self)
    }
}

/// What the accept loop shares with the connections it makes.
pub(crate) struct Accepting {
    pub(crate) svc: EnvironmentService,
    pub(crate) config: TransportConfig,
    /// Closes every connection by force when set.
    pub(crate) kill: tokio::sync::watch::Receiver<bool>,
    pub(crate) next_number: AtomicU64,
    pub(crate) refused_log: RateLimitedLog,
    pub(crate) error_log: RateLimitedLog,
    /// Connections open, by peer address (kept when `max_connections_per_address` is set).
    pub(crate) per_address: PerAddress,
}

impl Accepting {
    pub(crate) fn new(
        svc: EnvironmentService,
        config: TransportConfig,
        kill: tokio::sync::watch::Receiver<bool>,
    ) -> Arc<Self> {
        Arc::new(Accepting {
            svc,
            config,
            kill,
            next_number: AtomicU64::new(1),
            refused_log: RateLimitedLog::new(Duration::from_secs(10)),
            error_log: RateLimitedLog::new(Duration::from_secs(10)),
            per_address: Arc::default(),
        })
    }

    fn conn_io(&self, stream: Stream, number: u64, peer: SocketAddr, guard: ConnGuard) -> ConnIo {
        let tls_peer_cert = match &stream {
            Stream::Plain(_) => false,
            Stream::Tls(s) => s
                .get_ref()
                .1
                .peer_certificates()
                .is_some_and(|c| !c.is_empty()),
        };
        let rps = self.config.anonymous_requests_per_second;
        let bucket = (self.config.tokens.is_none() && rps > 0.0)
            .then(|| Arc::new(Mutex::new(auth::TokenBucket::new(rps, rps.max(1.0)))));
        let mut kill = self.kill.clone();
        let now = Instant::now();
        ConnIo {
            stream,
            info: ConnInfo {
                number,
                peer,
                tls_peer_cert,
                bucket,
                requested: Arc::default(),
            },
            idle: self.config.connection_idle,
            last_read: now,
            first_deadline: Some(now + self.config.first_request_timeout),
            idle_timer: Box::pin(tokio::time::sleep_until(
                now + self
                    .config
                    .connection_idle
                    .unwrap_or(Duration::from_secs(86_400))
                    .min(self.config.first_request_timeout),
            )),
            kill: Box::pin(async move {
                if kill.wait_for(|k| *k).await.is_err() {
                    std::future::pending::<()>().await;
                }
            }),
            killed: false,
            _guard: guard,
        }
    }
}

/// The accept loop: accepts until `stop` is set (then drops the acceptor: the port closes),
/// sending connections (after their TLS handshake, if any) to `tx`.
pub(crate) async fn accept_loop<A: Acceptor>(
    mut acceptor: A,
    shared: Arc<Accepting>,
    tx: tokio::sync::mpsc::Sender<io::Result<ConnIo>>,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let mut backoff = AcceptBackoff::new();
    let tls = shared
        .config
        .tls
        .clone()
        .map(tokio_rustls::TlsAcceptor::from);
    loop {
        let accepted = tokio::select! {
            biased;
            _ = stop.wait_for(|s| *s) => break,
            r = acceptor.accept() => r,
        };
        let (tcp, peer) = match accepted {
            Ok(c) => {
                backoff.on_success();
                c
            }
            Err(e) if per_connection_error(&e) => continue,
            Err(e) => {
                let wait = backoff.on_error();
                if let Some(suppressed) = shared.error_log.ready() {
                    tracing::warn!(error = %e, suppressed, retry_in_ms = wait.as_millis() as u64,
                        "cannot accept connections (out of file descriptors?)");
                }
                tokio::select! {
                    _ = stop.wait_for(|s| *s) => break,
                    () = tokio::time::sleep(wait) => continue,
                }
            }
        };
        let counters = shared.svc.transport_counters();
        if counters.open_connections.load(Ordering::Relaxed) >= shared.config.max_connections as u64
        {
            counters.connections_refused.fetch_add(1, Ordering::Relaxed);
            drop(tcp);
            if let Some(suppressed) = shared.refused_log.ready() {
                tracing::warn!(%peer, max_connections = shared.config.max_connections, suppressed,
                    "connection refused: too many connections");
            }
            continue;
        }
        let cap = shared.config.max_connections_per_address;
        let per_address = if cap > 0 {
            let ip = peer.ip();
            let mut counts = shared.per_address.lock().unwrap_or_else(|p| p.into_inner());
            let n = counts.entry(ip).or_default();
            if *n >= cap {
                drop(counts);
                counters.connections_refused.fetch_add(1, Ordering::Relaxed);
                drop(tcp);
                if let Some(suppressed) = shared.refused_log.ready() {
                    tracing::warn!(%peer, max_connections_per_address = cap, suppressed,
                        "connection refused: too many connections from this address");
                }
                continue;
            }
            *n += 1;
            Some((ip, shared.per_address.clone()))
        } else {
            None
        };
        counters.open_connections.fetch_add(1, Ordering::Relaxed);
        let number = shared.next_number.fetch_add(1, Ordering::Relaxed);
        let guard = ConnGuard {
            number,
            svc: shared.svc.clone(),
            per_address,
        };
        let _ = tcp.set_nodelay(true);
        match &tls {
            None => {
                let io = shared.conn_io(Stream::Plain(tcp), number, peer, guard);
                if tx.send(Ok(io)).await.is_err() {
                    break;
                }
            }
            Some(acceptor) => {
                let acceptor = acceptor.clone();
                let shared = shared.clone();
                let tx = tx.clone();
                tokio::spawn(async move {
                    match tokio::time::timeout(TLS_HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await {
                        Ok(Ok(s)) => {
                            let io = shared.conn_io(Stream::Tls(Box::new(s)), number, peer, guard);
                            let _ = tx.send(Ok(io)).await;
                        }
                        Ok(Err(e)) => {
                            tracing::debug!(%peer, error = %e, "TLS handshake failed");
                        }
                        Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
                    }
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_to_a_second_and_resets() {
        let mut b = AcceptBackoff::new();
        let waits: Vec<u64> = (0..9).map(|_| b.on_error().as_millis() as u64).collect();
        assert_eq!(waits, [10, 20, 40, 80, 160, 320, 640, 1000, 1000]);
        b.on_success();
        assert_eq!(b.on_error(), Duration::from_millis(10));
    }

    #[test]
    fn ping_frames_are_not_activity() {
        let ping = [0, 0, 8, 6, 1, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];
        assert!(only_ping_frames(&ping));
        let two: Vec<u8> = ping.iter().chain(ping.iter()).copied().collect();
        assert!(only_ping_frames(&two));
        // A HEADERS frame, a truncated PING, nothing.
        assert!(!only_ping_frames(&[
            0, 0, 8, 1, 4, 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8
        ]));
        assert!(!only_ping_frames(&ping[..12]));
        assert!(!only_ping_frames(&[]));
    }

    /// An acceptor that always fails as when file descriptors run out.
    struct Emfile(Arc<AtomicU64>);
    impl Acceptor for Emfile {
        fn accept(&mut self) -> impl Future<Output = io::Result<(TcpStream, SocketAddr)>> + Send {
            self.0.fetch_add(1, Ordering::Relaxed);
            std::future::ready(Err(io::Error::from_raw_os_error(24)))
        }
    }

    /// Issue: "when file descriptors run out the accept loop spins at 98 % CPU". Over one
    /// second the loop tries to accept 8 times (10+20+…+640 ms), not millions of times.
    #[tokio::test]
    async fn accept_errors_back_off() {
        let svc = EnvironmentService::new(crate::service::ServiceConfig::new("."));
        let (_kill_tx, kill_rx) = tokio::sync::watch::channel(false);
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let shared = Accepting::new(svc, TransportConfig::new(None), kill_rx);
        let (tx, _rx) = tokio::sync::mpsc::channel(4);
        let calls = Arc::new(AtomicU64::new(0));
        let task = tokio::spawn(accept_loop(Emfile(calls.clone()), shared, tx, stop_rx));
        tokio::time::sleep(Duration::from_secs(1)).await;
        let n = calls.load(Ordering::Relaxed);
        assert!((5..=12).contains(&n), "{n} accept attempts in one second");
        stop_tx.send_replace(true);
        tokio::time::timeout(Duration::from_secs(2), task)
            .await
            .expect("the loop stops while backing off")
            .unwrap();
    }
}
