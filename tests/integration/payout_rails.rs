//! Payouts that pay (issue 55, item 2): approved payouts leave by PayPal Payouts (against
//! the PayPal stand-in over HTTP) and by an ISO 20022 `pain.001` bank file. Each payout is
//! paid once whatever PayPal repeats or the operator confirms twice; failed and returned
//! items come back to the publisher's balance; a lost answer is sent again without a second
//! batch; a refused batch puts its payouts back; the file validates against the official
//! schema and its sums match; the ledger reconciles after each.

use std::process::Command;

use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::builders::callbacks::click;
use tests::builders::earnings::{
    EARNED, IBAN, assert_reconciled, decide, earned, earnings, micros, request,
};
use tests::builders::offers::USD;
use tests::builders::publisher::publisher;
use tests::paypal::FakePayPal;
use tests::{Backend, TestApp, each_backend, error_code};

use crate::paypal::send_webhook;

each_backend!(
    paypal_payouts_pay_once_and_failures_come_back,
    a_bank_file_is_confirmed_once
);

const BATCHES: &str = "/admin/v1/payout-batches";

/// Sends the approved payouts of `rail` (only `ids` when given): the new batch.
async fn send(app: &TestApp, admin: &str, rail: &str, ids: &[&str]) -> (StatusCode, Value) {
    let mut body = json!({"rail": rail});
    if !ids.is_empty() {
        body["payoutIds"] = json!(ids);
    }
    app.post(BATCHES, Some(admin), &body).await
}

/// A publisher's approved payout of `body`'s amount: its id.
async fn approved(app: &TestApp, token: &str, admin: &str, key: &str, body: Value) -> String {
    let (s, p) = request(app, token, Some(key), &body).await;
    assert_eq!(s, StatusCode::CREATED, "{p}");
    let id = p["id"].as_str().expect("id").to_owned();
    let (s, p) = decide(app, admin, &id, "approve", json!({})).await;
    assert_eq!(s, StatusCode::OK, "{p}");
    id
}

async fn payout(app: &TestApp, admin: &str, id: &str) -> Value {
    let (_, l) = app.get("/admin/v1/payouts?status=PAID", Some(admin)).await;
    let paid = l["items"].as_array().cloned().unwrap_or_default();
    let (_, l) = app
        .get("/admin/v1/payouts?status=FAILED", Some(admin))
        .await;
    let failed = l["items"].as_array().cloned().unwrap_or_default();
    let (_, l) = app
        .get("/admin/v1/payouts?status=SENDING", Some(admin))
        .await;
    let sending = l["items"].as_array().cloned().unwrap_or_default();
    paid.into_iter()
        .chain(failed)
        .chain(sending)
        .find(|p| p["id"] == id)
        .unwrap_or(Value::Null)
}

async fn paypal_payouts_pay_once_and_failures_come_back(backend: Backend) {
    let paypal = FakePayPal::start().await;
    let flags = paypal.flags();
    let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
    let (w, token) = earned(TestApp::spawn_with(backend, &flags).await).await;
    let app = &w.app;
    let admin = app.admin_token().await;
    let body = json!({"legalName": "Pixel Quest GmbH", "country": "DE", "method": "PAYMENT_SERVICE", "details": "payee@pixelquest.example"});
    let (s, p) = app
        .put("/publisher/v2/payouts/profile", Some(&token), &body)
        .await;
    assert_eq!(s, StatusCode::OK, "{p}");

    // Nothing approved yet: nothing to send.
    let (s, e) = send(app, &admin, "PAYPAL", &[]).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "nothing_to_send"),
        "{e}"
    );

    // 1.005 USD: PayPal pays cents, so the half cent goes back to the balance now.
    let first = approved(
        app,
        &token,
        &admin,
        "rail-0001",
        json!({"amountMicros": 1_005_000}),
    )
    .await;
    let (s, b) = send(app, &admin, "PAYPAL", &[]).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    assert_eq!(b["status"], "SENT", "{b}");
    assert_eq!(b["providerBatchId"], "PB000001");
    assert_eq!(b["totalMicros"], 1_000_000);
    assert_eq!(b["payouts"][0]["status"], "SENDING");
    let batch = b["batchId"].as_str().expect("batchId").to_owned();
    let (s, e) = app
        .get(&format!("{BATCHES}/{batch}/file"), Some(&admin))
        .await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "invalid_transition"),
        "no file of a PayPal batch"
    );
    let sent = paypal.with(|s| s.payout_batches["PB000001"].items.clone());
    assert_eq!(sent.len(), 1);
    assert_eq!(
        (
            sent[0].receiver.as_str(),
            sent[0].amount.as_str(),
            sent[0].sender_item_id.as_str()
        ),
        ("payee@pixelquest.example", "1.00", first.as_str())
    );
    assert_eq!(
        micros(&earnings(&w).await, "availableMicros"),
        EARNED - 1_000_000
    );

    // PayPal pays it and says so; its webhook repeated changes nothing.
    paypal.settle_payouts(&[], "");
    let event = paypal.payout_item_event("SUCCEEDED", &first);
    let (s, r) = send_webhook(app, event.clone()).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(
        (r["payoutId"].as_str(), r["payoutStatus"].as_str()),
        (Some(first.as_str()), Some("PAID"))
    );
    let asked = paypal.with(|s| s.verifications);
    let (s, _) = send_webhook(app, event).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        paypal.with(|s| s.verifications),
        asked,
        "an event that changes nothing is not verified"
    );
    let p = payout(app, &admin, &first).await;
    assert_eq!(p["status"], "PAID");
    assert_eq!(p["externalReference"], format!("TX-{}", sent[0].item_id));
    let (_, b) = app.get(&format!("{BATCHES}/{batch}"), Some(&admin)).await;
    assert_eq!(b["status"], "COMPLETED", "{b}");

    // A forged item event is refused before anything moves.
    paypal.set_item_status(&first, "RETURNED");
    let (_, body) = paypal.payout_item_event("RETURNED", &first);
    let (s, _) = send_webhook(app, (vec![], body)).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(payout(app, &admin, &first).await["status"], "PAID");

    // A second publisher earns on the same campaign, so the next batch holds two payouts.
    let other = publisher(app, &admin).await;
    let terms = format!(
        "/admin/v1/publishers/{}/earning-terms",
        other.user.account_id
    );
    let no_minimum = json!({"minimumPayoutMicros": USD, "reservePercent": 0});
    let (s, t) = app.put(&terms, Some(&admin), &no_minimum).await;
    assert_eq!(s, StatusCode::OK, "{t}");
    let (_, clk) = click(app, &other, "other-user-1", &w.campaign).await;
    w.report(&clk, "other-tx-1", "approved").await;
    app.clock.advance(chrono::Duration::days(30));
    app.run_workers_once().await;
    let (admin, token) = (app.admin_token().await, app.token(&w.p.user).await);
    let other_token = app.token(&other.user).await;
    let body = json!({"legalName": "Other Games Ltd", "country": "GB", "method": "PAYMENT_SERVICE", "details": "payee@other.example"});
    let (s, p) = app
        .put("/publisher/v2/payouts/profile", Some(&other_token), &body)
        .await;
    assert_eq!(s, StatusCode::OK, "{p}");
    let theirs = approved(app, &other_token, &admin, "rail-other-1", json!({})).await;

    // The next batch (both publishers' payouts): PayPal creates it but its answer is lost.
    // The batch waits SUBMITTING and is sent again under the same request id: one batch at
    // PayPal.
    let second = approved(app, &token, &admin, "rail-0002", json!({})).await;
    paypal.with(|s| s.lose_next_payout_answer = true);
    let (s, b) = send(app, &admin, "PAYPAL", &[]).await;
    assert_eq!(b["payoutCount"], 2, "{b}");
    assert_eq!(s, StatusCode::CREATED, "{b}");
    assert_eq!(b["status"], "SUBMITTING", "{b}");
    let batch2 = b["batchId"].as_str().expect("batchId").to_owned();
    app.run_workers_once().await;
    let (_, b) = app.get(&format!("{BATCHES}/{batch2}"), Some(&admin)).await;
    assert_eq!(b["status"], "SENT", "{b}");
    assert_eq!(
        paypal.with(|s| s.payout_creates),
        2,
        "the lost answer made no second batch"
    );

    // PayPal cannot deliver one item (the account is closed) and pays the other: polling
    // finds both; the failed one's money is back, the other is paid, each once.
    paypal.settle_payouts(&[&second], "FAILED");
    let (s, b) = app
        .post(
            &format!("{BATCHES}/{batch2}/refresh"),
            Some(&admin),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let status_of = |id: &str| {
        b["payouts"]
            .as_array()
            .and_then(|l| l.iter().find(|p| p["id"] == id))
            .map(|p| p["status"].clone())
    };
    assert_eq!(status_of(&second), Some(json!("FAILED")), "{b}");
    assert_eq!(status_of(&theirs), Some(json!("PAID")), "{b}");
    assert_eq!(b["status"], "COMPLETED");
    let (_, mine) = app.get("/publisher/v2/earnings", Some(&other_token)).await;
    assert_eq!(micros(&mine, "availableMicros"), 0, "{mine}");
    let (s, b) = app
        .post(
            &format!("{BATCHES}/{batch2}/refresh"),
            Some(&admin),
            &json!({}),
        )
        .await;
    assert_eq!(
        (s, b["status"].as_str()),
        (StatusCode::OK, Some("COMPLETED"))
    );
    assert_eq!(
        micros(&earnings(&w).await, "availableMicros"),
        EARNED - 1_000_000
    );

    // A paid item PayPal later returns: the payout fails from PAID, the money comes back.
    let (s, r) = send_webhook(app, paypal.payout_item_event("RETURNED", &first)).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["payoutStatus"], "FAILED");
    assert_eq!(micros(&earnings(&w).await, "availableMicros"), EARNED);

    // PayPal refusing a whole batch puts its payouts back to APPROVED, still held.
    let third = approved(app, &token, &admin, "rail-0003", json!({})).await;
    paypal.with(|s| s.refuse_payouts = Some("INSUFFICIENT_FUNDS".into()));
    let (s, b) = send(app, &admin, "PAYPAL", &[]).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    assert_eq!(b["status"], "REFUSED", "{b}");
    assert!(
        b["error"]
            .as_str()
            .unwrap_or_default()
            .contains("INSUFFICIENT_FUNDS"),
        "{b}"
    );
    let (_, l) = app
        .get("/admin/v1/payouts?status=APPROVED", Some(&admin))
        .await;
    assert_eq!(l["items"][0]["id"], third.as_str());
    assert_eq!(micros(&earnings(&w).await, "availableMicros"), 0);
    // A bank file does not take a payment-service payout.
    let (s, e) = send(app, &admin, "BANK_FILE", &[&third]).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "invalid_transition"),
        "{e}"
    );

    // The publisher was told of each outcome.
    let (_, n) = app.get("/auth/v1/notifications", Some(&token)).await;
    let topics: Vec<&str> = n["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["topic"].as_str())
        .collect();
    assert_eq!(
        topics.iter().filter(|t| **t == "payout.paid").count(),
        1,
        "{n}"
    );
    assert_eq!(
        topics.iter().filter(|t| **t == "payout.failed").count(),
        2,
        "{n}"
    );
    assert_reconciled(app).await;
}

/// The official schema validates the file (xmllint, from Debian's libxml2-utils).
fn validate(xml: &str) {
    let dir = std::env::temp_dir().join(format!("pain001-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("batch.xml");
    std::fs::write(&file, xml).expect("write");
    let schema = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/schemas/pain.001.001.03.xsd"
    );
    let out = Command::new("xmllint")
        .args(["--noout", "--schema", schema])
        .arg(&file)
        .output()
        .expect("xmllint (scripts/setup.sh --test installs it)");
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn between<'a>(xml: &'a str, tag: &str) -> &'a str {
    let open = format!("<{tag}>");
    let start = xml.find(&open).map(|i| i + open.len()).expect(tag);
    &xml[start..start + xml[start..].find('<').expect("close")]
}

async fn a_bank_file_is_confirmed_once(backend: Backend) {
    let (w, token) = earned(TestApp::spawn(backend).await).await;
    let app = &w.app;
    let admin = app.admin_token().await;
    let body = json!({"legalName": "Pixel Quest GmbH & Co. <KG>", "country": "de", "method": "BANK_TRANSFER", "details": IBAN});
    let (s, p) = app
        .put("/publisher/v2/payouts/profile", Some(&token), &body)
        .await;
    assert_eq!(s, StatusCode::OK, "{p}");
    // Without PayPal, its rail is unavailable; the bank file always works.
    let (s, e) = send(app, &admin, "PAYPAL", &[]).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "payout_rail_unavailable")
    );

    let first = approved(
        app,
        &token,
        &admin,
        "bank-0001",
        json!({"amountMicros": 1_000_000}),
    )
    .await;
    let (s, b) = send(app, &admin, "BANK_FILE", &[]).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    assert_eq!(b["status"], "SENT");
    let batch = b["batchId"].as_str().expect("batchId").to_owned();
    let res = app
        .client
        .get(app.url(&format!("{BATCHES}/{batch}/file")))
        .bearer_auth(&admin)
        .send()
        .await
        .expect("file");
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "application/xml");
    assert_eq!(res.headers()["cache-control"], "no-store");
    let xml = res.text().await.expect("xml");
    validate(&xml);
    assert_eq!(between(&xml, "NbOfTxs"), "1");
    assert_eq!(between(&xml, "CtrlSum"), "1.00");
    assert!(
        xml.contains(r#"<InstdAmt Ccy="USD">1.00</InstdAmt>"#),
        "{xml}"
    );
    assert!(xml.contains("<IBAN>DE89370400440532013000</IBAN>"), "{xml}");
    assert!(
        xml.contains("Pixel Quest GmbH &amp; Co. &lt;KG&gt;"),
        "names are escaped: {xml}"
    );
    assert!(xml.contains(&format!(
        "<EndToEndId>{}</EndToEndId>",
        first.replace('_', "")
    )));

    // The bank refused the transfer: confirmed with it failed, the money comes back.
    let confirm = json!({"reference": "BANK-2026-12-02-1", "failed": [{"payoutId": first, "reason": "account closed"}]});
    let (s, b) = app
        .post(
            &format!("{BATCHES}/{batch}/confirm"),
            Some(&admin),
            &confirm,
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(
        (b["status"].as_str(), b["payouts"][0]["status"].as_str()),
        (Some("COMPLETED"), Some("FAILED"))
    );
    assert_eq!(micros(&earnings(&w).await, "availableMicros"), EARNED);

    // The whole balance in a second file, confirmed paid once: a second confirmation is 409.
    let second = approved(app, &token, &admin, "bank-0002", json!({})).await;
    let (s, b) = send(app, &admin, "BANK_FILE", &[&second]).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let batch = b["batchId"].as_str().expect("batchId").to_owned();
    let res = app
        .client
        .get(app.url(&format!("{BATCHES}/{batch}/file")))
        .bearer_auth(&admin)
        .send()
        .await
        .expect("file");
    let xml = res.text().await.expect("xml");
    validate(&xml);
    assert_eq!(between(&xml, "CtrlSum"), "2.10");
    let stranger = json!({"reference": "BANK-2", "failed": [{"payoutId": first, "reason": "x"}]});
    let (s, e) = app
        .post(
            &format!("{BATCHES}/{batch}/confirm"),
            Some(&admin),
            &stranger,
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "a payout of another batch: {e}");
    let ok = json!({"reference": "BANK-2026-12-02-2"});
    let (s, b) = app
        .post(&format!("{BATCHES}/{batch}/confirm"), Some(&admin), &ok)
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["payouts"][0]["status"], "PAID");
    assert_eq!(b["payouts"][0]["externalReference"], "BANK-2026-12-02-2");
    let (s, e) = app
        .post(&format!("{BATCHES}/{batch}/confirm"), Some(&admin), &ok)
        .await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "batch_completed"),
        "{e}"
    );
    assert_eq!(micros(&earnings(&w).await, "availableMicros"), 0);
    let (_, l) = app.get(BATCHES, Some(&admin)).await;
    assert_eq!(l["items"].as_array().map(Vec::len), Some(2));
    // Publishers cannot send or read batches.
    let (s, _) = app.get(BATCHES, Some(&token)).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    assert_reconciled(app).await;
}
