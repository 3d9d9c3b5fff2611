//! Reversals after a payout and the new publishers' reserve (issue 51): a new publisher's
//! releases keep 10 % in a reserve for 60 more days; a reversal after the publisher was paid
//! becomes a debt (a negative available balance) that the reserve and later earnings cover
//! before the next payout, so the platform is not the one that pays.

use chrono::Duration;
use reqwest::StatusCode;
use serde_json::json;
use tests::builders::callbacks::world;
use tests::builders::earnings::{
    IBAN, assert_reconciled, decide, earnings, micros, paid, request, reverse,
};
use tests::builders::{USD, campaign_body};
use tests::{TestApp, both_backends, error_code};

/// The publisher's share of one conversion (70 % of 1.50 USD).
const SHARE: i64 = 1_050_000;
const RESERVED: i64 = SHARE / 10;

both_backends!(
    a_new_publishers_reserve_covers_a_reversal_after_payout,
    an_administrator_sets_the_reserve,
);

async fn a_new_publishers_reserve_covers_a_reversal_after_payout(app: TestApp) {
    let w = world(app, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let admin = w.app.admin_token().await;
    let terms = format!("/admin/v1/publishers/{}/earning-terms", w.p.user.account_id);
    let (s, t) = w
        .app
        .put(&terms, Some(&admin), &json!({"minimumPayoutMicros": USD}))
        .await;
    assert_eq!(s, StatusCode::OK, "{t}");
    assert_eq!(
        (t["reservePercent"].clone(), t["reserveDays"].clone()),
        (json!(10), json!(60))
    );
    assert!(
        t["reserveUntil"].is_string(),
        "a new publisher's reserve ends: {t}"
    );
    paid(&w, "user-1", "tx-1").await;
    paid(&w, "user-1b", "tx-1b").await;
    w.app.clock.advance(Duration::days(30));
    w.app.run_workers_once().await;
    let e = earnings(&w).await;
    assert_eq!(micros(&e, "availableMicros"), 2 * (SHARE - RESERVED), "{e}");
    assert_eq!(micros(&e, "reserveMicros"), 2 * RESERVED, "{e}");
    assert!(e["nextReserveRelease"].is_string(), "{e}");
    assert_reconciled(&w.app).await;

    // The publisher is paid what is available; then the advertiser reverses the conversion.
    let token = w.app.token(&w.p.user).await;
    let profile = json!({"legalName": "Pixel Quest GmbH", "country": "DE", "method": "BANK_TRANSFER", "details": IBAN});
    let (s, p) = w
        .app
        .put("/publisher/v2/payouts/profile", Some(&token), &profile)
        .await;
    assert_eq!(s, StatusCode::OK, "{p}");
    let (s, p) = request(&w.app, &token, Some("payout-0001"), &json!({})).await;
    assert_eq!(s, StatusCode::CREATED, "{p}");
    let id = p["id"].as_str().expect("payout id");
    let admin = w.app.admin_token().await;
    assert_eq!(
        decide(&w.app, &admin, id, "approve", json!({})).await.0,
        StatusCode::OK
    );
    let (s, p) = decide(
        &w.app,
        &admin,
        id,
        "mark-paid",
        json!({"externalReference": "BANK-1"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{p}");
    assert_eq!(reverse(&w, "tx-1").await, "REVERSED");
    let e = earnings(&w).await;
    assert_eq!(micros(&e, "availableMicros"), -SHARE, "{e}");
    assert_eq!(
        micros(&e, "debtMicros"),
        SHARE,
        "the reversal is a debt: {e}"
    );
    let (s, r) = request(
        &w.app,
        &token,
        Some("payout-0002"),
        &json!({"amountMicros": USD}),
    )
    .await;
    assert_eq!(
        (s, error_code(&r)),
        (StatusCode::CONFLICT, "insufficient_balance"),
        "{r}"
    );
    assert_reconciled(&w.app).await;

    // The reserve's day comes: it pays part of the debt.
    w.app.clock.advance(Duration::days(60));
    w.app.run_workers_once().await;
    let e = earnings(&w).await;
    assert_eq!(micros(&e, "reserveMicros"), 0, "{e}");
    let debt = SHARE - 2 * RESERVED;
    assert_eq!(micros(&e, "debtMicros"), debt, "{e}");
    // Later earnings (no reserve: the publisher is no longer new) cover the rest; the next
    // payout is what remains.
    paid(&w, "user-2", "tx-2").await;
    paid(&w, "user-3", "tx-3").await;
    w.app.clock.advance(Duration::days(30));
    w.app.run_workers_once().await;
    let e = earnings(&w).await;
    assert_eq!(micros(&e, "reserveMicros"), 0, "{e}");
    assert_eq!(micros(&e, "availableMicros"), 2 * SHARE - debt, "{e}");
    assert_eq!(micros(&e, "debtMicros"), 0);
    let token = w.app.token(&w.p.user).await;
    let (s, p) = request(&w.app, &token, Some("payout-0003"), &json!({})).await;
    assert_eq!(s, StatusCode::CREATED, "{p}");
    assert_eq!(
        p["amountMicros"],
        2 * SHARE - debt,
        "the payout nets the debt: {p}"
    );
    assert_reconciled(&w.app).await;
}

async fn an_administrator_sets_the_reserve(app: TestApp) {
    let w = world(app, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let admin = w.app.admin_token().await;
    let terms = format!("/admin/v1/publishers/{}/earning-terms", w.p.user.account_id);
    for bad in [json!({"reservePercent": 51}), json!({"reserveDays": 0})] {
        let (s, e) = w.app.put(&terms, Some(&admin), &bad).await;
        assert_eq!(
            (s, error_code(&e)),
            (StatusCode::BAD_REQUEST, "invalid_input"),
            "{e}"
        );
    }
    let (s, t) = w
        .app
        .put(
            &terms,
            Some(&admin),
            &json!({"reservePercent": 20, "reserveDays": 10}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{t}");
    assert!(
        t["reserveUntil"].is_null(),
        "set terms do not end with newness: {t}"
    );
    paid(&w, "user-1", "tx-1").await;
    w.app.clock.advance(Duration::days(30));
    w.app.run_workers_once().await;
    let e = earnings(&w).await;
    assert_eq!(micros(&e, "reserveMicros"), SHARE / 5, "{e}");
    w.app.clock.advance(Duration::days(10));
    w.app.run_workers_once().await;
    let e = earnings(&w).await;
    assert_eq!(micros(&e, "reserveMicros"), 0, "{e}");
    assert_eq!(micros(&e, "availableMicros"), SHARE, "{e}");
    let (_, moves) = w
        .app
        .get(
            "/publisher/v2/earnings/movements",
            Some(&w.app.token(&w.p.user).await),
        )
        .await;
    assert!(
        moves["items"]
            .as_array()
            .expect("items")
            .iter()
            .any(|m| m["kind"] == "reserve_release"),
        "{moves}"
    );
    assert_reconciled(&w.app).await;
}
