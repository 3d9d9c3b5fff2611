//! The static feeds built from one snapshot: kept with it, so a feed never outlives a change
//! to the offers, and listed with what they were asked for, so the next snapshot can build
//! them again before anyone asks (`delivery::static_feed::keep_warm`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A serialised static feed, its ETag and what it was asked for with (a rebuilt snapshot
/// builds the same feeds again before anyone asks: `static_feed::keep_warm`).
pub struct CachedFeed {
    pub body: bytes::Bytes,
    pub etag: String,
    pub request: FeedRequest,
    /// Whether a pull asked for it (not only the warm-keeping that built it).
    pub pulled: std::sync::atomic::AtomicBool,
}

/// A static feed's parameters: the slot, the country filter and the platform.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FeedRequest {
    pub slot_id: String,
    pub country: Option<String>,
    pub platform: String,
}

/// At most this many bytes of feeds are kept per snapshot (memory stays bounded: a feed
/// of 100 offers is about 115 KB, so about 140 slot and parameter combinations).
const MAX_FEED_BYTES: usize = 16 << 20;

/// The feeds built from one snapshot, by slot, parameters and slot fingerprint, with the
/// bytes they hold (bounded by [`MAX_FEED_BYTES`]).
#[derive(Default)]
pub struct FeedShelf {
    feeds: Mutex<HashMap<String, Arc<CachedFeed>>>,
    bytes: AtomicUsize,
}

impl FeedShelf {
    /// A feed built from this snapshot earlier.
    pub fn get(&self, key: &str) -> Option<Arc<CachedFeed>> {
        self.feeds.lock().ok()?.get(key).cloned()
    }

    /// What the feeds built from this snapshot were asked for, and whether a pull asked.
    pub fn requests(&self) -> Vec<(FeedRequest, bool)> {
        self.feeds
            .lock()
            .map(|f| {
                f.values()
                    .map(|c| (c.request.clone(), c.pulled.load(Ordering::Relaxed)))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Keeps a feed built from this snapshot (up to [`MAX_FEED_BYTES`]).
    pub fn remember(&self, key: String, feed: CachedFeed) {
        let size = feed.body.len() + key.len();
        if self.bytes.load(Ordering::Relaxed) + size > MAX_FEED_BYTES {
            return;
        }
        if let Ok(mut feeds) = self.feeds.lock()
            && feeds.insert(key, Arc::new(feed)).is_none()
        {
            self.bytes.fetch_add(size, Ordering::Relaxed);
        }
    }
}
