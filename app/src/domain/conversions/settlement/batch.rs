//! The reports settled in one database transaction under one hold of a campaign's lock,
//! and what they share: the campaign's reserve as it stands after each payment, and the
//! ledger postings of the payments made from it.
//!
//! Why the postings wait: every payment from the reserve moves the same accounts (the
//! reserve, spend, the clearing mirror, the publisher's pending earnings, the platform's
//! revenue). Posted one by one, a batch of 64 reports updated those five rows 64 times each
//! and wrote 128 statements; written together at the end ([`ledger::post_many`]) it is one
//! insert of transaction rows, one guarded debit, one update of the rest and one insert of
//! entries. This is safe because the lock is held throughout: nothing else moves this
//! campaign's reserve, and the reserve each payment is checked against is tracked here.
//! Anything that reads or moves these accounts itself (a reversal, a payment from the
//! wallet) writes what waits first ([`Batch::flush`]).

use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::DatabaseTransaction;

use crate::domain::Ctx;
use crate::domain::billing::ledger::{self, PostError, Posting};
use crate::domain::fraud::{self, Fraud, Screen};
use crate::error::AppError;
use entity::sdk_launch;

pub struct Batch {
    /// The campaign's reserve after the last payment from it (read once under the lock,
    /// then moved only by this batch); `None` until a payment read it.
    reserve_left: Option<i64>,
    /// Whether payments from the reserve wait for [`Batch::flush`]; a batch of one posts at
    /// once, so a refusal is told apart exactly as before.
    defer: bool,
    waiting: Vec<Posting>,
    /// The fraud controls, and the batch's screening of its approved reports (its
    /// evidence is read once per batch).
    pub(super) fraud: Arc<Fraud>,
    pub(super) screen: Screen,
    /// What a settlement tells an advertiser (a budget crossing, a hold) is written in its
    /// transaction with this.
    pub(super) ctx: Ctx,
}

impl Batch {
    /// A batch for `reports` reports: postings wait when there is more than one.
    pub fn for_reports(reports: usize, ctx: &Ctx) -> Self {
        Self {
            reserve_left: None,
            defer: reports > 1,
            waiting: Vec::new(),
            fraud: ctx.fraud.clone(),
            screen: Screen::default(),
            ctx: ctx.clone(),
        }
    }

    /// Names the launches the batch's reports were attributed to, so their fraud evidence
    /// is read in one go.
    pub fn expect_clicks<'a>(&mut self, launches: impl IntoIterator<Item = &'a sdk_launch::Model>) {
        self.screen
            .expect(launches.into_iter().map(fraud::click_of));
    }

    /// The campaign's reserve as this batch leaves it, read from the ledger the first time.
    pub(super) async fn reserve(
        &mut self,
        txn: &DatabaseTransaction,
        advertiser_id: &str,
        campaign_id: &str,
    ) -> Result<i64, AppError> {
        match self.reserve_left {
            Some(left) => Ok(left),
            None => ledger::reserved_for(txn, advertiser_id, campaign_id).await,
        }
    }

    /// The campaign's reserve after this batch's payments, when one of them read it.
    pub fn reserve_left(&self) -> Option<i64> {
        self.reserve_left
    }

    /// Records a payment of `micros` from the reserve.
    pub(super) fn spent_from_reserve(&mut self, reserve_before: i64, micros: i64) {
        self.reserve_left = Some(reserve_before - micros);
    }

    /// Posts a payment from the reserve: now, or at [`Batch::flush`] when deferred.
    pub(super) async fn post(
        &mut self,
        txn: &DatabaseTransaction,
        now: DateTime<Utc>,
        posting: Posting,
    ) -> Result<(), PostError> {
        if !self.defer {
            return ledger::post_many(txn, now, std::slice::from_ref(&posting))
                .await
                .map(drop);
        }
        self.waiting.push(posting);
        Ok(())
    }

    /// Writes the postings that wait. Called before anything else reads or moves the
    /// campaign's accounts, and by [`Batch::commit`].
    pub async fn flush(
        &mut self,
        txn: &DatabaseTransaction,
        now: DateTime<Utc>,
    ) -> Result<(), AppError> {
        if self.waiting.is_empty() {
            return Ok(());
        }
        let waiting = std::mem::take(&mut self.waiting);
        ledger::post_many(txn, now, &waiting).await.map_err(|e| {
            // The reserve was checked for each payment under the lock: a refusal here means
            // the ledger moved under it. The caller settles the reports one by one.
            tracing::error!(error = ?e, postings = waiting.len(), "a settlement batch's postings were refused");
            AppError::from(e)
        })?;
        Ok(())
    }

    /// Writes what waits and commits; returns the reserve after this batch's payments, when
    /// one of them read it.
    pub async fn commit(
        mut self,
        txn: DatabaseTransaction,
        now: DateTime<Utc>,
    ) -> Result<Option<i64>, AppError> {
        self.flush(&txn, now).await?;
        txn.commit().await?;
        Ok(self.reserve_left)
    }
}
