//! Payment provider orders: one is opened (PENDING), the payer approves it at the provider,
//! and capture credits the wallet only when the provider reports COMPLETED with the exact
//! amount and currency; a declined order is told to the advertiser once.

use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

use super::{ID_PREFIX, check_amount, credit, load_view, new_funding, view};
use crate::domain::billing::payprovider::OrderStatus;
use crate::domain::billing::{
    CURRENCY, PAYPROVIDER_MINIMUM_MICROS, acting_advertiser, check_currency, profile,
};
use crate::domain::idempotency::{IdempotencyKey, Written, insert_or_replay};
use crate::domain::notices::{self, Notice};
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::NoticeTopic;
use crate::model::billing::*;
use crate::model::money::{Micros, format_micros};
use entity::funding;

/// Opens a provider order. The same idempotency key with the same body returns the same
/// order; with a different body it is refused.
pub async fn open_order(
    ctx: &Ctx,
    actor: &Principal,
    req: PayOrderRequest,
) -> Result<PayOrder, AppError> {
    let adv = acting_advertiser(ctx, actor, req.advertiser_id.as_deref()).await?;
    let mut errs = FieldErrors::new();
    check_amount(&mut errs, req.amount.0, PAYPROVIDER_MINIMUM_MICROS);
    let currency = errs.check("currency", check_currency(&req.currency));
    let key = match IdempotencyKey::parse(Some(&req.idempotency_key)) {
        Ok(k) => k.as_str().to_owned(),
        Err(why) => {
            errs.add("idempotencyKey", why);
            String::new()
        }
    };
    errs.finish()?;
    let currency = currency.unwrap_or_else(|| CURRENCY.to_owned());
    profile::require_complete(&ctx.db, &adv).await?;
    let find = || {
        funding::Entity::find()
            .filter(funding::Column::AdvertiserId.eq(adv.clone()))
            .filter(funding::Column::IdempotencyKey.eq(key.clone()))
    };
    let replay = |f: funding::Model| -> Result<PayOrder, AppError> {
        if f.amount_micros != req.amount.0 || f.currency != currency {
            return Err(
                AppError::conflict("this idempotency key was used for a different order")
                    .with_code("idempotency_key_reused"),
            );
        }
        let order_id = f
            .provider_order_id
            .clone()
            .ok_or_else(|| AppError::conflict("the order is still being created; retry shortly"))?;
        Ok(pay_order(ctx, &f, &order_id))
    };
    let now = ctx.now();
    if let Some(f) = find().one(&ctx.db).await? {
        // A placeholder whose provider call never finished (the process stopped between the
        // two writes) would block its key forever: after a minute it is abandoned and retried.
        if f.provider_order_id.is_some() || now - f.created_at < ABANDONED_ORDER {
            return replay(f);
        }
        discard_placeholder(ctx, &f.id).await?;
    }
    let id = new_id(ID_PREFIX);
    let mut inserted = new_funding(
        &id,
        &adv,
        "PAYPROVIDER",
        FundingStatus::Pending,
        req.amount.0,
        currency.clone(),
        now,
    );
    inserted.idempotency_key = Set(Some(key.clone()));
    let prior = || async { Ok(find().one(&ctx.db).await?) };
    let row = match insert_or_replay(&ctx.db, inserted, prior).await? {
        Written::New(r) => r,
        // A concurrent request with the same key won the race: answer like a replay.
        Written::Replay(r) => return replay(r),
    };
    let order = match ctx
        .payments
        .create_order(&row.id, Micros(row.amount_micros), &row.currency)
        .await
    {
        Ok(o) => o,
        Err(e) => {
            // The provider refused or failed: nothing was ordered, so the key is freed for a
            // retry instead of answering "still being created" forever.
            discard_placeholder(ctx, &row.id).await?;
            return Err(e);
        }
    };
    let mut am: funding::ActiveModel = row.into();
    am.provider_order_id = Set(Some(order.id.clone()));
    let row = am.update(&ctx.db).await?;
    let detail = serde_json::json!({"orderId": order.id});
    actor
        .audit(&ctx.db, now, "funding.order", ("funding", &id), detail)
        .await?;
    Ok(pay_order(ctx, &row, &order.id))
}

/// How long a provider order may stay half-created before its key is reused.
const ABANDONED_ORDER: chrono::Duration = chrono::Duration::minutes(1);

/// Deletes a provider funding row that never got its order (no money moved for it).
async fn discard_placeholder(ctx: &Ctx, funding_id: &str) -> Result<(), AppError> {
    funding::Entity::delete_many()
        .filter(funding::Column::Id.eq(funding_id.to_owned()))
        .filter(funding::Column::ProviderOrderId.is_null())
        .filter(funding::Column::Status.eq(FundingStatus::Pending))
        .exec(&ctx.db)
        .await?;
    Ok(())
}

/// The development checkout link of an order: signed, so only the advertiser who opened
/// the order (who receives the link) can approve it.
pub fn checkout_url(ctx: &Ctx, order_id: &str) -> String {
    format!(
        "{}/dev/payprovider/checkout/{order_id}?sig={}",
        ctx.config.base_url,
        crate::domain::billing::payprovider::checkout_signature(ctx, order_id)
    )
}

/// Where the payer approves an order: the provider's checkout, or the development one.
pub fn approve_link(ctx: &Ctx, order_id: &str) -> String {
    (ctx.payments.approve_url(order_id)).unwrap_or_else(|| checkout_url(ctx, order_id))
}

fn pay_order(ctx: &Ctx, f: &funding::Model, order_id: &str) -> PayOrder {
    PayOrder {
        order_id: order_id.to_owned(),
        funding_id: f.id.clone(),
        status: f.status,
        approve_url: approve_link(ctx, order_id),
    }
}

/// Marks a provider funding DECLINED and tells the advertiser, once: only the call that
/// moved it from PENDING writes the notice.
pub(super) async fn decline(
    ctx: &Ctx,
    f: &funding::Model,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), AppError> {
    let txn = db::begin(&ctx.db).await?;
    let declined = funding::Entity::update_many()
        .col_expr(
            funding::Column::Status,
            Expr::value(FundingStatus::Declined),
        )
        .col_expr(funding::Column::UpdatedAt, Expr::value(now))
        .filter(funding::Column::Id.eq(f.id.clone()))
        .filter(funding::Column::Status.eq(FundingStatus::Pending))
        .exec(&txn)
        .await?;
    if declined.rows_affected == 1 {
        let amount = format_micros(f.amount_micros);
        let told = Notice::new(
            NoticeTopic::FundingRefused,
            format!("Your funding of {amount} USD was declined"),
            format!(
                "The payment provider declined your funding {} of {amount} USD. Nothing was \
                 charged and your wallet is unchanged. You can try again or fund by wire.",
                f.id
            ),
        )
        .about("funding", &f.id, "/advertiser/billing");
        notices::tell(ctx, &txn, now, &f.advertiser_id, told).await?;
    }
    txn.commit().await?;
    Ok(())
}

/// Captures an approved order and credits the wallet (idempotent).
pub async fn capture(
    ctx: &Ctx,
    actor: &Principal,
    order_id: &str,
    selected: Option<&str>,
) -> Result<Funding, AppError> {
    let adv = acting_advertiser(ctx, actor, selected).await?;
    let f = funding::Entity::find()
        .filter(funding::Column::AdvertiserId.eq(adv.clone()))
        .filter(funding::Column::ProviderOrderId.eq(order_id.to_owned()))
        .one(&ctx.db)
        .await?
        .ok_or_else(|| AppError::not_found("order"))?;
    settle(ctx, f, Some(actor)).await
}

/// Captures a funding's order at the provider and credits the wallet once: for the
/// advertiser's capture (`actor`) and for the provider's "payer approved" webhook (`None`:
/// the payer never came back to the page).
pub(super) async fn settle(
    ctx: &Ctx,
    f: funding::Model,
    actor: Option<&Principal>,
) -> Result<Funding, AppError> {
    let order_id = f.provider_order_id.clone().unwrap_or_default();
    let order_id = order_id.as_str();
    match f.status {
        FundingStatus::Credited => return Ok(view(ctx, &f)),
        FundingStatus::Declined => {
            return Err(
                AppError::conflict("the payment was declined").with_code("payment_declined")
            );
        }
        _ => {}
    }
    let order = ctx.payments.capture(order_id).await?;
    let now = ctx.now();
    match order.status {
        OrderStatus::Completed => {}
        OrderStatus::Declined => {
            decline(ctx, &f, now).await?;
            return Err(
                AppError::conflict("the payment was declined").with_code("payment_declined")
            );
        }
        // Captured but not yet cleared (an e-check, a review at the provider): the provider's
        // webhook credits the wallet when the money arrives.
        OrderStatus::Processing => return Ok(view(ctx, &f)),
        OrderStatus::Created | OrderStatus::Approved => {
            return Err(
                AppError::conflict("the payer has not approved the order yet")
                    .with_code("payment_not_approved"),
            );
        }
    }
    if order.amount_micros != Micros(f.amount_micros) || order.currency != f.currency {
        tracing::warn!(funding = %f.id, "provider capture does not match the order; not credited");
        return Err(AppError::conflict(
            "the captured amount or currency does not match the order; nothing was credited",
        )
        .with_code("payment_mismatch"));
    }
    credit_capture(ctx, &f, actor, order.capture_id.as_deref(), now).await?;
    load_view(ctx, &f.id).await
}

/// Credits a captured provider funding once, in one transaction with its audit entry and
/// the provider's capture id: the advertiser's (`actor`) or the provider webhook's (`None`). A funding already out of PENDING changes nothing.
pub(super) async fn credit_capture(
    ctx: &Ctx,
    f: &funding::Model,
    actor: Option<&Principal>,
    capture_id: Option<&str>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), AppError> {
    let txn = db::begin(&ctx.db).await?;
    if credit(ctx, &txn, f, FundingStatus::Pending, None, now).await? {
        let mut detail = serde_json::json!({"amountMicros": f.amount_micros});
        if let Some(c) = capture_id {
            detail["captureId"] = serde_json::json!(c);
            // Refunds and chargebacks name the capture, not the order.
            funding::Entity::update_many()
                .col_expr(
                    funding::Column::ProviderCaptureId,
                    Expr::value(Some(c.to_owned())),
                )
                .filter(funding::Column::Id.eq(f.id.clone()))
                .exec(&txn)
                .await?;
        }
        let subject = ("funding", f.id.as_str());
        match actor {
            Some(a) => {
                a.audit(&txn, now, "funding.capture", subject, detail)
                    .await?
            }
            None => {
                detail["by"] = serde_json::json!("provider webhook");
                crate::domain::audit::record(&txn, now, None, "funding.capture", subject, detail)
                    .await?;
            }
        }
    }
    txn.commit().await?;
    Ok(())
}
