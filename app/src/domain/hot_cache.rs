//! Small in-process caches for the per-request lookups of the delivery hot paths (SDK
//! sessions, bans, a user's completions, static keys, launch links), so an offer list, a
//! static feed pull or a click redirect runs no query once warm.
//!
//! Correctness comes from invalidation, not from the time limit: every write to a cached row
//! announces it after its commit and before it answers (`domain::changes`), which calls
//! [`GuardedCache::invalidate`] (or `clear`) here at once and in every other process within
//! two seconds. A reader notes [`GuardedCache::generation`] before reading the database and
//! hands it to `insert`, which keeps the value only if no invalidation happened in between,
//! so a row read before a commit is never cached after it. The time limit
//! ([`DELIVERY_BACKSTOP`] for the delivery caches) is only the backstop for an announcement
//! that never arrived (its process died between commit and announcement; docs/operations.md,
//! "Caches and staleness"). Expiry rules read the domain clock on every use, from the cached
//! row, never from the cache's own timer.
//!
//! Each entry lives a random three quarters to all of its cache's time limit, so entries
//! filled together (every session of a busy minute after a restart) are not re-read together:
//! with one fixed life, 10,000 sessions filled in 3 s were read again in the same 3 s every
//! period (BENCHMARKS.md, "One house again"). The limit stays the bound.
//!
//! A hand-written map rather than a general cache crate: the generation guard above is the
//! point, and it needs the check and the insert under one lock.

use std::collections::HashMap;
use std::sync::RwLock;
use std::time::{Duration, Instant};

/// How long an entry is trusted without being re-read where the time limit is what brings
/// in other processes' writes (survey respondents: their fetches are not announced).
pub const HOT_CACHE_TTL: Duration = Duration::from_secs(10);

/// The backstop of the announced delivery caches (sessions, bans, completions, static keys):
/// it bounds only a change whose process died in the 50 ms between commit and announcement,
/// so it is long enough that re-reading every active user's entries is not a steady load.
pub const DELIVERY_BACKSTOP: Duration = Duration::from_secs(30);

struct Inner<V> {
    generation: u64,
    /// Each entry with the moment it stops being trusted.
    map: HashMap<String, (Instant, V)>,
}

/// A life between three quarters of `ttl` and `ttl`, drawn at random per entry.
fn entry_life(ttl: Duration, key: &str) -> Duration {
    use std::hash::BuildHasher;
    // A fresh `RandomState` has new keys each time: a cheap random number, no crate needed.
    let draw = std::collections::hash_map::RandomState::new().hash_one(key);
    let quarter = u64::try_from(ttl.as_micros() / 4).unwrap_or(u64::MAX);
    ttl - Duration::from_micros(draw % quarter.saturating_add(1))
}

/// A bounded map whose inserts lose every race against an invalidation.
pub struct GuardedCache<V> {
    inner: RwLock<Inner<V>>,
    ttl: Duration,
    max_entries: usize,
}

impl<V: Clone> GuardedCache<V> {
    /// A cache trusting entries for `ttl` and holding at most `max_entries`.
    pub fn new(ttl: Duration, max_entries: usize) -> Self {
        Self {
            inner: RwLock::new(Inner {
                generation: 0,
                map: HashMap::new(),
            }),
            ttl,
            max_entries,
        }
    }

    /// The entry for `key` if it is younger than the time limit.
    pub fn get(&self, key: &str) -> Option<V> {
        let inner = self.inner.read().ok()?;
        let now = Instant::now();
        inner
            .map
            .get(key)
            .filter(|(until, _)| *until > now)
            .map(|(_, v)| v.clone())
    }

    /// Read this before reading the database and pass it to [`Self::insert`].
    pub fn generation(&self) -> u64 {
        self.inner.read().map(|i| i.generation).unwrap_or(u64::MAX)
    }

    /// Keeps `value` unless an invalidation happened since `generation` was read.
    pub fn insert(&self, generation: u64, key: String, value: V) {
        let Ok(mut inner) = self.inner.write() else {
            return;
        };
        if inner.generation != generation {
            return;
        }
        let now = Instant::now();
        if inner.map.len() >= self.max_entries {
            inner.map.retain(|_, (until, _)| *until > now);
            if inner.map.len() >= self.max_entries {
                inner.map.clear();
            }
        }
        let until = now + entry_life(self.ttl, &key);
        inner.map.insert(key, (until, value));
    }

    /// The entry for `key`, or what `load` reads from the database (kept unless an
    /// invalidation happened while it read). An error is not cached.
    pub async fn get_or_load<F, Fut>(&self, key: &str, load: F) -> Result<V, crate::error::AppError>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<V, crate::error::AppError>>,
    {
        if let Some(hit) = self.get(key) {
            return Ok(hit);
        }
        let generation = self.generation();
        // Boxed: the database read's future is large, and inline it would make every
        // caller's future (moved on each hit) that large too.
        let value = Box::pin(load()).await?;
        self.insert(generation, key.to_owned(), value.clone());
        Ok(value)
    }

    /// Drops `key` after a change to what it caches was committed.
    pub fn invalidate(&self, key: &str) {
        if let Ok(mut inner) = self.inner.write() {
            inner.generation = inner.generation.wrapping_add(1);
            inner.map.remove(key);
        }
    }

    /// Applies a committed change to the entry for `key` in place, if one is held (a value
    /// with interior mutability, so pending in-process facts it holds are kept); a read
    /// under way loses its insert as with [`Self::invalidate`].
    pub fn touch(&self, key: &str, change: impl FnOnce(&V)) {
        if let Ok(mut inner) = self.inner.write() {
            inner.generation = inner.generation.wrapping_add(1);
            if let Some((_, v)) = inner.map.get(key) {
                change(v);
            }
        }
    }

    /// Drops everything (for changes that touch many keys at once).
    pub fn clear(&self) {
        if let Ok(mut inner) = self.inner.write() {
            inner.generation = inner.generation.wrapping_add(1);
            inner.map.clear();
        }
    }

    /// Entries held (for metrics and tests).
    pub fn len(&self) -> usize {
        self.inner.read().map(|i| i.map.len()).unwrap_or(0)
    }

    /// Whether nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The hot-path caches of one process.
pub struct HotCaches {
    /// SDK sessions by token hash.
    pub sessions: GuardedCache<std::sync::Arc<crate::domain::principal::SdkActor>>,
    /// Active bans by `placement|user`: the expiry of each active ban (`None`: never).
    pub bans: GuardedCache<std::sync::Arc<Vec<Option<chrono::DateTime<chrono::Utc>>>>>,
    /// A user's counted conversions on a placement by `placement|user`.
    pub completions: GuardedCache<std::sync::Arc<HashMap<(String, String), i64>>>,
    /// Static feed keys by key hash.
    pub static_keys: GuardedCache<std::sync::Arc<entity::static_key::Model>>,
    /// Launch links by launch id: the destination and whether the open was recorded.
    pub launches: GuardedCache<(std::sync::Arc<str>, bool)>,
}

impl Default for HotCaches {
    fn default() -> Self {
        Self {
            sessions: GuardedCache::new(DELIVERY_BACKSTOP, 200_000),
            bans: GuardedCache::new(DELIVERY_BACKSTOP, 200_000),
            completions: GuardedCache::new(DELIVERY_BACKSTOP, 200_000),
            static_keys: GuardedCache::new(DELIVERY_BACKSTOP, 50_000),
            // Launch links are immutable and live five minutes: no staleness to bound.
            launches: GuardedCache::new(Duration::from_secs(6 * 60), 200_000),
        }
    }
}

/// The key of a per-user entry on a placement.
pub fn user_key(placement_id: &str, user: &str) -> String {
    let mut k = String::with_capacity(placement_id.len() + user.len() + 1);
    k.push_str(placement_id);
    k.push('|');
    k.push_str(user);
    k
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_insert_after_an_invalidation_is_dropped() {
        let c: GuardedCache<u32> = GuardedCache::new(Duration::from_secs(60), 10);
        let g = c.generation();
        c.invalidate("a");
        c.insert(g, "a".into(), 1);
        assert_eq!(c.get("a"), None);
        let g = c.generation();
        c.insert(g, "a".into(), 2);
        assert_eq!(c.get("a"), Some(2));
        c.invalidate("a");
        assert_eq!(c.get("a"), None);
    }

    #[test]
    fn entries_expire_and_the_map_stays_bounded() {
        let c: GuardedCache<u32> = GuardedCache::new(Duration::ZERO, 2);
        let g = c.generation();
        c.insert(g, "a".into(), 1);
        assert_eq!(c.get("a"), None, "a zero time limit trusts nothing");
        let c: GuardedCache<u32> = GuardedCache::new(Duration::from_secs(60), 2);
        for (i, k) in ["a", "b", "c"].into_iter().enumerate() {
            c.insert(c.generation(), k.into(), i as u32);
        }
        assert!(c.len() <= 2);
        assert_eq!(c.get("c"), Some(2));
    }

    #[test]
    fn entries_filled_together_do_not_expire_together() {
        let ttl = Duration::from_secs(30);
        let lives: Vec<Duration> = (0..200).map(|_| entry_life(ttl, "same key")).collect();
        assert!(
            lives.iter().all(|l| *l <= ttl && *l >= ttl * 3 / 4),
            "{lives:?}"
        );
        let spread = lives.iter().max().copied().unwrap_or_default()
            - lives.iter().min().copied().unwrap_or_default();
        assert!(
            spread > Duration::from_secs(4),
            "lives spread over the last quarter: {spread:?}"
        );
        assert_eq!(entry_life(Duration::ZERO, "k"), Duration::ZERO);
    }
}
