//! Survey marketplace set-up: an advertiser's signed survey API key and calls, a survey
//! body, and a whole market (a funded, approved survey and a publisher's app key) with its
//! respondents, fetches, entries and outcome reports.

use app::domain::surveys::signature::{digest, signed_input};
use app::model::EncryptionType;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};

pub use super::offers::USD;
use super::publisher::publisher;
use crate::TestApp;

/// An advertiser's survey API credential.
pub struct Key {
    pub api_key: String,
    pub secret: String,
    pub kind: EncryptionType,
}

pub async fn issue_key(app: &TestApp, bearer: &str, kind: &str) -> Key {
    let (s, k) = app
        .post(
            "/performance-marketing/v2/survey-api/credentials",
            Some(bearer),
            &json!({"encryptionType": kind}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{k}");
    Key {
        api_key: k["apiKey"].as_str().expect("key").to_owned(),
        secret: k["secret"].as_str().expect("secret").to_owned(),
        kind: serde_json::from_value(k["encryptionType"].clone()).expect("type"),
    }
}

/// Sends a signed survey API request; `tamper` edits the URL after signing.
pub async fn signed(
    app: &TestApp,
    key: &Key,
    method: reqwest::Method,
    path: &str,
    body: Option<&Value>,
    tamper: impl FnOnce(String) -> String,
) -> (StatusCode, Value) {
    let url = app.url(path);
    let body_text = body.map(|b| b.to_string()).unwrap_or_default();
    let enc = digest(
        key.kind,
        &signed_input(&url, body_text.as_bytes(), &key.secret),
    );
    let mut req = app
        .client
        .request(method, tamper(format!("{url}?enc={enc}")))
        .header("X-Api-Key", &key.api_key);
    if body.is_some() {
        req = req
            .header("Content-Type", "application/json")
            .body(body_text);
    }
    let res = req.send().await.expect("sent");
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// Moves a survey campaign to `status` through the signed API (`PUT` on its path).
pub async fn survey_status(
    app: &TestApp,
    key: &Key,
    path: &str,
    status: &str,
) -> (StatusCode, Value) {
    let body = json!({ "status": status });
    call(app, key, Method::PUT, path, Some(&body)).await
}

pub async fn call(
    app: &TestApp,
    key: &Key,
    method: reqwest::Method,
    path: &str,
    body: Option<&Value>,
) -> (StatusCode, Value) {
    signed(app, key, method, path, body, |u| u).await
}

pub fn survey(name: &str) -> Value {
    json!({
        "name": name,
        "country_language_id": "en-US",
        "cpi": 2.5,
        "length_of_interview": 12,
        "conversion": 40,
        "start_date": "2026-03-02",
        "end_date": "2026-04-30",
        "survey_live_link": "https://survey.example/live?tid={transaction_id}",
        "survey_test_link": "https://survey.example/test?tid={transaction_id}",
        "max_daily_completes": 50,
        "total_completes": 100,
        "supported_devices": ["desktop", "mobile"],
        "research_category": "Consumer",
        "tags": ["wave-1"]
    })
}

pub async fn create(app: &TestApp, key: &Key, body: &Value) -> String {
    let (s, c) = call(
        app,
        key,
        reqwest::Method::POST,
        "/api/v1/campaigns/create",
        Some(body),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{c}");
    c["campaign"]["_id"].as_str().expect("id").to_owned()
}

pub struct Market {
    pub adv: String,
    pub key: Key,
    pub campaign: String,
    pub placement: String,
    pub app_key: String,
    pub pub_token: String,
}

/// A publisher with an app key and a LIVE, wallet-paid survey (100 completes at 2.50 USD)
/// with one quota for women.
pub async fn market(app: &TestApp) -> Market {
    market_with(app, "SHA256", 2).await
}

/// [`market`] with the survey API key's algorithm and the women's quota size.
pub async fn market_with(app: &TestApp, alg: &str, quota_size: i64) -> Market {
    let admin = app.admin_token().await;
    let p = publisher(app, &admin).await;
    let (s, k) = app
        .post(
            &format!("/publisher/v2/placements/{}/app-key", p.placement),
            Some(&p.token),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{k}");
    let (_, adv) = app.funded_advertiser(500 * USD).await;
    let key = issue_key(app, &adv, alg).await;
    let today = app.clock_now().date_naive();
    let mut body = survey("Coffee habits 2026");
    body["start_date"] = json!(today.to_string());
    body["end_date"] = json!((today + chrono::Duration::days(30)).to_string());
    let campaign = create(app, &key, &body).await;
    let base = format!("/api/v1/campaigns/{campaign}");
    let (s, q) = call(
        app,
        &key,
        Method::POST,
        &format!("{base}/campaignsquota"),
        Some(&json!({"name": "Women", "num_respondents": quota_size})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{q}");
    let quota = q["campaignQuota"]["_id"].as_str().unwrap().to_owned();
    let (s, g) = call(
        app,
        &key,
        Method::POST,
        &format!("{base}/campaignsquota/{quota}/campaignsqualification"),
        Some(&json!({"question_id": "GENDER", "answer_ids": ["2"]})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{g}");
    let (s, a) = app
        .post(
            &format!("/performance-marketing/v2/billing/survey-campaigns/{campaign}/allocate"),
            Some(&adv),
            &json!({}),
        )
        .await;
    assert!(s.is_success(), "{a}");
    let (_, c) = survey_status(app, &key, &base, "PENDINGAPPROVAL").await;
    let (s, ap) = app
        .approve_survey(&admin, &campaign, &json!({"revision": c["revision"]}))
        .await;
    assert_eq!(s, StatusCode::OK, "{ap}");
    Market {
        adv,
        key,
        campaign,
        placement: p.placement,
        app_key: k["appKey"].as_str().unwrap().to_owned(),
        pub_token: p.token,
    }
}

pub fn respondent(m: &Market, user: &str) -> Value {
    json!({"UserId": user, "AppId": m.placement, "IpAddress": "203.0.113.7", "City": "Austin",
        "CountryLanguageCode": "en-US", "Gender": "F", "DateOfBirth": "1995-05-05", "ZipCode": "78701"})
}

/// A signed POST whose answer is text (the CSV download).
pub async fn signed_text(app: &TestApp, key: &Key, path: &str, body: Option<&Value>) -> String {
    use app::domain::surveys::signature::{digest, signed_input};
    let url = app.url(path);
    let text = body.map(|b| b.to_string()).unwrap_or_default();
    let enc = digest(key.kind, &signed_input(&url, text.as_bytes(), &key.secret));
    let mut req = app
        .client
        .post(format!("{url}?enc={enc}"))
        .header("X-Api-Key", &key.api_key);
    if body.is_some() {
        req = req.header("Content-Type", "application/json").body(text);
    }
    req.send().await.expect("sent").text().await.expect("text")
}

/// A SurveyUrl (on APP_BASE_URL) pointed at the test server.
pub fn local(app: &TestApp, url: &str) -> String {
    let path = &url[url.find("/surveys/v1/entry/").expect(url)..];
    app.url(path)
}

pub async fn fetch(app: &TestApp, key: Option<&str>, body: &Value) -> (StatusCode, Value) {
    let mut req = app.client.post(app.url("/getallsurveys-api")).json(body);
    if let Some(k) = key {
        req = req.header("X-Service-Api-Key", k);
    }
    let res = req.send().await.expect("sent");
    let s = res.status();
    (s, res.json().await.expect("envelope"))
}

/// The advertiser's signed outcome report of a transaction.
pub async fn report_outcome(
    app: &TestApp,
    m: &Market,
    tx: &str,
    status: &str,
) -> (StatusCode, Value) {
    call(
        app,
        &m.key,
        Method::POST,
        &format!("/api/v1/campaigns/{}/respondent-status", m.campaign),
        Some(&json!({"transaction_id": tx, "status": status})),
    )
    .await
}

/// Enters the first survey offered to `user` and answers its transaction id.
pub async fn enter(app: &TestApp, m: &Market, user: &str) -> Option<String> {
    let (s, env) = fetch(app, Some(&m.app_key), &respondent(m, user)).await;
    if s != StatusCode::OK {
        return None;
    }
    let url = local(app, env["Data"][0]["SurveyUrl"].as_str()?);
    let no_redirect = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = no_redirect.get(url).send().await.unwrap();
    let location = res.headers().get("location")?.to_str().ok()?.to_owned();
    location
        .strip_prefix("https://survey.example/live?tid=")
        .map(str::to_owned)
}

pub fn lists(env: &Value, campaign: &str) -> bool {
    env["Data"]
        .as_array()
        .is_some_and(|d| d.iter().any(|s| s["SurveyNumber"] == campaign))
}
