//! Serving: the gRPC server around [`EnvironmentService`] (with `grpc.health.v1` and server
//! reflection v1 and v1alpha) over the transport of [`crate::transport`] (own accept loop,
//! connection limit and idle timeout, optional TLS and bearer tokens), the idle-episode
//! reaper, and bounded graceful shutdown.
use crate::proto;
use crate::service::{EnvironmentService, ServiceConfig};
use crate::transport::{self, auth::Authenticator, TransportConfig};
use std::future::Future;
use std::time::Duration;

/// [`serve_with`] with the default transport ([`TransportConfig::new`] of
/// `config.idle_timeout`: plaintext, anonymous clients).
///
/// # Errors
/// See [`serve_with`].
pub async fn serve(
    listener: tokio::net::TcpListener,
    config: ServiceConfig,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let transport = TransportConfig::new(config.idle_timeout);
    serve_with(listener, config, transport, shutdown).await
}

/// Tick of the idle-episode reaper: a quarter of the timeout, at most 5 s (so an episode is
/// closed within `idle_timeout + tick`).
pub fn reaper_tick(idle_timeout: Duration) -> Duration {
    (idle_timeout / 4)
        .min(Duration::from_secs(5))
        .max(Duration::from_millis(10))
}

/// Serve the Environment service (behind the authentication interceptor), `grpc.health.v1`
/// and server reflection (v1 and v1alpha) on `listener` until `shutdown` resolves. Then:
/// Session streams end with UNAVAILABLE and no new connection is accepted
/// (`begin_shutdown`); calls in progress may finish for `transport.shutdown_grace`; then
/// engine work is cancelled and every connection closed, and this returns at most
/// [`transport::FORCED_CLOSE_WAIT`] later whatever clients do. Also closes idle episodes
/// (every [`reaper_tick`]) when `config.idle_timeout` is set. The Environment service's
/// decoding and encoding limits are `config.max_message_bytes`.
///
/// # Errors
/// A transport error of the server (reflection setup failures are reported as such too).
pub async fn serve_with(
    listener: tokio::net::TcpListener,
    config: ServiceConfig,
    transport: TransportConfig,
    shutdown: impl Future<Output = ()> + Send,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let svc = EnvironmentService::new(config);
    let (health_reporter, health_service) = tonic_health::server::health_reporter();
    health_reporter
        .set_serving::<proto::environment_server::EnvironmentServer<EnvironmentService>>()
        .await;
    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;

    let reaper = svc.config().idle_timeout.map(|ttl| {
        let svc = svc.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(reaper_tick(ttl));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
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
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let (kill_tx, kill_rx) = tokio::sync::watch::channel(false);
    let grace = transport.shutdown_grace;
    let auth = Authenticator::new(transport.tokens.clone(), svc.clone());
    let router = tonic::transport::Server::builder()
        .http2_keepalive_interval(Some(transport.http2_keepalive_interval))
        .http2_keepalive_timeout(Some(transport.http2_keepalive_timeout))
        .max_concurrent_streams(Some(transport.max_streams_per_connection))
        .http2_max_header_list_size(Some(transport.max_header_list_bytes))
        .max_frame_size(Some(transport.max_frame_bytes))
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(tonic::service::interceptor::InterceptedService::new(
            proto::environment_server::EnvironmentServer::new(svc.clone())
                .max_decoding_message_size(max)
                .max_encoding_message_size(max),
            auth,
        ));

    let accepting = transport::Accepting::new(svc.clone(), transport, kill_rx);
    let (tx, rx) = tokio::sync::mpsc::channel(64);
    let accept_task = tokio::spawn(transport::accept_loop(
        listener,
        accepting,
        tx,
        stop_rx.clone(),
    ));
    let mut tonic_stop = stop_rx;
    let serving = router.serve_with_incoming_shutdown(
        tokio_stream::wrappers::ReceiverStream::new(rx),
        async move {
            let _ = tonic_stop.wait_for(|s| *s).await;
        },
    );
    tokio::pin!(serving);

    let result = tokio::select! {
        r = &mut serving => Some(r),
        () = shutdown => None,
    };
    let result = match result {
        Some(r) => r.map_err(Into::into),
        None => {
            // Session streams end, Evaluate calls stop, no new connections.
            svc.begin_shutdown();
            stop_tx.send_replace(true);
            match tokio::time::timeout(grace, &mut serving).await {
                Ok(r) => r.map_err(Into::into),
                Err(_) => {
                    tracing::warn!(
                        grace_secs = grace.as_secs_f64(),
                        "shutdown grace period over: cancelling work and closing connections"
                    );
                    svc.cancel_work();
                    kill_tx.send_replace(true);
                    match tokio::time::timeout(transport::FORCED_CLOSE_WAIT, &mut serving).await {
                        Ok(r) => r.map_err(Into::into),
                        Err(_) => {
                            tracing::warn!(
                                "connections still open after being closed; returning anyway"
                            );
                            Ok(())
                        }
                    }
                }
            }
        }
    };
    accept_task.abort();
    if let Some(r) = reaper {
        r.abort();
    }
    result
}
