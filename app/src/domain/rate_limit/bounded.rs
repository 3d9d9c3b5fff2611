//! A fixed-size state store for `governor`'s keyed limiters. The delivery limits are keyed
//! by callers the service does not choose (addresses, session tokens, slot keys), and the
//! default store keeps one map entry per caller seen until a sweep: a flood of distinct
//! callers grows it without bound. This store is a set-associative table of
//! `SETS × WAYS` cells allocated once; a new key takes an empty cell of its set or the one
//! whose limit refills soonest. Under a flood of more active callers than cells, the
//! evicted caller starts again with a full allowance (the limit fails open for it) rather
//! than the process growing. GCRA itself stays `governor`'s.

use std::sync::Mutex;

use governor::nanos::Nanos;
use governor::state::StateStore;

/// Cells per set: a key can live in any of these.
const WAYS: usize = 4;

/// A cell: the key's tag (its hash with the low bit set, so 0 means empty) and its
/// theoretical arrival time in `governor`'s nanoseconds.
type Set = [(u64, u64); WAYS];

pub struct BoundedStore {
    sets: Box<[Mutex<Set>]>,
    mask: u64,
}

impl BoundedStore {
    /// A table of `2^bits` sets of `WAYS` keys, allocated whole now (72 bytes a set).
    pub fn new(bits: u32) -> Self {
        let n = 1usize << bits;
        Self {
            sets: (0..n).map(|_| Mutex::new([(0, 0); WAYS])).collect(),
            mask: (n as u64) - 1,
        }
    }

    /// How many keys the table holds at most.
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.sets.len() * WAYS
    }
}

impl StateStore for BoundedStore {
    /// A keyed hash (the caller hashes its key with a per-process key).
    type Key = u64;

    fn measure_and_replace<T, F, E>(&self, key: &u64, f: F) -> Result<T, E>
    where
        F: Fn(Option<Nanos>) -> Result<(T, Nanos), E>,
    {
        // High bits pick the set; the whole hash is the tag.
        let set = &self.sets[((key >> 32) & self.mask) as usize];
        let tag = key | 1;
        // A poisoned set only means a panic elsewhere mid-update of two integers.
        let mut cells = set.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(cell) = cells.iter_mut().find(|(t, _)| *t == tag) {
            let (out, tat) = f(Some(Nanos::new(cell.1)))?;
            cell.1 = tat.as_u64();
            return Ok(out);
        }
        let (out, tat) = f(None)?;
        // An empty cell, else the one whose allowance refills soonest.
        let i = cells
            .iter()
            .enumerate()
            .min_by_key(|(_, (t, at))| if *t == 0 { 0 } else { at.saturating_add(1) })
            .map_or(0, |(i, _)| i);
        cells[i] = (tag, tat.as_u64());
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroU32;

    use governor::clock::FakeRelativeClock;
    use governor::middleware::NoOpMiddleware;
    use governor::{Quota, RateLimiter};

    use super::*;

    type TestLimiter = RateLimiter<u64, BoundedStore, FakeRelativeClock, NoOpMiddleware<Nanos>>;

    fn limiter(bits: u32) -> (TestLimiter, FakeRelativeClock) {
        let clock = FakeRelativeClock::default();
        let quota = Quota::per_minute(NonZeroU32::new(3).unwrap_or(NonZeroU32::MIN));
        (
            RateLimiter::new(quota, BoundedStore::new(bits), clock.clone()),
            clock,
        )
    }

    #[test]
    fn a_key_gets_its_burst_then_refills() {
        let (l, clock) = limiter(4);
        for _ in 0..3 {
            assert!(l.check_key(&42).is_ok());
        }
        assert!(l.check_key(&42).is_err());
        assert!(l.check_key(&7).is_ok(), "other keys are independent");
        clock.advance(std::time::Duration::from_secs(20));
        assert!(l.check_key(&42).is_ok());
        assert!(l.check_key(&42).is_err());
    }

    #[test]
    fn a_flood_of_keys_stays_in_the_table() {
        let (l, _) = limiter(2);
        assert!(l.check_key(&1).is_ok());
        // Far more distinct keys than cells: nothing grows, every new key is served.
        for k in 0..100_000u64 {
            assert!(l.check_key(&k.wrapping_mul(0x9E37_79B9_7F4A_7C15)).is_ok());
        }
        assert_eq!(BoundedStore::new(2).capacity(), 16);
    }
}
