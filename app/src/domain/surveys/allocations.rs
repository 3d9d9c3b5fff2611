//! Paying survey campaigns from the shared wallet: the estimated cost (cpi × planned
//! completes, `surveys::cost`) moves from available to the campaign's reserve, once per
//! campaign, and the plan is fixed.

use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

use crate::domain::billing::{CURRENCY, acting_advertiser, ledger};
use crate::domain::changes::Change;
use crate::domain::paging::Page;
use crate::domain::surveys::campaigns::{self as surveys, SUBJECT, eligibility};
use crate::domain::surveys::cost;
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::AppError;
use crate::model::money::Micros;
use crate::model::money::format_micros;
use crate::model::survey::campaign::{Allocation, AllocationList, PaymentStatus, SurveyStatus};
use entity::allocation;

fn view(a: allocation::Model) -> Allocation {
    Allocation {
        allocation_id: a.id,
        advertiser_id: a.advertiser_id,
        campaign_id: a.survey_campaign_id,
        campaign_type: "SURVEY".to_owned(),
        amount: format_micros(a.amount_micros),
        amount_micros: Micros(a.amount_micros),
        currency: CURRENCY.to_owned(),
        status: "RESERVED".to_owned(),
        created_at: a.created_at,
    }
}

async fn existing<C: sea_orm::ConnectionTrait>(
    db: &C,
    campaign: &str,
) -> Result<Option<allocation::Model>, AppError> {
    Ok(allocation::Entity::find()
        .filter(allocation::Column::SurveyCampaignId.eq(campaign.to_owned()))
        .one(db)
        .await?)
}

/// `POST /billing/survey-campaigns/{campaignId}/allocate`. Returns the allocation and whether
/// this call created it (a repeat returns the first one).
pub async fn allocate(
    ctx: &Ctx,
    actor: &Principal,
    campaign_id: &str,
    selected: Option<&str>,
) -> Result<(Allocation, bool), AppError> {
    let advertiser = match selected.filter(|s| !s.is_empty()) {
        Some(_) => Some(acting_advertiser(ctx, actor, selected).await?),
        None => None,
    };
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = surveys::locked(&txn, actor, campaign_id).await?;
    if advertiser.is_some_and(|a| a != m.advertiser_id) {
        return Err(AppError::not_found("survey campaign"));
    }
    if let Some(a) = existing(&txn, &m.id).await? {
        txn.commit().await?;
        return Ok((view(a), false));
    }
    let (status, payment) = eligibility(&m);
    if !matches!(status, SurveyStatus::Draft | SurveyStatus::PendingApproval) {
        return Err(AppError::conflict(format!(
            "only DRAFT or PENDINGAPPROVAL campaigns can be paid; this one is {}",
            status.as_str()
        ))
        .with_code("campaign_not_eligible"));
    }
    if payment == PaymentStatus::External {
        return Err(AppError::conflict(
            "the campaign was paid outside the wallet; it is never charged twice",
        )
        .with_code("paid_outside_wallet"));
    }
    let quota_total = cost::quota_total(&txn, &m.id).await?;
    let amount = cost::estimated_cost(&m, quota_total);
    let planned = cost::planned_completes(&m, quota_total);
    let Some(planned) = planned.filter(|_| amount > 0) else {
        return Err(
            AppError::conflict(cost::NOTHING_TO_PAY).with_code("estimated_cost_not_positive")
        );
    };
    let tx = ledger::post(
        &txn,
        now,
        ledger::TransactionKind::SurveyAllocation,
        &m.advertiser_id,
        (SUBJECT, &m.id),
        &format!("survey_allocation:{}", m.id),
        &ledger::reserve_legs(&m.advertiser_id, &m.id, amount),
    )
    .await?;
    surveys::mark_wallet_paid(&txn, &m, now).await?;
    cost::fix_plan(&txn, &m, planned).await?;
    let row = allocation::ActiveModel {
        id: Set(new_id(ID_PREFIX)),
        advertiser_id: Set(m.advertiser_id.clone()),
        survey_campaign_id: Set(m.id.clone()),
        amount_micros: Set(amount),
        ledger_transaction_id: Set(tx),
        created_by: Set(actor.person_id.clone()),
        created_at: Set(now),
    }
    .insert(&txn)
    .await?;
    let detail = serde_json::json!({"amountMicros": amount});
    actor
        .audit(
            &txn,
            now,
            "survey_campaign.allocated",
            (SUBJECT, &m.id),
            detail,
        )
        .await?;
    ctx.commit_and_announce(txn, [Change::Offers, Change::Surveys])
        .await?;
    Ok((view(row), true))
}

/// The prefix of allocation ids, which the list's cursors are.
pub const ID_PREFIX: &str = "alc";

/// `GET /billing/allocations`: one page, newest first.
pub async fn list(
    ctx: &Ctx,
    actor: &Principal,
    selected: Option<&str>,
    page: &Page,
) -> Result<AllocationList, AppError> {
    let adv = acting_advertiser(ctx, actor, selected).await?;
    let q = allocation::Entity::find().filter(allocation::Column::AdvertiserId.eq(adv));
    let rows = page.select(q, allocation::Column::Id).all(&ctx.db).await?;
    let (rows, next_cursor) = page.finish(rows, |a| &a.id);
    Ok(AllocationList {
        items: rows.into_iter().map(view).collect(),
        next_cursor,
    })
}
