//! A burst of conversion reports at once (SQLite settles them in groups, one transaction
//! per group: `conversions::inbox::group`; PostgreSQL inline and queued). Whatever the
//! grouping, every report is answered as if it had arrived alone: each new transaction is
//! paid once, an exact retry answers its first receipt, a transaction id reused with another
//! goal is refused and changes nothing, a transaction reported pending and approved in the
//! same burst is paid once, and the ledger reconciles.

use std::collections::HashMap;

use reqwest::StatusCode;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde_json::Value;
use tests::builders::fraud::{callbacks_for, click_from};
use tests::builders::{Conversion, USD, campaign_body, live_campaign, now_ts, postback, publisher};
use tests::{Backend, TestApp, both_backends, error_code};

both_backends!(a_burst_of_reports_is_answered_as_one_by_one);

/// Users who convert in the burst; the first few also send their report twice.
const USERS: usize = 24;
const RETRIED: usize = 5;
/// Users whose transaction the burst reports twice, pending and approved (two reports of
/// one transaction, most likely in one group: the second finds the first's conversion).
const PAIRS: usize = 3;
/// The install goal's payout (1.50 USD).
const PAYOUT: i64 = 1_500_000;

async fn a_burst_of_reports_is_answered_as_one_by_one(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let (game, key_id, secret) =
        live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let mut clicks = Vec::new();
    // One more user whose transaction is settled before the burst, then the pairs' users.
    for i in 0..=USERS + PAIRS {
        let c = click_from(&app, &p, &format!("burst-{i}"), &game, "127.0.0.1").await;
        clicks.push(c.click_id);
    }
    let ts = now_ts(&app);
    // One transaction settled before the burst, which the burst then reuses with another
    // click.
    let first = Conversion {
        click: &clicks[USERS],
        txn: "order-before",
        goal: "install",
        status: "approved",
    };
    let (s, b) = postback(&app, &game, &key_id, &secret, &first, ts).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let before = app.balance(&adv).await;

    let txns: Vec<String> = (0..USERS).map(|i| format!("order-{i}")).collect();
    let report = |i: usize| Conversion {
        click: &clicks[i],
        txn: &txns[i],
        goal: "install",
        status: "approved",
    };
    let reports: Vec<Conversion<'_>> = (0..USERS).chain(0..RETRIED).map(report).collect();
    let pair_txns: Vec<String> = (0..PAIRS).map(|k| format!("order-pair-{k}")).collect();
    let pairs: Vec<Conversion<'_>> = (0..PAIRS)
        .flat_map(|k| {
            ["pending", "approved"].map(|status| Conversion {
                click: &clicks[USERS + 1 + k],
                txn: &pair_txns[k],
                goal: "install",
                status,
            })
        })
        .collect();
    let reuse = Conversion {
        click: &clicks[1],
        txn: "order-before",
        goal: "install",
        status: "approved",
    };
    let (answers, reused, paired) = futures::future::join3(
        futures::future::join_all(
            reports
                .iter()
                .map(|c| postback(&app, &game, &key_id, &secret, c, ts)),
        ),
        postback(&app, &game, &key_id, &secret, &reuse, ts),
        futures::future::join_all(
            pairs
                .iter()
                .map(|c| postback(&app, &game, &key_id, &secret, c, ts)),
        ),
    )
    .await;
    for (c, (s, b)) in pairs.iter().zip(&paired) {
        // Two reports of one transaction, not copies: each has its own receipt.
        assert_eq!(*s, StatusCode::OK, "{} {}: {b}", c.txn, c.status);
        assert_eq!(
            b["duplicate"],
            Value::Bool(false),
            "{} {}: {b}",
            c.txn,
            c.status
        );
    }

    assert_eq!(reused.0, StatusCode::CONFLICT, "{}", reused.1);
    assert_eq!(error_code(&reused.1), "transaction_conflict");
    let mut receipts: HashMap<&str, Vec<(bool, String)>> = HashMap::new();
    for (c, (s, b)) in reports.iter().zip(&answers) {
        assert_eq!(*s, StatusCode::OK, "{}: {b}", c.txn);
        receipts
            .entry(c.txn)
            .or_default()
            .push((b["duplicate"] == Value::Bool(true), receipt(b)));
    }
    for (txn, got) in &receipts {
        // However the burst was grouped, a transaction has one receipt; its copies are
        // answered with it as duplicates.
        let fresh = got.iter().filter(|(dup, _)| !dup).count();
        assert_eq!(fresh, 1, "{txn}: {got:?}");
        assert!(got.iter().all(|(_, r)| *r == got[0].1), "{txn}: {got:?}");
    }

    let db = &app.state.ctx.db;
    let approved = entity::conversion::Entity::find()
        .filter(entity::conversion::Column::CampaignId.eq(game.clone()))
        .filter(entity::conversion::Column::Settlement.eq("APPROVED"))
        .count(db)
        .await
        .expect("count");
    assert_eq!(
        approved as usize,
        USERS + 1 + PAIRS,
        "each transaction paid once"
    );
    let (avail, reserved, spent) = before;
    let paid = PAYOUT * (USERS + PAIRS) as i64;
    assert_eq!(
        app.balance(&adv).await,
        (avail, reserved - paid, spent + paid),
        "the burst moved exactly its payouts"
    );
    assert_eq!(
        callbacks_for(&app, &p.placement).await as usize,
        USERS + 1 + PAIRS
    );
    assert_eq!(
        app::domain::billing::ledger::reconcile(db)
            .await
            .expect("reconcile"),
        Default::default(),
        "the ledger reconciles"
    );
    if app.backend == Backend::Sqlite {
        // The burst was settled in fewer transactions than reports, and no group fell back
        // to one by one (the answers above are the groups' own).
        let g = app.state.ctx.inbox.group_counts();
        assert!(g.reports >= (USERS + RETRIED + 2 * PAIRS) as u64, "{g:?}");
        assert!(g.groups < g.reports, "no group took two reports: {g:?}");
        assert_eq!(g.failed, 0, "a group fell back to one by one");
        assert!(
            g.reading > std::time::Duration::ZERO && g.writing > std::time::Duration::ZERO,
            "the turns' time is counted: {g:?}"
        );
    }
}

fn receipt(b: &Value) -> String {
    b["receiptId"].as_str().expect("receipt").to_owned()
}
