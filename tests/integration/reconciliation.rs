//! Bulk reconciliation (issue 34): an advertiser reverses or approves conversions by
//! transaction id; the preview changes nothing; the worker applies each line once, refunds
//! the advertiser, takes back the publisher's earnings and queues the reversal callbacks;
//! replaying changes nothing. Survey completes are reversed the same way.

use chrono::Duration;
use reqwest::StatusCode;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde_json::{Value, json};
use tests::builders::callbacks::{click, world};
use tests::builders::reconciliation::{
    RECONCILIATIONS, advertiser_available, callbacks, lines_in, paid_world, reconcile,
    reconciliation, tally,
};
use tests::builders::surveys::{enter, market, report_outcome};
use tests::builders::{USD, campaign_body};
use tests::{TestApp, both_backends};

use app::model::callback_delivery::DeliveryStatus;
use entity::{callback_delivery, conversion};
use tests::builders::earnings::{assert_reconciled, earnings, micros, paid};

async fn a_bulk_reversal_applies_each_line_once(app: TestApp) {
    const N: usize = 1_000;
    let w = paid_world(app, N).await;
    let e = earnings(&w).await;
    assert_eq!(micros(&e, "pendingMicros"), 350_000 * N as i64, "{e}");
    // Every confirmation has reached the publisher: a reversal must now be sent too.
    callback_delivery::Entity::update_many()
        .col_expr(
            callback_delivery::Column::Status,
            Expr::value(DeliveryStatus::Delivered.as_str()),
        )
        .col_expr(callback_delivery::Column::Attempts, Expr::value(1))
        .exec(&w.app.state.ctx.db)
        .await
        .expect("delivered");
    let before = advertiser_available(&w).await;

    let mut lines: Vec<Value> = (0..N)
        .map(|i| json!({"transactionId": format!("tx-{i}")}))
        .collect();
    lines.push(json!({"transactionId": "tx-7"}));
    lines.push(json!({"transactionId": "nobody-knows"}));
    let request = json!({"action": "reverse", "reason": "fraud review 2026-11", "lines": lines});
    let (s, r) = reconcile(&w.app, &w.adv, "recon-0001", &request).await;
    assert_eq!(s, StatusCode::CREATED, "{r}");
    assert_eq!(r["status"], "PREVIEWED");
    assert_eq!(r["lineCount"], N + 2);
    assert_eq!(tally(&r, "preview", "WILL_APPLY"), N as u64, "{r}");
    assert_eq!(tally(&r, "preview", "DUPLICATE_LINE"), 1);
    assert_eq!(tally(&r, "preview", "UNKNOWN"), 1);
    assert_eq!(
        advertiser_available(&w).await,
        before,
        "a preview moves no money"
    );
    let id = r["reconciliationId"].as_str().expect("id").to_owned();

    let (s, q) = w
        .app
        .post(
            &format!("{RECONCILIATIONS}/{id}/apply"),
            Some(&w.adv),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::ACCEPTED, "{q}");
    assert_eq!(q["status"], "QUEUED");
    w.app.run_workers_once().await;
    let done = reconciliation(&w, &id).await;
    assert_eq!(done["status"], "DONE", "{done}");
    assert_eq!(tally(&done, "results", "APPLIED"), N as u64, "{done}");
    assert_eq!(done["linesLeft"], 0);
    assert_eq!(
        advertiser_available(&w).await,
        before + 500_000 * N as i64,
        "refunded"
    );
    assert_eq!(
        micros(&earnings(&w).await, "pendingMicros"),
        0,
        "the publisher's share is taken back"
    );
    assert_eq!(callbacks(&w.app, "reward.reversed").await, N as u64);
    assert_reconciled(&w.app).await;

    // The same request again is the same reconciliation; a new one changes nothing.
    let (s, again) = reconcile(&w.app, &w.adv, "recon-0001", &request).await;
    assert_eq!(s, StatusCode::OK, "{again}");
    assert_eq!(again["reconciliationId"], id.as_str());
    let mut applied_at_once = request.clone();
    applied_at_once["apply"] = json!(true);
    let (s, second) = reconcile(&w.app, &w.adv, "recon-0002", &applied_at_once).await;
    assert_eq!(s, StatusCode::CREATED, "{second}");
    assert_eq!(
        tally(&second, "preview", "ALREADY_IN_STATE"),
        N as u64,
        "{second}"
    );
    assert_eq!(second["status"], "QUEUED");
    w.app.run_workers_once().await;
    assert_eq!(advertiser_available(&w).await, before + 500_000 * N as i64);
    assert_eq!(callbacks(&w.app, "reward.reversed").await, N as u64);
    assert_reconciled(&w.app).await;

    let unknown = lines_in(&w, &id, "unknown").await;
    assert_eq!(
        unknown["items"][0]["transactionId"], "nobody-knows",
        "{unknown}"
    );
    assert_eq!(unknown["items"][0]["lineNo"], N + 2);
    let (_, other) = w.app.funded_advertiser(0).await;
    let (s, _) = w
        .app
        .get(&format!("{RECONCILIATIONS}/{id}"), Some(&other))
        .await;
    assert_eq!(
        s,
        StatusCode::NOT_FOUND,
        "another advertiser's reconciliation"
    );
}

async fn approval_window_and_csv(app: TestApp) {
    let w = world(app, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    paid(&w, "user-1", "tx-old").await;
    // Paid 31 days ago: outside the 30-day window.
    conversion::Entity::update_many()
        .col_expr(
            conversion::Column::CreatedAt,
            Expr::value(w.app.clock_now() - Duration::days(31)),
        )
        .filter(conversion::Column::TransactionId.eq("tx-old"))
        .exec(&w.app.state.ctx.db)
        .await
        .expect("aged");
    let (_, c) = click(&w.app, &w.p, "user-2", &w.campaign).await;
    let r = w.report(&c, "tx-pending", "pending").await;
    assert_eq!(r["accepted"], true, "{r}");
    let adv = w.adv.clone();

    // CSV: a header, the pending one to approve, the old one (outside the window).
    let res = w
        .app
        .client
        .post(w.app.url(&format!(
            "{RECONCILIATIONS}?action=approve&reason=late%20approval&apply=true"
        )))
        .bearer_auth(&adv)
        .header("idempotency-key", "recon-csv-01")
        .header("content-type", "text/csv")
        .body(format!(
            "transaction_id,campaign_id\ntx-pending,{}\ntx-old\n",
            w.campaign
        ))
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::CREATED);
    let r: Value = res.json().await.expect("json");
    assert_eq!(tally(&r, "preview", "WILL_APPLY"), 1, "{r}");
    assert_eq!(tally(&r, "preview", "ALREADY_IN_STATE"), 1, "{r}");
    w.app.run_workers_once().await;
    let id = r["reconciliationId"].as_str().expect("id");
    let (_, done) = w
        .app
        .get(&format!("{RECONCILIATIONS}/{id}"), Some(&adv))
        .await;
    assert_eq!(tally(&done, "results", "APPLIED"), 1, "{done}");
    let found = conversion::Entity::find()
        .filter(conversion::Column::TransactionId.eq("tx-pending"))
        .one(&w.app.state.ctx.db)
        .await
        .expect("query")
        .expect("conversion");
    assert_eq!(
        found.settlement,
        entity::values::Settlement::Approved,
        "approved and paid"
    );
    assert_eq!(found.payout_micros, 1_500_000);

    let reverse_old =
        json!({"action": "reverse", "reason": "too late", "lines": [{"transactionId": "tx-old"}]});
    let (s, r) = reconcile(&w.app, &adv, "recon-old-01", &reverse_old).await;
    assert_eq!(s, StatusCode::CREATED, "{r}");
    assert_eq!(tally(&r, "preview", "OUTSIDE_WINDOW"), 1, "{r}");

    for bad in [
        json!({"action": "refund", "reason": "x", "lines": [{"transactionId": "a"}]}),
        json!({"action": "reverse", "reason": "", "lines": [{"transactionId": "a"}]}),
        json!({"action": "reverse", "reason": "x", "lines": []}),
        json!({"action": "reverse", "reason": "x", "lines": [{"transactionId": ""}]}),
    ] {
        let (s, e) = reconcile(&w.app, &adv, "recon-bad-01", &bad).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {e}");
        assert!(e["error"]["fieldErrors"].is_object(), "{e}");
    }
    let (s, e) = reconcile(
        &w.app,
        &adv,
        "recon-old-01",
        &json!({"action": "approve", "reason": "x", "lines": [{"transactionId": "tx-old"}]}),
    )
    .await;
    assert_eq!(
        s,
        StatusCode::CONFLICT,
        "a key reused for another request: {e}"
    );
    assert_reconciled(&w.app).await;
}

async fn a_survey_complete_is_reversed(app: TestApp) {
    let m = market(&app).await;
    let (_, before) = app
        .get("/performance-marketing/v2/billing/balance", Some(&m.adv))
        .await;
    let tx = enter(&app, &m, "resp-1").await.expect("entered");
    let (s, r) = report_outcome(&app, &m, &tx, "complete").await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let (s, r) = report_outcome(&app, &m, &tx, "reversed").await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["status"], "REVERSED", "{r}");
    assert_eq!(r["paid"], false);
    assert_eq!(r["duplicate"], false);
    let (_, again) = report_outcome(&app, &m, &tx, "reversed").await;
    assert_eq!(again["duplicate"], true, "{again}");
    // The complete sent again is answered as it stands now: reversed, not paid.
    let (s, late) = report_outcome(&app, &m, &tx, "complete").await;
    assert_eq!(s, StatusCode::OK, "{late}");
    assert_eq!(
        (late["status"].as_str(), late["paid"].as_bool()),
        (Some("REVERSED"), Some(false)),
        "{late}"
    );
    assert_eq!(late["duplicate"], true);
    let (_, e) = app.get("/publisher/v2/earnings", Some(&m.pub_token)).await;
    assert_eq!(micros(&e, "pendingMicros"), 0, "{e}");
    let (_, after) = app
        .get("/performance-marketing/v2/billing/balance", Some(&m.adv))
        .await;
    assert_eq!(
        micros(&after, "availableMicros") + micros(&after, "reservedMicros"),
        micros(&before, "availableMicros") + micros(&before, "reservedMicros"),
        "the CPI is back with the advertiser: {after}"
    );
    assert_eq!(
        callbacks(&app, "reward.reversed").await + cancelled(&app).await,
        1
    );
    assert_reconciled(&app).await;

    // A screen-out cannot be reversed; a complete past the window neither.
    let out = enter(&app, &m, "resp-2").await.expect("entered");
    report_outcome(&app, &m, &out, "terminate").await;
    let (s, e) = report_outcome(&app, &m, &out, "reversed").await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert_eq!(e["error"]["code"], "transaction_not_paid");
    let late = enter(&app, &m, "resp-3").await.expect("entered");
    report_outcome(&app, &m, &late, "complete").await;
    app.clock.advance(Duration::days(31));
    let (s, e) = report_outcome(&app, &m, &late, "reversed").await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert_eq!(e["error"]["code"], "reconciliation_window_closed");
    assert_reconciled(&app).await;
}

async fn a_survey_complete_is_reversed_in_bulk(app: TestApp) {
    let m = market(&app).await;
    let tx = enter(&app, &m, "resp-1").await.expect("entered");
    report_outcome(&app, &m, &tx, "complete").await;
    let request = json!({"action": "reverse", "reason": "speeders", "apply": true,
        "lines": [{"transactionId": tx}]});
    let (s, r) = reconcile(&app, &m.adv, "recon-survey-1", &request).await;
    assert_eq!(s, StatusCode::CREATED, "{r}");
    assert_eq!(tally(&r, "preview", "WILL_APPLY"), 1, "{r}");
    app.run_workers_once().await;
    let id = r["reconciliationId"].as_str().expect("id");
    let (_, done) = app
        .get(&format!("{RECONCILIATIONS}/{id}"), Some(&m.adv))
        .await;
    assert_eq!(tally(&done, "results", "APPLIED"), 1, "{done}");
    let (_, e) = app.get("/publisher/v2/earnings", Some(&m.pub_token)).await;
    assert_eq!(micros(&e, "pendingMicros"), 0, "{e}");
    assert_reconciled(&app).await;
}

async fn cancelled(app: &TestApp) -> u64 {
    callback_delivery::Entity::find()
        .filter(callback_delivery::Column::Status.eq(DeliveryStatus::Cancelled.as_str()))
        .count(&app.state.ctx.db)
        .await
        .expect("count")
}

both_backends!(
    a_bulk_reversal_applies_each_line_once,
    approval_window_and_csv,
    a_survey_complete_is_reversed,
    a_survey_complete_is_reversed_in_bulk,
    a_reused_key_with_other_lines_is_refused,
    another_advertisers_transactions_are_unknown,
);

/// One advertiser's preview never tells of another's conversions: their transaction ids
/// are UNKNOWN, with no payout, whatever campaign the line names (issue 52, item 10).
async fn another_advertisers_transactions_are_unknown(app: TestApp) {
    let w = paid_world(app, 2).await;
    let (_, other) = w.app.signed_in(app::model::Role::Advertiser).await;
    let request = json!({"action": "reverse", "reason": "not mine", "lines": [
        {"transactionId": "tx-0"},
        {"transactionId": "tx-1", "campaignId": w.campaign},
    ]});
    let (s, r) = reconcile(&w.app, &other, "recon-other-1", &request).await;
    assert_eq!(s, StatusCode::CREATED, "{r}");
    assert_eq!(tally(&r, "preview", "UNKNOWN"), 2, "{r}");
    assert_eq!(tally(&r, "preview", "WILL_APPLY"), 0, "{r}");
    let id = r["reconciliationId"].as_str().expect("id");
    let (_, lines) = w
        .app
        .get(&format!("{RECONCILIATIONS}/{id}/lines"), Some(&other))
        .await;
    let text = lines.to_string();
    assert!(
        !text.contains("cnv_"),
        "no conversion of theirs is named: {text}"
    );
    // And its owner cannot be reached through the other's reconciliation.
    let (s, _) = w
        .app
        .get(&format!("{RECONCILIATIONS}/{id}"), Some(&w.adv))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}

/// The same key with other transaction ids is a conflict, not the first reconciliation
/// answered again as if it were this one (issue 52); the same request is answered again.
async fn a_reused_key_with_other_lines_is_refused(app: TestApp) {
    let (_, adv) = app.signed_in(app::model::Role::Advertiser).await;
    let body = |ids: &[&str]| {
        let lines: Vec<Value> = ids.iter().map(|t| json!({"transactionId": t})).collect();
        json!({"action": "reverse", "reason": "key reuse check", "lines": lines})
    };
    let (s, first) = reconcile(&app, &adv, "recon-reuse-1", &body(&["tx-a", "tx-b"])).await;
    assert_eq!(s, StatusCode::CREATED, "{first}");
    let (s, again) = reconcile(&app, &adv, "recon-reuse-1", &body(&["tx-a", "tx-b"])).await;
    assert!(s.is_success(), "{again}");
    assert_eq!(again["reconciliationId"], first["reconciliationId"]);
    let (s, other) = reconcile(&app, &adv, "recon-reuse-1", &body(&["tx-a", "tx-c"])).await;
    assert_eq!(s, StatusCode::CONFLICT, "{other}");
    assert_eq!(other["error"]["code"], "idempotency_key_reused");
    let named = json!({"action": "reverse", "reason": "key reuse check",
        "lines": [{"transactionId": "tx-a", "campaignId": "cmp_other"}, {"transactionId": "tx-b"}]});
    let (s, other) = reconcile(&app, &adv, "recon-reuse-1", &named).await;
    assert_eq!(s, StatusCode::CONFLICT, "{other}");
}
