//! Carries announcements between processes on one database.
//!
//! - **Publishing.** Announcements wait up to [`Timing::coalesce`] (50 ms) so a burst (a settlement run, a
//!   bulk edit) leaves as one message: on PostgreSQL `SELECT pg_notify('cache_changes', …)`
//!   with the changes and this process's origin, on SQLite one increment of the version row
//!   `cache_changes`.
//! - **Hearing.** On PostgreSQL a `LISTEN cache_changes` on a connection of its own (not
//!   taken from the request pool); each change from another origin is applied as it
//!   arrives. The same connection listens on `callback_deliveries_due` and wakes this
//!   process's reward-callback worker when another process settled a reward. A lost connection is re-established, and then every cache is dropped (what was
//!   sent meanwhile is lost). On SQLite the version row is read every [`POLL`]; a step
//!   larger than this process's own increments drops every cache (the row says that
//!   something changed, not what).
//!
//! - **Health.** A LISTEN connection can go half-open (a firewall or a failover drops it
//!   without a word): nothing arrives and nothing says so. After [`Timing::probe_after`] (30 s) without a
//!   notification the listener sends itself an empty one on its own connection; when it does
//!   not come back within [`TIMEOUT`] the connection is dropped, opened again and every cache
//!   dropped, as after any lost connection.
//! - **Shutdown.** [`Changes::flush`](super::Changes::flush) waits for announcements still
//!   gathering before the process stops.
//!
//! Bound: coalescing (50 ms) plus delivery (milliseconds) on PostgreSQL; plus the poll
//! (1 s) on SQLite. Under 2 s on both. A lost announcement is bounded by the caches' own
//! time limits (`domain::changes` module docs).

use std::sync::atomic::Ordering;
use std::time::Duration;

use sea_orm::sqlx::postgres::{PgListener, PgPoolOptions};
use sea_orm::{ConnectionTrait, DbBackend, DbErr, Statement};
use tokio::sync::mpsc;

use super::{Change, apply};
use crate::domain::Ctx;

/// The PostgreSQL notification channel.
pub const CHANNEL: &str = "cache_changes";
/// The PostgreSQL channel on which a process announces due reward callbacks to the others
/// (`callback_delivery::announce`); the listener here wakes this process's delivery worker.
/// It lives with the listener, the lower room, so `changes` never imports a higher one.
pub const DUE_CHANNEL: &str = "callback_deliveries_due";
/// How often SQLite's version row is read.
pub const POLL: Duration = Duration::from_secs(1);
/// Every database call here gives up after this long and is retried.
const TIMEOUT: Duration = Duration::from_secs(5);

/// The publisher's and the listener's waits (server settings `--announce-coalesce-ms` and
/// `--listen-probe-seconds`).
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    /// How long announcements gather before they are sent together.
    pub coalesce: Duration,
    /// How long the listener waits for a notification before it checks its connection.
    pub probe_after: Duration,
}

impl Timing {
    pub fn new(coalesce_ms: u64, probe_after_seconds: u64) -> Self {
        Timing {
            coalesce: Duration::from_millis(coalesce_ms),
            probe_after: Duration::from_secs(probe_after_seconds),
        }
    }
}

impl Default for Timing {
    fn default() -> Self {
        Timing::new(50, 30)
    }
}
/// PostgreSQL takes payloads under 8,000 bytes.
const PAYLOAD_BYTES: usize = 7_000;

/// Publishes this process's announcements and applies other processes' until the process
/// stops. Started once per process (a second call returns at once).
pub async fn run(ctx: Ctx) {
    let incoming = ctx.changes.incoming.lock().ok().and_then(|mut g| g.take());
    let Some(incoming) = incoming else {
        return;
    };
    tokio::join!(publish(ctx.clone(), incoming), hear(ctx));
}

async fn publish(ctx: Ctx, mut incoming: mpsc::Receiver<Change>) {
    while let Some(first) = incoming.recv().await {
        tokio::time::sleep(ctx.changes.timing.coalesce).await;
        let mut batch = vec![first.encode()];
        while let Ok(next) = incoming.try_recv() {
            batch.push(next.encode());
        }
        let taken = batch.len() as u64;
        if ctx.changes.overflowed.swap(false, Ordering::SeqCst) {
            batch = vec![Change::Everything.encode()];
        }
        batch.sort_unstable();
        batch.dedup();
        match tokio::time::timeout(TIMEOUT, send(&ctx, &batch)).await {
            Ok(Ok(())) => {}
            // Other processes then rely on their caches' time limits (module docs).
            Ok(Err(e)) => tracing::warn!(error = %e, "announcing cache changes failed"),
            Err(_) => tracing::warn!("announcing cache changes timed out"),
        }
        ctx.changes.sent(taken);
    }
}

async fn send(ctx: &Ctx, batch: &[String]) -> Result<(), DbErr> {
    let backend = ctx.db.get_database_backend();
    if backend == DbBackend::Postgres {
        for payload in payloads(&ctx.changes.origin, batch) {
            ctx.db
                .execute_raw(Statement::from_sql_and_values(
                    backend,
                    "SELECT pg_notify($1, $2)",
                    [CHANNEL.into(), payload.into()],
                ))
                .await?;
        }
    } else {
        ctx.db
            .execute_raw(Statement::from_string(
                backend,
                "UPDATE cache_changes SET version = version + 1 WHERE id = 1",
            ))
            .await?;
        ctx.changes.own_steps.fetch_add(1, Ordering::SeqCst);
    }
    Ok(())
}

/// The batch as notification payloads, each under PostgreSQL's limit.
fn payloads(origin: &str, batch: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut part: Vec<&str> = Vec::new();
    let mut size = 0;
    for change in batch {
        let change = if change.len() > PAYLOAD_BYTES / 2 {
            "everything"
        } else {
            change.as_str()
        };
        if size + change.len() + 8 > PAYLOAD_BYTES && !part.is_empty() {
            out.push(serde_json::json!({"o": origin, "c": part}).to_string());
            part = Vec::new();
            size = 0;
        }
        size += change.len() + 8;
        part.push(change);
    }
    if !part.is_empty() {
        out.push(serde_json::json!({"o": origin, "c": part}).to_string());
    }
    out
}

/// Applies one payload from PostgreSQL; this process's own are skipped, and so are the
/// empty ones listeners send themselves to check their connection.
fn heard(ctx: &Ctx, payload: &str) {
    if payload.is_empty() {
        return;
    }
    let parsed: Option<(String, Vec<String>)> = serde_json::from_str::<serde_json::Value>(payload)
        .ok()
        .and_then(|v| {
            let origin = v.get("o")?.as_str()?.to_owned();
            let changes = v
                .get("c")?
                .as_array()?
                .iter()
                .filter_map(|c| c.as_str().map(str::to_owned))
                .collect();
            Some((origin, changes))
        });
    match parsed {
        Some((origin, _)) if origin == ctx.changes.origin => {}
        Some((_, changes)) => {
            for c in changes {
                apply(ctx, &Change::decode(&c));
                ctx.changes.heard.fetch_add(1, Ordering::Relaxed);
            }
        }
        None => {
            apply(ctx, &Change::Everything);
            ctx.changes.heard.fetch_add(1, Ordering::Relaxed);
        }
    }
}

async fn hear(ctx: Ctx) {
    if ctx.db.get_database_backend() == DbBackend::Postgres {
        listen(ctx).await;
    } else {
        poll(ctx).await;
    }
}

async fn listen(ctx: Ctx) {
    // A pool of one of its own: the listening connection is never one a request waits for.
    let options = ctx.db.get_postgres_connection_pool().connect_options();
    let mut connected_before = false;
    loop {
        let connected = tokio::time::timeout(TIMEOUT, async {
            let pool = PgPoolOptions::new()
                .max_connections(1)
                .acquire_timeout(TIMEOUT)
                .connect_with((*options).clone())
                .await?;
            let mut l = PgListener::connect_with(&pool).await?;
            l.listen_all([CHANNEL, DUE_CHANNEL]).await?;
            Ok::<_, sea_orm::sqlx::Error>(l)
        })
        .await;
        let mut listener = match connected {
            Ok(Ok(l)) => l,
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "listening for cache changes failed; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
            Err(_) => continue,
        };
        if connected_before {
            // Whatever was announced while the connection was down was missed.
            apply(&ctx, &Change::Everything);
        }
        ctx.deliveries.announce();
        connected_before = true;
        ctx.changes.listening.store(true, Ordering::Release);
        // Set while a probe is on its way: by when it must have come back.
        let mut probe_due: Option<tokio::time::Instant> = None;
        loop {
            let wait = probe_due.map_or(ctx.changes.timing.probe_after, |due| {
                due.saturating_duration_since(tokio::time::Instant::now())
            });
            let received = match tokio::time::timeout(wait, listener.try_recv()).await {
                Ok(r) => r,
                Err(_) if probe_due.is_some() => {
                    tracing::warn!(
                        "the cache change listener's probe did not come back; reconnecting"
                    );
                    break;
                }
                Err(_) => {
                    let probe = sea_orm::sqlx::query("SELECT pg_notify($1, '')")
                        .bind(CHANNEL)
                        .execute(&mut listener);
                    if !matches!(tokio::time::timeout(TIMEOUT, probe).await, Ok(Ok(_))) {
                        tracing::warn!(
                            "the cache change listener's connection failed a probe; reconnecting"
                        );
                        break;
                    }
                    probe_due = Some(tokio::time::Instant::now() + TIMEOUT);
                    continue;
                }
            };
            // Anything heard shows the connection works.
            probe_due = None;
            match received {
                Ok(Some(n)) if n.channel() == DUE_CHANNEL => ctx.deliveries.announce(),
                Ok(Some(n)) => heard(&ctx, n.payload()),
                // Lost and re-established by sqlx: announcements meanwhile were missed.
                Ok(None) => {
                    apply(&ctx, &Change::Everything);
                    ctx.deliveries.announce();
                }
                Err(e) => {
                    tracing::debug!(error = %e, "the cache change listener stopped; reconnecting");
                    break;
                }
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

async fn poll(ctx: Ctx) {
    ctx.changes.listening.store(true, Ordering::Release);
    let mut last: Option<(i64, u64)> = None;
    let mut tick = tokio::time::interval(POLL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        // Own steps are read first: a step of ours that lands in between looks foreign and
        // drops the caches once, which is safe.
        let own = ctx.changes.own_steps.load(Ordering::SeqCst);
        let read = tokio::time::timeout(TIMEOUT, version(&ctx)).await;
        let Ok(Ok(Some(version))) = read else {
            continue;
        };
        if let Some((last_version, last_own)) = last {
            let foreign = version - last_version - i64::try_from(own - last_own).unwrap_or(0);
            if foreign > 0 {
                apply(&ctx, &Change::Everything);
                ctx.changes.heard.fetch_add(1, Ordering::Relaxed);
            }
        }
        last = Some((version, own));
    }
}

async fn version(ctx: &Ctx) -> Result<Option<i64>, DbErr> {
    let row = ctx
        .db
        .query_one_raw(Statement::from_string(
            ctx.db.get_database_backend(),
            "SELECT version FROM cache_changes WHERE id = 1",
        ))
        .await?;
    Ok(row.and_then(|r| r.try_get::<i64>("", "version").ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_batches_split_under_the_payload_limit() {
        let batch: Vec<String> = (0..2_000).map(|i| format!("ban:pl_{i}|user-{i}")).collect();
        let parts = payloads("proc_1", &batch);
        assert!(parts.len() > 1);
        let mut seen = 0;
        for p in &parts {
            assert!(p.len() < 8_000, "{}", p.len());
            let v: serde_json::Value = serde_json::from_str(p).expect("json");
            assert_eq!(v["o"], "proc_1");
            seen += v["c"].as_array().map_or(0, Vec::len);
        }
        assert_eq!(seen, batch.len());
        let huge = vec!["ban:".to_owned() + &"x".repeat(9_000)];
        assert!(payloads("p", &huge)[0].contains("everything"));
    }
}
