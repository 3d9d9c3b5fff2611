//! The reconciliation worker (issue 34): a line that always fails is marked FAILED and the
//! rest go on; a reconciliation is applied once however many workers ask for it; a worker
//! that stopped holding one is replaced when its lease runs out. The claim and the lease
//! live in the database only (a conditional update of the reconciliation's row), so what
//! holds for two workers of one process holds for two processes.

use chrono::Duration;
use reqwest::StatusCode;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};
use tests::builders::earnings::{assert_reconciled, earnings, micros};
use tests::builders::reconciliation::{
    advertiser_available, lines_in, paid_world, poison, reconcile, reconciliation, tally,
};
use tests::{TestApp, both_backends};

use app::domain::reconciliation::apply_next;
use entity::{conversion, reconciliation_batch as batch};

both_backends!(
    a_line_that_always_fails_does_not_stop_the_rest,
    one_worker_applies_and_a_stopped_one_is_replaced,
    a_small_reconciliation_is_not_kept_waiting_behind_a_large_one,
);

/// Fair share per advertiser (issue 52): a claim applies one round of 512 lines and hands
/// the reconciliation back, so another advertiser's reconciliation queued behind a large
/// one is applied after one round, not after all of it.
async fn a_small_reconciliation_is_not_kept_waiting_behind_a_large_one(app: TestApp) {
    const N: usize = 600;
    let w = paid_world(app, N).await;
    let lines: Vec<Value> = (0..N)
        .map(|i| json!({"transactionId": format!("tx-{i}")}))
        .collect();
    let large = json!({"action": "reverse", "reason": "audit", "lines": lines, "apply": true});
    let (s, r) = reconcile(&w.app, &w.adv, "recon-large", &large).await;
    assert_eq!(s, StatusCode::CREATED, "{r}");
    let large_id = r["reconciliationId"].as_str().expect("id").to_owned();
    let (_, other) = w.app.signed_in(app::model::Role::Advertiser).await;
    let small = json!({"action": "reverse", "reason": "audit", "lines": [{"transactionId": "theirs-1"}], "apply": true});
    let (s, r) = reconcile(&w.app, &other, "recon-small", &small).await;
    assert_eq!(s, StatusCode::CREATED, "{r}");
    let small_id = r["reconciliationId"].as_str().expect("id").to_owned();
    let ctx = &w.app.state.ctx;
    let status = |id: String| async move {
        batch::Entity::find_by_id(id)
            .one(&ctx.db)
            .await
            .expect("q")
            .expect("row")
            .status
    };
    w.app.clock.advance(Duration::seconds(1));
    assert_eq!(
        apply_next(ctx).await.expect("worker"),
        Some(512),
        "one round"
    );
    w.app.clock.advance(Duration::seconds(1));
    apply_next(ctx).await.expect("worker");
    assert_eq!(
        status(small_id).await,
        entity::values::ReconciliationStatus::Done,
        "the small one went next"
    );
    assert_eq!(
        status(large_id.clone()).await,
        entity::values::ReconciliationStatus::Applying
    );
    while apply_next(ctx).await.expect("worker").is_some() {
        w.app.clock.advance(Duration::seconds(1));
    }
    assert_eq!(
        status(large_id.clone()).await,
        entity::values::ReconciliationStatus::Done
    );
    let done = reconciliation(&w, &large_id).await;
    assert_eq!(tally(&done, "results", "APPLIED"), N as u64, "{done}");
    assert_reconciled(&w.app).await;
}

/// A line that always fails is marked FAILED after its tries; the rest of its chunk is
/// applied and the reconciliation finishes instead of being retried forever.
async fn a_line_that_always_fails_does_not_stop_the_rest(app: TestApp) {
    let w = paid_world(app, 4).await;
    let before = advertiser_available(&w).await;
    poison(&w.app, "tx-2").await;
    let lines: Vec<Value> = (0..4)
        .map(|i| json!({"transactionId": format!("tx-{i}")}))
        .collect();
    let request =
        json!({"action": "reverse", "reason": "chargebacks", "lines": lines, "apply": true});
    let (s, r) = reconcile(&w.app, &w.adv, "recon-poison", &request).await;
    assert_eq!(s, StatusCode::CREATED, "{r}");
    w.app.run_workers_once().await;
    let id = r["reconciliationId"].as_str().expect("id");
    let done = reconciliation(&w, &id).await;
    assert_eq!(done["status"], "DONE", "{done}");
    assert_eq!(tally(&done, "results", "APPLIED"), 3, "{done}");
    assert_eq!(tally(&done, "results", "FAILED"), 1, "{done}");
    assert_eq!(
        advertiser_available(&w).await,
        before + 3 * 500_000,
        "three refunds"
    );
    let failed = conversion::Entity::find()
        .filter(conversion::Column::TransactionId.eq("tx-2"))
        .one(&w.app.state.ctx.db)
        .await
        .expect("query")
        .expect("conversion");
    assert_eq!(
        failed.settlement,
        entity::values::Settlement::Approved,
        "the failed line changed nothing"
    );
    let list = lines_in(&w, &id, "FAILED").await;
    assert_eq!(list["items"][0]["transactionId"], "tx-2", "{list}");
    assert_reconciled(&w.app).await;
}

/// Two workers asking at once apply a reconciliation once; one that stopped is replaced
/// after its lease and the replacement applies every line.
async fn one_worker_applies_and_a_stopped_one_is_replaced(app: TestApp) {
    const N: usize = 200;
    let w = paid_world(app, N).await;
    let before = advertiser_available(&w).await;
    let lines: Vec<Value> = (0..N)
        .map(|i| json!({"transactionId": format!("tx-{i}")}))
        .collect();
    let request = json!({"action": "reverse", "reason": "audit", "lines": lines, "apply": true});
    let (s, r) = reconcile(&w.app, &w.adv, "recon-lease", &request).await;
    assert_eq!(s, StatusCode::CREATED, "{r}");
    let id = r["reconciliationId"].as_str().expect("id").to_owned();
    let ctx = &w.app.state.ctx;

    // A worker claimed it and stopped: its lease holds it for 60 seconds.
    batch::Entity::update_many()
        .col_expr(batch::Column::Status, Expr::value("APPLYING"))
        .col_expr(
            batch::Column::LeaseOwner,
            Expr::value(Some("rcw_stopped".to_owned())),
        )
        .col_expr(
            batch::Column::LeaseUntil,
            Expr::value(Some(w.app.clock_now() + Duration::seconds(60))),
        )
        .filter(batch::Column::Id.eq(id.clone()))
        .exec(&ctx.db)
        .await
        .expect("claimed");
    assert_eq!(
        apply_next(ctx).await.expect("worker"),
        None,
        "held by its worker"
    );

    w.app.clock.advance(Duration::seconds(61));
    let (a, b) = tokio::join!(apply_next(ctx), apply_next(ctx));
    let mut applied: Vec<usize> = [a, b]
        .into_iter()
        .filter_map(|r| r.expect("worker"))
        .collect();
    applied.retain(|n| *n > 0);
    assert_eq!(applied, vec![N], "one worker applied every line");
    let done = reconciliation(&w, &id).await;
    assert_eq!(done["status"], "DONE", "{done}");
    assert_eq!(tally(&done, "results", "APPLIED"), N as u64, "{done}");
    assert_eq!(
        advertiser_available(&w).await,
        before + 500_000 * N as i64,
        "refunded once"
    );
    assert_eq!(micros(&earnings(&w).await, "pendingMicros"), 0);
    assert_eq!(apply_next(ctx).await.expect("worker"), None, "nothing left");
    assert_reconciled(&w.app).await;
}
