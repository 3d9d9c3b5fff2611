//! Opening a payout's payment details. They are sealed at rest and shown to publishers only as
//! a hint; the administrator who sends the money needs them in full. Opening them asks for a
//! current second-factor code (when the administrator has a factor, which production
//! requires of administrators) and leaves an audit entry naming the person, in the same
//! transaction as the read: no entry, no details.

use sea_orm::EntityTrait;

use super::{seal_binding, view};
use crate::domain::accounts::second_factor;
use crate::domain::{Ctx, Principal, db};
use crate::error::AppError;
use crate::model::publisher::payouts::PayoutDetails;
use entity::payout;

/// `POST /admin/v1/payouts/{id}/details`: the payout's full payment details.
pub async fn open(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    code: Option<&str>,
) -> Result<PayoutDetails, AppError> {
    actor.require_admin()?;
    second_factor::step_up(ctx, actor, code).await?;
    let txn = db::begin(&ctx.db).await?;
    let row = payout::Entity::find_by_id(id.to_owned())
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("payout"))?;
    let details = ctx.keys.open(&seal_binding(&row.id), &row.details_sealed)?;
    let v = view(&row);
    // What was opened, never the details themselves.
    let detail = serde_json::json!({"method": v.method.as_str(), "hint": row.details_hint});
    let now = ctx.now();
    actor
        .audit(
            &txn,
            now,
            "payout.details_opened",
            ("payout", &row.id),
            detail,
        )
        .await?;
    txn.commit().await?;
    Ok(PayoutDetails {
        payout_id: v.id,
        publisher_id: v.publisher_id,
        status: v.status,
        amount_micros: v.amount_micros,
        amount: v.amount,
        currency: v.currency,
        legal_name: row.legal_name,
        country: row.country,
        method: v.method,
        details,
    })
}
