//! Publisher earnings (issue 34): a paid conversion credits the publisher's share as
//! pending and the rest as platform revenue in the advertiser's posting; the hold releases
//! it; a reversal takes back exactly what was paid, from pending or, once released, from
//! available (which may go negative and is made good by later releases).

use chrono::Duration;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::builders::callbacks::{World, world};
use tests::builders::earnings::{
    assert_reconciled, conversion, earnings, micros, no_reserve, paid, reverse,
};
use tests::builders::surveys::{enter, market, report_outcome};
use tests::builders::{USD, campaign_body};
use tests::{TestApp, both_backends};

use app::domain::billing::ledger::{self, Kind, Leg};
use app::domain::earnings::backfill::{self, Backfill};
use entity::conversion as cnv;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

/// 70 % of the 1.50 USD goal payout, and the platform's 30 %.
const SHARE: i64 = 1_050_000;
const REVENUE: i64 = 450_000;

async fn conversion_earns_pending_the_hold_releases_it(app: TestApp) {
    let w = world(app, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    no_reserve(&w.app, &w.p.user.account_id).await;
    let start = w.app.clock_now();
    paid(&w, "user-1", "tx-1").await;
    let e = earnings(&w).await;
    assert_eq!(micros(&e, "pendingMicros"), SHARE, "{e}");
    assert_eq!(micros(&e, "availableMicros"), 0);
    assert_eq!(e["terms"]["holdDays"], 30);
    assert_eq!(e["terms"]["minimumPayoutMicros"], 50 * USD);
    let next: chrono::DateTime<chrono::Utc> =
        serde_json::from_value(e["nextReleaseAt"].clone()).expect("nextReleaseAt");
    assert_eq!(next, start + Duration::days(30));
    let db = &w.app.state.ctx.db;
    let revenue = ledger::account_balance(db, "", Kind::PlatformRevenue, &w.campaign)
        .await
        .expect("revenue");
    assert_eq!(revenue, REVENUE);
    assert_reconciled(&w.app).await;

    // A day before the hold ends nothing moves; at its end everything does.
    w.app.clock.advance(Duration::days(29));
    w.app.run_workers_once().await;
    assert_eq!(micros(&earnings(&w).await, "pendingMicros"), SHARE);
    w.app.clock.advance(Duration::days(1));
    w.app.run_workers_once().await;
    let e = earnings(&w).await;
    assert_eq!(micros(&e, "pendingMicros"), 0, "{e}");
    assert_eq!(micros(&e, "availableMicros"), SHARE);
    assert!(e["nextReleaseAt"].is_null());
    assert_reconciled(&w.app).await;
    // Running the release again releases nothing twice.
    w.app.run_workers_once().await;
    assert_eq!(micros(&earnings(&w).await, "availableMicros"), SHARE);

    // A new conversion earns pending; reversing the released one takes it out of
    // available, which goes negative until the next release makes it good.
    paid(&w, "user-2", "tx-2").await;
    let advertiser = conversion(&w, "tx-1").await.advertiser_id;
    let wallet = || async {
        let b = ledger::balance(db, &advertiser).await.expect("balance");
        (b.available_micros.get(), b.spent_micros.get())
    };
    let (available_before, spent_before) = wallet().await;
    assert_eq!(reverse(&w, "tx-1").await, "REVERSED");
    let e = earnings(&w).await;
    assert_eq!(micros(&e, "availableMicros"), 0, "{e}");
    assert_eq!(micros(&e, "pendingMicros"), SHARE);
    let (available_after, spent_after) = wallet().await;
    assert_eq!(
        spent_before - spent_after,
        1_500_000,
        "the advertiser is refunded"
    );
    assert_eq!(
        available_after - available_before,
        1_500_000,
        "to its available balance"
    );
    let revenue = ledger::account_balance(db, "", Kind::PlatformRevenue, &w.campaign)
        .await
        .expect("revenue");
    assert_eq!(revenue, REVENUE, "one conversion's revenue is left");
    assert_reconciled(&w.app).await;

    let token = w.app.token(&w.p.user).await;
    let (s, m) = w
        .app
        .get("/publisher/v2/earnings/movements?limit=2", Some(&token))
        .await;
    assert_eq!(s, StatusCode::OK, "{m}");
    assert_eq!(m["items"].as_array().map(Vec::len), Some(2), "{m}");
    assert_eq!(m["items"][0]["kind"], "reversal", "{m}");
    assert_eq!(m["items"][0]["amountMicros"], -SHARE);
    assert_eq!(m["items"][0]["balance"], "AVAILABLE");
    let cursor = m["nextCursor"].as_str().expect("more pages").to_owned();
    let (s, rest) = w
        .app
        .get(
            &format!("/publisher/v2/earnings/movements?cursor={cursor}"),
            Some(&token),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{rest}");
    let all: Vec<&Value> = m["items"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(rest["items"].as_array().into_iter().flatten())
        .collect();
    let pending: i64 = all
        .iter()
        .filter(|i| i["balance"] == "PENDING")
        .filter_map(|i| i["amountMicros"].as_i64())
        .sum();
    let available: i64 = all
        .iter()
        .filter(|i| i["balance"] == "AVAILABLE")
        .filter_map(|i| i["amountMicros"].as_i64())
        .sum();
    assert_eq!(
        (pending, available),
        (SHARE, 0),
        "the movements add up to the balance"
    );
}

async fn a_reversal_in_the_hold_takes_back_pending_and_revenue(app: TestApp) {
    let w = world(app, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    paid(&w, "user-1", "tx-1").await;
    assert_eq!(reverse(&w, "tx-1").await, "REVERSED");
    let e = earnings(&w).await;
    assert_eq!(
        (micros(&e, "pendingMicros"), micros(&e, "availableMicros")),
        (0, 0)
    );
    let db = &w.app.state.ctx.db;
    for (owner, kind) in [("", Kind::PlatformRevenue), ("", Kind::SpendClearing)] {
        let v = ledger::account_balance(db, owner, kind, &w.campaign)
            .await
            .expect("balance");
        assert_eq!(v, 0, "{kind:?}");
    }
    // Nothing is released later for a reversed conversion.
    w.app.clock.advance(Duration::days(31));
    w.app.run_workers_once().await;
    let e = earnings(&w).await;
    assert_eq!(micros(&e, "availableMicros"), 0, "{e}");
    assert_reconciled(&w.app).await;
}

async fn an_administrator_sets_a_publishers_hold(app: TestApp) {
    let w = world(app, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let admin = w.app.admin_token().await;
    let path = format!("/admin/v1/publishers/{}/earning-terms", w.p.user.account_id);
    let (s, e) = w
        .app
        .put(&path, Some(&w.p.token), &json!({"holdDays": 7}))
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{e}");
    let (s, e) = w
        .app
        .put(&path, Some(&admin), &json!({"holdDays": 400}))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let (s, e) = w
        .app
        .put(
            "/admin/v1/publishers/acc_nobody/earning-terms",
            Some(&admin),
            &json!({"holdDays": 7}),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{e}");
    let (s, t) = w
        .app
        .put(
            &path,
            Some(&admin),
            &json!({"holdDays": 7, "reservePercent": 0}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{t}");
    assert_eq!(t["holdDays"], 7);
    assert_eq!(
        t["minimumPayoutMicros"],
        50 * USD,
        "an absent field keeps the default"
    );
    let (s, t) = w.app.get(&path, Some(&admin)).await;
    assert_eq!((s, t["holdDays"].clone()), (StatusCode::OK, json!(7)));

    paid(&w, "user-1", "tx-1").await;
    w.app.clock.advance(Duration::days(7));
    w.app.run_workers_once().await;
    let e = earnings(&w).await;
    assert_eq!(micros(&e, "availableMicros"), SHARE, "{e}");
    assert_eq!(e["terms"]["holdDays"], 7);
    assert_reconciled(&w.app).await;
}

async fn a_survey_complete_earns_like_a_conversion(app: TestApp) {
    let m = market(&app).await;
    let tx = enter(&app, &m, "resp-1").await.expect("entered");
    let (s, r) = report_outcome(&app, &m, &tx, "complete").await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["paid"], true, "{r}");
    let (s, e) = app.get("/publisher/v2/earnings", Some(&m.pub_token)).await;
    assert_eq!(s, StatusCode::OK, "{e}");
    no_reserve(&app, e["publisherId"].as_str().expect("publisherId")).await;
    // 70 % of the 2.50 USD cost per complete.
    assert_eq!(micros(&e, "pendingMicros"), 1_750_000, "{e}");
    let revenue =
        ledger::account_balance(&app.state.ctx.db, "", Kind::PlatformRevenue, &m.campaign)
            .await
            .expect("revenue");
    assert_eq!(revenue, 750_000);
    assert_reconciled(&app).await;
    app.clock.advance(Duration::days(30));
    app.run_workers_once().await;
    let publisher = e["publisherId"].as_str().expect("publisherId");
    let sums = ledger::balances_by_kind(&app.state.ctx.db, publisher)
        .await
        .expect("balances");
    assert_eq!(sums.get(&Kind::PublisherAvailable), Some(&1_750_000));
    assert_eq!(sums.get(&Kind::PublisherPending), Some(&0));
    assert_reconciled(&app).await;
}

async fn the_advertiser_lists_its_conversions(app: TestApp) {
    let w = world(app, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    paid(&w, "user-1", "tx-1").await;
    paid(&w, "user-2", "tx-2").await;
    assert_eq!(reverse(&w, "tx-1").await, "REVERSED");
    let list = |q: String| {
        let w = &w;
        async move {
            let (s, l) = w
                .app
                .get(
                    &format!("/performance-marketing/v2/conversions{q}"),
                    Some(&w.adv),
                )
                .await;
            assert_eq!(s, StatusCode::OK, "{q}: {l}");
            l
        }
    };
    let all = list(String::new()).await;
    assert_eq!(all["items"].as_array().map(Vec::len), Some(2), "{all}");
    assert_eq!(all["items"][0]["transactionId"], "tx-2", "newest first");
    let one = list("?transactionId=tx-1".into()).await;
    assert_eq!(one["items"][0]["settlement"], "REVERSED", "{one}");
    assert_eq!(one["items"][0]["payoutMicros"], 1_500_000);
    assert!(one["items"][0]["reversedAt"].is_string());
    let approved = list(format!("?status=approved&campaignId={}", w.campaign)).await;
    assert_eq!(
        approved["items"].as_array().map(Vec::len),
        Some(1),
        "{approved}"
    );
    let paged = list("?limit=1".into()).await;
    let next = paged["nextCursor"]
        .as_str()
        .expect("a second page")
        .to_owned();
    let rest = list(format!("?limit=1&cursor={next}")).await;
    assert_eq!(rest["items"][0]["transactionId"], "tx-1");
    assert!(rest["nextCursor"].is_null());
    let none = list("?from=2030-01-01".into()).await;
    assert_eq!(none["items"].as_array().map(Vec::len), Some(0));

    let res = w
        .app
        .client
        .get(
            w.app
                .url("/performance-marketing/v2/conversions?format=csv"),
        )
        .bearer_auth(&w.adv)
        .send()
        .await
        .expect("csv");
    assert_eq!(res.status(), StatusCode::OK);
    let csv = res.text().await.expect("body");
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(csv.starts_with("conversion_id,campaign_id,transaction_id"));

    for q in [
        "from=2026-12-02&to=2026-12-01",
        "to=+262142-12-31",
        "from=0001-01-01",
    ] {
        let (s, e) = w
            .app
            .get(
                &format!("/performance-marketing/v2/conversions?{q}"),
                Some(&w.adv),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{q}: {e}");
    }
    let (_, other) = w.app.funded_advertiser(0).await;
    let (s, theirs) = w
        .app
        .get("/performance-marketing/v2/conversions", Some(&other))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        theirs["items"].as_array().map(Vec::len),
        Some(0),
        "another advertiser sees none"
    );
}

/// Turns the world's paid conversions into conversions paid before earnings were kept: no
/// earnings recorded on them, and the earnings legs of their postings taken back.
async fn as_before_earnings(w: &World) {
    let db = &w.app.state.ctx.db;
    let rows = cnv::Entity::find()
        .filter(cnv::Column::CampaignId.eq(w.campaign.clone()))
        .all(db)
        .await
        .expect("conversions");
    let payouts: i64 = rows.iter().map(|c| c.payout_micros).sum();
    let shares: i64 = rows.iter().map(|c| c.publisher_earnings_micros).sum();
    let legs = [
        Leg::new("", Kind::SpendClearing, &w.campaign, payouts),
        Leg::new(
            &w.p.user.account_id,
            Kind::PublisherPending,
            &w.campaign,
            -shares,
        ),
        Leg::new("", Kind::PlatformRevenue, &w.campaign, shares - payouts),
    ];
    let now = w.app.clock_now();
    ledger::post(
        db,
        now,
        ledger::TransactionKind::Adjustment,
        "",
        ("campaign", &w.campaign),
        "undo-earnings",
        &legs,
    )
    .await
    .expect("earnings legs taken back");
    cnv::Entity::update_many()
        .col_expr(
            cnv::Column::PublisherId,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            cnv::Column::EarningsState,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            cnv::Column::EarningsAt,
            Expr::value(Option::<chrono::DateTime<chrono::Utc>>::None),
        )
        .filter(cnv::Column::CampaignId.eq(w.campaign.clone()))
        .exec(db)
        .await
        .expect("legacy");
}

/// Conversions paid by an older version get their earnings from `server earnings-backfill`:
/// pending, released after the hold counted from when each was paid, reversible like any.
async fn conversions_paid_before_earnings_are_backfilled(app: TestApp) {
    let w = world(app, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    no_reserve(&w.app, &w.p.user.account_id).await;
    paid(&w, "user-1", "tx-1").await;
    w.app.clock.advance(Duration::days(20));
    paid(&w, "user-2", "tx-2").await;
    as_before_earnings(&w).await;
    assert_eq!(micros(&earnings(&w).await, "pendingMicros"), 0);
    let ctx = &w.app.state.ctx;
    let done = backfill::run(ctx).await.expect("backfill");
    assert_eq!(
        (done.conversions, done.campaigns, done.skipped.len()),
        (2, 1, 0),
        "{done:?}"
    );
    assert_eq!(micros(&earnings(&w).await, "pendingMicros"), 2 * SHARE);
    assert_reconciled(&w.app).await;
    assert_eq!(
        backfill::run(ctx).await.expect("again"),
        Backfill::default(),
        "nothing twice"
    );

    // The hold counts from when each was paid: tx-1 is 31 days old, tx-2 11.
    w.app.clock.advance(Duration::days(11));
    w.app.run_workers_once().await;
    let e = earnings(&w).await;
    assert_eq!(
        (micros(&e, "availableMicros"), micros(&e, "pendingMicros")),
        (SHARE, SHARE),
        "{e}"
    );
    assert_eq!(reverse(&w, "tx-2").await, "REVERSED");
    assert_eq!(
        micros(&earnings(&w).await, "pendingMicros"),
        0,
        "taken back"
    );
    assert_reconciled(&w.app).await;

    // A paid conversion with no spend behind it (not this service's) is left alone.
    let mut ghost: cnv::ActiveModel = conversion(&w, "tx-1").await.into();
    ghost.id = Set("cnv_ghost".into());
    ghost.transaction_id = Set("tx-ghost".into());
    ghost.click_id = Set("clk_ghost".into());
    ghost.earnings_state = Set(None);
    ghost.insert(&w.app.state.ctx.db).await.expect("ghost");
    let done = backfill::run(ctx).await.expect("backfill");
    assert_eq!(done.conversions, 0);
    assert_eq!(
        done.skipped.first().map(|s| s.0.as_str()),
        Some(w.campaign.as_str())
    );
}

both_backends!(
    the_advertiser_lists_its_conversions,
    conversion_earns_pending_the_hold_releases_it,
    a_reversal_in_the_hold_takes_back_pending_and_revenue,
    an_administrator_sets_a_publishers_hold,
    a_survey_complete_earns_like_a_conversion,
    conversions_paid_before_earnings_are_backfilled,
);
