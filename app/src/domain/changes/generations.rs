//! The rule shared by the caches rebuilt as a whole from the database (the offer inventory,
//! the live surveys): every announced change bumps a wanted generation; a build records the
//! generation it read at its start, so a build that began before a change's commit stays
//! stale; a driver task rebuilds in the background once it runs, so readers answer from the
//! snapshot in place and never wait; and a writer that must not answer before its change
//! is served waits for a build of its generation ([`Generations::caught_up`]).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// The generations of one rebuilt cache.
pub struct Generations {
    /// Bumped after every committed change the cache must reflect.
    wanted: AtomicU64,
    /// Set once the rebuild driver runs: after the first build, readers never wait.
    background: AtomicBool,
    /// Wakes the driver.
    kick: tokio::sync::Notify,
    /// The generation of the build in place.
    built: tokio::sync::watch::Sender<u64>,
}

impl Default for Generations {
    fn default() -> Self {
        Generations {
            wanted: AtomicU64::new(1),
            background: AtomicBool::new(false),
            kick: tokio::sync::Notify::new(),
            built: tokio::sync::watch::Sender::new(0),
        }
    }
}

impl Generations {
    /// A change was committed: what is built now is stale; the driver is woken.
    pub fn changed(&self) {
        self.wanted.fetch_add(1, Ordering::SeqCst);
        self.kick.notify_one();
    }

    /// The generation a build starting now reflects (read it before the database).
    pub fn wanted(&self) -> u64 {
        self.wanted.load(Ordering::SeqCst)
    }

    /// Whether a build of `generation` reflects every change announced so far.
    pub fn is_current(&self, generation: u64) -> bool {
        generation >= self.wanted()
    }

    /// Called by the driver when it starts.
    pub fn driving(&self) {
        self.background.store(true, Ordering::Release);
    }

    /// Whether a driver rebuilds in the background.
    pub fn driven(&self) -> bool {
        self.background.load(Ordering::Acquire)
    }

    /// Wakes the driver.
    pub fn kick(&self) {
        self.kick.notify_one();
    }

    /// Waits for a kick, at most `limit` (the driver's idle wait).
    pub async fn idle(&self, limit: Duration) {
        let _ = tokio::time::timeout(limit, self.kick.notified()).await;
    }

    /// A build of `generation` is in place.
    pub fn built(&self, generation: u64) {
        self.built.send_replace(generation);
    }

    /// Follows the builds: the receiver changes whenever a new one is in place.
    pub fn swaps(&self) -> tokio::sync::watch::Receiver<u64> {
        self.built.subscribe()
    }

    /// Waits (at most five seconds) until a build reflects every change announced before
    /// this call. A no-op without a driver or before the first build (`first_built`): the
    /// next read then rebuilds first.
    pub async fn caught_up(&self, first_built: bool) {
        if !self.driven() || !first_built {
            return;
        }
        let target = self.wanted();
        let mut built = self.built.subscribe();
        self.kick();
        let _ =
            tokio::time::timeout(Duration::from_secs(5), built.wait_for(|g| *g >= target)).await;
    }
}
