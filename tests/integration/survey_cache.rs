//! The survey fetch answers from memory (issue 31): live surveys from a snapshot, the
//! respondent from a cache, writes through a batch writer. These tests hold it to the
//! documented bound (docs/operations.md, "Caches and staleness"): in the process that made
//! a change, a fetch that starts after the change answered sees it (bound zero); a
//! respondent's profile written in a batch is what the next fetch and the hosted entry see.
//! The other processes' bound is `processes::a_paused_survey_reaches_the_other_process`.

use reqwest::{Method, StatusCode};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};
use tests::{TestApp, both_backends};

use tests::builders::surveys::{
    Market, enter, fetch, local, market_with, report_outcome, respondent,
};
use tests::builders::surveys::{call, create, lists, survey};

both_backends!(
    a_paused_or_closed_survey_leaves_the_next_fetch,
    an_edited_survey_is_matched_as_edited_by_the_next_fetch,
    a_full_quota_leaves_the_next_fetch,
    a_profile_written_in_a_batch_is_what_the_next_fetch_and_the_entry_see,
);

async fn offered(app: &TestApp, m: &Market, user: &str) -> bool {
    let (s, env) = fetch(app, Some(&m.app_key), &respondent(m, user)).await;
    assert!(
        s == StatusCode::OK || s == StatusCode::NOT_FOUND,
        "{s} {env}"
    );
    lists(&env, &m.campaign)
}

async fn set_status(app: &TestApp, m: &Market, status: &str) {
    let (s, c) = call(
        app,
        &m.key,
        Method::PUT,
        &format!("/api/v1/campaigns/{}", m.campaign),
        Some(&json!({ "status": status })),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{status}: {c}");
}

async fn a_paused_or_closed_survey_leaves_the_next_fetch(app: TestApp) {
    let m = market_with(&app, "SHA256", 5).await;
    assert!(offered(&app, &m, "ana").await, "LIVE: offered");
    set_status(&app, &m, "PAUSED").await;
    assert!(!offered(&app, &m, "ana").await, "PAUSED: gone at once");
    assert!(
        !offered(&app, &m, "bea").await,
        "PAUSED: for new respondents too"
    );
    set_status(&app, &m, "LIVE").await;
    assert!(
        offered(&app, &m, "bea").await,
        "LIVE again: offered at once"
    );
    set_status(&app, &m, "CLOSED").await;
    assert!(!offered(&app, &m, "cat").await, "CLOSED: gone at once");
}

async fn an_edited_survey_is_matched_as_edited_by_the_next_fetch(app: TestApp) {
    let m = market_with(&app, "SHA256", 5).await;
    let admin = app.admin_token().await;
    // A second survey of the advertiser, edited while a draft (a LIVE survey only changes
    // status), then approved: the next fetch offers it as edited.
    let today = app.clock_now().date_naive();
    let mut body = survey("Tea habits");
    body["start_date"] = json!(today.to_string());
    body["end_date"] = json!((today + chrono::Duration::days(30)).to_string());
    let tea = create(&app, &m.key, &body).await;
    let base = format!("/api/v1/campaigns/{tea}");
    let (s, a) = app
        .post(
            &format!("/performance-marketing/v2/billing/survey-campaigns/{tea}/allocate"),
            Some(&m.adv),
            &json!({}),
        )
        .await;
    assert!(s.is_success(), "{a}");
    assert!(
        !offered_as(&app, &m, "dee", &tea).await.0,
        "a draft is not offered"
    );
    let (s, c) = call(
        &app,
        &m.key,
        Method::PUT,
        &base,
        Some(&json!({"name": "Tea habits, edited", "length_of_interview": 7, "status": "PENDINGAPPROVAL"})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    let (s, ap) = app
        .approve_survey(&admin, &tea, &json!({"revision": c["revision"]}))
        .await;
    assert_eq!(s, StatusCode::OK, "{ap}");
    let (listed, item) = offered_as(&app, &m, "dee", &tea).await;
    assert!(listed, "approved: offered at once");
    assert_eq!(item["Survey"]["SurveyName"], "Tea habits, edited", "{item}");
    assert_eq!(item["LOI"], json!(7), "{item}");
}

/// Whether `campaign` is offered to `user`, and its item.
async fn offered_as(app: &TestApp, m: &Market, user: &str, campaign: &str) -> (bool, Value) {
    let (_, env) = fetch(app, Some(&m.app_key), &respondent(m, user)).await;
    let item = env["Data"]
        .as_array()
        .and_then(|d| d.iter().find(|s| s["SurveyNumber"] == campaign).cloned());
    (item.is_some(), item.unwrap_or(Value::Null))
}

async fn a_full_quota_leaves_the_next_fetch(app: TestApp) {
    let m = market_with(&app, "SHA256", 1).await;
    let tx = enter(&app, &m, "eve").await.expect("offered and entered");
    assert!(
        !offered(&app, &m, "eve").await,
        "an entered survey is not offered to the same respondent again"
    );
    assert!(offered(&app, &m, "fay").await, "still open for others");
    let (s, r) = report_outcome(&app, &m, &tx, "complete").await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert!(
        !offered(&app, &m, "gus").await,
        "the quota filled: gone for the next fetch"
    );
}

async fn a_profile_written_in_a_batch_is_what_the_next_fetch_and_the_entry_see(app: TestApp) {
    let m = market_with(&app, "SHA256", 5).await;
    // The first fetch gives the gender the quota asks for; the next ones leave it out.
    assert!(offered(&app, &m, "hal").await);
    let mut without = respondent(&m, "hal");
    without.as_object_mut().unwrap().remove("Gender");
    let (s, env) = fetch(&app, Some(&m.app_key), &without).await;
    assert_eq!(
        s,
        StatusCode::OK,
        "the stored gender still qualifies: {env}"
    );
    assert!(lists(&env, &m.campaign), "{env}");
    // The hosted entry reads the respondent from the database at once after the fetch.
    let url = local(&app, env["Data"][0]["SurveyUrl"].as_str().unwrap());
    let no_redirect = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = no_redirect.get(url).send().await.unwrap();
    assert_eq!(
        res.status(),
        StatusCode::FOUND,
        "the entry sees the batched profile: {}",
        res.text().await.unwrap_or_default()
    );
    // A process that never met the respondent (this one, with its memory dropped) reads the
    // same profile from the database.
    app.state.ctx.surveys.writes.flush().await;
    app.state.ctx.surveys.respondents.clear();
    let (s, env) = fetch(&app, Some(&m.app_key), &respondent(&m, "ivy")).await;
    assert_eq!(s, StatusCode::OK, "{env}");
    // Committed within the writer's interval (another process reads it after that).
    app.state.ctx.surveys.writes.flush().await;
    app.state.ctx.surveys.respondents.clear();
    let mut without = respondent(&m, "ivy");
    without.as_object_mut().unwrap().remove("Gender");
    let (s, env) = fetch(&app, Some(&m.app_key), &without).await;
    assert_eq!(s, StatusCode::OK, "the stored gender, read back: {env}");
    assert!(lists(&env, &m.campaign), "{env}");
    // Profile updates compose: a later fetch's new field joins the stored ones.
    app.state.ctx.surveys.writes.flush().await;
    let row = entity::survey_respondent::Entity::find()
        .filter(entity::survey_respondent::Column::ExternalUserId.eq("ivy"))
        .one(&app.state.ctx.db)
        .await
        .unwrap()
        .expect("written");
    assert_eq!(
        (row.gender.as_deref(), row.zip_code.as_deref()),
        (Some("2"), Some("78701"))
    );
}
