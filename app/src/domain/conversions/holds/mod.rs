//! Held conversions (issue 51): the decisions of an administrator or the conversion's
//! advertiser, the end of a web pixel's review window, and the queues that list them.
//!
//! A decision, like every money movement, is applied as a report of the conversion's
//! transaction through `settlement::apply` under the campaign's settlement lock, with an
//! inbox receipt (source FRAUD_REVIEW or PIXEL_REVIEW) and an audit entry in the same
//! transaction. The conversion is read again under the lock and only a HELD one is
//! decided, so two decisions racing each other (two administrators, an administrator and
//! the advertiser, two processes) pay or reject it once: the second finds it decided
//! (NOT_HELD).

mod decide;
mod queues;
mod review;

pub use decide::decide;
pub use queues::gauges;
pub use queues::{admin_queue, fraud_overview, publisher_holds};
pub use review::release_reviewed;

use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, DatabaseTransaction, EntityTrait, QueryFilter};

use super::inbox::Receipt;
use super::reported::{Outcome, Reported, ReportedStatus, Settlement, Trust};
use super::settlement::{self, Applied, Batch, Lookups};
use crate::domain::changes::Change;
use crate::domain::ids::new_id;
use crate::domain::{Ctx, crypto, db};
use crate::error::AppError;
use entity::{conversion, offer_campaign, postback_event};

/// One campaign's held conversions being applied in one transaction under its lock.
struct Held {
    txn: DatabaseTransaction,
    campaign: offer_campaign::Model,
    seen: Lookups,
    batch: Batch,
    users: Vec<String>,
    paid: bool,
}

impl Held {
    /// Locks the campaign and reads which of `ids` are still HELD (and match `filter`).
    async fn open(
        ctx: &Ctx,
        campaign_id: &str,
        ids: &[String],
    ) -> Result<Option<(Self, Vec<conversion::Model>)>, AppError> {
        let txn = db::begin(&ctx.db).await?;
        let Ok(campaign) = settlement::lock_campaign(&txn, campaign_id).await else {
            return Ok(None);
        };
        let held = conversion::Entity::find()
            .filter(conversion::Column::Id.is_in(ids.iter().cloned()))
            .filter(conversion::Column::CampaignId.eq(campaign_id.to_owned()))
            .filter(conversion::Column::Settlement.eq(Settlement::Held.as_str()))
            .all(&txn)
            .await?;
        let seen =
            Lookups::with_launches(&txn, campaign_id, held.iter().map(|c| c.click_id.clone()))
                .await?;
        let mut batch = Batch::for_reports(held.len(), ctx);
        batch.expect_clicks(seen.launches());
        Ok(Some((
            Held {
                txn,
                campaign,
                seen,
                batch,
                users: Vec::new(),
                paid: false,
            },
            held,
        )))
    }

    /// Applies `status` to one held conversion as a report `trust` stands behind; returns
    /// its new settlement.
    async fn settle(
        &mut self,
        now: DateTime<Utc>,
        c: &conversion::Model,
        status: ReportedStatus,
        trust: Trust,
        source: &str,
    ) -> Result<Outcome, AppError> {
        let ev = Reported::of_conversion(c, status, trust);
        let attribution =
            settlement::attribute(&self.txn, &self.campaign, &ev, &mut self.seen).await?;
        let outcome = match settlement::apply(
            &self.txn,
            now,
            &self.campaign,
            &ev,
            attribution,
            &mut self.batch,
        )
        .await?
        {
            Applied::Conflict => return Err(AppError::internal()),
            Applied::Settled(s) => {
                self.users.extend(s.user);
                s.outcome
            }
        };
        self.paid |= outcome == Outcome::Settled(Settlement::Approved);
        receipt(
            &self.txn,
            now,
            source,
            &self.campaign.id,
            &c.id,
            &ev,
            outcome,
        )
        .await?;
        Ok(outcome)
    }

    /// Commits, then tells the caches and the callback worker.
    async fn close(self, ctx: &Ctx, now: DateTime<Utc>) -> Result<(), AppError> {
        let reserve_left = self.batch.commit(self.txn, now).await?;
        ctx.deliveries.announce();
        for user in self.users {
            ctx.announce([Change::Completions(user)]);
        }
        if self.paid {
            let outcome = Outcome::Settled(Settlement::Approved);
            settlement::after_settlement(ctx, now, &self.campaign, outcome, reserve_left).await?;
        }
        Ok(())
    }
}

/// The inbox receipt of a decision or a review's end (every money movement has one).
async fn receipt(
    txn: &DatabaseTransaction,
    now: chrono::DateTime<chrono::Utc>,
    source: &str,
    campaign_id: &str,
    conversion_id: &str,
    ev: &Reported,
    outcome: Outcome,
) -> Result<(), AppError> {
    let row = Receipt {
        id: &new_id("rcpt"),
        campaign_id,
        source,
        // A conversion may be held again after a decision (a NO_BUDGET one approved
        // later), so the decision's time is part of its identity.
        hash: &crypto::sha256_hex(&format!(
            "{source}\n{conversion_id}\n{}\n{}",
            ev.status.as_str(),
            now.timestamp_micros()
        )),
        received_at: now,
    }
    .row(ev, outcome, Some(conversion_id.to_owned()));
    postback_event::Entity::insert(row)
        .exec_without_returning(txn)
        .await?;
    Ok(())
}
