//! Provider funding through PayPal (issue 55, item 1), against a PayPal stand-in over real
//! HTTP (`tests/support/paypal.rs`): the checkout configuration, an order per idempotency
//! key, the payer's approval at PayPal, a capture credited exactly once whichever of the
//! capture answer and the webhook arrives first, a lost answer retried safely, a revoked
//! token renewed, declines, mismatched amounts and forged webhooks never credited, and a
//! provider outage answered 503 without holding the idempotency key.

use app::model::Role;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::builders::billing::*;
use tests::paypal::FakePayPal;
use tests::{Backend, TestApp, each_backend, error_code};

each_backend!(
    an_order_is_approved_at_paypal_and_credited_once,
    webhooks_credit_once_and_forgeries_change_nothing,
    lost_answers_declines_mismatches_and_outages,
);

const WEBHOOK: &str = "/performance-marketing/v2/billing/payprovider/webhook";

pub(crate) async fn start(backend: Backend) -> (FakePayPal, TestApp) {
    let paypal = FakePayPal::start().await;
    let flags = paypal.flags();
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let app = TestApp::spawn_with(backend, &flags).await;
    (paypal, app)
}

pub(crate) async fn open(app: &TestApp, t: &str, micros: i64, key: &str) -> (StatusCode, Value) {
    let body = json!({"amount": micros, "currency": "USD", "idempotencyKey": key});
    app.post(ORDER, Some(t), &body).await
}

pub(crate) fn capture_path(order_id: &str) -> String {
    format!("/performance-marketing/v2/billing/funding/payprovider/{order_id}/capture")
}

/// The payer opens the approve link: PayPal's checkout approves the order.
pub(crate) async fn approve(app: &TestApp, order: &Value) {
    let url = order["approveUrl"].as_str().expect("approveUrl");
    let res = app.client.get(url).send().await.expect("checkout");
    assert_eq!(res.status(), StatusCode::OK, "{url}");
}

pub(crate) async fn send_webhook(
    app: &TestApp,
    event: (Vec<(String, String)>, String),
) -> (StatusCode, Value) {
    let mut req = app
        .client
        .post(app.url(WEBHOOK))
        .header("content-type", "application/json");
    for (k, v) in event.0 {
        req = req.header(k, v);
    }
    let res = req.body(event.1).send().await.expect("webhook");
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

pub(crate) async fn available(app: &TestApp, t: &str) -> i64 {
    let (_, b) = app.get(BALANCE, Some(t)).await;
    b["availableMicros"].as_i64().expect("availableMicros")
}

async fn an_order_is_approved_at_paypal_and_credited_once(backend: Backend) {
    let (paypal, app) = start(backend).await;
    let (_, t) = funded_ready(&app).await;
    let (s, cfg) = app
        .get(
            "/performance-marketing/v2/billing/payprovider/config",
            Some(&t),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(cfg["provider"], "PAYPAL");
    assert_eq!(cfg["clientId"], tests::paypal::CLIENT_ID);
    assert_eq!(cfg["environment"], "sandbox");

    let (s, order) = open(&app, &t, 250_000_000, "paypal-order-0001").await;
    assert_eq!(s, StatusCode::CREATED, "{order}");
    let order_id = order["orderId"].as_str().expect("orderId").to_owned();
    assert_eq!(
        order["approveUrl"],
        format!("{}/checkoutnow?token={order_id}", paypal.url)
    );
    // PayPal's order carries the funding's id and the amount in PayPal's decimals.
    let at_paypal = paypal.with(|s| s.orders[&order_id].clone());
    assert_eq!(at_paypal.amount, "250.00");
    assert_eq!(at_paypal.currency, "USD");
    assert_eq!(at_paypal.funding_id, order["fundingId"].as_str().unwrap());
    // The same key again: the same order, and PayPal is not asked for a second one.
    let (_, replay) = open(&app, &t, 250_000_000, "paypal-order-0001").await;
    assert_eq!(replay["orderId"], order_id.as_str());
    assert_eq!(paypal.with(|s| s.creates), 1);
    // A tenth of a cent cannot be charged at PayPal: refused, never rounded.
    let (s, err) = open(&app, &t, 250_001_000, "paypal-order-0002").await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{err}");
    assert!(err["error"]["fieldErrors"]["amount"].is_string(), "{err}");

    let before = available(&app, &t).await;
    let (s, err) = app
        .post(&capture_path(&order_id), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&err), "payment_not_approved");
    approve(&app, &order).await;
    // PayPal revoked the cached token: the service fetches a new one and goes on.
    paypal.revoke_token();
    let tokens = paypal.with(|s| s.tokens_issued);
    let (s, f) = app
        .post(&capture_path(&order_id), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{f}");
    assert_eq!(f["status"], "CREDITED");
    assert_eq!(paypal.with(|s| s.tokens_issued), tokens + 1);
    assert_eq!(available(&app, &t).await, before + 250_000_000);
    let (s, again) = app
        .post(&capture_path(&order_id), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(again["status"], "CREDITED");
    // PayPal's webhook about the same capture comes after: acknowledged, nothing moves, and
    // nothing needs verifying because nothing would change.
    let (s, receipt) =
        send_webhook(&app, paypal.event("PAYMENT.CAPTURE.COMPLETED", &order_id)).await;
    assert_eq!(s, StatusCode::OK, "{receipt}");
    assert_eq!(receipt["fundingStatus"], "CREDITED");
    assert_eq!(paypal.with(|s| s.verifications), 0);
    assert_eq!(
        available(&app, &t).await,
        before + 250_000_000,
        "credited once"
    );
    assert_eq!(paypal.with(|s| s.captures), 1);

    // Another advertiser cannot capture this order.
    let (_, other) = funded_ready(&app).await;
    let (s, _) = app
        .post(&capture_path(&order_id), Some(&other), &json!({}))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    // Without a complete profile no order is opened.
    let (user, bare) = app.signed_in(Role::Advertiser).await;
    let (s, _) = open(&app, &bare, 250_000_000, "paypal-order-0003").await;
    assert_eq!(s, StatusCode::CONFLICT);

    // On the funding page an order still waiting for the payer links to PayPal's checkout.
    let profile = json!({"accountType": "BUSINESS", "legalName": "Contoso Ltd", "country": "GB"});
    let (s, _) = app.put(PROFILE, Some(&bare), &profile).await;
    assert_eq!(s, StatusCode::OK);
    let (_, waiting) = open(&app, &bare, 50_000_000, "paypal-page-0001").await;
    app.browser_sign_in(&app.client, &user).await;
    let page = app
        .client
        .get(app.url("/advertiser/billing/funding"))
        .send()
        .await
        .expect("page");
    let html = page.text().await.unwrap_or_default();
    let link = format!(
        "{}/checkoutnow?token={}",
        paypal.url,
        waiting["orderId"].as_str().unwrap()
    );
    assert!(html.contains(&link), "{html:.3000}");
}

async fn webhooks_credit_once_and_forgeries_change_nothing(backend: Backend) {
    let (paypal, app) = start(backend).await;
    let (_, t) = funded_ready(&app).await;
    let (_, order) = open(&app, &t, 40_000_000, "paypal-webhook-0001").await;
    let order_id = order["orderId"].as_str().expect("orderId").to_owned();
    approve(&app, &order).await;
    // The payer's browser never came back: PayPal captured, and only its webhook tells.
    paypal.capture_out_of_band(&order_id);
    let before = available(&app, &t).await;

    // A forged event (its signature not PayPal's) is refused after PayPal says so.
    let (mut headers, body) = paypal.event("PAYMENT.CAPTURE.COMPLETED", &order_id);
    headers[2].1 = "sig-forged".into();
    let (s, err) = send_webhook(&app, (headers, body)).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{err}");
    assert_eq!(error_code(&err), "invalid_signature");
    // An event whose body was changed after PayPal signed it is refused too.
    let (headers, body) = paypal.event("PAYMENT.CAPTURE.COMPLETED", &order_id);
    let tampered = body.replace("\"40.00\"", "\"40.000\"");
    let (s, _) = send_webhook(&app, (headers, tampered)).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    // Without PayPal's headers nothing is asked of PayPal.
    let (_, body) = paypal.event("PAYMENT.CAPTURE.COMPLETED", &order_id);
    let (s, _) = send_webhook(&app, (vec![], body)).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(
        available(&app, &t).await,
        before,
        "nothing credited on a forgery"
    );

    let (s, receipt) =
        send_webhook(&app, paypal.event("PAYMENT.CAPTURE.COMPLETED", &order_id)).await;
    assert_eq!(s, StatusCode::OK, "{receipt}");
    assert_eq!(receipt["fundingId"], order["fundingId"]);
    assert_eq!(receipt["fundingStatus"], "CREDITED");
    assert_eq!(available(&app, &t).await, before + 40_000_000);
    // PayPal sends it again (it retries until it hears 2xx): nothing more.
    let (s, _) = send_webhook(&app, paypal.event("PAYMENT.CAPTURE.COMPLETED", &order_id)).await;
    assert_eq!(s, StatusCode::OK);
    // The returning browser's capture finds the money already in.
    let (s, f) = app
        .post(&capture_path(&order_id), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{f}");
    assert_eq!(f["status"], "CREDITED");
    assert_eq!(
        available(&app, &t).await,
        before + 40_000_000,
        "credited once"
    );
    let (_, fundings) = app
        .get("/performance-marketing/v2/billing/funding", Some(&t))
        .await;
    let credited = fundings["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|f| f["status"] == "CREDITED")
        .count();
    assert_eq!(credited, 1, "{fundings}");

    // Events about orders this service never opened, and events it does not act on, are
    // acknowledged without a call to PayPal.
    let verifications = paypal.with(|s| s.verifications);
    let (s, receipt) = send_webhook(
        &app,
        paypal.event("PAYMENT.CAPTURE.COMPLETED", "5O19UNKNOWNT"),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(receipt["fundingId"], Value::Null);
    let (s, receipt) = send_webhook(&app, paypal.event("CHECKOUT.ORDER.APPROVED", &order_id)).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(receipt["eventType"], "CHECKOUT.ORDER.APPROVED");
    assert_eq!(paypal.with(|s| s.verifications), verifications);
    let (s, err) = send_webhook(&app, (vec![], "not json".into())).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{err}");

    // The payer approved at PayPal and never came back: PayPal's approval event makes the
    // service capture and credit it (once, however often PayPal sends it).
    let (_, gone) = open(&app, &t, 25_000_000, "paypal-webhook-0003").await;
    let gone_id = gone["orderId"].as_str().expect("orderId").to_owned();
    approve(&app, &gone).await;
    let captures = paypal.with(|s| s.captures);
    for _ in 0..2 {
        let (s, r) = send_webhook(&app, paypal.event("CHECKOUT.ORDER.APPROVED", &gone_id)).await;
        assert_eq!(s, StatusCode::OK, "{r}");
        assert_eq!(r["fundingStatus"], "CREDITED", "{r}");
    }
    assert_eq!(paypal.with(|s| s.captures), captures + 1);
    assert_eq!(available(&app, &t).await, before + 65_000_000);

    // A denied capture declines its funding once; a later completed event cannot revive it.
    let (_, denied) = open(&app, &t, 30_000_000, "paypal-webhook-0002").await;
    let denied_id = denied["orderId"].as_str().expect("orderId").to_owned();
    let (s, receipt) = send_webhook(&app, paypal.event("PAYMENT.CAPTURE.DENIED", &denied_id)).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(receipt["fundingStatus"], "DECLINED");
    let (s, receipt) =
        send_webhook(&app, paypal.event("PAYMENT.CAPTURE.COMPLETED", &denied_id)).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(receipt["fundingStatus"], "DECLINED");
    assert_eq!(available(&app, &t).await, before + 65_000_000);
}

async fn lost_answers_declines_mismatches_and_outages(backend: Backend) {
    let (paypal, app) = start(backend).await;
    let (_, t) = funded_ready(&app).await;
    let before = available(&app, &t).await;

    // PayPal captured but its answer was lost: the retry (same PayPal-Request-Id) is
    // answered with the first capture, and the wallet is credited once.
    let (_, order) = open(&app, &t, 60_000_000, "paypal-lost-0001").await;
    let order_id = order["orderId"].as_str().expect("orderId").to_owned();
    approve(&app, &order).await;
    paypal.with(|s| s.lose_next_capture_answer = true);
    let (s, err) = app
        .post(&capture_path(&order_id), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{err}");
    assert_eq!(error_code(&err), "payment_provider_error");
    assert_eq!(available(&app, &t).await, before);
    let (s, f) = app
        .post(&capture_path(&order_id), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{f}");
    assert_eq!(f["status"], "CREDITED");
    assert_eq!(paypal.with(|s| s.captures), 1, "captured once at PayPal");
    assert_eq!(available(&app, &t).await, before + 60_000_000);

    // A declined card: DECLINED, told, never credited.
    let (_, order) = open(&app, &t, 20_000_000, "paypal-declined-0001").await;
    let declined = order["orderId"].as_str().expect("orderId").to_owned();
    approve(&app, &order).await;
    paypal.with(|s| s.declining.push(declined.clone()));
    let (s, err) = app
        .post(&capture_path(&declined), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{err}");
    assert_eq!(error_code(&err), "payment_declined");

    // PayPal captured another amount than ordered: nothing credited.
    let (_, order) = open(&app, &t, 20_000_000, "paypal-mismatch-0001").await;
    let mismatched = order["orderId"].as_str().expect("orderId").to_owned();
    approve(&app, &order).await;
    paypal.with(|s| s.capture_amount = Some("2.00".into()));
    let (s, err) = app
        .post(&capture_path(&mismatched), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{err}");
    assert_eq!(error_code(&err), "payment_mismatch");
    paypal.with(|s| s.capture_amount = None);

    // A capture PayPal holds as PENDING (an e-check): not credited until its webhook.
    let (_, order) = open(&app, &t, 10_000_000, "paypal-pending-0001").await;
    let pending = order["orderId"].as_str().expect("orderId").to_owned();
    approve(&app, &order).await;
    paypal.with(|s| s.capture_status = Some("PENDING".into()));
    let (s, f) = app
        .post(&capture_path(&pending), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{f}");
    assert_eq!(f["status"], "PENDING");
    assert_eq!(available(&app, &t).await, before + 60_000_000);
    let (s, r) = send_webhook(&app, paypal.event("PAYMENT.CAPTURE.COMPLETED", &pending)).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["fundingStatus"], "CREDITED");
    assert_eq!(available(&app, &t).await, before + 70_000_000);

    // PayPal down: 503 and the key is free for the retry, which then opens the order.
    paypal.with(|s| s.fail_next = 1);
    let (s, err) = open(&app, &t, 15_000_000, "paypal-outage-0001").await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE, "{err}");
    assert_eq!(error_code(&err), "payment_provider_error");
    let (s, order) = open(&app, &t, 15_000_000, "paypal-outage-0001").await;
    assert_eq!(s, StatusCode::CREATED, "{order}");
    // A webhook PayPal cannot be asked about is answered 503, so PayPal sends it again.
    let outage_order = order["orderId"].as_str().expect("orderId").to_owned();
    paypal.with(|s| s.fail_next = 1);
    let (s, _) = send_webhook(
        &app,
        paypal.event("PAYMENT.CAPTURE.COMPLETED", &outage_order),
    )
    .await;
    assert_eq!(s, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(available(&app, &t).await, before + 70_000_000);
}
