//! Reward status: the session user's conversions on the placement, as progress. Final
//! credit is the signed reward callback to the publisher, never this read. An approved
//! conversion stays PENDING until its goal's pending hold ends (`credit_at`).

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};

use crate::domain::Ctx;
use crate::error::AppError;
use crate::model::delivery::*;
use entity::{ad_slot, conversion, sdk_session};

/// What the user sees for a settlement state (`None`: not shown, e.g. an unmatched click).
fn user_status(settlement: &str) -> Option<&'static str> {
    match settlement {
        "PENDING" => Some("PENDING"),
        "APPROVED" => Some("EARNED"),
        "REJECTED" | "CAP_REACHED" | "NO_BUDGET" => Some("REJECTED"),
        "REVERSED" => Some("REVERSED"),
        _ => None,
    }
}

/// `GET /sdk/v2/reward-status` and, with `offer_id`, `/sdk/v2/reward-status/{offerId}`.
pub async fn status(
    ctx: &Ctx,
    s: &sdk_session::Model,
    offer_id: Option<&str>,
) -> Result<RewardStatus, AppError> {
    let mut q = conversion::Entity::find()
        .filter(conversion::Column::PlacementId.eq(s.placement_id.clone()))
        .filter(conversion::Column::ExternalUserId.eq(s.external_user_id.clone()));
    if let Some(o) = offer_id {
        q = q.filter(conversion::Column::CampaignId.eq(o.to_owned()));
    }
    let rows = q
        .order_by_desc(conversion::Column::UpdatedAt)
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
    let now = ctx.now();
    let mut totals = RewardTotals::default();
    let mut items = Vec::new();
    for r in &rows {
        let Some(mut status) = user_status(&r.settlement) else {
            continue;
        };
        // An approved conversion in its goal's pending hold is not earned yet.
        if status == "EARNED" && r.credit_at.is_some_and(|t| t > now) {
            status = "PENDING";
        }
        match status {
            "PENDING" => totals.pending_minor_units += r.reward_minor_units,
            "EARNED" => totals.earned_minor_units += r.reward_minor_units,
            "REVERSED" => totals.reversed_minor_units += r.reward_minor_units,
            _ => {}
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
