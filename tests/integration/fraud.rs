//! Fraud controls on offer conversions (issue 51): a click farm is held while honest users
//! are paid, a placement whose conversions are mostly held is paused, and the queues show
//! why.

use chrono::Duration;
use reqwest::StatusCode;
use serde_json::json;
use tests::builders::fraud::{behind_proxy, callbacks_for, click_from, conversion_of, signals};
use tests::builders::{Conversion, USD, campaign_body, live_campaign, now_ts, postback, publisher};
use tests::{Backend, TestApp};

tests::each_backend!(a_click_farm_is_held_and_honest_users_are_paid);

/// One user's click from `ip`, reported as an approved install `after` the click.
async fn convert(w: &Farm, user: &str, ip: &str, after: Duration) {
    let c = click_from(&w.app, &w.p, user, &w.campaign, ip).await;
    w.app.clock.advance(after);
    let (s, r) = postback(
        &w.app,
        &w.campaign,
        &w.key_id,
        &w.secret,
        &Conversion {
            click: &c.click_id,
            txn: &format!("tx-{user}"),
            goal: "install",
            status: "approved",
        },
        now_ts(&w.app),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{r}");
}

struct Farm {
    app: TestApp,
    adv_user: tests::TestUser,
    p: tests::builders::Publisher,
    campaign: String,
    key_id: String,
    secret: String,
}

async fn farm(backend: Backend) -> Farm {
    let app = behind_proxy(backend, &[]).await;
    let admin = app.admin_token().await;
    let (adv_user, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let (campaign, key_id, secret) =
        live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 500 * USD)).await;
    Farm {
        app,
        adv_user,
        p,
        campaign,
        key_id,
        secret,
    }
}

/// Honest users: an address of their own each, an install ten minutes after the click.
async fn honest(w: &Farm, users: std::ops::Range<usize>) {
    for i in users {
        let ip = format!("81.{}.{}.20", 10 + i / 200, i % 200);
        convert(w, &format!("honest-{i}"), &ip, Duration::minutes(10)).await;
    }
}

async fn a_click_farm_is_held_and_honest_users_are_paid(backend: Backend) {
    let w = farm(backend).await;
    // The honest stream that makes the goal's usual timing (ten minutes), twenty users of
    // the same placement on one address each converting two seconds after the click, and
    // more honest users while the farm works.
    honest(&w, 0..22).await;
    for i in 0..20 {
        convert(
            &w,
            &format!("farm-{i}"),
            "198.51.100.7",
            Duration::seconds(2),
        )
        .await;
    }
    honest(&w, 22..27).await;
    for i in 0..20 {
        let c = conversion_of(&w.app, &format!("tx-farm-{i}")).await;
        assert_eq!(
            c.settlement,
            entity::values::Settlement::Held,
            "farm-{i}: {c:?}"
        );
        assert_eq!(c.payout_micros, 1_500_000, "what paying would cost");
        assert_eq!(c.publisher_earnings_micros, 0, "nothing earned");
        let why = signals(&c);
        assert!(
            why.contains(&"FAST_CONVERSION".to_owned()),
            "farm-{i}: {why:?}"
        );
        if i >= 2 {
            assert!(
                why.contains(&"SHARED_ADDRESS".to_owned()),
                "farm-{i}: {why:?}"
            );
        }
        assert!(c.fraud_score >= 50, "farm-{i}: {}", c.fraud_score);
    }
    for i in 0..27 {
        let c = conversion_of(&w.app, &format!("tx-honest-{i}")).await;
        assert_eq!(
            c.settlement,
            entity::values::Settlement::Approved,
            "honest-{i}: {c:?}"
        );
        assert_eq!(c.fraud_score, 0, "honest-{i}: {:?}", signals(&c));
    }
    // No money moved for the farm, no callback for it; the honest users were paid.
    let adv = w.app.token(&w.adv_user).await;
    assert_eq!(w.app.balance(&adv).await.2, 27 * 1_500_000);
    assert_eq!(callbacks_for(&w.app, &w.p.placement).await, 27);
    tests::builders::earnings::assert_reconciled(&w.app).await;
    the_queues_show_why(&w, &adv).await;
    the_placement_is_paused(&w).await;
}

/// The administrators' queue lists the farm by placement and reason; the advertiser's list
/// shows the reasons; the publisher sees its rates and why.
async fn the_queues_show_why(w: &Farm, adv: &str) {
    let admin = w.app.admin_token().await;
    let (s, q) = w
        .app
        .get(
            &format!(
                "/admin/v1/fraud/holds?placementId={}&signal=SHARED_ADDRESS",
                w.p.placement
            ),
            Some(&admin),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{q}");
    assert_eq!(q["items"].as_array().map(Vec::len), Some(18), "{q}");
    let (_, all) = w
        .app
        .get("/admin/v1/fraud/holds?limit=5", Some(&admin))
        .await;
    assert_eq!(all["items"].as_array().map(Vec::len), Some(5));
    assert!(all["nextCursor"].is_string(), "{all}");
    let (s, sum) = w.app.get("/admin/v1/fraud/summary", Some(&admin)).await;
    assert_eq!(s, StatusCode::OK, "{sum}");
    assert_eq!(sum["placements"][0]["held"], 20, "{sum}");
    let (s, l) = w
        .app
        .get(
            "/performance-marketing/v2/conversions?status=HELD",
            Some(adv),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{l}");
    assert_eq!(l["items"].as_array().map(Vec::len), Some(20));
    assert!(
        l["items"][0]["fraudReasons"][0]["detail"].is_string(),
        "{l}"
    );
    let token = w.app.token(&w.p.user).await;
    let (s, f) = w.app.get("/publisher/v2/fraud", Some(&token)).await;
    assert_eq!(s, StatusCode::OK, "{f}");
    assert_eq!(f["placements"][0]["held"], 20, "{f}");
    let (s, h) = w.app.get("/publisher/v2/fraud/holds", Some(&token)).await;
    assert_eq!(s, StatusCode::OK, "{h}");
    assert_eq!(
        h["items"][0]["transactionId"],
        serde_json::Value::Null,
        "no advertiser ids"
    );
    assert!(h["items"][0]["reasons"][0]["signal"].is_string(), "{h}");
}

/// The guard pauses the placement (20 of 47 conversions held): no fill until an
/// administrator resumes it.
async fn the_placement_is_paused(w: &Farm) {
    w.app.run_workers_once().await;
    let token = w.app.token(&w.p.user).await;
    let (_, f) = w.app.get("/publisher/v2/fraud", Some(&token)).await;
    assert!(f["placements"][0]["pausedAt"].is_string(), "{f}");
    let (_, s) = tests::builders::session(&w.app, &w.p, "after-pause").await;
    let (status, offers) = w
        .app
        .get(&format!("/sdk/v2/ad-slots/{}/offers", w.p.slot), Some(&s))
        .await;
    assert_eq!(status, StatusCode::OK, "{offers}");
    assert_eq!(
        offers["items"].as_array().map(Vec::len),
        Some(0),
        "no fill while paused"
    );
    let admin = w.app.admin_token().await;
    let resume = format!("/admin/v1/placements/{}/resume-delivery", w.p.placement);
    let (status, e) = w.app.post(&resume, Some(&admin), &json!({})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "a note is required: {e}");
    let (status, _) = w
        .app
        .post(&resume, Some(&admin), &json!({"note": "farm banned"}))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (_, offers) = w
        .app
        .get(&format!("/sdk/v2/ad-slots/{}/offers", w.p.slot), Some(&s))
        .await;
    assert_eq!(
        offers["items"].as_array().map(Vec::len),
        Some(1),
        "{offers}"
    );
    let (status, e) = w
        .app
        .post(&resume, Some(&admin), &json!({"note": "again"}))
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{e}");
    assert_eq!(e["error"]["code"], "not_paused");
    // An administrator may pause a placement by hand too.
    let pause = format!("/admin/v1/placements/{}/pause-delivery", w.p.placement);
    let (status, _) = w
        .app
        .post(&pause, Some(&admin), &json!({"note": "manual review"}))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, e) = w
        .app
        .post(&pause, Some(&admin), &json!({"note": "twice"}))
        .await;
    assert_eq!(
        (status, e["error"]["code"].clone()),
        (StatusCode::CONFLICT, json!("already_paused"))
    );
    let (status, _) = w
        .app
        .post(&resume, Some(&admin), &json!({"note": "reviewed"}))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    // Counting starts again at the resumption: the next check does not pause it again.
    w.app.state.ctx.fraud.watch.touched(&w.p.placement);
    w.app.run_workers_once().await;
    let (_, f) = w.app.get("/publisher/v2/fraud", Some(&token)).await;
    assert!(f["placements"][0]["pausedAt"].is_null(), "{f}");
}

tests::both_backends!(a_goal_norm_learns_other_writes_within_its_bound);

/// The fraud statistics are read from the database, so conversions another process settled
/// reach this process's goal norm within `norms::TTL` of the domain clock (and not before:
/// the cached norm is what the bound is about).
async fn a_goal_norm_learns_other_writes_within_its_bound(app: TestApp) {
    use app::domain::fraud::norms::TTL;
    use sea_orm::{ActiveModelTrait, Set};
    let ctx = &app.state.ctx;
    let now = app.clock_now();
    let norm = || async {
        ctx.fraud
            .norms
            .get(&ctx.db, app.clock_now(), "cmp_other", "install")
            .await
            .expect("norm")
    };
    assert_eq!(norm().await, None, "no history yet");
    // Another process settles 25 conversions of ten minutes each.
    for i in 0..25 {
        entity::conversion::ActiveModel {
            id: Set(format!("cnv_other_{i}")),
            campaign_id: Set("cmp_other".into()),
            advertiser_id: Set("acc_other".into()),
            transaction_id: Set(format!("tx-other-{i}")),
            click_id: Set(format!("clk_other_{i}")),
            goal_id: Set("install".into()),
            status: Set(entity::values::ReportedStatus::Approved),
            settlement: Set(entity::values::Settlement::Approved),
            payout_micros: Set(0),
            publisher_earnings_micros: Set(0),
            reward_minor_units: Set(0),
            occurred_at: Set(now),
            created_at: Set(now),
            updated_at: Set(now),
            fraud_score: Set(0),
            seconds_to_convert: Set(Some(600)),
            ..Default::default()
        }
        .insert(&ctx.db)
        .await
        .expect("insert");
    }
    assert_eq!(norm().await, None, "cached within the bound");
    app.clock.advance(TTL);
    let n = norm().await.expect("learnt after the bound");
    assert_eq!((n.median_seconds, n.samples), (600, 25));
}
