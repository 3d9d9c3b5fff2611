//! Reward callbacks as tests need them: an application that trusts a test receiver, a
//! configured receiver, a user's click, and a "world" (a funded advertiser with a live
//! campaign and a publisher) that reports conversions and lists deliveries, and outbox
//! rows written straight into the database for the worker tests.

use app::domain::callback_delivery::dispatch::ClaimRequest;
use chrono::Duration;
use entity::callback_delivery;
use reqwest::StatusCode;
use sea_orm::{ActiveModelTrait, EntityTrait, Set};
use serde_json::{Value, json};

use super::offers::{Conversion, USD, campaign_body, live_campaign, now_ts, postback};
use super::publisher::{Publisher, launched, publisher, session};
use crate::receiver::Receiver;
use crate::{Backend, TestApp, TestUser};

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
    let click = launched(app, &token, campaign, "000001").await;
    (token, click)
}

pub struct World {
    pub app: TestApp,
    /// The advertiser's token (12 hours) and account (for a fresh token after the clock
    /// moved on).
    pub adv: String,
    pub adv_user: TestUser,
    pub p: Publisher,
    pub campaign: String,
    pub key_id: String,
    pub secret: String,
}

/// A receiver and a world around it: a live Custom S2S campaign paying 100 USD, on an app
/// that trusts the receiver (with the background workers running when `workers`).
pub async fn s2s_world(backend: Backend, workers: bool) -> (Receiver, World) {
    let rx = Receiver::start().await;
    let body = campaign_body("CUSTOM_S2S", 100 * USD);
    let w = world(app_for(backend, &rx, workers).await, body).await;
    (rx, w)
}

pub async fn world(app: TestApp, body: Value) -> World {
    let admin = app.admin_token().await;
    let (adv_user, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let (campaign, key_id, secret) = live_campaign(&app, &adv, &admin, body).await;
    World {
        app,
        adv,
        adv_user,
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

    /// user-1 clicks and converts (approved) and the workers deliver the reward: the click
    /// id and the delivery's id.
    pub async fn one_delivered(&self) -> (String, String) {
        let (_, clk) = click(&self.app, &self.p, "user-1", &self.campaign).await;
        self.report(&clk, "order-1", "approved").await;
        self.app.run_workers_once().await;
        let list = self.deliveries("?status=DELIVERED").await;
        let id = list["items"][0]["deliveryId"].as_str().expect("id");
        (clk, id.to_owned())
    }

    /// One delivery as the publisher's console shows it.
    pub async fn delivery(&self, id: &str) -> (StatusCode, Value) {
        let path = format!("/publisher/v2/callback-deliveries/{id}");
        self.app.get(&path, Some(&self.p.token)).await
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

    /// Waits (10 s at most) until the running workers delivered `n` callbacks.
    pub async fn wait_delivered(&self, n: u64) {
        for _ in 0..100 {
            if self.deliveries("?status=DELIVERED").await["count"] == n {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
}

/// Queues `n` due confirmations for `placement` straight into the outbox.
pub async fn queue(w: &World, placement: &str, n: usize, age_seconds: i64) -> Vec<String> {
    let now = w.app.clock_now() - Duration::seconds(age_seconds);
    let mut ids = Vec::new();
    for i in 0..n {
        let at = now + Duration::milliseconds(i as i64);
        let id = insert(
            &w.app,
            placement,
            "acc_test",
            &format!("cnv_{placement}_{i}"),
            "PENDING",
            at,
        )
        .await;
        ids.push(id);
    }
    ids
}

/// One confirmation row in the outbox, due at `at`, as settlement (`PENDING`) or the
/// worker (`DELIVERED`) leaves it.
pub async fn insert(
    app: &TestApp,
    placement: &str,
    owner: &str,
    conversion: &str,
    status: &str,
    at: chrono::DateTime<chrono::Utc>,
) -> String {
    let id = format!("dlv_{}", uuid::Uuid::now_v7().simple());
    let delivered = status == "DELIVERED";
    callback_delivery::ActiveModel {
        id: Set(id.clone()),
        placement_id: Set(placement.to_owned()),
        owner_account_id: Set(owner.to_owned()),
        conversion_id: Set(conversion.to_owned()),
        event: Set("reward.confirmed".to_owned()),
        payload: Set(json!({"eventId": id}).to_string()),
        status: Set(entity::values::DeliveryStatus::parse(status).expect("a delivery status")),
        attempts: Set(i32::from(delivered)),
        next_attempt_at: Set(at),
        last_response_status: Set(delivered.then_some(200)),
        last_error: Set(None),
        key_id: Set(None),
        created_at: Set(at),
        updated_at: Set(at),
        delivered_at: Set(delivered.then_some(at)),
        external_user_id: Set(Some("user".to_owned())),
        campaign_id: Set(None),
        depends_on: Set(None),
        lease_owner: Set(None),
        lease_until: Set(None),
        replays: Set(0),
        failed_at: Set(None),
    }
    .insert(&app.state.ctx.db)
    .await
    .expect("queue a delivery");
    id
}

/// A live campaign and a publisher whose placement's receiver is not configured yet.
pub async fn unconfigured(backend: Backend) -> (Receiver, World) {
    let rx = Receiver::start().await;
    let app = app_for(backend, &rx, false).await;
    let w = world(app, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    (rx, w)
}

/// The same with the receiver configured on the placement.
pub async fn receiving(backend: Backend) -> (Receiver, World) {
    let (rx, w) = unconfigured(backend).await;
    configure(&w.app, &w.p, &rx.url).await;
    (rx, w)
}

pub fn request<'a>(owner: &'a str, limit: usize, per_placement: usize) -> ClaimRequest<'a> {
    ClaimRequest {
        owner,
        limit,
        per_placement,
        exclude: &[],
        lease: Duration::seconds(60),
        after: None,
    }
}

pub async fn row(w: &World, id: &str) -> callback_delivery::Model {
    callback_delivery::Entity::find_by_id(id.to_owned())
        .one(&w.app.state.ctx.db)
        .await
        .expect("read")
        .expect("delivery exists")
}
