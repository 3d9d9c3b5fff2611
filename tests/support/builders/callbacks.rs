//! Reward callbacks as tests need them: an application that trusts a test receiver, a
//! configured receiver, a user's click, and a "world" (a funded advertiser with a live
//! campaign and a publisher) that reports conversions and lists deliveries.

use reqwest::StatusCode;
use serde_json::{Value, json};

use super::offers::{Conversion, USD, live_campaign, now_ts, postback};
use super::publisher::{Publisher, keyed, publisher, session};
use crate::receiver::Receiver;
use crate::{Backend, TestApp};

/// An app that trusts the receiver's CA and may call loopback receivers.
pub async fn app_for(backend: Backend, rx: &Receiver, workers: bool) -> TestApp {
    let ca = rx.ca_file.display().to_string();
    let mut flags = vec![
        "--callback-allow-private",
        "true",
        "--callback-ca-file",
        &ca,
        "--callback-timeout-seconds",
        "1",
    ];
    if workers {
        flags.extend(["--run-workers", "true"]);
    }
    TestApp::spawn_with(backend, &flags).await
}

/// Configures the receiver on the placement; returns (key id, secret).
pub async fn configure(app: &TestApp, p: &Publisher, url: &str) -> (String, String) {
    let (s, cb) = app
        .put(
            &format!("/publisher/v2/placements/{}/callback", p.placement),
            Some(&p.token),
            &json!({"url": url}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{cb}");
    (
        cb["keyId"].as_str().unwrap_or_default().to_owned(),
        cb["secret"].as_str().unwrap_or_default().to_owned(),
    )
}

/// A session user's click on the campaign: (session token, click id).
pub async fn click(app: &TestApp, p: &Publisher, user: &str, campaign: &str) -> (String, String) {
    let (_, token) = session(app, p, user).await;
    let (_, imp) = keyed(
        app,
        &format!("/sdk/v2/offers/{campaign}/impressions"),
        &token,
        "imp-000001",
        &json!({}),
    )
    .await;
    let (s, l) = keyed(
        app,
        &format!("/sdk/v2/offers/{campaign}/launch"),
        &token,
        "launch-0001",
        &json!({"impressionId": imp["impressionId"]}),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{l}");
    (token, l["clickId"].as_str().expect("click").to_owned())
}

pub struct World {
    pub app: TestApp,
    pub adv: String,
    pub p: Publisher,
    pub campaign: String,
    pub key_id: String,
    pub secret: String,
}

pub async fn world(app: TestApp, body: Value) -> World {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let (campaign, key_id, secret) = live_campaign(&app, &adv, &admin, body).await;
    World {
        app,
        adv,
        p,
        campaign,
        key_id,
        secret,
    }
}

impl World {
    pub async fn report(&self, click: &str, txn: &str, status: &str) -> Value {
        let c = Conversion {
            click,
            txn,
            goal: "install",
            status,
        };
        let (s, r) = postback(
            &self.app,
            &self.campaign,
            &self.key_id,
            &self.secret,
            &c,
            now_ts(&self.app),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{r}");
        r
    }

    pub async fn deliveries(&self, query: &str) -> Value {
        let (s, l) = self
            .app
            .get(
                &format!("/publisher/v2/callback-deliveries{query}"),
                Some(&self.p.token),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{l}");
        l
    }
}
