//! Fraud controls as tests need them (issue 51): an app that believes the test client's
//! `X-Forwarded-For` (so each user can come from an address of its own), a user's click
//! from an address, the launch link followed in a "browser", a web campaign that reports by
//! pixel, the pixel itself, held conversions and decisions on them.

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::offers::{CAMPAIGNS, USD, approve, create, transition};
use super::publisher::{Publisher, session_body};
use crate::{Backend, TestApp};

/// The origin of the advertiser's pages allowed to load the pixel.
pub const PIXEL_ORIGIN: &str = "https://advertiser.example";
/// The thank-you page that loads the pixel.
pub const THANKS: &str = "https://advertiser.example/thanks?order=1";

/// An app behind a proxy: the client address comes from `X-Forwarded-For`.
pub async fn behind_proxy(backend: Backend, extra: &[&str]) -> TestApp {
    let mut flags = vec!["--trusted-proxies", "127.0.0.1"];
    flags.extend_from_slice(extra);
    TestApp::spawn_with(backend, &flags).await
}

/// A user's click as the SDK made it: the session token, the SDK's click id and the
/// signed launch link.
pub struct Click {
    pub token: String,
    pub click_id: String,
    pub launch_url: String,
}

async fn from(
    app: &TestApp,
    path: &str,
    ip: &str,
    bearer: Option<&str>,
    key: Option<&str>,
    body: &Value,
) -> Value {
    let mut req = app
        .client
        .post(app.url(path))
        .header("X-Forwarded-For", ip)
        .json(body);
    if let Some(b) = bearer {
        req = req.bearer_auth(b);
    }
    if let Some(k) = key {
        req = req.header("Idempotency-Key", k);
    }
    let res = req.send().await.expect("sent");
    let status = res.status();
    let body: Value = res.json().await.unwrap_or(Value::Null);
    assert!(status.is_success(), "{path}: {status} {body}");
    body
}

/// `user` opens the wall and launches `campaign` from `ip` (session, impression, launch).
pub async fn click_from(
    app: &TestApp,
    p: &Publisher,
    user: &str,
    campaign: &str,
    ip: &str,
) -> Click {
    let s = from(
        app,
        "/sdk/v2/sessions",
        ip,
        None,
        None,
        &session_body(p, user),
    )
    .await;
    let token = s["token"].as_str().expect("token").to_owned();
    let imp = from(
        app,
        &format!("/sdk/v2/offers/{campaign}/impressions"),
        ip,
        Some(&token),
        Some("imp-000001"),
        &json!({}),
    )
    .await;
    let l = from(
        app,
        &format!("/sdk/v2/offers/{campaign}/launch"),
        ip,
        Some(&token),
        Some("launch-0001"),
        &json!({"impressionId": imp["impressionId"]}),
    )
    .await;
    Click {
        token,
        click_id: l["clickId"].as_str().expect("clickId").to_owned(),
        launch_url: l["launchUrl"].as_str().expect("launchUrl").to_owned(),
    }
}

/// Follows the launch link from `ip` as the user's browser; returns the click id the
/// advertiser's page received (the `click` parameter of the destination).
pub async fn follow(app: &TestApp, c: &Click, ip: &str) -> String {
    let path = &c.launch_url[c.launch_url.find("/sdk/v2/launch/").expect("launch path")..];
    let res = app
        .client
        .get(app.url(path))
        .header("X-Forwarded-For", ip)
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::FOUND);
    let to = res.headers()["location"]
        .to_str()
        .expect("location")
        .to_owned();
    let url = url::Url::parse(&to).expect("destination");
    url.query_pairs()
        .find(|(k, _)| k == "click")
        .map(|(_, v)| v.into_owned())
        .expect("the destination carries the click id")
}

/// A LIVE web campaign that reports by DIRECT token, with the web pixel turned on for
/// [`PIXEL_ORIGIN`].
pub async fn pixel_campaign(app: &TestApp, adv: &str, admin: &str) -> String {
    let mut body = super::offers::campaign_body("DIRECT", 100 * USD);
    body["platforms"] = json!(["web"]);
    let id = create(app, adv, &body).await;
    let (s, t) = app
        .post(
            &format!("{CAMPAIGNS}/{id}/tracking/direct/credentials"),
            Some(adv),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{t}");
    let (s, px) = app
        .put(
            &format!("{CAMPAIGNS}/{id}/tracking/web-pixel"),
            Some(adv),
            &json!({"enabled": true, "allowedOrigins": [PIXEL_ORIGIN]}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{px}");
    assert_eq!(px["enabled"], true, "{px}");
    assert_eq!(
        transition(app, adv, &id, "IN_REVIEW").await.0,
        StatusCode::OK
    );
    let (s, c) = approve(app, admin, &id).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    id
}

/// Loads the pixel for `click` from `page` (the `Referer`; none: no page named).
pub async fn pixel(
    app: &TestApp,
    campaign: &str,
    click: &str,
    txn: &str,
    page: Option<&str>,
) -> (StatusCode, Value) {
    let mut req = app.client.get(app.url(&format!(
        "/performance-marketing/v2/pixels/web/{campaign}.gif"
    )));
    req = req.query(&[
        ("click_id", click),
        ("goal_id", "install"),
        ("transaction_id", txn),
    ]);
    if let Some(p) = page {
        req = req.header("Referer", p);
    }
    let res = req.send().await.expect("sent");
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// Sets a campaign's fraud rules.
pub async fn set_rules(app: &TestApp, adv: &str, campaign: &str, rules: Value) {
    let (s, r) = app
        .put(
            &format!("{CAMPAIGNS}/{campaign}/fraud-rules"),
            Some(adv),
            &rules,
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{r}");
}

/// Approves or rejects held conversions through `path` (the administrators' or the
/// advertiser's decisions route).
pub async fn decide(
    app: &TestApp,
    path: &str,
    token: &str,
    ids: &[String],
    decision: &str,
) -> (StatusCode, Value) {
    app.post(
        path,
        Some(token),
        &json!({"conversionIds": ids, "decision": decision, "note": "reviewed"}),
    )
    .await
}

pub const ADMIN_DECISIONS: &str = "/admin/v1/fraud/decisions";
pub const ADVERTISER_DECISIONS: &str = "/performance-marketing/v2/conversions/decisions";

/// The conversion of a transaction, read from the database.
pub async fn conversion_of(app: &TestApp, txn: &str) -> entity::conversion::Model {
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    entity::conversion::Entity::find()
        .filter(entity::conversion::Column::TransactionId.eq(txn))
        .one(&app.state.ctx.db)
        .await
        .expect("read")
        .unwrap_or_else(|| panic!("no conversion of {txn}"))
}

/// The signals a conversion's reasons name.
pub fn signals(c: &entity::conversion::Model) -> Vec<String> {
    app::model::fraud::parse_reasons(c.fraud_reasons.as_deref())
        .into_iter()
        .map(|r| r.signal.as_str().to_owned())
        .collect()
}

/// Reward callbacks written to the outbox for a placement.
pub async fn callbacks_for(app: &TestApp, placement: &str) -> u64 {
    use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
    entity::callback_delivery::Entity::find()
        .filter(entity::callback_delivery::Column::PlacementId.eq(placement))
        .count(&app.state.ctx.db)
        .await
        .expect("count")
}
