//! The survey demand path end to end: a funded, approved survey with a quota is fetched by a
//! publisher's server with its app key, the respondent follows SurveyUrl to the advertiser's
//! live link, the advertiser reports a complete through the signed API, the wallet pays the
//! CPI from the reservation and the publisher's reward callback is queued. Also every fetch
//! refusal of the specification and the fraud score.

use reqwest::{Method, StatusCode};
use serde_json::json;
use tests::builders::surveys::*;
use tests::{TestApp, both_backends, error_code};

use tests::builders::USD;

both_backends!(
    a_fetched_survey_is_entered_completed_and_paid,
    survey_fetch_refusals_and_profiles,
    fraud_blocks_shared_devices_and_verifies_medium_risk,
    test_links_run_without_money_with_every_algorithm,
    every_algorithm_pays_once_and_a_full_quota_stops_the_survey,
    every_profiling_key_spelling_is_read,
);

async fn a_fetched_survey_is_entered_completed_and_paid(app: TestApp) {
    let app = &app;
    let (m, tx, reserved_before) = a_qualified_respondent_enters_once(app).await;
    let path = format!("/api/v1/campaigns/{}/respondent-status", m.campaign);
    a_forged_complete_is_refused(app, &m, &tx, reserved_before).await;
    the_reported_complete_is_paid_once(app, &m, &tx, reserved_before).await;
    the_reward_is_queued_and_the_responses_list_it(app, &m, &tx).await;
    another_advertiser_cannot_report(app, &path, &tx).await;
}

/// A qualified respondent gets the survey (a man does not qualify for the women's quota);
/// the hosted entry redirects to the live link with the transaction id; an entered survey is
/// not offered again and a tampered link is refused. Returns the market, the transaction id
/// and the advertiser's reserve before any payment.
async fn a_qualified_respondent_enters_once(app: &TestApp) -> (Market, String, i64) {
    let m = market(app).await;
    let (_, reserved_before, _) = app.balance(&m.adv).await;
    let (s, env) = fetch(app, Some(&m.app_key), &respondent(&m, "user-1")).await;
    assert_eq!(s, StatusCode::OK, "{env}");
    assert_eq!(env["ErrorCode"], "SUCCESS");
    assert_eq!(env["Errors"], json!([]));
    let item = &env["Data"][0];
    assert_eq!(item["SurveyNumber"], m.campaign.as_str());
    assert_eq!(item["LOI"], 12);
    assert_eq!(item["vc_name"], "Coins");
    assert!(item["Reward"].as_f64().unwrap() > 0.0, "{item}");
    assert!(
        item["CPI"].as_f64().unwrap() > 0.0 && item["CPI"].as_f64().unwrap() <= 2.5,
        "{item}"
    );
    for f in [
        "SurveyUrl",
        "Link",
        "ProvidedBy",
        "MatchingPercentage",
        "Survey",
    ] {
        assert!(!item[f].is_null(), "{f}: {item}");
    }
    // A man does not qualify for the women's quota.
    let mut man = respondent(&m, "user-2");
    man["Gender"] = json!("M");
    let (s, env2) = fetch(app, Some(&m.app_key), &man).await;
    assert_eq!(
        (s, env2["ErrorCode"].as_str()),
        (StatusCode::NOT_FOUND, Some("NOT_FOUND")),
        "{env2}"
    );

    // The hosted entry redirects to the live link with the transaction id.
    let url = &local(app, item["SurveyUrl"].as_str().unwrap());
    let no_redirect = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = no_redirect.get(url).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::FOUND);
    assert_eq!(res.headers()["referrer-policy"], "no-referrer");
    let location = res.headers()["location"].to_str().unwrap().to_owned();
    let tx = location
        .strip_prefix("https://survey.example/live?tid=")
        .expect(&location)
        .to_owned();
    // Entered surveys are not offered again; a tampered link is refused.
    let (s, _) = fetch(app, Some(&m.app_key), &respondent(&m, "user-1")).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let res = no_redirect.get(format!("{url}0")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    (m, tx, reserved_before)
}

/// A forged complete is refused: a bad signature, or the respondent's own browser.
async fn a_forged_complete_is_refused(app: &TestApp, m: &Market, tx: &str, reserved_before: i64) {
    // A forged complete is refused: a bad signature, or the respondent's own browser.
    let path = format!("/api/v1/campaigns/{}/respondent-status", m.campaign);
    let (s, _) = tests::builders::surveys::signed(
        app,
        &m.key,
        Method::POST,
        &path,
        Some(&json!({"transaction_id": tx, "status": "complete"})),
        |u| format!("{u}0"),
    )
    .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let page = app
        .client
        .get(app.url(&format!(
            "/surveys/v1/return?transaction_id={tx}&status=complete"
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    assert_eq!(
        app.balance(&m.adv).await.1,
        reserved_before,
        "nothing paid yet"
    );
}

/// The advertiser reports the complete: paid once from the reservation.
async fn the_reported_complete_is_paid_once(
    app: &TestApp,
    m: &Market,
    tx: &str,
    reserved_before: i64,
) {
    let path = format!("/api/v1/campaigns/{}/respondent-status", m.campaign);
    // The advertiser reports the complete: paid once from the reservation.
    let (s, r) = call(
        app,
        &m.key,
        Method::POST,
        &path,
        Some(&json!({"transaction_id": tx, "status": "complete"})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(
        (r["status"].as_str(), r["paid"].as_bool()),
        (Some("COMPLETE"), Some(true))
    );
    let (s, again) = call(
        app,
        &m.key,
        Method::POST,
        &path,
        Some(&json!({"transaction_id": tx, "status": "complete"})),
    )
    .await;
    assert_eq!(
        (s, again["duplicate"].as_bool()),
        (StatusCode::OK, Some(true))
    );
    let (s, e) = call(
        app,
        &m.key,
        Method::POST,
        &path,
        Some(&json!({"transaction_id": tx, "status": "terminate"})),
    )
    .await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "transaction_finished"),
        "{e}"
    );
    let (_, reserved_after, spent) = app.balance(&m.adv).await;
    assert_eq!(
        reserved_before - reserved_after,
        2_500_000,
        "the CPI left the reservation"
    );
    assert_eq!(spent, 2_500_000);
    let (_, q) = call(
        app,
        &m.key,
        Method::GET,
        &format!("/api/v1/campaigns/{}/getcampaignquota", m.campaign),
        None,
    )
    .await;
    assert_eq!(q["campaignQuotas"][0]["completes"], 1);
}

/// The publisher's reward callback is queued for the respondent, and the responses download
/// lists the transaction as COMPLETE with its cost.
async fn the_reward_is_queued_and_the_responses_list_it(app: &TestApp, m: &Market, tx: &str) {
    // The publisher's reward callback is queued for the respondent.
    let (s, d) = app
        .get("/publisher/v2/callback-deliveries", Some(&m.pub_token))
        .await;
    assert_eq!(s, StatusCode::OK, "{d}");
    let text = d.to_string();
    assert!(
        text.contains("user-1") || text.contains(&m.placement),
        "{d}"
    );
    assert_eq!(d["items"].as_array().map(Vec::len), Some(1), "{d}");

    // The responses download lists the transaction as COMPLETE with its cost.
    let csv = signed_text(
        app,
        &m.key,
        "/api/v1/campaigns/downloadresponses",
        Some(&json!({"campaign_id": m.campaign})),
    )
    .await;
    assert!(csv.starts_with("transaction_id,"), "{csv}");
    let line = csv
        .lines()
        .find(|l| l.starts_with(&tx))
        .expect("the transaction");
    assert!(
        line.contains(",COMPLETE,") && line.contains("2.500000"),
        "{line}"
    );
    assert!(
        !csv.contains("user-1"),
        "the publisher's user id is not shown to advertisers"
    );
    let bad = signed_text(
        app,
        &m.key,
        "/api/v1/campaigns/downloadresponses",
        Some(&json!({"from": "2026-05-01", "to": "2026-01-01"})),
    )
    .await;
    assert!(bad.contains("invalid_input"), "{bad}");
}

/// Another advertiser cannot report on this campaign.
async fn another_advertiser_cannot_report(app: &TestApp, path: &str, tx: &str) {
    // Another advertiser cannot report on this campaign.
    let (_, other) = app.funded_advertiser(200 * USD).await;
    let okey = issue_key(app, &other, "SHA256").await;
    let (s, _) = call(
        app,
        &okey,
        Method::POST,
        path,
        Some(&json!({"transaction_id": tx, "status": "complete"})),
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

async fn survey_fetch_refusals_and_profiles(app: TestApp) {
    let m = market(&app).await;
    let body = respondent(&m, "user-9");
    let (s, e) = fetch(&app, None, &body).await;
    assert_eq!(
        (s, e["ErrorCode"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("UNAUTHORIZED"))
    );
    let (s, _) = fetch(&app, Some("mkt_apk_wrong"), &body).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let mut b = body.clone();
    b.as_object_mut().unwrap().remove("City");
    let (s, e) = fetch(&app, Some(&m.app_key), &b).await;
    assert_eq!(
        (s, e["ErrorCode"].as_str()),
        (StatusCode::BAD_REQUEST, Some("INVALID_PROFILE")),
        "{e}"
    );
    assert!(e["fieldErrors"]["City"].is_string(), "{e}");
    for k in ["Errors", "Info", "Data", "ErrorCode", "fieldErrors"] {
        assert!(!e[k].is_null(), "envelope always complete: {k}");
    }
    let mut b = body.clone();
    b["CountryLanguageCode"] = json!("th-TH");
    let (s, e) = fetch(&app, Some(&m.app_key), &b).await;
    assert_eq!(
        (s, e["ErrorCode"].as_str()),
        (
            StatusCode::BAD_REQUEST,
            Some("COUNTRY_LANGUAGE_UNSUPPORTED")
        )
    );
    b["CountryLanguageCode"] = json!("english");
    let (_, e) = fetch(&app, Some(&m.app_key), &b).await;
    assert_eq!(e["ErrorCode"], "INVALID_PROFILE");
    let mut b = body.clone();
    b["AppId"] = json!("plc_someone_else");
    let (s, e) = fetch(&app, Some(&m.app_key), &b).await;
    assert_eq!(
        (s, e["ErrorCode"].as_str()),
        (StatusCode::FORBIDDEN, Some("FORBIDDEN"))
    );
    let mut b = body.clone();
    b["Gender"] = json!("X");
    b["ZipCode"] = json!("ABC");
    b["DateOfBirth"] = json!("1990-13-01");
    let (_, e) = fetch(&app, Some(&m.app_key), &b).await;
    for f in ["Gender", "ZipCode", "DateOfBirth"] {
        assert!(e["fieldErrors"][f].is_string(), "{f}: {e}");
    }
    // Profiling under the legacy key is checked against the catalog and stored.
    let mut b = body.clone();
    b["ProfilingResponses"] = json!([{"partnerCode": "acme", "countryLanguageCode": "en-US", "responses": [{"questionId": "EDUCATION", "answerIds": ["42"]}]}]);
    let (_, e) = fetch(&app, Some(&m.app_key), &b).await;
    assert_eq!(e["ErrorCode"], "INVALID_PROFILE", "{e}");
    b["ProfilingResponses"][0]["responses"][0]["answerIds"] = json!(["5"]);
    let (s, e) = fetch(&app, Some(&m.app_key), &b).await;
    assert_eq!(s, StatusCode::OK, "{e}");
    // Brazilian CEP without the hyphen is accepted (for a pt-BR respondent).
    let mut br = body.clone();
    br["CountryLanguageCode"] = json!("pt-BR");
    br["ZipCode"] = json!("01310100");
    let (s, e) = fetch(&app, Some(&m.app_key), &br).await;
    assert_eq!(
        (s, e["ErrorCode"].as_str()),
        (StatusCode::NOT_FOUND, Some("NOT_FOUND")),
        "valid profile, no Brazilian survey: {e}"
    );
}

async fn fraud_blocks_shared_devices_and_verifies_medium_risk(app: TestApp) {
    let m = market(&app).await;
    // One device id across many users: the fifth user is blocked.
    for i in 0..4 {
        let mut b = respondent(&m, &format!("farm-{i}"));
        b["gps_id"] = json!("device-123");
        b["Gender"] = json!("M");
        fetch(&app, Some(&m.app_key), &b).await;
    }
    let mut b = respondent(&m, "farm-9");
    b["gps_id"] = json!("device-123");
    let (s, e) = fetch(&app, Some(&m.app_key), &b).await;
    assert_eq!(
        (s, e["ErrorCode"].as_str()),
        (StatusCode::FORBIDDEN, Some("FRAUD_BLOCKED")),
        "{e}"
    );
    assert_eq!(e["Data"], json!([]));

    // An address registered in Japan for an en-US respondent: verification, not a block.
    let mut abroad = respondent(&m, "abroad");
    abroad["IpAddress"] = json!("1.0.16.1");
    let (s, e) = fetch(&app, Some(&m.app_key), &abroad).await;
    assert_eq!(s, StatusCode::OK, "{e}");
    assert_eq!(e["Info"].as_array().map(Vec::len), Some(1), "{e}");

    // A busy respondent (more than 30 fetches an hour) still gets surveys but must answer a
    // question on the hosted page first.
    let mut busy = respondent(&m, "busy");
    busy["Gender"] = json!("M");
    for _ in 0..31 {
        fetch(&app, Some(&m.app_key), &busy).await;
    }
    busy["Gender"] = json!("F");
    let (s, e) = fetch(&app, Some(&m.app_key), &busy).await;
    assert_eq!(s, StatusCode::OK, "{e}");
    assert_eq!(e["Info"].as_array().map(Vec::len), Some(1), "{e}");
    let url = local(&app, e["Data"][0]["SurveyUrl"].as_str().unwrap());
    let no_redirect = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let page = no_redirect.get(&url).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let token = url.rsplit('/').next().unwrap();
    let question = app::domain::surveys::verification::challenge(token).prompt;
    let text = page.text().await.unwrap();
    assert!(
        text.contains(&question.replace('"', "&quot;")),
        "{question}: {text}"
    );
    let wrong = no_redirect
        .post(&url)
        .form(&[("answer", "999")])
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), StatusCode::OK, "asked again");
    let right = no_redirect
        .post(&url)
        .form(&[(
            "answer",
            app::domain::surveys::verification::answer_of(token),
        )])
        .send()
        .await
        .unwrap();
    assert!(right.status().is_redirection(), "{}", right.status());

    // Answers are limited per respondent (5 at once, then one a minute): trying the few
    // possible answers in turn stops at the sixth, even when it is the right one.
    let mut guesser = respondent(&m, "guesser");
    // Its own address: the shared one above carries enough respondents to be blocked.
    guesser["IpAddress"] = json!("198.51.100.23");
    guesser["Gender"] = json!("M");
    for _ in 0..31 {
        fetch(&app, Some(&m.app_key), &guesser).await;
    }
    guesser["Gender"] = json!("F");
    let (s, e) = fetch(&app, Some(&m.app_key), &guesser).await;
    assert_eq!(s, StatusCode::OK, "{e}");
    let url = local(&app, e["Data"][0]["SurveyUrl"].as_str().unwrap());
    let token = url.rsplit('/').next().unwrap().to_owned();
    for guess in 0..5 {
        let res = no_redirect
            .post(&url)
            .form(&[("answer", format!("wrong-{guess}"))])
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK, "guess {guess} asked again");
    }
    let blocked = no_redirect
        .post(&url)
        .form(&[(
            "answer",
            app::domain::surveys::verification::answer_of(&token),
        )])
        .send()
        .await
        .unwrap();
    assert_eq!(blocked.status(), StatusCode::TOO_MANY_REQUESTS);
}

async fn test_links_run_without_money_with_every_algorithm(app: TestApp) {
    let (_, adv) = app.funded_advertiser(200 * USD).await;
    let balance = app.balance(&adv).await;
    for alg in ["SHA1", "SHA256", "SHA3-256"] {
        let key = issue_key(&app, &adv, alg).await;
        let id = create(&app, &key, &survey(&format!("Test flow {alg}"))).await;
        let (s, t) = call(
            &app,
            &key,
            Method::POST,
            &format!("/api/v1/campaigns/{id}/test-entry"),
            None,
        )
        .await;
        assert_eq!(s, StatusCode::CREATED, "{alg}: {t}");
        let tx = t["transaction_id"].as_str().unwrap().to_owned();
        assert_eq!(
            t["test_url"],
            format!("https://survey.example/test?tid={tx}")
        );
        if alg == "SHA1" {
            // The test survey ends on test_redirect_url: recorded complete, never paid.
            let redirect = t["test_redirect_url"].as_str().unwrap();
            let path = &redirect[redirect.find("/api/v1/").unwrap()..];
            let page = app
                .client
                .get(app.url(path))
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            assert!(page.contains("recorded as complete"), "{page}");
        } else {
            let (s, r) = call(
                &app,
                &key,
                Method::POST,
                &format!("/api/v1/campaigns/{id}/respondent-status"),
                Some(&json!({"transaction_id": tx, "status": "complete"})),
            )
            .await;
            assert_eq!(s, StatusCode::OK, "{alg}: {r}");
            assert_eq!(
                (r["status"].as_str(), r["paid"].as_bool()),
                (Some("COMPLETE"), Some(false))
            );
        }
    }
    assert_eq!(
        app.balance(&adv).await,
        balance,
        "test traffic moves no money"
    );
}

async fn every_algorithm_pays_once_and_a_full_quota_stops_the_survey(app: TestApp) {
    for alg in ["SHA1", "SHA3-256"] {
        let m = market_with(&app, alg, 1).await;
        let (_, reserved, _) = app.balance(&m.adv).await;
        let tx = enter(&app, &m, &format!("{alg}-a")).await.expect("offered");
        // A second respondent enters before the first completes; the quota then fills.
        let tx2 = enter(&app, &m, &format!("{alg}-b"))
            .await
            .expect("still open");
        let path = format!("/api/v1/campaigns/{}/respondent-status", m.campaign);
        for duplicate in [false, true] {
            let (s, r) = call(
                &app,
                &m.key,
                Method::POST,
                &path,
                Some(&json!({"transaction_id": tx, "status": "complete"})),
            )
            .await;
            assert_eq!(s, StatusCode::OK, "{alg}: {r}");
            assert_eq!(
                (r["status"].as_str(), r["duplicate"].as_bool()),
                (Some("COMPLETE"), Some(duplicate)),
                "{alg}: {r}"
            );
        }
        assert_eq!(
            reserved - app.balance(&m.adv).await.1,
            2_500_000,
            "{alg}: paid exactly once"
        );
        // The quota is full: nobody else is offered the survey, and a late complete is not paid.
        let (s, env) = fetch(&app, Some(&m.app_key), &respondent(&m, &format!("{alg}-c"))).await;
        assert_eq!(
            (
                s,
                env["ErrorCode"].as_str(),
                env["Data"].as_array().map(Vec::len)
            ),
            (StatusCode::NOT_FOUND, Some("NOT_FOUND"), Some(0)),
            "{alg}: {env}"
        );
        let (s, r) = call(
            &app,
            &m.key,
            Method::POST,
            &path,
            Some(&json!({"transaction_id": tx2, "status": "complete"})),
        )
        .await;
        assert_eq!(s, StatusCode::OK, "{r}");
        assert_eq!(
            (r["status"].as_str(), r["paid"].as_bool()),
            (Some("OVERQUOTA"), Some(false))
        );
        assert_eq!(reserved - app.balance(&m.adv).await.1, 2_500_000, "{alg}");
    }
}

async fn every_profiling_key_spelling_is_read(app: TestApp) {
    let m = market(&app).await;
    for (i, k) in [
        "PublisherProfiling",
        "publisherProfiling",
        "ProfilingResponses",
        "profilingResponses",
    ]
    .iter()
    .enumerate()
    {
        let mut b = respondent(&m, &format!("spelling-{i}"));
        b[*k] = json!([{"partnerCode": "acme", "countryLanguageCode": "en-US", "responses": [{"questionId": "GAMING", "answerIds": ["99"]}]}]);
        let (s, e) = fetch(&app, Some(&m.app_key), &b).await;
        assert_eq!(
            (s, e["ErrorCode"].as_str()),
            (StatusCode::BAD_REQUEST, Some("INVALID_PROFILE")),
            "{k} is read and checked: {e}"
        );
        b[*k][0]["responses"][0]["answerIds"] = json!(["1"]);
        let (s, e) = fetch(&app, Some(&m.app_key), &b).await;
        assert_eq!(s, StatusCode::OK, "{k}: {e}");
    }
}
