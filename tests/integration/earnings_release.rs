//! The release of publisher earnings past their hold (`earnings::release`) under stress:
//! two processes at once, and a campaign whose release fails.

use chrono::Duration;
use reqwest::StatusCode;
use serde_json::json;
use tests::builders::callbacks::world;
use tests::builders::earnings::{assert_reconciled, earnings, micros, no_reserve, paid};
use tests::builders::{USD, campaign_body};
use tests::{TestApp, both_backends};

use entity::conversion as cnv;
use entity::values::EarningsState;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

/// 70 % of the 1.50 USD goal payout.
const SHARE: i64 = 1_050_000;

both_backends!(
    two_releases_at_once_release_each_conversion_once,
    a_campaign_that_fails_does_not_stop_the_release,
);

/// Two processes releasing the same earnings at once release each conversion once (issue
/// 52, item 10): the campaign's settlement lock and the re-read under it decide, so the
/// publisher's available balance is the two shares and the ledger agrees.
async fn two_releases_at_once_release_each_conversion_once(app: TestApp) {
    use app::domain::earnings::release;
    let w = world(app, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    no_reserve(&w.app, &w.p.user.account_id).await;
    paid(&w, "user-1", "tx-1").await;
    paid(&w, "user-2", "tx-2").await;
    w.app.clock.advance(Duration::days(30));
    let ctx = &w.app.state.ctx;
    let (a, b) = tokio::join!(release::run_once(ctx), release::run_once(ctx));
    assert_eq!(
        a.expect("first") + b.expect("second"),
        2,
        "two conversions, once each"
    );
    assert_eq!(release::run_once(ctx).await.expect("again"), 0);
    let e = earnings(&w).await;
    assert_eq!(micros(&e, "availableMicros"), 2 * SHARE, "{e}");
    assert_eq!(micros(&e, "pendingMicros"), 0, "{e}");
    assert_reconciled(&w.app).await;
}

/// The release goes on past a campaign whose release fails (issue 52, item 4): a trigger
/// refuses to release the conversions of the campaign released first; the other campaign's
/// are released, the failing one's wait, and the next run releases them once it is fixed.
async fn a_campaign_that_fails_does_not_stop_the_release(app: TestApp) {
    use app::domain::earnings::release;
    use sea_orm::ConnectionTrait;
    use tests::builders::callbacks::click;
    use tests::builders::{Conversion, live_campaign, now_ts, postback};
    let w = world(app, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    no_reserve(&w.app, &w.p.user.account_id).await;
    paid(&w, "user-1", "tx-1").await;
    let admin = w.app.admin_token().await;
    let (other, key, secret) = live_campaign(
        &w.app,
        &w.adv,
        &admin,
        campaign_body("CUSTOM_S2S", 100 * USD),
    )
    .await;
    let (_, c) = click(&w.app, &w.p, "user-2", &other).await;
    let conv = Conversion {
        click: &c,
        txn: "tx-2",
        goal: "install",
        status: "approved",
    };
    let (s, r) = postback(&w.app, &other, &key, &secret, &conv, now_ts(&w.app)).await;
    assert_eq!((s, &r["accepted"]), (StatusCode::OK, &json!(true)), "{r}");
    // Campaigns are released in id order: the first one fails.
    let first = w.campaign.clone().min(other.clone());
    let db = &w.app.state.ctx.db;
    let refuse = if matches!(w.app.backend, tests::Backend::Sqlite) {
        vec![format!(
            "CREATE TRIGGER refuse_release BEFORE UPDATE OF earnings_state ON conversions \
             WHEN OLD.campaign_id = '{first}' BEGIN SELECT RAISE(ABORT, 'refused'); END"
        )]
    } else {
        vec![
            "CREATE FUNCTION refuse_release() RETURNS trigger AS $$ BEGIN \
             RAISE EXCEPTION 'refused'; END $$ LANGUAGE plpgsql"
                .to_owned(),
            format!(
                "CREATE TRIGGER refuse_release BEFORE UPDATE ON conversions FOR EACH ROW \
                 WHEN (OLD.campaign_id = '{first}' AND NEW.earnings_state <> OLD.earnings_state) \
                 EXECUTE FUNCTION refuse_release()"
            ),
        ]
    };
    for sql in refuse {
        db.execute_unprepared(&sql).await.expect("trigger");
    }
    w.app.clock.advance(Duration::days(30));
    let ctx = &w.app.state.ctx;
    assert_eq!(release::run_once(ctx).await.expect("release"), 1);
    let stuck = if first == w.campaign { "tx-1" } else { "tx-2" };
    let released = if first == w.campaign { "tx-2" } else { "tx-1" };
    let state = |txn: &'static str| async move {
        cnv::Entity::find()
            .filter(cnv::Column::TransactionId.eq(txn))
            .one(db)
            .await
            .expect("query")
            .expect("conversion")
            .earnings_state
    };
    assert_eq!(state(stuck).await, Some(EarningsState::Pending));
    assert_eq!(state(released).await, Some(EarningsState::Available));
    let drop = match w.app.backend {
        tests::Backend::Sqlite => "DROP TRIGGER refuse_release",
        tests::Backend::Postgres => "DROP TRIGGER refuse_release ON conversions",
    };
    db.execute_unprepared(drop).await.expect("drop trigger");
    assert_eq!(release::run_once(ctx).await.expect("again"), 1);
    assert_eq!(state(stuck).await, Some(EarningsState::Available));
    assert_reconciled(&w.app).await;
}
