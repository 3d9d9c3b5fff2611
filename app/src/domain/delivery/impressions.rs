//! Impressions: recorded when an offer is actually shown; a launch needs an unexpired one.
//! The Idempotency-Key makes a retried request return the first receipt.

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, Set};

use super::IMPRESSION_TTL;
use super::offers::find_for_session;
use crate::domain::idempotency::{IdempotencyKey, Written, insert_or_replay};
use crate::domain::principal::SdkActor;
use crate::domain::{Ctx, ids::new_id};
use crate::error::AppError;
use crate::model::delivery::ImpressionReceipt;
use entity::sdk_impression;

/// `POST /sdk/v2/offers/{offerId}/impressions`; the flag says whether it was new.
pub async fn record(
    ctx: &Ctx,
    s: &SdkActor,
    offer_id: &str,
    slot_id: Option<&str>,
    key: &IdempotencyKey,
) -> Result<(ImpressionReceipt, bool), AppError> {
    let key = key.as_str();
    if let Some(prior) = by_key(ctx, s, key).await? {
        if prior.campaign_id != offer_id {
            return Err(reused_key());
        }
        return Ok((receipt(&prior, true), false));
    }
    let now = ctx.now();
    let (_, slot, e) = find_for_session(ctx, s, slot_id, offer_id, false).await?;
    // A repeated showing within the impression lifetime is recorded but flagged, so
    // reports count it once.
    let shown_before = sdk_impression::Entity::find()
        .filter(sdk_impression::Column::SessionId.eq(s.id.clone()))
        .filter(sdk_impression::Column::CampaignId.eq(e.offer.campaign.id.clone()))
        .filter(sdk_impression::Column::ExpiresAt.gt(now))
        .one(&ctx.db)
        .await?
        .is_some();
    let row = sdk_impression::ActiveModel {
        id: Set(new_id("imp")),
        session_id: Set(s.id.clone()),
        placement_id: Set(s.placement_id.clone()),
        ad_slot_id: Set(slot.ad_slot_id.clone()),
        campaign_id: Set(e.offer.campaign.id.clone()),
        external_user_id: Set(s.external_user_id.clone()),
        idempotency_key: Set(key.to_owned()),
        duplicate: Set(shown_before),
        recorded_at: Set(now),
        expires_at: Set(now + IMPRESSION_TTL),
    };
    match insert_or_replay(&ctx.db, row, || by_key(ctx, s, key)).await? {
        Written::New(row) => Ok((receipt(&row, shown_before), true)),
        // A concurrent retry with the same key won the insert: answer with its receipt.
        Written::Replay(prior) if prior.campaign_id == offer_id => {
            Ok((receipt(&prior, true), false))
        }
        Written::Replay(_) => Err(reused_key()),
    }
}

fn reused_key() -> AppError {
    AppError::conflict("this Idempotency-Key was already used for another request")
        .with_code("idempotency_key_reused")
}

async fn by_key(
    ctx: &Ctx,
    s: &SdkActor,
    key: &str,
) -> Result<Option<sdk_impression::Model>, AppError> {
    Ok(sdk_impression::Entity::find()
        .filter(sdk_impression::Column::SessionId.eq(s.id.clone()))
        .filter(sdk_impression::Column::IdempotencyKey.eq(key.to_owned()))
        .one(&ctx.db)
        .await?)
}

/// Whether `key` was used for an impression of the session (a launch must use another).
pub async fn key_used(ctx: &Ctx, s: &SdkActor, key: &str) -> Result<bool, AppError> {
    Ok(by_key(ctx, s, key).await?.is_some())
}

fn receipt(r: &sdk_impression::Model, duplicate: bool) -> ImpressionReceipt {
    ImpressionReceipt {
        impression_id: r.id.clone(),
        offer_id: r.campaign_id.clone(),
        recorded_at: r.recorded_at,
        expires_at: r.expires_at,
        duplicate,
    }
}
