//! Statements and ledger exports (issue 34): conversions earn, one is reversed, the hold
//! releases the rest, a payout is requested, approved and paid; every monthly statement
//! chains into the next, the newest closes on the balance, and the ledger export of the
//! whole history and of one month agree with them to the micro. The advertiser's export adds
//! up to its wallet balance.

use chrono::{DateTime, Datelike, Utc};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::TestApp;
use tests::both_backends;
use tests::builders::USD;
use tests::builders::callbacks::World;

use tests::builders::earnings::{
    EARNED, IBAN, assert_reconciled, decide, earned, earnings, micros, paid, request, reverse,
};

const SHARE: i64 = 1_050_000;

async fn get_ok(app: &TestApp, token: &str, path: &str) -> Value {
    let (s, v) = app.get(path, Some(token)).await;
    assert_eq!(s, StatusCode::OK, "{path}: {v}");
    v
}

/// Every page of an export as JSON: (opening, Σ lines, closing, lines).
async fn whole_export(app: &TestApp, token: &str, base: &str) -> (i64, i64, i64, usize) {
    let (mut opening, mut sum, mut count) = (None, 0, 0);
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("{base}&limit=2&cursor={c}"),
            None => format!("{base}&limit=2"),
        };
        let page = get_ok(app, token, &path).await;
        if opening.is_none() {
            opening = page["openingMicros"].as_i64();
        }
        for l in page["lines"].as_array().expect("lines") {
            sum += l["amountMicros"].as_i64().expect("amount");
            count += 1;
        }
        match page["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => {
                let closing = page["closingMicros"]
                    .as_i64()
                    .expect("closing on the last page");
                return (
                    opening.expect("opening on the first page"),
                    sum,
                    closing,
                    count,
                );
            }
        }
    }
}

/// What the month of money left: the world, fresh tokens, when it started and what the
/// platform owes the publisher now.
struct Run {
    w: World,
    token: String,
    admin: String,
    started: DateTime<Utc>,
    total: i64,
}

/// Two conversions released from the hold, a third paid and reversed, a payout of 2 USD
/// requested, approved and paid.
async fn a_month_of_money(app: TestApp) -> Run {
    let started = app.clock_now();
    let (w, token) = earned(app).await;
    let app = &w.app;
    paid(&w, "user-3", "tx-3").await;
    assert_eq!(reverse(&w, "tx-3").await, "REVERSED");
    let (s, p) = app
        .put(
            "/publisher/v2/payouts/profile",
            Some(&token),
            &json!({"legalName": "Pixel Quest GmbH", "country": "DE", "method": "BANK_TRANSFER", "details": IBAN}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{p}");
    let (s, p) = request(
        app,
        &token,
        Some("payout-stmt-1"),
        &json!({"amountMicros": 2 * USD}),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{p}");
    let id = p["id"].as_str().expect("id").to_owned();
    let admin = app.admin_token().await;
    decide(app, &admin, &id, "approve", json!({})).await;
    let (s, e) = decide(
        app,
        &admin,
        &id,
        "mark-paid",
        json!({"externalReference": "SEPA-1"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{e}");

    let e = earnings(&w).await;
    let total = micros(&e, "pendingMicros")
        + micros(&e, "availableMicros")
        + micros(&e, "heldForPayoutMicros");
    assert_eq!(total, EARNED - 2 * USD, "{e}");
    Run {
        w,
        token,
        admin,
        started,
        total,
    }
}

/// Every statement, oldest first: each opens where the one before closed, the newest closes
/// on the balance, and together they hold every movement. Answers the newest.
async fn statements_chain(run: &Run) -> Value {
    let (app, token, started, total) = (&run.w.app, &run.token, run.started, run.total);
    let periods = get_ok(app, &token, "/publisher/v2/earnings/statements").await;
    let mut periods: Vec<String> =
        serde_json::from_value(periods["periods"].clone()).expect("periods");
    periods.reverse();
    assert_eq!(
        periods[0],
        format!("{:04}-{:02}", started.year(), started.month())
    );
    let (mut closing, mut earned_sum, mut reversed, mut paid_out, mut conversions, mut reversals) =
        (0, 0, 0, 0, 0, 0);
    let mut last = Value::Null;
    for period in &periods {
        let st = get_ok(
            app,
            &token,
            &format!("/publisher/v2/earnings/statements/{period}"),
        )
        .await;
        assert_eq!(st["opening"]["totalMicros"], closing, "{period}: {st}");
        assert_eq!(st["adjustmentsMicros"], 0, "{st}");
        closing = micros(&st["closing"], "totalMicros");
        earned_sum += micros(&st, "earnedMicros");
        reversed += micros(&st, "reversedMicros");
        paid_out += micros(&st, "paidOutMicros");
        conversions += st["conversions"].as_i64().expect("conversions");
        reversals += st["reversals"].as_i64().expect("reversals");
        last = st;
    }
    assert_eq!(closing, total, "the newest statement closes on the balance");
    assert_eq!(
        (earned_sum, reversed, paid_out),
        (3 * SHARE, -SHARE, -2 * USD)
    );
    assert_eq!((conversions, reversals), (3, 1));
    assert_eq!(last["status"], "OPEN");
    last
}

/// The whole history, two lines a page, and the newest month alone, agree with the
/// statements and the balance; the CSV carries the opening and closing balances.
async fn exports_agree(run: &Run, last: &Value) {
    let (app, token, total) = (&run.w.app, &run.token, run.total);
    let (opening, sum, end, lines) =
        whole_export(app, &token, "/publisher/v2/earnings/export?format=json").await;
    assert_eq!((opening, opening + sum, end), (0, total, total));
    assert!(
        lines >= 8,
        "conversions, reversal, release, payout: {lines}"
    );
    let month = last["period"].as_str().expect("period");
    let base = format!("/publisher/v2/earnings/export?format=json&from={month}-01");
    let (opening, sum, end, _) = whole_export(app, &token, &base).await;
    assert_eq!(opening, micros(&last["opening"], "totalMicros"));
    assert_eq!((opening + sum, end), (total, total));

    let res = app
        .client
        .get(app.url("/publisher/v2/earnings/export"))
        .bearer_auth(&token)
        .send()
        .await
        .expect("csv");
    assert_eq!(res.status(), StatusCode::OK);
    let csv = res.text().await.expect("body");
    assert!(csv.starts_with("entry_id,at,transaction_kind"), "{csv}");
    assert!(csv.contains(",,opening_balance,,,,0,0.000000"), "{csv}");
    assert!(
        csv.trim_end().ends_with(&format!(
            "closing_balance,,,,{total},{}",
            app::model::money::format_micros(total)
        )),
        "{csv}"
    );
    let (s, st) = app
        .get(
            &format!("/publisher/v2/earnings/statements/{month}?format=csv"),
            Some(&token),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{st}");
    for bad in ["2026-13", "next", "2999-01"] {
        let (s, e) = app
            .get(
                &format!("/publisher/v2/earnings/statements/{bad}"),
                Some(&token),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {e}");
    }
}

/// By day: the publisher's earnings and the platform's revenue over the same days.
async fn by_day(run: &Run) {
    let (app, token, admin, started) = (&run.w.app, &run.token, &run.admin, run.started);
    let range = format!("from={}", started.date_naive());
    let daily = get_ok(
        app,
        &token,
        &format!("/publisher/v2/earnings/daily?{range}"),
    )
    .await;
    let days = daily["days"].as_array().expect("days");
    assert_eq!(
        days.len() as i64,
        (app.clock_now().date_naive() - started.date_naive()).num_days() + 1
    );
    let total_of = |field: &str| {
        days.iter()
            .map(|d| d[field].as_i64().expect(field))
            .sum::<i64>()
    };
    assert_eq!(
        (total_of("earnedMicros"), total_of("reversedMicros")),
        (3 * SHARE, -SHARE)
    );
    assert_eq!((total_of("conversions"), total_of("reversals")), (3, 1));
    let revenue = get_ok(app, admin, &format!("/admin/v1/revenue?{range}")).await;
    let t = &revenue["totals"];
    assert_eq!(
        (
            micros(t, "grossMicros"),
            micros(t, "publisherMicros"),
            micros(t, "platformMicros")
        ),
        (2 * 1_500_000, 2 * SHARE, 2 * 450_000),
        "three paid, one reversed: {revenue}"
    );
    assert_eq!(
        (t["conversions"].as_i64(), t["reversals"].as_i64()),
        (Some(3), Some(1))
    );
    let (s, _) = app.get("/admin/v1/revenue", Some(token)).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "administrators only");
}

/// The advertiser's wallet: each account's lines add up to its balance.
async fn the_wallet_export(run: &Run) {
    let (w, app) = (&run.w, &run.w.app);
    let adv = &app.token(&w.adv_user).await;
    let balance = get_ok(app, adv, "/performance-marketing/v2/billing/balance").await;
    let export = get_ok(
        app,
        adv,
        "/performance-marketing/v2/billing/ledger/export?format=json",
    )
    .await;
    for (account, field) in [
        ("AVAILABLE", "availableMicros"),
        ("RESERVED", "reservedMicros"),
        ("SPENT", "spentMicros"),
    ] {
        let sum: i64 = export["lines"]
            .as_array()
            .expect("lines")
            .iter()
            .filter(|l| l["account"] == account)
            .map(|l| l["amountMicros"].as_i64().expect("amount"))
            .sum();
        assert_eq!(sum, micros(&balance, field), "{account}: {export}");
    }
    assert_eq!(
        export["closingMicros"].as_i64(),
        Some(
            micros(&balance, "availableMicros")
                + micros(&balance, "reservedMicros")
                + micros(&balance, "spentMicros")
        )
    );
}

async fn statements_exports_and_balances_agree(app: TestApp) {
    let run = a_month_of_money(app).await;
    let last = statements_chain(&run).await;
    exports_agree(&run, &last).await;
    by_day(&run).await;
    the_wallet_export(&run).await;
    assert_reconciled(&run.w.app).await;
}

both_backends!(statements_exports_and_balances_agree);
