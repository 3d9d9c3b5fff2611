//! One immutable snapshot: the live offers, their ordered indexes, and the serialised items
//! and pages cached with it. Readers only ever see this type; how it is built and swapped is
//! the inventory's business (`mod.rs`), so the two change independently.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDate, Utc};

use super::feeds::FeedShelf;
use super::offer::Offer;
use crate::model::campaign::Platform;
use crate::model::publisher::OfferSort;

/// Which ordered index to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Bucket {
    pub(super) platform: Platform,
    /// `None`: every country.
    pub(super) country: Option<[u8; 2]>,
    pub(super) sort: OfferSort,
}

pub(super) const SORTS: [OfferSort; 4] = [
    OfferSort::Payout,
    OfferSort::ConversionRate,
    OfferSort::Epc,
    OfferSort::Ecpm,
];

/// An immutable view of the live inventory.
pub struct Snapshot {
    /// The change generation this snapshot reflects.
    pub(super) generation: u64,
    /// Distinct for every build; static-feed ETags and body caches key on it.
    pub version: u64,
    pub built_at: DateTime<Utc>,
    pub(super) built: Instant,
    /// When the campaigns were last read from the database (a recount keeps it).
    pub(super) loaded: Instant,
    /// The UTC day the cap counters were taken on.
    pub day: NaiveDate,
    pub(super) offers: Vec<Arc<Offer>>,
    pub(super) by_id: HashMap<String, u32>,
    pub(super) buckets: HashMap<Bucket, Vec<u32>>,
    /// Static feeds built from this snapshot, by slot, parameters and slot fingerprint.
    pub feeds: FeedShelf,
    /// Offer items serialised from this snapshot (or carried over from the one before, for
    /// campaigns not read again), by slot currency and campaign: an item depends on nothing
    /// else, so offer lists copy these bytes instead of building and serialising every item
    /// for every user.
    pub(super) items: std::sync::RwLock<ItemCache>,
    /// Whole offer-list pages for users with no counted conversions, by slot and query
    /// (`offer_list::list_body`), with when each was built (service clock): a page also
    /// depends on the clock (schedules), so it is used for [`PAGE_TTL`] only.
    pub(super) pages: std::sync::RwLock<HashMap<String, (DateTime<Utc>, bytes::Bytes)>>,
    /// Bytes held by `items` and `pages`, against their bounds.
    pub(super) item_bytes: AtomicUsize,
    pub(super) page_bytes: AtomicUsize,
}

/// How long a cached offer-list page is served: an offer whose schedule ends is listed
/// at most this much longer (a launch checks eligibility again, exactly).
pub const PAGE_TTL: chrono::TimeDelta = chrono::TimeDelta::seconds(1);
/// At most this many bytes of offer-list pages are kept per snapshot (a page of 20 items
/// is about 20 KB: about 800 slot and query combinations).
const MAX_PAGE_BYTES: usize = 16 << 20;

/// Serialised offer items by slot currency and campaign.
type ItemCache = HashMap<u64, HashMap<String, bytes::Bytes>>;

/// At most this many bytes of serialised items are kept per snapshot (an item is about
/// 1 KB: 10,000 live campaigns in one slot currency take about 10 MB).
const MAX_ITEM_BYTES: usize = 16 << 20;

impl Snapshot {
    pub(super) fn empty() -> Self {
        Snapshot {
            generation: 0,
            version: 0,
            built_at: DateTime::<Utc>::MIN_UTC,
            built: Instant::now(),
            loaded: Instant::now(),
            day: NaiveDate::MIN,
            offers: Vec::new(),
            by_id: HashMap::new(),
            buckets: HashMap::new(),
            feeds: FeedShelf::default(),
            items: Default::default(),
            pages: Default::default(),
            item_bytes: AtomicUsize::new(0),
            page_bytes: AtomicUsize::new(0),
        }
    }

    /// An item serialised from this snapshot earlier for a slot currency.
    pub fn item_json(&self, currency: u64, campaign_id: &str) -> Option<bytes::Bytes> {
        self.items
            .read()
            .ok()?
            .get(&currency)?
            .get(campaign_id)
            .cloned()
    }

    /// The serialised items a snapshot of `offers` can keep: an item depends only on its
    /// campaign as read (shared between snapshots until its row changes) and the slot
    /// currency, so a recount or reload carries them over instead of serialising every item
    /// again (and holding both copies meanwhile).
    pub(super) fn items_still_valid(&self, offers: &[Arc<Offer>]) -> (ItemCache, usize) {
        let Ok(items) = self.items.read() else {
            return Default::default();
        };
        let same =
            |id: &str, o: &Offer| self.get(id).is_some_and(|p| Arc::ptr_eq(&p.live, &o.live));
        let live: HashMap<&str, &Offer> = offers
            .iter()
            .map(|o| (o.campaign.id.as_str(), o.as_ref()))
            .collect();
        let mut bytes = 0;
        let kept = items
            .iter()
            .map(|(currency, by_id)| {
                let kept: HashMap<String, bytes::Bytes> = by_id
                    .iter()
                    .filter(|(id, _)| live.get(id.as_str()).is_some_and(|o| same(id, o)))
                    .map(|(id, json)| {
                        bytes += json.len() + id.len();
                        (id.clone(), json.clone())
                    })
                    .collect();
                (*currency, kept)
            })
            .collect();
        (kept, bytes)
    }

    /// Keeps an item serialised from this snapshot's offer (up to [`MAX_ITEM_BYTES`]).
    pub fn remember_item_json(&self, currency: u64, campaign_id: &str, json: bytes::Bytes) {
        let size = json.len() + campaign_id.len();
        if self.item_bytes.load(Ordering::Relaxed) + size > MAX_ITEM_BYTES {
            return;
        }
        if let Ok(mut items) = self.items.write()
            && items
                .entry(currency)
                .or_default()
                .insert(campaign_id.to_owned(), json)
                .is_none()
        {
            self.item_bytes.fetch_add(size, Ordering::Relaxed);
        }
    }

    /// An offer-list page built from this snapshot less than [`PAGE_TTL`] before `now`.
    pub fn page(&self, key: &str, now: DateTime<Utc>) -> Option<bytes::Bytes> {
        let pages = self.pages.read().ok()?;
        let (at, body) = pages.get(key)?;
        (*at <= now && now - *at < PAGE_TTL).then(|| body.clone())
    }

    /// Keeps an offer-list page (up to [`MAX_PAGE_BYTES`]; a rebuilt page replaces its
    /// expired one).
    pub fn remember_page(&self, key: String, now: DateTime<Utc>, body: bytes::Bytes) {
        let size = body.len() + key.len();
        if let Ok(mut pages) = self.pages.write() {
            let replaced = pages.get(&key).map_or(0, |(_, b)| b.len() + key.len());
            if replaced == 0 && self.page_bytes.load(Ordering::Relaxed) + size > MAX_PAGE_BYTES {
                return;
            }
            pages.insert(key, (now, body));
            self.page_bytes.fetch_add(size, Ordering::Relaxed);
            self.page_bytes.fetch_sub(replaced, Ordering::Relaxed);
        }
    }

    /// Live offers, newest approval first.
    pub fn all(&self) -> &[Arc<Offer>] {
        &self.offers
    }

    pub fn len(&self) -> usize {
        self.offers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.offers.is_empty()
    }

    /// Seconds since the build.
    pub fn age(&self) -> Duration {
        self.built.elapsed()
    }

    pub fn get(&self, campaign_id: &str) -> Option<&Arc<Offer>> {
        self.by_id
            .get(campaign_id)
            .map(|i| &self.offers[*i as usize])
    }

    /// Offers running on `platform` (and targeting `country` when given), in `sort` order.
    pub fn ordered(
        &self,
        platform: Platform,
        country: Option<&str>,
        sort: OfferSort,
    ) -> impl Iterator<Item = &Arc<Offer>> {
        let country = match country.map(str::as_bytes) {
            Some([a, b]) => Some([*a, *b]),
            Some(_) => Some([0, 0]),
            None => None,
        };
        self.buckets
            .get(&Bucket {
                platform,
                country,
                sort,
            })
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .map(|i| &self.offers[*i as usize])
    }
}
