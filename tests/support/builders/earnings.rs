//! Earnings and payouts set-up the money tests share: a publisher's balance read with a
//! fresh token, a paid conversion and its reversal by postback, the ledger check, a
//! publisher with earnings released and a low minimum payout, payout requests and decisions.

use chrono::Duration;
use reqwest::StatusCode;
use serde_json::{Value, json};

use super::callbacks::{World, click, world};
use super::offers::{USD, campaign_body};
use crate::TestApp;
use app::domain::billing::ledger;

/// The publisher's earnings, with a fresh token (the tests move the clock by days, past a
/// token's lifetime).
pub async fn earnings(w: &World) -> Value {
    let token = w.app.token(&w.p.user).await;
    let (s, e) = w.app.get("/publisher/v2/earnings", Some(&token)).await;
    assert_eq!(s, StatusCode::OK, "{e}");
    e
}

pub fn micros(v: &Value, field: &str) -> i64 {
    v[field]
        .as_i64()
        .unwrap_or_else(|| panic!("{field} in {v}"))
}

pub async fn assert_reconciled(app: &TestApp) {
    assert_eq!(
        ledger::reconcile(&app.state.ctx.db)
            .await
            .expect("reconcile"),
        ledger::Reconciliation::default()
    );
}

/// The entries of each `campaign_spend` posting of the campaign.
pub async fn spend_postings(app: &TestApp, campaign: &str) -> Vec<u64> {
    use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
    let db = &app.state.ctx.db;
    let txs = entity::ledger_transaction::Entity::find()
        .filter(entity::ledger_transaction::Column::Kind.eq("campaign_spend"))
        .filter(entity::ledger_transaction::Column::ReferenceId.eq(campaign))
        .all(db)
        .await
        .expect("transactions");
    let mut counts = Vec::new();
    for t in txs {
        let n = entity::ledger_entry::Entity::find()
            .filter(entity::ledger_entry::Column::TransactionId.eq(t.id))
            .count(db)
            .await
            .expect("entries");
        counts.push(n);
    }
    counts
}

pub async fn paid(w: &World, user: &str, txn: &str) {
    let (_, c) = click(&w.app, &w.p, user, &w.campaign).await;
    let r = w.report(&c, txn, "approved").await;
    assert_eq!(r["accepted"], true, "{r}");
    assert_eq!(conversion(w, txn).await.settlement.as_str(), "APPROVED");
}

pub async fn conversion(w: &World, txn: &str) -> entity::conversion::Model {
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    entity::conversion::Entity::find()
        .filter(entity::conversion::Column::TransactionId.eq(txn))
        .one(&w.app.state.ctx.db)
        .await
        .expect("query")
        .expect("conversion")
}

/// Reports the reversal of `txn` with the click of its conversion; answers the
/// conversion's settlement afterwards.
pub async fn reverse(w: &World, txn: &str) -> String {
    let click = conversion(w, txn).await.click_id;
    w.report(&click, txn, "reversed").await;
    conversion(w, txn).await.settlement.as_str().to_owned()
}

pub const IBAN: &str = "DE89 3704 0044 0532 0130 00";
/// Two conversions' earnings (70 % of 1.50 USD each).
pub const EARNED: i64 = 2_100_000;

pub async fn request(
    app: &TestApp,
    token: &str,
    key: Option<&str>,
    body: &Value,
) -> (StatusCode, Value) {
    let mut req = app
        .client
        .post(app.url("/publisher/v2/payouts"))
        .bearer_auth(token)
        .json(body);
    if let Some(k) = key {
        req = req.header("Idempotency-Key", k);
    }
    let res = req.send().await.expect("sent");
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// Exempts the world's publisher from the new publishers' reserve (an established
/// publisher), for tests about holds, releases and payouts (the reserve has its own).
pub async fn no_reserve(app: &TestApp, publisher_id: &str) {
    let admin = app.admin_token().await;
    let (s, t) = app
        .put(
            &format!("/admin/v1/publishers/{publisher_id}/earning-terms"),
            Some(&admin),
            &json!({"reservePercent": 0}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{t}");
    assert_eq!(t["reservePercent"], 0, "{t}");
}

/// A publisher with `EARNED` available, a 1 USD minimum payout and no reserve.
pub async fn earned(app: TestApp) -> (World, String) {
    let w = world(app, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let admin = w.app.admin_token().await;
    let terms = format!("/admin/v1/publishers/{}/earning-terms", w.p.user.account_id);
    let (s, t) = w
        .app
        .put(
            &terms,
            Some(&admin),
            &json!({"minimumPayoutMicros": USD, "reservePercent": 0}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{t}");
    paid(&w, "user-1", "tx-1").await;
    paid(&w, "user-2", "tx-2").await;
    w.app.clock.advance(Duration::days(30));
    w.app.run_workers_once().await;
    assert_eq!(micros(&earnings(&w).await, "availableMicros"), EARNED);
    let token = w.app.token(&w.p.user).await;
    (w, token)
}

pub async fn decide(
    app: &TestApp,
    admin: &str,
    id: &str,
    action: &str,
    body: Value,
) -> (StatusCode, Value) {
    app.post(
        &format!("/admin/v1/payouts/{id}/{action}"),
        Some(admin),
        &body,
    )
    .await
}
