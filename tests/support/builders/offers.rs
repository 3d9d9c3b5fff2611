//! Offer campaigns as tests need them: the CONTRACT body, create, transition, approve, a
//! live Custom S2S campaign with its key, a signed postback, what the offer list shows and
//! how a reported conversion was settled.

use app::domain::crypto::hmac_sha256_hex;
use app::model::campaign::rules::s2s_message;
use reqwest::StatusCode;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};

use crate::TestApp;

/// One US dollar in micros.
pub const USD: i64 = 1_000_000;

pub const CAMPAIGNS: &str = "/performance-marketing/v2/campaigns";

/// The CONTRACT section 5 body with a chosen provider and budget.
pub fn campaign_body(provider: &str, budget: i64) -> Value {
    json!({
        "name": "Play to level 10",
        "destinationUrl": "https://advertiser.example/install?click={click_id}",
        "platforms": ["android", "ios", "web"],
        "countries": ["US", "DE"],
        "category": "GAMES",
        "taskType": "INSTALL",
        "trackingProvider": provider,
        "budgetMicros": budget,
        "goals": [{"externalGoalId": "install", "name": "Install", "payoutMicros": 1_500_000, "pendingMinutes": 0}]
    })
}

/// Creates a campaign and returns its id.
pub async fn create(app: &TestApp, t: &str, body: &Value) -> String {
    let (s, c) = app.post(CAMPAIGNS, Some(t), body).await;
    assert_eq!(s, StatusCode::CREATED, "{c}");
    assert_eq!(c["status"], "DRAFT");
    c["campaignId"].as_str().expect("campaignId").to_owned()
}

pub async fn transition(app: &TestApp, t: &str, id: &str, to: &str) -> (StatusCode, Value) {
    app.post(
        &format!("{CAMPAIGNS}/{id}/transition"),
        Some(t),
        &json!({"to": to}),
    )
    .await
}

pub async fn approve(app: &TestApp, admin: &str, id: &str) -> (StatusCode, Value) {
    app.post(
        &format!("/admin/v1/offer-campaigns/{id}/approve"),
        Some(admin),
        &json!({}),
    )
    .await
}

/// A LIVE Custom S2S campaign with its key: (campaign id, key id, secret).
pub async fn live_campaign(
    app: &TestApp,
    adv: &str,
    admin: &str,
    body: Value,
) -> (String, String, String) {
    let id = create(app, adv, &body).await;
    let (s, key) = app
        .post(
            &format!("/performance-marketing/v2/campaigns/{id}/tracking/custom-s2s/credentials"),
            Some(adv),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{key}");
    assert_eq!(
        transition(app, adv, &id, "IN_REVIEW").await.0,
        StatusCode::OK
    );
    let (s, c) = approve(app, admin, &id).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    (
        id,
        key["keyId"].as_str().expect("keyId").to_owned(),
        key["secret"].as_str().expect("secret").to_owned(),
    )
}

pub struct Conversion<'a> {
    pub click: &'a str,
    pub txn: &'a str,
    pub goal: &'a str,
    pub status: &'a str,
}

/// The signing headers and the `occurred_at` of a Custom S2S report at `timestamp`:
/// (timestamp, signature, occurred_at).
fn signing(secret: &str, c: &Conversion<'_>, timestamp: i64) -> (String, String, String) {
    // Conversions happen shortly after the launch (inside the attribution window).
    let occurred = chrono::DateTime::from_timestamp(timestamp, 0)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let ts = timestamp.to_string();
    let sig = hmac_sha256_hex(
        secret.as_bytes(),
        s2s_message(&ts, c.click, c.txn, c.goal, c.status, &occurred).as_bytes(),
    );
    (ts, sig, occurred)
}

pub async fn postback(
    app: &TestApp,
    campaign: &str,
    key_id: &str,
    secret: &str,
    c: &Conversion<'_>,
    timestamp: i64,
) -> (StatusCode, Value) {
    let (ts, sig, occurred) = signing(secret, c, timestamp);
    let req = app
        .client
        .post(app.url(&format!(
            "/performance-marketing/v2/postbacks/custom-s2s/{campaign}"
        )))
        .json(&json!({"click_id": c.click, "transaction_id": c.txn, "goal_id": c.goal, "status": c.status, "occurred_at": occurred}));
    send_report(req, key_id, ts, sig).await
}

async fn send_report(
    req: reqwest::RequestBuilder,
    key_id: &str,
    ts: String,
    sig: String,
) -> (StatusCode, Value) {
    let res = req
        .header("X-Service-Key-Id", key_id)
        .header("X-Service-Timestamp", ts)
        .header("X-Service-Signature", sig)
        .send()
        .await
        .expect("sent");
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// The same report with its fields in the query string (`GET`), signed the same way.
pub async fn postback_by_get(
    app: &TestApp,
    campaign: &str,
    key_id: &str,
    secret: &str,
    c: &Conversion<'_>,
    timestamp: i64,
) -> (StatusCode, Value) {
    let (ts, sig, occurred) = signing(secret, c, timestamp);
    let req = app
        .client
        .get(app.url(&format!(
            "/performance-marketing/v2/postbacks/custom-s2s/{campaign}"
        )))
        .query(&[
            ("click_id", c.click),
            ("transaction_id", c.txn),
            ("goal_id", c.goal),
            ("status", c.status),
            ("occurred_at", occurred.as_str()),
        ]);
    send_report(req, key_id, ts, sig).await
}

pub fn now_ts(app: &TestApp) -> i64 {
    app.clock_now().timestamp()
}

/// The campaign ids of the slot's offer list for a session (up to 100).
pub async fn listed_offers(app: &TestApp, slot: &str, token: &str) -> Vec<String> {
    let (s, list) = app
        .get(
            &format!("/sdk/v2/ad-slots/{slot}/offers?limit=100"),
            Some(token),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{list}");
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["campaignId"].as_str().expect("id").to_owned())
        .collect()
}

/// The settlement state of the conversion reported to `campaign` as `txn`.
pub async fn settlement_of(app: &TestApp, campaign: &str, txn: &str) -> String {
    entity::conversion::Entity::find()
        .filter(entity::conversion::Column::CampaignId.eq(campaign.to_owned()))
        .filter(entity::conversion::Column::TransactionId.eq(txn.to_owned()))
        .one(&app.state.ctx.db)
        .await
        .expect("query")
        .map(|c| c.settlement.as_str().to_owned())
        .unwrap_or_else(|| format!("no conversion {txn}"))
}

/// The campaign ids of an offer list or gallery page, in order.
pub fn campaign_ids(list: &Value) -> Vec<&str> {
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|i| i["campaignId"].as_str())
        .collect()
}
