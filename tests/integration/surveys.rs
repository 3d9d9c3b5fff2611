//! The signed survey campaign API (X-Api-Key + enc) and paying survey campaigns from the
//! wallet: allocation rules, idempotency, external payments and the older invoices route.

use app::domain::surveys::signature::{digest, signed_input};
use reqwest::StatusCode;
use serde_json::json;
use tests::builders::surveys::*;
use tests::{TestApp, both_backends, error_code};

both_backends!(
    survey_api_requires_a_valid_signature,
    survey_campaign_crud_and_validation,
    allocations_pay_survey_campaigns_once,
);

async fn survey_api_requires_a_valid_signature(app: TestApp) {
    let (user, t) = app.funded_advertiser(0).await;
    let key = issue_key(&app, &t, "SHA256").await;
    let body = survey("Brand tracker wave 1");
    let (s, c) = call(
        &app,
        &key,
        reqwest::Method::POST,
        "/api/v1/campaigns/create",
        Some(&body),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{c}");
    assert!(c["message"].is_string());
    assert_eq!(c["campaign"]["name"], "Brand tracker wave 1");
    assert_eq!(c["creator"]["_id"], user.account_id.as_str());
    assert!(c["creator"]["test_redirect_url"].is_string());

    let list = "/api/v1/campaigns/getcampaigns";
    assert_eq!(
        call(&app, &key, reqwest::Method::GET, list, None).await.1["count"],
        1
    );
    // Missing key, unknown key, wrong signature, an extra query parameter, a changed body.
    let res = app.client.get(app.url(list)).send().await.expect("sent");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let unknown = Key {
        api_key: "mkt_sak_unknown".into(),
        secret: key.secret.clone(),
        kind: key.kind,
    };
    assert_eq!(
        call(&app, &unknown, reqwest::Method::GET, list, None)
            .await
            .0,
        StatusCode::UNAUTHORIZED
    );
    let wrong = Key {
        api_key: key.api_key.clone(),
        secret: "not the secret".into(),
        kind: key.kind,
    };
    let (s, e) = call(&app, &wrong, reqwest::Method::GET, list, None).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&e), "invalid_signature");
    let (s, _) = signed(&app, &key, reqwest::Method::GET, list, None, |u| {
        format!("{u}&page=2")
    })
    .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let (s, _) = signed(&app, &key, reqwest::Method::GET, list, None, |u| {
        u.replace("getcampaigns", "invoices")
    })
    .await;
    assert_eq!(
        s,
        StatusCode::UNAUTHORIZED,
        "a signature is bound to its URL"
    );
    let url = app.url("/api/v1/campaigns/create");
    let enc = digest(
        key.kind,
        &signed_input(&url, body.to_string().as_bytes(), &key.secret),
    );
    let res = app
        .client
        .post(format!("{url}?enc={enc}"))
        .header("X-Api-Key", &key.api_key)
        .header("Content-Type", "application/json")
        .body(survey("Brand tracker wave 2").to_string())
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED, "the body is signed");
    // A dashboard token is not an API key.
    let dash = Key {
        api_key: t.clone(),
        secret: key.secret.clone(),
        kind: key.kind,
    };
    assert_eq!(
        call(&app, &dash, reqwest::Method::GET, list, None).await.0,
        StatusCode::UNAUTHORIZED
    );

    // SHA-1 and SHA3-256 keys; a new key retires the old one.
    for kind in ["SHA1", "SHA3-256"] {
        let k = issue_key(&app, &t, kind).await;
        assert_eq!(
            call(&app, &k, reqwest::Method::GET, list, None).await.0,
            StatusCode::OK,
            "{kind}"
        );
    }
    assert_eq!(
        call(&app, &key, reqwest::Method::GET, list, None).await.0,
        StatusCode::UNAUTHORIZED
    );
}

async fn survey_campaign_crud_and_validation(app: TestApp) {
    let (_, t) = app.funded_advertiser(0).await;
    let key = issue_key(&app, &t, "SHA3-256").await;
    let mut bad = survey("abc");
    bad["survey_test_link"] = json!("https://survey.example/test?tid=1");
    bad["cpi"] = json!(0.0000001);
    let (s, e) = call(
        &app,
        &key,
        reqwest::Method::POST,
        "/api/v1/campaigns/create",
        Some(&bad),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert_eq!(error_code(&e), "invalid_input");
    let (s, e) = call(
        &app,
        &key,
        reqwest::Method::POST,
        "/api/v1/campaigns/create",
        Some(&json!({"name": "abc"})),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let fe = &e["error"]["fieldErrors"];
    assert!(
        fe["name"].is_string()
            && fe["survey_live_link"].is_string()
            && fe["country_language_id"].is_string(),
        "{e}"
    );

    let id = create(&app, &key, &survey("Brand tracker wave 1")).await;
    let path = format!("/api/v1/campaigns/{id}");
    let (s, c) = call(&app, &key, reqwest::Method::GET, &path, None).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(
        (c["status"].as_str(), c["payment_status"].as_str()),
        (Some("DRAFT"), Some("UNPAID"))
    );
    assert_eq!(
        (
            c["cpi_micros"].as_i64(),
            c["estimated_cost_micros"].as_i64()
        ),
        (Some(2_500_000), Some(250 * USD))
    );
    assert_eq!(c["cpi"], "2.500000");

    let (s, c) = call(
        &app,
        &key,
        reqwest::Method::PUT,
        &path,
        Some(&json!({"total_completes": 40, "status": "PENDINGAPPROVAL"})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(
        (c["status"].as_str(), c["estimated_cost_micros"].as_i64()),
        (Some("PENDINGAPPROVAL"), Some(100 * USD))
    );
    assert_eq!(c["name"], "Brand tracker wave 1", "unnamed fields are kept");
    let (s, e) = call(
        &app,
        &key,
        reqwest::Method::PUT,
        &path,
        Some(&json!({"survey_live_link": "https://survey.example/x"})),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let (s, e) = call(
        &app,
        &key,
        reqwest::Method::PUT,
        &path,
        Some(&json!({"status": "LIVE"})),
    )
    .await;
    assert_eq!(s, StatusCode::CONFLICT, "only an administrator approves");
    assert_eq!(error_code(&e), "invalid_transition");

    // Another advertiser's key cannot see it.
    let (_, t2) = app.funded_advertiser(0).await;
    let other = issue_key(&app, &t2, "SHA256").await;
    assert_eq!(
        call(&app, &other, reqwest::Method::GET, &path, None)
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        call(&app, &other, reqwest::Method::DELETE, &path, None)
            .await
            .0,
        StatusCode::NOT_FOUND
    );

    let (s, m) = call(&app, &key, reqwest::Method::DELETE, &path, None).await;
    assert_eq!(s, StatusCode::OK, "{m}");
    assert_eq!(
        call(&app, &key, reqwest::Method::GET, &path, None).await.0,
        StatusCode::NOT_FOUND
    );
}

async fn allocations_pay_survey_campaigns_once(app: TestApp) {
    let app = &app;
    let (user, t) = app.funded_advertiser(200 * USD).await;
    let admin = app.admin_token().await;
    let key = issue_key(app, &t, "SHA256").await;
    let id = create(app, &key, &survey("Brand tracker wave 1")).await;
    let allocate = format!("/performance-marketing/v2/billing/survey-campaigns/{id}/allocate");
    let w = Allocation {
        advertiser_id: user.account_id.clone(),
        t,
        admin,
        key,
        id,
        allocate,
    };
    an_allocation_waits_for_funds_then_reserves_once(app, &w).await;
    strangers_are_refused_and_approval_goes_live(app, &w).await;
    a_campaign_paid_outside_the_wallet_is_never_charged(app, &w).await;
    no_cost_reserves_nothing_and_old_invoices_agree(app, &w).await;
}

/// An advertiser with 200 USD, a survey API key and a campaign estimated at 250 USD.
struct Allocation {
    advertiser_id: String,
    t: String,
    admin: String,
    key: Key,
    id: String,
    allocate: String,
}

/// 250 USD estimated against 200 available is refused; after another wire the allocation
/// succeeds exactly once.
async fn an_allocation_waits_for_funds_then_reserves_once(app: &TestApp, w: &Allocation) {
    let (t, admin, key, id, allocate) = (
        w.t.as_str(),
        w.admin.as_str(),
        &w.key,
        w.id.as_str(),
        w.allocate.as_str(),
    );
    // 250 USD estimated against 200 available.
    let (s, e) = app.post(allocate, Some(t), &json!({})).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&e), "insufficient_balance");
    assert_eq!(app.balance(&t).await, (200 * USD, 0, 0));
    let (s, e) = app.approve_survey(admin, &id, &json!({})).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&e), "campaign_not_funded");

    // Another wire, then the allocation succeeds exactly once.
    let (s, f) = app
        .post(
            "/performance-marketing/v2/billing/funding/wire",
            Some(t),
            &json!({"amount": 100 * USD, "currency": "USD", "externalReference": "WIRE-SECOND"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{f}");
    app.post(
        &format!(
            "/admin/v1/funding/{}/approve",
            f["fundingId"].as_str().expect("id")
        ),
        Some(admin),
        &json!({}),
    )
    .await;
    let (s, a) = app.post(allocate, Some(t), &json!({})).await;
    assert_eq!(s, StatusCode::CREATED, "{a}");
    assert_eq!(
        (a["amountMicros"].as_i64(), a["campaignId"].as_str()),
        (Some(250 * USD), Some(id))
    );
    assert_eq!(app.balance(&t).await, (50 * USD, 250 * USD, 0));
    let (s, again) = app.post(allocate, Some(t), &json!({})).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(again["allocationId"], a["allocationId"]);
    assert_eq!(
        app.balance(&t).await,
        (50 * USD, 250 * USD, 0),
        "never charged twice"
    );
    let (_, list) = app
        .get("/performance-marketing/v2/billing/allocations", Some(t))
        .await;
    assert_eq!(list["items"].as_array().map(Vec::len), Some(1));
    let (_, c) = call(
        app,
        key,
        reqwest::Method::GET,
        &format!("/api/v1/campaigns/{id}"),
        None,
    )
    .await;
    assert_eq!(c["payment_status"], "PAID_WALLET");
    let (s, e) = call(
        app,
        key,
        reqwest::Method::PUT,
        &format!("/api/v1/campaigns/{id}"),
        Some(&json!({"cpi": "3.00"})),
    )
    .await;
    assert_eq!(s, StatusCode::CONFLICT, "paid cost fields are frozen: {e}");
}

/// Unowned campaigns are not found; administrators may allocate for the owner. Approval
/// makes the funded campaign LIVE; closing it returns the unused reserve.
async fn strangers_are_refused_and_approval_goes_live(app: &TestApp, w: &Allocation) {
    let (t, admin, key, id, allocate) = (
        w.t.as_str(),
        w.admin.as_str(),
        &w.key,
        w.id.as_str(),
        w.allocate.as_str(),
    );
    // Unowned campaigns are not found; administrators may allocate for the owner.
    let (_, stranger) = app.funded_advertiser(500 * USD).await;
    assert_eq!(
        app.post(allocate, Some(&stranger), &json!({})).await.0,
        StatusCode::NOT_FOUND
    );

    // Approval makes the funded campaign LIVE; closing it returns the unused reserve.
    let (s, c) = app.approve_survey(admin, &id, &json!({})).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(c["status"], "LIVE");
    let (s, c) = call(
        app,
        key,
        reqwest::Method::PUT,
        &format!("/api/v1/campaigns/{id}"),
        Some(&json!({"status": "CLOSED"})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(app.balance(&t).await, (300 * USD, 0, 0));
}

/// Paid outside the wallet: refused, never charged.
async fn a_campaign_paid_outside_the_wallet_is_never_charged(app: &TestApp, w: &Allocation) {
    let (admin, key) = (w.admin.as_str(), &w.key);
    // Paid outside the wallet: refused, never charged.
    let ext = create(app, key, &survey("Brand tracker wave 2")).await;
    let (s, c) = app
        .post(
            &format!("/admin/v1/survey-campaigns/{ext}/external-payment"),
            Some(admin),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    let (s, e) = app
        .post(
            &format!("/performance-marketing/v2/billing/survey-campaigns/{ext}/allocate"),
            Some(admin),
            &json!({"advertiserId": w.advertiser_id}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&e), "paid_outside_wallet");
    assert_eq!(
        app.approve_survey(admin, &ext, &json!({})).await.0,
        StatusCode::OK
    );
}

/// No estimated cost: nothing to reserve. The older invoices route serves the same invoices
/// to signed callers.
async fn no_cost_reserves_nothing_and_old_invoices_agree(app: &TestApp, w: &Allocation) {
    let (t, key) = (w.t.as_str(), &w.key);
    // No estimated cost: nothing to reserve.
    let mut no_cost = survey("Brand tracker wave 3");
    no_cost
        .as_object_mut()
        .expect("object")
        .remove("total_completes");
    let nc = create(app, key, &no_cost).await;
    let (s, e) = app
        .post(
            &format!("/performance-marketing/v2/billing/survey-campaigns/{nc}/allocate"),
            Some(t),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&e), "estimated_cost_not_positive");
    let (s, _) = app
        .post(
            "/performance-marketing/v2/billing/survey-campaigns/svc_missing/allocate",
            Some(t),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    // The older invoices route serves the same invoices to signed callers.
    let (s, legacy) = call(
        app,
        key,
        reqwest::Method::GET,
        "/api/v1/campaigns/invoices",
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{legacy}");
    let (_, current) = app
        .get("/performance-marketing/v2/billing/invoices", Some(t))
        .await;
    assert_eq!(legacy, current);
    assert_eq!(legacy["items"][0]["fundedMicros"], 300 * USD);
}
