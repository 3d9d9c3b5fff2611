//! Every documented limit, through the HTTP API, on the test clock (issue 28, item 10): the
//! allowance is spent exactly (the next request is 429 with `Retry-After`), and moving the
//! clock by one refill period lets exactly one more request through. The limiters read the
//! injectable clock, so nothing sleeps.

use std::future::Future;

use app::model::Role;
use chrono::Duration;
use reqwest::{Method, StatusCode};
use serde_json::json;
use tests::{TestApp, both_backends};

use tests::builders::{publisher, session};

both_backends!(
    sdk_reads_and_writes_refill_per_session,
    session_creation_is_limited_per_placement_and_address,
    static_feed_and_postbacks_are_limited_per_caller,
    registration_and_sign_in_refill_on_the_clock,
    an_office_behind_one_address_all_signs_in,
    every_limited_answer_tells_its_limits,
);

/// A request's status and its `Retry-After`.
type Answer = (StatusCode, Option<String>);

async fn answer(req: reqwest::RequestBuilder) -> Answer {
    let res = req.send().await.expect("sent");
    let retry = res
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (res.status(), retry)
}

/// Spends `allowance` requests (none refused), checks the next one is refused, then moves
/// the clock by `refill` and checks exactly one more goes through.
async fn holds<F, Fut>(app: &TestApp, what: &str, allowance: usize, refill: Duration, call: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = Answer>,
{
    for i in 0..allowance {
        let (s, _) = call().await;
        assert_ne!(
            s,
            StatusCode::TOO_MANY_REQUESTS,
            "{what}: request {i} of {allowance}"
        );
    }
    let (s, retry) = call().await;
    assert_eq!(
        s,
        StatusCode::TOO_MANY_REQUESTS,
        "{what}: one past the allowance"
    );
    let wait: i64 = retry.and_then(|r| r.parse().ok()).expect("Retry-After");
    assert!(
        (1..=refill.num_seconds().max(1) + 1).contains(&wait),
        "{what}: Retry-After {wait}"
    );
    app.clock.advance(refill);
    let (s, _) = call().await;
    assert_ne!(s, StatusCode::TOO_MANY_REQUESTS, "{what}: refilled by one");
    let (s, _) = call().await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{what}: only by one");
}

/// A postback body of the right shape (the limit is counted before it is checked).
fn event() -> serde_json::Value {
    json!({"click_id": "clk_x", "transaction_id": "t-1", "goal_id": "install",
        "status": "approved", "occurred_at": "2026-03-02T09:00:00Z"})
}

async fn sdk_reads_and_writes_refill_per_session(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (id, token) = session(&app, &p, "limited").await;
    let config = app.url(&format!("/sdk/v2/sessions/{id}/configuration"));
    // 120 reads a minute: one more every half second.
    holds(&app, "SDK reads", 120, Duration::milliseconds(500), || {
        answer(app.client.get(&config).bearer_auth(&token))
    })
    .await;
    // 60 writes a minute, counted before the request is looked at.
    let write = app.url("/sdk/v2/offers/cmp_missing/impressions");
    holds(&app, "SDK writes", 60, Duration::seconds(1), || {
        answer(
            app.client
                .post(&write)
                .bearer_auth(&token)
                .header("Idempotency-Key", "imp-limited-1")
                .json(&json!({})),
        )
    })
    .await;
    // Another session of the same user has its own allowance.
    let (other_id, other) = session(&app, &p, "limited").await;
    let (s, _) = answer(
        app.client
            .get(app.url(&format!("/sdk/v2/sessions/{other_id}/configuration")))
            .bearer_auth(&other),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
}

async fn session_creation_is_limited_per_placement_and_address(app: TestApp) {
    let url = app.url("/sdk/v2/sessions");
    // Invalid bodies count too: the limit is checked before the request is read further.
    holds(&app, "session creation", 60, Duration::seconds(1), || {
        answer(
            app.client
                .post(&url)
                .json(&json!({"placementId": "plc_limited"})),
        )
    })
    .await;
    let (s, _) = answer(
        app.client
            .post(&url)
            .json(&json!({"placementId": "plc_other"})),
    )
    .await;
    assert_eq!(
        s,
        StatusCode::BAD_REQUEST,
        "another placement is not limited"
    );
}

async fn static_feed_and_postbacks_are_limited_per_caller(app: TestApp) {
    let feed = app.url("/publisher/v2/ad-slots/slt_limited/static-offers");
    holds(
        &app,
        "static feed",
        120,
        Duration::milliseconds(500),
        || {
            answer(
                app.client
                    .get(&feed)
                    .header("X-Service-Static-Key", "mkt_sfk_wrong"),
            )
        },
    )
    .await;
    let postback = app.url("/performance-marketing/v2/postbacks/custom-s2s/cmp_limited");
    holds(&app, "postbacks", 120, Duration::milliseconds(500), || {
        answer(app.client.post(&postback).json(&event()))
    })
    .await;
    // Every postback route shares the address's allowance.
    let (s, _) = answer(
        app.client
            .request(
                Method::POST,
                app.url("/performance-marketing/v2/postbacks/custom-s2s/cmp_other"),
            )
            .json(&event()),
    )
    .await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS);
}

async fn registration_and_sign_in_refill_on_the_clock(app: TestApp) {
    let register = app.url("/auth/v1/accounts");
    // 20 registrations at once, then one every three minutes.
    holds(&app, "registration", 20, Duration::minutes(3), || {
        answer(
            app.client.post(&register).json(
                &json!({"email": "x", "password": "p", "role": "PUBLISHER", "companyName": "c"}),
            ),
        )
    })
    .await;
    // Sign-in: 10 attempts per e-mail and address at once, then one every 30 seconds.
    let tokens = app.url("/auth/v1/tokens");
    holds(&app, "sign-in", 10, Duration::seconds(30), || {
        answer(
            app.client
                .post(&tokens)
                .json(&json!({"email": "limited@example.test", "password": "wrong-password-1"})),
        )
    })
    .await;
}

/// The `RateLimit-Policy` and `RateLimit` headers of an answer.
async fn limits_told(req: reqwest::RequestBuilder) -> (StatusCode, String, String) {
    let res = req.send().await.expect("sent");
    let field = |name: &str| {
        res.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    (res.status(), field("ratelimit-policy"), field("ratelimit"))
}

/// Limited answers carry the draft's headers (what is left counts down to 0 on the 429, and
/// sign-in names both its policies); unlimited ones carry none; the OpenAPI document lists
/// them on every operation that documents a 429.
async fn every_limited_answer_tells_its_limits(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (id, token) = session(&app, &p, "told").await;
    let config = app.url(&format!("/sdk/v2/sessions/{id}/configuration"));
    let read = || app.client.get(&config).bearer_auth(&token);
    let (s, policy, left) = limits_told(read()).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(policy, "\"sdk-read\";q=120;w=60");
    assert_eq!(left, "\"sdk-read\";r=119;t=1");
    for _ in 0..119 {
        limits_told(read()).await;
    }
    let (s, _, left) = limits_told(read()).await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(left, "\"sdk-read\";r=0;t=60");
    app.clock.advance(Duration::seconds(30));
    let (_, _, left) = limits_told(read()).await;
    assert_eq!(left, "\"sdk-read\";r=59;t=31", "half refilled, one spent");

    let (s, policy, left) = limits_told(
        app.client
            .post(app.url("/auth/v1/tokens"))
            .json(&json!({"email": "told@example.test", "password": "wrong-password-1"})),
    )
    .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    // A failure counts against the address too (counted after the check).
    assert_eq!(
        policy,
        "\"sign-in\";q=10;w=300, \"sign-in-address\";q=30;w=60"
    );
    assert_eq!(left, "\"sign-in\";r=9;t=30, \"sign-in-address\";r=29;t=2");

    let (_, policy, left) = limits_told(app.client.get(app.url("/healthz"))).await;
    assert_eq!((policy.as_str(), left.as_str()), ("", ""), "not limited");

    let doc: serde_json::Value = app
        .client
        .get(app.url("/openapi.json"))
        .send()
        .await
        .expect("sent")
        .json()
        .await
        .expect("json");
    let mut limited = 0;
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("item") {
            let Some(answers) = op["responses"].as_object() else {
                continue;
            };
            if !answers.contains_key("429") {
                continue;
            }
            limited += 1;
            for (status, r) in answers {
                assert!(
                    r["headers"]["RateLimit"].is_object(),
                    "{method} {path} {status}"
                );
                assert!(
                    r["headers"]["RateLimit-Policy"].is_object(),
                    "{method} {path} {status}"
                );
            }
            assert!(
                answers["429"]["headers"]["Retry-After"].is_object(),
                "{method} {path}"
            );
        }
    }
    assert!(limited >= 30, "{limited} limited operations documented");
}

/// Fifty people behind one office address sign in at nine: successes do not spend the
/// address's budget (issue 52). Thirty failures from it, whatever the e-mails, do: the
/// address is then refused, a correct password included, until its next attempt is allowed.
async fn an_office_behind_one_address_all_signs_in(app: TestApp) {
    let mut office = Vec::new();
    for _ in 0..50 {
        office.push(app.create_user(Role::Publisher).await);
    }
    let tokens = app.url("/auth/v1/tokens");
    for u in &office {
        let (s, b) = answer(
            app.client
                .post(&tokens)
                .json(&json!({"email": u.email, "password": u.password})),
        )
        .await;
        assert_eq!(s, StatusCode::CREATED, "{} {b:?}", u.email);
    }
    for i in 0..30 {
        let (s, _) = answer(app.client.post(&tokens).json(
            &json!({"email": format!("guess-{i}@example.test"), "password": "wrong-password-1"}),
        ))
        .await;
        assert_eq!(s, StatusCode::UNAUTHORIZED, "failure {i}");
    }
    let (s, _) = answer(
        app.client
            .post(&tokens)
            .json(&json!({"email": "guess-31@example.test", "password": "wrong-password-1"})),
    )
    .await;
    assert_eq!(
        s,
        StatusCode::TOO_MANY_REQUESTS,
        "the 31st failure is refused"
    );
    let u = &office[0];
    let (s, _) = answer(
        app.client
            .post(&tokens)
            .json(&json!({"email": u.email, "password": u.password})),
    )
    .await;
    assert_eq!(
        s,
        StatusCode::TOO_MANY_REQUESTS,
        "the address waits, whoever asks"
    );
    app.clock.advance(Duration::seconds(3));
    let (s, b) = answer(
        app.client
            .post(&tokens)
            .json(&json!({"email": u.email, "password": u.password})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{b:?}");
}
