//! What delivery reads about a placement on every request (the placement, its slots and
//! its owner's blacklists), kept in memory so the hot paths do not query it each time.
//!
//! Every write to placements, slots, blacklists, reviews and callback settings announces
//! `Change::DeliveryConfig` after its commit and before it answers (`domain::changes`),
//! which calls [`DeliveryConfigs::changed`] here at once and in every other process within
//! two seconds; an entry is used only while no change has happened since it was read, so a
//! committed change is never served stale (the same generation rule as the inventory
//! snapshot). An announcement can still be lost (a process that died between its commit
//! and its announcement, a notification connection that went half-open), so an entry is
//! also read again once it is [`CONFIG_TTL`] old by the domain clock: a lost announcement
//! is healed within that bound.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use chrono::{DateTime, Duration, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

use super::blacklists::rules_for;
use crate::error::AppError;
use crate::model::publisher::AdSlot;
use entity::{ad_slot, blacklist, placement};

/// How long an entry is used without reading it again, whatever the announcements say
/// (the bound on a lost announcement; docs/operations.md, "Caches and staleness").
pub const CONFIG_TTL: Duration = Duration::seconds(60);

/// Entries kept at most; beyond it the cache starts over (memory stays bounded).
const MAX_ENTRIES: usize = 20_000;

/// A placement as delivery sees it.
pub struct DeliveryConfig {
    pub placement: placement::Model,
    /// Slots that are not archived.
    pub slots: Vec<ad_slot::Model>,
    /// The same slots as delivery reads them (configuration parsed once, not per request),
    /// in the same order.
    pub views: Vec<AdSlot>,
    /// The owner's blacklist rules that apply to this placement.
    pub rules: Vec<blacklist::Model>,
    /// A hash of all of the above as stored: cached static feeds are keyed by it, so a
    /// change to policy, currency, state or blacklists builds a new feed.
    pub fingerprint: u64,
}

/// The cache, shared by every request of the process.
#[derive(Default)]
pub struct DeliveryConfigs {
    generation: AtomicU64,
    /// By placement: the generation and the time it was read at, and the configuration.
    entries: RwLock<HashMap<String, (u64, DateTime<Utc>, Arc<DeliveryConfig>)>>,
    /// A slot's placement (it never changes, so this needs no generation).
    slot_placements: RwLock<HashMap<String, String>>,
}

impl DeliveryConfigs {
    /// Marks every entry stale (called by `domain::changes`; writers announce instead).
    pub fn changed(&self) {
        self.generation.fetch_add(1, Ordering::SeqCst);
    }

    /// The placement a slot belongs to, archived or not (`None` for an unknown slot).
    pub async fn placement_of_slot<C: ConnectionTrait>(
        &self,
        db: &C,
        slot_id: &str,
    ) -> Result<Option<String>, AppError> {
        if let Ok(m) = self.slot_placements.read()
            && let Some(p) = m.get(slot_id)
        {
            return Ok(Some(p.clone()));
        }
        // Boxed: see `get`.
        let Some(slot) = Box::pin(ad_slot::Entity::find_by_id(slot_id.to_owned()).one(db)).await?
        else {
            return Ok(None);
        };
        if let Ok(mut m) = self.slot_placements.write() {
            if m.len() >= MAX_ENTRIES {
                m.clear();
            }
            m.insert(slot.id, slot.placement_id.clone());
        }
        Ok(Some(slot.placement_id))
    }

    /// The placement's delivery configuration (`None` when there is no such placement).
    pub async fn get<C: ConnectionTrait>(
        &self,
        db: &C,
        now: DateTime<Utc>,
        placement_id: &str,
    ) -> Result<Option<Arc<DeliveryConfig>>, AppError> {
        let generation = self.generation.load(Ordering::SeqCst);
        if let Ok(entries) = self.entries.read()
            && let Some((g, read_at, c)) = entries.get(placement_id)
            && *g == generation
            && now - *read_at < CONFIG_TTL
            && now >= *read_at
        {
            return Ok(Some(c.clone()));
        }
        // Boxed: the reads below make a large future, and inline they would make every
        // delivery request's future (moved on each hit) that large too.
        Box::pin(self.load(db, now, placement_id, generation)).await
    }

    /// Loads the configuration of up to `limit` released placements, most recently released
    /// first, so the first offer lists of a starting process do not read them (start-up runs
    /// this before `/readyz` says ready). Returns the placements loaded.
    pub async fn warm<C: ConnectionTrait>(
        &self,
        db: &C,
        now: DateTime<Utc>,
        limit: u64,
    ) -> Result<Vec<String>, AppError> {
        use sea_orm::{QueryOrder, QuerySelect};
        let generation = self.generation.load(Ordering::SeqCst);
        let ids: Vec<String> = placement::Entity::find()
            .select_only()
            .column(placement::Column::Id)
            .filter(placement::Column::Released.eq(true))
            .filter(placement::Column::ArchivedAt.is_null())
            .order_by_desc(placement::Column::ReleasedAt)
            .limit(limit)
            .into_tuple()
            .all(db)
            .await?;
        for id in &ids {
            Box::pin(self.load(db, now, id, generation)).await?;
        }
        Ok(ids)
    }

    /// Reads and keeps a placement's configuration. `generation` was read before the
    /// database: a change committed meanwhile bumps it, so this entry is never used after
    /// that change.
    async fn load<C: ConnectionTrait>(
        &self,
        db: &C,
        now: DateTime<Utc>,
        placement_id: &str,
        generation: u64,
    ) -> Result<Option<Arc<DeliveryConfig>>, AppError> {
        let Some(p) = placement::Entity::find_by_id(placement_id.to_owned())
            .one(db)
            .await?
        else {
            return Ok(None);
        };
        let slots = ad_slot::Entity::find()
            .filter(ad_slot::Column::PlacementId.eq(p.id.clone()))
            .filter(ad_slot::Column::ArchivedAt.is_null())
            .all(db)
            .await?;
        let rules = rules_for(db, &p.owner_account_id, &p.id).await?;
        let fingerprint = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            format!("{slots:?}{p:?}{rules:?}").hash(&mut h);
            h.finish()
        };
        let views = slots.iter().map(|s| super::slots::view(s, &p)).collect();
        let c = Arc::new(DeliveryConfig {
            placement: p,
            slots,
            views,
            rules,
            fingerprint,
        });
        if let Ok(mut entries) = self.entries.write() {
            if entries.len() >= MAX_ENTRIES {
                entries.clear();
            }
            entries.insert(placement_id.to_owned(), (generation, now, c.clone()));
        }
        Ok(Some(c))
    }
}
