//! Token-authenticated conversion callbacks (measurement partner, direct, managed) and the
//! callback sandbox: acceptance into the shared inbox with settlement, exact retries,
//! conflicts, every refusal, the feature switches and the API reference.

use app::model::Role;
use reqwest::StatusCode;
use sea_orm::{ActiveModelTrait, EntityTrait, IntoActiveModel, PaginatorTrait, Set};
use serde_json::{Value, json};
use tests::{TestApp, both_backends, error_code};

use tests::builders::{CAMPAIGNS, approve, campaign_body, create, transition};
use tests::builders::{USD, launched, publisher, session};

both_backends!(
    mmp_partner_names_settle_retry_and_conflict,
    mmp_refusals,
    mmp_feature_off_answers_404,
    direct_and_managed_settle_retry_and_conflict,
    direct_and_managed_refusals,
    sandbox_records_fixtures_once,
    sandbox_refusals,
    openapi_documents_the_callback_routes,
    tracking_page_explains_token_and_partner_names,
);

const POSTBACKS: &str = "/performance-marketing/v2/postbacks";
const SANDBOX: &str = "/performance-marketing/v2/sandbox/callbacks";

/// A LIVE campaign of a token provider (`MMP:APPSFLYER`, `DIRECT`, `MANAGED`) and its token.
async fn live_token_campaign(
    app: &TestApp,
    adv: &str,
    admin: &str,
    provider: &str,
) -> (String, String) {
    let id = create(app, adv, &campaign_body(provider, 100 * USD)).await;
    let (id, token) = token_for(app, adv, &id, provider).await;
    assert_eq!(
        transition(app, adv, &id, "IN_REVIEW").await.0,
        StatusCode::OK
    );
    if provider.starts_with("MMP:") {
        let (s, v) = app
            .post(
                &format!("/admin/v1/offer-campaigns/{id}/mmp-verification"),
                Some(admin),
                &json!({"note": "live test attributed"}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{v}");
    }
    let (s, c) = approve(app, admin, &id).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    (id, token)
}

/// Issues the campaign's token (shown once).
async fn token_for(app: &TestApp, adv: &str, id: &str, provider: &str) -> (String, String) {
    let kind = match provider {
        "DIRECT" => "direct",
        "MANAGED" => "managed",
        _ => "mmp",
    };
    let (s, tok) = app
        .post(
            &format!("{CAMPAIGNS}/{id}/tracking/{kind}/credentials"),
            Some(adv),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{tok}");
    (
        id.to_owned(),
        tok["token"].as_str().expect("token").to_owned(),
    )
}

/// A launched click of `campaign` for a new user of the publisher's slot.
async fn click(
    app: &TestApp,
    p: &tests::builders::Publisher,
    campaign: &str,
    user: &str,
) -> String {
    let (_, token) = session(app, p, user).await;
    launched(app, &token, campaign, user).await
}

async fn answer(res: reqwest::RequestBuilder) -> (StatusCode, Value) {
    let res = res.send().await.expect("sent");
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// GET with query parameters and an optional `X-Service-Token`.
async fn get_cb(
    app: &TestApp,
    path: &str,
    query: &[(&str, &str)],
    header: Option<&str>,
) -> (StatusCode, Value) {
    let mut req = app.client.get(app.url(path)).query(query);
    if let Some(t) = header {
        req = req.header("X-Service-Token", t);
    }
    answer(req).await
}

/// POST with a JSON body and an optional `X-Service-Token`.
async fn post_cb(
    app: &TestApp,
    path: &str,
    body: &Value,
    header: Option<&str>,
) -> (StatusCode, Value) {
    let mut req = app.client.post(app.url(path)).json(body);
    if let Some(t) = header {
        req = req.header("X-Service-Token", t);
    }
    answer(req).await
}

/// A POST to the sandbox with an Idempotency-Key and an optional bearer.
async fn sandbox(
    app: &TestApp,
    key: Option<&str>,
    bearer: Option<&str>,
    body: &Value,
) -> (StatusCode, Value) {
    let mut req = app.client.post(app.url(SANDBOX)).json(body);
    if let Some(k) = key {
        req = req.header("Idempotency-Key", k);
    }
    if let Some(b) = bearer {
        req = req.bearer_auth(b);
    }
    answer(req).await
}

fn occurred(app: &TestApp) -> String {
    app.clock_now().timestamp().to_string()
}

fn rfc3339(app: &TestApp) -> String {
    app.clock_now()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

async fn conversions(app: &TestApp) -> u64 {
    entity::conversion::Entity::find()
        .count(&app.state.ctx.db)
        .await
        .expect("count")
}

async fn mmp_partner_names_settle_retry_and_conflict(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let (id, token) = live_token_campaign(&app, &adv, &admin, "MMP:APPSFLYER").await;
    let clk = click(&app, &p, &id, "user-1").await;
    let (_, reserved_before, spent_before) = app.balance(&adv).await;
    let path = format!("{POSTBACKS}/mmp/{id}/appsflyer");

    // AppsFlyer's own names in the query, the token as a parameter, Unix seconds.
    let ts = occurred(&app);
    let (s, r) = get_cb(
        &app,
        &path,
        &[
            ("clickid", clk.as_str()),
            ("event_id", "af-evt-1"),
            ("event_name", "install"),
            ("event_type", "install"),
            ("event_time", ts.as_str()),
            ("idfa", "ignored"),
            ("token", token.as_str()),
        ],
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(
        (r["accepted"].as_bool(), r["duplicate"].as_bool()),
        (Some(true), Some(false))
    );
    let (_, reserved, spent) = app.balance(&adv).await;
    assert_eq!(
        spent,
        spent_before + 1_500_000,
        "the approved install is paid"
    );
    assert_eq!(reserved, reserved_before - 1_500_000);
    let events = entity::postback_event::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("events");
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].source, "MMP:APPSFLYER");
    assert_eq!(
        events[0].occurred_at,
        rfc3339(&app),
        "Unix seconds stored as RFC 3339"
    );

    // The same report as canonical JSON with the header token is an exact retry.
    let canonical = json!({"click_id": clk, "transaction_id": "af-evt-1", "goal_id": "install", "status": "approved", "occurred_at": rfc3339(&app)});
    let (s, again) = post_cb(&app, &path, &canonical, Some(&token)).await;
    assert_eq!(s, StatusCode::OK, "{again}");
    assert_eq!(again["duplicate"], true);
    assert_eq!(again["receiptId"], r["receiptId"]);
    // And as a form body.
    let res = app
        .client
        .post(app.url(&path))
        .header("X-Service-Token", &token)
        .form(&[
            ("clickid", clk.as_str()),
            ("event_id", "af-evt-1"),
            ("event_name", "install"),
            ("event_type", "install"),
            ("event_time", ts.as_str()),
        ]);
    let (s, form) = answer(res).await;
    assert_eq!(s, StatusCode::OK, "{form}");
    assert_eq!(form["receiptId"], r["receiptId"]);
    assert_eq!(
        app.balance(&adv).await.2,
        spent,
        "a retry pays nothing more"
    );

    // The same transaction with another goal or click is a conflict; nothing is written.
    let mut other_goal = canonical.clone();
    other_goal["goal_id"] = json!("level10");
    let (s, e) = post_cb(&app, &path, &other_goal, Some(&token)).await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert_eq!(error_code(&e), "transaction_conflict");
    let mut other_click = canonical.clone();
    other_click["click_id"] = json!("clk_someone_else");
    let (s, e) = post_cb(&app, &path, &other_click, Some(&token)).await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert_eq!(error_code(&e), "transaction_conflict");
    assert_eq!(conversions(&app).await, 1);

    // Partner status words: a rejected install of another user pays nothing.
    let clk2 = click(&app, &p, &id, "user-2").await;
    let (s, r2) = post_cb(
        &app,
        &path,
        &json!({"clickid": clk2, "event_id": "af-evt-2", "event_name": "install", "event_type": "rejected-install", "event_time": ts}),
        Some(&token),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{r2}");
    assert_eq!(app.balance(&adv).await.2, spent);
    // Fields still have to be valid after the mapping.
    let (s, e) = post_cb(
        &app,
        &path,
        &json!({"clickid": clk2, "event_name": "install", "event_type": "uninstall"}),
        Some(&token),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let fields = &e["error"]["fieldErrors"];
    assert!(
        fields["transaction_id"].is_string()
            && fields["status"].is_string()
            && fields["occurred_at"].is_string(),
        "{e}"
    );
}

async fn mmp_refusals(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let (id, token) = live_token_campaign(&app, &adv, &admin, "MMP:APPSFLYER").await;
    let (direct, direct_token) = live_token_campaign(&app, &adv, &admin, "DIRECT").await;
    let clk = click(&app, &p, &id, "user-1").await;
    let path = format!("{POSTBACKS}/mmp/{id}/appsflyer");
    let ts = occurred(&app);
    let body = json!({"click_id": clk, "transaction_id": "t-1", "goal_id": "install", "status": "approved", "occurred_at": ts});

    let (s, e) = post_cb(&app, &path, &body, None).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );
    let (s, e) = post_cb(&app, &path, &body, Some("mkt_mmp_not-the-token")).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::UNAUTHORIZED, "invalid_token")
    );
    // Another kind's token, as header or parameter.
    let (s, e) = post_cb(&app, &path, &body, Some(&direct_token)).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::UNAUTHORIZED, "invalid_token")
    );
    let (s, e) = get_cb(
        &app,
        &path,
        &[("token", direct_token.as_str()), ("click_id", clk.as_str())],
        None,
    )
    .await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::UNAUTHORIZED, "invalid_token")
    );
    // Another partner's path, an uncertified one, a non-MMP campaign, an unknown campaign.
    for wrong in [
        format!("{POSTBACKS}/mmp/{id}/adjust"),
        format!("{POSTBACKS}/mmp/{id}/tenjin"),
        format!("{POSTBACKS}/mmp/{direct}/appsflyer"),
        format!("{POSTBACKS}/mmp/cmp_missing/appsflyer"),
    ] {
        let (s, e) = post_cb(&app, &wrong, &body, Some(&token)).await;
        assert_eq!(
            (s, error_code(&e)),
            (StatusCode::NOT_FOUND, "not_found"),
            "{wrong}"
        );
    }
    // A DRAFT campaign does not take conversions, even with its token.
    let draft = create(&app, &adv, &campaign_body("MMP:ADJUST", 10 * USD)).await;
    let (_, draft_token) = token_for(&app, &adv, &draft, "MMP:ADJUST").await;
    let (s, e) = post_cb(
        &app,
        &format!("{POSTBACKS}/mmp/{draft}/adjust"),
        &body,
        Some(&draft_token),
    )
    .await;
    assert_eq!((s, error_code(&e)), (StatusCode::NOT_FOUND, "not_found"));
    // The IP allowlist applies.
    let (s, l) = app
        .put(
            &format!("{CAMPAIGNS}/{id}/tracking/ip-allowlist"),
            Some(&adv),
            &json!({"entries": ["203.0.113.0/24"]}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{l}");
    let (s, e) = post_cb(&app, &path, &body, Some(&token)).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::FORBIDDEN, "ip_not_allowed")
    );
    // A body that is neither JSON nor a form is refused in our error envelope.
    let res = app
        .client
        .post(app.url(&path))
        .header("X-Service-Token", &token)
        .header("Content-Type", "text/plain")
        .body("click_id=x");
    let (s, e) = answer(res).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::BAD_REQUEST, "unsupported_media_type")
    );
    assert_eq!(conversions(&app).await, 0);
    assert_eq!(app.balance(&adv).await.2, 0);
}

async fn mmp_feature_off_answers_404(app: TestApp) {
    let off = TestApp::spawn_with(app.backend, &["--feature-mmp-manual", "false"]).await;
    let (_, adv) = off.funded_advertiser(0).await;
    // Such a campaign cannot be created with the feature off: make one in the database.
    let id = create(&off, &adv, &campaign_body("CUSTOM_S2S", 10 * USD)).await;
    let db = &off.state.ctx.db;
    let m = entity::offer_campaign::Entity::find_by_id(id.clone())
        .one(db)
        .await
        .expect("query")
        .expect("campaign");
    let mut a = m.into_active_model();
    a.tracking_provider = Set("MMP:APPSFLYER".to_owned());
    a.status = Set(entity::values::CampaignStatus::Live);
    a.update(db).await.expect("update");
    let token = "mkt_mmp_feature_off_token_0001";
    entity::campaign_credential::ActiveModel {
        id: Set("ccr_off".to_owned()),
        campaign_id: Set(id.clone()),
        kind: Set(entity::values::TrackingKind::Mmp),
        key_id: Set("mmpk_off".to_owned()),
        secret_sealed: Set(None),
        token_hash: Set(Some(app::domain::crypto::sha256_hex(token))),
        status: Set(entity::values::CredentialStatus::Active),
        created_at: Set(off.clock_now()),
        retired_at: Set(None),
    }
    .insert(db)
    .await
    .expect("credential");
    let ts = occurred(&off);
    let path = format!("{POSTBACKS}/mmp/{id}/appsflyer");
    let q = [
        ("click_id", "clk_1"),
        ("transaction_id", "t-1"),
        ("goal_id", "install"),
        ("status", "approved"),
        ("occurred_at", ts.as_str()),
    ];
    let (s, e) = get_cb(&off, &path, &q, Some(token)).await;
    assert_eq!((s, error_code(&e)), (StatusCode::NOT_FOUND, "not_found"));
    let (s, e) = post_cb(&off, &path, &json!({"click_id": "clk_1"}), Some(token)).await;
    assert_eq!((s, error_code(&e)), (StatusCode::NOT_FOUND, "not_found"));
    // The sandbox refuses measurement-partner fixtures too.
    let (s, e) = sandbox(
        &off,
        Some("fixture-off-1"),
        None,
        &json!({"provider": "MMP:APPSFLYER", "event": {"clickid": "c"}}),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert!(e["error"]["fieldErrors"]["provider"].is_string(), "{e}");
    // With the feature on, the same request reaches the campaign check (here: unknown).
    let (s, _) = get_cb(&app, &path, &q, Some(token)).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

async fn direct_and_managed_settle_retry_and_conflict(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    for (n, provider) in ["DIRECT", "MANAGED"].into_iter().enumerate() {
        let (id, token) = live_token_campaign(&app, &adv, &admin, provider).await;
        let clk = click(&app, &p, &id, &format!("user-{n}")).await;
        let spent_before = app.balance(&adv).await.2;
        let path = format!("{POSTBACKS}/{}", provider.to_ascii_lowercase());
        let ts = rfc3339(&app);
        let txn = format!("order-{n}");
        let q = [
            ("click_id", clk.as_str()),
            ("transaction_id", txn.as_str()),
            ("goal_id", "install"),
            ("status", "approved"),
            ("occurred_at", ts.as_str()),
        ];
        let (s, r) = get_cb(&app, &path, &q, Some(&token)).await;
        assert_eq!(s, StatusCode::OK, "{provider}: {r}");
        assert_eq!(r["duplicate"], false);
        assert_eq!(
            app.balance(&adv).await.2,
            spent_before + 1_500_000,
            "{provider}"
        );
        let events = entity::postback_event::Entity::find()
            .all(&app.state.ctx.db)
            .await
            .expect("events");
        assert!(
            events
                .iter()
                .any(|e| e.source == provider && e.campaign_id == id),
            "{provider}"
        );

        // Exact retry: JSON body with the token field.
        let body = json!({"token": token, "click_id": clk, "transaction_id": txn, "goal_id": "install", "status": "approved", "occurred_at": ts});
        let (s, again) = post_cb(&app, &path, &body, None).await;
        assert_eq!(s, StatusCode::OK, "{again}");
        assert_eq!(
            (again["duplicate"].as_bool(), &again["receiptId"]),
            (Some(true), &r["receiptId"])
        );

        // Conflicting reuse of the transaction.
        let mut conflict = body.clone();
        conflict["goal_id"] = json!("level10");
        let (s, e) = post_cb(&app, &path, &conflict, None).await;
        assert_eq!(
            (s, error_code(&e)),
            (StatusCode::CONFLICT, "transaction_conflict"),
            "{provider}"
        );
        assert_eq!(app.balance(&adv).await.2, spent_before + 1_500_000);
    }
    assert_eq!(conversions(&app).await, 2);
}

async fn direct_and_managed_refusals(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let (direct, direct_token) = live_token_campaign(&app, &adv, &admin, "DIRECT").await;
    let (_, managed_token) = live_token_campaign(&app, &adv, &admin, "MANAGED").await;
    let (_, mmp_token) = live_token_campaign(&app, &adv, &admin, "MMP:BRANCH").await;
    let s2s = create(&app, &adv, &campaign_body("CUSTOM_S2S", 10 * USD)).await;
    let (s, key) = app
        .post(
            &format!("{CAMPAIGNS}/{s2s}/tracking/custom-s2s/credentials"),
            Some(&adv),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{key}");
    let s2s_secret = key["secret"].as_str().expect("secret").to_owned();
    let body = json!({"click_id": "clk_1", "transaction_id": "t-1", "goal_id": "install", "status": "approved", "occurred_at": rfc3339(&app)});
    let direct_path = format!("{POSTBACKS}/direct");
    let managed_path = format!("{POSTBACKS}/managed");

    for path in [&direct_path, &managed_path] {
        let (s, e) = post_cb(&app, path, &body, None).await;
        assert_eq!(
            (s, error_code(&e)),
            (StatusCode::UNAUTHORIZED, "unauthorized"),
            "{path}"
        );
        let (s, e) = get_cb(&app, path, &[("token", "mkt_drt_wrong")], None).await;
        assert_eq!(
            (s, error_code(&e)),
            (StatusCode::UNAUTHORIZED, "invalid_token"),
            "{path}"
        );
        for other in [&mmp_token, &s2s_secret] {
            let (s, e) = post_cb(&app, path, &body, Some(other)).await;
            assert_eq!(
                (s, error_code(&e)),
                (StatusCode::UNAUTHORIZED, "invalid_token"),
                "{path}"
            );
        }
    }
    // A direct token never opens /managed, nor a managed token /direct.
    let (s, e) = post_cb(&app, &managed_path, &body, Some(&direct_token)).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::UNAUTHORIZED, "invalid_token")
    );
    let (s, e) = post_cb(&app, &direct_path, &body, Some(&managed_token)).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::UNAUTHORIZED, "invalid_token")
    );
    // A DRAFT campaign's token is known but the campaign takes nothing yet.
    let draft = create(&app, &adv, &campaign_body("DIRECT", 10 * USD)).await;
    let (_, draft_token) = token_for(&app, &adv, &draft, "DIRECT").await;
    let (s, e) = post_cb(&app, &direct_path, &body, Some(&draft_token)).await;
    assert_eq!((s, error_code(&e)), (StatusCode::NOT_FOUND, "not_found"));
    // Invalid fields after authentication.
    let (s, e) = post_cb(
        &app,
        &direct_path,
        &json!({"click_id": "clk_1", "status": "done"}),
        Some(&direct_token),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert!(e["error"]["fieldErrors"]["status"].is_string(), "{e}");
    // The IP allowlist applies.
    let (s, _) = app
        .put(
            &format!("{CAMPAIGNS}/{direct}/tracking/ip-allowlist"),
            Some(&adv),
            &json!({"entries": ["198.51.100.7"]}),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let (s, e) = post_cb(&app, &direct_path, &body, Some(&direct_token)).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::FORBIDDEN, "ip_not_allowed")
    );
    assert_eq!(conversions(&app).await, 0);

    // With delivery switched off every callback route answers 404.
    let off = TestApp::spawn_with(app.backend, &["--feature-delivery", "false"]).await;
    for path in [
        format!("{POSTBACKS}/direct"),
        format!("{POSTBACKS}/managed"),
        format!("{POSTBACKS}/mmp/cmp_x/appsflyer"),
        SANDBOX.to_owned(),
    ] {
        let (s, e) = post_cb(&off, &path, &body, Some(&direct_token)).await;
        assert_eq!(
            (s, error_code(&e)),
            (StatusCode::NOT_FOUND, "not_found"),
            "{path}"
        );
        let (s, _) = get_cb(&off, &path, &[], None).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{path}");
    }
}

fn fixture(app: &TestApp) -> Value {
    json!({
        "provider": "MMP:APPSFLYER",
        "campaignId": "cmp_example",
        "event": {"clickid": "clk_fixture", "event_id": "evt-1", "event_name": "install", "event_type": "install", "event_time": app.clock_now().timestamp_millis()},
        "headers": {"X-Service-Token": "mkt_mmp_sample"},
        "callbackUrl": format!("{}/performance-marketing/v2/postbacks/mmp/cmp_example/appsflyer", app.state.ctx.config.base_url),
    })
}

async fn sandbox_records_fixtures_once(app: TestApp) {
    let body = fixture(&app);
    let (s, r) = sandbox(&app, Some("fixture:0001"), None, &body).await;
    assert_eq!(s, StatusCode::ACCEPTED, "{r}");
    assert_eq!(
        (r["sandbox"].as_bool(), r["duplicate"].as_bool()),
        (Some(true), Some(false))
    );
    let event_id = r["eventId"].as_str().expect("eventId").to_owned();
    assert_eq!(r["provider"], "MMP:APPSFLYER");
    let n = &r["normalized"];
    assert_eq!(
        (
            n["click_id"].as_str(),
            n["transaction_id"].as_str(),
            n["status"].as_str()
        ),
        (Some("clk_fixture"), Some("evt-1"), Some("approved"))
    );
    assert_eq!(
        n["occurred_at"],
        app.clock_now()
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
            .as_str()
    );

    // An identical retry (any key order) answers 200 with the same event.
    let reordered: Value = serde_json::from_str(
        &serde_json::to_string(&json!({
            "event": body["event"], "callbackUrl": body["callbackUrl"], "headers": body["headers"],
            "campaignId": body["campaignId"], "provider": body["provider"],
        }))
        .expect("json"),
    )
    .expect("json");
    let (s, again) = sandbox(&app, Some("fixture:0001"), None, &reordered).await;
    assert_eq!(s, StatusCode::OK, "{again}");
    assert_eq!(
        (again["duplicate"].as_bool(), again["eventId"].as_str()),
        (Some(true), Some(event_id.as_str()))
    );
    // The same key with another body is a conflict.
    let mut other = body.clone();
    other["event"]["event_id"] = json!("evt-2");
    let (s, e) = sandbox(&app, Some("fixture:0001"), None, &other).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "idempotency_conflict")
    );
    // Keys are scoped: an advertiser's bearer has its own key space.
    let (_, adv) = app.signed_in(Role::Advertiser).await;
    let (s, mine) = sandbox(&app, Some("fixture:0001"), Some(&adv), &other).await;
    assert_eq!(s, StatusCode::ACCEPTED, "{mine}");
    assert_ne!(mine["eventId"], r["eventId"]);
    let (s, e) = sandbox(
        &app,
        Some("fixture:0002"),
        Some("mkt_not_a_session"),
        &other,
    )
    .await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );

    // Every kind of route: Custom S2S (values as sent), direct and managed (canonical).
    for (i, provider) in ["CUSTOM_S2S", "DIRECT", "managed"].into_iter().enumerate() {
        let f = json!({"provider": provider, "event": {"click_id": "clk_1", "transaction_id": format!("t-{i}"), "goal_id": "install", "status": "pending", "occurred_at": "2026-03-02T09:00:00Z"}});
        let (s, r) = sandbox(&app, Some(&format!("fixture-kind-{i}")), None, &f).await;
        assert_eq!(s, StatusCode::ACCEPTED, "{provider}: {r}");
        assert_eq!(r["provider"], provider.to_ascii_uppercase());
    }
    // Nothing was paid, ledgered, settled or queued.
    let db = &app.state.ctx.db;
    assert_eq!(conversions(&app).await, 0);
    assert_eq!(
        entity::postback_event::Entity::find()
            .count(db)
            .await
            .expect("count"),
        0
    );
    assert_eq!(
        entity::ledger_entry::Entity::find()
            .count(db)
            .await
            .expect("count"),
        0
    );
    assert_eq!(
        entity::callback_delivery::Entity::find()
            .count(db)
            .await
            .expect("count"),
        0
    );
    assert_eq!(
        entity::sandbox_callback::Entity::find()
            .count(db)
            .await
            .expect("count"),
        5
    );
}

async fn sandbox_refusals(app: TestApp) {
    let body = fixture(&app);
    for key in [
        None,
        Some("short"),
        Some("has spaces in it"),
        Some(&*"k".repeat(121)),
    ] {
        let (s, e) = sandbox(&app, key, None, &body).await;
        assert_eq!(
            (s, error_code(&e)),
            (StatusCode::BAD_REQUEST, "invalid_input"),
            "{key:?}"
        );
        assert!(
            e["error"]["fieldErrors"]["Idempotency-Key"].is_string(),
            "{e}"
        );
    }
    // Any URL off this service is refused, wherever it is.
    for (path, value) in [
        ("callbackUrl", "https://hooks.example.net/reward"),
        ("destinationUrl", "ftp://files.example.net/x"),
        ("headers.Referer", "http://evil.example/"),
        ("event.clickid", "HTTPS://evil.example/steal"),
    ] {
        let mut f = body.clone();
        let target = match path.split_once('.') {
            Some((a, b)) => &mut f[a][b],
            None => &mut f[path],
        };
        *target = json!(value);
        let (s, e) = sandbox(&app, Some("fixture-url-1"), None, &f).await;
        assert_eq!(
            (s, error_code(&e)),
            (StatusCode::BAD_REQUEST, "external_url_refused"),
            "{path}: {e}"
        );
        assert!(e["error"]["fieldErrors"][path].is_string(), "{e}");
    }
    let mut sneaky = body.clone();
    sneaky["callbackUrl"] = json!(format!(
        "http://user@{}/x",
        app.state.ctx.config.base_url.trim_start_matches("http://")
    ));
    let (s, e) = sandbox(&app, Some("fixture-url-2"), None, &sneaky).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::BAD_REQUEST, "external_url_refused"),
        "{e}"
    );
    // The fixture is validated like the real route validates it.
    let (s, e) = sandbox(
        &app,
        Some("fixture-bad-1"),
        None,
        &json!({"provider": "MMP:TENJIN", "event": {}}),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert!(e["error"]["fieldErrors"]["provider"].is_string(), "{e}");
    let (s, e) = sandbox(&app, Some("fixture-bad-2"), None, &json!({"provider": "CUSTOM_S2S", "event": {"click_id": "c", "transaction_id": "t", "goal_id": "g", "status": "approved", "occurred_at": "1772442000"}})).await;
    assert_eq!(
        s,
        StatusCode::BAD_REQUEST,
        "Custom S2S takes ISO 8601 only: {e}"
    );
    assert!(
        e["error"]["fieldErrors"]["event.occurred_at"].is_string(),
        "{e}"
    );
    let (s, e) = sandbox(
        &app,
        Some("fixture-bad-3"),
        None,
        &json!({"provider": "DIRECT"}),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert!(e["error"]["fieldErrors"]["event"].is_string(), "{e}");
    let (s, e) = sandbox(
        &app,
        Some("fixture-bad-4"),
        None,
        &json!(["not", "an", "object"]),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert_eq!(
        entity::sandbox_callback::Entity::find()
            .count(&app.state.ctx.db)
            .await
            .expect("count"),
        0
    );

    // Production has no sandbox.
    let prod = TestApp::spawn_with(
        app.backend,
        &[
            "--environment",
            "production",
            "--base-url",
            "https://ads.example",
            "--mail-url",
            "off",
        ],
    )
    .await;
    let (s, e) = sandbox(&prod, Some("fixture:0001"), None, &fixture(&prod)).await;
    assert_eq!((s, error_code(&e)), (StatusCode::NOT_FOUND, "not_found"));
}

async fn openapi_documents_the_callback_routes(app: TestApp) {
    let (s, doc) = app.get("/openapi.json", None).await;
    assert_eq!(s, StatusCode::OK);
    let paths = doc["paths"].as_object().expect("paths");
    let mut ids: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for item in paths.values() {
        for op in item.as_object().expect("item").values() {
            if let Some(id) = op.get("operationId").and_then(Value::as_str) {
                *ids.entry(id.to_owned()).or_default() += 1;
            }
        }
    }
    let mine = [
        (
            "/performance-marketing/v2/postbacks/mmp/{campaignId}/{provider}",
            ["get", "post"].as_slice(),
        ),
        (
            "/performance-marketing/v2/postbacks/direct",
            &["get", "post"],
        ),
        (
            "/performance-marketing/v2/postbacks/managed",
            &["get", "post"],
        ),
        (
            "/performance-marketing/v2/postbacks/custom-s2s/{campaignId}",
            &["get", "post"],
        ),
        ("/performance-marketing/v2/sandbox/callbacks", &["post"]),
    ];
    for (path, methods) in mine {
        for m in methods {
            let op = &doc["paths"][path][m];
            let id = op["operationId"]
                .as_str()
                .unwrap_or_else(|| panic!("{m} {path}"));
            assert_eq!(
                ids.get(id),
                Some(&1),
                "operationId {id} of {m} {path} is not unique"
            );
            for (status, r) in op["responses"].as_object().expect("responses") {
                assert!(
                    r["description"].as_str().is_some_and(|d| !d.is_empty()),
                    "{m} {path} {status}"
                );
            }
        }
    }
    let mmp = doc["paths"]["/performance-marketing/v2/postbacks/mmp/{campaignId}/{provider}"]["get"]["description"]
        .as_str()
        .unwrap_or_default();
    assert!(
        mmp.contains("| `appsflyer` | `clickid` |") && mmp.contains("X-Service-Token"),
        "{mmp}"
    );
    let direct = doc["paths"]["/performance-marketing/v2/postbacks/direct"]["post"].to_string();
    assert!(
        direct.contains("X-Service-Token") && direct.contains("token"),
        "{direct}"
    );
}

/// Signs the browser client in with the cookie session (the form, without JavaScript).
async fn tracking_page_explains_token_and_partner_names(app: TestApp) {
    let (user, adv) = app.funded_advertiser(0).await;
    let mmp = create(&app, &adv, &campaign_body("MMP:ADJUST", 10 * USD)).await;
    let direct = create(&app, &adv, &campaign_body("DIRECT", 10 * USD)).await;
    app.browser_sign_in(&app.client, &user).await;
    let page = |id: String| {
        let app = &app;
        async move {
            let res = app
                .client
                .get(app.url(&format!("/advertiser/campaigns/{id}/tracking")))
                .send()
                .await
                .expect("page");
            assert_eq!(res.status(), StatusCode::OK);
            res.text().await.unwrap_or_default()
        }
    };
    let html = page(mmp).await;
    assert!(
        html.contains("X-Service-Token") && html.contains("campaign token"),
        "token line missing"
    );
    assert!(
        html.contains("click_id or label") && html.contains("status or activity_kind"),
        "partner names missing"
    );
    let html = page(direct).await;
    assert!(
        html.contains("X-Service-Token") && html.contains("direct token"),
        "token line missing"
    );
    assert!(!html.contains("Partner parameter names"));
}
