//! Serving: the TCP listener, the gRPC server around [`EnvironmentService`] (with
//! `grpc.health.v1` and server reflection), the idle-episode reaper and graceful shutdown.
use crate::proto;
use crate::service::{EnvironmentService, ServiceConfig};
use std::future::Future;
use std::time::Duration;

/// Serve the Environment service, `grpc.health.v1` and server reflection on `listener` until
/// `shutdown` resolves (then in-flight requests finish, open Session streams end after
/// their current item, and running Evaluate calls stop within a combat and end with
/// UNAVAILABLE). Also closes idle episodes once a minute when `config.idle_timeout` is
/// set. The Environment service's decoding and encoding limits are
/// `config.max_message_bytes`.
///
/// # Errors
/// A transport error of the server (reflection setup failures are reported as such too).
pub async fn serve(
    listener: tokio::net::TcpListener,
    config: ServiceConfig,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let svc = EnvironmentService::new(config);
    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    health_reporter
        .set_serving::<proto::environment_server::EnvironmentServer<EnvironmentService>>()
        .await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;

    let reaper = svc.config().idle_timeout.map(|_| {
        let svc = svc.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(60));
            loop {
                tick.tick().await;
                let n = svc.reap_idle();
                if n > 0 {
                    tracing::info!(closed = n, "closed idle episodes");
                }
            }
        })
    });

    let max = svc.config().max_message_bytes;
    let stop = svc.clone();
    let shutdown = async move {
        shutdown.await;
        // Session streams end after their current item, so the graceful shutdown completes.
        stop.begin_shutdown();
    };
    let result = tonic::transport::Server::builder()
        .add_service(health_service)
        .add_service(reflection)
        .add_service(
            proto::environment_server::EnvironmentServer::new(svc)
                .max_decoding_message_size(max)
                .max_encoding_message_size(max),
        )
        .serve_with_incoming_shutdown(
            tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true)),
            shutdown,
        )
        .await;
    if let Some(r) = reaper {
        r.abort();
    }
    result.map_err(Into::into)
}
