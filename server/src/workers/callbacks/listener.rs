//! Wakes this process's delivery loop when another process makes deliveries due: settlement
//! on PostgreSQL sends `NOTIFY callback_deliveries_due` inside its transaction, so the
//! notification arrives exactly when the deliveries become visible. A lost connection is
//! re-established (the loop's 100 ms poll covers the gap); SQLite has no such channel, and
//! there the poll is the bound for other processes' deliveries.

use std::time::Duration;

use app::domain::callback_delivery::DUE_CHANNEL;
use sea_orm::sqlx::postgres::PgListener;

use crate::state::AppState;

/// Listens until the process stops (PostgreSQL only; returns at once on SQLite).
pub async fn run(state: AppState) {
    if state.ctx.db.get_database_backend() != sea_orm::DbBackend::Postgres {
        std::future::pending::<()>().await;
    }
    let pool = state.ctx.db.get_postgres_connection_pool().clone();
    loop {
        let connected = tokio::time::timeout(Duration::from_secs(5), async {
            let mut l = PgListener::connect_with(&pool).await?;
            l.listen(DUE_CHANNEL).await?;
            Ok::<_, sea_orm::sqlx::Error>(l)
        })
        .await;
        let mut listener = match connected {
            Ok(Ok(l)) => l,
            Ok(Err(e)) => {
                tracing::debug!(error = %e, "listening for due reward callbacks failed; retrying");
                tokio::time::sleep(Duration::from_secs(2)).await;
                continue;
            }
            Err(_) => continue,
        };
        loop {
            match listener.try_recv().await {
                Ok(Some(_)) => state.ctx.deliveries.announce(),
                // The connection was lost and is re-established by the next call; anything
                // sent meanwhile was missed, so look once.
                Ok(None) => state.ctx.deliveries.announce(),
                Err(e) => {
                    tracing::debug!(error = %e, "the reward callback listener stopped; reconnecting");
                    break;
                }
            }
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}
