//! A publisher as tests need one: a verified, released website placement with a ready
//! offerwall slot, SDK sessions of its users, and requests with an Idempotency-Key.

use app::model::Role;
use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::TestApp;

pub const DOMAIN: &str = "play.pixelquest.example";

/// A verified, released website placement with one ready OFFERWALL slot (100 coins per USD).
pub struct Publisher {
    pub user: crate::TestUser,
    pub token: String,
    pub placement: String,
    pub slot: String,
}

pub async fn publisher(app: &TestApp, admin: &str) -> Publisher {
    let (user, token) = app.signed_in(Role::Publisher).await;
    let p = app.website_placement(&token, DOMAIN).await;
    let placement = p["placementId"].as_str().expect("id").to_owned();
    app.verify_placement(&token, admin, &placement, true).await;
    let (s, slot) = app
        .post(
            &format!("/publisher/v2/placements/{placement}/ad-slots"),
            Some(&token),
            &json!({"name": "Wall", "type": "OFFERWALL", "currency": {"name": "Coins", "decimals": 0, "rateNumeratorMinorUnits": 100, "rateDenominatorUsdMicros": 1_000_000, "rounding": "DOWN"}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{slot}");
    assert_eq!(slot["state"], "READY", "{slot}");
    Publisher {
        user,
        token,
        placement,
        slot: slot["adSlotId"].as_str().expect("slot").to_owned(),
    }
}

/// A STATIC_API slot (100 coins per USD) on the publisher's placement; its id.
pub async fn static_slot(app: &TestApp, p: &Publisher) -> String {
    let (s, slot) = app
        .post(
            &format!("/publisher/v2/placements/{}/ad-slots", p.placement),
            Some(&p.token),
            &json!({"name": "Feed", "type": "STATIC_API", "currency": {"name": "Coins", "decimals": 0, "rateNumeratorMinorUnits": 100, "rateDenominatorUsdMicros": 1_000_000, "rounding": "DOWN"}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{slot}");
    slot["adSlotId"].as_str().expect("slot").to_owned()
}

/// Issues a static feed key for `slot`, valid for 30 days; the token.
pub async fn static_key(app: &TestApp, p: &Publisher, slot: &str) -> String {
    let expires = (app.clock_now() + chrono::Duration::days(30)).to_rfc3339();
    let path = format!(
        "/publisher/v2/placements/{}/ad-slots/{slot}/static-key",
        p.placement
    );
    let body = json!({"expiresAt": expires, "reason": "server pull"});
    let (s, key) = app.post(&path, Some(&p.token), &body).await;
    assert_eq!(s, StatusCode::CREATED, "{key}");
    key["token"].as_str().expect("token").to_owned()
}

pub fn session_body(p: &Publisher, user: &str) -> Value {
    json!({"placementId": p.placement, "adSlotId": p.slot, "externalUserId": user, "platform": "web",
        "sdkVersion": "2.1.0", "packageBundleOrDomain": DOMAIN, "environment": "production", "consent": "GRANTED"})
}

pub async fn session(app: &TestApp, p: &Publisher, user: &str) -> (String, String) {
    let (s, b) = app
        .post("/sdk/v2/sessions", None, &session_body(p, user))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    (
        b["sessionId"].as_str().expect("sessionId").to_owned(),
        b["token"].as_str().expect("token").to_owned(),
    )
}

/// A request with an Idempotency-Key header.
pub async fn keyed(
    app: &TestApp,
    path: &str,
    token: &str,
    key: &str,
    body: &Value,
) -> (StatusCode, Value) {
    let (status, _, body) = keyed_replay(app, path, token, key, body).await;
    (status, body)
}

/// A request with an Idempotency-Key header: its status, whether the answer is a stored one
/// given again (`Idempotent-Replayed`), and its body.
pub async fn keyed_replay(
    app: &TestApp,
    path: &str,
    token: &str,
    key: &str,
    body: &Value,
) -> (StatusCode, bool, Value) {
    let res = app
        .client
        .post(app.url(path))
        .bearer_auth(token)
        .header("Idempotency-Key", key)
        .json(body)
        .send()
        .await
        .expect("sent");
    replay_answer(res).await
}

/// An answer's status, whether it was given again from the store, and its body.
pub async fn replay_answer(res: reqwest::Response) -> (StatusCode, bool, Value) {
    let replayed = res.headers().get("idempotent-replayed").is_some();
    let status = res.status();
    (status, replayed, res.json().await.unwrap_or(Value::Null))
}

/// An impression then a launch of `campaign` for the session's user, with idempotency keys
/// `imp-{tag}` and `launch-{tag}`; the signed launch.
pub async fn launch_of(app: &TestApp, token: &str, campaign: &str, tag: &str) -> Value {
    let impression = format!("/sdk/v2/offers/{campaign}/impressions");
    let (s, imp) = keyed(app, &impression, token, &format!("imp-{tag}"), &json!({})).await;
    assert_eq!(s, StatusCode::CREATED, "{imp}");
    let launch = format!("/sdk/v2/offers/{campaign}/launch");
    let body = json!({"impressionId": imp["impressionId"]});
    let (s, l) = keyed(app, &launch, token, &format!("launch-{tag}"), &body).await;
    assert_eq!(s, StatusCode::CREATED, "{l}");
    l
}

/// [`launch_of`]'s click id.
pub async fn launched(app: &TestApp, token: &str, campaign: &str, tag: &str) -> String {
    let l = launch_of(app, token, campaign, tag).await;
    l["clickId"].as_str().expect("clickId").to_owned()
}
