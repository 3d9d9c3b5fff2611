//! The same money operation several times at once, through the HTTP API (issue 28, item 8).
//! Each test fires the requests together and then checks the ledger and the balances
//! exactly. SQLite serialises writers, so the races can only show on PostgreSQL; both run.

use reqwest::{Method, StatusCode};
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde_json::{Value, json};
use tests::{TestApp, both_backends, error_code};

use tests::builders::billing::{ORDER, WIRE, funded_ready, signed_action};
use tests::builders::surveys::{call, create as create_survey, issue_key, survey};
use tests::builders::surveys::{enter, market_with};
use tests::builders::{
    Conversion, USD, live_campaign, now_ts, postback, publisher, session, static_slot,
};
use tests::builders::{campaign_body, create as create_campaign, launched, transition};

both_backends!(
    duplicate_postbacks_at_once_settle_one_conversion,
    approvals_of_one_wire_at_once_credit_it_once,
    captures_of_one_order_at_once_credit_it_once,
    allocations_of_one_survey_at_once_reserve_once,
    completes_for_the_last_quota_place_at_once_pay_one,
    approval_and_reversals_at_once_leave_one_outcome,
    campaign_approval_and_edit_at_once_approve_the_reviewed_revision,
    key_issues_at_once_leave_one_active_key,
);

static EMPTY: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| json!({}));

/// How many copies of each request run at once.
const AT_ONCE: usize = 8;

/// Runs `AT_ONCE` copies of `make(i)` together and returns their answers.
async fn together<F, Fut>(make: F) -> Vec<(StatusCode, Value)>
where
    F: Fn(usize) -> Fut,
    Fut: std::future::Future<Output = (StatusCode, Value)>,
{
    futures::future::join_all((0..AT_ONCE).map(make)).await
}

fn count_ok(answers: &[(StatusCode, Value)]) -> usize {
    answers.iter().filter(|(s, _)| s.is_success()).count()
}

/// A click on a live Custom S2S campaign (1.50 USD install goal): (campaign, key, secret, click).
async fn clicked(app: &TestApp, adv: &str) -> (String, String, String, String) {
    let admin = app.admin_token().await;
    let p = publisher(app, &admin).await;
    let (game, key_id, secret) =
        live_campaign(app, adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let (_, token) = session(app, &p, "racer-1").await;
    let click = launched(app, &token, &game, "race-01").await;
    (game, key_id, secret, click)
}

async fn conversions_of(app: &TestApp, campaign: &str) -> u64 {
    entity::conversion::Entity::find()
        .filter(entity::conversion::Column::CampaignId.eq(campaign.to_owned()))
        .count(&app.state.ctx.db)
        .await
        .expect("count")
}

async fn duplicate_postbacks_at_once_settle_one_conversion(app: TestApp) {
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let (game, key_id, secret, click) = clicked(&app, &adv).await;
    let (avail, reserved, spent) = app.balance(&adv).await;
    let conv = Conversion {
        click: &click,
        txn: "order-race-1",
        goal: "install",
        status: "approved",
    };
    let ts = now_ts(&app);
    let answers = together(|_| postback(&app, &game, &key_id, &secret, &conv, ts)).await;
    assert_eq!(
        count_ok(&answers),
        AT_ONCE,
        "a duplicate is answered, not refused: {answers:?}"
    );
    app.run_workers_once().await;
    assert_eq!(conversions_of(&app, &game).await, 1);
    assert_eq!(
        app.balance(&adv).await,
        (avail, reserved - 1_500_000, spent + 1_500_000),
        "paid once"
    );
}

async fn approvals_of_one_wire_at_once_credit_it_once(app: TestApp) {
    let (_, t) = funded_ready(&app).await;
    let admin = app.admin_token().await;
    let (s, f) = app
        .post(
            WIRE,
            Some(&t),
            &json!({"amount": 150_000_000, "currency": "USD", "externalReference": "RACE-WIRE-1"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{f}");
    let path = format!(
        "/admin/v1/funding/{}/approve",
        f["fundingId"].as_str().expect("id")
    );
    let answers = together(|_| app.post(&path, Some(&admin), &EMPTY)).await;
    assert_eq!(count_ok(&answers), 1, "{answers:?}");
    for (s, b) in answers.iter().filter(|(s, _)| !s.is_success()) {
        assert_eq!(*s, StatusCode::CONFLICT, "{b}");
    }
    assert_eq!(app.balance(&t).await, (150_000_000, 0, 0));
}

async fn captures_of_one_order_at_once_credit_it_once(app: TestApp) {
    let (_, t) = funded_ready(&app).await;
    let (s, order) = app
        .post(
            ORDER,
            Some(&t),
            &json!({"amount": 40_000_000, "currency": "USD", "idempotencyKey": "order:race:0001"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{order}");
    let res = app
        .client
        .post(app.url(&signed_action(&order, "approve")))
        .send()
        .await
        .expect("approve");
    assert!(res.status().is_redirection(), "{}", res.status());
    let capture = format!(
        "/performance-marketing/v2/billing/funding/payprovider/{}/capture",
        order["orderId"].as_str().expect("order")
    );
    let answers = together(|_| app.post(&capture, Some(&t), &EMPTY)).await;
    assert_eq!(
        count_ok(&answers),
        AT_ONCE,
        "a capture is idempotent: {answers:?}"
    );
    let first = &answers[0].1["fundingId"];
    assert!(first.is_string(), "{answers:?}");
    assert!(
        answers.iter().all(|(_, b)| &b["fundingId"] == first),
        "{answers:?}"
    );
    assert_eq!(app.balance(&t).await, (40_000_000, 0, 0));
}

async fn allocations_of_one_survey_at_once_reserve_once(app: TestApp) {
    let (_, t) = app.funded_advertiser(400 * USD).await;
    let key = issue_key(&app, &t, "SHA256").await;
    // 100 completes at 2.50 USD: 250 USD.
    let id = create_survey(&app, &key, &survey("Racing allocations")).await;
    let (s, q) = call(
        &app,
        &key,
        Method::POST,
        &format!("/api/v1/campaigns/{id}/campaignsquota"),
        Some(&json!({"name": "All", "num_respondents": 100})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{q}");
    let allocate = format!("/performance-marketing/v2/billing/survey-campaigns/{id}/allocate");
    let answers = together(|_| app.post(&allocate, Some(&t), &EMPTY)).await;
    assert_eq!(
        count_ok(&answers),
        AT_ONCE,
        "a repeated allocation is the first: {answers:?}"
    );
    assert_eq!(app.balance(&t).await, (150 * USD, 250 * USD, 0));
}

async fn completes_for_the_last_quota_place_at_once_pay_one(app: TestApp) {
    const CPI: i64 = 2_500_000;
    let m = market_with(&app, "SHA256", 1).await;
    let mut txs = Vec::new();
    for i in 0..3 {
        txs.push(
            enter(&app, &m, &format!("last-place-{i}"))
                .await
                .expect("entered"),
        );
    }
    let (avail, reserved, spent) = app.balance(&m.adv).await;
    let path = format!("/api/v1/campaigns/{}/respondent-status", m.campaign);
    let bodies: Vec<Value> = txs
        .iter()
        .map(|tx| json!({"transaction_id": tx, "status": "complete"}))
        .collect();
    let answers = futures::future::join_all(
        bodies
            .iter()
            .map(|b| call(&app, &m.key, Method::POST, &path, Some(b))),
    )
    .await;
    let paid = answers.iter().filter(|(_, r)| r["paid"] == true).count();
    assert_eq!(paid, 1, "one place, one paid complete: {answers:?}");
    for (s, r) in &answers {
        assert_eq!(*s, StatusCode::OK, "{r}");
        if r["paid"] != true {
            assert_eq!(r["status"], "OVERQUOTA", "{r}");
        }
    }
    assert_eq!(
        app.balance(&m.adv).await,
        (avail, reserved - CPI, spent + CPI)
    );
}

async fn approval_and_reversals_at_once_leave_one_outcome(app: TestApp) {
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let (game, key_id, secret, click) = clicked(&app, &adv).await;
    let before = app.balance(&adv).await;
    let ts = now_ts(&app);
    let report = |status: &'static str| Conversion {
        click: &click,
        txn: "order-race-2",
        goal: "install",
        status,
    };
    let (s, b) = postback(&app, &game, &key_id, &secret, &report("approved"), ts).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    app.run_workers_once().await;
    let (approved, reversed) = (report("approved"), report("reversed"));
    let answers = together(|i| {
        let c = if i % 2 == 0 { &reversed } else { &approved };
        postback(&app, &game, &key_id, &secret, c, ts)
    })
    .await;
    app.run_workers_once().await;
    for (s, b) in &answers {
        assert!(
            *s == StatusCode::OK
                || (*s == StatusCode::CONFLICT && error_code(b) == "transaction_conflict"),
            "{s}: {b}"
        );
    }
    let rows = entity::conversion::Entity::find()
        .filter(entity::conversion::Column::CampaignId.eq(game.clone()))
        .all(&app.state.ctx.db)
        .await
        .expect("rows");
    assert_eq!(rows.len(), 1, "{rows:?}");
    // Once reversed a conversion stays reversed; the payout went back to the wallet's
    // available balance exactly once.
    assert_eq!(
        rows[0].status,
        entity::values::ReportedStatus::Reversed,
        "{rows:?}"
    );
    let (avail, reserved, spent) = before;
    assert_eq!(
        app.balance(&adv).await,
        (avail + 1_500_000, reserved - 1_500_000, spent),
        "paid once, given back once"
    );
}

async fn campaign_approval_and_edit_at_once_approve_the_reviewed_revision(app: TestApp) {
    let (_, t) = app.funded_advertiser(1_000 * USD).await;
    let admin = app.admin_token().await;
    let id = create_campaign(&app, &t, &campaign_body("CUSTOM_S2S", 200 * USD)).await;
    let path = format!("/performance-marketing/v2/campaigns/{id}");
    let (s, key) = app
        .post(
            &format!("{path}/tracking/custom-s2s/credentials"),
            Some(&t),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{key}");
    let (s, c) = transition(&app, &t, &id, "IN_REVIEW").await;
    assert_eq!(s, StatusCode::OK, "{c}");
    let reviewed = c["revision"].as_i64().expect("revision");
    let approve = format!("/admin/v1/offer-campaigns/{id}/approve");
    let (approval_body, edit_body) = (
        json!({"revision": reviewed}),
        json!({"name": "Renamed while in review"}),
    );
    let (approval, edit) = tokio::join!(
        app.post(&approve, Some(&admin), &approval_body),
        app.patch(&path, Some(&t), &edit_body)
    );
    assert!(
        approval.0 == StatusCode::OK
            || (approval.0 == StatusCode::CONFLICT
                && error_code(&approval.1) == "revision_changed"),
        "{approval:?}"
    );
    assert_eq!(edit.0, StatusCode::OK, "{edit:?}");
    let (_, now) = app.get(&path, Some(&t)).await;
    if approval.0 == StatusCode::OK {
        // The reviewed revision is live; the edit is a newer revision waiting for review.
        assert_eq!(now["liveRevision"], reviewed, "{now}");
        assert_eq!(now["name"], "Renamed while in review", "{now}");
        assert!(now["revision"].as_i64() > Some(reviewed), "{now}");
    } else {
        assert!(now["liveRevision"].is_null(), "nothing went live: {now}");
    }
}

async fn key_issues_at_once_leave_one_active_key(app: TestApp) {
    use entity::{app_key, static_key};
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let path = format!("/publisher/v2/placements/{}/app-key", p.placement);
    let answers = together(|_| app.post(&path, Some(&p.token), &EMPTY)).await;
    assert_eq!(count_ok(&answers), AT_ONCE, "{answers:?}");
    let active = app_key::Entity::find()
        .filter(app_key::Column::PlacementId.eq(p.placement.clone()))
        .filter(app_key::Column::RevokedAt.is_null())
        .count(&app.state.ctx.db)
        .await
        .expect("count");
    assert_eq!(active, 1);

    let slot = static_slot(&app, &p).await;
    let issue = format!(
        "/publisher/v2/placements/{}/ad-slots/{slot}/static-key",
        p.placement
    );
    let expires = (app.clock_now() + chrono::Duration::days(30)).to_rfc3339();
    let body = json!({"expiresAt": expires, "reason": "rotation race"});
    let answers = together(|_| app.post(&issue, Some(&p.token), &body)).await;
    assert_eq!(count_ok(&answers), AT_ONCE, "{answers:?}");
    let active = static_key::Entity::find()
        .filter(static_key::Column::AdSlotId.eq(slot))
        .filter(static_key::Column::DeactivatedAt.is_null())
        .count(&app.state.ctx.db)
        .await
        .expect("count");
    assert_eq!(active, 1);
}
