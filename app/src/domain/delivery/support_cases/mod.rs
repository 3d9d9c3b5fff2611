//! Support cases opened by end users through the SDK ("I completed the offer but got no
//! reward"). The publisher works them in the console ([`console`]).

pub mod console;
pub mod evidence;

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, Set};

use self::console::view;
use crate::domain::idempotency::{IdempotencyKey, Written, insert_or_replay};
use crate::domain::principal::SdkActor;
use crate::domain::{Ctx, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::delivery::SdkSupportRequest;
use crate::model::publisher::ops::{SupportCase, SupportCaseList, SupportStatus};
use entity::{sdk_session, support_case};

fn reason_ok(r: &str) -> bool {
    (3..=64).contains(&r.len())
        && r.chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// `POST /sdk/v2/support`: a new case (flag true) or the case already opened with this
/// Idempotency-Key by the same user (flag false).
pub async fn open(
    ctx: &Ctx,
    s: &SdkActor,
    req: SdkSupportRequest,
    key: &IdempotencyKey,
) -> Result<(SupportCase, bool), AppError> {
    let key = key.as_str();
    if let Some(prior) = by_key(ctx, s, key).await? {
        let same = req.reason_code.as_deref().map(str::trim) == Some(prior.reason_code.as_str())
            && req.message.as_deref().map(str::trim) == Some(prior.message.as_str());
        if !same {
            return Err(AppError::conflict(
                "this Idempotency-Key was already used for another support case",
            )
            .with_code("idempotency_key_reused"));
        }
        return Ok((view(&prior), false));
    }
    let mut errs = FieldErrors::new();
    let session_id = req
        .session_id
        .as_deref()
        .map(str::trim)
        .unwrap_or_default()
        .to_owned();
    let reason = req
        .reason_code
        .as_deref()
        .map(str::trim)
        .unwrap_or_default()
        .to_owned();
    let message = req
        .message
        .as_deref()
        .map(str::trim)
        .unwrap_or_default()
        .to_owned();
    if session_id.is_empty() {
        errs.add("sessionId", "is required");
    }
    if !reason_ok(&reason) {
        errs.add(
            "reasonCode",
            "must be 3 to 64 uppercase letters, digits or underscores",
        );
    }
    if !(10..=2000).contains(&message.chars().count()) {
        errs.add("message", "must be 10 to 2000 characters");
    }
    let offer_id = req
        .offer_id
        .as_deref()
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .map(str::to_owned);
    if offer_id.as_ref().is_some_and(|o| o.len() > 64) {
        errs.add("offerId", "must be at most 64 characters");
    }
    errs.finish()?;
    // The case's session may be an earlier one, but of the same user and placement.
    let case_session = sdk_session::Entity::find_by_id(session_id.clone())
        .one(&ctx.db)
        .await?
        .filter(|o| o.placement_id == s.placement_id && o.external_user_id == s.external_user_id)
        .ok_or_else(|| {
            AppError::field(
                "sessionId",
                "must be a session of the same user and placement",
            )
        })?;
    let now = ctx.now();
    let row = support_case::ActiveModel {
        id: Set(new_id("case")),
        placement_id: Set(s.placement_id.clone()),
        ad_slot_id: Set(case_session
            .ad_slot_id
            .clone()
            .or_else(|| s.ad_slot_id.clone())),
        session_id: Set(case_session.id.clone()),
        external_user_id: Set(s.external_user_id.clone()),
        offer_id: Set(offer_id),
        reason_code: Set(reason),
        message: Set(message),
        status: Set(SupportStatus::Open),
        publisher_note: Set(None),
        idempotency_key: Set(Some(key.to_owned())),
        created_at: Set(now),
        updated_at: Set(now),
    };
    match insert_or_replay(&ctx.db, row, || by_key(ctx, s, key)).await? {
        Written::New(row) => Ok((view(&row), true)),
        // A concurrent retry with the same key won the insert: answer with its case.
        Written::Replay(prior) => Ok((view(&prior), false)),
    }
}

async fn by_key(
    ctx: &Ctx,
    s: &SdkActor,
    key: &str,
) -> Result<Option<support_case::Model>, AppError> {
    Ok(support_case::Entity::find()
        .filter(support_case::Column::PlacementId.eq(s.placement_id.clone()))
        .filter(support_case::Column::ExternalUserId.eq(s.external_user_id.clone()))
        .filter(support_case::Column::IdempotencyKey.eq(key.to_owned()))
        .one(&ctx.db)
        .await?)
}

/// `GET /sdk/v2/support`: the session user's cases on the placement, newest first.
pub async fn list(
    ctx: &Ctx,
    s: &SdkActor,
    page: &crate::domain::paging::Page,
) -> Result<SupportCaseList, AppError> {
    crate::domain::publisher::user_identity::require_verified(ctx, s).await?;
    let q = support_case::Entity::find()
        .filter(support_case::Column::PlacementId.eq(s.placement_id.clone()))
        .filter(support_case::Column::ExternalUserId.eq(s.external_user_id.clone()));
    console::page_of(ctx, q, page).await
}
