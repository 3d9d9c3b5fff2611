//! Workers raced against each other (issue 52, item 11): what two processes' workers do at
//! the same moment, each checked against the ledger afterwards. Their claims live in the
//! database (row locks, conditional updates), so two workers of one process stand for two
//! processes; the races only show on PostgreSQL, and both databases run. Two release
//! workers: tests/integration/earnings_release.rs; two reconciliation workers:
//! reconciliation_workers.rs; two payout-run workers: payouts.rs.

use reqwest::StatusCode;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use tests::builders::callbacks::click;
use tests::builders::earnings::assert_reconciled;
use tests::builders::{Conversion, USD, campaign_body, live_campaign, now_ts, postback, publisher};
use tests::{Backend, TestApp, each_backend};

use app::domain::conversions::inbox;

each_backend!(two_settlers_settle_each_queued_report_once);

/// Reports queued in a burst (every report queued: no inline slot), then two settlers at
/// once until the queue is empty: each report becomes one conversion, paid once.
async fn two_settlers_settle_each_queued_report_once(backend: Backend) {
    const N: usize = 12;
    const PAYOUT: i64 = 1_500_000;
    let app = TestApp::spawn_with(backend, &["--settlement-inline-slots", "0"]).await;
    app.state.ctx.inbox.settler_started();
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let (game, key, secret) =
        live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let mut clicks = Vec::new();
    for i in 0..N {
        clicks.push(click(&app, &p, &format!("user-{i}"), &game).await.1);
    }
    let txns: Vec<String> = (0..N).map(|i| format!("burst-{i}")).collect();
    let (avail, reserved, spent) = app.balance(&adv).await;
    let ts = now_ts(&app);
    let answers = futures::future::join_all(clicks.iter().zip(&txns).map(|(c, t)| {
        let conv = Conversion {
            click: c,
            txn: t,
            goal: "install",
            status: "approved",
        };
        let (app, game, key, secret) = (&app, &game, &key, &secret);
        async move { postback(app, game, key, secret, &conv, ts).await }
    }))
    .await;
    for (s, r) in &answers {
        assert_eq!(*s, StatusCode::OK, "{r}");
    }
    let db = &app.state.ctx.db;
    assert_eq!(inbox::queued_count(db).await.expect("count"), N as u64);
    let ctx = &app.state.ctx;
    for _ in 0..10 {
        let (a, b) = tokio::join!(inbox::settle_queued(ctx), inbox::settle_queued(ctx));
        if a.expect("settler") + b.expect("settler") == 0 {
            break;
        }
    }
    assert_eq!(inbox::queued_count(db).await.expect("count"), 0);
    let conversions = entity::conversion::Entity::find()
        .filter(entity::conversion::Column::CampaignId.eq(game.clone()))
        .count(db)
        .await
        .expect("count");
    assert_eq!(conversions, N as u64, "one conversion per report");
    let paid = N as i64 * PAYOUT;
    assert_eq!(
        app.balance(&adv).await,
        (avail, reserved - paid, spent + paid),
        "each report paid once"
    );
    assert_reconciled(&app).await;
}
