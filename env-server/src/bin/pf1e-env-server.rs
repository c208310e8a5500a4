//! `pf1e-env-server`: the gRPC environment server (`pf1e.env.v1.Environment`, plus
//! `grpc.health.v1` and server reflection).
//!
//! ```text
//! pf1e-env-server [--addr 127.0.0.1:50051] [--data-dir DIR] [--max-episodes N] [--idle-timeout-secs S]
//!                 [--max-message-bytes B] [--max-batch-items N] [--max-evaluations N]
//!                 [--max-connections N] [--connection-idle-secs S] [--max-streams-per-connection N]
//!                 [--requests-per-second R] [--shutdown-grace-secs S]
//!                 [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE]] [--tokens FILE]
//!                 [--insecure-public]
//!                 [--max-episodes-per-client N] [--max-evaluations-per-client N]
//!                 [--max-client-memory-bytes B] [--max-episode-memory-bytes B]
//!                 [--max-turns-per-call N] [--max-call-secs S] [--max-snapshot-bytes B]
//!                 [--snapshot-key-file FILE] [--max-streams N] [--max-streams-per-client N]
//!                 [--max-engine-jobs N] [--max-engine-jobs-per-client N]
//!                 [--max-evaluation-secs S] [--max-evaluation-rounds N]
//!                 [--max-connections-per-address N]
//! ```
//! Bind policy: a non-loopback `--addr` needs both TLS and a token file, or
//! `--insecure-public` (exit 2 otherwise).
//! Prints `listening on ADDR (limits…)` to stderr once bound (`--addr 127.0.0.1:0` picks a
//! free port and prints it). Logs go to stderr, filtered by `RUST_LOG` (default `info`). Stops gracefully on
//! ctrl-c or SIGTERM. Exit status 2 for bad arguments (clap), 1 if the server cannot start.
use clap::Parser;
use pf1e_env_server::server::serve_with;
use pf1e_env_server::service::{
    Quotas, ServiceConfig, DEFAULT_MAX_BATCH_ITEMS, DEFAULT_MAX_CALL_DURATION,
    DEFAULT_MAX_CLIENT_MEMORY_BYTES, DEFAULT_MAX_EPISODES_PER_CLIENT,
    DEFAULT_MAX_EPISODE_MEMORY_BYTES, DEFAULT_MAX_EVALUATIONS, DEFAULT_MAX_EVALUATIONS_PER_CLIENT,
    DEFAULT_MAX_EVALUATION_DURATION, DEFAULT_MAX_EVALUATION_ROUNDS, DEFAULT_MAX_MESSAGE_BYTES,
    DEFAULT_MAX_SNAPSHOT_BYTES, DEFAULT_MAX_STREAMS, DEFAULT_MAX_STREAMS_PER_CLIENT,
    DEFAULT_MAX_TURNS_PER_CALL,
};
use pf1e_env_server::transport::{self, auth::TokenTable, TransportConfig};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// mimalloc instead of the system allocator: the engine allocates many small, short-lived
/// vectors per decision, and glibc malloc spent about 15% of the server's time on them.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// gRPC environment server for pf1e-gym.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on (port 0 = any free port; the real one is printed).
    #[arg(long, default_value = "127.0.0.1:50051")]
    addr: SocketAddr,
    /// Data directory (maps/, monsters/, pcs/, scenarios/). Default: $PF1E_DATA_DIR, else
    /// `data` in the current directory.
    #[arg(long)]
    data_dir: Option<PathBuf>,
    /// Most episodes open at once (Reset beyond it fails with RESOURCE_EXHAUSTED).
    #[arg(long, default_value_t = 4096, value_parser = clap::value_parser!(u64).range(1..))]
    max_episodes: u64,
    /// Close episodes untouched for this many seconds (0 = never).
    #[arg(long, default_value_t = 1800)]
    idle_timeout_secs: u64,
    /// Largest gRPC message accepted or sent by the Environment service, in bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_MESSAGE_BYTES as u64,
          value_parser = clap::value_parser!(u64).range(1024..=(1u64 << 31)))]
    max_message_bytes: u64,
    /// Most items in one StepBatch / ResetBatch.
    #[arg(long, default_value_t = DEFAULT_MAX_BATCH_ITEMS as u64,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_batch_items: u64,
    /// Most Evaluate calls (position sweeps) at once; beyond: RESOURCE_EXHAUSTED. They share
    /// the worker threads (one per core).
    #[arg(long, default_value_t = DEFAULT_MAX_EVALUATIONS as u64,
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    max_evaluations: u64,
    /// Most TCP connections open at once; beyond, a connection is accepted and closed at once.
    #[arg(long, default_value_t = transport::DEFAULT_MAX_CONNECTIONS as u64,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_connections: u64,
    /// Close a connection from which nothing was read for this many seconds (0 = never;
    /// default: --idle-timeout-secs). Keepalive pings do not count as activity.
    #[arg(long)]
    connection_idle_secs: Option<u64>,
    /// Most concurrent calls (HTTP/2 streams) on one connection.
    #[arg(long, default_value_t = transport::DEFAULT_MAX_STREAMS_PER_CONNECTION as u64,
          value_parser = clap::value_parser!(u64).range(1..=65_536))]
    max_streams_per_connection: u64,
    /// Request rate of one anonymous client (a connection) per second, 0 = unlimited (token
    /// clients: their entry's requests_per_second). Beyond: RESOURCE_EXHAUSTED, pf1e-reason: rate.
    #[arg(long, default_value_t = 0.0)]
    requests_per_second: f64,
    /// On SIGTERM / ctrl-c, seconds calls in progress may go on before work is cancelled and
    /// connections closed (the process exits within this + 2 s).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(0..=3600))]
    shutdown_grace_secs: u64,
    /// TLS certificate chain (PEM); needs --tls-key.
    #[arg(long, requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// TLS private key (PEM); needs --tls-cert.
    #[arg(long, requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// Require client certificates issued by these CAs (PEM): mutual TLS. Needs --tls-cert.
    #[arg(long, requires = "tls_cert")]
    tls_client_ca: Option<PathBuf>,
    /// Bearer tokens (YAML list of {name, token_sha256 | token, quotas, requests_per_second,
    /// burst}): every Environment call must carry `authorization: Bearer <token>`.
    #[arg(long)]
    tokens: Option<PathBuf>,
    /// Allow a non-loopback --addr without TLS and tokens (unsafe: anyone who can reach the
    /// port can run work on it and read traffic).
    #[arg(long)]
    insecure_public: bool,
    /// Most episodes one client (a token, or an anonymous connection) may have open at once.
    #[arg(long, default_value_t = DEFAULT_MAX_EPISODES_PER_CLIENT as u64,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_episodes_per_client: u64,
    /// Most Evaluate calls one client may run at once.
    #[arg(long, default_value_t = DEFAULT_MAX_EVALUATIONS_PER_CLIENT as u64,
          value_parser = clap::value_parser!(u64).range(1..=1024))]
    max_evaluations_per_client: u64,
    /// Most bytes accounted to one client's open episodes.
    #[arg(long, default_value_t = DEFAULT_MAX_CLIENT_MEMORY_BYTES,
          value_parser = clap::value_parser!(u64).range(1024..))]
    max_client_memory_bytes: u64,
    /// Most bytes one episode may hold (state, transcript, history); a step beyond it closes
    /// the episode (RESOURCE_EXHAUSTED, pf1e-reason: memory).
    #[arg(long, default_value_t = DEFAULT_MAX_EPISODE_MEMORY_BYTES,
          value_parser = clap::value_parser!(u64).range(1024..))]
    max_episode_memory_bytes: u64,
    /// Most turns one call may run for one episode (Reset, Step, each batch or stream item);
    /// beyond, the call fails (RESOURCE_EXHAUSTED, pf1e-reason: work_budget) and the episode
    /// is closed.
    #[arg(long, default_value_t = DEFAULT_MAX_TURNS_PER_CALL,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_turns_per_call: u64,
    /// Longest any call may work, in seconds, whatever its own deadline (0 = unbounded).
    #[arg(long, default_value_t = DEFAULT_MAX_CALL_DURATION.as_secs(),
          value_parser = clap::value_parser!(u64).range(0..=86_400))]
    max_call_secs: u64,
    /// Largest snapshot Restore accepts, in bytes.
    #[arg(long, default_value_t = DEFAULT_MAX_SNAPSHOT_BYTES as u64,
          value_parser = clap::value_parser!(u64).range(1024..=(1u64 << 31)))]
    max_snapshot_bytes: u64,
    /// File holding the key of the snapshots' HMAC-SHA256 (at least 32 bytes; servers sharing
    /// it restore each other's snapshots). Default: a random key per server instance.
    #[arg(long)]
    snapshot_key_file: Option<PathBuf>,
    /// Most Session streams open at once on the server (each buffers at most 1 MiB of replies
    /// its client has not read).
    #[arg(long, default_value_t = DEFAULT_MAX_STREAMS as u64,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_streams: u64,
    /// Most Session streams one client may have open at once.
    #[arg(long, default_value_t = DEFAULT_MAX_STREAMS_PER_CLIENT as u64,
          value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    max_streams_per_client: u64,
    /// Most engine jobs (a call's engine work) running at once, server-wide (default: twice
    /// the cores, at least 4); later ones wait for a slot until their deadline.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=4096))]
    max_engine_jobs: Option<u64>,
    /// Most engine jobs of one client running at once (default: half of --max-engine-jobs,
    /// rounded up); its later ones wait, another client's do not.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=4096))]
    max_engine_jobs_per_client: Option<u64>,
    /// Longest an Evaluate call may run, in seconds, whatever its own deadline (0 = no cap).
    #[arg(long, default_value_t = DEFAULT_MAX_EVALUATION_DURATION.as_secs())]
    max_evaluation_secs: u64,
    /// Largest round cap of an Evaluate's combats (beyond: INVALID_ARGUMENT naming
    /// `spec.round_cap`).
    #[arg(long, default_value_t = DEFAULT_MAX_EVALUATION_ROUNDS,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    max_evaluation_rounds: u32,
    /// Most connections open at once from one IP address (0 = no cap). Without --tokens a
    /// client is one connection, so this caps what one address may hold (this many times the
    /// per-client quotas).
    #[arg(long, default_value_t = 0)]
    max_connections_per_address: u64,
}

/// The snapshot key in `path`: its bytes (a trailing newline dropped), at least 32 of them, at
/// most 4 KiB read.
fn read_key(path: &std::path::Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let name = path.display();
    let mut key = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(4097).read_to_end(&mut key))
        .map_err(|e| format!("--snapshot-key-file {name}: {e}"))?;
    if key.len() > 4096 {
        return Err(format!("--snapshot-key-file {name}: over 4096 bytes"));
    }
    while key.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
        key.pop();
    }
    if key.len() < 32 {
        return Err(format!(
            "--snapshot-key-file {name}: {} bytes, need at least 32 (e.g. `head -c 32 /dev/urandom | base64 > FILE`)",
            key.len()
        ));
    }
    Ok(key)
}

/// Print `pf1e-env-server: {msg}` and exit with status 2 (bad arguments).
fn usage_error(msg: &str) -> std::process::ExitCode {
    eprintln!("pf1e-env-server: {msg}");
    std::process::ExitCode::from(2)
}

async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for ctrl-c");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("shutting down");
}

fn main() -> std::process::ExitCode {
    let args = Args::parse();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("pf1e-env-server: cannot start the runtime: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    let code = rt.block_on(run(args));
    // Engine work still on the blocking pool after the forced close must not hold the exit.
    rt.shutdown_timeout(Duration::from_millis(200));
    code
}

async fn run(args: Args) -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();

    let data_dir = args
        .data_dir
        .or_else(|| std::env::var_os("PF1E_DATA_DIR").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("data"));
    if !data_dir.is_dir() {
        tracing::warn!(data_dir = %data_dir.display(), "data directory not found: named scenarios will be unknown");
    }
    let mut config = ServiceConfig::new(data_dir.clone());
    config.max_episodes = usize::try_from(args.max_episodes).unwrap_or(usize::MAX);
    config.idle_timeout =
        (args.idle_timeout_secs > 0).then(|| Duration::from_secs(args.idle_timeout_secs));
    config.max_message_bytes = usize::try_from(args.max_message_bytes).unwrap_or(usize::MAX);
    config.max_batch_items = usize::try_from(args.max_batch_items).unwrap_or(usize::MAX);
    config.max_evaluations = usize::try_from(args.max_evaluations).unwrap_or(usize::MAX);
    config.client_quotas = Quotas {
        max_episodes: usize::try_from(args.max_episodes_per_client).unwrap_or(usize::MAX),
        max_evaluations: usize::try_from(args.max_evaluations_per_client).unwrap_or(usize::MAX),
        max_memory_bytes: args.max_client_memory_bytes,
    };
    config.max_episode_memory_bytes = args.max_episode_memory_bytes;
    config.max_turns_per_call = args.max_turns_per_call;
    config.max_call_duration =
        (args.max_call_secs > 0).then(|| Duration::from_secs(args.max_call_secs));
    config.max_snapshot_bytes = usize::try_from(args.max_snapshot_bytes).unwrap_or(usize::MAX);
    config.max_streams = usize::try_from(args.max_streams).unwrap_or(usize::MAX);
    config.max_streams_per_client =
        usize::try_from(args.max_streams_per_client).unwrap_or(usize::MAX);
    config.max_evaluation_duration =
        (args.max_evaluation_secs > 0).then(|| Duration::from_secs(args.max_evaluation_secs));
    config.max_evaluation_rounds = args.max_evaluation_rounds;
    if let Some(n) = args.max_engine_jobs {
        config.max_engine_jobs = n as usize;
        config.max_engine_jobs_per_client = config.max_engine_jobs.div_ceil(2);
    }
    if let Some(n) = args.max_engine_jobs_per_client {
        config.max_engine_jobs_per_client = (n as usize).min(config.max_engine_jobs);
    }
    if let Some(path) = &args.snapshot_key_file {
        match read_key(path) {
            Ok(k) => config.snapshot_key = Some(k),
            Err(e) => return usage_error(&e),
        }
    }

    let mut tc = TransportConfig::new(config.idle_timeout);
    tc.max_connections = usize::try_from(args.max_connections).unwrap_or(usize::MAX);
    tc.max_connections_per_address =
        usize::try_from(args.max_connections_per_address).unwrap_or(usize::MAX);
    if let Some(s) = args.connection_idle_secs {
        tc.connection_idle = (s > 0).then(|| Duration::from_secs(s));
    }
    tc.max_streams_per_connection =
        u32::try_from(args.max_streams_per_connection).unwrap_or(u32::MAX);
    if !args.requests_per_second.is_finite() || args.requests_per_second < 0.0 {
        return usage_error("--requests-per-second: must be a number >= 0");
    }
    tc.anonymous_requests_per_second = args.requests_per_second;
    tc.shutdown_grace = Duration::from_secs(args.shutdown_grace_secs);
    if let (Some(cert), Some(key)) = (&args.tls_cert, &args.tls_key) {
        match transport::tls::server_config_from_files(cert, key, args.tls_client_ca.as_deref()) {
            Ok(c) => tc.tls = Some(c),
            Err(e) => return usage_error(&format!("TLS: {e}")),
        }
    }
    if let Some(path) = &args.tokens {
        match TokenTable::load(path, &config.client_quotas) {
            Ok(t) => tc.tokens = Some(std::sync::Arc::new(t)),
            Err(e) => return usage_error(&e),
        }
    }
    if !args.addr.ip().is_loopback() {
        let secured = tc.tls.is_some() && tc.tokens.is_some();
        if !secured && !args.insecure_public {
            let missing = match (tc.tls.is_some(), tc.tokens.is_some()) {
                (false, false) => "--tls-cert/--tls-key and --tokens",
                (false, true) => "--tls-cert/--tls-key",
                _ => "--tokens",
            };
            return usage_error(&format!(
                "refusing to listen on the non-loopback address {}: without TLS and bearer tokens anyone who can reach it can run work and read or take over episodes; add {missing} (or --insecure-public to accept the risk, e.g. inside a private network)",
                args.addr
            ));
        }
        if !secured {
            tracing::warn!(addr = %args.addr, tls = tc.tls.is_some(), tokens = tc.tokens.is_some(),
                "--insecure-public: listening on a non-loopback address without TLS and tokens; anyone who can reach it can run work, and traffic can be read and altered");
        }
    }

    let listener = match tokio::net::TcpListener::bind(args.addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("pf1e-env-server: cannot listen on {}: {e}", args.addr);
            return std::process::ExitCode::from(1);
        }
    };
    let bound = match listener.local_addr() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("pf1e-env-server: cannot read the bound address: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    tracing::info!(addr = %bound, data_dir = %data_dir.display(), "pf1e-env-server starting");
    eprintln!(
        "listening on {bound} (max_episodes={}, idle_timeout_secs={}, max_message_bytes={}, max_batch_items={}, max_evaluations={}, max_connections={}, tls={}, mtls={}, tokens={})",
        config.max_episodes,
        args.idle_timeout_secs,
        config.max_message_bytes,
        config.max_batch_items,
        config.max_evaluations,
        tc.max_connections,
        tc.tls.is_some(),
        args.tls_client_ca.is_some(),
        tc.tokens.as_ref().map_or(0, |t| t.len()),
    );

    match serve_with(listener, config, tc, shutdown_signal()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pf1e-env-server: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
