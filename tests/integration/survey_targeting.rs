//! The survey API's targeting routes: reference data, locale validation, quotas with
//! qualifications checked against the catalog, custom questions and options, search, clone,
//! and the status policy (a LIVE campaign only resizes quotas).

use reqwest::{Method, StatusCode};
use serde_json::json;
use tests::{TestApp, both_backends, error_code};

use tests::builders::surveys::{Key, call, create, issue_key, survey, survey_status};

both_backends!(
    survey_reference_data_and_locale_validation,
    quotas_qualifications_and_questions,
    search_and_clone_survey_campaigns,
);

async fn survey_reference_data_and_locale_validation(app: TestApp) {
    let (_, t) = app.funded_advertiser(200_000_000).await;
    let key = issue_key(&app, &t, "SHA256").await;
    let (s, l) = call(
        &app,
        &key,
        Method::POST,
        "/api/v1/campaigns/listcountrylanguage",
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{l}");
    let items = l["country_languages"].as_array().unwrap();
    assert!(items.len() >= 30, "{}", items.len());
    assert!(items.iter().all(|i| i["active"] == true));
    assert!(items.iter().any(|i| i["code"] == "en-US" && i["id"] == 1));
    let (_, all) = call(
        &app,
        &key,
        Method::POST,
        "/api/v1/campaigns/listcountrylanguage",
        Some(&json!({"include_inactive": true})),
    )
    .await;
    assert!(
        all["country_languages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["active"] == false)
    );

    let (s, p) = call(
        &app,
        &key,
        Method::POST,
        "/api/v1/campaigns/getProfilingQuestionsForTargeting",
        Some(&json!({"country_language_id": "de-DE"})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{p}");
    let qs = p["questions"].as_array().unwrap();
    assert!(
        qs.iter()
            .any(|q| q["question_id"] == "GENDER" && q["answers"].as_array().unwrap().len() >= 2)
    );
    assert!(
        !qs.iter().any(|q| q["question_id"] == "ETHNICITY"),
        "not asked in Germany"
    );
    let (s, _) = call(
        &app,
        &key,
        Method::POST,
        "/api/v1/campaigns/getProfilingQuestionsForTargeting",
        Some(&json!({"country_language_id": "xx-XX"})),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);

    // A campaign's market must be an active locale: by code or by id, stored as the code.
    let mut body = survey("Locale check");
    body["country_language_id"] = json!("klingon");
    let (s, e) = call(
        &app,
        &key,
        Method::POST,
        "/api/v1/campaigns/create",
        Some(&body),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert!(
        e["error"]["fieldErrors"]["country_language_id"].is_string(),
        "{e}"
    );
    body["country_language_id"] = json!("th-TH");
    let (s, _) = call(
        &app,
        &key,
        Method::POST,
        "/api/v1/campaigns/create",
        Some(&body),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "inactive locale");
    body["country_language_id"] = json!("11");
    let id = create(&app, &key, &body).await;
    let (_, c) = call(
        &app,
        &key,
        Method::GET,
        &format!("/api/v1/campaigns/{id}"),
        None,
    )
    .await;
    assert_eq!(c["country_language_id"], "pt-BR");
}

async fn quotas_qualifications_and_questions(app: TestApp) {
    let app = &app;
    let (_, t) = app.funded_advertiser(1_000_000_000).await;
    let key = issue_key(app, &t, "SHA256").await;
    let id = create(app, &key, &survey("Quota study")).await;
    let base = format!("/api/v1/campaigns/{id}");
    let quota = quotas_and_qualifications(app, &key, &base).await;
    a_quota_is_cloned(app, &key, &base, &quota).await;
    let qid = custom_questions_and_options(app, &key, &base).await;
    another_advertiser_sees_none_of_it(app, &base, &qid).await;
    a_live_campaign_only_resizes_quotas(app, (&t, &key), &id, &quota).await;
}

/// A quota, its qualifications checked against the catalog, their updates and the listing.
async fn quotas_and_qualifications(app: &TestApp, key: &Key, base: &str) -> String {
    let (s, q) = call(
        app,
        key,
        Method::POST,
        &format!("{base}/campaignsquota"),
        Some(&json!({"name": "Women 18-34", "num_respondents": 60})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{q}");
    let quota = q["campaignQuota"]["_id"].as_str().unwrap().to_owned();
    let (s, _) = call(
        app,
        key,
        Method::POST,
        &format!("{base}/campaignsquota"),
        Some(&json!({"name": "x"})),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "num_respondents required");
    let (s, e) = call(
        app,
        key,
        Method::POST,
        &format!("{base}/campaignsquota"),
        Some(&json!({"name": "bad\u{1}name", "num_respondents": 5})),
    )
    .await;
    assert_eq!(
        s,
        StatusCode::BAD_REQUEST,
        "control characters are refused: {e}"
    );
    assert!(e["error"]["fieldErrors"]["name"].is_string(), "{e}");

    let quals = format!("{base}/campaignsquota/{quota}/campaignsqualification");
    let (s, g) = call(
        app,
        key,
        Method::POST,
        &quals,
        Some(&json!({"question_id": "GENDER", "answer_ids": ["2"]})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{g}");
    let gender = g["campaignQualification"]["_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let (s, a) = call(
        app,
        key,
        Method::POST,
        &quals,
        Some(&json!({"question_id": "AGE", "ranges": [{"min": 18, "max": 34}]})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{a}");
    for (bad, status, code, field) in [
        (
            json!({"question_id": "NOPE", "answer_ids": ["1"]}),
            StatusCode::BAD_REQUEST,
            "invalid_input",
            Some("question_id"),
        ),
        (
            json!({"question_id": "EDUCATION", "answer_ids": ["99"]}),
            StatusCode::BAD_REQUEST,
            "invalid_input",
            Some("answer_ids[0]"),
        ),
        (
            json!({"question_id": "ZIP", "values": []}),
            StatusCode::BAD_REQUEST,
            "invalid_input",
            Some("values"),
        ),
        (
            json!({"question_id": "GENDER", "answer_ids": ["1"]}),
            StatusCode::CONFLICT,
            "duplicate_qualification",
            None,
        ),
    ] {
        let (s, e) = call(app, &key, Method::POST, &quals, Some(&bad)).await;
        assert_eq!((s, error_code(&e)), (status, code), "{bad}: {e}");
        if let Some(f) = field {
            assert!(e["error"]["fieldErrors"][f].is_string(), "{bad}: {e}");
        }
    }
    let (s, u) = call(
        app,
        key,
        Method::PUT,
        &format!("{quals}/{gender}"),
        Some(&json!({"answer_ids": ["1", "2"]})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{u}");
    assert_eq!(u["campaignQualification"]["answer_ids"], json!(["1", "2"]));
    let (_, list) = call(
        app,
        key,
        Method::GET,
        &format!("{base}/getcampaignquota"),
        None,
    )
    .await;
    assert_eq!(
        list["campaignQuotas"][0]["qualifications"]
            .as_array()
            .unwrap()
            .len(),
        2,
        "{list}"
    );
    quota
}

/// A cloned quota keeps its qualifications under new ids.
async fn a_quota_is_cloned(app: &TestApp, key: &Key, base: &str, quota: &str) {
    let (s, cl) = call(
        app,
        key,
        Method::POST,
        &format!("{base}/clonecampaignsquota"),
        Some(&json!({"quotaId": quota})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{cl}");
    assert_eq!(
        cl["campaignQuota"]["qualifications"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let copy = cl["campaignQuota"]["_id"].as_str().unwrap().to_owned();
    let (s, _) = call(
        app,
        key,
        Method::DELETE,
        &format!("{base}/campaignsquota/{copy}"),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let (s, _) = call(
        app,
        key,
        Method::GET,
        &format!("{base}/campaignsquota/{copy}"),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

/// Custom questions: blank on create, set by PUT, options start as cs_accept.
async fn custom_questions_and_options(app: &TestApp, key: &Key, base: &str) -> String {
    // Custom questions: blank on create, set by PUT, options start as cs_accept.
    let (s, cq) = call(
        app,
        key,
        Method::POST,
        &format!("{base}/customquestion"),
        Some(&json!({"display_text": "ignored"})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{cq}");
    assert_eq!(cq["display_text"], "");
    let qid = cq["_id"].as_str().unwrap().to_owned();
    let (s, u) = call(app, &key, Method::PUT, &format!("{base}/customquestion/{qid}"), Some(&json!({"display_text": "Do you own a dog?", "question_type_id": 1, "controls": {"required": true}}))).await;
    assert_eq!(s, StatusCode::OK, "{u}");
    let (s, o) = call(
        app,
        key,
        Method::POST,
        &format!("/api/v1/campaigns/cq/{qid}/createoption"),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{o}");
    let opt = &o["customQuestions"]["options"][0];
    assert_eq!(opt["control_state"], "cs_accept");
    let oid = opt["option_id"].as_str().unwrap().to_owned();
    let (s, o) = call(
        app,
        key,
        Method::PUT,
        &format!("/api/v1/campaigns/cq/{qid}/option/{oid}"),
        Some(&json!({"value": "Yes"})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{o}");
    let (s, _) = call(
        app,
        key,
        Method::PUT,
        &format!("/api/v1/campaigns/cq/{qid}/option/{oid}"),
        Some(&json!({"control_state": "maybe"})),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (_, l) = call(
        app,
        key,
        Method::GET,
        &format!("{base}/getcustomquestions"),
        None,
    )
    .await;
    assert_eq!(l["customQuestions"][0]["options"][0]["value"], "Yes");
    let (_, p) = call(
        app,
        key,
        Method::GET,
        &format!("{base}/getcustomquestionsforprofiling"),
        None,
    )
    .await;
    assert_eq!(p["questions"][0]["accepted_answer_ids"], json!([oid]));
    qid
}

/// Another advertiser sees none of it.
async fn another_advertiser_sees_none_of_it(app: &TestApp, base: &str, qid: &str) {
    // Another advertiser sees none of it.
    let (_, t2) = app.funded_advertiser(200_000_000).await;
    let other = issue_key(app, &t2, "SHA256").await;
    let (s, _) = call(
        app,
        &other,
        Method::GET,
        &format!("{base}/getcampaignquota"),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (s, _) = call(
        app,
        &other,
        Method::POST,
        &format!("/api/v1/campaigns/cq/{qid}/createoption"),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

/// Once LIVE only quota sizes change.
async fn a_live_campaign_only_resizes_quotas(
    app: &TestApp,
    (t, key): (&str, &Key),
    id: &str,
    quota: &str,
) {
    let base = format!("/api/v1/campaigns/{id}");
    let quals = format!("{base}/campaignsquota/{quota}/campaignsqualification");
    // Once LIVE only quota sizes change.
    let admin = app.admin_token().await;
    let (s, al) = app
        .post(
            &format!("/performance-marketing/v2/billing/survey-campaigns/{id}/allocate"),
            Some(&t),
            &json!({}),
        )
        .await;
    assert!(s.is_success(), "{al}");
    let (_, c) = survey_status(app, key, &base, "PENDINGAPPROVAL").await;
    let (s, ap) = app
        .approve_survey(&admin, &id, &json!({"revision": c["revision"]}))
        .await;
    assert_eq!(s, StatusCode::OK, "{ap}");
    let (s, _) = call(
        app,
        key,
        Method::PUT,
        &format!("{base}/campaignsquota/{quota}"),
        Some(&json!({"num_respondents": 80})),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let (s, e) = call(
        app,
        key,
        Method::PUT,
        &format!("{base}/campaignsquota/{quota}"),
        Some(&json!({"name": "Renamed"})),
    )
    .await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "campaign_not_editable"),
        "{e}"
    );
    let (s, e) = call(
        app,
        key,
        Method::POST,
        &quals,
        Some(&json!({"question_id": "EDUCATION", "answer_ids": ["5"]})),
    )
    .await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "campaign_not_editable"),
        "{e}"
    );
    let (s, e) = call(
        app,
        key,
        Method::POST,
        &format!("{base}/customquestion"),
        None,
    )
    .await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "campaign_not_editable"),
        "{e}"
    );
}

async fn search_and_clone_survey_campaigns(app: TestApp) {
    let (_, t) = app.funded_advertiser(200_000_000).await;
    let key = issue_key(&app, &t, "SHA256").await;
    let a = create(&app, &key, &survey("Alpha brand study")).await;
    let mut gb = survey("Beta 100% study");
    gb["country_language_id"] = json!("en-GB");
    let _b = create(&app, &key, &gb).await;
    let (s, r) = call(
        &app,
        &key,
        Method::POST,
        "/api/v1/campaigns/searchcampaigns",
        Some(&json!({"name": "alpha"})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["count"], 1);
    assert_eq!(r["campaigns"][0]["_id"], a.as_str());
    let (_, r) = call(
        &app,
        &key,
        Method::POST,
        "/api/v1/campaigns/searchcampaigns",
        Some(&json!({"name": "%"})),
    )
    .await;
    assert_eq!(r["count"], 1, "a % in the name is literal: {r}");
    let (_, r) = call(
        &app,
        &key,
        Method::POST,
        "/api/v1/campaigns/searchcampaigns",
        Some(&json!({"country_language_id": "en-GB", "status": ["DRAFT"]})),
    )
    .await;
    assert_eq!(r["count"], 1);
    let (_, r) = call(
        &app,
        &key,
        Method::POST,
        "/api/v1/campaigns/searchcampaigns",
        Some(&json!({"limit": 1})),
    )
    .await;
    assert_eq!(r["count"], 1);
    let cursor = r["next_cursor"].as_str().expect("more").to_owned();
    let (_, r2) = call(
        &app,
        &key,
        Method::POST,
        "/api/v1/campaigns/searchcampaigns",
        Some(&json!({"limit": 1, "cursor": cursor})),
    )
    .await;
    assert_eq!(r2["count"], 1);
    assert_ne!(r2["campaigns"][0]["_id"], r["campaigns"][0]["_id"]);
    let (s, _) = call(
        &app,
        &key,
        Method::POST,
        "/api/v1/campaigns/searchcampaigns",
        Some(&json!({"limit": 0})),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);

    call(
        &app,
        &key,
        Method::POST,
        &format!("/api/v1/campaigns/{a}/campaignsquota"),
        Some(&json!({"name": "All", "num_respondents": 10})),
    )
    .await;
    let (s, c) = call(
        &app,
        &key,
        Method::POST,
        "/api/v1/campaigns/clonecampaigns",
        Some(&json!({"campaignId": a})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{c}");
    let copy = c["campaign"]["_id"].as_str().unwrap().to_owned();
    assert_ne!(copy, a);
    assert_eq!(c["campaign"]["name"], "Copy of Alpha brand study");
    let (_, q) = call(
        &app,
        &key,
        Method::GET,
        &format!("/api/v1/campaigns/{copy}/getcampaignquota"),
        None,
    )
    .await;
    assert_eq!(q["count"], 1);
    let (_, t2) = app.funded_advertiser(200_000_000).await;
    let other = issue_key(&app, &t2, "SHA256").await;
    let (s, _) = call(
        &app,
        &other,
        Method::POST,
        "/api/v1/campaigns/clonecampaigns",
        Some(&json!({"campaignId": a})),
    )
    .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}
