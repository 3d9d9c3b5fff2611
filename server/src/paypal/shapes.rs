//! PayPal's JSON as this service reads and writes it (Orders API v2, webhooks), and the
//! mapping of its states onto [`ProviderOrder`] and [`ProviderEvent`]. Amounts cross as
//! PayPal's decimal strings (`"250.00"`) and are micros everywhere else.

use app::domain::billing::payprovider::{
    OrderStatus, ProviderEvent, ProviderOrder, ProviderReturn,
};
use app::model::money::{Micros, currency_decimals, parse_decimal};
use serde::Deserialize;

#[derive(Deserialize)]
pub struct Money {
    pub currency_code: String,
    pub value: String,
}

/// PayPal's order statuses (`Other` for any PayPal adds later).
#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PayPalOrderStatus {
    Created,
    Saved,
    Approved,
    Voided,
    Completed,
    PayerActionRequired,
    #[serde(other)]
    Other,
}

/// PayPal's capture statuses.
#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CaptureStatus {
    Completed,
    Declined,
    PartiallyRefunded,
    Pending,
    Refunded,
    Failed,
    #[serde(other)]
    Other,
}

/// The answer of PayPal's webhook signature verification.
#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verification {
    Success,
    #[serde(other)]
    Failure,
}

#[derive(Deserialize)]
pub struct Verdict {
    pub verification_status: Verification,
}

#[derive(Deserialize)]
pub struct Order {
    pub id: String,
    pub status: PayPalOrderStatus,
    #[serde(default)]
    pub purchase_units: Vec<PurchaseUnit>,
}

#[derive(Deserialize)]
pub struct PurchaseUnit {
    pub amount: Option<Money>,
    pub payments: Option<Payments>,
}

#[derive(Deserialize)]
pub struct Payments {
    #[serde(default)]
    pub captures: Vec<Capture>,
}

#[derive(Deserialize)]
pub struct Capture {
    pub id: Option<String>,
    pub status: CaptureStatus,
    pub amount: Option<Money>,
}

/// PayPal's error answer: `details[].issue` names what went wrong.
#[derive(Deserialize)]
pub struct ErrorAnswer {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub debug_id: String,
    #[serde(default)]
    pub details: Vec<ErrorDetail>,
}

#[derive(Deserialize)]
pub struct ErrorDetail {
    pub issue: String,
}

impl ErrorAnswer {
    pub fn has_issue(&self, issue: &str) -> bool {
        self.details.iter().any(|d| d.issue == issue)
    }
}

/// The amount as PayPal writes it: the currency's own decimals, `None` when the micros
/// hold a fraction PayPal cannot charge (a tenth of a cent).
pub fn decimal_amount(micros: Micros, currency: &str) -> Option<String> {
    let decimals = u32::try_from(currency_decimals(currency))
        .unwrap_or(2)
        .min(6);
    let unit = 10_i64.pow(6 - decimals);
    (micros.get() % unit == 0).then(|| micros.in_decimals(decimals))
}

/// PayPal's decimal string as micros (`None` for anything else).
pub fn micros_of(m: &Money) -> Option<Micros> {
    parse_decimal(&m.value).ok().map(Micros)
}

/// The order body for `amount` of one funding: the funding's id travels as PayPal's
/// `custom_id` and `invoice_id`, so PayPal's own records name it (and refuse a second
/// payment of the same invoice).
pub fn order_body(funding_id: &str, amount: &str, currency: &str, return_url: &str) -> String {
    serde_json::json!({
        "intent": "CAPTURE",
        "purchase_units": [{
            "reference_id": funding_id,
            "custom_id": funding_id,
            "invoice_id": funding_id,
            "description": "Advertiser wallet funding",
            "amount": {"currency_code": currency, "value": amount},
        }],
        "payment_source": {"paypal": {"experience_context": {
            "user_action": "PAY_NOW",
            "shipping_preference": "NO_SHIPPING",
            "return_url": return_url,
            "cancel_url": return_url,
        }}},
    })
    .to_string()
}

/// An order as the provider reports it: a capture's state wins over the order's (a
/// COMPLETED order whose capture is PENDING has not paid yet), and a completed capture's own
/// amount is what counts.
pub fn provider_order(o: &Order) -> ProviderOrder {
    let unit = o.purchase_units.first();
    let capture = unit
        .and_then(|u| u.payments.as_ref())
        .and_then(|p| p.captures.first());
    let money = capture
        .and_then(|c| c.amount.as_ref())
        .or_else(|| unit.and_then(|u| u.amount.as_ref()));
    let status = match capture.map(|c| c.status) {
        // A refunded capture was paid first; the refund is a separate event.
        Some(
            CaptureStatus::Completed | CaptureStatus::PartiallyRefunded | CaptureStatus::Refunded,
        ) => OrderStatus::Completed,
        Some(CaptureStatus::Pending) => OrderStatus::Processing,
        Some(CaptureStatus::Declined | CaptureStatus::Failed | CaptureStatus::Other) => {
            OrderStatus::Declined
        }
        None => match o.status {
            PayPalOrderStatus::Approved => OrderStatus::Approved,
            PayPalOrderStatus::Completed => OrderStatus::Processing,
            PayPalOrderStatus::Voided => OrderStatus::Declined,
            // The payer has not approved yet.
            PayPalOrderStatus::Created
            | PayPalOrderStatus::Saved
            | PayPalOrderStatus::PayerActionRequired
            | PayPalOrderStatus::Other => OrderStatus::Created,
        },
    };
    ProviderOrder {
        id: o.id.clone(),
        capture_id: capture.and_then(|c| c.id.clone()),
        status,
        amount_micros: money.and_then(micros_of).unwrap_or(Micros::ZERO),
        currency: money.map(|m| m.currency_code.clone()).unwrap_or_default(),
    }
}

#[derive(Deserialize)]
struct Event {
    event_type: String,
    #[serde(default)]
    resource: serde_json::Value,
}

/// Reads a webhook event's body: what happened to which order. `None` when it is not a
/// PayPal event at all.
pub fn event(body: &[u8]) -> Option<ProviderEvent> {
    let e: Event = serde_json::from_slice(body).ok()?;
    let r = &e.resource;
    let order_id = r
        .pointer("/supplementary_data/related_ids/order_id")
        .and_then(|v| v.as_str())
        .map(str::to_owned);
    let other = || ProviderEvent::Other {
        event_type: e.event_type.chars().take(100).collect(),
    };
    Some(match (e.event_type.as_str(), order_id) {
        ("PAYMENT.CAPTURE.COMPLETED", Some(order_id)) => {
            let money: Option<Money> = serde_json::from_value(r["amount"].clone()).ok();
            let amount = money.as_ref().and_then(micros_of);
            match (money, amount, r["id"].as_str()) {
                (Some(m), Some(amount_micros), Some(capture_id)) => {
                    ProviderEvent::CaptureCompleted {
                        order_id,
                        capture_id: capture_id.to_owned(),
                        amount_micros,
                        currency: m.currency_code,
                    }
                }
                _ => other(),
            }
        }
        ("PAYMENT.CAPTURE.DENIED", Some(order_id)) => ProviderEvent::CaptureDenied { order_id },
        // An order event's resource is the order itself.
        ("CHECKOUT.ORDER.APPROVED", _) => match r["id"].as_str() {
            Some(id) => ProviderEvent::OrderApproved {
                order_id: id.to_owned(),
            },
            None => other(),
        },
        // A refund's resource is the refund: its own id and amount, and the capture it
        // returns in its `up` link. A reversal (a chargeback) reads the same way.
        ("PAYMENT.CAPTURE.REFUNDED" | "PAYMENT.CAPTURE.REVERSED", order_id) => {
            returned(r, order_id, e.event_type == "PAYMENT.CAPTURE.REVERSED").unwrap_or_else(other)
        }
        _ => other(),
    })
}

/// A refund or reversal resource as a [`ProviderEvent::PaymentReturned`]: `None` when it
/// lacks its id, amount or capture.
fn returned(
    r: &serde_json::Value,
    order_id: Option<String>,
    chargeback: bool,
) -> Option<ProviderEvent> {
    let money: Money = serde_json::from_value(r["amount"].clone()).ok()?;
    // PayPal writes some reversals with a negative amount; what left is its size.
    let amount = Micros(parse_decimal(money.value.trim().trim_start_matches('-')).ok()?);
    let capture_id = r["links"]
        .as_array()?
        .iter()
        .find(|l| l["rel"] == "up")
        .and_then(|l| l["href"].as_str())
        .and_then(|href| href.split_once("/captures/"))
        .map(|(_, rest)| rest.split(['/', '?']).next().unwrap_or_default().to_owned())
        .filter(|id| !id.is_empty() && id.len() <= 64)?;
    let return_id = r["id"].as_str().filter(|id| id.len() <= 64)?.to_owned();
    Some(ProviderEvent::PaymentReturned {
        capture_id,
        order_id,
        returned: ProviderReturn {
            return_id,
            amount_micros: amount,
            currency: money.currency_code,
            chargeback,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_cross_in_the_currency_decimals() {
        assert_eq!(
            decimal_amount(Micros(250_000_000), "USD").as_deref(),
            Some("250.00")
        );
        assert_eq!(
            decimal_amount(Micros(12_340_000), "USD").as_deref(),
            Some("12.34")
        );
        // A tenth of a cent cannot be charged: refused, never rounded.
        assert_eq!(decimal_amount(Micros(12_345_000), "USD"), None);
        assert_eq!(
            decimal_amount(Micros(1_500_000_000), "JPY").as_deref(),
            Some("1500")
        );
        assert_eq!(decimal_amount(Micros(1_500_500_000), "JPY"), None);
    }

    fn order(json: serde_json::Value) -> ProviderOrder {
        provider_order(&serde_json::from_value(json).unwrap())
    }

    #[test]
    fn the_capture_decides_over_the_order() {
        let captured = |status: &str| {
            order(
                serde_json::json!({"id": "O1", "status": "COMPLETED", "purchase_units": [{
                "amount": {"currency_code": "USD", "value": "250.00"},
                "payments": {"captures": [{"id": "C1", "status": status,
                    "amount": {"currency_code": "USD", "value": "249.99"}}]}}]}),
            )
        };
        let done = captured("COMPLETED");
        assert_eq!(done.status, OrderStatus::Completed);
        // The capture's own amount counts, not the order's.
        assert_eq!(done.amount_micros, Micros(249_990_000));
        assert_eq!(captured("PENDING").status, OrderStatus::Processing);
        assert_eq!(captured("DECLINED").status, OrderStatus::Declined);
        assert_eq!(captured("FAILED").status, OrderStatus::Declined);
        let plain = |status: &str| order(serde_json::json!({"id": "O1", "status": status})).status;
        assert_eq!(plain("APPROVED"), OrderStatus::Approved);
        assert_eq!(plain("PAYER_ACTION_REQUIRED"), OrderStatus::Created);
        assert_eq!(plain("VOIDED"), OrderStatus::Declined);
    }

    #[test]
    fn events_name_their_order() {
        let body = serde_json::json!({"id": "WH-1", "event_type": "PAYMENT.CAPTURE.COMPLETED",
            "resource": {"id": "C1", "status": "COMPLETED",
                "amount": {"currency_code": "USD", "value": "250.00"},
                "supplementary_data": {"related_ids": {"order_id": "O1"}}}});
        assert_eq!(
            event(body.to_string().as_bytes()),
            Some(ProviderEvent::CaptureCompleted {
                order_id: "O1".into(),
                capture_id: "C1".into(),
                amount_micros: Micros(250_000_000),
                currency: "USD".into(),
            })
        );
        let denied = serde_json::json!({"event_type": "PAYMENT.CAPTURE.DENIED",
            "resource": {"supplementary_data": {"related_ids": {"order_id": "O2"}}}});
        assert_eq!(
            event(denied.to_string().as_bytes()),
            Some(ProviderEvent::CaptureDenied {
                order_id: "O2".into()
            })
        );
        let other = serde_json::json!({"event_type": "CHECKOUT.ORDER.APPROVED", "resource": {}});
        assert!(matches!(
            event(other.to_string().as_bytes()),
            Some(ProviderEvent::Other { .. })
        ));
        let approved = serde_json::json!({"event_type": "CHECKOUT.ORDER.APPROVED",
            "resource": {"id": "O3", "status": "APPROVED"}});
        assert_eq!(
            event(approved.to_string().as_bytes()),
            Some(ProviderEvent::OrderApproved {
                order_id: "O3".into()
            })
        );
        assert_eq!(event(b"not json"), None);
    }

    #[test]
    fn refunds_and_reversals_name_their_capture() {
        let refund = |event_type: &str, value: &str| {
            serde_json::json!({"id": "WH-9", "event_type": event_type, "resource_type": "refund",
                "resource": {"id": "R1", "status": "COMPLETED",
                    "amount": {"currency_code": "USD", "value": value},
                    "links": [
                        {"href": "https://api.paypal.com/v2/payments/refunds/R1", "rel": "self", "method": "GET"},
                        {"href": "https://api.paypal.com/v2/payments/captures/C7", "rel": "up", "method": "GET"}]}})
            .to_string()
        };
        let expect = |chargeback| {
            Some(ProviderEvent::PaymentReturned {
                capture_id: "C7".into(),
                order_id: None,
                returned: ProviderReturn {
                    return_id: "R1".into(),
                    amount_micros: Micros(12_500_000),
                    currency: "USD".into(),
                    chargeback,
                },
            })
        };
        assert_eq!(
            event(refund("PAYMENT.CAPTURE.REFUNDED", "12.50").as_bytes()),
            expect(false)
        );
        assert_eq!(
            event(refund("PAYMENT.CAPTURE.REVERSED", "-12.50").as_bytes()),
            expect(true)
        );
        // Without the capture it returns, nothing can be applied.
        let orphan = serde_json::json!({"event_type": "PAYMENT.CAPTURE.REFUNDED",
            "resource": {"id": "R2", "amount": {"currency_code": "USD", "value": "1.00"}}});
        assert!(matches!(
            event(orphan.to_string().as_bytes()),
            Some(ProviderEvent::Other { .. })
        ));
    }
}
