//! Housekeeping: expired browser sessions and idle rate-limit keys.

use crate::session_store::DbSessionStore;
use crate::state::AppState;

pub async fn run_once(state: &AppState) -> anyhow::Result<()> {
    let removed = DbSessionStore::new(state.ctx.db.clone())
        .delete_expired(state.ctx.now())
        .await?;
    if removed > 0 {
        tracing::info!(removed, "expired browser sessions deleted");
    }
    state.ctx.limits.sweep();
    Ok(())
}
