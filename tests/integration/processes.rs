//! Several `server` processes on one database see one truth: a change committed through
//! process A (the in-test application) stops listing and launching on process B (the real
//! binary, warmed before the change) within the 2-second bound of `app::domain::changes`.
//! Without the announcements B would keep serving its caches for 10 to 60 seconds.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::{Backend, TestApp, each_backend, error_code};

use tests::builders::{
    Publisher, USD, live_campaign, publisher, session_body, static_key, static_slot,
};
use tests::builders::{campaign_body, transition};

each_backend!(
    a_blacklist_reaches_the_other_process,
    a_disabled_slot_reaches_the_other_process,
    a_paused_campaign_reaches_the_other_process,
    a_fraud_pause_reaches_the_other_process,
    a_rotated_static_key_reaches_the_other_process,
    a_ban_reaches_the_other_process,
    a_paused_survey_reaches_the_other_process,
);

/// The bound of `app::domain::changes`.
const BOUND: Duration = Duration::from_secs(2);

/// Process B: the real binary on A's database, ready (its inventory built).
pub(crate) struct ProcessB {
    pub(crate) process: tests::process::ServerProcess,
}

async fn start_b(app: &TestApp) -> ProcessB {
    start_b_on(&app.database_url, &[]).await
}

async fn start_b_on(database_url: &str, env: &[(&str, &str)]) -> ProcessB {
    ProcessB {
        process: tests::process::start(database_url, env, "/readyz").await,
    }
}

impl ProcessB {
    pub(crate) async fn send(req: reqwest::RequestBuilder) -> (StatusCode, Value) {
        let res = req.send().await.expect("sent to B");
        let status = res.status();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    async fn session(&self, app: &TestApp, p: &Publisher, user: &str) -> String {
        let req = app
            .client
            .post(format!("{}/sdk/v2/sessions", self.process.base))
            .json(&session_body(p, user));
        let (s, b) = Self::send(req).await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        b["token"].as_str().expect("token").to_owned()
    }

    pub(crate) async fn offers(
        &self,
        app: &TestApp,
        p: &Publisher,
        token: &str,
    ) -> (StatusCode, Value) {
        let req = app
            .client
            .get(format!(
                "{}/sdk/v2/ad-slots/{}/offers",
                self.process.base, p.slot
            ))
            .bearer_auth(token);
        Self::send(req).await
    }

    /// An impression then a launch of `offer`: the launch's status and body.
    async fn launch(&self, app: &TestApp, token: &str, offer: &str) -> (StatusCode, Value) {
        let key = uuid::Uuid::new_v4().simple().to_string();
        let req = app
            .client
            .post(format!(
                "{}/sdk/v2/offers/{offer}/impressions",
                self.process.base
            ))
            .bearer_auth(token)
            .header("Idempotency-Key", format!("imp-{key}"))
            .json(&json!({}));
        let (s, imp) = Self::send(req).await;
        if s != StatusCode::CREATED {
            return (s, imp);
        }
        let req = app
            .client
            .post(format!(
                "{}/sdk/v2/offers/{offer}/launch",
                self.process.base
            ))
            .bearer_auth(token)
            .header("Idempotency-Key", format!("launch-{key}"))
            .json(&json!({"impressionId": imp["impressionId"]}));
        Self::send(req).await
    }
}

pub(crate) fn lists(body: &Value, campaign: &str) -> bool {
    body["items"]
        .as_array()
        .is_some_and(|i| i.iter().any(|o| o["campaignId"] == campaign))
}

/// Polls `check` until it holds; fails when that took longer than the bound.
async fn within_bound<F, Fut>(what: &str, check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    within(BOUND, what, check).await;
}

/// Polls `check` every 50 ms until it holds; fails when that took longer than `limit`.
pub(crate) async fn within<F, Fut>(limit: Duration, what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    while started.elapsed() <= limit {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{what}: the other process still served the old state {limit:?} after the commit");
}

/// A's clock at the real time (B runs on the real clock), a publisher, a live campaign
/// listed on a warm process B, and a session of `user` on B.
pub(crate) struct World {
    pub(crate) app: TestApp,
    pub(crate) p: Publisher,
    pub(crate) game: String,
    adv: String,
    pub(crate) b: ProcessB,
    pub(crate) token: String,
    /// Between B and the database when asked for ([`world_with`]).
    pub(crate) proxy: Option<tests::proxy::Proxy>,
}

async fn world(backend: Backend, user: &str) -> World {
    world_with(backend, user, &[], false).await
}

/// [`world`] with settings of B's own, and on PostgreSQL B's connections through a proxy the
/// test controls when `through_proxy`.
pub(crate) async fn world_with(
    backend: Backend,
    user: &str,
    b_env: &[(&str, &str)],
    through_proxy: bool,
) -> World {
    let app = TestApp::spawn(backend).await;
    app.clock.set(chrono::Utc::now());
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let (game, _, _) =
        live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let (b, proxy) = if through_proxy {
        let mut url = url::Url::parse(&app.database_url).expect("database url");
        let upstream = format!(
            "{}:{}",
            url.host_str().unwrap_or("127.0.0.1"),
            url.port().unwrap_or(5432)
        );
        let proxy = tests::proxy::Proxy::start(upstream.parse().expect("upstream")).await;
        url.set_port(Some(proxy.port)).expect("set port");
        (start_b_on(url.as_str(), b_env).await, Some(proxy))
    } else {
        (start_b_on(&app.database_url, b_env).await, None)
    };
    let token = b.session(&app, &p, user).await;
    let (s, list) = b.offers(&app, &p, &token).await;
    assert_eq!(s, StatusCode::OK, "{list}");
    assert!(lists(&list, &game), "B lists the campaign first: {list}");
    World {
        app,
        p,
        game,
        adv,
        b,
        token,
        proxy,
    }
}

impl World {
    /// The publisher blacklists the campaign, through A.
    pub(crate) async fn blacklist_game(&self) {
        let (s, r) = self
            .app
            .post(
                "/publisher/v2/blacklists",
                Some(&self.p.token),
                &json!({"kind": "CAMPAIGN", "value": self.game, "reason": "brand safety"}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{r}");
    }

    /// Within the bound B stops listing the game (`what` changed on A), and refuses to
    /// launch it: `refusal` says why in the failure.
    async fn b_stops_offering(&self, what: &str, refusal: &str) {
        within_bound(what, || async {
            let (s, list) = self.b.offers(&self.app, &self.p, &self.token).await;
            s == StatusCode::OK && !lists(&list, &self.game)
        })
        .await;
        let (s, e) = self.b.launch(&self.app, &self.token, &self.game).await;
        assert!(s.is_client_error(), "{refusal}: {s} {e}");
    }
}

async fn a_blacklist_reaches_the_other_process(backend: Backend) {
    let w = world(backend, "player").await;
    w.blacklist_game().await;
    w.b_stops_offering("blacklist", "a blacklisted offer does not launch: {s} {e}")
        .await;
}

async fn a_disabled_slot_reaches_the_other_process(backend: Backend) {
    let w = world(backend, "player").await;
    let (s, r) = w
        .app
        .post(
            &format!(
                "/publisher/v2/placements/{}/ad-slots/{}/disable",
                w.p.placement, w.p.slot
            ),
            Some(&w.p.token),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["state"], "DISABLED", "{r}");
    within_bound("slot disabled", || async {
        w.b.offers(&w.app, &w.p, &w.token).await.0 != StatusCode::OK
    })
    .await;
    let (s, e) = w.b.launch(&w.app, &w.token, &w.game).await;
    assert!(
        s.is_client_error(),
        "a disabled slot does not launch: {s} {e}"
    );
}

async fn a_paused_campaign_reaches_the_other_process(backend: Backend) {
    let w = world(backend, "player").await;
    let (s, c) = transition(&w.app, &w.adv, &w.game, "PAUSED").await;
    assert_eq!(s, StatusCode::OK, "{c}");
    w.b_stops_offering(
        "campaign paused",
        "a paused campaign does not launch: {s} {e}",
    )
    .await;
}

/// A placement paused for fraud (here by an administrator; the fraud guard pauses the same
/// way) fills nothing on B either.
async fn a_fraud_pause_reaches_the_other_process(backend: Backend) {
    let w = world(backend, "player").await;
    let admin = w.app.admin_token().await;
    let (s, e) = w
        .app
        .post(
            &format!("/admin/v1/placements/{}/pause-delivery", w.p.placement),
            Some(&admin),
            &json!({"note": "click farm"}),
        )
        .await;
    assert_eq!(s, StatusCode::NO_CONTENT, "{e}");
    w.b_stops_offering(
        "placement paused",
        "a paused placement does not launch: {s} {e}",
    )
    .await;
}

async fn a_rotated_static_key_reaches_the_other_process(backend: Backend) {
    let w = world(backend, "player").await;
    let slot = static_slot(&w.app, &w.p).await;
    let issue = || static_key(&w.app, &w.p, &slot);
    let pull = |key: String| {
        w.app
            .client
            .get(format!(
                "{}/publisher/v2/ad-slots/{slot}/static-offers",
                w.b.process.base
            ))
            .header("X-Service-Static-Key", key)
            .send()
    };
    let first = issue().await;
    // B learns of the new slot within the bound too; then its key cache holds the first key.
    within_bound("new static slot", || async {
        pull(first.clone())
            .await
            .is_ok_and(|r| r.status() == StatusCode::OK)
    })
    .await;
    let second = issue().await;
    within_bound("static key rotated", || async {
        pull(first.clone())
            .await
            .is_ok_and(|r| r.status() == StatusCode::UNAUTHORIZED)
    })
    .await;
    assert_eq!(pull(second).await.expect("sent").status(), StatusCode::OK);
}

async fn a_ban_reaches_the_other_process(backend: Backend) {
    let w = world(backend, "cheater").await;
    let (s, ban) = w
        .app
        .post(
            "/publisher/v2/user-bans",
            Some(&w.p.token),
            &json!({"placementId": w.p.placement, "externalUserId": "cheater", "reason": "reward fraud"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{ban}");
    within_bound("user banned", || async {
        let (s, e) = w.b.offers(&w.app, &w.p, &w.token).await;
        s == StatusCode::FORBIDDEN && error_code(&e) == "user_banned"
    })
    .await;
    let (s, e) = w.b.launch(&w.app, &w.token, &w.game).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{e}");
    assert_eq!(error_code(&e), "user_banned");
}

/// The live surveys of `app::domain::surveys::live`: a survey paused on A leaves B's
/// survey fetch within the bound, and comes back when resumed.
async fn a_paused_survey_reaches_the_other_process(backend: Backend) {
    use tests::builders::surveys::lists;
    use tests::builders::surveys::{market_with, respondent};
    let app = TestApp::spawn(backend).await;
    app.clock.set(chrono::Utc::now());
    let m = market_with(&app, "SHA256", 5).await;
    let b = start_b(&app).await;
    let fetch_on_b = |user: &'static str| {
        let req = app
            .client
            .post(format!("{}/getallsurveys-api", b.process.base))
            .header("X-Service-Api-Key", &m.app_key)
            .json(&respondent(&m, user));
        async move { ProcessB::send(req).await }
    };
    let (s, env) = fetch_on_b("kim").await;
    assert_eq!(s, StatusCode::OK, "B offers the survey first: {env}");
    assert!(lists(&env, &m.campaign), "{env}");
    for (status, offered) in [("PAUSED", false), ("LIVE", true)] {
        let (s, c) = tests::builders::surveys::call(
            &app,
            &m.key,
            reqwest::Method::PUT,
            &format!("/api/v1/campaigns/{}", m.campaign),
            Some(&json!({ "status": status })),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{c}");
        within_bound(&format!("survey {status}"), || async {
            lists(&fetch_on_b("kim").await.1, &m.campaign) == offered
        })
        .await;
    }
}
