//! Shared helpers of the gRPC integration tests: an in-process server on 127.0.0.1:0 with a
//! real tonic client, and request builders.
#![allow(dead_code)]

use pf1e_env_server::proto::environment_client::EnvironmentClient;
use pf1e_env_server::proto::{self, scenario::Source};
use pf1e_env_server::service::{serve, ServiceConfig};
use tonic::transport::Channel;

/// The `GetSpec` answer for the named bundled scenario (panics on an error: a test helper).
pub async fn spec_of(c: &mut EnvironmentClient<Channel>, scenario: &str) -> proto::Spec {
    c.get_spec(proto::GetSpecRequest {
        scenario: named(scenario),
    })
    .await
    .unwrap()
    .into_inner()
}

/// The bundled data directory.
pub const DATA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data");

/// A running server; it shuts down when `shutdown` is sent or dropped.
pub struct TestServer {
    pub client: EnvironmentClient<Channel>,
    pub channel: Channel,
    pub shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    pub done: tokio::task::JoinHandle<()>,
}

/// Start a server with `config` and connect a client (64 MiB message limits).
pub async fn start_with(config: ServiceConfig) -> TestServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let done = tokio::spawn(async move {
        serve(listener, config, async {
            let _ = rx.await;
        })
        .await
        .expect("server runs");
    });
    let channel = Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .expect("connect to the test server");
    TestServer {
        client: EnvironmentClient::new(channel.clone())
            .max_decoding_message_size(64 << 20)
            .max_encoding_message_size(64 << 20),
        channel,
        shutdown: Some(tx),
        done,
    }
}

/// Start a server on the bundled data with the default limits.
pub async fn start() -> TestServer {
    start_with(ServiceConfig::new(DATA_DIR)).await
}

/// A named scenario.
pub fn named(name: &str) -> Option<proto::Scenario> {
    Some(proto::Scenario {
        source: Some(Source::Named(name.to_string())),
    })
}

/// The sides played by the client.
pub fn controlled_sides(sides: &[&str]) -> Option<proto::Controlled> {
    Some(proto::Controlled {
        sides: sides.iter().map(|s| s.to_string()).collect(),
        combatant_ids: vec![],
    })
}

/// Reset a named scenario with `sides` controlled.
pub fn reset_req(scenario: &str, seed: u64, sides: &[&str]) -> proto::ResetRequest {
    proto::ResetRequest {
        scenario: named(scenario),
        seed,
        controlled: controlled_sides(sides),
        ..Default::default()
    }
}

/// A bundled data file's text.
pub fn read_data(rel: &str) -> String {
    std::fs::read_to_string(format!("{DATA_DIR}/{rel}")).unwrap()
}

/// Open episodes on the server (`Stats.live_episodes`).
pub async fn live(c: &mut EnvironmentClient<Channel>) -> u64 {
    c.stats(proto::StatsRequest {})
        .await
        .unwrap()
        .into_inner()
        .live_episodes
}

/// `r` failed with `code` and a message containing `needle`.
#[track_caller]
pub fn assert_status<T: std::fmt::Debug>(
    r: Result<T, tonic::Status>,
    code: tonic::Code,
    needle: &str,
) {
    match r {
        Ok(v) => panic!("expected {code:?} containing {needle:?}, got Ok({v:?})"),
        Err(s) => {
            assert_eq!(s.code(), code, "status {s:?}");
            assert!(
                s.message().contains(needle),
                "message {:?} should contain {needle:?}",
                s.message()
            );
        }
    }
}

/// A server started with [`start_transport`]: its address; it shuts down when `shutdown` is
/// sent or dropped.
pub struct TransportServer {
    pub addr: std::net::SocketAddr,
    pub shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    pub done: tokio::task::JoinHandle<()>,
}

/// Start `serve_with(config, transport)` on 127.0.0.1:0 (no client connected).
pub async fn start_transport(
    config: ServiceConfig,
    transport: pf1e_env_server::transport::TransportConfig,
) -> TransportServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let done = tokio::spawn(async move {
        pf1e_env_server::server::serve_with(listener, config, transport, async {
            let _ = rx.await;
        })
        .await
        .expect("server runs");
    });
    TransportServer {
        addr,
        shutdown: Some(tx),
        done,
    }
}

/// A plaintext channel (one HTTP/2 connection) to `addr`.
pub async fn connect_plain(addr: std::net::SocketAddr) -> Channel {
    Channel::from_shared(format!("http://{addr}"))
        .unwrap()
        .connect()
        .await
        .expect("connect to the test server")
}
