//! The payment provider's webhooks, verified by the provider itself: a completed capture
//! credits the wallet, a denied one declines the funding, an approved order is captured
//! here (the payer may never come back to the page that would capture it), and a refund or
//! chargeback takes the money back out ([`returns`]). The webhook and the capture
//! answer race (the answer may be lost, the webhook may come first or twice); `credit` moves
//! the funding out of PENDING in the ledger's transaction, so whichever comes first credits
//! and every later one changes nothing.
//!
//! An event is verified only when it would change a funding that is still PENDING: one
//! about another order, an event type this service does not act on, or a funding already
//! settled is acknowledged as it is (nothing changes), so forged events cost no call to the
//! provider.

use std::collections::BTreeMap;

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

use super::funding;
use super::orders::{credit_capture, decline, settle};
use super::returns;
use crate::domain::billing::payprovider::{ProviderEvent, ProviderReturn};
use crate::domain::{Ctx, audit};
use crate::error::AppError;
use crate::model::billing::{FundingStatus, ProviderEventReceipt};
use crate::model::money::Micros;

/// Verifies and applies one webhook; what it did, for the provider's delivery log.
pub async fn receive(
    ctx: &Ctx,
    headers: &BTreeMap<String, String>,
    body: &[u8],
) -> Result<ProviderEventReceipt, AppError> {
    let event = ctx.payments.read_event(body)?;
    if let ProviderEvent::PaymentReturned {
        capture_id,
        order_id,
        returned,
    } = &event
    {
        return payment_returned(
            ctx,
            headers,
            body,
            capture_id,
            order_id.as_deref(),
            returned,
        )
        .await;
    }
    let (event_type, order_id) = match &event {
        ProviderEvent::CaptureCompleted { order_id, .. } => ("PAYMENT.CAPTURE.COMPLETED", order_id),
        ProviderEvent::CaptureDenied { order_id } => ("PAYMENT.CAPTURE.DENIED", order_id),
        ProviderEvent::OrderApproved { order_id } => ("CHECKOUT.ORDER.APPROVED", order_id),
        ProviderEvent::Other { event_type } => {
            return Ok(ignored(event_type));
        }
        ProviderEvent::PaymentReturned { .. } => unreachable!("answered above"),
        // Payouts are not fundings: the webhook route gives them to `payouts::rails`.
        ProviderEvent::PayoutItem(r) => {
            tracing::info!(payout = %r.payout_id, "payout event reached the funding handler");
            return Ok(ignored("PAYMENT.PAYOUTS-ITEM"));
        }
    };
    let Some(f) = funding::Entity::find()
        .filter(funding::Column::ProviderOrderId.eq(order_id.clone()))
        .one(&ctx.db)
        .await?
    else {
        // An order this service never opened (another integration on the same provider
        // account): acknowledged, nothing to do.
        tracing::info!(order = %order_id, event_type, "provider event for an unknown order");
        return Ok(ignored(event_type));
    };
    if f.status != FundingStatus::Pending {
        return Ok(ProviderEventReceipt {
            event_type: event_type.to_owned(),
            funding_id: Some(f.id),
            funding_status: Some(f.status),
            ..Default::default()
        });
    }
    ctx.payments.verify_event(headers, body).await?;
    let now = ctx.now();
    match event {
        ProviderEvent::CaptureCompleted {
            capture_id,
            amount_micros,
            currency,
            ..
        } => {
            if amount_micros != Micros(f.amount_micros) || currency != f.currency {
                // Money the provider holds for another amount than ordered: an operator
                // looks (the log and the audit trail say which), nothing is credited.
                tracing::warn!(funding = %f.id, "provider capture does not match the order");
                let detail = serde_json::json!({
                    "captureId": capture_id,
                    "capturedMicros": amount_micros,
                    "currency": currency,
                });
                audit::record(
                    &ctx.db,
                    now,
                    None,
                    "funding.capture_mismatch",
                    ("funding", &f.id),
                    detail,
                )
                .await?;
            } else {
                credit_capture(ctx, &f, None, Some(&capture_id), now).await?;
            }
        }
        ProviderEvent::CaptureDenied { .. } => decline(ctx, &f, now).await?,
        // The payer approved at the provider: capture now rather than wait for a browser
        // that may never return. A decline or a mismatch is the capture's own outcome (kept
        // on the funding); only a provider failure is answered 503, so the event comes again.
        ProviderEvent::OrderApproved { .. } => match settle(ctx, f.clone(), None).await {
            Ok(_) => {}
            // A provider or database failure (503) or a fault of ours (500): the provider
            // sends the event again.
            Err(e) if e.status >= 500 => return Err(e),
            Err(e) => {
                tracing::info!(funding = %f.id, code = %e.code, "approved order not captured")
            }
        },
        ProviderEvent::Other { .. }
        | ProviderEvent::PaymentReturned { .. }
        | ProviderEvent::PayoutItem(_) => {}
    }
    let status = funding::Entity::find_by_id(f.id.clone())
        .one(&ctx.db)
        .await?
        .map(|r| r.status);
    Ok(ProviderEventReceipt {
        event_type: event_type.to_owned(),
        funding_id: Some(f.id),
        funding_status: status,
        ..Default::default()
    })
}

/// A refund or chargeback of a captured funding: found by its capture (or its order when
/// the provider names it), verified only when it is new, applied once ([`returns`]).
async fn payment_returned(
    ctx: &Ctx,
    headers: &BTreeMap<String, String>,
    body: &[u8],
    capture_id: &str,
    order_id: Option<&str>,
    returned: &ProviderReturn,
) -> Result<ProviderEventReceipt, AppError> {
    let event_type = if returned.chargeback {
        "PAYMENT.CAPTURE.REVERSED"
    } else {
        "PAYMENT.CAPTURE.REFUNDED"
    };
    let mut found = funding::Entity::find()
        .filter(funding::Column::ProviderCaptureId.eq(capture_id.to_owned()))
        .one(&ctx.db)
        .await?;
    if let (None, Some(order)) = (&found, order_id) {
        found = funding::Entity::find()
            .filter(funding::Column::ProviderOrderId.eq(order.to_owned()))
            .one(&ctx.db)
            .await?;
    }
    let Some(f) = found else {
        tracing::info!(capture = %capture_id, "provider return for an unknown capture");
        return Ok(ignored(event_type));
    };
    if !returns::recorded(&ctx.db, &returned.return_id).await? {
        ctx.payments.verify_event(headers, body).await?;
        returns::apply(ctx, &f, returned).await?;
    }
    Ok(ProviderEventReceipt {
        event_type: event_type.to_owned(),
        funding_id: Some(f.id),
        funding_status: Some(f.status),
        ..Default::default()
    })
}

/// The receipt of an event that is about none of this service's fundings.
fn ignored(event_type: &str) -> ProviderEventReceipt {
    ProviderEventReceipt {
        event_type: event_type.to_owned(),
        funding_id: None,
        funding_status: None,
        ..Default::default()
    }
}
