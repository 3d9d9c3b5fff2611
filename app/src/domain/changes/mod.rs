//! How a committed change reaches every cache of every process: the one place that
//! announces a change and the one place that hears other processes' announcements.
//!
//! A write commits, then calls [`Ctx::announce`] (or [`Ctx::commit_and_announce`]) with what
//! it changed. The change is applied to this process's caches at once, before the write
//! answers, so the very next request here sees it; and it is handed to the publisher
//! ([`transport`]), which sends it to the other processes on the same database:
//! PostgreSQL `NOTIFY cache_changes`, heard by every process's `LISTEN`; on SQLite a
//! version row every process polls each second. The bound, documented in
//! docs/operations.md ("Caches and staleness"), is **2 seconds** after the commit.
//!
//! What cannot arrive is covered without trusting it: a listener that lost its connection
//! drops every cache when it is back (notifications sent meanwhile are lost), and the time
//! limits of the caches themselves (10 s for the per-user caches, 60 s for a full inventory
//! reload and for delivery configuration) bound a process that died between its commit and
//! its announcement; a LISTEN connection that went silent is found by its probe
//! ([`transport::Timing::probe_after`]); and shutdown sends what is still gathering ([`Changes::flush`]).

pub mod generations;
pub mod transport;

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use sea_orm::DatabaseTransaction;
use tokio::sync::mpsc;

use super::Ctx;
use crate::error::AppError;

/// Changes waiting for the publisher at most; beyond it the next announcement says
/// "everything" instead (memory stays bounded; correctness does not depend on the list).
const QUEUE: usize = 8192;

/// What a committed write changed, as the caches know it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Change {
    /// A campaign's status, configuration, budget, or a settlement that used up a reserve
    /// or a cap: the live offer inventory.
    Offers,
    /// A placement, slot, blacklist, review or callback setting: delivery configuration.
    DeliveryConfig,
    /// One SDK session, by token hash (refreshed or revoked).
    Session(String),
    /// One user's bans on a placement, by `placement|user`.
    Ban(String),
    /// One user's counted conversions on a placement, by `placement|user`.
    Completions(String),
    /// Static feed keys (a key issued replaces the slot's others).
    StaticKeys,
    /// Survey-fetch app keys (a key issued revokes the placement's previous one).
    AppKeys,
    /// A survey campaign's status, configuration, quotas, qualifications or payment, or a
    /// reported outcome: the live surveys.
    Surveys,
    /// A respondent entered a survey, by `campaign|placement|user`.
    SurveyEntered(String),
    /// Everything (announcements may have been missed).
    Everything,
}

impl Change {
    /// The change as sent to other processes.
    pub fn encode(&self) -> String {
        match self {
            Change::Offers => "offers".to_owned(),
            Change::DeliveryConfig => "config".to_owned(),
            Change::StaticKeys => "static-keys".to_owned(),
            Change::AppKeys => "app-keys".to_owned(),
            Change::Surveys => "surveys".to_owned(),
            Change::SurveyEntered(k) => format!("entered:{k}"),
            Change::Everything => "everything".to_owned(),
            Change::Session(k) => format!("session:{k}"),
            Change::Ban(k) => format!("ban:{k}"),
            Change::Completions(k) => format!("completions:{k}"),
        }
    }

    /// A change another process sent; anything unknown (a newer version's change) is taken
    /// as everything, which is always safe.
    pub fn decode(s: &str) -> Change {
        match s.split_once(':') {
            None => match s {
                "offers" => Change::Offers,
                "config" => Change::DeliveryConfig,
                "static-keys" => Change::StaticKeys,
                "app-keys" => Change::AppKeys,
                "surveys" => Change::Surveys,
                _ => Change::Everything,
            },
            Some(("session", k)) => Change::Session(k.to_owned()),
            Some(("ban", k)) => Change::Ban(k.to_owned()),
            Some(("completions", k)) => Change::Completions(k.to_owned()),
            Some(("entered", k)) => Change::SurveyEntered(k.to_owned()),
            Some(_) => Change::Everything,
        }
    }
}

/// This process's end of the announcements.
pub struct Changes {
    /// Tells this process's announcements from others' (PostgreSQL echoes them back).
    origin: String,
    outgoing: mpsc::Sender<Change>,
    /// Taken by the publisher when it starts (a CLI command never starts one).
    incoming: Mutex<Option<mpsc::Receiver<Change>>>,
    overflowed: AtomicBool,
    /// Whether the first subscription to other processes' changes is in place (start-up
    /// builds the caches only after it, so nothing committed in between is missed).
    listening: AtomicBool,
    /// SQLite: steps of the version row made by this process.
    own_steps: AtomicU64,
    /// Changes applied that another process announced.
    heard: AtomicU64,
    /// Changes handed to the publisher and not yet sent (or given up on): shutdown waits
    /// for them ([`Changes::flush`]).
    unsent: AtomicU64,
    /// How long announcements gather and how long the listener waits before it probes.
    pub timing: transport::Timing,
}

impl Default for Changes {
    fn default() -> Self {
        Changes::with_timing(transport::Timing::default())
    }
}

impl Changes {
    /// This process's end with its own timing (the server's settings; tests shorten the
    /// probe and lengthen the gathering to make a lost announcement observable).
    pub fn with_timing(timing: transport::Timing) -> Self {
        let (outgoing, incoming) = mpsc::channel(QUEUE);
        Changes {
            origin: crate::domain::ids::new_id("proc"),
            outgoing,
            incoming: Mutex::new(Some(incoming)),
            overflowed: AtomicBool::new(false),
            listening: AtomicBool::new(false),
            own_steps: AtomicU64::new(0),
            heard: AtomicU64::new(0),
            unsent: AtomicU64::new(0),
            timing,
        }
    }

    fn publish(&self, change: Change) {
        self.unsent.fetch_add(1, Ordering::SeqCst);
        if self.outgoing.try_send(change).is_err() {
            // The next batch says "everything" instead; it stands for this change too.
            self.overflowed.store(true, Ordering::SeqCst);
            self.sent(1);
        }
    }

    /// The publisher is done with `n` changes (sent, or given up on after its timeout).
    fn sent(&self, n: u64) {
        let _ = self
            .unsent
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |u| {
                Some(u.saturating_sub(n))
            });
    }

    /// Waits until every change announced so far has been sent to the other processes, or
    /// `limit` has passed (shutdown calls this before it stops the publisher, so changes
    /// still gathering are not lost with the process). Whether all were sent.
    pub async fn flush(&self, limit: std::time::Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        while self.unsent.load(Ordering::SeqCst) > 0 {
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        true
    }

    /// Whether the subscription to other processes' changes is in place.
    pub fn is_listening(&self) -> bool {
        self.listening.load(Ordering::Acquire)
    }

    /// How many changes from other processes were applied (metrics and tests).
    pub fn heard(&self) -> u64 {
        self.heard.load(Ordering::Relaxed)
    }
}

impl Ctx {
    /// Call after committing a write, before answering: this process's caches drop what
    /// changed at once, other processes' within the bound of this module.
    pub fn announce(&self, changes: impl IntoIterator<Item = Change>) {
        for change in changes {
            apply(self, &change);
            self.changes.publish(change);
        }
    }

    /// Commits `txn`, then announces `changes` (nothing is announced when the commit fails);
    /// a change to offers waits until this process's inventory reflects it.
    pub async fn commit_and_announce(
        &self,
        txn: DatabaseTransaction,
        changes: impl IntoIterator<Item = Change>,
    ) -> Result<(), AppError> {
        txn.commit().await?;
        let (mut offers, mut surveys) = (false, false);
        for change in changes {
            offers |= matches!(change, Change::Offers | Change::Everything);
            surveys |= matches!(change, Change::Surveys | Change::Everything);
            self.announce([change]);
        }
        if offers {
            // The answer leaves only once the inventory no longer serves the old offer.
            self.inventory.caught_up().await;
        }
        if surveys {
            // Likewise for the live surveys.
            self.surveys.live.caught_up().await;
        }
        Ok(())
    }
}

/// Drops what `change` made stale from this process's caches.
pub fn apply(ctx: &Ctx, change: &Change) {
    match change {
        Change::Offers => ctx.inventory.changed(),
        Change::DeliveryConfig => ctx.delivery_configs.changed(),
        Change::Session(hash) => ctx.hot.sessions.invalidate(hash),
        Change::Ban(key) => ctx.hot.bans.invalidate(key),
        Change::Completions(key) => ctx.hot.completions.invalidate(key),
        Change::StaticKeys => ctx.hot.static_keys.clear(),
        Change::AppKeys => ctx.surveys.app_keys.clear(),
        Change::Surveys => ctx.surveys.live.changed(),
        Change::SurveyEntered(k) => {
            if let Some((campaign, respondent)) = k.split_once('|') {
                ctx.surveys.respondents.entered(respondent, campaign);
            }
        }
        Change::Everything => {
            ctx.surveys.live.changed();
            ctx.surveys.app_keys.clear();
            ctx.surveys.respondents.clear();
            ctx.inventory.changed();
            ctx.delivery_configs.changed();
            ctx.hot.sessions.clear();
            ctx.hot.bans.clear();
            ctx.hot.completions.clear();
            ctx.hot.static_keys.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Change;

    #[test]
    fn changes_travel_as_text_and_unknown_ones_mean_everything() {
        for c in [
            Change::Offers,
            Change::DeliveryConfig,
            Change::StaticKeys,
            Change::Everything,
            Change::Session("abc".into()),
            Change::Ban("pl_1|user:with:colons".into()),
            Change::Completions("pl_1|u".into()),
            Change::AppKeys,
            Change::Surveys,
            Change::SurveyEntered("svc_1|pl_1|user|with|bars".into()),
        ] {
            assert_eq!(Change::decode(&c.encode()), c);
        }
        assert_eq!(Change::decode("payouts"), Change::Everything);
        assert_eq!(Change::decode("quota:1"), Change::Everything);
    }
}
