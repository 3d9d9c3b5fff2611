//! PayPal Payouts (`/v1/payments/payouts`): a batch is created once (our batch id is
//! PayPal's `sender_batch_id` and the `PayPal-Request-Id`, so a retry after a lost answer
//! is answered with the first batch), read back item by item, and its items' webhooks
//! (`PAYMENT.PAYOUTS-ITEM.*`) are mapped onto [`PayoutItemReport`]s.

use app::domain::billing::payprovider::{
    BatchSubmission, PayoutItem, PayoutItemOutcome, PayoutItemReport, ProviderEvent,
};
use app::error::AppError;
use reqwest::{Method, StatusCode};
use serde::Deserialize;

use super::client::{Client, provider_error};
use super::shapes::{ErrorAnswer, decimal_amount};

/// Items per page when reading a batch back (PayPal's maximum).
const PAGE_SIZE: usize = 1000;
/// Pages read at most (a batch holds at most 500 of ours).
const MAX_PAGES: usize = 15;

/// PayPal's kinds of receiver, told apart by their shape.
fn recipient_type(receiver: &str) -> &'static str {
    if receiver.contains('@') {
        "EMAIL"
    } else if receiver
        .trim_start_matches('+')
        .chars()
        .all(|c| c.is_ascii_digit())
    {
        "PHONE"
    } else {
        "PAYPAL_ID"
    }
}

/// The create body: the batch header and one item per payout.
pub fn batch_body(batch_id: &str, items: &[PayoutItem]) -> Result<String, AppError> {
    let items = items
        .iter()
        .map(|i| {
            let value = decimal_amount(i.amount_micros, &i.currency)
                .ok_or_else(|| AppError::conflict("a payout is not in whole cents"))?;
            Ok(serde_json::json!({
                "recipient_type": recipient_type(&i.receiver),
                "receiver": i.receiver,
                "amount": {"value": value, "currency": i.currency},
                "sender_item_id": i.payout_id,
                "note": format!("Marketplace payout {}", i.payout_id),
            }))
        })
        .collect::<Result<Vec<_>, AppError>>()?;
    Ok(serde_json::json!({
        "sender_batch_header": {
            "sender_batch_id": batch_id,
            "email_subject": "You have a payout from the marketplace",
            "email_message": "Your earnings were sent to this account.",
        },
        "items": items,
    })
    .to_string())
}

#[derive(Deserialize)]
struct BatchHeader {
    payout_batch_id: String,
}

#[derive(Deserialize)]
struct Created {
    batch_header: BatchHeader,
}

/// Sends the batch; PayPal's 4xx refusals are answers, 5xx and timeouts errors.
pub async fn send(
    client: &Client,
    batch_id: &str,
    items: &[PayoutItem],
) -> Result<BatchSubmission, AppError> {
    let body = batch_body(batch_id, items)?;
    let answer = client
        .call(
            Method::POST,
            "/v1/payments/payouts",
            Some(batch_id),
            Some(body),
        )
        .await?;
    if answer.status.is_success() {
        let created: Created =
            serde_json::from_slice(&answer.body).map_err(|_| provider_error())?;
        return Ok(BatchSubmission::Accepted {
            provider_batch_id: created.batch_header.payout_batch_id,
        });
    }
    if answer.status.is_client_error() && answer.status != StatusCode::TOO_MANY_REQUESTS {
        let e: Option<ErrorAnswer> = serde_json::from_slice(&answer.body).ok();
        let reason = e.map_or_else(
            || format!("PayPal answered {}", answer.status),
            |e| {
                let issues: Vec<&str> = e.details.iter().map(|d| d.issue.as_str()).collect();
                format!("{} {}", e.name, issues.join(" ")).trim().to_owned()
            },
        );
        return Ok(BatchSubmission::Refused {
            reason: reason.chars().take(500).collect(),
        });
    }
    Err(provider_error())
}

#[derive(Deserialize)]
struct ItemPage {
    #[serde(default)]
    items: Vec<Item>,
    #[serde(default)]
    total_page: Option<usize>,
}

/// One payout item as PayPal reports it (in a batch read and as a webhook's resource).
#[derive(Deserialize)]
pub struct Item {
    payout_item_id: String,
    #[serde(default)]
    transaction_id: Option<String>,
    #[serde(default)]
    transaction_status: Option<String>,
    payout_item: ItemBody,
    #[serde(default)]
    errors: Option<ItemError>,
}

#[derive(Deserialize)]
struct ItemBody {
    sender_item_id: Option<String>,
}

#[derive(Deserialize)]
struct ItemError {
    #[serde(default)]
    name: String,
}

impl Item {
    /// Our report of it; `None` without our payout id.
    pub fn report(&self) -> Option<PayoutItemReport> {
        let status = self.transaction_status.as_deref().unwrap_or("PENDING");
        let outcome = match status {
            "SUCCESS" => PayoutItemOutcome::Paid,
            "FAILED" | "RETURNED" | "BLOCKED" | "REFUNDED" | "REVERSED" | "DENIED" | "CANCELED" => {
                PayoutItemOutcome::Failed
            }
            // PENDING, UNCLAIMED (the payee has 30 days; then RETURNED), ONHOLD, NEW.
            _ => PayoutItemOutcome::Waiting,
        };
        let error = self.errors.as_ref().map(|e| e.name.as_str()).unwrap_or("");
        let detail = if error.is_empty() {
            status.to_owned()
        } else {
            format!("{status} ({error})")
        };
        Some(PayoutItemReport {
            payout_id: self.payout_item.sender_item_id.clone()?,
            item_id: self.payout_item_id.clone(),
            transaction_id: self.transaction_id.clone().filter(|t| !t.is_empty()),
            outcome,
            detail: detail.chars().take(200).collect(),
        })
    }
}

/// A `PAYMENT.PAYOUTS-ITEM.*` webhook: its resource is the item, naming our payout as its
/// `sender_item_id`. `None` for any other event (or an item without our payout id).
pub fn item_event(body: &[u8]) -> Option<ProviderEvent> {
    #[derive(Deserialize)]
    struct Event {
        event_type: String,
        resource: Item,
    }
    let e: Event = serde_json::from_slice(body).ok()?;
    e.event_type
        .starts_with("PAYMENT.PAYOUTS-ITEM.")
        .then(|| e.resource.report())
        .flatten()
        .map(ProviderEvent::PayoutItem)
}

/// Every item of an accepted batch, page by page.
pub async fn items(
    client: &Client,
    provider_batch_id: &str,
) -> Result<Vec<PayoutItemReport>, AppError> {
    if provider_batch_id.is_empty()
        || provider_batch_id.len() > 64
        || !provider_batch_id.bytes().all(|b| b.is_ascii_alphanumeric())
    {
        return Err(AppError::not_found("payout batch"));
    }
    let mut reports = Vec::new();
    for page in 1..=MAX_PAGES {
        let path = format!(
            "/v1/payments/payouts/{provider_batch_id}?page={page}&page_size={PAGE_SIZE}&total_required=true"
        );
        let answer = client.call(Method::GET, &path, None, None).await?;
        if !answer.status.is_success() {
            tracing::warn!(status = %answer.status, "PayPal did not answer a payout batch read");
            return Err(provider_error());
        }
        let p: ItemPage = serde_json::from_slice(&answer.body).map_err(|_| provider_error())?;
        reports.extend(p.items.iter().filter_map(Item::report));
        if page >= p.total_page.unwrap_or(1) {
            break;
        }
    }
    Ok(reports)
}

#[cfg(test)]
mod tests {
    use super::*;
    use app::model::money::Micros;

    #[test]
    fn receivers_and_items_read_as_paypal_writes_them() {
        assert_eq!(recipient_type("pub@example.com"), "EMAIL");
        assert_eq!(recipient_type("+4915112345678"), "PHONE");
        assert_eq!(recipient_type("7ZXQ2QZRB9TWE"), "PAYPAL_ID");
        let body = batch_body(
            "pbt_1",
            &[PayoutItem {
                payout_id: "pyo_1".into(),
                receiver: "pub@example.com".into(),
                amount_micros: Micros(12_340_000),
                currency: "USD".into(),
            }],
        )
        .unwrap();
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["sender_batch_header"]["sender_batch_id"], "pbt_1");
        assert_eq!(v["items"][0]["amount"]["value"], "12.34");
        assert_eq!(v["items"][0]["sender_item_id"], "pyo_1");
        let item = |status: &str| {
            serde_json::from_value::<Item>(serde_json::json!({
                "payout_item_id": "I1", "transaction_id": "T1", "transaction_status": status,
                "payout_item": {"sender_item_id": "pyo_1", "receiver": "pub@example.com"},
                "errors": {"name": "RECEIVER_UNREGISTERED", "message": "…"}}))
            .unwrap()
            .report()
            .unwrap()
        };
        assert_eq!(item("SUCCESS").outcome, PayoutItemOutcome::Paid);
        assert_eq!(item("RETURNED").outcome, PayoutItemOutcome::Failed);
        assert_eq!(item("UNCLAIMED").outcome, PayoutItemOutcome::Waiting);
        assert_eq!(item("FAILED").detail, "FAILED (RECEIVER_UNREGISTERED)");
        let event = serde_json::json!({"event_type": "PAYMENT.PAYOUTS-ITEM.SUCCEEDED",
            "resource": {"payout_item_id": "I1", "transaction_status": "SUCCESS",
                "payout_item": {"sender_item_id": "pyo_1"}}});
        assert!(matches!(
            item_event(event.to_string().as_bytes()),
            Some(ProviderEvent::PayoutItem(r)) if r.outcome == PayoutItemOutcome::Paid
        ));
        assert_eq!(item_event(b"{}"), None);
    }
}
