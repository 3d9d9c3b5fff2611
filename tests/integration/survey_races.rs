//! Races on survey money (issue 28), through the HTTP API on both databases (PostgreSQL is
//! where they show: SQLite serialises writers).

use std::collections::HashSet;

use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use tests::{TestApp, both_backends};

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::survey_fetch::{enter, fetch, local, market_with, respondent};
use crate::surveys::call;

both_backends!(
    parallel_opens_of_one_survey_link_make_one_transaction,
    a_browser_return_never_decides_payment
);

async fn parallel_opens_of_one_survey_link_make_one_transaction(app: TestApp) {
    let m = market_with(&app, "SHA256", 10).await;
    let (s, env) = fetch(&app, Some(&m.app_key), &respondent(&m, "racer")).await;
    assert!(s.is_success(), "{env}");
    let url = local(
        &app,
        env["Data"][0]["SurveyUrl"].as_str().unwrap_or_default(),
    );
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let opens = (0..20).map(|_| {
        let (c, u) = (client.clone(), url.clone());
        async move {
            let res = c.get(u).send().await.ok()?;
            let status = res.status();
            match res.headers().get("location") {
                Some(l) => l.to_str().ok().map(str::to_owned),
                None => Some(format!(
                    "{status}: {}",
                    res.text().await.unwrap_or_default()
                )),
            }
        }
    });
    let locations: Vec<Option<String>> = futures::future::join_all(opens).await;
    assert!(
        locations
            .iter()
            .all(|l| l.as_deref().is_some_and(|l| l.starts_with("https://"))),
        "every open is sent on: {locations:?}"
    );
    let distinct: HashSet<String> = locations.into_iter().flatten().collect();
    assert_eq!(distinct.len(), 1, "one transaction: {distinct:?}");
    let entries = entity::survey_entry::Entity::find()
        .filter(entity::survey_entry::Column::CampaignId.eq(m.campaign.clone()))
        .filter(entity::survey_entry::Column::Test.eq(false))
        .count(&app.state.ctx.db)
        .await
        .expect("count");
    assert_eq!(entries, 1);
}

/// `GET /surveys/v1/return` is unauthenticated: a forged "overquota" return must not change
/// the transaction, so the advertiser's signed complete still pays.
async fn a_browser_return_never_decides_payment(app: TestApp) {
    let m = market_with(&app, "SHA256", 10).await;
    let tx = enter(&app, &m, "returner").await.expect("entered");
    let page = app
        .client
        .get(app.url(&format!(
            "/surveys/v1/return?transaction_id={tx}&status=overquota"
        )))
        .send()
        .await
        .expect("sent");
    assert_eq!(page.status(), StatusCode::OK);
    let (s, r) = call(
        &app,
        &m.key,
        Method::POST,
        &format!("/api/v1/campaigns/{}/respondent-status", m.campaign),
        Some(&json!({"transaction_id": tx, "status": "complete"})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["paid"], true, "{r}");
    assert_eq!(r["duplicate"], false, "{r}");
}
