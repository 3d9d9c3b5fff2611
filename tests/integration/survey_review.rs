//! Survey campaigns after review and payment: an approval names the revision it reviewed, an
//! edit under review withdraws the campaign, paid cost fields are frozen, a LIVE campaign
//! never returns to DRAFT, and the timestamped signing mode refuses stale requests.

use app::domain::Clock as _;
use app::domain::surveys::signature::{digest, signed_input_at};
use reqwest::{Method, StatusCode};
use serde_json::json;
use tests::{TestApp, both_backends, error_code};

use tests::builders::surveys::{USD, call, create, issue_key, survey, survey_status};

both_backends!(
    survey_approval_names_the_reviewed_revision,
    paid_survey_cost_is_frozen_and_live_never_returns_to_draft,
    timestamped_survey_signatures_refuse_stale_requests,
);

async fn survey_approval_names_the_reviewed_revision(app: TestApp) {
    let (_, t) = app.funded_advertiser(500 * USD).await;
    let admin = app.admin_token().await;
    let key = issue_key(&app, &t, "SHA256").await;
    let id = create(&app, &key, &survey("Brand tracker wave 1")).await;
    let path = format!("/api/v1/campaigns/{id}");
    let (s, c) = call(&app, &key, Method::GET, &path, None).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(c["revision"], 1);

    let (s, c) = survey_status(&app, &key, &path, "PENDINGAPPROVAL").await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(
        (c["status"].as_str(), c["revision"].as_i64()),
        (Some("PENDINGAPPROVAL"), Some(1))
    );
    let (s, a) = app
        .post(
            &format!("/performance-marketing/v2/billing/survey-campaigns/{id}/allocate"),
            Some(&t),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{a}");

    // The administrator looks at revision 1; the advertiser swaps the live link meanwhile.
    let (s, c) = call(
        &app,
        &key,
        Method::PUT,
        &path,
        Some(&json!({"survey_live_link": "https://other.example/live?tid={transaction_id}"})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(
        c["status"], "DRAFT",
        "an edit under review withdraws the campaign"
    );
    assert_eq!(c["revision"], 2);
    let (s, c) = survey_status(&app, &key, &path, "PENDINGAPPROVAL").await;
    assert_eq!(s, StatusCode::OK, "{c}");
    let approve = format!("/admin/v1/survey-campaigns/{id}/approve");
    let (s, e) = app
        .post(&approve, Some(&admin), &json!({"revision": 1}))
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert_eq!(error_code(&e), "revision_changed");
    let (s, c) = app
        .post(&approve, Some(&admin), &json!({"revision": 2}))
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(c["status"], "LIVE");
    assert_eq!(
        c["survey_live_link"],
        "https://other.example/live?tid={transaction_id}"
    );
}

async fn paid_survey_cost_is_frozen_and_live_never_returns_to_draft(app: TestApp) {
    let (_, t) = app.funded_advertiser(500 * USD).await;
    let admin = app.admin_token().await;
    let key = issue_key(&app, &t, "SHA3-256").await;
    let id = create(&app, &key, &survey("Brand tracker wave 2")).await;
    let path = format!("/api/v1/campaigns/{id}");
    let (s, a) = app
        .post(
            &format!("/performance-marketing/v2/billing/survey-campaigns/{id}/allocate"),
            Some(&t),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{a}");
    for edit in [
        json!({"cpi": "3.00"}),
        json!({"total_completes": 500}),
        json!({"cpi": 1, "name": "Cheaper now"}),
    ] {
        let (s, e) = call(&app, &key, Method::PUT, &path, Some(&edit)).await;
        assert_eq!(s, StatusCode::CONFLICT, "{edit}: {e}");
        assert_eq!(error_code(&e), "campaign_not_editable");
    }
    // Repeating the paid values is no change.
    let (s, c) = call(
        &app,
        &key,
        Method::PUT,
        &path,
        Some(&json!({"cpi": 2.5, "total_completes": 100, "name": "Brand tracker wave 2b"})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(c["cpi_micros"], 2_500_000);
    assert_eq!(app.balance(&t).await, (250 * USD, 250 * USD, 0));

    let (s, c) = app.approve_survey(&admin, &id, &json!({})).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    for status in ["DRAFT", "PENDINGAPPROVAL"] {
        let (s, e) = call(
            &app,
            &key,
            Method::PUT,
            &path,
            Some(&json!({ "status": status })),
        )
        .await;
        assert_eq!(s, StatusCode::CONFLICT, "LIVE → {status}: {e}");
        assert_eq!(error_code(&e), "invalid_transition");
    }
    let (s, e) = call(
        &app,
        &key,
        Method::PUT,
        &path,
        Some(&json!({"name": "Renamed live"})),
    )
    .await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "campaign_not_editable"),
        "{e}"
    );
    let (_, c) = call(&app, &key, Method::GET, &path, None).await;
    assert_eq!(c["status"], "LIVE");
}

async fn timestamped_survey_signatures_refuse_stale_requests(app: TestApp) {
    let (_, t) = app.funded_advertiser(0).await;
    let key = issue_key(&app, &t, "SHA256").await;
    let url = app.url("/api/v1/campaigns/getcampaigns");
    let send = |stamp: i64, signed_stamp: i64| {
        let enc = digest(
            key.kind,
            &signed_input_at(&url, b"", &signed_stamp.to_string(), &key.secret),
        );
        app.client
            .get(format!("{url}?enc={enc}"))
            .header("X-Api-Key", &key.api_key)
            .header("X-Request-Timestamp", stamp.to_string())
            .send()
    };
    let now = app.clock.now().timestamp();
    let res = send(now, now).await.expect("sent");
    assert_eq!(res.status(), StatusCode::OK);
    // A different timestamp than the one signed, or one outside five minutes, is refused.
    let res = send(now + 1, now).await.expect("sent");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let res = send(now - 301, now - 301).await.expect("sent");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let body: serde_json::Value = res.json().await.expect("json");
    assert_eq!(error_code(&body), "invalid_signature");
    let res = send(now + 200, now + 200).await.expect("sent");
    assert_eq!(res.status(), StatusCode::OK);
}
