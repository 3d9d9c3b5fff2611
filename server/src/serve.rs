//! The HTTP server loop. `axum::serve` has no header-read timeout, no connection cap and no
//! shutdown deadline, so a few hundred clients that trickle header lines (or declare a body
//! they never send) could hold every connection. This loop serves the same router with:
//!
//! - a first-byte wait: a connection is accepted into one of the *waiting places* (four
//!   times the cap, at least 64) and takes a serving slot only once it has sent a byte; one
//!   that sends nothing within the header timeout (`APP_HEADER_TIMEOUT_SECONDS`, 10 s) is
//!   closed, so silent sockets neither hold serving slots nor keep `/healthz` waiting;
//! - a header-read timeout (the same 10 s) once the protocol is known;
//! - an idle limit (`APP_IDLE_TIMEOUT_SECONDS`, 60 s): a connection, HTTP/1.1 keep-alive or
//!   HTTP/2, with no request in flight for that long is closed gracefully (HTTP/2 gets a
//!   GOAWAY), so idle clients cannot hold the cap;
//! - a cap on serving connections (`APP_MAX_CONNECTIONS`): at the cap, a connection that
//!   has sent its first byte waits for a slot (within the header timeout), and once the
//!   waiting places are full too, accepting pauses (the kernel's backlog holds newcomers);
//! - graceful shutdown with a deadline: on SIGTERM it stops accepting, lets in-flight
//!   requests finish, and closes what is left after `APP_SHUTDOWN_GRACE_SECONDS`.
//!
//! Body-read and whole-request timeouts per route class are a layer of the router
//! (`outer_layer.rs`), so tests that call the router see them too.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::time::Instant;
use tower::ServiceExt;

/// Limits of the server loop.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub header_read_timeout: Duration,
    pub idle_timeout: Duration,
    pub max_connections: usize,
    pub shutdown_grace: Duration,
}

impl Limits {
    /// Connections that have not sent a byte yet, at most.
    fn waiting_places(&self) -> usize {
        (self.max_connections.max(1) * 4).max(64)
    }
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
        .keep_alive_interval(Some(Duration::from_secs(30)))
        .keep_alive_timeout(Duration::from_secs(20));
    let builder = Arc::new(builder);
    let serving = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let waiting = Arc::new(Semaphore::new(limits.waiting_places()));
    let (stop, stopped) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let place = tokio::select! {
            p = waiting.clone().acquire_owned() => match p {
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
        let connection = Connection {
            router: router.clone(),
            builder: builder.clone(),
            serving: serving.clone(),
            stopped: stopped.clone(),
            limits,
            peer,
        };
        tokio::spawn(connection.run(stream, place));
    }
    drop(listener);
    tracing::info!("shutdown requested; finishing in-flight requests");
    let _ = stop.send(true);
    let all = u32::try_from(limits.max_connections.max(1)).unwrap_or(u32::MAX);
    match tokio::time::timeout(limits.shutdown_grace, serving.acquire_many(all)).await {
        Ok(_) => {}
        Err(_) => {
            tracing::warn!(grace = ?limits.shutdown_grace, "connections still open at the shutdown deadline; closing them");
        }
    }
}

/// One accepted connection and what it needs to be served.
struct Connection {
    router: Router,
    builder: Arc<Builder<TokioExecutor>>,
    serving: Arc<Semaphore>,
    stopped: watch::Receiver<bool>,
    limits: Limits,
    peer: SocketAddr,
}

impl Connection {
    /// Waits for the first byte (holding a waiting place), then for a serving slot, then
    /// serves until the client leaves, the connection idles out or the server stops.
    async fn run(mut self, stream: TcpStream, place: OwnedSemaphorePermit) {
        let deadline = Instant::now() + self.limits.header_read_timeout;
        let mut byte = [0u8; 1];
        let spoke = tokio::select! {
            r = tokio::time::timeout_at(deadline, stream.peek(&mut byte)) => matches!(r, Ok(Ok(n)) if n > 0),
            _ = self.stopped.wait_for(|s| *s) => false,
        };
        if !spoke {
            return;
        }
        let slot = tokio::select! {
            r = tokio::time::timeout_at(deadline, self.serving.clone().acquire_owned()) => match r {
                Ok(Ok(slot)) => slot,
                _ => return,
            },
            _ = self.stopped.wait_for(|s| *s) => return,
        };
        drop(place);
        self.serve(stream).await;
        drop(slot);
    }

    async fn serve(mut self, stream: TcpStream) {
        let activity = Arc::new(Activity::default());
        let (router, peer, seen) = (self.router.clone(), self.peer, activity.clone());
        let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
            let mut req = req.map(Body::new);
            req.extensions_mut().insert(ConnectInfo::<SocketAddr>(peer));
            let busy = seen.begin();
            let call = router.clone().oneshot(req);
            async move {
                let res = call.await;
                drop(busy);
                res
            }
        });
        let conn = self
            .builder
            .serve_connection_with_upgrades(TokioIo::new(stream), service);
        tokio::pin!(conn);
        let idle = self.limits.idle_timeout;
        let mut tick = tokio::time::interval((idle / 4).max(Duration::from_millis(100)));
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut closing = false;
        loop {
            tokio::select! {
                r = conn.as_mut() => {
                    if let Err(e) = r {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                    return;
                }
                _ = tick.tick(), if !closing => {
                    if activity.idle_for() >= idle {
                        closing = true;
                        conn.as_mut().graceful_shutdown();
                    }
                }
                _ = self.stopped.wait_for(|s| *s), if !closing => {
                    closing = true;
                    conn.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

/// What a connection is doing: requests in flight and when the last one began or ended.
struct Activity {
    since: Instant,
    in_flight: AtomicUsize,
    /// Milliseconds after `since`.
    last: AtomicU64,
}

impl Default for Activity {
    fn default() -> Self {
        Self {
            since: Instant::now(),
            in_flight: AtomicUsize::new(0),
            last: AtomicU64::new(0),
        }
    }
}

impl Activity {
    fn touch(&self) {
        let ms = u64::try_from(self.since.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last.store(ms, Ordering::Relaxed);
    }

    fn begin(self: &Arc<Self>) -> Busy {
        self.in_flight.fetch_add(1, Ordering::AcqRel);
        self.touch();
        Busy(self.clone())
    }

    /// How long nothing has been in flight (zero while a request is).
    fn idle_for(&self) -> Duration {
        if self.in_flight.load(Ordering::Acquire) > 0 {
            return Duration::ZERO;
        }
        let last = Duration::from_millis(self.last.load(Ordering::Relaxed));
        self.since.elapsed().saturating_sub(last)
    }
}

/// A request in flight; its end counts as activity.
struct Busy(Arc<Activity>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.touch();
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}
