//! `pf1e-env-server`: the gRPC environment server (`pf1e.env.v1.Environment`, plus
//! `grpc.health.v1` and server reflection).
//!
//! ```text
//! pf1e-env-server [--addr 127.0.0.1:50051] [--data-dir DIR] [--max-episodes N] [--idle-timeout-secs S]
//!                 [--max-message-bytes B] [--max-batch-items N] [--max-evaluations N]
//! ```
//! Prints `listening on ADDR (limits…)` to stderr once bound (`--addr 127.0.0.1:0` picks a
//! free port and prints it). Logs go to stderr, filtered by `RUST_LOG` (default `info`). Stops gracefully on
//! ctrl-c or SIGTERM. Exit status 2 for bad arguments (clap), 1 if the server cannot start.
use clap::Parser;
use pf1e_env_server::service::{
    serve, ServiceConfig, DEFAULT_MAX_BATCH_ITEMS, DEFAULT_MAX_EVALUATIONS,
    DEFAULT_MAX_MESSAGE_BYTES,
};
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

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args = Args::parse();
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
        "listening on {bound} (max_episodes={}, idle_timeout_secs={}, max_message_bytes={}, max_batch_items={}, max_evaluations={})",
        config.max_episodes,
        args.idle_timeout_secs,
        config.max_message_bytes,
        config.max_batch_items,
        config.max_evaluations
    );

    match serve(listener, config, shutdown_signal()).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pf1e-env-server: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
