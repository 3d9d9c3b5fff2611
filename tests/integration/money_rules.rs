//! Money rules that decide what is paid (issue 28, item 11): an offer's per-user, daily and
//! daily-budget caps, the attribution window and unknown goals; a survey's outcomes other
//! than complete and its own limits. Each case checks the conversion's settlement state and
//! the advertiser's spend to the micro.

use chrono::Duration;
use reqwest::{Method, StatusCode};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::json;
use tests::{TestApp, both_backends};

use tests::builders::callbacks::click;
use tests::builders::campaign_body;
use tests::builders::surveys::{call, survey_status};
use tests::builders::surveys::{enter, market_with};
use tests::builders::{Conversion, USD, live_campaign, now_ts, postback, publisher};
use tests::builders::{approve, settlement_of, transition};

both_backends!(
    offer_caps_window_and_goals_decide_what_is_paid,
    survey_outcomes_and_limits_decide_what_is_paid,
    a_posting_refused_for_lack_of_money_leaves_nothing_behind,
    a_conversion_refused_for_budget_is_paid_after_a_top_up,
    a_paused_campaign_pays_late_conversions_within_its_budget_only,
    a_surveys_total_completes_ends_its_payments,
);

const PAYOUT: i64 = 1_500_000;

/// A live Custom S2S campaign (1.50 USD install goal) with `caps`: (id, key id, secret).
async fn capped(
    app: &TestApp,
    adv: &str,
    admin: &str,
    caps: serde_json::Value,
) -> (String, String, String) {
    let mut body = campaign_body("CUSTOM_S2S", 100 * USD);
    body["caps"] = caps;
    live_campaign(app, adv, admin, body).await
}

async fn offer_caps_window_and_goals_decide_what_is_paid(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (adv_user, adv) = app.funded_advertiser(1_000 * USD).await;
    let per_user = capped(&app, &adv, &admin, json!({"perUser": 1})).await;
    let daily = capped(&app, &adv, &admin, json!({"dailyConversions": 2})).await;
    let budget = capped(&app, &adv, &admin, json!({"dailyBudgetMicros": 3_000_000})).await;
    // Clicks first: sessions last fifteen minutes, the clock moves below.
    let (_, u1) = click(&app, &p, "u1", &per_user.0).await;
    let (_, stray) = click(&app, &p, "stray", &per_user.0).await;
    let (_, late) = click(&app, &p, "late", &per_user.0).await;
    let mut daily_clicks = Vec::new();
    for i in 0..4 {
        daily_clicks.push(click(&app, &p, &format!("d{i}"), &daily.0).await.1);
    }
    let mut budget_clicks = Vec::new();
    for i in 0..3 {
        budget_clicks.push(click(&app, &p, &format!("b{i}"), &budget.0).await.1);
    }
    let (_, _, spent_before) = app.balance(&adv).await;
    let report = |c: &(String, String, String), click: String, txn: String, goal: &'static str| {
        let (app, c) = (&app, c.clone());
        async move {
            let conv = Conversion {
                click: &click,
                txn: &txn,
                goal,
                status: "approved",
            };
            let (s, r) = postback(app, &c.0, &c.1, &c.2, &conv, now_ts(app)).await;
            assert_eq!(s, StatusCode::OK, "{r}");
        }
    };

    // One conversion per user and goal: a second transaction of the same click is capped.
    report(&per_user, u1.clone(), "u1-a".into(), "install").await;
    report(&per_user, u1, "u1-b".into(), "install").await;
    // A goal the campaign does not have pays nothing.
    report(&per_user, stray, "stray-a".into(), "level99").await;
    // Two conversions a day: the third of the day is capped, the next day pays again.
    for (i, c) in daily_clicks.iter().take(3).enumerate() {
        report(&daily, c.clone(), format!("d{i}"), "install").await;
    }
    // Three USD a day at 1.50 a conversion: the third is capped.
    for (i, c) in budget_clicks.iter().enumerate() {
        report(&budget, c.clone(), format!("b{i}"), "install").await;
    }
    app.clock.advance(Duration::days(1));
    report(&daily, daily_clicks[3].clone(), "d3".into(), "install").await;
    // Reported after the 30-day attribution window of its launch: not paid.
    app.clock.advance(Duration::hours(721));
    report(&per_user, late, "late-a".into(), "install").await;
    app.run_workers_once().await;

    let expected = [
        (&per_user.0, "u1-a", "APPROVED"),
        (&per_user.0, "u1-b", "CAP_REACHED"),
        (&per_user.0, "stray-a", "UNKNOWN_GOAL"),
        (&per_user.0, "late-a", "OUT_OF_WINDOW"),
        (&daily.0, "d0", "APPROVED"),
        (&daily.0, "d1", "APPROVED"),
        (&daily.0, "d2", "CAP_REACHED"),
        (&daily.0, "d3", "APPROVED"),
        (&budget.0, "b0", "APPROVED"),
        (&budget.0, "b1", "APPROVED"),
        (&budget.0, "b2", "CAP_REACHED"),
    ];
    for (campaign, txn, state) in expected {
        assert_eq!(settlement_of(&app, campaign, txn).await, state, "{txn}");
    }
    // The dashboard token expired while the clock moved on.
    let adv = app.token(&adv_user).await;
    let (_, _, spent) = app.balance(&adv).await;
    assert_eq!(
        spent - spent_before,
        6 * PAYOUT,
        "six approved conversions, nothing else"
    );
}

async fn survey_outcomes_and_limits_decide_what_is_paid(app: TestApp) {
    const CPI: i64 = 2_500_000;
    let m = market_with(&app, "SHA256", 10).await;
    let base = format!("/api/v1/campaigns/{}", m.campaign);
    // The survey's own daily limit: two completes a day (the test survey allows 50).
    let (s, c) = survey_status(&app, &m.key, &base, "PAUSED").await;
    assert_eq!(s, StatusCode::OK, "{c}");
    let mut txs = Vec::new();
    for i in 0..6 {
        txs.push(enter(&app, &m, &format!("outcome-{i}")).await);
    }
    let (avail, reserved, spent) = app.balance(&m.adv).await;
    let report = |tx: Option<String>, status: &'static str| {
        let (app, m, path) = (&app, &m, format!("{base}/respondent-status"));
        async move {
            let (s, r) = call(
                app,
                &m.key,
                Method::POST,
                &path,
                Some(&json!({"transaction_id": tx, "status": status})),
            )
            .await;
            assert_eq!(s, StatusCode::OK, "{r}");
            (
                r["status"].as_str().unwrap_or_default().to_owned(),
                r["paid"].as_bool(),
            )
        }
    };
    // A paused survey sends nobody in.
    assert!(txs.iter().all(Option::is_none), "{txs:?}");
    let (s, c) = survey_status(&app, &m.key, &base, "LIVE").await;
    assert_eq!(s, StatusCode::OK, "{c}");
    let mut txs = Vec::new();
    for i in 0..6 {
        txs.push(
            enter(&app, &m, &format!("outcome-{i}"))
                .await
                .expect("entered"),
        );
    }
    assert_eq!(
        report(Some(txs[0].clone()), "terminate").await,
        ("TERMINATED".to_owned(), Some(false))
    );
    assert_eq!(
        report(Some(txs[1].clone()), "quality_fail").await,
        ("QUALITY_FAIL".to_owned(), Some(false))
    );
    assert_eq!(
        report(Some(txs[2].clone()), "overquota").await,
        ("OVERQUOTA".to_owned(), Some(false))
    );
    assert_eq!(
        report(Some(txs[3].clone()), "complete").await,
        ("COMPLETE".to_owned(), Some(true))
    );
    assert_eq!(
        app.balance(&m.adv).await,
        (avail, reserved - CPI, spent + CPI),
        "only the complete moved money"
    );
    // The survey's daily limit: the market's survey takes 50 a day; lower it to one.
    let entity_id = m.campaign.clone();
    {
        use sea_orm::{ActiveModelTrait, IntoActiveModel, Set};
        let row = entity::survey_campaign::Entity::find_by_id(entity_id)
            .one(&app.state.ctx.db)
            .await
            .expect("q")
            .expect("row");
        let mut a = row.into_active_model();
        a.max_daily_completes = Set(Some(1));
        a.update(&app.state.ctx.db).await.expect("limit");
    }
    assert_eq!(
        report(Some(txs[4].clone()), "complete").await,
        ("OVERQUOTA".to_owned(), Some(false))
    );
    // The daily limit's refusal moved nothing (the day rollover is the offers' test above).
    assert_eq!(
        app.balance(&m.adv).await,
        (avail, reserved - CPI, spent + CPI),
        "one complete paid"
    );
}

/// A posting refused for lack of money is committed around by its caller (the conversion
/// becomes NO_BUDGET), so it must leave nothing: not the legs moved before the one that found
/// too little, not its once-only key. Once the money is there, the same key posts.
async fn a_posting_refused_for_lack_of_money_leaves_nothing_behind(app: TestApp) {
    use app::domain::billing::ledger::{self, Kind, Leg, PostError};
    let (adv, _) = app.funded_advertiser(100 * USD).await;
    let adv = adv.account_id;
    // The credit first, so it has moved when the debit is refused.
    let legs = |micros: i64| {
        vec![
            Leg::new(&adv, Kind::Spent, "cmp_test", micros),
            Leg::new(&adv, Kind::Available, "", -micros),
        ]
    };
    let post = |micros: i64| {
        let (ctx, legs) = (app.state.ctx.clone(), legs(micros));
        let adv = adv.clone();
        async move {
            let txn = app::domain::db::begin(&ctx.db).await.expect("begin");
            let out = ledger::post(
                &txn,
                ctx.now(),
                entity::values::TransactionKind::CampaignSpend,
                &adv,
                ("campaign", "cmp_test"),
                "test_spend:1",
                &legs,
            )
            .await;
            txn.commit().await.expect("commit");
            out
        }
    };
    assert!(matches!(
        post(150 * USD).await,
        Err(PostError::Insufficient)
    ));
    let db = &app.state.ctx.db;
    let kept = entity::ledger_transaction::Entity::find()
        .filter(entity::ledger_transaction::Column::DedupeKey.eq("test_spend:1"))
        .all(db)
        .await
        .expect("rows");
    assert!(kept.is_empty(), "the refused posting's key is free");
    let spent = ledger::account_balance(db, &adv, Kind::Spent, "cmp_test")
        .await
        .expect("spent");
    assert_eq!(
        spent, 0,
        "the credit moved before the refusal is taken back"
    );
    assert_eq!(
        ledger::reconcile(db).await.expect("reconcile"),
        ledger::Reconciliation::default()
    );

    assert!(
        post(USD).await.is_ok(),
        "the same key posts once the money is there"
    );
    let spent = ledger::account_balance(db, &adv, Kind::Spent, "cmp_test")
        .await
        .expect("spent");
    assert_eq!(spent, USD);
    let txn = app::domain::db::begin(db).await.expect("begin");
    let again = ledger::post(
        &txn,
        app.state.ctx.now(),
        entity::values::TransactionKind::CampaignSpend,
        &adv,
        ("campaign", "cmp_test"),
        "test_spend:1",
        &legs(USD),
    )
    .await;
    assert!(matches!(again, Err(PostError::AlreadyPosted)), "{again:?}");
    txn.rollback().await.expect("rollback");
    assert_eq!(
        ledger::reconcile(db).await.expect("reconcile"),
        ledger::Reconciliation::default()
    );
}

/// Reports `txn` for `click` as approved on campaign `c` (id, key id, secret).
async fn approved(app: &TestApp, c: &(String, String, String), click: &str, txn: &str) {
    let conv = Conversion {
        click,
        txn,
        goal: "install",
        status: "approved",
    };
    let (s, r) = postback(app, &c.0, &c.1, &c.2, &conv, now_ts(app)).await;
    assert_eq!(s, StatusCode::OK, "{r}");
}

/// A live campaign whose budget is spent refuses the next conversion as NO_BUDGET; once
/// the advertiser raises the budget (approved), the same transaction reported again is
/// paid (issue 52, item 5: the NO_BUDGET retry in `conversions/settlement`).
async fn a_conversion_refused_for_budget_is_paid_after_a_top_up(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (_, adv) = app.funded_advertiser(100 * USD).await;
    let c = live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 2 * USD)).await;
    let (_, first) = click(&app, &p, "first", &c.0).await;
    let (_, second) = click(&app, &p, "second", &c.0).await;
    approved(&app, &c, &first, "t-1").await;
    approved(&app, &c, &second, "t-2").await;
    app.run_workers_once().await;
    assert_eq!(settlement_of(&app, &c.0, "t-1").await, "APPROVED");
    assert_eq!(
        settlement_of(&app, &c.0, "t-2").await,
        "NO_BUDGET",
        "0.50 USD left"
    );
    let (_, _, spent_before) = app.balance(&adv).await;

    let (s, e) = app
        .patch(
            &format!("/performance-marketing/v2/campaigns/{}", c.0),
            Some(&adv),
            &json!({"budgetMicros": 10 * USD}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{e}");
    let (s, e) = approve(&app, &admin, &c.0).await;
    assert_eq!(s, StatusCode::OK, "{e}");
    // Reported again a minute later (the same report twice is a retry, not a new report).
    app.clock.advance(Duration::minutes(1));
    approved(&app, &c, &second, "t-2").await;
    app.run_workers_once().await;
    assert_eq!(
        settlement_of(&app, &c.0, "t-2").await,
        "APPROVED",
        "paid after the top-up"
    );
    let (_, _, spent) = app.balance(&adv).await;
    assert_eq!(spent - spent_before, PAYOUT);
}

/// A click made while LIVE keeps its payout after a pause, paid from the wallet, but only
/// within the campaign's budget (issue 52, item 5).
async fn a_paused_campaign_pays_late_conversions_within_its_budget_only(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (_, adv) = app.funded_advertiser(100 * USD).await;
    // A budget of exactly two payouts: the second late conversion fills it to the micro and
    // is paid (a `>` made `>=` in the budget check survived the mutation run until this),
    // the third is past it.
    let c = live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 2 * PAYOUT)).await;
    let (_, first) = click(&app, &p, "first", &c.0).await;
    let (_, second) = click(&app, &p, "second", &c.0).await;
    let (_, third) = click(&app, &p, "third", &c.0).await;
    let (s, e) = transition(&app, &adv, &c.0, "PAUSED").await;
    assert_eq!(s, StatusCode::OK, "{e}");
    let (_, _, spent_before) = app.balance(&adv).await;
    approved(&app, &c, &first, "t-1").await;
    approved(&app, &c, &second, "t-2").await;
    approved(&app, &c, &third, "t-3").await;
    app.run_workers_once().await;
    assert_eq!(
        settlement_of(&app, &c.0, "t-1").await,
        "APPROVED",
        "a live click keeps its payout"
    );
    assert_eq!(
        settlement_of(&app, &c.0, "t-2").await,
        "APPROVED",
        "the budget to the micro"
    );
    assert_eq!(
        settlement_of(&app, &c.0, "t-3").await,
        "NO_BUDGET",
        "past the budget though the wallet could pay"
    );
    let (_, _, spent) = app.balance(&adv).await;
    assert_eq!(spent - spent_before, 2 * PAYOUT);
}

/// A survey with `total_completes` pays that many completes and no more: the next one is
/// OVERQUOTA and unpaid, and the fetch stops offering it (issue 52, item 8).
async fn a_surveys_total_completes_ends_its_payments(app: TestApp) {
    use sea_orm::{ActiveModelTrait, IntoActiveModel, Set};
    const CPI: i64 = 2_500_000;
    let m = market_with(&app, "SHA256", 10).await;
    let mut txs = Vec::new();
    for i in 0..3 {
        txs.push(
            enter(&app, &m, &format!("total-{i}"))
                .await
                .expect("entered"),
        );
    }
    let row = entity::survey_campaign::Entity::find_by_id(m.campaign.clone())
        .one(&app.state.ctx.db)
        .await
        .expect("q")
        .expect("row");
    let mut a = row.into_active_model();
    a.total_completes = Set(Some(2));
    a.update(&app.state.ctx.db).await.expect("limit");
    app.state
        .ctx
        .announce([app::domain::changes::Change::Surveys]);
    let (_, _, spent) = app.balance(&m.adv).await;
    let report = |tx: String| {
        let (app, m) = (&app, &m);
        async move {
            let (s, r) = tests::builders::surveys::report_outcome(app, m, &tx, "complete").await;
            assert_eq!(s, StatusCode::OK, "{r}");
            (
                r["status"].as_str().unwrap_or_default().to_owned(),
                r["paid"].as_bool(),
            )
        }
    };
    assert_eq!(
        report(txs[0].clone()).await,
        ("COMPLETE".to_owned(), Some(true))
    );
    assert_eq!(
        report(txs[1].clone()).await,
        ("COMPLETE".to_owned(), Some(true))
    );
    assert_eq!(
        report(txs[2].clone()).await,
        ("OVERQUOTA".to_owned(), Some(false)),
        "the third complete is past the total"
    );
    assert_eq!(
        app.balance(&m.adv).await.2,
        spent + 2 * CPI,
        "two completes paid"
    );
    assert!(
        enter(&app, &m, "total-late").await.is_none(),
        "a survey that reached its total is not offered"
    );
}
