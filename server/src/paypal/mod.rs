//! PayPal as the payment provider (Orders API v2, docs/payments.md): an order per provider
//! funding, the payer approves it on PayPal's checkout, the capture reports the money, and
//! PayPal's webhooks (verified by PayPal's own verification call) settle a capture whose
//! answer was lost or that cleared later. Every create and capture carries a
//! `PayPal-Request-Id` derived from the funding or the order, so a retry after a timeout is
//! answered by PayPal with the first result instead of a second charge.

mod client;
mod payouts;
mod shapes;

use std::collections::BTreeMap;
use std::sync::Arc;

use app::domain::Clock;
use app::domain::billing::payprovider::{
    BatchSubmission, CheckoutClient, OrderStatus, PaymentProvider, PayoutItem, PayoutItemReport,
    ProviderEvent, ProviderOrder,
};
use app::error::AppError;
use app::model::billing::ProviderCode;
use app::model::money::Micros;
use async_trait::async_trait;
use reqwest::{Method, StatusCode};

use client::{Answer, Client, provider_error};
use shapes::ErrorAnswer;

/// PayPal's sandbox REST address (the default of `APP_PAYPAL_API_URL`).
pub const SANDBOX_API: &str = "https://api-m.sandbox.paypal.com";
const LIVE_HOSTS: [&str; 2] = ["api-m.paypal.com", "api.paypal.com"];
const SANDBOX_HOSTS: [&str; 2] = ["api-m.sandbox.paypal.com", "api.sandbox.paypal.com"];

/// The settings of one PayPal REST application.
pub struct PayPalSettings {
    pub client_id: String,
    pub client_secret: String,
    pub api_url: String,
    /// The id PayPal gave the webhook registered for this service (verification needs it).
    pub webhook_id: String,
    /// Where PayPal sends the payer back after approving or cancelling (the funding page;
    /// PayPal adds `token=<order id>`).
    pub return_url: String,
}

pub struct PayPal {
    client: Client,
    client_id: String,
    webhook_id: String,
    return_url: String,
    /// Where payers approve orders: PayPal's checkout for its two environments, the API's
    /// own address for anything else (a stand-in).
    checkout_base: String,
    live: bool,
}

impl PayPal {
    pub fn new(s: &PayPalSettings, clock: Arc<dyn Clock>) -> anyhow::Result<Self> {
        let url = url::Url::parse(&s.api_url)?;
        let host = url.host_str().unwrap_or_default().to_ascii_lowercase();
        let live = LIVE_HOSTS.contains(&host.as_str());
        let checkout_base = if live {
            "https://www.paypal.com".to_owned()
        } else if SANDBOX_HOSTS.contains(&host.as_str()) {
            "https://www.sandbox.paypal.com".to_owned()
        } else {
            s.api_url.trim_end_matches('/').to_owned()
        };
        Ok(Self {
            client: Client::new(&s.api_url, &s.client_id, &s.client_secret, clock)?,
            client_id: s.client_id.clone(),
            webhook_id: s.webhook_id.clone(),
            return_url: s.return_url.clone(),
            checkout_base,
            live,
        })
    }

    async fn get_order(&self, order_id: &str) -> Result<ProviderOrder, AppError> {
        let path = format!("/v2/checkout/orders/{}", path_segment(order_id)?);
        let answer = self.client.call(Method::GET, &path, None, None).await?;
        match answer.status {
            s if s.is_success() => order_of(&answer),
            StatusCode::NOT_FOUND => Err(AppError::not_found("order")),
            _ => Err(refused(&answer, "reading an order")),
        }
    }
}

#[async_trait]
impl PaymentProvider for PayPal {
    fn code(&self) -> ProviderCode {
        ProviderCode::PayPal
    }

    fn checkout_client(&self) -> Option<CheckoutClient> {
        Some(CheckoutClient {
            client_id: self.client_id.clone(),
            environment: Some(if self.live { "live" } else { "sandbox" }.to_owned()),
        })
    }

    fn approve_url(&self, order_id: &str) -> Option<String> {
        let token: String = url::form_urlencoded::byte_serialize(order_id.as_bytes()).collect();
        Some(format!("{}/checkoutnow?token={token}", self.checkout_base))
    }

    fn read_event(&self, body: &[u8]) -> Result<ProviderEvent, AppError> {
        payouts::item_event(body)
            .or_else(|| shapes::event(body))
            .ok_or_else(|| AppError::invalid("the body is not a PayPal webhook event"))
    }

    async fn verify_event(
        &self,
        headers: &BTreeMap<String, String>,
        body: &[u8],
    ) -> Result<(), AppError> {
        let header = |name: &str| {
            headers
                .get(name)
                .filter(|v| !v.is_empty() && v.len() <= 2048)
                .ok_or_else(|| {
                    AppError::unauthorized(format!("the {name} header is missing"))
                        .with_code("invalid_signature")
                })
        };
        let fields = serde_json::json!({
            "auth_algo": header("paypal-auth-algo")?,
            "cert_url": header("paypal-cert-url")?,
            "transmission_id": header("paypal-transmission-id")?,
            "transmission_sig": header("paypal-transmission-sig")?,
            "transmission_time": header("paypal-transmission-time")?,
            "webhook_id": self.webhook_id,
        })
        .to_string();
        // PayPal checks its signature over the event exactly as sent: it goes in unchanged
        // (re-serialising could reorder keys or change numbers and fail the check).
        let event = std::str::from_utf8(body)
            .ok()
            .filter(|b| serde_json::from_str::<serde_json::Value>(b).is_ok())
            .ok_or_else(|| AppError::invalid("the body is not JSON"))?;
        let request = format!(
            "{},\"webhook_event\":{event}}}",
            fields.strip_suffix('}').unwrap_or(&fields)
        );
        let path = "/v1/notifications/verify-webhook-signature";
        let answer = self
            .client
            .call(Method::POST, path, None, Some(request))
            .await?;
        if !answer.status.is_success() {
            return Err(refused(&answer, "verifying a webhook"));
        }
        let verdict: shapes::Verdict =
            serde_json::from_slice(&answer.body).map_err(|_| provider_error())?;
        match verdict.verification_status {
            shapes::Verification::Success => Ok(()),
            shapes::Verification::Failure => Err(AppError::unauthorized(
                "PayPal did not confirm this webhook's signature",
            )
            .with_code("invalid_signature")),
        }
    }

    async fn create_order(
        &self,
        funding_id: &str,
        amount_micros: Micros,
        currency: &str,
    ) -> Result<ProviderOrder, AppError> {
        let amount = shapes::decimal_amount(amount_micros, currency).ok_or_else(|| {
            AppError::field("amount", "must be whole cents for the payment provider")
        })?;
        let body = shapes::order_body(funding_id, &amount, currency, &self.return_url);
        // The funding's id as the request id: a retry of this create (the answer lost) gets
        // the same order back from PayPal, never a second one.
        let answer = (self.client)
            .call(
                Method::POST,
                "/v2/checkout/orders",
                Some(funding_id),
                Some(body),
            )
            .await?;
        if !answer.status.is_success() {
            return Err(refused(&answer, "creating an order"));
        }
        let mut order = order_of(&answer)?;
        // The answer of a create lists no amount when PayPal answers minimally: it is ours.
        order.amount_micros = amount_micros;
        currency.clone_into(&mut order.currency);
        Ok(order)
    }

    async fn capture(&self, order_id: &str) -> Result<ProviderOrder, AppError> {
        let path = format!("/v2/checkout/orders/{}/capture", path_segment(order_id)?);
        let request_id = format!("capture-{order_id}");
        let answer = (self.client)
            .call(
                Method::POST,
                &path,
                Some(&request_id),
                Some("{}".to_owned()),
            )
            .await?;
        if answer.status.is_success() {
            return order_of(&answer);
        }
        if answer.status == StatusCode::NOT_FOUND {
            return Err(AppError::not_found("order"));
        }
        let issue: Option<ErrorAnswer> = serde_json::from_slice(&answer.body).ok();
        let has = |i: &str| issue.as_ref().is_some_and(|e| e.has_issue(i));
        if has("ORDER_ALREADY_CAPTURED") {
            // Captured by an earlier call whose answer was lost: the order says how.
            return self.get_order(order_id).await;
        }
        if has("ORDER_NOT_APPROVED") || has("PAYER_ACTION_REQUIRED") {
            return Ok(unsettled(order_id, OrderStatus::Created));
        }
        if has("INSTRUMENT_DECLINED") || has("TRANSACTION_REFUSED") || has("ORDER_EXPIRED") {
            return Ok(unsettled(order_id, OrderStatus::Declined));
        }
        Err(refused(&answer, "capturing an order"))
    }

    fn sends_payouts(&self) -> bool {
        true
    }

    async fn send_payouts(
        &self,
        batch_id: &str,
        items: &[PayoutItem],
    ) -> Result<BatchSubmission, AppError> {
        payouts::send(&self.client, batch_id, items).await
    }

    async fn payout_items(
        &self,
        provider_batch_id: &str,
    ) -> Result<Vec<PayoutItemReport>, AppError> {
        payouts::items(&self.client, provider_batch_id).await
    }
}

fn unsettled(order_id: &str, status: OrderStatus) -> ProviderOrder {
    ProviderOrder {
        id: order_id.to_owned(),
        capture_id: None,
        status,
        amount_micros: Micros::ZERO,
        currency: String::new(),
    }
}

fn order_of(answer: &Answer) -> Result<ProviderOrder, AppError> {
    let order: shapes::Order = serde_json::from_slice(&answer.body).map_err(|_| {
        tracing::warn!("the payment provider answered an order this service cannot read");
        provider_error()
    })?;
    Ok(shapes::provider_order(&order))
}

/// An answer PayPal gave that this service did not expect: logged with PayPal's debug id
/// (what PayPal's support asks for) and answered as a provider failure.
fn refused(answer: &Answer, doing: &str) -> AppError {
    let e: Option<ErrorAnswer> = serde_json::from_slice(&answer.body).ok();
    tracing::warn!(
        status = %answer.status,
        name = e.as_ref().map_or("", |e| e.name.as_str()),
        debug_id = e.as_ref().map_or("", |e| e.debug_id.as_str()),
        "the payment provider refused {doing}"
    );
    provider_error()
}

/// An order id as one path segment: PayPal's ids are letters and digits.
fn path_segment(order_id: &str) -> Result<&str, AppError> {
    if !order_id.is_empty()
        && order_id.len() <= 64
        && order_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        Ok(order_id)
    } else {
        Err(AppError::not_found("order"))
    }
}
