//! Background work that runs beside the HTTP server: settlement of queued conversion
//! reports, reward-callback delivery, the release of publisher earnings past their hold,
//! bulk reconciliations, monthly payout runs, fraud review (pixel review windows, placement pauses), mail and
//! housekeeping. Each worker exposes `run_once` so
//! tests drain it without sleeping, and each loop is supervised: a panic is logged and the
//! loop restarted.

pub mod callbacks;
pub mod mail;
pub mod settler;
pub mod sweep;

use std::future::Future;
use std::time::Duration;

use tokio::task::JoinHandle;

use crate::state::AppState;

/// Runs `make()` again whenever it panics or returns, after a short pause.
fn supervise<F, Fut>(name: &'static str, make: F) -> JoinHandle<()>
where
    F: Fn() -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    tokio::spawn(async move {
        loop {
            match tokio::spawn(make()).await {
                Err(e) if e.is_panic() => {
                    tracing::error!(worker = name, "worker panicked; restarting")
                }
                _ => tracing::warn!(worker = name, "worker stopped; restarting"),
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    })
}

/// Starts every worker loop; aborting the handles stops them.
pub fn spawn(state: AppState) -> Vec<JoinHandle<()>> {
    let sweeper = state.clone();
    let settler = state.clone();
    let releaser = state.clone();
    let reconciler = state.clone();
    let screener = state.clone();
    let payer = state.clone();
    let mailer = state.clone();
    let deliverer = state;
    vec![
        supervise("sweep", move || {
            let state = sweeper.clone();
            async move {
                let mut tick = tokio::time::interval(Duration::from_secs(300));
                loop {
                    tick.tick().await;
                    if let Err(e) = sweep::run_once(&state).await {
                        tracing::warn!(error = %e, "sweep failed");
                    }
                }
            }
        }),
        supervise("callbacks", move || {
            callbacks::dispatcher::run(deliverer.clone())
        }),
        supervise("settler", move || settler::run(settler.clone())),
        supervise("mail", move || mail::run(mailer.clone())),
        supervise("earnings", move || {
            let state = releaser.clone();
            async move {
                // Holds end on day boundaries of their own; a minute is precise enough.
                let mut tick = tokio::time::interval(Duration::from_secs(60));
                loop {
                    tick.tick().await;
                    match app::domain::earnings::release::run_once(&state.ctx).await {
                        Ok(0) => {}
                        Ok(released) => tracing::info!(released, "earnings released from the hold"),
                        Err(e) => tracing::warn!(error = %e, "earnings release failed"),
                    }
                    match app::domain::earnings::reserve::release_due(&state.ctx).await {
                        Ok(0) => {}
                        Ok(released) => tracing::info!(released, "publisher reserves released"),
                        Err(e) => tracing::warn!(error = %e, "reserve release failed"),
                    }
                }
            }
        }),
        supervise("fraud", move || {
            let state = screener.clone();
            async move {
                // Review windows end and placements are judged within a minute.
                let mut tick = tokio::time::interval(Duration::from_secs(60));
                loop {
                    tick.tick().await;
                    if let Err(e) = fraud_once(&state).await {
                        tracing::warn!(error = %e, "fraud review round failed");
                    }
                }
            }
        }),
        supervise("payout-runs", move || {
            let state = payer.clone();
            async move {
                // A queued monthly run starts within two seconds; one a stopped process left
                // running is taken over when its lease runs out (payouts::runs).
                let mut tick = tokio::time::interval(Duration::from_secs(2));
                let mut rounds: u64 = 0;
                loop {
                    tick.tick().await;
                    drain_payout_runs(&state).await;
                    // PayPal payout batches every 30 s: unsent ones are sent again, sent ones
                    // asked about once a minute (a lost webhook heals within that).
                    rounds += 1;
                    if rounds % 15 == 0
                        && let Err(e) =
                            app::domain::payouts::rails::paypal::run_once(&state.ctx).await
                    {
                        tracing::warn!(error = %e, "payout batch check failed; retried");
                    }
                }
            }
        }),
        supervise("reconciliation", move || {
            let state = reconciler.clone();
            async move {
                // A queued reconciliation starts within two seconds; one that a stopped
                // process left half applied is taken over when its lease runs out.
                let mut tick = tokio::time::interval(Duration::from_secs(2));
                loop {
                    tick.tick().await;
                    drain_reconciliations(&state).await;
                }
            }
        }),
    ]
}

/// Applies queued reconciliations until none waits (or one fails: logged, retried on the
/// next tick).
async fn drain_reconciliations(state: &AppState) {
    use app::domain::reconciliation;
    loop {
        match reconciliation::apply_next(&state.ctx).await {
            Ok(None) => return,
            Ok(Some(lines)) => tracing::info!(lines, "reconciliation lines applied"),
            Err(e) => {
                tracing::warn!(error = %e, "reconciliation failed; retried");
                return;
            }
        }
    }
}

/// Makes the payouts of queued monthly runs until none waits (or one fails: logged, taken
/// over when its lease runs out).
async fn drain_payout_runs(state: &AppState) {
    loop {
        match app::domain::payouts::runs::work_next(&state.ctx).await {
            Ok(None) => return,
            Ok(Some(run)) => {
                tracing::info!(period = %run.period, created = run.created_count, skipped = run.skipped_count, "payout run completed")
            }
            Err(e) => {
                tracing::warn!(error = %e, "payout run failed; taken over when its lease ends");
                return;
            }
        }
    }
}

/// Settles held pixel conversions whose review window ended, then checks the placements
/// whose conversions changed (pausing those past the limit).
async fn fraud_once(state: &AppState) -> Result<(), app::error::AppError> {
    use app::domain::conversions::holds;
    // A chunk at a time until the due ones are done.
    while holds::release_reviewed(&state.ctx).await? >= 500 {}
    let paused = app::domain::fraud::guard::run_once(&state.ctx).await?;
    if paused > 0 {
        tracing::warn!(paused, "placements paused for fraud review");
    }
    Ok(())
}

/// Runs every worker once (tests).
pub async fn run_once(state: &AppState) -> anyhow::Result<()> {
    settler::run_once(state).await?;
    fraud_once(state).await?;
    callbacks::run_once(state).await?;
    app::domain::earnings::release::run_once(&state.ctx).await?;
    app::domain::earnings::reserve::release_due(&state.ctx).await?;
    while app::domain::reconciliation::apply_next(&state.ctx)
        .await?
        .is_some()
    {}
    while app::domain::payouts::runs::work_next(&state.ctx)
        .await?
        .is_some()
    {}
    app::domain::payouts::rails::paypal::run_once(&state.ctx).await?;
    mail::run_once(state).await?;
    sweep::run_once(state).await
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test]
    async fn a_panicking_worker_is_restarted() {
        let runs = Arc::new(AtomicUsize::new(0));
        let counter = runs.clone();
        let handle = supervise("test", move || {
            let counter = counter.clone();
            async move {
                #[allow(clippy::panic)]
                if counter.fetch_add(1, Ordering::SeqCst) == 0 {
                    panic!("first run fails");
                }
                std::future::pending::<()>().await;
            }
        });
        // The supervisor pauses one second before the restart.
        for _ in 0..50 {
            if runs.load(Ordering::SeqCst) >= 2 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        handle.abort();
        assert_eq!(
            runs.load(Ordering::SeqCst),
            2,
            "restarted once after the panic"
        );
    }
}
