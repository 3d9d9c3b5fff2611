//! The payment provider's webhooks (`POST /performance-marketing/v2/billing/payprovider/
//! webhook`): no bearer, the provider's own signature. PayPal retries an event until it is
//! answered 2xx, so anything this service does not act on is acknowledged with 200.

use std::collections::BTreeMap;

use app::domain::billing::funding;
use app::domain::billing::payprovider::ProviderEvent;
use app::domain::{campaigns, payouts};
use app::error::AppError;
use app::model::billing::ProviderEventReceipt;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::AppJson;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(webhook))
}

/// PayPal's webhook event (`CHECKOUT.ORDER.APPROVED` captures the order, `PAYMENT.CAPTURE.
/// COMPLETED` credits the order's funding once, `PAYMENT.CAPTURE.DENIED` declines it,
/// `PAYMENT.CAPTURE.REFUNDED` and `PAYMENT.CAPTURE.REVERSED` take a refund or chargeback
/// back out of the wallet once per refund id, the part the wallet no longer holds becoming
/// the advertiser's `debtMicros` (its live campaigns pause); `PAYMENT.PAYOUTS-ITEM.*` report
/// a payout sent through PayPal Payouts: SUCCEEDED pays it, FAILED, RETURNED, BLOCKED,
/// REFUNDED, REVERSED, DENIED and CANCELED fail it with its money back; other events and
/// other orders are acknowledged and change nothing). Register this address at PayPal and set `APP_PAYPAL_WEBHOOK_ID` to the
/// id PayPal gives it. PayPal's `PAYPAL-*` transmission headers are checked by PayPal's
/// verification call whenever the event would change a funding: 401 `invalid_signature`
/// when PayPal does not confirm them, 503 `payment_provider_error` when PayPal cannot be
/// asked (PayPal sends the event again later), 404 `not_found` when no provider with
/// webhooks is configured.
#[utoipa::path(post, path = "/billing/payprovider/webhook", tag = "billing", security(()),
    params(
        ("PAYPAL-TRANSMISSION-ID" = Option<String>, Header, description = "PayPal's id of this delivery"),
        ("PAYPAL-TRANSMISSION-TIME" = Option<String>, Header, description = "When PayPal sent it"),
        ("PAYPAL-TRANSMISSION-SIG" = Option<String>, Header, description = "PayPal's signature"),
        ("PAYPAL-CERT-URL" = Option<String>, Header, description = "PayPal's signing certificate"),
        ("PAYPAL-AUTH-ALGO" = Option<String>, Header, description = "The signature's algorithm"),
    ),
    request_body(content = serde_json::Value, description = "PayPal's webhook event, exactly as PayPal sent it", content_type = "application/json"),
    responses((status = 200, body = ProviderEventReceipt), (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 503, body = ErrorBody)))]
async fn webhook(
    State(s): State<AppState>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<AppJson<ProviderEventReceipt>, AppError> {
    // Only the provider's own headers go on (names in lower case, as HeaderMap keeps them).
    let provider_headers: BTreeMap<String, String> = headers
        .iter()
        .filter(|(k, _)| k.as_str().starts_with("paypal-"))
        .filter_map(|(k, v)| Some((k.as_str().to_owned(), v.to_str().ok()?.to_owned())))
        .collect();
    // A payout item's event belongs to payouts, above billing; every other to the funding.
    if let ProviderEvent::PayoutItem(item) = s.ctx.payments.read_event(&body)? {
        return payouts::rails::paypal::receive(&s.ctx, &provider_headers, &body, &item)
            .await
            .map(AppJson);
    }
    let receipt = funding::receive_provider_event(&s.ctx, &provider_headers, &body).await?;
    // A return that left the advertiser owing pauses its campaigns (billing cannot: it sits
    // below campaigns). Run for repeats too, so a crash between the two steps heals on
    // PayPal's next delivery; without a debt it only reads.
    if let Some(id) = &receipt.funding_id {
        campaigns::debt::after_provider_event(&s.ctx, id).await?;
    }
    Ok(AppJson(receipt))
}
