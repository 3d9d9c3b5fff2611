//! The settler: settles conversion reports queued in the inbox during bursts
//! (`app::domain::conversions::inbox`), oldest first, as soon as they are queued and on a
//! one-second timer (reports queued by another process or before a restart).

use std::time::Duration;

use app::domain::conversions::inbox;

use crate::state::AppState;

/// Runs forever; while it runs on PostgreSQL, bursts of reports are queued instead of
/// settled inline. SQLite has one writer, so a queue only moves the wait for its write lock
/// (measured: no gain); there every report settles inline and the loop only settles rows
/// already queued.
pub async fn run(state: AppState) {
    let ctx = &state.ctx;
    if ctx.db.get_database_backend() == sea_orm::DbBackend::Postgres {
        ctx.inbox.settler_started();
    }
    loop {
        match inbox::settle_queued(ctx).await {
            // More may wait: take the next batch at once.
            Ok(n) if n > 0 => {}
            Ok(_) => {
                tokio::select! {
                    () = ctx.inbox.queued() => {}
                    () = tokio::time::sleep(Duration::from_secs(1)) => {}
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "settling queued conversion reports failed; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// Settles everything queued (tests); returns how many reports it took.
pub async fn run_once(state: &AppState) -> anyhow::Result<usize> {
    let mut total = 0;
    loop {
        match inbox::settle_queued(&state.ctx).await? {
            0 => return Ok(total),
            n => total += n,
        }
    }
}
