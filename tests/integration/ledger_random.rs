//! The whole money flow under a random run (issue 34): conversions paid, reversed by
//! postback and by bulk reconciliation, the clock moved by days with the release worker run,
//! payouts requested and approved, paid, failed, rejected or cancelled. Afterwards the ledger
//! is double-entry and balanced, reconciles, and every party's balance is what the run says
//! it must be. The seed is printed and can be pinned with `LEDGER_SEED`.

use std::collections::HashMap;

use chrono::Duration;
use rand::{Rng, SeedableRng, rngs::StdRng};
use reqwest::StatusCode;
use sea_orm::{EntityTrait, QuerySelect, sea_query::Expr};
use serde_json::{Value, json};
use tests::TestApp;
use tests::builders::callbacks::{World, click, world};
use tests::builders::{USD, campaign_body};

use tests::builders::earnings::{IBAN, assert_reconciled, decide, earnings, micros, request};

const PAYOUT: i64 = 1_500_000;
const SHARE: i64 = 1_050_000;
const RECONCILIATIONS: &str = "/performance-marketing/v2/conversions/reconciliations";

/// What the run did so far, and the tokens of the day.
struct Run {
    w: World,
    rng: StdRng,
    /// (transaction, click) of paid conversions not reversed yet.
    approved: Vec<(String, String)>,
    clicks: HashMap<String, String>,
    paid: i64,
    reversed: i64,
    paid_out: i64,
    /// Tokens live 12 hours: taken again after each move of the clock (not per step, which
    /// the sign-in rate limit would refuse).
    publisher: String,
    advertiser: String,
    admin: String,
}

async fn start(app: TestApp, seed: u64) -> Run {
    let w = world(app, campaign_body("CUSTOM_S2S", 900 * USD)).await;
    let admin = w.app.admin_token().await;
    let terms = format!("/admin/v1/publishers/{}/earning-terms", w.p.user.account_id);
    let body = json!({"minimumPayoutMicros": USD, "reservePercent": 0});
    let (s, t) = w.app.put(&terms, Some(&admin), &body).await;
    assert_eq!(s, StatusCode::OK, "{t}");
    let profile = json!({"legalName": "Pixel Quest GmbH", "country": "DE", "method": "BANK_TRANSFER", "details": IBAN});
    let (s, p) = w
        .app
        .put("/publisher/v2/payouts/profile", Some(&w.p.token), &profile)
        .await;
    assert_eq!(s, StatusCode::OK, "{p}");
    Run {
        publisher: w.p.token.clone(),
        advertiser: w.adv.clone(),
        admin,
        w,
        rng: StdRng::seed_from_u64(seed),
        approved: Vec::new(),
        clicks: HashMap::new(),
        paid: 0,
        reversed: 0,
        paid_out: 0,
    }
}

async fn pay(r: &mut Run, step: u32) {
    let (user, tx) = (format!("user-{step}"), format!("tx-{step}"));
    let (_, c) = click(&r.w.app, &r.w.p, &user, &r.w.campaign).await;
    let answer = r.w.report(&c, &tx, "approved").await;
    assert_eq!(answer["accepted"], true, "{answer}");
    r.clicks.insert(tx.clone(), c.clone());
    r.approved.push((tx, c));
    r.paid += 1;
}

async fn reverse_by_postback(r: &mut Run) {
    let i = r.rng.random_range(0..r.approved.len());
    let (tx, c) = r.approved.swap_remove(i);
    r.w.report(&c, &tx, "reversed").await;
    r.reversed += 1;
}

/// Reverses up to three paid conversions in one reconciliation; those past the window stay
/// paid (a postback may still reverse them).
async fn reverse_in_bulk(r: &mut Run, step: u32) {
    let n = r.rng.random_range(1..=r.approved.len().min(3));
    let mut lines = Vec::new();
    for _ in 0..n {
        let i = r.rng.random_range(0..r.approved.len());
        lines.push(json!({"transactionId": r.approved.swap_remove(i).0}));
    }
    let app = &r.w.app;
    let res = app
        .client
        .post(app.url(RECONCILIATIONS))
        .bearer_auth(&r.advertiser)
        .header("idempotency-key", format!("random-{step}"))
        .json(&json!({"action": "reverse", "reason": "random", "apply": true, "lines": lines}))
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::CREATED);
    let created: Value = res.json().await.expect("json");
    app.run_workers_once().await;
    let base = format!(
        "{RECONCILIATIONS}/{}",
        created["reconciliationId"].as_str().expect("id")
    );
    let (_, done) = app.get(&base, Some(&r.advertiser)).await;
    assert_eq!(done["status"], "DONE", "{done}");
    let applied = done["results"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["state"] == "APPLIED"))
        .and_then(|t| t["lines"].as_i64())
        .unwrap_or(0);
    r.reversed += applied;
    let (_, late) = app
        .get(
            &format!("{base}/lines?state=OUTSIDE_WINDOW"),
            Some(&r.advertiser),
        )
        .await;
    let late = late["items"].as_array().expect("items").clone();
    for l in &late {
        let tx = l["transactionId"].as_str().expect("tx").to_owned();
        let c = r.clicks.get(&tx).expect("click").clone();
        r.approved.push((tx, c));
    }
    assert_eq!(applied + late.len() as i64, n as i64, "{done}");
}

/// Mostly short moves (inside the window), sometimes past the hold; the workers run.
async fn days_pass(r: &mut Run) {
    let days = if r.rng.random_bool(0.3) {
        r.rng.random_range(20..=35)
    } else {
        r.rng.random_range(1..=5)
    };
    let app = &r.w.app;
    app.clock.advance(Duration::days(days));
    app.run_workers_once().await;
    r.publisher = app.token(&r.w.p.user).await;
    r.advertiser = app.token(&r.w.adv_user).await;
    r.admin = app.admin_token().await;
}

/// A payout of part of what is available, then cancelled, rejected, paid, or paid and
/// returned by the bank.
async fn payout(r: &mut Run, step: u32) {
    let app = &r.w.app;
    let (_, e) = app.get("/publisher/v2/earnings", Some(&r.publisher)).await;
    let available = micros(&e, "availableMicros");
    if available < USD {
        return;
    }
    let amount = r.rng.random_range(USD..=available);
    let key = format!("payout-{step}");
    let body = json!({"amountMicros": amount});
    let (s, p) = request(app, &r.publisher, Some(&key), &body).await;
    assert_eq!(s, StatusCode::CREATED, "{p}");
    let id = p["id"].as_str().expect("id").to_owned();
    let ok = |(s, v): (StatusCode, Value)| assert_eq!(s, StatusCode::OK, "{v}");
    match r.rng.random_range(0..5) {
        0 => {
            let cancel = format!("/publisher/v2/payouts/{id}/cancel");
            ok(app.post(&cancel, Some(&r.publisher), &json!({})).await);
        }
        1 => ok(decide(app, &r.admin, &id, "reject", json!({"reason": "random"})).await),
        choice => {
            ok(decide(app, &r.admin, &id, "approve", json!({})).await);
            let reference = json!({"externalReference": format!("SEPA-{step}")});
            ok(decide(app, &r.admin, &id, "mark-paid", reference).await);
            r.paid_out += amount;
            if choice == 2 {
                ok(decide(app, &r.admin, &id, "fail", json!({"reason": "returned"})).await);
                r.paid_out -= amount;
            }
        }
    }
}

/// The sum of a column over all rows of a ledger table.
async fn total<E: EntityTrait>(db: &sea_orm::DatabaseConnection, column: &str) -> Option<i64> {
    E::find()
        .select_only()
        .column_as(Expr::cust(format!("CAST(SUM({column}) AS BIGINT)")), "s")
        .into_tuple::<Option<i64>>()
        .one(db)
        .await
        .expect("sum")
        .flatten()
}

async fn every_balance_is_what_the_run_says(r: &Run, seed: u64) {
    let (w, db) = (&r.w, &r.w.app.state.ctx.db);
    assert_reconciled(&w.app).await;
    let sums = (
        total::<entity::ledger_account::Entity>(db, "balance_micros").await,
        total::<entity::ledger_entry::Entity>(db, "amount_micros").await,
    );
    assert_eq!(
        sums,
        (Some(0), Some(0)),
        "balances and entries both sum to zero"
    );
    let settled = r.paid - r.reversed;
    let e = earnings(w).await;
    let owed = micros(&e, "pendingMicros")
        + micros(&e, "availableMicros")
        + micros(&e, "heldForPayoutMicros");
    assert_eq!(
        owed,
        settled * SHARE - r.paid_out,
        "the publisher: {e} (seed {seed})"
    );
    assert_eq!(micros(&e, "paidMicros"), r.paid_out, "(seed {seed})");
    let (_, b) = w
        .app
        .get(
            "/performance-marketing/v2/billing/balance",
            Some(&r.advertiser),
        )
        .await;
    assert_eq!(
        micros(&b, "spentMicros"),
        settled * PAYOUT,
        "the advertiser: {b} (seed {seed})"
    );
    assert_eq!(
        micros(&b, "availableMicros") + micros(&b, "reservedMicros") + micros(&b, "spentMicros"),
        1_000 * USD,
        "everything credited is somewhere (seed {seed})"
    );
    let revenue: i64 = app::domain::billing::ledger::balances_by_kind(db, "")
        .await
        .expect("platform")
        .get(&app::domain::billing::ledger::Kind::PlatformRevenue)
        .copied()
        .unwrap_or(0);
    assert_eq!(
        revenue,
        settled * (PAYOUT - SHARE),
        "the platform (seed {seed})"
    );
}

async fn earnings_ledger_balances_under_a_random_run(backend: tests::Backend) {
    // The run reverses a large share of its conversions on purpose; at the guard's defaults
    // some seeds made the placement be paused for fraud and the next click found no offer.
    // The guard has its own tests (fraud.rs); here it never pauses (70 steps at most).
    let app = TestApp::spawn_with(backend, &["--fraud-pause-min-conversions", "100000"]).await;
    let seed: u64 = std::env::var("LEDGER_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| uuid::Uuid::new_v4().as_u64_pair().0);
    println!("earnings ledger seed {seed} ({:?})", app.backend);
    let mut r = start(app, seed).await;
    for step in 0..70u32 {
        let some = !r.approved.is_empty();
        match r.rng.random_range(0..10) {
            0..=3 => pay(&mut r, step).await,
            4 if some => reverse_by_postback(&mut r).await,
            5 if some => reverse_in_bulk(&mut r, step).await,
            6 | 7 => days_pass(&mut r).await,
            _ => payout(&mut r, step).await,
        }
    }
    every_balance_is_what_the_run_says(&r, seed).await;
}

tests::each_backend!(earnings_ledger_balances_under_a_random_run);
