//! Offer lines applied as reports of their transactions: under the campaign's lock, each
//! conversion is read again and decided against its current state, then settled by the
//! same rules as a postback (`settlement::apply`), with an inbox receipt of source
//! RECONCILIATION and the line's result in the same transaction.

use std::collections::HashMap;

use sea_orm::{ColumnTrait, DatabaseTransaction, EntityTrait, QueryFilter};

use super::{SOURCE, decide, record_result};
use crate::domain::changes::Change;
use crate::domain::conversions::inbox::Receipt;
use crate::domain::conversions::reported::{
    InboxState, Outcome, Reported, ReportedStatus, Settlement, Trust,
};
use crate::domain::conversions::settlement::{self, Applied, Lookups};
use crate::domain::{Ctx, crypto, db, ids::new_id};
use crate::error::AppError;
use crate::model::campaign::reconciliation::{LineState, ReconcileAction};
use entity::{
    conversion, postback_event, reconciliation_batch as batch, reconciliation_line as line,
};

/// Applies `lines` (all of campaign `campaign_id`) in one transaction.
pub(super) async fn apply_chunk(
    ctx: &Ctx,
    b: &batch::Model,
    action: ReconcileAction,
    campaign_id: &str,
    lines: &[line::Model],
) -> Result<(), AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let campaign = match settlement::lock_campaign(&txn, campaign_id).await {
        Ok(c) if c.advertiser_id == b.advertiser_id => c,
        // The previewed campaign is gone or not the advertiser's: nothing to apply.
        _ => {
            for l in lines {
                record_result(&txn, now, l, LineState::Unknown).await?;
            }
            return Ok(txn.commit().await?);
        }
    };
    let conversions = current(&txn, lines).await?;
    let mut seen = Lookups::with_launches(
        &txn,
        campaign_id,
        conversions.values().map(|c| c.click_id.clone()),
    )
    .await?;
    let mut settling = settlement::Batch::for_reports(lines.len(), ctx);
    let mut users = Vec::new();
    let mut paid = false;
    for l in lines {
        let Some(c) = l.conversion_id.as_ref().and_then(|id| conversions.get(id)) else {
            record_result(&txn, now, l, LineState::Unknown).await?;
            continue;
        };
        let state = decide(action, c, now, ctx.config.reconciliation_window);
        if state != LineState::WillApply {
            record_result(&txn, now, l, state).await?;
            continue;
        }
        let ev = report(action, c);
        let attribution = settlement::attribute(&txn, &campaign, &ev, &mut seen).await?;
        let applied =
            settlement::apply(&txn, now, &campaign, &ev, attribution, &mut settling).await?;
        let (outcome, result) = match applied {
            Applied::Conflict => (
                Outcome::Inbox(InboxState::TransactionConflict),
                LineState::NotAllowed,
            ),
            Applied::Settled(s) => {
                users.extend(s.user);
                (s.outcome, result_of(s.outcome))
            }
        };
        paid |= outcome == Outcome::Settled(Settlement::Approved);
        let receipt = Receipt {
            id: &new_id("rcpt"),
            campaign_id: &campaign.id,
            source: SOURCE,
            hash: &crypto::sha256_hex(&format!("reconciliation\n{}\n{}", b.id, l.line_no)),
            received_at: now,
        }
        .row(&ev, outcome, Some(c.id.clone()));
        postback_event::Entity::insert(receipt)
            .exec_without_returning(&txn)
            .await?;
        record_result(&txn, now, l, result).await?;
    }
    let reserve_left = settling.commit(txn, now).await?;
    ctx.deliveries.announce();
    for user in users {
        ctx.announce([Change::Completions(user)]);
    }
    if paid {
        let outcome = Outcome::Settled(Settlement::Approved);
        settlement::after_settlement(ctx, now, &campaign, outcome, reserve_left).await?;
    }
    Ok(())
}

/// The lines' conversions as they are now (under the campaign lock), by id.
async fn current(
    txn: &DatabaseTransaction,
    lines: &[line::Model],
) -> Result<HashMap<String, conversion::Model>, AppError> {
    let ids: Vec<String> = lines
        .iter()
        .filter_map(|l| l.conversion_id.clone())
        .collect();
    Ok(conversion::Entity::find()
        .filter(conversion::Column::Id.is_in(ids))
        .all(txn)
        .await?
        .into_iter()
        .map(|c| (c.id.clone(), c))
        .collect())
}

/// The report a line stands for: the transaction's click, goal and conversion time, with
/// the status the action sets; the advertiser vouches for it, so it is not screened.
fn report(action: ReconcileAction, c: &conversion::Model) -> Reported {
    let status = match action {
        ReconcileAction::Approve => ReportedStatus::Approved,
        ReconcileAction::Reverse => ReportedStatus::Reversed,
    };
    Reported::of_conversion(c, status, Trust::Vouched)
}

/// A line's result from what settling it did.
fn result_of(outcome: Outcome) -> LineState {
    match outcome {
        Outcome::Settled(Settlement::Approved | Settlement::Reversed | Settlement::Rejected) => {
            LineState::Applied
        }
        Outcome::Settled(Settlement::NoBudget) => LineState::NoBudget,
        Outcome::Settled(Settlement::CapReached) => LineState::CapReached,
        Outcome::Inbox(InboxState::NoChange) => LineState::AlreadyInState,
        _ => LineState::NotAllowed,
    }
}
