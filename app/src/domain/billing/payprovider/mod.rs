//! Payment providers. The service talks to a provider through [`PaymentProvider`]: the
//! real one (PayPal's Orders API, in `server::paypal`, where the HTTP client lives) or
//! [`DevProvider`], an in-process simulator whose checkout page (development only) lets the
//! payer approve or decline an order. A provider also verifies its own webhooks and turns
//! them into [`ProviderEvent`]s, which `billing::funding::provider_events` applies.

use std::collections::BTreeMap;

use async_trait::async_trait;

use crate::error::AppError;
use crate::model::billing::ProviderCode;
use crate::model::money::Micros;
pub use entity::values::OrderStatus;

mod dev;
pub use dev::DevProvider;

/// An order as the provider reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderOrder {
    pub id: String,
    /// The capture that paid it, once there is one (refunds and chargebacks name it).
    pub capture_id: Option<String>,
    pub status: OrderStatus,
    pub amount_micros: Micros,
    pub currency: String,
}

/// What the browser's checkout needs: the provider's public client id and its environment
/// (`sandbox` or `live` for a real provider; the deployment's environment otherwise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckoutClient {
    pub client_id: String,
    pub environment: Option<String>,
}

/// A provider's webhook, verified: what happened to which order's money.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderEvent {
    /// The payment of an order was captured: the money is ours.
    CaptureCompleted {
        order_id: String,
        capture_id: String,
        amount_micros: Micros,
        currency: String,
    },
    /// The capture of an order was denied: nothing was paid.
    CaptureDenied { order_id: String },
    /// The payer approved an order (and may never come back to the page that captures it).
    OrderApproved { order_id: String },
    /// Money of a completed capture went back to the payer (a refund or a chargeback). The
    /// provider names the capture; the order only sometimes.
    PaymentReturned {
        capture_id: String,
        order_id: Option<String>,
        returned: ProviderReturn,
    },
    /// What became of one payout item (PayPal's `PAYMENT.PAYOUTS-ITEM.*`).
    PayoutItem(PayoutItemReport),
    /// An event this service does not act on (acknowledged so the provider stops sending).
    Other { event_type: String },
}

/// Money of a captured payment going back to the payer, as the provider reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderReturn {
    /// The provider's id of the refund or reversal (each is applied once).
    pub return_id: String,
    pub amount_micros: Micros,
    pub currency: String,
    /// A chargeback (the payer's bank took the money back) rather than a refund.
    pub chargeback: bool,
}

/// One payout to send through the provider's payouts API (PayPal Payouts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayoutItem {
    /// Our payout id (PayPal's `sender_item_id`): reports name it.
    pub payout_id: String,
    /// The payee's account at the provider: an e-mail address, a phone number or the
    /// provider's own account id.
    pub receiver: String,
    pub amount_micros: Micros,
    pub currency: String,
}

/// What became of one payout item at the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PayoutItemOutcome {
    /// The money reached the payee's account.
    Paid,
    /// It failed, was returned, blocked, refunded or reversed: the money is back with us.
    Failed,
    /// Still on its way (pending, unclaimed, on hold).
    Waiting,
}

/// The provider's report of one payout item (its batch poll, or its webhook).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PayoutItemReport {
    /// Our payout id.
    pub payout_id: String,
    /// The provider's id of the item.
    pub item_id: String,
    /// The provider's transaction id once the money moved.
    pub transaction_id: Option<String>,
    pub outcome: PayoutItemOutcome,
    /// The provider's status and error name, for the publisher and the audit trail.
    pub detail: String,
}

/// The provider's answer to a batch of payouts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchSubmission {
    /// Accepted: its items are on their way; the provider's batch id is for polling.
    Accepted { provider_batch_id: String },
    /// Refused as a whole (a validation error, insufficient funds at the provider).
    Refused { reason: String },
}

/// A payment provider: create an order for the payer to approve, then capture it.
#[async_trait]
pub trait PaymentProvider: Send + Sync {
    /// Short provider code shown in the configuration.
    fn code(&self) -> ProviderCode;
    /// The checkout client configuration; `None` keeps the development stand-in's.
    fn checkout_client(&self) -> Option<CheckoutClient> {
        None
    }
    /// Where the payer approves `order_id`; `None`: this service's development checkout.
    fn approve_url(&self, _order_id: &str) -> Option<String> {
        None
    }
    /// Reads a webhook's body without trusting it yet: what it says happened to which order.
    /// The caller verifies it ([`verify_event`](Self::verify_event)) only when acting on it
    /// would change money, so a flood of forged or irrelevant events costs no provider call.
    /// A provider without webhooks refuses every one.
    fn read_event(&self, _body: &[u8]) -> Result<ProviderEvent, AppError> {
        Err(AppError::not_found("payment provider webhook"))
    }
    /// Verifies that the provider sent this webhook (its headers, names in lower case, and
    /// the body exactly as received): `invalid_signature` when it did not.
    async fn verify_event(
        &self,
        _headers: &BTreeMap<String, String>,
        _body: &[u8],
    ) -> Result<(), AppError> {
        Err(AppError::not_found("payment provider webhook"))
    }
    /// Opens an order for `amount_micros` in `currency`.
    async fn create_order(
        &self,
        funding_id: &str,
        amount_micros: Micros,
        currency: &str,
    ) -> Result<ProviderOrder, AppError>;
    /// Captures an approved order; capturing a completed order again reports it unchanged.
    async fn capture(&self, order_id: &str) -> Result<ProviderOrder, AppError>;
    /// Whether payouts can be sent through this provider.
    fn sends_payouts(&self) -> bool {
        false
    }
    /// Sends a batch of payouts once: `batch_id` is the provider's idempotency key, so a
    /// retry after a lost answer gets the first answer back, never a second payment. A
    /// failure to reach the provider is an error (retry later); a refusal is an answer.
    async fn send_payouts(
        &self,
        _batch_id: &str,
        _items: &[PayoutItem],
    ) -> Result<BatchSubmission, AppError> {
        Err(payouts_unavailable())
    }
    /// What became of every item of a batch the provider accepted.
    async fn payout_items(
        &self,
        _provider_batch_id: &str,
    ) -> Result<Vec<PayoutItemReport>, AppError> {
        Err(payouts_unavailable())
    }
}

fn payouts_unavailable() -> AppError {
    AppError::conflict("no payment provider that sends payouts is configured")
        .with_code("payout_rail_unavailable")
}

/// The signature of an order's development checkout link (approve and decline need it).
pub fn checkout_signature(ctx: &crate::domain::Ctx, order_id: &str) -> String {
    ctx.keys.sign(&format!("dev-checkout:{order_id}"))
}

/// The provider of a production deployment that has no real provider configured: every
/// provider funding is refused at once with `payment_provider_unavailable` (wire funding
/// still works), instead of an order nobody can ever approve.
pub struct NoProvider;

#[async_trait]
impl PaymentProvider for NoProvider {
    fn code(&self) -> ProviderCode {
        ProviderCode::Disabled
    }

    async fn create_order(&self, _: &str, _: Micros, _: &str) -> Result<ProviderOrder, AppError> {
        Err(unavailable())
    }

    async fn capture(&self, _: &str) -> Result<ProviderOrder, AppError> {
        Err(unavailable())
    }
}

fn unavailable() -> AppError {
    AppError::unavailable("no payment provider is configured; fund the wallet by wire transfer")
        .with_code("payment_provider_unavailable")
}
