//! The HTTP server loop. `axum::serve` has no header-read timeout, no connection cap and no
//! shutdown deadline, so a few hundred clients that trickle header lines (or declare a body
//! they never send) could hold every connection. This loop serves the same router with:
//!
//! - a header-read timeout (10 s): a client that has not sent its whole request head by
//!   then is disconnected;
//! - a cap on open connections (`APP_MAX_CONNECTIONS`): at the cap, accepting pauses (the
//!   kernel's backlog holds newcomers) until a connection closes;
//! - graceful shutdown with a deadline: on SIGTERM it stops accepting, lets in-flight
//!   requests finish, and closes what is left after `APP_SHUTDOWN_GRACE_SECONDS`.
//!
//! Body-read and whole-request timeouts per route class are a layer of the router
//! (`outer_layer.rs`), so tests that call the router see them too.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tower::ServiceExt;

/// Limits of the server loop.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub header_read_timeout: Duration,
    pub max_connections: usize,
    pub shutdown_grace: Duration,
}

/// Serves `router` on `listener` until `shutdown` completes, then drains within the grace.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(Some(Duration::from_secs(30)));
    let builder = Arc::new(builder);
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            p = slots.clone().acquire_owned() => match p {
                Ok(p) => p,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: wait a moment, do not spin.
                    tracing::warn!(error = %e, "accepting a connection failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
            let mut req = req.map(Body::new);
            req.extensions_mut().insert(ConnectInfo::<SocketAddr>(peer));
            router.clone().oneshot(req)
        });
        let builder = builder.clone();
        let conn = builder
            .serve_connection_with_upgrades(TokioIo::new(stream), service)
            .into_owned();
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    tracing::info!("shutdown requested; finishing in-flight requests");
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(limits.shutdown_grace) => {
            tracing::warn!(grace = ?limits.shutdown_grace, "connections still open at the shutdown deadline; closing them");
        }
    }
}
