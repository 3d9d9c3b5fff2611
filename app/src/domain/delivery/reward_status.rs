//! Reward status: the session user's conversions on the placement, as progress. Final
//! credit is the signed reward callback to the publisher, never this read. An approved
//! conversion stays PENDING until its goal's pending hold ends (`credit_at`).

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

use crate::domain::Ctx;
use crate::domain::conversions::reported::Settlement;
use crate::domain::principal::SdkActor;
use crate::error::AppError;
use crate::model::delivery::*;
use entity::{ad_slot, conversion};

/// Most items one answer lists (the newest changes).
const MAX_ITEMS: u64 = 100;

/// Pending, earned and reversed sums over all of the user's conversions, summed by the
/// database per settlement state (approved ones still in their hold count as pending).
async fn totals(
    ctx: &Ctx,
    q: sea_orm::Select<conversion::Entity>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<RewardTotals, AppError> {
    let sums = |q: sea_orm::Select<conversion::Entity>| {
        q.select_only()
            .column(conversion::Column::Settlement)
            .column_as(
                sea_orm::sea_query::Expr::cust("CAST(SUM(reward_minor_units) AS BIGINT)"),
                "total",
            )
            .group_by(conversion::Column::Settlement)
            .into_tuple::<(Settlement, Option<i64>)>()
    };
    let settled = sums(
        q.clone().filter(
            sea_orm::Condition::any()
                .add(conversion::Column::CreditAt.is_null())
                .add(conversion::Column::CreditAt.lte(now)),
        ),
    )
    .all(&ctx.db)
    .await?;
    let held = sums(q.filter(conversion::Column::CreditAt.gt(now)))
        .all(&ctx.db)
        .await?;
    let mut t = RewardTotals::default();
    for (settlement, sum, in_hold) in settled
        .into_iter()
        .map(|(s, v)| (s, v, false))
        .chain(held.into_iter().map(|(s, v)| (s, v, true)))
    {
        let sum = sum.unwrap_or(0);
        match settlement {
            Settlement::Approved if in_hold => t.pending_minor_units += sum,
            Settlement::Pending => t.pending_minor_units += sum,
            Settlement::Approved => t.earned_minor_units += sum,
            Settlement::Reversed => t.reversed_minor_units += sum,
            _ => {}
        }
    }
    Ok(t)
}

/// What the user sees for a settlement state (`None`: not shown, e.g. an unmatched click).
fn user_status(settlement: Settlement) -> Option<&'static str> {
    match settlement {
        // A held conversion is in review for the user: pending, without saying why.
        Settlement::Pending | Settlement::Held => Some("PENDING"),
        Settlement::Approved => Some("EARNED"),
        Settlement::Rejected | Settlement::CapReached | Settlement::NoBudget => Some("REJECTED"),
        Settlement::Reversed => Some("REVERSED"),
        Settlement::UnmatchedClick | Settlement::UnknownGoal | Settlement::OutOfWindow => None,
    }
}

/// `GET /sdk/v2/reward-status` and, with `offer_id`, `/sdk/v2/reward-status/{offerId}`.
pub async fn status(
    ctx: &Ctx,
    s: &SdkActor,
    offer_id: Option<&str>,
) -> Result<RewardStatus, AppError> {
    crate::domain::publisher::user_identity::require_verified(ctx, s).await?;
    let mut q = conversion::Entity::find()
        .filter(conversion::Column::PlacementId.eq(s.placement_id.clone()))
        .filter(conversion::Column::ExternalUserId.eq(s.external_user_id.clone()));
    if let Some(o) = offer_id {
        q = q.filter(conversion::Column::CampaignId.eq(o.to_owned()));
    }
    let now = ctx.now();
    let totals = totals(ctx, q.clone(), now).await?;
    // Items are the most recent changes; the totals above cover every conversion.
    let rows = q
        .order_by_desc(conversion::Column::UpdatedAt)
        .limit(MAX_ITEMS)
        .all(&ctx.db)
        .await?;
    let slots: Vec<ad_slot::Model> = ad_slot::Entity::find()
        .filter(ad_slot::Column::PlacementId.eq(s.placement_id.clone()))
        .all(&ctx.db)
        .await?;
    let currency = |slot: Option<&String>| {
        slot.and_then(|id| slots.iter().find(|x| &x.id == id))
            .map(|x| x.currency_name.clone())
            .unwrap_or_default()
    };
    let mut items = Vec::new();
    for r in &rows {
        let settled = r.settlement;
        let Some(mut status) = user_status(settled) else {
            continue;
        };
        // An approved conversion in its goal's pending hold is not earned yet.
        if settled == Settlement::Approved && r.credit_at.is_some_and(|t| t > now) {
            status = "PENDING";
        }
        items.push(RewardStatusItem {
            offer_id: r.campaign_id.clone(),
            goal_id: r.goal_id.clone(),
            status: status.to_owned(),
            reward_minor_units: r.reward_minor_units,
            currency: currency(r.ad_slot_id.as_ref()),
            occurred_at: r.occurred_at,
            updated_at: r.updated_at,
        });
    }
    Ok(RewardStatus {
        items,
        totals,
        generated_at: ctx.now(),
        contract_version: CONTRACT_VERSION.to_owned(),
    })
}
