//! Decisions on held conversions (issue 51): an approval pays exactly once (caps and the
//! budget checked then), a rejection closes without money, a second decision finds the
//! conversion decided, only its advertiser or an administrator decides, and two decisions
//! racing each other on PostgreSQL pay or reject each conversion once.

use reqwest::StatusCode;
use serde_json::Value;
use tests::builders::callbacks::{World, click, world};
use tests::builders::earnings::assert_reconciled;
use tests::builders::fraud::{
    ADMIN_DECISIONS, ADVERTISER_DECISIONS, callbacks_for, conversion_of, decide, set_rules,
};
use tests::builders::{USD, campaign_body};
use tests::{Backend, TestApp, error_code};

tests::both_backends!(
    decisions_pay_or_reject_once,
    only_its_advertiser_or_an_administrator_decides,
    reconciliation_decides_held_conversions,
    a_repeated_approval_does_not_release_a_held_conversion,
);

/// A world whose campaign holds every conversion reported within a minute of its click.
async fn holding_world(app: TestApp) -> World {
    let w = world(app, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    set_rules(
        &w.app,
        &w.adv,
        &w.campaign,
        serde_json::json!({"minSecondsToConvert": 60}),
    )
    .await;
    w
}

/// [`holding_world`] with `n` such conversions held: their ids.
async fn held_world(app: TestApp, n: usize) -> (World, Vec<String>) {
    let w = holding_world(app).await;
    let (s, r) = w
        .app
        .get(
            &format!(
                "/performance-marketing/v2/campaigns/{}/fraud-rules",
                w.campaign
            ),
            Some(&w.adv),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(
        (r["holdScore"].clone(), r["minSecondsToConvert"].clone()),
        (serde_json::json!(50), serde_json::json!(60))
    );
    let mut ids = Vec::new();
    for i in 0..n {
        let (_, clk) = click(&w.app, &w.p, &format!("u{i}"), &w.campaign).await;
        w.report(&clk, &format!("tx-{i}"), "approved").await;
        let c = conversion_of(&w.app, &format!("tx-{i}")).await;
        assert_eq!(c.settlement, entity::values::Settlement::Held, "{c:?}");
        ids.push(c.id);
    }
    assert_eq!(w.app.balance(&w.adv).await.2, 0, "nothing paid while held");
    // The advertiser is told once for the burst, not once per held conversion.
    let (_, told) = w.app.get("/auth/v1/notifications", Some(&w.adv)).await;
    let held = told["items"]
        .as_array()
        .expect("notices")
        .iter()
        .filter(|t| t["topic"] == "conversions.held")
        .count();
    assert_eq!(held, usize::from(n > 0), "{told}");
    (w, ids)
}

fn results(r: &Value) -> Vec<String> {
    r["items"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| i["result"].as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default()
}

async fn decisions_pay_or_reject_once(app: TestApp) {
    let (w, ids) = held_world(app, 3).await;
    let admin = w.app.admin_token().await;
    let (s, r) = decide(&w.app, ADMIN_DECISIONS, &admin, &ids[..2], "APPROVE").await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(results(&r), ["APPROVED", "APPROVED"]);
    assert_eq!(r["approvedCount"], 2);
    let (s, r) = decide(&w.app, ADMIN_DECISIONS, &admin, &ids[2..], "REJECT").await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(results(&r), ["REJECTED"]);
    // Decided once: a second decision finds them decided and moves nothing.
    let (_, again) = decide(&w.app, ADMIN_DECISIONS, &admin, &ids, "APPROVE").await;
    assert_eq!(results(&again), ["NOT_HELD", "NOT_HELD", "NOT_HELD"]);
    let (_, r) = decide(
        &w.app,
        ADMIN_DECISIONS,
        &admin,
        &["cnv_missing".to_owned()],
        "APPROVE",
    )
    .await;
    assert_eq!(results(&r), ["NOT_FOUND"]);
    assert_eq!(w.app.balance(&w.adv).await.2, 2 * 1_500_000);
    assert_eq!(
        callbacks_for(&w.app, &w.p.placement).await,
        2,
        "callbacks for the paid two"
    );
    let c = conversion_of(&w.app, "tx-0").await;
    assert!(c.decided_by.is_some(), "the decision names who made it");
    assert!(c.decided_at.is_some() && c.decision_note.as_deref() == Some("reviewed"));
    assert_eq!(
        conversion_of(&w.app, "tx-2").await.settlement,
        entity::values::Settlement::Rejected
    );
    assert_reconciled(&w.app).await;
}

async fn only_its_advertiser_or_an_administrator_decides(app: TestApp) {
    let (w, ids) = held_world(app, 2).await;
    let (_, other) = w.app.funded_advertiser(0).await;
    let (_, r) = decide(&w.app, ADVERTISER_DECISIONS, &other, &ids, "APPROVE").await;
    assert_eq!(
        results(&r),
        ["NOT_FOUND", "NOT_FOUND"],
        "another advertiser's ids reveal nothing"
    );
    let (s, e) = decide(&w.app, ADVERTISER_DECISIONS, &w.p.token, &ids, "APPROVE").await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{e}");
    let (s, e) = decide(&w.app, ADMIN_DECISIONS, &w.adv, &ids, "APPROVE").await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{e}");
    let (s, e) = decide(&w.app, ADVERTISER_DECISIONS, &w.adv, &[], "APPROVE").await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::BAD_REQUEST, "invalid_input")
    );
    let (_, r) = decide(&w.app, ADVERTISER_DECISIONS, &w.adv, &ids[..1], "APPROVE").await;
    assert_eq!(results(&r), ["APPROVED"]);
    assert_eq!(w.app.balance(&w.adv).await.2, 1_500_000);
    assert_reconciled(&w.app).await;
}

/// A bulk reconciliation decides held conversions too: approve pays, reverse rejects.
async fn reconciliation_decides_held_conversions(app: TestApp) {
    use tests::builders::reconciliation::reconcile;
    let (w, _) = held_world(app, 2).await;
    let body = |action: &str, tx: &str| serde_json::json!({"action": action, "reason": "reviewed", "apply": true, "lines": [{"transactionId": tx}]});
    let (s, r) = reconcile(&w.app, &w.adv, "recon-approve-1", &body("approve", "tx-0")).await;
    assert!(s.is_success(), "{r}");
    let (s, r) = reconcile(&w.app, &w.adv, "recon-reverse-1", &body("reverse", "tx-1")).await;
    assert!(s.is_success(), "{r}");
    w.app.run_workers_once().await;
    assert_eq!(
        conversion_of(&w.app, "tx-0").await.settlement,
        entity::values::Settlement::Approved
    );
    assert_eq!(
        conversion_of(&w.app, "tx-1").await.settlement,
        entity::values::Settlement::Rejected
    );
    assert_eq!(w.app.balance(&w.adv).await.2, 1_500_000);
    assert_reconciled(&w.app).await;
}

/// Two decisions on the same held conversions at once (PostgreSQL, row locks): each
/// conversion is decided by exactly one of them, and the money matches.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn racing_decisions_decide_each_conversion_once() {
    tests::bounded(async {
        let app = TestApp::spawn(Backend::Postgres).await;
        let (w, ids) = held_world(app, 8).await;
        let admin = w.app.admin_token().await;
        let (a, b) = tokio::join!(
            decide(&w.app, ADMIN_DECISIONS, &admin, &ids, "APPROVE"),
            decide(&w.app, ADVERTISER_DECISIONS, &w.adv, &ids, "REJECT"),
        );
        assert_eq!(
            (a.0, b.0),
            (StatusCode::OK, StatusCode::OK),
            "{} {}",
            a.1,
            b.1
        );
        let (ra, rb) = (results(&a.1), results(&b.1));
        let mut approved = 0;
        for (x, y) in ra.iter().zip(&rb) {
            let decided = [x, y].iter().filter(|r| **r != "NOT_HELD").count();
            assert_eq!(decided, 1, "decided once: {x} / {y}");
            approved += usize::from(x == "APPROVED");
        }
        let paid = i64::try_from(approved).unwrap_or(0) * 1_500_000;
        assert_eq!(w.app.balance(&w.adv).await.2, paid);
        assert_eq!(callbacks_for(&w.app, &w.p.placement).await, approved as u64);
        assert_reconciled(&w.app).await;
    })
    .await;
}

/// Only a decision (or a pixel's review window ending) pays a held conversion: the
/// advertiser reporting the same approval again, later, when its click is no longer "too
/// fast", changes nothing (the mutation run of issue 52 found this guard undefended: made
/// `true`, the repeated report was screened again and paid).
async fn a_repeated_approval_does_not_release_a_held_conversion(app: TestApp) {
    let w = holding_world(app).await;
    let (_, clk) = click(&w.app, &w.p, "quick", &w.campaign).await;
    w.report(&clk, "tx-quick", "approved").await;
    assert_eq!(
        conversion_of(&w.app, "tx-quick").await.settlement,
        entity::values::Settlement::Held
    );
    w.app.clock.advance(chrono::Duration::minutes(10));
    w.report(&clk, "tx-quick", "approved").await;
    w.app.run_workers_once().await;
    let c = conversion_of(&w.app, "tx-quick").await;
    assert_eq!(c.settlement, entity::values::Settlement::Held, "{c:?}");
    let adv = w.app.token(&w.adv_user).await;
    assert_eq!(w.app.balance(&adv).await.2, 0, "nothing paid");
    assert_eq!(callbacks_for(&w.app, &w.p.placement).await, 0);
}
