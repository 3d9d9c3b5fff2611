//! PayPal Payouts in the stand-in, as PayPal documents them: `POST /v1/payments/payouts`
//! (201 with the batch header, PENDING; the `PayPal-Request-Id` replays the first answer; a
//! `sender_batch_id` used before is 400 `USER_BUSINESS_ERROR` / `DUPLICATE_REQUEST_ID`),
//! `GET /v1/payments/payouts/{id}` with each item's `transaction_status`, and the items'
//! `PAYMENT.PAYOUTS-ITEM.*` webhooks. Items start UNCLAIMED for a receiver whose address
//! says `unclaimed`, FAILED for one that says `unregistered`, otherwise PENDING until the
//! test settles them ([`FakePayPal::settle_payouts`]).

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use serde_json::{Value, json};

use super::{FakePayPal, Shared, gate, gate_or_replay, json_answer, signed};

/// One item of a batch PayPal holds.
#[derive(Debug, Clone)]
pub struct PayoutItem {
    pub item_id: String,
    pub sender_item_id: String,
    pub receiver: String,
    pub amount: String,
    pub currency: String,
    pub status: String,
}

/// A batch PayPal accepted.
#[derive(Debug, Clone, Default)]
pub struct PayoutBatch {
    pub sender_batch_id: String,
    pub items: Vec<PayoutItem>,
}

pub(super) async fn create(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let mut s = s.lock().expect("script");
    let request_id = match gate_or_replay(&mut s, &headers) {
        Ok(r) => r,
        Err(r) => return r,
    };
    let Ok(v) = serde_json::from_slice::<Value>(&body) else {
        return json_answer(400, json!({"name": "MALFORMED_REQUEST"}));
    };
    let sender_batch_id = v["sender_batch_header"]["sender_batch_id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    if s.payout_batches
        .values()
        .any(|b| b.sender_batch_id == sender_batch_id)
    {
        return json_answer(
            400,
            json!({"name": "USER_BUSINESS_ERROR", "debug_id": "dbg2", "details": [{"issue": "DUPLICATE_REQUEST_ID"}]}),
        );
    }
    if let Some(reason) = s.refuse_payouts.clone() {
        return json_answer(
            422,
            json!({"name": reason, "debug_id": "dbg3", "details": [{"issue": reason}]}),
        );
    }
    let n = s.payout_batches.len() + 1;
    let id = format!("PB{n:06}");
    let items = v["items"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let receiver = item["receiver"].as_str().unwrap_or_default().to_owned();
            let status = if receiver.contains("unregistered") {
                "FAILED"
            } else if receiver.contains("unclaimed") {
                "UNCLAIMED"
            } else {
                "PENDING"
            };
            PayoutItem {
                item_id: format!("{id}I{i:03}"),
                sender_item_id: item["sender_item_id"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                receiver,
                amount: item["amount"]["value"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                currency: item["amount"]["currency"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                status: status.to_owned(),
            }
        })
        .collect();
    s.payout_batches.insert(
        id.clone(),
        PayoutBatch {
            sender_batch_id: sender_batch_id.clone(),
            items,
        },
    );
    s.payout_creates += 1;
    let answer = json!({"batch_header": {"payout_batch_id": id, "batch_status": "PENDING",
        "sender_batch_header": {"sender_batch_id": sender_batch_id}}});
    if let Some(r) = request_id {
        s.replies.insert(r, (201, answer.clone()));
    }
    if std::mem::take(&mut s.lose_next_payout_answer) {
        return json_answer(503, json!({"name": "SERVICE_UNAVAILABLE"}));
    }
    json_answer(201, answer)
}

fn item_json(batch: &str, sender_batch_id: &str, i: &PayoutItem) -> Value {
    let mut v = json!({"payout_item_id": i.item_id, "transaction_status": i.status,
        "payout_batch_id": batch, "sender_batch_id": sender_batch_id,
        "payout_item": {"recipient_type": "EMAIL", "receiver": i.receiver, "sender_item_id": i.sender_item_id,
            "amount": {"value": i.amount, "currency": i.currency}}});
    if i.status == "SUCCESS" {
        v["transaction_id"] = json!(format!("TX-{}", i.item_id));
    }
    if i.status == "FAILED" {
        v["errors"] =
            json!({"name": "RECEIVER_UNREGISTERED", "message": "Receiver is unregistered"});
    }
    v
}

pub(super) async fn read(
    State(s): State<Shared>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    let mut s = s.lock().expect("script");
    if let Some(r) = gate(&mut s, &headers) {
        return r;
    }
    s.payout_reads += 1;
    let Some(b) = s.payout_batches.get(&id) else {
        return json_answer(404, json!({"name": "INVALID_RESOURCE_ID"}));
    };
    let items: Vec<Value> = b
        .items
        .iter()
        .map(|i| item_json(&id, &b.sender_batch_id, i))
        .collect();
    json_answer(
        200,
        json!({"batch_header": {"payout_batch_id": id, "batch_status": "PROCESSING"},
            "items": items, "total_items": b.items.len(), "total_page": 1}),
    )
}

impl FakePayPal {
    /// Settles the items PayPal still holds as PENDING: `status` for items of these payouts
    /// (our ids), SUCCESS for the rest.
    pub fn settle_payouts(&self, failing: &[&str], status: &str) {
        self.with(|s| {
            for b in s.payout_batches.values_mut() {
                for i in b.items.iter_mut().filter(|i| i.status == "PENDING") {
                    i.status = if failing.contains(&i.sender_item_id.as_str()) {
                        status.to_owned()
                    } else {
                        "SUCCESS".to_owned()
                    };
                }
            }
        });
    }

    /// Sets one payout's item status at PayPal (a later return or reversal).
    pub fn set_item_status(&self, payout_id: &str, status: &str) {
        self.with(|s| {
            for b in s.payout_batches.values_mut() {
                for i in b.items.iter_mut().filter(|i| i.sender_item_id == payout_id) {
                    i.status = status.to_owned();
                }
            }
        });
    }

    /// PayPal's `PAYMENT.PAYOUTS-ITEM.<suffix>` webhook about one payout's item as it is now.
    pub fn payout_item_event(
        &self,
        suffix: &str,
        payout_id: &str,
    ) -> (Vec<(String, String)>, String) {
        self.with(|s| {
            let (batch, sender, item) = s
                .payout_batches
                .iter()
                .find_map(|(id, b)| {
                    b.items
                        .iter()
                        .find(|i| i.sender_item_id == payout_id)
                        .map(|i| (id.clone(), b.sender_batch_id.clone(), i.clone()))
                })
                .expect("a payout item at PayPal");
            let n = s.sent.len() + 1;
            let resource = item_json(&batch, &sender, &item);
            let body = format!(
                r#"{{"id":"WH-PO-{n}","event_version":"1.0","resource_type":"payouts_item","event_type":"PAYMENT.PAYOUTS-ITEM.{suffix}","summary":"A payout item changed","resource":{resource}}}"#
            );
            signed(s, &format!("po-{n}-{payout_id}"), body)
        })
    }
}
