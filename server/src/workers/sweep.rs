//! Housekeeping: expired browser sessions, closed surveys' grace holds past their period
//! idle rate-limit keys, stored idempotent answers past their 24 hours and mail past its
//! 30 days.

use crate::session_store::DbSessionStore;
use crate::state::AppState;

pub async fn run_once(state: &AppState) -> anyhow::Result<()> {
    let removed = DbSessionStore::new(state.ctx.db.clone())
        .delete_expired(state.ctx.now())
        .await?;
    if removed > 0 {
        tracing::info!(removed, "expired browser sessions deleted");
    }
    let released = app::domain::surveys::grace::release_expired(&state.ctx).await?;
    if released > 0 {
        tracing::info!(released, "closed surveys' grace holds released");
    }
    let forgotten = app::domain::idempotency::stored::sweep(&state.ctx).await?;
    if forgotten > 0 {
        tracing::info!(forgotten, "stored idempotent answers past 24 hours deleted");
    }
    let old_mail = app::domain::mail::outbox::sweep(&state.ctx).await?;
    if old_mail > 0 {
        tracing::info!(old_mail, "mail older than 30 days deleted");
    }
    state.ctx.limits.sweep();
    Ok(())
}
