//! SDK delivery around the offer flow (`offer_flow.rs`): sessions (identity checks, expiry,
//! refresh, revoke, bans), SDK support cases, placements with session history, the static
//! feed, and reversals after a new revision.

use app::model::Role;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::builders::*;
use tests::{TestApp, both_backends, error_code};

both_backends!(
    sessions_check_identity_expire_refresh_and_revoke,
    bans_stop_sessions_and_launches,
    support_cases_come_from_the_sdk,
    placements_with_session_history_cannot_be_deleted,
    static_feed_serves_inventory_with_etags,
    reversals_give_back_what_was_paid_after_a_new_revision,
);

async fn sessions_check_identity_expire_refresh_and_revoke(app: TestApp) {
    let app = &app;
    let admin = app.admin_token().await;
    let p = publisher(app, &admin).await;
    a_session_must_match_its_placement(app, &admin, &p).await;
    a_session_refreshes_once_and_expires(app, &p).await;
    a_revoked_session_is_refused(app, &p).await;
}

/// Identity, platform, version and consent must match the placement; an unverified placement
/// gets no session and an unreleased one none in production; the web SDK may call from the
/// publisher's pages (CORS, bearer only).
async fn a_session_must_match_its_placement(app: &TestApp, admin: &str, p: &Publisher) {
    // Identity, platform, version and consent must match the placement.
    let mut bad = session_body(p, "user-1");
    bad["packageBundleOrDomain"] = json!("evil.example");
    bad["platform"] = json!("android");
    bad["sdkVersion"] = json!("1.9.0");
    let (s, e) = app.post("/sdk/v2/sessions", None, &bad).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    for f in ["packageBundleOrDomain", "platform", "sdkVersion"] {
        assert!(e["error"]["fieldErrors"][f].is_string(), "{f}: {e}");
    }
    let mut missing = session_body(p, "");
    missing["consent"] = json!("MAYBE");
    let (s, e) = app.post("/sdk/v2/sessions", None, &missing).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(
        e["error"]["fieldErrors"]["externalUserId"].is_string(),
        "{e}"
    );
    assert!(e["error"]["fieldErrors"]["consent"].is_string(), "{e}");

    // An unverified placement gets no session; an unreleased one none in production.
    let draft = app
        .website_placement(&p.token, "draft.pixelquest.example")
        .await;
    let draft_id = draft["placementId"].as_str().expect("id");
    let mut body = session_body(p, "user-1");
    body["placementId"] = json!(draft_id);
    body["packageBundleOrDomain"] = json!("draft.pixelquest.example");
    body["adSlotId"] = Value::Null;
    let (s, e) = app.post("/sdk/v2/sessions", None, &body).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    assert_eq!(error_code(&e), "placement_not_verified");
    app.verify_placement(&p.token, &admin, draft_id, false)
        .await;
    let (s, e) = app.post("/sdk/v2/sessions", None, &body).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    assert_eq!(error_code(&e), "placement_not_released");
    body["environment"] = json!("sandbox");
    assert_eq!(
        app.post("/sdk/v2/sessions", None, &body).await.0,
        StatusCode::CREATED
    );

    // The web SDK may call from the publisher's pages (CORS, bearer only).
    let pre = app
        .client
        .request(reqwest::Method::OPTIONS, app.url("/sdk/v2/sessions"))
        .header("Origin", "https://play.pixelquest.example")
        .header("Access-Control-Request-Method", "POST")
        .header(
            "Access-Control-Request-Headers",
            "content-type,idempotency-key",
        )
        .send()
        .await
        .expect("sent");
    assert!(pre.status().is_success(), "{}", pre.status());
    assert_eq!(
        pre.headers()
            .get("access-control-allow-origin")
            .and_then(|v| v.to_str().ok()),
        Some("*")
    );
}

/// A session: token once, fifteen minutes, configuration without the token; tokens do not
/// cross between SDK and console routes; a refresh needs an Idempotency-Key and a retry
/// returns the same replacement; fifteen minutes later the session has expired.
async fn a_session_refreshes_once_and_expires(app: &TestApp, p: &Publisher) {
    // A session: token once, fifteen minutes, configuration without the token.
    let (s, created) = app
        .post("/sdk/v2/sessions", None, &session_body(p, "user-1"))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{created}");
    assert_eq!(created["contractVersion"], "2.0.0");
    assert_eq!(created["adSlots"][0]["adSlotId"], p.slot.as_str());
    let issued =
        chrono::DateTime::parse_from_rfc3339(created["issuedAt"].as_str().expect("issuedAt"))
            .expect("date");
    let expires =
        chrono::DateTime::parse_from_rfc3339(created["expiresAt"].as_str().expect("expiresAt"))
            .expect("date");
    assert_eq!(expires - issued, chrono::Duration::minutes(15));
    let id = created["sessionId"].as_str().expect("id").to_owned();
    let token = created["token"].as_str().expect("token").to_owned();
    let config = format!("/sdk/v2/sessions/{id}/configuration");
    let (s, c) = app.get(&config, Some(&token)).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert!(c.get("token").is_none(), "no token on reads: {c}");
    assert_eq!(app.get(&config, None).await.0, StatusCode::UNAUTHORIZED);
    // A dashboard token does not open SDK routes, nor a session token console routes.
    assert_eq!(
        app.get(&config, Some(&p.token)).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        app.get("/publisher/v2/placements", Some(&token)).await.0,
        StatusCode::UNAUTHORIZED
    );
    let (_, other) = session(app, p, "user-2").await;
    assert_eq!(
        app.get(&config, Some(&other)).await.0,
        StatusCode::FORBIDDEN
    );

    // Refresh needs an Idempotency-Key; a retry returns the same replacement.
    let refresh = format!("/sdk/v2/sessions/{id}/refresh");
    assert_eq!(
        app.post(&refresh, Some(&token), &json!({})).await.0,
        StatusCode::BAD_REQUEST
    );
    let (s, next) = keyed(app, &refresh, &token, "refresh-0001", &json!({})).await;
    assert_eq!(s, StatusCode::OK, "{next}");
    let (s, again) = keyed(app, &refresh, &token, "refresh-0001", &json!({})).await;
    assert_eq!(s, StatusCode::OK, "{again}");
    assert_eq!(again["sessionId"], next["sessionId"]);
    assert_eq!(again["token"], next["token"]);
    let (s, e) = keyed(app, &refresh, &token, "refresh-0002", &json!({})).await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert_eq!(error_code(&e), "session_already_refreshed");
    let (s, e) = app.get(&config, Some(&token)).await;
    assert_eq!(
        s,
        StatusCode::UNAUTHORIZED,
        "the replaced token stops working"
    );
    assert_eq!(error_code(&e), "sdk_session_revoked");
    let next_id = next["sessionId"].as_str().expect("id");
    let next_token = next["token"].as_str().expect("token");

    // Fifteen minutes later the session answers sdk_session_expired.
    app.clock.advance(chrono::Duration::minutes(15));
    let (s, e) = app
        .get(
            &format!("/sdk/v2/sessions/{next_id}/configuration"),
            Some(next_token),
        )
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&e), "sdk_session_expired");
}

/// Revoke: 204, then the token is refused; revoking again is 204.
async fn a_revoked_session_is_refused(app: &TestApp, p: &Publisher) {
    // Revoke: 204, then the token is refused; revoking again is 204.
    let (id, token) = session(app, p, "user-3").await;
    let revoke = format!("/sdk/v2/sessions/{id}/revoke");
    let (s, _) = keyed(app, &revoke, &token, "revoke-0001", &json!({})).await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    assert_eq!(
        app.get("/sdk/v2/reward-status", Some(&token)).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        keyed(app, &revoke, &token, "revoke-0001", &json!({}))
            .await
            .0,
        StatusCode::NO_CONTENT
    );
}

async fn bans_stop_sessions_and_launches(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let (game, _, _) =
        live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let (_, token) = session(&app, &p, "cheater").await;
    let (s, imp) = keyed(
        &app,
        &format!("/sdk/v2/offers/{game}/impressions"),
        &token,
        "imp-000001",
        &json!({}),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{imp}");

    let (s, ban) = app
        .post("/publisher/v2/user-bans", Some(&p.token), &json!({"placementId": p.placement, "externalUserId": "cheater", "reason": "reward fraud"}))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{ban}");
    let (s, e) = keyed(
        &app,
        &format!("/sdk/v2/offers/{game}/launch"),
        &token,
        "launch-0001",
        &json!({"impressionId": imp["impressionId"]}),
    )
    .await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    assert_eq!(error_code(&e), "user_banned");
    let (s, e) = app
        .post("/sdk/v2/sessions", None, &session_body(&p, "cheater"))
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    assert_eq!(error_code(&e), "user_banned");
    // Other users are unaffected; lifting the ban restores the user.
    session(&app, &p, "honest").await;
    let ban_id = ban["banId"].as_str().expect("banId");
    let (s, _) = app
        .patch(
            &format!("/publisher/v2/user-bans/{ban_id}"),
            Some(&p.token),
            &json!({"status": "LIFTED"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let (s, l) = keyed(
        &app,
        &format!("/sdk/v2/offers/{game}/launch"),
        &token,
        "launch-0001",
        &json!({"impressionId": imp["impressionId"]}),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{l}");
}

async fn support_cases_come_from_the_sdk(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (sid, token) = session(&app, &p, "user-1").await;
    let body = json!({"sessionId": sid, "reasonCode": "MISSING_REWARD", "message": "I reached level 10 yesterday but got nothing."});
    let (s, e) = keyed(
        &app,
        "/sdk/v2/support",
        &token,
        "case-00001",
        &json!({"sessionId": sid, "reasonCode": "bad code", "message": "short"}),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(
        e["error"]["fieldErrors"]["reasonCode"].is_string()
            && e["error"]["fieldErrors"]["message"].is_string(),
        "{e}"
    );
    let (s, case) = keyed(&app, "/sdk/v2/support", &token, "case-00001", &body).await;
    assert_eq!(s, StatusCode::CREATED, "{case}");
    let (s, again) = keyed(&app, "/sdk/v2/support", &token, "case-00001", &body).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(again["supportCaseId"], case["supportCaseId"]);
    // Another user's session id cannot be used.
    let (other_sid, other) = session(&app, &p, "user-2").await;
    let mut foreign = body.clone();
    foreign["sessionId"] = json!(other_sid);
    assert_eq!(
        keyed(&app, "/sdk/v2/support", &token, "case-00002", &foreign)
            .await
            .0,
        StatusCode::BAD_REQUEST
    );
    let (_, mine) = app.get("/sdk/v2/support", Some(&token)).await;
    assert_eq!(mine["count"], 1);
    assert_eq!(app.get("/sdk/v2/support", Some(&other)).await.1["count"], 0);
    // The publisher works the case in the console.
    let (s, inbox) = app.get("/publisher/v2/support-cases", Some(&p.token)).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(inbox["items"][0]["supportCaseId"], case["supportCaseId"]);
    assert_eq!(inbox["items"][0]["externalUserId"], "user-1");
}

async fn placements_with_session_history_cannot_be_deleted(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, t) = app.signed_in(Role::Publisher).await;
    let p = app
        .website_placement(&t, "history.pixelquest.example")
        .await;
    let id = p["placementId"].as_str().expect("id");
    app.verify_placement(&t, &admin, id, false).await;
    let (s, b) = app
        .post("/sdk/v2/sessions", None, &json!({"placementId": id, "externalUserId": "u1", "platform": "web", "sdkVersion": "2.0.0",
            "packageBundleOrDomain": "history.pixelquest.example", "environment": "sandbox", "consent": "NOT_REQUIRED"}))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let (s, e) = app
        .delete(&format!("/publisher/v2/placements/{id}"), Some(&t))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert!(
        e["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("SDK session")),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delivery_switch_off_answers_404() {
    for backend in [tests::Backend::Sqlite, tests::Backend::Postgres] {
        let app = TestApp::spawn_with(backend, &["--feature-delivery", "false"]).await;
        let (s, err) = app.post("/sdk/v2/sessions", None, &json!({})).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(error_code(&err), "not_found");
        let (s, _) = app
            .post(
                "/performance-marketing/v2/postbacks/custom-s2s/cmp_x",
                None,
                &json!({}),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        // The console is unaffected.
        let (_, t) = app.signed_in(Role::Publisher).await;
        assert_eq!(
            app.get("/publisher/v2/placements", Some(&t)).await.0,
            StatusCode::OK
        );
    }
}

async fn static_feed_serves_inventory_with_etags(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let (game, _, _) =
        live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let feed_slot = static_slot(&app, &p).await;
    let slot = feed_slot.as_str();
    let token = static_key(&app, &p, slot).await;
    let path = format!("/publisher/v2/ad-slots/{slot}/static-offers");
    let res = pull(&app, &path, Some(token.clone()), None, "?country=US")
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::OK);
    let etag = res
        .headers()
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .expect("etag")
        .to_owned();
    assert!(
        res.headers()
            .get("cache-control")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("max-age=60"))
    );
    let body: Value = res.json().await.expect("json");
    assert_eq!(body["items"][0]["campaignId"], game.as_str());
    assert_eq!(
        body["items"][0]["launchEndpoint"],
        format!("/sdk/v2/offers/{game}/launch")
    );
    assert_eq!(body["etag"], etag.as_str());
    assert_eq!(body["cache"]["maxAgeSeconds"], 60);
    assert!(body["items"][0].get("providerCode").is_none());
    // The creative fields the specification lists for the static feed (not in SDK lists).
    let first = &body["items"][0];
    assert_eq!(first["headline"], first["title"], "{first}");
    assert_eq!(first["callToAction"], "Install", "{first}");
    assert!(first["artwork"].is_array(), "{first}");
    // The item's impression path works from an unbound session naming the feed slot.
    let mut unbound = session_body(&p, "feed-user");
    unbound["adSlotId"] = Value::Null;
    let (s, sess) = app.post("/sdk/v2/sessions", None, &unbound).await;
    assert_eq!(s, StatusCode::CREATED, "{sess}");
    let (s, imp) = keyed(
        &app,
        &format!("/sdk/v2/offers/{game}/impressions"),
        sess["token"].as_str().expect("token"),
        "feed-imp-01",
        &json!({"adSlotId": slot}),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{imp}");

    // Unchanged: 304 without a body; a blacklist changes the feed.
    let res = pull(
        &app,
        &path,
        Some(token.clone()),
        Some(etag.clone()),
        "?country=US",
    )
    .await
    .expect("sent");
    assert_eq!(res.status(), StatusCode::NOT_MODIFIED);
    app.post(
        "/publisher/v2/blacklists",
        Some(&p.token),
        &json!({"kind": "CAMPAIGN", "value": game}),
    )
    .await;
    let res = pull(&app, &path, Some(token.clone()), Some(etag), "?country=US")
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.json::<Value>().await.expect("json")["items"], json!([]));
    feed_refusals_and_expiry(&app, (&feed_slot, &p.slot), &token).await;
}

/// Refusals: no key, a wrong key, another slot's key, a bad query; then the key expires.
/// `slots`: the feed's slot and another slot of the same placement.
async fn feed_refusals_and_expiry(app: &TestApp, slots: (&str, &str), token: &str) {
    let (slot, other_slot) = slots;
    let path = format!("/publisher/v2/ad-slots/{slot}/static-offers");
    // Refusals: no key, a wrong key, another slot's key, a bad query.
    assert_eq!(
        pull(app, &path, None, None, "")
            .await
            .expect("sent")
            .status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        pull(app, &path, Some("stk_wrong".into()), None, "")
            .await
            .expect("sent")
            .status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        pull(app, &path, Some(token.to_owned()), None, "?country=us")
            .await
            .expect("sent")
            .status(),
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        pull(app, &path, Some(token.to_owned()), None, "?platform=ios")
            .await
            .expect("sent")
            .status(),
        StatusCode::BAD_REQUEST
    );
    let other = app
        .client
        .get(app.url(&format!(
            "/publisher/v2/ad-slots/{other_slot}/static-offers"
        )))
        .header("X-Service-Static-Key", token)
        .send()
        .await
        .expect("sent");
    assert_eq!(other.status(), StatusCode::FORBIDDEN);
    // The key expires.
    app.clock.advance(chrono::Duration::days(31));
    assert_eq!(
        pull(app, &path, Some(token.to_owned()), None, "")
            .await
            .expect("sent")
            .status(),
        StatusCode::UNAUTHORIZED
    );
}

/// One pull of a static feed with an optional key and ETag.
async fn pull(
    app: &TestApp,
    path: &str,
    key: Option<String>,
    etag: Option<String>,
    query: &str,
) -> reqwest::Result<reqwest::Response> {
    let mut req = app.client.get(app.url(&format!("{path}{query}")));
    if let Some(k) = key {
        req = req.header("X-Service-Static-Key", k);
    }
    if let Some(e) = etag {
        req = req.header("If-None-Match", e);
    }
    req.send().await
}

async fn reversals_give_back_what_was_paid_after_a_new_revision(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let (game, key_id, secret) =
        live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let (_, token) = session(&app, &p, "user-1").await;
    let click = launched(&app, &token, &game, "000001").await;
    let (_, _, spent_before) = app.balance(&adv).await;
    let conv = Conversion {
        click: &click,
        txn: "order-1",
        goal: "install",
        status: "approved",
    };
    assert_eq!(
        postback(&app, &game, &key_id, &secret, &conv, now_ts(&app))
            .await
            .0,
        StatusCode::OK
    );
    assert_eq!(app.balance(&adv).await.2, spent_before + 1_500_000);

    // The advertiser doubles the payout and the new revision goes live.
    let mut goals = campaign_body("CUSTOM_S2S", 100 * USD)["goals"].clone();
    goals[0]["payoutMicros"] = json!(3_000_000);
    let (s, c) = app
        .patch(
            &format!("/performance-marketing/v2/campaigns/{game}"),
            Some(&adv),
            &json!({"goals": goals}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(approve(&app, &admin, &game).await.0, StatusCode::OK);

    // The reversal gives back the 1.50 USD that was paid, not the new 3.00.
    let reversal = Conversion {
        status: "reversed",
        ..conv
    };
    let (s, r) = postback(&app, &game, &key_id, &secret, &reversal, now_ts(&app)).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(app.balance(&adv).await.2, spent_before);
    let (_, rs) = app.get("/sdk/v2/reward-status", Some(&token)).await;
    assert_eq!(rs["totals"]["reversedMinorUnits"], 105, "{rs}");
    use app::domain::billing::ledger;
    assert_eq!(
        ledger::reconcile(&app.state.ctx.db)
            .await
            .expect("reconcile"),
        ledger::Reconciliation::default()
    );
}
