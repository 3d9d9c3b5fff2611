//! The live surveys in memory, for the survey fetch (issue 31).
//!
//! How changes arrive, and within what bound (docs/operations.md, "Caches and staleness"):
//! every write to a survey campaign, its quotas or qualifications, its payment, and every
//! reported outcome announces `Change::Surveys` after its commit (`domain::changes`). In
//! this process the snapshot is rebuilt before a campaign write answers, so a fetch that
//! starts after it never sees the old survey; other processes hear it within the two
//! seconds of `domain::changes` and rebuild then. A rebuild runs beside the fetches, which
//! answer from the snapshot in place until the new one is swapped in. Reported completes
//! (which only move counters) are folded in at most every [`MIN_GAP`]; and every snapshot is
//! rebuilt [`MAX_AGE`] after it was read whatever was announced (a process that died between
//! commit and announcement) and at midnight UTC (daily limits and field dates). The hosted
//! entry re-checks the chosen survey in the database, so a survey a stale answer still
//! listed is never entered once it closed or filled.

pub mod snapshot;

use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use chrono::{DateTime, Utc};
use sea_orm::ConnectionTrait;

pub use snapshot::{Fit, LiveSurvey, Snapshot};

use crate::domain::changes::generations::Generations;
use crate::error::AppError;

/// A snapshot is rebuilt this long after it was read, announced changes or not.
pub const MAX_AGE: Duration = Duration::from_secs(10);
/// Rebuilds follow each other at least this far apart (completes arrive in bursts).
pub const MIN_GAP: Duration = Duration::from_millis(200);

/// The live surveys of this process.
#[derive(Default)]
pub struct LiveSurveys {
    current: ArcSwap<Snapshot>,
    gens: Generations,
    building: tokio::sync::Mutex<()>,
}

impl LiveSurveys {
    /// Marks the snapshot stale (`domain::changes` calls it for `Change::Surveys`).
    pub fn changed(&self) {
        self.gens.changed();
    }

    fn stale(&self, snap: &Snapshot, now: DateTime<Utc>) -> bool {
        !self.gens.is_current(snap.generation)
            || snap.day != now.date_naive()
            || snap.built.elapsed() >= MAX_AGE
    }

    /// The snapshot to match against. Before the first build, on another day than the
    /// snapshot's, or without a driver, a stale snapshot is rebuilt first; otherwise the
    /// driver is woken and the snapshot in place answers.
    pub async fn current<C: ConnectionTrait>(
        &self,
        db: &C,
        now: DateTime<Utc>,
    ) -> Result<Arc<Snapshot>, AppError> {
        let snap = self.current.load_full();
        if !self.stale(&snap, now) {
            return Ok(snap);
        }
        if snap.generation > 0 && snap.day == now.date_naive() && self.gens.driven() {
            self.gens.kick();
            return Ok(snap);
        }
        let _guard = self.building.lock().await;
        let snap = self.current.load_full();
        if !self.stale(&snap, now) {
            return Ok(snap);
        }
        self.build(db, now).await
    }

    /// Reads the database and swaps the new snapshot in (call with `building` held).
    async fn build<C: ConnectionTrait>(
        &self,
        db: &C,
        now: DateTime<Utc>,
    ) -> Result<Arc<Snapshot>, AppError> {
        // Read before the database: a change committed meanwhile leaves this build stale.
        let wanted = self.gens.wanted();
        let fresh = Arc::new(Box::pin(Snapshot::build(db, now, wanted)).await?);
        self.current.store(fresh.clone());
        self.gens.built(wanted);
        Ok(fresh)
    }

    /// Rebuilds after announced changes and on age, for as long as the process runs.
    pub async fn drive(
        self: Arc<Self>,
        db: sea_orm::DatabaseConnection,
        clock: Arc<dyn crate::domain::Clock>,
    ) {
        self.gens.driving();
        loop {
            let now = crate::domain::clock::truncate_micros(clock.now());
            let snap = self.current.load_full();
            if snap.generation == 0 || !self.stale(&snap, now) {
                self.gens.idle(Duration::from_secs(1)).await;
                continue;
            }
            let gap = MIN_GAP.saturating_sub(snap.built.elapsed());
            if !gap.is_zero() && snap.day == now.date_naive() {
                tokio::time::sleep(gap).await;
            }
            let guard = self.building.lock().await;
            if let Err(e) = self.build(&db, now).await {
                drop(guard);
                tracing::warn!(error = %e, "survey snapshot rebuild failed; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }

    /// Waits (at most five seconds) until the snapshot reflects every change announced
    /// before this call. A no-op without a driver: the next fetch then rebuilds first.
    pub async fn caught_up(&self) {
        self.gens
            .caught_up(self.current.load().generation > 0)
            .await;
    }

    /// The snapshot as it is (metrics).
    pub fn peek(&self) -> Arc<Snapshot> {
        self.current.load_full()
    }
}
