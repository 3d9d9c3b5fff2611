//! Races on survey money (issue 28), through the HTTP API on both databases (PostgreSQL is
//! where they show: SQLite serialises writers).

use std::collections::HashSet;

use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use tests::{TestApp, both_backends, error_code};

use reqwest::{Method, StatusCode};
use serde_json::json;

use tests::builders::surveys::{call, survey_status};
use tests::builders::surveys::{enter, fetch, local, market_with, report_outcome, respondent};

both_backends!(
    parallel_opens_of_one_survey_link_make_one_transaction,
    a_browser_return_never_decides_payment,
    a_closed_survey_pays_the_completes_in_the_field
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
    let (s, r) = report_outcome(&app, &m, &tx, "complete").await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["paid"], true, "{r}");
    assert_eq!(r["duplicate"], false, "{r}");
}

/// Closing keeps `open entries × cpi` reserved for the grace period (three lengths of
/// interview, at least an hour): an honest complete reported right after the close is paid,
/// one reported after the grace period is refused, and the sweep then returns the hold.
async fn a_closed_survey_pays_the_completes_in_the_field(app: TestApp) {
    const CPI: i64 = 2_500_000;
    let m = market_with(&app, "SHA256", 10).await;
    let early = enter(&app, &m, "in-field-a").await.expect("entered");
    let late = enter(&app, &m, "in-field-b").await.expect("entered");
    let (avail, reserved, spent) = app.balance(&m.adv).await;
    assert!(
        reserved > 2 * CPI,
        "the campaign holds its plan: {reserved}"
    );
    let base = format!("/api/v1/campaigns/{}", m.campaign);
    let (s, c) = survey_status(&app, &m.key, &base, "CLOSED").await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(
        app.balance(&m.adv).await,
        (avail + reserved - 2 * CPI, 2 * CPI, spent),
        "two open entries stay reserved"
    );
    let report = |tx: String| {
        let (app, m, path) = (&app, &m, format!("{base}/respondent-status"));
        async move {
            call(
                app,
                &m.key,
                Method::POST,
                &path,
                Some(&json!({"transaction_id": tx, "status": "complete"})),
            )
            .await
        }
    };
    let (s, r) = report(early).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(
        (r["paid"].as_bool(), r["cost_micros"].as_i64()),
        (Some(true), Some(CPI)),
        "{r}"
    );
    // Twelve-minute interviews: the grace period is the one-hour minimum.
    app.clock.advance(chrono::Duration::minutes(61));
    let (s, r) = report(late).await;
    assert_eq!(
        (s, error_code(&r)),
        (StatusCode::CONFLICT, "survey_closed"),
        "{r}"
    );
    assert_eq!(app.balance(&m.adv).await.1, CPI, "held until the sweep");
    app.run_workers_once().await;
    assert_eq!(
        app.balance(&m.adv).await,
        (avail + reserved - CPI, 0, spent + CPI),
        "one complete paid, the rest returned"
    );
}
