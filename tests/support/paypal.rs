//! A PayPal stand-in for tests, over real HTTP on a free port of 127.0.0.1: the parts of
//! PayPal's REST API the service calls, as PayPal documents them. OAuth2 client credentials
//! (Basic auth, `expires_in`; a token can be revoked to make the next call answer 401),
//! Orders API v2 (create, read, capture; `PayPal-Request-Id` replays the first answer; the
//! 422 issues `ORDER_NOT_APPROVED`, `INSTRUMENT_DECLINED`, `ORDER_ALREADY_CAPTURED`), the
//! payer's approval at `/checkoutnow?token=`, and webhook signature verification, which
//! confirms only events this stand-in sent, unchanged, with its headers and the expected
//! webhook id, and PayPal Payouts (`paypal/payouts.rs`). Scripts make it fail (5xx), lose a capture's answer after capturing, capture
//! another amount, decline, or leave a capture PENDING.

mod payouts;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};

pub const CLIENT_ID: &str = "test-client-id";
pub const CLIENT_SECRET: &str = "test-client-secret";
pub const WEBHOOK_ID: &str = "WH-TEST-1";

#[derive(Debug, Clone, Default)]
pub struct Order {
    pub funding_id: String,
    pub amount: String,
    pub currency: String,
    pub status: String,
    pub capture: Option<(String, String, String)>,
}

#[derive(Default)]
pub struct Script {
    pub orders: HashMap<String, Order>,
    /// `PayPal-Request-Id` → (status, body) first answered.
    replies: HashMap<String, (u16, Value)>,
    token: Option<String>,
    pub tokens_issued: u32,
    pub creates: u32,
    pub captures: u32,
    pub verifications: u32,
    /// Events this stand-in sent (their exact bodies), by transmission id.
    sent: HashMap<String, String>,
    /// The next this many calls (any route but the token) answer 500.
    pub fail_next: u32,
    /// The next capture captures, then answers 500 (its answer lost on the way).
    pub lose_next_capture_answer: bool,
    /// Captures take this amount instead of the order's.
    pub capture_amount: Option<String>,
    /// Captures end in this capture status (COMPLETED unless set).
    pub capture_status: Option<String>,
    /// Captures of these orders are declined (422 INSTRUMENT_DECLINED).
    pub declining: Vec<String>,
    /// Payout batches PayPal accepted, by PayPal's batch id.
    pub payout_batches: HashMap<String, payouts::PayoutBatch>,
    pub payout_creates: u32,
    pub payout_reads: u32,
    /// The next payout batch is created, then answered 503 (its answer lost on the way).
    pub lose_next_payout_answer: bool,
    /// Payout batches are refused with this error name (422).
    pub refuse_payouts: Option<String>,
}

#[derive(Clone)]
pub struct FakePayPal {
    pub url: String,
    pub script: Arc<Mutex<Script>>,
    task: Arc<tokio::task::JoinHandle<()>>,
}

impl Drop for FakePayPal {
    fn drop(&mut self) {
        if Arc::strong_count(&self.task) == 1 {
            self.task.abort();
        }
    }
}

type Shared = Arc<Mutex<Script>>;

impl FakePayPal {
    pub async fn start() -> FakePayPal {
        let script: Shared = Arc::default();
        let app = Router::new()
            .route("/v1/oauth2/token", post(token))
            .route("/v2/checkout/orders", post(create))
            .route("/v2/checkout/orders/{id}", get(read))
            .route("/v2/checkout/orders/{id}/capture", post(capture))
            .route("/v1/notifications/verify-webhook-signature", post(verify))
            .route("/checkoutnow", get(approve))
            .route("/v1/payments/payouts", post(payouts::create))
            .route("/v1/payments/payouts/{id}", get(payouts::read))
            .with_state(script.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.ok();
        });
        FakePayPal {
            url,
            script,
            task: Arc::new(task),
        }
    }

    /// The service's flags for this stand-in.
    pub fn flags(&self) -> Vec<String> {
        [
            "--paypal-client-id",
            CLIENT_ID,
            "--paypal-client-secret",
            CLIENT_SECRET,
            "--paypal-webhook-id",
            WEBHOOK_ID,
            "--paypal-api-url",
            &self.url,
        ]
        .map(str::to_owned)
        .to_vec()
    }

    pub fn with<T>(&self, f: impl FnOnce(&mut Script) -> T) -> T {
        f(&mut self.script.lock().expect("script"))
    }

    /// Revokes the current token: the next call with it answers 401.
    pub fn revoke_token(&self) {
        self.with(|s| s.token = Some("revoked".into()));
    }

    /// Captures an order at PayPal as the payer's own flow would (the service not asking).
    pub fn capture_out_of_band(&self, order_id: &str) {
        self.with(|s| {
            let o = s.orders.get_mut(order_id).expect("order");
            o.status = "COMPLETED".into();
            o.capture = Some((
                format!("CAP-{order_id}"),
                "COMPLETED".into(),
                o.amount.clone(),
            ));
        });
    }

    /// A webhook event about an order's capture (`PAYMENT.CAPTURE.COMPLETED` or `.DENIED`),
    /// as PayPal sends it: the body and PayPal's transmission headers.
    pub fn event(&self, event_type: &str, order_id: &str) -> (Vec<(String, String)>, String) {
        self.with(|s| {
            let n = s.sent.len() + 1;
            let (amount, currency) = s
                .orders
                .get(order_id)
                .map(|o| (o.amount.clone(), o.currency.clone()))
                .unwrap_or_else(|| ("10.00".into(), "USD".into()));
            // PayPal's own key order (not sorted), numbers as PayPal writes them.
            let body = if event_type.starts_with("CHECKOUT.ORDER.") {
                // An order event's resource is the order.
                format!(
                    r#"{{"id":"WH-EVT-{n}","resource_type":"checkout-order","event_type":"{event_type}","resource":{{"id":"{order_id}","intent":"CAPTURE","status":"APPROVED"}}}}"#
                )
            } else {
                format!(
                r#"{{"id":"WH-EVT-{n}","create_time":"2026-03-02T10:00:00Z","resource_type":"capture","event_type":"{event_type}","summary":"Payment","resource":{{"id":"CAP-{order_id}","status":"COMPLETED","amount":{{"currency_code":"{currency}","value":"{amount}"}},"final_capture":true,"supplementary_data":{{"related_ids":{{"order_id":"{order_id}"}}}}}}}}"#
            )
            };
            signed(s, &format!("tr-{n}-{order_id}"), body)
        })
    }
}

impl FakePayPal {
    /// A refund (`PAYMENT.CAPTURE.REFUNDED`) or reversal (`PAYMENT.CAPTURE.REVERSED`) of a
    /// capture as PayPal sends it: the resource is the refund, naming its capture only in
    /// its `up` link; `value` as PayPal writes it (a reversal's may be negative).
    pub fn return_event(
        &self,
        event_type: &str,
        capture_id: &str,
        return_id: &str,
        value: &str,
    ) -> (Vec<(String, String)>, String) {
        self.with(|s| {
            let n = s.sent.len() + 1;
            let body = format!(
                r#"{{"id":"WH-RET-{n}","create_time":"2026-03-05T10:00:00Z","resource_type":"refund","event_type":"{event_type}","summary":"A capture payment was returned","resource":{{"id":"{return_id}","status":"COMPLETED","amount":{{"currency_code":"USD","value":"{value}"}},"seller_payable_breakdown":{{"gross_amount":{{"currency_code":"USD","value":"{value}"}}}},"links":[{{"href":"https://api.sandbox.paypal.com/v2/payments/refunds/{return_id}","rel":"self","method":"GET"}},{{"href":"https://api.sandbox.paypal.com/v2/payments/captures/{capture_id}","rel":"up","method":"GET"}}]}}}}"#
            );
            signed(s, &format!("ret-{n}-{return_id}"), body)
        })
    }
}

/// PayPal's transmission headers for `body`, remembered so verification knows it.
fn signed(s: &mut Script, transmission: &str, body: String) -> (Vec<(String, String)>, String) {
    s.sent.insert(transmission.to_owned(), body.clone());
    let headers = vec![
        ("PAYPAL-TRANSMISSION-ID".into(), transmission.to_owned()),
        (
            "PAYPAL-TRANSMISSION-TIME".into(),
            "2026-03-05T10:00:01Z".into(),
        ),
        (
            "PAYPAL-TRANSMISSION-SIG".into(),
            format!("sig-{transmission}"),
        ),
        (
            "PAYPAL-CERT-URL".into(),
            "https://api-m.sandbox.paypal.com/v1/notifications/certs/CERT-1".into(),
        ),
        ("PAYPAL-AUTH-ALGO".into(), "SHA256withRSA".into()),
    ];
    (headers, body)
}

fn json_answer(status: u16, body: Value) -> Response {
    (
        StatusCode::from_u16(status).expect("status"),
        axum::Json(body),
    )
        .into_response()
}

fn issue(name: &str) -> Response {
    json_answer(
        422,
        json!({"name": "UNPROCESSABLE_ENTITY", "debug_id": "dbg1", "details": [{"issue": name}]}),
    )
}

/// Whether the call carries the current token (else its 401), or a scripted failure.
fn gate(s: &mut Script, headers: &HeaderMap) -> Option<Response> {
    let bearer = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if bearer.is_none() || bearer != s.token.as_deref() {
        return Some(json_answer(401, json!({"error": "invalid_token"})));
    }
    if s.fail_next > 0 {
        s.fail_next -= 1;
        return Some(json_answer(500, json!({"name": "INTERNAL_SERVER_ERROR"})));
    }
    None
}

/// [`gate`], then the first answer to a `PayPal-Request-Id` seen before (PayPal's replay);
/// otherwise the request id to remember the answer under.
fn gate_or_replay(s: &mut Script, headers: &HeaderMap) -> Result<Option<String>, Response> {
    if let Some(r) = gate(s, headers) {
        return Err(r);
    }
    let request_id = headers
        .get("paypal-request-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    match request_id.as_ref().and_then(|r| s.replies.get(r)) {
        Some((status, body)) => Err(json_answer(*status, body.clone())),
        None => Ok(request_id),
    }
}

async fn token(State(s): State<Shared>, headers: HeaderMap, body: String) -> Response {
    // Base64 of `test-client-id:test-client-secret`, as RFC 7617 Basic auth sends it.
    let expected = "Basic dGVzdC1jbGllbnQtaWQ6dGVzdC1jbGllbnQtc2VjcmV0";
    let auth = headers.get("authorization").and_then(|v| v.to_str().ok());
    if auth != Some(expected) || body != "grant_type=client_credentials" {
        return json_answer(401, json!({"error": "invalid_client"}));
    }
    let mut s = s.lock().expect("script");
    s.tokens_issued += 1;
    let token = format!("A21AA-token-{}", s.tokens_issued);
    s.token = Some(token.clone());
    json_answer(
        200,
        json!({"scope": "https://uri.paypal.com/services/payments/payment", "access_token": token, "token_type": "Bearer", "app_id": "APP-1", "expires_in": 32400, "nonce": "n"}),
    )
}

fn order_json(id: &str, o: &Order) -> Value {
    let mut unit = json!({"reference_id": o.funding_id, "custom_id": o.funding_id,
        "amount": {"currency_code": o.currency, "value": o.amount}});
    if let Some((cid, status, amount)) = &o.capture {
        unit["payments"] = json!({"captures": [{"id": cid, "status": status,
            "amount": {"currency_code": o.currency, "value": amount}, "final_capture": true}]});
    }
    json!({"id": id, "status": o.status, "purchase_units": [unit],
        "links": [{"href": format!("https://www.sandbox.paypal.com/checkoutnow?token={id}"), "rel": "approve", "method": "GET"}]})
}

async fn create(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let mut s = s.lock().expect("script");
    let request_id = match gate_or_replay(&mut s, &headers) {
        Ok(id) => id,
        Err(answer) => return answer,
    };
    let Ok(req) = serde_json::from_slice::<Value>(&body) else {
        return json_answer(400, json!({"name": "INVALID_REQUEST"}));
    };
    let unit = &req["purchase_units"][0];
    if req["intent"] != "CAPTURE" || unit["amount"]["value"].as_str().is_none() {
        return json_answer(400, json!({"name": "INVALID_REQUEST"}));
    }
    s.creates += 1;
    let id = format!("5O19{:06}T", s.creates);
    let order = Order {
        funding_id: unit["custom_id"].as_str().unwrap_or_default().into(),
        amount: unit["amount"]["value"].as_str().unwrap_or_default().into(),
        currency: unit["amount"]["currency_code"]
            .as_str()
            .unwrap_or_default()
            .into(),
        status: "PAYER_ACTION_REQUIRED".into(),
        capture: None,
    };
    let answer = order_json(&id, &order);
    s.orders.insert(id, order);
    if let Some(r) = request_id {
        s.replies.insert(r, (201, answer.clone()));
    }
    json_answer(201, answer)
}

async fn read(State(s): State<Shared>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    let mut s = s.lock().expect("script");
    if let Some(r) = gate(&mut s, &headers) {
        return r;
    }
    match s.orders.get(&id) {
        Some(o) => json_answer(200, order_json(&id, o)),
        None => json_answer(404, json!({"name": "RESOURCE_NOT_FOUND"})),
    }
}

async fn capture(State(s): State<Shared>, headers: HeaderMap, Path(id): Path<String>) -> Response {
    let mut s = s.lock().expect("script");
    let request_id = match gate_or_replay(&mut s, &headers) {
        Ok(id) => id,
        Err(answer) => return answer,
    };
    let declining = s.declining.contains(&id);
    let (amount_override, status_override) = (s.capture_amount.clone(), s.capture_status.clone());
    let Some(o) = s.orders.get_mut(&id) else {
        return json_answer(404, json!({"name": "RESOURCE_NOT_FOUND"}));
    };
    match o.status.as_str() {
        "COMPLETED" => return issue("ORDER_ALREADY_CAPTURED"),
        "APPROVED" => {}
        _ => return issue("ORDER_NOT_APPROVED"),
    }
    if declining {
        return issue("INSTRUMENT_DECLINED");
    }
    o.status = "COMPLETED".into();
    let amount = amount_override.unwrap_or_else(|| o.amount.clone());
    let status = status_override.unwrap_or_else(|| "COMPLETED".into());
    o.capture = Some((format!("CAP-{id}"), status, amount));
    let answer = order_json(&id, o);
    s.captures += 1;
    if let Some(r) = request_id {
        s.replies.insert(r, (201, answer.clone()));
    }
    if std::mem::take(&mut s.lose_next_capture_answer) {
        return json_answer(502, json!({"name": "BAD_GATEWAY"}));
    }
    json_answer(201, answer)
}

async fn verify(State(s): State<Shared>, headers: HeaderMap, body: Bytes) -> Response {
    let mut s = s.lock().expect("script");
    if let Some(r) = gate(&mut s, &headers) {
        return r;
    }
    s.verifications += 1;
    let Ok(req) = serde_json::from_slice::<Value>(&body) else {
        return json_answer(400, json!({"name": "INVALID_REQUEST"}));
    };
    let transmission = req["transmission_id"].as_str().unwrap_or_default();
    // The event must be embedded exactly as sent: compare its text, not its value.
    let raw = std::str::from_utf8(&body).unwrap_or_default();
    let event_text = raw
        .find("\"webhook_event\":")
        .map(|i| raw[i + 16..].trim_end().trim_end_matches('}').to_owned());
    let good = req["webhook_id"] == WEBHOOK_ID
        && req["auth_algo"] == "SHA256withRSA"
        && req["cert_url"]
            .as_str()
            .is_some_and(|u| u.starts_with("https://api-m.sandbox.paypal.com/"))
        && req["transmission_sig"].as_str() == Some(&format!("sig-{transmission}"))
        && s.sent
            .get(transmission)
            .is_some_and(|sent| event_text.as_deref() == Some(sent.trim_end_matches('}')));
    json_answer(
        200,
        json!({"verification_status": if good { "SUCCESS" } else { "FAILURE" }}),
    )
}

/// The payer approves the order on PayPal's checkout.
async fn approve(State(s): State<Shared>, Query(q): Query<HashMap<String, String>>) -> Response {
    let mut s = s.lock().expect("script");
    let id = q.get("token").cloned().unwrap_or_default();
    match s.orders.get_mut(&id) {
        Some(o) if o.status == "PAYER_ACTION_REQUIRED" => {
            o.status = "APPROVED".into();
            "approved".into_response()
        }
        Some(_) => (StatusCode::CONFLICT, "already decided").into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}
