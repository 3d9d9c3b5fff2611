//! Respondents as the survey fetch knows them, in memory with the database as the record
//! (issue 31): a respondent's stored profile and answers, the surveys they entered, and the
//! fraud score's inputs from earlier fetches (their fetches in the last hour, the other
//! respondents seen at their address in the last hour, the other respondents sharing their
//! `gps_id`).
//!
//! Each is read from the database once (a few indexed reads on first sight, never one per
//! survey), then kept up to date by this process's own fetches, whose writes go to the
//! database through the batch writer ([`writer`]). The database stays the record:
//!
//! - an entry recorded by the hosted entry announces `Change::SurveyEntered`, which adds the
//!   survey to the respondent's entered set here at once and in every other process within
//!   the two seconds of `domain::changes`;
//! - every entry is re-read after [`crate::domain::hot_cache::HOT_CACHE_TTL`] (10 s), so
//!   another process's fetches of the same respondent, address or device are counted
//!   within 10 s; this process's own are counted at once (in the database within the
//!   writer's batch interval, 20 ms);
//! - the hosted entry never trusts any of this: it reads the respondent from the database.

pub mod read;
pub mod writer;

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use chrono::{DateTime, NaiveDate, Utc};
use sea_orm::EntityTrait;

use super::profile::Profile;
use crate::domain::Ctx;
use crate::domain::hot_cache::{GuardedCache, HOT_CACHE_TTL, user_key};
use crate::error::AppError;
use entity::survey_respondent as respondent;

/// Entries kept per cache at most (then the oldest go; see `GuardedCache`).
const MAX_ENTRIES: usize = 200_000;
/// What a fetch's fraud score looks back over.
const WINDOW: chrono::Duration = chrono::Duration::hours(1);
/// Fetch times kept per respondent: the velocity rule needs to know "more than 30".
pub(crate) const RECENT_KEPT: usize = 32;
/// Respondents kept per address or device: the rules need "more than 5" and "3 or more".
pub(crate) const OTHERS_KEPT: usize = 8;

/// A respondent's profile as stored, with what this process's fetches added since.
#[derive(Debug, Clone, Default)]
pub struct Known {
    pub id: String,
    pub date_of_birth: Option<NaiveDate>,
    pub gender: Option<String>,
    pub zip: Option<String>,
    pub gps_id: Option<String>,
    pub answers: HashMap<String, Vec<String>>,
    /// Campaigns entered (any outcome).
    pub entered: HashSet<String>,
    /// Fetch times within the window, oldest first.
    pub recent: VecDeque<DateTime<Utc>>,
}

impl Known {
    /// Takes the fetch's profile: fields it omits keep their stored values, and an answer
    /// to a question replaces the stored one (the rules of the stored row).
    pub fn merge(&mut self, p: &Profile) {
        if p.date_of_birth.is_some() {
            self.date_of_birth = p.date_of_birth;
        }
        if let Some(g) = p.gender {
            self.gender = Some(g.to_owned());
        }
        if p.zip.is_some() {
            self.zip = p.zip.clone();
        }
        if p.gps_id.is_some() {
            self.gps_id = p.gps_id.clone();
        }
        for (q, ids, _) in &p.answers {
            self.answers.insert(q.clone(), ids.clone());
        }
    }

    /// Fetches within the window before `now`.
    pub fn fetches_since(&mut self, now: DateTime<Utc>) -> usize {
        while self.recent.front().is_some_and(|t| *t < now - WINDOW) {
            self.recent.pop_front();
        }
        self.recent.len()
    }

    pub fn record_fetch(&mut self, now: DateTime<Utc>) {
        self.recent.push_back(now);
        while self.recent.len() > RECENT_KEPT {
            self.recent.pop_front();
        }
    }
}

/// Respondents seen at one address: `(respondent id, last fetch)`.
pub type Seen = Mutex<Vec<(String, DateTime<Utc>)>>;

/// The fetch's inputs from earlier fetches (`fraud::score`).
#[derive(Debug, Clone, Copy, Default)]
pub struct History {
    pub fetches_last_hour: usize,
    pub others_at_address: usize,
    pub others_on_device: usize,
}

/// The caches of this process.
pub struct Respondents {
    /// By `placement|external user id`.
    pub known: GuardedCache<Arc<Mutex<Known>>>,
    /// By address.
    pub addresses: GuardedCache<Arc<Seen>>,
    /// Respondent ids by `gps_id`.
    pub devices: GuardedCache<Arc<Mutex<HashSet<String>>>>,
}

impl Default for Respondents {
    fn default() -> Self {
        Respondents {
            known: GuardedCache::new(HOT_CACHE_TTL, MAX_ENTRIES),
            addresses: GuardedCache::new(HOT_CACHE_TTL, MAX_ENTRIES),
            devices: GuardedCache::new(HOT_CACHE_TTL, MAX_ENTRIES),
        }
    }
}

/// The id a new respondent gets: derived from the placement and the user with the service
/// key, so two processes that meet the same new user at once give them the same id (the
/// writer's insert of one becomes an update by the other).
pub fn new_respondent_id(ctx: &Ctx, placement_id: &str, user_id: &str) -> String {
    let sig = ctx
        .keys
        .sign(&format!("survey-respondent:{placement_id}|{user_id}"));
    format!("rsp_{}", &sig[..sig.len().min(32)])
}

/// Makes sure a respondent the survey fetch just met is in the database: this process's
/// fetch writer is flushed, and a row another process's writer has not committed yet is
/// waited for briefly (its batches commit every 20 ms). A link whose respondent is still
/// missing (its fetch was lost in a crash) then opens as an invalid link.
pub async fn stored(ctx: &Ctx, respondent_id: &str) -> Result<(), AppError> {
    ctx.surveys.writes.flush().await;
    for _ in 0..5 {
        if respondent::Entity::find_by_id(respondent_id.to_owned())
            .one(&ctx.db)
            .await?
            .is_some()
        {
            return Ok(());
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    Ok(())
}

/// What one fetch found of its respondent: the respondent (profile merged), and the
/// address and device records it is counted into by [`Sighting::record`].
pub struct Sighting {
    pub known: Arc<Mutex<Known>>,
    address: Arc<Seen>,
    device: Option<Arc<Mutex<HashSet<String>>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Respondents {
    /// The respondent, their address and device as earlier fetches left them: from memory,
    /// or when any of them is not there, read from the database in one statement
    /// ([`read`]).
    pub async fn sight(
        &self,
        ctx: &Ctx,
        placement_id: &str,
        p: &Profile,
        now: DateTime<Utc>,
    ) -> Result<Sighting, AppError> {
        let key = user_key(placement_id, &p.user_id);
        let ip = p.ip.to_string();
        // Read before the database: an invalidation meanwhile keeps what was read out.
        let generations = (
            self.known.generation(),
            self.addresses.generation(),
            self.devices.generation(),
        );
        let known = self.known.get(&key);
        let address = self.addresses.get(&ip);
        let device = p.gps_id.as_ref().map(|g| self.devices.get(g));
        if let (Some(known), Some(address)) = (&known, &address)
            && device.as_ref().is_none_or(Option::is_some)
        {
            return Ok(Sighting {
                known: known.clone(),
                address: address.clone(),
                device: device.flatten(),
            });
        }
        let found = Box::pin(read::read(
            &ctx.db,
            placement_id,
            &p.user_id,
            &ip,
            p.gps_id.as_deref(),
            now - WINDOW,
        ))
        .await?;
        let known = known.unwrap_or_else(|| {
            let k = found.respondent.unwrap_or_else(|| Known {
                id: new_respondent_id(ctx, placement_id, &p.user_id),
                ..Known::default()
            });
            let k = Arc::new(Mutex::new(k));
            self.known.insert(generations.0, key, k.clone());
            k
        });
        let address = address.unwrap_or_else(|| {
            let a = Arc::new(Mutex::new(found.at_address));
            self.addresses.insert(generations.1, ip, a.clone());
            a
        });
        let device = match (device, &p.gps_id) {
            (Some(Some(d)), _) => Some(d),
            (Some(None), Some(g)) => {
                let d = Arc::new(Mutex::new(found.on_device));
                self.devices.insert(generations.2, g.clone(), d.clone());
                Some(d)
            }
            _ => None,
        };
        Ok(Sighting {
            known,
            address,
            device,
        })
    }

    /// Adds a campaign the respondent entered (`Change::SurveyEntered`).
    pub fn entered(&self, key: &str, campaign_id: &str) {
        self.known.touch(key, |k| {
            lock(k).entered.insert(campaign_id.to_owned());
        });
    }

    /// Drops everything (`Change::Everything`).
    pub fn clear(&self) {
        self.known.clear();
        self.addresses.clear();
        self.devices.clear();
    }
}

impl Sighting {
    /// Merges the fetch's profile and returns the fraud score's inputs from earlier fetches
    /// (this one not yet counted).
    pub fn history(&self, p: &Profile, now: DateTime<Utc>) -> (Known, History) {
        let mut k = lock(&self.known);
        k.merge(p);
        let fetches_last_hour = k.fetches_since(now);
        let others_at_address = lock(&self.address)
            .iter()
            .filter(|(id, at)| *id != k.id && *at >= now - WINDOW)
            .count();
        let others_on_device = self
            .device
            .as_ref()
            .map_or(0, |d| lock(d).iter().filter(|id| **id != k.id).count());
        (
            k.clone(),
            History {
                fetches_last_hour,
                others_at_address,
                others_on_device,
            },
        )
    }

    /// Counts this fetch for the next ones of the respondent, the address and the device.
    pub fn record(&self, respondent_id: &str, now: DateTime<Utc>) {
        lock(&self.known).record_fetch(now);
        let mut seen = lock(&self.address);
        match seen.iter_mut().find(|(id, _)| id == respondent_id) {
            Some(s) => s.1 = now,
            None => {
                seen.push((respondent_id.to_owned(), now));
                if seen.len() > OTHERS_KEPT * 2 {
                    seen.sort_by_key(|s| std::cmp::Reverse(s.1));
                    seen.truncate(OTHERS_KEPT);
                }
            }
        }
        if let Some(d) = &self.device {
            lock(d).insert(respondent_id.to_owned());
        }
    }
}
