//! Group commit of inline settlements on SQLite.
//!
//! SQLite has one writer. Settled one by one, every report took the write lock for its own
//! transaction, and the reports waiting for it slept in SQLite's busy handler (1, 2, 5, 10 …
//! ms between tries) while the lock stood free: the settlement benchmark used 1.2 of 2 cores
//! and a report's p50 was 15 ms. Here the reports of one process are settled in groups: whoever
//! takes the *reading turn* takes every report waiting at that moment (up to [`MAX_GROUP`]),
//! reads what settling them needs (launches in one query per campaign, attributions, fraud
//! evidence once), then takes the *writing turn*
//! and settles them all in one transaction, with the same rules, order and answers as one by
//! one (`settle_now`), and answers each after the commit. The reading turn is given back as
//! soon as the group holds the writing turn, so the next group reads while this one writes;
//! both turns are FIFO, so groups commit in the order they were formed. Nothing waits on
//! purpose: a report alone is settled at once.
//!
//! Each campaign of a group is locked once and its reports share one [`Batch`] (postings
//! written together, the reserve tracked in memory). When the group's transaction fails, its
//! reports are settled again one by one, so one bad report answers its own error and the rest
//! settle; during a database outage every report answers 503 at once.
//!
//! What waits has a limit: a report waits for its answer at most [`GROUP_WAIT`], then answers
//! 503. A report no group took by then is dropped (its retry settles it); one a group took is
//! settled, and its retry answers that receipt.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sea_orm::{DatabaseConnection, EntityTrait};
use tokio::sync::oneshot;

use super::super::reported::{Outcome, Reported, Settlement, event_hash, transaction_conflict};
use super::super::settlement::{
    Applied, Attribution, Batch, Lookups, after_settlement, apply, attribute, lock_campaign,
    prefetch_screening,
};
use super::accept::{Receipt, earlier_receipt, settle_now};
use super::worse;
use crate::domain::changes::Change;
use crate::domain::{Ctx, db, ids::new_id};
use crate::error::AppError;
use crate::model::delivery::CallbackReceipt;
use entity::{offer_campaign, postback_event};

/// Reports settled in one transaction at most (the write lock is held for milliseconds).
pub const MAX_GROUP: usize = 128;
/// How long a report waits for its turn and its answer.
pub const GROUP_WAIT: Duration = Duration::from_secs(10);

type Answer = Result<CallbackReceipt, AppError>;

/// A report waiting to be settled, and where its answer goes.
struct Waiting {
    campaign: offer_campaign::Model,
    source: String,
    ev: Reported,
    answer: oneshot::Sender<Answer>,
}

/// The reports of this process waiting for a group, and the two turns.
#[derive(Default)]
pub struct Groups {
    waiting: Mutex<Vec<Waiting>>,
    /// Held by the group forming and reading (FIFO: the longest-waiting report goes next).
    reading: Arc<tokio::sync::Mutex<()>>,
    /// Held by the group writing (taken before the reading turn is given back).
    writing: Arc<tokio::sync::Mutex<()>>,
    /// Groups settled and the reports they took (the metrics; tests see that groups form).
    groups: AtomicU64,
    reports: AtomicU64,
    /// Groups whose transaction failed (their reports were settled one by one).
    failed: AtomicU64,
    /// Time spent reading for groups and writing them, in microseconds: which turn limits
    /// the rate (a group reads while the one before writes).
    reading_micros: AtomicU64,
    writing_micros: AtomicU64,
    /// The connection groups write through ([`Groups::writer`]).
    writer: tokio::sync::OnceCell<DatabaseConnection>,
}

/// What the groups of this process did since it started (`/metrics`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GroupCounts {
    /// Groups settled.
    pub groups: u64,
    /// Reports they took.
    pub reports: u64,
    /// Groups whose transaction failed (settled again one by one) or that waited too long.
    pub failed: u64,
    /// Time spent reading for groups (launches, attributions, fraud evidence).
    pub reading: Duration,
    /// Time spent holding the writing turn (the transaction and what follows its commit).
    pub writing: Duration,
}

impl Groups {
    /// The connection this process's groups write through: always the same one, so its
    /// page cache stays valid from one group to the next. SQLite drops a connection's cache
    /// when another connection wrote since its last transaction; taken from the pool, the
    /// group's connection was almost always one other groups had written past, and every
    /// group read its tables' and indexes' pages again. Opened with the pool's own options
    /// (WAL, busy timeout, foreign keys) the first time a group writes; an in-memory
    /// database keeps the pool (a second connection would not share it).
    async fn writer<'a>(&'a self, db: &'a DatabaseConnection) -> &'a DatabaseConnection {
        use sea_orm::sqlx::sqlite::SqlitePoolOptions;
        // Every group asks: once opened, nothing else is looked at.
        if let Some(writer) = self.writer.get() {
            return writer;
        }
        let pool = db.get_sqlite_connection_pool();
        let options = pool.connect_options();
        if options.get_filename().to_string_lossy().contains("memory") {
            return db;
        }
        self.writer
            .get_or_init(|| async {
                let lone = SqlitePoolOptions::new()
                    .max_connections(1)
                    .min_connections(0)
                    .acquire_timeout(pool.options().get_acquire_timeout())
                    // No ping per group inside the writing turn: a broken connection fails
                    // the group's first statement, and the group answers as in any failure.
                    .test_before_acquire(false)
                    .connect_lazy_with((*options).clone());
                sea_orm::SqlxSqliteConnector::from_sqlx_sqlite_pool(lone)
            })
            .await
    }

    /// What the groups of this process did since it started.
    pub fn counts(&self) -> GroupCounts {
        GroupCounts {
            groups: self.groups.load(Ordering::Relaxed),
            reports: self.reports.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            reading: Duration::from_micros(self.reading_micros.load(Ordering::Relaxed)),
            writing: Duration::from_micros(self.writing_micros.load(Ordering::Relaxed)),
        }
    }
}

/// Settles one report in the next group of this process; answers as `settle_now` would.
pub(super) async fn settle(
    ctx: &Ctx,
    campaign: &offer_campaign::Model,
    source: &str,
    ev: Reported,
) -> Answer {
    let groups = &ctx.inbox.groups;
    let (tx, mut rx) = oneshot::channel();
    lock(&groups.waiting).push(Waiting {
        campaign: campaign.clone(),
        source: source.to_owned(),
        ev,
        answer: tx,
    });
    let wait = async {
        loop {
            tokio::select! {
                biased;
                answer = &mut rx => return answer.unwrap_or_else(|_| Err(AppError::internal())),
                turn = groups.reading.clone().lock_owned() => {
                    let group: Vec<Waiting> = {
                        let mut w = lock(&groups.waiting);
                        // A report whose caller stopped waiting (answered 503) is dropped:
                        // it was never settled, so its retry settles it.
                        w.retain(|r| !r.answer.is_closed());
                        let n = w.len().min(MAX_GROUP);
                        w.drain(..n).collect()
                    };
                    if group.is_empty() {
                        // This report is in a group already: its answer comes from there.
                        drop(turn);
                        return rx.await.unwrap_or_else(|_| Err(AppError::internal()));
                    }
                    groups.groups.fetch_add(1, Ordering::Relaxed);
                    groups.reports.fetch_add(group.len() as u64, Ordering::Relaxed);
                    // Its own task: a caller that goes away does not cut the group short.
                    let ctx = ctx.clone();
                    tokio::spawn(async move { run(&ctx, group, turn).await });
                }
            }
        }
    };
    tokio::time::timeout(GROUP_WAIT, wait)
        .await
        .unwrap_or_else(|_| Err(busy()))
}

/// 503 with `Retry-After`: this process could not settle the report in time; nothing of it
/// was written, or it was settled and its retry answers that receipt.
fn busy() -> AppError {
    let mut e = AppError::unavailable("settlement is busy; retry shortly");
    e.retry_after = Some(2);
    e
}

fn lock(waiting: &Mutex<Vec<Waiting>>) -> std::sync::MutexGuard<'_, Vec<Waiting>> {
    // A panic while the list was held leaves it consistent (push and drain only).
    waiting
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Reads for a group under the reading turn, settles it under the writing turn, and answers
/// each of its reports.
async fn run(ctx: &Ctx, group: Vec<Waiting>, reading: tokio::sync::OwnedMutexGuard<()>) {
    let groups = &ctx.inbox.groups;
    let now = ctx.now();
    let started = std::time::Instant::now();
    let prepared = prepare(ctx, now, &group).await;
    add_time(&groups.reading_micros, started);
    let turn = groups.writing.clone().lock_owned();
    // The group before holds the writing turn only for its transaction, whose statements
    // have their own time limits; this limit is for what nobody foresaw. Nothing of this
    // group was written, so its reports answer 503 and their retries settle them.
    let Ok(writing) = tokio::time::timeout(GROUP_WAIT, turn).await else {
        tracing::warn!(
            reports = group.len(),
            "a settlement group waited too long for its turn to write"
        );
        groups.failed.fetch_add(1, Ordering::Relaxed);
        for w in group {
            let _ = w.answer.send(Err(busy()));
        }
        return;
    };
    drop(reading);
    let started = std::time::Instant::now();
    let writer = groups.writer(&ctx.db).await;
    let settled = match prepared {
        Ok(parts) => write_together(writer, now, &group, parts).await,
        Err(e) => Err(e),
    };
    match settled {
        Ok(written) => {
            // Committed: the next group writes while this one answers.
            add_time(&groups.writing_micros, started);
            drop(writing);
            let answers = written.finish(ctx, now).await;
            for (w, answer) in group.into_iter().zip(answers) {
                let _ = w.answer.send(answer);
            }
            return;
        }
        // The database is away (503 with Retry-After): every report is told at once.
        Err(e) if e.status == 503 => {
            groups.failed.fetch_add(1, Ordering::Relaxed);
            for w in group {
                let _ = w.answer.send(Err(e.clone()));
            }
        }
        // Settled one by one still holding the writing turn: no group meets them at
        // SQLite's lock.
        Err(e) => {
            groups.failed.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(error = %e, reports = group.len(),
                "a settlement group failed; settling its reports one by one");
            for w in group {
                let answer = settle_now(ctx, &w.campaign, &w.source, w.ev).await;
                let _ = w.answer.send(answer);
            }
        }
    }
    add_time(&groups.writing_micros, started);
    drop(writing);
}

fn add_time(total: &AtomicU64, since: std::time::Instant) {
    let micros = u64::try_from(since.elapsed().as_micros()).unwrap_or(u64::MAX);
    total.fetch_add(micros, Ordering::Relaxed);
}

/// One campaign's part of a group: its reports (indexes into the group), their
/// attributions and their batch.
struct Part {
    campaign_id: String,
    reports: Vec<usize>,
    attributions: Vec<Result<Attribution, Settlement>>,
    batch: Batch,
}

/// A group's committed transaction: the answers (in the group's order) and what follows
/// the commit.
struct Written {
    answers: Vec<Option<Answer>>,
    /// The `placement|user` keys whose completions changed.
    users: Vec<String>,
    /// Each campaign that settled a report: its worst outcome and its reserve left.
    after: Vec<(offer_campaign::Model, Outcome, Option<i64>)>,
}

/// Settles every report of `group` in one transaction and commits it.
async fn write_together(
    writer: &DatabaseConnection,
    now: chrono::DateTime<chrono::Utc>,
    group: &[Waiting],
    parts: Vec<Part>,
) -> Result<Written, AppError> {
    let mut answers: Vec<Option<Answer>> = group.iter().map(|_| None).collect();
    let mut users = Vec::new();
    let mut after = Vec::new();
    let txn = db::begin(writer).await?;
    for part in parts {
        let campaign = lock_campaign(&txn, &part.campaign_id).await?;
        let mut batch = part.batch;
        let mut worst: Option<Outcome> = None;
        for (i, attribution) in part.reports.into_iter().zip(part.attributions) {
            let ev = &group[i].ev;
            let hash = event_hash(ev);
            // An exact retry (earlier, or earlier in this group) answers the first receipt.
            if let Some(first) = earlier_receipt(&txn, &campaign.id, &hash).await? {
                answers[i] = Some(Ok(first));
                continue;
            }
            let Applied::Settled(settled) =
                apply(&txn, now, &campaign, ev, attribution, &mut batch).await?
            else {
                // Nothing was written for it.
                answers[i] = Some(Err(transaction_conflict()));
                continue;
            };
            let receipt_id = new_id("rcpt");
            let row = Receipt {
                id: &receipt_id,
                campaign_id: &campaign.id,
                source: &group[i].source,
                hash: &hash,
                received_at: now,
            }
            .row(ev, settled.outcome, Some(settled.conversion_id));
            // A unique violation (a retry queued by another process meanwhile) fails the
            // group; one by one, that report then answers the queued receipt.
            postback_event::Entity::insert(row)
                .exec_without_returning(&txn)
                .await?;
            users.extend(settled.user);
            worst = worse(worst, settled.outcome);
            answers[i] = Some(Ok(CallbackReceipt {
                accepted: true,
                duplicate: false,
                receipt_id,
            }));
        }
        batch.flush(&txn, now).await?;
        if let Some(outcome) = worst {
            after.push((campaign, outcome, batch.reserve_left()));
        }
    }
    txn.commit().await?;
    Ok(Written {
        answers,
        users,
        after,
    })
}

impl Written {
    /// Tells the callback sender and the caches, takes a campaign the group exhausted out
    /// of the inventory, and gives the answers (in the group's order).
    async fn finish(self, ctx: &Ctx, now: chrono::DateTime<chrono::Utc>) -> Vec<Answer> {
        ctx.deliveries.announce();
        ctx.announce(self.users.into_iter().map(Change::Completions));
        for (campaign, outcome, reserve_left) in self.after {
            // Committed: the answers stand whatever happens here (the inventory's own time
            // limit heals a campaign left listed).
            if let Err(e) = after_settlement(ctx, now, &campaign, outcome, reserve_left).await {
                tracing::warn!(campaign = %campaign.id, error = %e, "inventory update after a settlement group failed");
            }
        }
        self.answers
            .into_iter()
            .map(|a| a.unwrap_or_else(|| Err(AppError::internal())))
            .collect()
    }
}

/// Groups the reports by campaign (in the order of each campaign's first report; each keeps
/// its reports' order) and reads, before the transaction, what settling them needs: the
/// launches in one query per campaign, attributions, and the fraud evidence.
async fn prepare(
    ctx: &Ctx,
    now: chrono::DateTime<chrono::Utc>,
    group: &[Waiting],
) -> Result<Vec<Part>, AppError> {
    let mut by_campaign: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, w) in group.iter().enumerate() {
        match by_campaign.iter_mut().find(|(id, _)| *id == w.campaign.id) {
            Some((_, list)) => list.push(i),
            None => by_campaign.push((w.campaign.id.clone(), vec![i])),
        }
    }
    let mut parts = Vec::with_capacity(by_campaign.len());
    for (campaign_id, reports) in by_campaign {
        let campaign = &group[reports[0]].campaign;
        let clicks = reports.iter().map(|&i| group[i].ev.click_id.clone());
        let mut seen = Lookups::with_launches(&ctx.db, &campaign_id, clicks).await?;
        let mut batch = Batch::for_reports(reports.len(), ctx);
        batch.expect_clicks(seen.launches());
        let mut attributions = Vec::with_capacity(reports.len());
        for &i in &reports {
            let ev = &group[i].ev;
            let a = attribute(&ctx.db, campaign, ev, &mut seen).await?;
            if let Ok(a) = &a {
                prefetch_screening(&mut batch, &ctx.db, now, campaign, ev, a).await?;
            }
            attributions.push(a);
        }
        parts.push(Part {
            campaign_id,
            reports,
            attributions,
            batch,
        });
    }
    Ok(parts)
}
