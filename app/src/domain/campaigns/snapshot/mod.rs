//! The live inventory in memory. Offer lists, single-offer reads, impressions, the static
//! feed and the gallery read an immutable snapshot of every live campaign (delivering
//! configuration, remaining reserve, cap counters, delivery statistics) with precomputed
//! indexes by platform, country and sort order, so the hot path runs no campaign query.
//!
//! Freshness (docs/decisions.md, "Inventory snapshot"):
//! - every change that can remove or alter a live offer (a campaign's status, revision or
//!   budget, a settlement that exhausts a reserve or a cap) announces `Change::Offers` after
//!   its commit and before its response (`domain::changes`), which calls
//!   [`Inventory::changed`] here at once and in every other process within two seconds. In
//!   a server process the rebuild runs beside the requests ([`Inventory::drive`]): readers
//!   answer from the snapshot in place until the new one is swapped in, and the writer's
//!   own answer waits for it ([`Inventory::caught_up`]), so a request that starts after the
//!   write answered never sees the removed offer. Without a driver (CLI commands) the next
//!   read rebuilds first;
//! - counters that only move ranking and listing caps (clicks, approved conversions of
//!   uncapped campaigns) are refreshed in the background when the snapshot is older than
//!   [`MAX_AGE`], while readers keep the current one;
//! - schedules are checked against the request's clock on every read.
//!
//! Money stays exact where it moves: launches re-read the campaign, its reserve and its caps
//! from the database, and settlement does so under the campaign's row lock.

mod feeds;
mod offer;
mod view;

pub use feeds::{CachedFeed, FeedRequest, FeedShelf};
pub use offer::{Offer, Stats};
use offer::{score, stats};
use view::{Bucket, SORTS};
pub use view::{PAGE_TTL, Snapshot};

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use arc_swap::ArcSwap;
use chrono::{DateTime, Utc};
use sea_orm::ConnectionTrait;

use super::inventory::{LiveOffer, RowMark, can_pay, live_marks, live_rows, reserve_of, reserves};
use crate::domain::changes::generations::Generations;
use crate::error::AppError;
use crate::model::publisher::OfferSort;

/// A snapshot older than this is rebuilt in the background (ranking and listing caps only;
/// removals rebuild before the next read).
pub const MAX_AGE: Duration = Duration::from_secs(10);
/// Campaigns are reloaded in the background this often even without a change announced: the
/// backstop for an announcement that never arrived (`domain::changes`).
pub const RELOAD_AGE: Duration = Duration::from_secs(60);

/// The shared, swappable snapshot and its change generation.
pub struct Inventory {
    current: ArcSwap<Snapshot>,
    /// Bumped after every committed change that can remove or alter a live offer; the
    /// driver ([`Inventory::drive`]) rebuilds, writers wait ([`Inventory::caught_up`]).
    gens: Generations,
    versions: AtomicU64,
    building: tokio::sync::Mutex<()>,
    refreshing: Arc<AtomicBool>,
}

impl Default for Inventory {
    fn default() -> Self {
        Inventory {
            current: ArcSwap::from_pointee(Snapshot::empty()),
            gens: Generations::default(),
            versions: AtomicU64::new(0),
            building: tokio::sync::Mutex::new(()),
            refreshing: Arc::new(AtomicBool::new(false)),
        }
    }
}

impl Inventory {
    /// Marks the snapshot stale (called by `domain::changes`: writers announce
    /// `Change::Offers` after committing a change to a campaign's status, configuration or
    /// budget, or a settlement that may have used up its reserve or a cap).
    pub fn changed(&self) {
        self.gens.changed();
    }

    /// Swaps in a new snapshot and tells the writers waiting for it.
    fn put(&self, fresh: Arc<Snapshot>) {
        let generation = fresh.generation;
        self.current.store(fresh);
        self.gens.built(generation);
    }

    /// Rebuilds whenever a change is announced, for as long as the process runs, so that
    /// readers never wait for a rebuild (issue 30): they answer from the previous snapshot
    /// until the new one is swapped in. Writers that removed or altered an offer wait for it
    /// ([`Inventory::caught_up`]) before they answer, so a request that starts after a write
    /// answered still never sees the old offer; another process's change arrives within the
    /// bound of `domain::changes`.
    pub async fn drive(
        self: Arc<Self>,
        db: sea_orm::DatabaseConnection,
        clock: Arc<dyn crate::domain::Clock>,
    ) {
        self.gens.driving();
        loop {
            let snap = self.current.load_full();
            // Before the first build (start-up builds it), and when nothing changed, wait.
            if snap.generation == 0 || self.gens.is_current(snap.generation) {
                self.gens.idle(Duration::from_secs(1)).await;
                continue;
            }
            let now = crate::domain::clock::truncate_micros(clock.now());
            let guard = self.building.lock().await;
            let previous = self.current.load_full();
            let wanted = self.gens.wanted();
            if previous.generation >= wanted {
                continue;
            }
            match Box::pin(self.build(&db, now, wanted, &previous)).await {
                Ok(fresh) => self.put(Arc::new(fresh)),
                Err(e) => {
                    drop(guard);
                    tracing::warn!(error = %e, "inventory rebuild failed; retrying");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
        }
    }

    /// Waits (at most five seconds) until the snapshot reflects every change announced
    /// before this call. A no-op without a driver: the next read then rebuilds first.
    pub async fn caught_up(&self) {
        self.gens
            .caught_up(self.current.load().generation > 0)
            .await;
    }

    /// Holds off every rebuild while the guard lives (tests: a rebuild that takes as long).
    pub async fn hold_builds(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.building.lock().await
    }

    /// Follows the swaps: the receiver changes whenever a new snapshot is in place.
    pub fn swaps(&self) -> tokio::sync::watch::Receiver<u64> {
        self.gens.swaps()
    }

    /// The snapshot as it is, without rebuilding (metrics).
    pub fn peek(&self) -> Arc<Snapshot> {
        self.current.load_full()
    }

    /// A snapshot that reflects every change committed before this call.
    pub async fn current<C: ConnectionTrait>(
        &self,
        db: &C,
        now: DateTime<Utc>,
    ) -> Result<Arc<Snapshot>, AppError> {
        let snap = self.current.load_full();
        if self.gens.is_current(snap.generation) {
            return Ok(snap);
        }
        if snap.generation > 0 && self.gens.driven() {
            // The driver is rebuilding: answer from the snapshot in place.
            self.gens.kick();
            return Ok(snap);
        }
        let _guard = self.building.lock().await;
        // Another reader may have rebuilt while this one waited.
        let snap = self.current.load_full();
        let wanted = self.gens.wanted();
        if snap.generation >= wanted {
            return Ok(snap);
        }
        // `wanted` is read before the database: a change committed after this point bumps
        // the generation again, so the next read rebuilds once more.
        // Boxed: the build is rare, and inline its future would enlarge every reader's.
        let fresh = Arc::new(Box::pin(self.build(db, now, wanted, &snap)).await?);
        self.put(fresh.clone());
        Ok(fresh)
    }

    /// Rebuilds now, whatever the generation (tests and the full reload).
    pub async fn rebuild<C: ConnectionTrait>(
        &self,
        db: &C,
        now: DateTime<Utc>,
    ) -> Result<Arc<Snapshot>, AppError> {
        let _guard = self.building.lock().await;
        let wanted = self.gens.wanted();
        let previous = self.current.load_full();
        let fresh = Arc::new(self.build(db, now, wanted, &previous).await?);
        self.put(fresh.clone());
        Ok(fresh)
    }

    /// The background refresh: fresh counters for the same campaigns, and a full reload
    /// once the campaigns were read [`RELOAD_AGE`] ago (changes made by another process).
    pub async fn refresh<C: ConnectionTrait>(
        &self,
        db: &C,
        now: DateTime<Utc>,
    ) -> Result<(), AppError> {
        let _guard = self.building.lock().await;
        let current = self.current.load_full();
        let wanted = self.gens.wanted();
        let fresh = if current.generation < wanted || current.loaded.elapsed() >= RELOAD_AGE {
            self.build(db, now, wanted, &current).await?
        } else {
            self.recount(db, now, &current).await?
        };
        self.put(Arc::new(fresh));
        Ok(())
    }

    /// Whether the snapshot is older than [`MAX_AGE`] and no refresh is under way; claims the
    /// refresh when it is.
    pub fn claim_refresh(&self) -> bool {
        self.current.load().age() >= MAX_AGE
            && self
                .refreshing
                .compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
    }

    /// Releases a refresh claimed with [`Inventory::claim_refresh`].
    pub fn refresh_done(&self) {
        self.refreshing.store(false, Ordering::SeqCst);
    }

    /// Reads the live campaigns and their counters from the database. Campaigns whose row
    /// has not moved since `previous` keep their parsed offer; only new and changed ones are
    /// read whole (500 at a time), so a reload holds one copy of the inventory, not two.
    async fn build<C: ConnectionTrait>(
        &self,
        db: &C,
        now: DateTime<Utc>,
        generation: u64,
        previous: &Snapshot,
    ) -> Result<Snapshot, AppError> {
        let started = Instant::now();
        let marks = live_marks(db).await?;
        let ids: Vec<String> = marks.iter().map(|m| m.id.clone()).collect();
        let reserves = reserves(db, &ids).await?;
        let stats = stats(db, now).await?;
        let unchanged = |id: &str, mark: &RowMark| {
            previous
                .get(id)
                .filter(|o| RowMark::of(&o.campaign) == *mark)
        };
        let changed: Vec<String> = marks
            .iter()
            .filter(|m| unchanged(&m.id, &m.mark).is_none())
            .map(|m| m.id.clone())
            .collect();
        let mut fresh: HashMap<String, Offer> = HashMap::with_capacity(changed.len());
        for (mut campaign, config) in live_rows(db, &changed).await? {
            // The delivering configuration is parsed; the raw copies are not needed here.
            campaign.config = String::new();
            campaign.ip_allowlist = String::new();
            let reserved_micros = reserve_of(&reserves, &campaign.advertiser_id, &campaign.id);
            let live = LiveOffer {
                campaign,
                config,
                reserved_micros,
            };
            let host = live.destination_host();
            let total_payout_micros = live.config.goals.iter().map(|g| g.payout_micros).sum();
            fresh.insert(
                live.campaign.id.clone(),
                Offer {
                    live: Arc::new(live),
                    reserved_micros,
                    host,
                    total_payout_micros,
                    stats: Stats::default(),
                },
            );
        }
        let mut offers = Vec::with_capacity(marks.len());
        for m in &marks {
            let reserved_micros = reserve_of(&reserves, &m.advertiser_id, &m.id);
            let offer = match (fresh.remove(&m.id), unchanged(&m.id, &m.mark)) {
                (Some(offer), _) => offer,
                (None, Some(kept)) => Offer {
                    live: kept.live.clone(),
                    reserved_micros,
                    host: kept.host.clone(),
                    total_payout_micros: kept.total_payout_micros,
                    stats: Stats::default(),
                },
                // No longer live by the time its row was read.
                (None, None) => continue,
            };
            if !can_pay(&offer.config, reserved_micros) {
                continue;
            }
            let stats = stats.get(&m.id).copied().unwrap_or_default();
            offers.push(Arc::new(Offer {
                reserved_micros,
                stats,
                ..offer
            }));
        }
        let snap = self.assemble(offers, generation, now, Instant::now(), previous);
        tracing::debug!(
            offers = snap.offers.len(),
            read_whole = changed.len(),
            millis = started.elapsed().as_millis() as u64,
            "inventory snapshot built"
        );
        Ok(snap)
    }

    /// The same offers with fresh counters (and their sort orders): what the background
    /// refresh does between full builds, without reloading a single campaign.
    async fn recount<C: ConnectionTrait>(
        &self,
        db: &C,
        now: DateTime<Utc>,
        current: &Snapshot,
    ) -> Result<Snapshot, AppError> {
        let stats = stats(db, now).await?;
        let offers = current
            .offers
            .iter()
            .map(|o| {
                Arc::new(Offer {
                    live: o.live.clone(),
                    reserved_micros: o.reserved_micros,
                    host: o.host.clone(),
                    total_payout_micros: o.total_payout_micros,
                    stats: stats.get(&o.campaign.id).copied().unwrap_or_default(),
                })
            })
            .collect();
        Ok(self.assemble(offers, current.generation, now, current.loaded, current))
    }

    fn assemble(
        &self,
        offers: Vec<Arc<Offer>>,
        generation: u64,
        now: DateTime<Utc>,
        loaded: Instant,
        previous: &Snapshot,
    ) -> Snapshot {
        let (items, item_bytes) = previous.items_still_valid(&offers);
        let by_id = offers
            .iter()
            .enumerate()
            .map(|(i, o)| (o.campaign.id.clone(), i as u32))
            .collect();
        let mut buckets: HashMap<Bucket, Vec<u32>> = HashMap::new();
        for (i, o) in offers.iter().enumerate() {
            for &platform in &o.config.platforms {
                for country in
                    std::iter::once(None).chain(o.config.countries.iter().filter_map(|c| {
                        match c.as_bytes() {
                            [a, b] => Some(Some([*a, *b])),
                            _ => None,
                        }
                    }))
                {
                    for sort in SORTS {
                        buckets
                            .entry(Bucket {
                                platform,
                                country,
                                sort,
                            })
                            .or_default()
                            .push(i as u32);
                    }
                }
            }
        }
        for (bucket, list) in buckets.iter_mut() {
            // Stable sorts: ties keep the newest approval first.
            let o = |i: &u32| &offers[*i as usize];
            match bucket.sort {
                OfferSort::Payout => {
                    list.sort_by_key(|i| std::cmp::Reverse(o(i).total_payout_micros));
                }
                sort => list.sort_by(|a, b| {
                    score(o(b), sort)
                        .cmp(&score(o(a), sort))
                        .then_with(|| o(b).total_payout_micros.cmp(&o(a).total_payout_micros))
                }),
            }
        }
        Snapshot {
            generation,
            version: self.versions.fetch_add(1, Ordering::SeqCst) + 1,
            built_at: now,
            built: Instant::now(),
            loaded,
            day: now.date_naive(),
            offers,
            by_id,
            buckets,
            feeds: FeedShelf::default(),
            items: std::sync::RwLock::new(items),
            pages: Default::default(),
            item_bytes: AtomicUsize::new(item_bytes),
            page_bytes: AtomicUsize::new(0),
        }
    }
}

/// The inventory for a request: current with every committed change, refreshed in the
/// background when older than [`MAX_AGE`].
pub async fn snapshot(ctx: &crate::domain::Ctx) -> Result<Arc<Snapshot>, AppError> {
    let snap = ctx.inventory.current(&ctx.db, ctx.now()).await?;
    if ctx.inventory.claim_refresh() {
        let (inventory, db, clock) = (ctx.inventory.clone(), ctx.db.clone(), ctx.clock.clone());
        tokio::spawn(async move {
            let now = crate::domain::clock::truncate_micros(clock.now());
            if let Err(e) = inventory.refresh(&db, now).await {
                tracing::warn!(error = %e, "inventory refresh failed");
            }
            inventory.refresh_done();
        });
    }
    Ok(snap)
}
