//! A survey paid with only the fields the specification defines (issue 27): the cost comes
//! from the quotas' `num_respondents`, the numbers are numbers, and paying fixes the plan.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tests::{TestApp, both_backends, error_code};

use tests::builders::surveys::{USD, call, create, issue_key};

both_backends!(
    a_survey_is_paid_from_its_quotas,
    survey_numbers_take_decimals
);

/// The specification's create body: no `total_completes`.
fn spec_survey(name: &str) -> Value {
    json!({
        "name": name,
        "country_language_id": "en-US",
        "cpi": 1.25,
        "length_of_interview": 7.5,
        "conversion": 33.3,
        "start_date": "2026-03-02",
        "end_date": "2026-04-30",
        "survey_live_link": "https://survey.example/live?tid={transaction_id}",
        "survey_test_link": "https://survey.example/test?tid={transaction_id}",
        "max_daily_completes": 50,
        "supported_devices": ["desktop", "mobile"]
    })
}

async fn a_survey_is_paid_from_its_quotas(app: TestApp) {
    let (_, t) = app.funded_advertiser(200 * USD).await;
    let key = issue_key(&app, &t, "SHA256").await;
    let id = create(&app, &key, &spec_survey("Spec-only survey")).await;
    let base = format!("/api/v1/campaigns/{id}");
    let allocate = format!("/performance-marketing/v2/billing/survey-campaigns/{id}/allocate");

    // No quota yet: nothing to pay, and the refusal names the specification's fields.
    let (s, e) = app.post(&allocate, Some(&t), &json!({})).await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert_eq!(error_code(&e), "estimated_cost_not_positive");
    let msg = e["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("num_respondents") && msg.contains("cpi"),
        "{msg}"
    );

    // Two quotas of 20 and 12: 32 completes at 1.25 USD.
    for (name, n) in [("Women", 20), ("Men", 12)] {
        let (s, q) = call(
            &app,
            &key,
            Method::POST,
            &format!("{base}/campaignsquota"),
            Some(&json!({"name": name, "num_respondents": n})),
        )
        .await;
        assert_eq!(s, StatusCode::CREATED, "{q}");
    }
    let (_, c) = call(&app, &key, Method::GET, &base, None).await;
    assert_eq!(c["planned_completes"], 32, "{c}");
    assert_eq!(c["estimated_cost_micros"], 40 * USD, "{c}");
    assert!(c["total_completes"].is_null(), "{c}");

    let (s, a) = app.post(&allocate, Some(&t), &json!({})).await;
    assert_eq!(s, StatusCode::CREATED, "{a}");
    assert_eq!(app.balance(&t).await, (160 * USD, 40 * USD, 0));

    // Paying fixed the plan: a wider quota no longer changes the plan or the cost.
    let (_, c) = call(&app, &key, Method::GET, &base, None).await;
    assert_eq!(c["total_completes"], 32, "{c}");
    let (_, quotas) = call(
        &app,
        &key,
        Method::GET,
        &format!("{base}/getcampaignquota"),
        None,
    )
    .await;
    let quota = quotas["campaignQuotas"][0]["_id"]
        .as_str()
        .or_else(|| quotas["items"][0]["_id"].as_str())
        .unwrap_or_default()
        .to_owned();
    assert!(!quota.is_empty(), "{quotas}");
    let (s, q) = call(
        &app,
        &key,
        Method::PUT,
        &format!("{base}/campaignsquota/{quota}"),
        Some(&json!({"num_respondents": 80})),
    )
    .await;
    assert!(s.is_success(), "{q}");
    let (_, c) = call(&app, &key, Method::GET, &base, None).await;
    assert_eq!(c["planned_completes"], 32, "{c}");
    assert_eq!(c["estimated_cost_micros"], 40 * USD, "{c}");
    // A repeated allocation is the first one; the balance does not move.
    let (s, _) = app.post(&allocate, Some(&t), &json!({})).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(app.balance(&t).await, (160 * USD, 40 * USD, 0));
}

async fn survey_numbers_take_decimals(app: TestApp) {
    let (_, t) = app.funded_advertiser(100 * USD).await;
    let key = issue_key(&app, &t, "SHA256").await;
    let id = create(&app, &key, &spec_survey("Decimal numbers")).await;
    let base = format!("/api/v1/campaigns/{id}");
    let (_, c) = call(&app, &key, Method::GET, &base, None).await;
    assert_eq!(c["length_of_interview"], 7.5, "{c}");
    assert_eq!(c["conversion"], 33.3, "{c}");

    // Whole numbers stay whole; zero, negatives and values out of range are 400.
    let (s, c) = call(
        &app,
        &key,
        Method::PUT,
        &base,
        Some(&json!({"length_of_interview": 12})),
    )
    .await;
    assert!(s.is_success(), "{c}");
    let (_, c) = call(&app, &key, Method::GET, &base, None).await;
    assert_eq!(c["length_of_interview"], 12, "{c}");
    for (field, bad) in [
        ("length_of_interview", json!(0)),
        ("length_of_interview", json!(-2.5)),
        ("conversion", json!(100.5)),
        ("conversion", json!("forty")),
    ] {
        let (s, e) = call(&app, &key, Method::PUT, &base, Some(&json!({field: bad}))).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{field}={bad}: {e}");
    }
}
