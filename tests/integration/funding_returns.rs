//! Money that goes back to the payer after PayPal funded the wallet (issue 55): PayPal's
//! refund and reversal (chargeback) webhooks, against the PayPal stand-in over HTTP. A
//! return leaves the available balance once, whatever PayPal repeats; what the wallet no
//! longer holds is owed and paid first by the next funding; never more than was credited
//! goes back; a forged return changes nothing; the advertiser is told; the ledger balances.

use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::builders::billing::*;
use tests::builders::callbacks::click;
use tests::builders::offers::{
    CAMPAIGNS, Conversion, USD, campaign_body, live_campaign, now_ts, postback, transition,
};
use tests::builders::publisher::publisher;
use tests::{Backend, TestApp, each_backend, error_code};

use crate::paypal::{approve, available, capture_path, open, send_webhook, start};
use app::domain::billing::ledger;

each_backend!(refunds_and_chargebacks_take_money_back_once);

const FUNDINGS: &str = "/performance-marketing/v2/billing/funding";

async fn balance(app: &TestApp, t: &str) -> Value {
    let (s, b) = app.get(BALANCE, Some(t)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    b
}

async fn returned(app: &TestApp, t: &str, funding: &str) -> i64 {
    let (_, l) = app.get(FUNDINGS, Some(t)).await;
    let f = l["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|f| f["fundingId"] == funding)
        .expect("the funding is listed");
    f["returnedMicros"].as_i64().expect("returnedMicros")
}

async fn refunds_and_chargebacks_take_money_back_once(backend: Backend) {
    let (paypal, app) = start(backend).await;
    let admin = app.admin_token().await;
    let (_, t) = app.funded_advertiser(0).await;
    let (s, order) = open(&app, &t, 300 * USD, "paypal-return-0001").await;
    assert_eq!(s, StatusCode::CREATED, "{order}");
    approve(&app, &order).await;
    let order_id = order["orderId"].as_str().expect("orderId");
    let funding = order["fundingId"].as_str().expect("fundingId");
    let (s, f) = app
        .post(&capture_path(order_id), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{f}");
    assert_eq!(available(&app, &t).await, 300 * USD);
    let capture = format!("CAP-{order_id}");

    // A refund of 100 issued at PayPal leaves the wallet once, however often PayPal says so.
    let refund = paypal.return_event("PAYMENT.CAPTURE.REFUNDED", &capture, "RF-1", "100.00");
    let (s, r) = send_webhook(&app, refund.clone()).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["fundingId"], funding);
    assert_eq!(r["eventType"], "PAYMENT.CAPTURE.REFUNDED");
    assert_eq!(available(&app, &t).await, 200 * USD);
    let asked = paypal.with(|s| s.verifications);
    let (s, _) = send_webhook(&app, refund).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        available(&app, &t).await,
        200 * USD,
        "a repeat moves nothing"
    );
    assert_eq!(
        paypal.with(|s| s.verifications),
        asked,
        "a return already recorded is not verified again"
    );
    assert_eq!(returned(&app, &t, funding).await, 100 * USD);
    // The funding stays CREDITED: it was paid; part of it went back.
    let (_, l) = app.get(FUNDINGS, Some(&t)).await;
    assert_eq!(l["items"][0]["status"], "CREDITED");

    // A return PayPal never sent (no transmission headers, or a body it did not sign).
    let (_, body) = paypal.return_event("PAYMENT.CAPTURE.REFUNDED", &capture, "RF-F", "200.00");
    let (s, err) = send_webhook(&app, (vec![], body)).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{err}");
    assert_eq!(error_code(&err), "invalid_signature");
    let (headers, body) =
        paypal.return_event("PAYMENT.CAPTURE.REFUNDED", &capture, "RF-G", "10.00");
    let forged = body.replace("\"10.00\"", "\"200.00\"");
    let (s, _) = send_webhook(&app, (headers, forged)).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(
        available(&app, &t).await,
        200 * USD,
        "nothing moved on a forgery"
    );

    // 150 of the rest goes into a campaign's reserve and 40 of it is spent on a conversion;
    // then the payer's bank takes back the remaining 200: 50 from the wallet, 150 owed. The
    // campaign pauses, its unused 110 pays the debt, and the 40 spent stays owed.
    let mut body = campaign_body("CUSTOM_S2S", 150 * USD);
    body["goals"][0]["payoutMicros"] = json!(40 * USD);
    let (campaign, key_id, secret) = live_campaign(&app, &t, &admin, body).await;
    let p = publisher(&app, &admin).await;
    let (_, clk) = click(&app, &p, "returns-user-1", &campaign).await;
    let c = Conversion {
        click: &clk,
        txn: "order-1",
        goal: "install",
        status: "approved",
    };
    let (s, r) = postback(&app, &campaign, &key_id, &secret, &c, now_ts(&app)).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let b = balance(&app, &t).await;
    assert_eq!(b["availableMicros"], 50 * USD);
    assert_eq!(b["reservedMicros"], 110 * USD);
    let reversal = paypal.return_event("PAYMENT.CAPTURE.REVERSED", &capture, "RV-1", "-200.00");
    let (s, r) = send_webhook(&app, reversal.clone()).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["eventType"], "PAYMENT.CAPTURE.REVERSED");
    let b = balance(&app, &t).await;
    assert_eq!(b["availableMicros"], 0, "{b}");
    assert_eq!(b["reservedMicros"], 0, "{b}");
    assert_eq!(b["debtMicros"], 40 * USD, "{b}");
    assert_eq!(b["debt"], "40.000000");
    assert_eq!(returned(&app, &t, funding).await, 300 * USD);
    // The wallet's ledger export shows the debt too: its lines add up to the balance.
    let (s, export) = app
        .get(
            "/performance-marketing/v2/billing/ledger/export?format=json",
            Some(&t),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{export}");
    let sum = |f: &str| b[f].as_i64().expect(f);
    assert_eq!(
        export["closingMicros"].as_i64(),
        Some(
            sum("availableMicros") + sum("reservedMicros") + sum("spentMicros") - sum("debtMicros")
        ),
        "{export}"
    );
    assert!(
        export["lines"]
            .as_array()
            .expect("lines")
            .iter()
            .any(|l| l["account"] == "OWED"),
        "{export}"
    );
    let (_, cmp) = app.get(&format!("{CAMPAIGNS}/{campaign}"), Some(&t)).await;
    assert_eq!(
        cmp["status"], "PAUSED",
        "a campaign of a wallet in debt pauses"
    );
    // Resuming it needs money beyond the debt.
    let (s, err) = transition(&app, &t, &campaign, "LIVE").await;
    assert_eq!(s, StatusCode::CONFLICT, "{err}");
    assert_eq!(error_code(&err), "insufficient_balance");
    // PayPal delivering the reversal again changes nothing.
    let (s, _) = send_webhook(&app, reversal).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(balance(&app, &t).await["debtMicros"], 40 * USD);

    // Nothing more can go back than was credited: a further refund changes nothing.
    let extra = paypal.return_event("PAYMENT.CAPTURE.REFUNDED", &capture, "RF-2", "50.00");
    let (s, _) = send_webhook(&app, extra).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(returned(&app, &t, funding).await, 300 * USD);
    assert_eq!(balance(&app, &t).await["debtMicros"], 40 * USD);

    // A return of a capture this service never made is acknowledged and ignored.
    let stranger = paypal.return_event("PAYMENT.CAPTURE.REFUNDED", "CAP-ELSEWHERE", "RF-9", "5.00");
    let (s, r) = send_webhook(&app, stranger).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(r["fundingId"], Value::Null);

    // The next funding pays what is owed first: a wire of 400 leaves 360 to spend.
    let (s, w) = app
        .post(
            WIRE,
            Some(&t),
            &json!({"amount": 400 * USD, "currency": "USD", "externalReference": "WIRE-AFTER-RV"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{w}");
    let wire = w["fundingId"].as_str().expect("fundingId");
    let path = format!("/admin/v1/funding/{wire}/approve");
    let (s, w) = app.post(&path, Some(&admin), &json!({})).await;
    assert_eq!(s, StatusCode::OK, "{w}");
    let b = balance(&app, &t).await;
    assert_eq!(b["availableMicros"], 360 * USD);
    assert_eq!(b["debtMicros"], 0);
    let (s, r) = transition(&app, &t, &campaign, "LIVE").await;
    assert_eq!(s, StatusCode::OK, "{r}");

    // The advertiser was told of each return, once, and of the paused campaign.
    let (_, notes) = app.get("/auth/v1/notifications", Some(&t)).await;
    let told: Vec<&Value> = notes["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|n| n["topic"] == "funding.returned")
        .collect();
    assert_eq!(told.len(), 3, "{notes}");
    let said = |text: &str| {
        told.iter()
            .any(|n| n["body"].as_str().unwrap_or_default().contains(text))
    };
    assert!(said("150.00 USD is owed"), "{notes}");
    assert!(said(&campaign), "the paused campaign is named: {notes}");
    assert_eq!(
        ledger::reconcile(&app.state.ctx.db)
            .await
            .expect("reconcile"),
        ledger::Reconciliation::default()
    );
}
