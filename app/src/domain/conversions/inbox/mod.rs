//! The conversion inbox as a queue for bursts.
//!
//! A report is normally settled in the transaction that records it, so its answer follows
//! the settlement. Settlements of one campaign run one at a time under its row lock, which
//! caps a campaign at what one settlement after another can do. When reports arrive faster
//! than that (earlier reports are still waiting, or every inline slot is busy), a report is
//! instead accepted with one durable insert as a `QUEUED` inbox row and answered at once;
//! the specification allows exactly this ("200 means durably placed in the processing
//! inbox, not that the reward settled"). The settler takes queued rows oldest first and
//! settles each campaign's waiting reports in one transaction under one lock, with the same
//! rules as the inline path (`settlement::apply`).
//!
//! What acceptance still decides at once: authentication (the caller), exact retries (the
//! inbox's unique `(campaign, event hash)` gives the same receipt) and a transaction id
//! reused with another click or goal (checked against every earlier report of it, 409).
//! Two conflicting reports racing each other into the queue are both accepted; the settler
//! applies the first and records the second as `TRANSACTION_CONFLICT` without effect.
//!
//! Queueing is on only where a settler runs in this process (the worker loop) on
//! PostgreSQL; a process started without workers, or on SQLite (one writer: queueing only
//! adds contention for its write lock), settles every report inline.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};
use tokio::sync::Notify;

mod accept;
mod group;

pub use group::GroupCounts;

use super::reported::{
    InboxState, Outcome, Reported, Settlement, Trust, event_hash, parse_occurred_at,
};
use super::settlement::{self, Applied};
use crate::domain::changes::Change;
use crate::domain::{Ctx, db};
use crate::error::AppError;
use crate::model::delivery::CallbackReceipt;
pub(in crate::domain) use accept::Receipt;
use entity::{offer_campaign, postback_event};

/// Outcome of an accepted report that waits for the settler.
pub const QUEUED: &str = InboxState::Queued.as_str();
/// Outcome of a queued report whose transaction id an earlier report holds with another
/// click or goal.
pub const TRANSACTION_CONFLICT: &str = InboxState::TransactionConflict.as_str();
/// Outcome of a queued report that failed to settle [`MAX_ATTEMPTS`] times (logged).
pub const SETTLEMENT_FAILED: &str = InboxState::SettlementFailed.as_str();

/// Reports settled per transaction by the settler. Small enough that one transaction holds
/// SQLite's write lock for milliseconds, not seconds, while acceptance inserts wait on it.
const BATCH: u64 = 64;
/// How often the settler retries a report whose settlement fails before giving up on it.
const MAX_ATTEMPTS: u32 = 5;
/// Inline settlements in flight at once before further reports are queued.
const INLINE_SLOTS: usize = 2;

/// Process-wide state of the inbox queue.
pub struct Inbox {
    /// A settler loop runs in this process (queueing is allowed).
    settler: AtomicBool,
    /// Reports this process queued that the settler has not settled yet.
    waiting: AtomicUsize,
    /// The settler is settling a batch (it holds campaign locks an inline settlement would
    /// wait for).
    settling: AtomicBool,
    /// Inline settlements in flight.
    inline: AtomicUsize,
    inline_slots: usize,
    wake: Notify,
    /// Failed settlement attempts per receipt (forgotten on success or give-up).
    failures: Mutex<HashMap<String, u32>>,
    /// SQLite: the reports waiting to be settled together (`group`).
    groups: group::Groups,
}

impl Default for Inbox {
    fn default() -> Self {
        Self::new(INLINE_SLOTS)
    }
}

/// Where a report goes.
pub enum Route<'a> {
    /// Settle now; the slot is given back when dropped.
    Inline(InlineSlot<'a>),
    /// Accept into the queue.
    Queue,
}

/// An inline settlement in flight.
pub struct InlineSlot<'a>(&'a AtomicUsize);

impl Drop for InlineSlot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Inbox {
    /// Called by the settler loop when it starts: from now on bursts are queued.
    pub fn settler_started(&self) {
        self.settler.store(true, Ordering::Release);
    }

    /// An inbox that settles up to `inline_slots` reports in their requests at once before
    /// it queues further ones (`APP_SETTLEMENT_INLINE_SLOTS`; 0 queues every report).
    pub fn new(inline_slots: usize) -> Self {
        Self {
            settler: AtomicBool::new(false),
            waiting: AtomicUsize::new(0),
            settling: AtomicBool::new(false),
            inline: AtomicUsize::new(0),
            inline_slots,
            wake: Notify::new(),
            failures: Mutex::default(),
            groups: group::Groups::default(),
        }
    }

    /// Reports this process queued and has not settled yet.
    fn waiting(&self) -> usize {
        self.waiting.load(Ordering::Acquire)
    }

    /// Resolves when a report was queued (the settler waits on this between rounds).
    pub async fn queued(&self) {
        self.wake.notified().await;
    }

    /// Inline while nothing waits, the settler is idle and a slot is free, so reports of a
    /// campaign are settled in the order they arrived and an answer never waits behind a
    /// batch; queued otherwise.
    pub fn route(&self) -> Route<'_> {
        let queueing = self.settler.load(Ordering::Acquire);
        if queueing && (self.waiting() > 0 || self.settling.load(Ordering::Acquire)) {
            return Route::Queue;
        }
        let busy = self.inline.fetch_add(1, Ordering::AcqRel);
        if queueing && busy >= self.inline_slots {
            self.inline.fetch_sub(1, Ordering::AcqRel);
            return Route::Queue;
        }
        Route::Inline(InlineSlot(&self.inline))
    }

    /// What SQLite's settlement groups in this process did since it started.
    pub fn group_counts(&self) -> GroupCounts {
        self.groups.counts()
    }

    fn settled(&self, n: usize) {
        // Rows queued by an earlier run of the process are settled too: never below zero.
        let _ = self
            .waiting
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |w| {
                Some(w.saturating_sub(n))
            });
    }
}

/// Accepts one report into the inbox. Normally it is settled in the same transaction, so
/// the answer follows the settlement; during a burst (earlier reports still waiting, or
/// every inline slot busy) it is queued for the settler instead (`inbox`), which the
/// specification allows: 200 means durably in the processing inbox.
pub async fn ingest(
    ctx: &Ctx,
    campaign: &offer_campaign::Model,
    source: &str,
    ev: Reported,
) -> Result<CallbackReceipt, AppError> {
    match ctx.inbox.route() {
        Route::Queue => accept::accept(ctx, campaign, source, &ev, &event_hash(&ev)).await,
        // SQLite has one writer: this process's reports settle in groups (`group`).
        Route::Inline(_slot) if ctx.db.get_database_backend() == sea_orm::DbBackend::Sqlite => {
            group::settle(ctx, campaign, source, ev).await
        }
        Route::Inline(_slot) => accept::settle_now(ctx, campaign, source, ev).await,
    }
}

/// Reports waiting in the queue (all processes), for the operator's gauge.
pub async fn queued_count(db: &sea_orm::DatabaseConnection) -> Result<u64, AppError> {
    use sea_orm::PaginatorTrait;
    Ok(postback_event::Entity::find()
        .filter(postback_event::Column::Outcome.eq(QUEUED))
        .count(db)
        .await?)
}

/// Settles up to one batch of queued reports, oldest first, one transaction per campaign;
/// returns how many it took (0 when the queue is empty).
pub async fn settle_queued(ctx: &Ctx) -> Result<usize, AppError> {
    let rows = postback_event::Entity::find()
        .filter(postback_event::Column::Outcome.eq(QUEUED))
        .order_by_asc(postback_event::Column::ReceivedAt)
        .order_by_asc(postback_event::Column::Id)
        .limit(BATCH)
        .all(&ctx.db)
        .await?;
    if rows.is_empty() {
        // Nothing waits in the database: whatever this process counted has been settled
        // (and a settler that panicked mid-batch left no lasting "settling").
        ctx.inbox.waiting.store(0, Ordering::Release);
        ctx.inbox.settling.store(false, Ordering::Release);
        return Ok(0);
    }
    let taken = rows.len();
    ctx.inbox.settling.store(true, Ordering::Release);
    let result = settle_rows(ctx, rows).await;
    ctx.inbox.settling.store(false, Ordering::Release);
    result?;
    ctx.inbox.settled(taken);
    Ok(taken)
}

/// Settles the rows of one batch, campaign by campaign.
async fn settle_rows(ctx: &Ctx, rows: Vec<postback_event::Model>) -> Result<(), AppError> {
    // Campaigns in the order of their oldest waiting report; each keeps its reports' order.
    let mut campaigns: Vec<(String, Vec<postback_event::Model>)> = Vec::new();
    for row in rows {
        match campaigns.iter_mut().find(|(id, _)| *id == row.campaign_id) {
            Some((_, list)) => list.push(row),
            None => campaigns.push((row.campaign_id.clone(), vec![row])),
        }
    }
    for (campaign_id, reports) in campaigns {
        if let Err(e) = settle_campaign(ctx, &campaign_id, &reports).await {
            tracing::warn!(campaign = %campaign_id, error = %e, "queued settlement failed; retrying one by one");
            for report in &reports {
                if let Err(e) =
                    settle_campaign(ctx, &campaign_id, std::slice::from_ref(report)).await
                {
                    give_up_after_attempts(ctx, report, &e).await?;
                }
            }
        }
    }
    Ok(())
}

/// Settles a campaign's queued reports in one transaction under its lock.
async fn settle_campaign(
    ctx: &Ctx,
    campaign_id: &str,
    reports: &[postback_event::Model],
) -> Result<(), AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let campaign = settlement::lock_campaign(&txn, campaign_id).await?;
    let mut batch = settlement::Batch::for_reports(reports.len(), ctx);
    let mut seen = settlement::Lookups::with_launches(
        &txn,
        campaign_id,
        reports.iter().map(|r| r.click_id.clone()),
    )
    .await?;
    batch.expect_clicks(seen.launches());
    let mut users = Vec::new();
    let mut worst: Option<Outcome> = None;
    // Another process's settler may have settled some meanwhile (it held this lock).
    let still_queued: Vec<String> = postback_event::Entity::find()
        .select_only()
        .column(postback_event::Column::Id)
        .filter(postback_event::Column::Id.is_in(reports.iter().map(|r| r.id.clone())))
        .filter(postback_event::Column::Outcome.eq(QUEUED))
        .into_tuple()
        .all(&txn)
        .await?;
    for report in reports.iter().filter(|r| still_queued.contains(&r.id)) {
        let ev = reported(report);
        let attribution = settlement::attribute(&txn, &campaign, &ev, &mut seen).await?;
        let applied = settlement::apply(&txn, now, &campaign, &ev, attribution, &mut batch).await?;
        let (outcome, conversion_id) = match applied {
            Applied::Conflict => (Outcome::Inbox(InboxState::TransactionConflict), None),
            Applied::Settled(s) => {
                users.extend(s.user);
                (s.outcome, Some(s.conversion_id))
            }
        };
        worst = worse(worst, outcome);
        postback_event::Entity::update_many()
            .col_expr(postback_event::Column::Outcome, outcome.as_str().into())
            .col_expr(postback_event::Column::ConversionId, conversion_id.into())
            .filter(postback_event::Column::Id.eq(report.id.clone()))
            .exec(&txn)
            .await?;
    }
    let reserve_left = batch.commit(txn, now).await?;
    ctx.deliveries.announce();
    for user in users {
        ctx.announce([Change::Completions(user)]);
    }
    if let Ok(mut failures) = ctx.inbox.failures.lock() {
        for report in reports {
            failures.remove(&report.id);
        }
    }
    if let Some(outcome) = worst {
        settlement::after_settlement(ctx, now, &campaign, outcome, reserve_left).await?;
    }
    Ok(())
}

/// What a batch's settlements mean for the inventory so far: any cap or budget refusal,
/// else any payment (`settlement::after_settlement` looks for a used-up reserve or cap).
fn worse(worst: Option<Outcome>, outcome: Outcome) -> Option<Outcome> {
    match (worst, outcome) {
        (_, Outcome::Settled(Settlement::CapReached | Settlement::NoBudget)) => {
            Some(Outcome::Settled(Settlement::CapReached))
        }
        (None, Outcome::Settled(Settlement::Approved)) => Some(outcome),
        (w, _) => w,
    }
}

/// Counts a failed attempt for a report settled alone; after [`MAX_ATTEMPTS`] it is marked
/// `SETTLEMENT_FAILED` (and logged) so it cannot hold up the queue behind it.
async fn give_up_after_attempts(
    ctx: &Ctx,
    report: &postback_event::Model,
    error: &AppError,
) -> Result<(), AppError> {
    let attempts = ctx
        .inbox
        .failures
        .lock()
        .map(|mut f| {
            let n = f.entry(report.id.clone()).or_insert(0);
            *n += 1;
            *n
        })
        .unwrap_or(MAX_ATTEMPTS);
    if attempts < MAX_ATTEMPTS {
        // Left queued; the next round tries again.
        return Err(AppError::internal());
    }
    tracing::error!(receipt = %report.id, campaign = %report.campaign_id, error = %error,
        "a queued conversion report could not be settled; marked SETTLEMENT_FAILED");
    if let Ok(mut f) = ctx.inbox.failures.lock() {
        f.remove(&report.id);
    }
    postback_event::Entity::update_many()
        .col_expr(postback_event::Column::Outcome, SETTLEMENT_FAILED.into())
        .filter(postback_event::Column::Id.eq(report.id.clone()))
        .filter(postback_event::Column::Outcome.eq(QUEUED))
        .exec(&ctx.db)
        .await?;
    Ok(())
}

/// The report as it was accepted (validated then; the stored values are the sent ones).
fn reported(row: &postback_event::Model) -> Reported {
    Reported {
        click_id: row.click_id.clone(),
        transaction_id: row.transaction_id.clone(),
        goal_id: row.goal_id.clone(),
        status: row.status,
        occurred_at_raw: row.occurred_at.clone(),
        occurred_at: parse_occurred_at(&row.occurred_at).unwrap_or_default(),
        trust: if row.source == super::reported::WEB_PIXEL_SOURCE {
            Trust::Pixel
        } else {
            Trust::Reported
        },
        received_at: Some(row.received_at),
    }
}
