//! Offer campaigns: the lifecycle with budget reservations checked against the wallet at
//! every step, revisions, clone, readiness, audit, report and every named refusal.

use app::domain::billing::ledger;
use app::domain::campaigns::lifecycle;
use app::model::Role;
use reqwest::StatusCode;
use serde_json::json;
use tests::builders::*;
use tests::{TestApp, both_backends, error_code};

both_backends!(
    lifecycle_reserves_and_releases_the_budget,
    campaign_refusals,
    revisions_clone_and_audit,
    readiness_and_report,
);

/// Pays one conversion from the campaign's reserve, as postback settlement will.
async fn spend(app: &TestApp, id: &str, micros: i64, key: &str) {
    let ctx = &app.state.ctx;
    let txn = app::domain::db::begin(&ctx.db).await.expect("begin");
    let m = entity::offer_campaign::Entity::find_by_id(id.to_owned())
        .one(&txn)
        .await
        .expect("query")
        .expect("campaign");
    let posting = lifecycle::conversion_spend(&m, micros, key, None).expect("posting");
    ledger::post_many(&txn, ctx.now(), &[posting])
        .await
        .expect("spend");
    txn.commit().await.expect("commit");
}

use sea_orm::EntityTrait;

async fn lifecycle_reserves_and_releases_the_budget(app: TestApp) {
    let (_, t) = app.funded_advertiser(1_000 * USD).await;
    let admin = app.admin_token().await;
    let id = create(&app, &t, &campaign_body("CUSTOM_S2S", 500 * USD)).await;
    assert_eq!(app.balance(&t).await, (1_000 * USD, 0, 0));

    let (s, c) = transition(&app, &t, &id, "IN_REVIEW").await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(c["status"], "IN_REVIEW");
    assert_eq!(
        app.balance(&t).await,
        (1_000 * USD, 0, 0),
        "submission moves no money"
    );

    let (s, c) = approve(&app, &admin, &id).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(c["status"], "LIVE");
    assert_eq!(c["reservedMicros"], 500 * USD);
    assert_eq!(c["liveRevision"], 1);
    assert_eq!(app.balance(&t).await, (500 * USD, 500 * USD, 0));

    // A conversion is paid from the reserve.
    spend(&app, &id, 1_500_000, "conv:1").await;
    assert_eq!(app.balance(&t).await, (500 * USD, 498_500_000, 1_500_000));

    let (s, c) = transition(&app, &t, &id, "PAUSED").await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(c["reservedMicros"], 0);
    assert_eq!(app.balance(&t).await, (998_500_000, 0, 1_500_000));

    // Resuming reserves what is left of the budget.
    let (s, c) = transition(&app, &t, &id, "LIVE").await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(app.balance(&t).await, (500 * USD, 498_500_000, 1_500_000));

    let (s, c) = transition(&app, &t, &id, "ENDED").await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert!(c["endedAt"].is_string());
    assert_eq!(app.balance(&t).await, (998_500_000, 0, 1_500_000));
    let (s, c) = transition(&app, &t, &id, "ARCHIVED").await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(app.balance(&t).await, (998_500_000, 0, 1_500_000));

    // Archived campaigns leave the default list but can be asked for.
    let (_, list) = app.get(CAMPAIGNS, Some(&t)).await;
    assert_eq!(list["count"], 0);
    let (_, list) = app
        .get(&format!("{CAMPAIGNS}?status=ARCHIVED"), Some(&t))
        .await;
    assert_eq!(list["items"][0]["campaignId"], id);

    let r = ledger::reconcile(&app.state.ctx.db)
        .await
        .expect("reconcile");
    assert_eq!(r, ledger::Reconciliation::default());
}

async fn campaign_refusals(app: TestApp) {
    let app = &app;
    let (_, t) = app.funded_advertiser(100 * USD).await;
    let admin = app.admin_token().await;
    bad_campaign_input_is_refused(app, &t).await;
    approval_rejection_and_ownership(app, &t, &admin).await;
}

/// Missing {click_id}, http, duplicate goal ids, unknown and uncertified providers.
async fn bad_campaign_input_is_refused(app: &TestApp, t: &str) {
    // Missing {click_id}, http, duplicate goal ids, unknown and uncertified providers.
    let mut body = campaign_body("CUSTOM_S2S", 50 * USD);
    body["destinationUrl"] = json!("https://advertiser.example/install?click=123");
    let (s, e) = app.post(CAMPAIGNS, Some(t), &body).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(error_code(&e), "invalid_input");
    assert!(
        e["error"]["fieldErrors"]["destinationUrl"]
            .as_str()
            .unwrap_or_default()
            .contains("{click_id}"),
        "{e}"
    );
    body["destinationUrl"] = json!("http://advertiser.example/?c={click_id}");
    let (s, e) = app.post(CAMPAIGNS, Some(t), &body).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let mut body = campaign_body("CUSTOM_S2S", 50 * USD);
    body["goals"] = json!([
        {"externalGoalId": "install", "name": "Install", "payoutMicros": 1_000_000},
        {"externalGoalId": "install", "name": "Again", "payoutMicros": 1_000_000}
    ]);
    let (s, e) = app.post(CAMPAIGNS, Some(t), &body).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(
        e["error"]["fieldErrors"]["goals[1].externalGoalId"].is_string(),
        "{e}"
    );
    for provider in ["MMP:TENJIN", "MMP:NOPE", "FACEBOOK"] {
        let (s, e) = app
            .post(CAMPAIGNS, Some(t), &campaign_body(provider, 50 * USD))
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{provider}: {e}");
        assert!(
            e["error"]["fieldErrors"]["trackingProvider"].is_string(),
            "{e}"
        );
    }
    let mut body = campaign_body("CUSTOM_S2S", 50 * USD);
    body["budgetMicros"] = json!(1.5);
    assert_eq!(
        app.post(CAMPAIGNS, Some(t), &body).await.0,
        StatusCode::BAD_REQUEST
    );
    let (_, list) = app.get(CAMPAIGNS, Some(t)).await;
    assert_eq!(list["count"], 0, "nothing half-written");
}

/// Insufficient balance refuses approval and moves nothing; a rejection needs a reason and
/// the campaign can be resubmitted; unknown statuses and other accounts' campaigns are
/// refused; the provider can change only while DRAFT.
async fn approval_rejection_and_ownership(app: &TestApp, t: &str, admin: &str) {
    // Insufficient balance: approval is refused and nothing moves.
    let id = create(app, t, &campaign_body("CUSTOM_S2S", 500 * USD)).await;
    let (s, e) = transition(app, t, &id, "LIVE").await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&e), "invalid_transition");
    assert_eq!(transition(app, t, &id, "IN_REVIEW").await.0, StatusCode::OK);
    let (s, e) = approve(app, t, &id).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "advertisers cannot approve: {e}");
    let (s, e) = approve(app, admin, &id).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&e), "insufficient_balance");
    assert_eq!(
        app.get(&format!("{CAMPAIGNS}/{id}"), Some(t)).await.1["status"],
        "IN_REVIEW"
    );
    assert_eq!(app.balance(&t).await, (100 * USD, 0, 0));

    // Rejection needs a reason; a rejected campaign can be resubmitted.
    let reject = format!("/admin/v1/offer-campaigns/{id}/reject");
    assert_eq!(
        app.post(&reject, Some(admin), &json!({"reason": ""}))
            .await
            .0,
        StatusCode::BAD_REQUEST
    );
    let (s, c) = app
        .post(
            &reject,
            Some(admin),
            &json!({"reason": "Budget exceeds the wallet"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(c["status"], "REJECTED");
    assert_eq!(c["rejectionReason"], "Budget exceeds the wallet");
    assert_eq!(
        app.post(&reject, Some(admin), &json!({"reason": "again"}))
            .await
            .0,
        StatusCode::CONFLICT
    );
    let (s, c) = transition(app, t, &id, "IN_REVIEW").await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert!(c["rejectionReason"].is_null());

    // Unknown status values and other advertisers' campaigns.
    let (s, _) = app
        .post(
            &format!("{CAMPAIGNS}/{id}/transition"),
            Some(t),
            &json!({"to": "FLYING"}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (_, other) = app.funded_advertiser(0).await;
    let (s, e) = app.get(&format!("{CAMPAIGNS}/{id}"), Some(&other)).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_eq!(error_code(&e), "not_found");
    assert_eq!(
        transition(app, &other, &id, "DRAFT").await.0,
        StatusCode::NOT_FOUND
    );
    let (_, publisher) = app.signed_in(Role::Publisher).await;
    assert_eq!(
        app.get(CAMPAIGNS, Some(&publisher)).await.0,
        StatusCode::FORBIDDEN
    );
    assert_eq!(app.get(CAMPAIGNS, None).await.0, StatusCode::UNAUTHORIZED);

    // The provider can change only while DRAFT.
    let (s, e) = app
        .patch(
            &format!("{CAMPAIGNS}/{id}"),
            Some(t),
            &json!({"trackingProvider": "DIRECT"}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert!(e["error"]["fieldErrors"]["trackingProvider"].is_string());
}

async fn revisions_clone_and_audit(app: TestApp) {
    let app = &app;
    let (_, t) = app.funded_advertiser(1_000 * USD).await;
    let admin = app.admin_token().await;
    let id = create(app, &t, &campaign_body("CUSTOM_S2S", 200 * USD)).await;
    edits_make_revisions_and_live_ones_wait_for_review(app, (&t, &admin), &id).await;
    clones_read_only_ends_and_the_audit_trail(app, &t, &id).await;
}

/// Before the first submission the draft revision is rewritten; an edit under review
/// withdraws the campaign; editing a live campaign keeps the approved revision delivering
/// until its review.
async fn edits_make_revisions_and_live_ones_wait_for_review(
    app: &TestApp,
    (t, admin): (&str, &str),
    id: &str,
) {
    let path = format!("{CAMPAIGNS}/{id}");
    // Before the first submission the draft revision is rewritten.
    let (s, c) = app
        .patch(&path, Some(t), &json!({"name": "Reach level 10"}))
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(
        (c["revision"].as_i64(), c["name"].as_str()),
        (Some(1), Some("Reach level 10"))
    );
    assert_eq!(
        c["goals"][0]["externalGoalId"], "install",
        "unnamed fields are kept"
    );

    assert_eq!(transition(app, t, &id, "IN_REVIEW").await.0, StatusCode::OK);
    let (_, c) = app
        .patch(&path, Some(t), &json!({"countries": ["fr"]}))
        .await;
    assert_eq!(c["revision"], 2);
    assert_eq!(c["countries"], json!(["FR"]));
    // An edit under review withdraws the campaign; it is submitted again.
    assert_eq!(c["status"], "DRAFT");
    assert_eq!(transition(app, t, &id, "IN_REVIEW").await.0, StatusCode::OK);
    let (s, c) = approve(app, admin, &id).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(c["liveRevision"], 2);

    // Editing a live campaign keeps the approved revision delivering until review.
    let (_, c) = app
        .patch(&path, Some(t), &json!({"budgetMicros": 300 * USD}))
        .await;
    assert_eq!(
        (c["revision"].as_i64(), c["liveRevision"].as_i64()),
        (Some(3), Some(2))
    );
    assert_eq!(c["pendingRevision"], true);
    assert_eq!(
        app.balance(&t).await.1,
        200 * USD,
        "the live budget is unchanged"
    );
    let (_, queue) = app.get("/admin/v1/offer-campaigns", Some(admin)).await;
    assert!(
        queue["items"]
            .as_array()
            .expect("items")
            .iter()
            .any(|c| c["campaignId"] == id)
    );
    let (s, c) = approve(app, admin, &id).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(
        (c["liveRevision"].as_i64(), c["pendingRevision"].as_bool()),
        (Some(3), Some(false))
    );
    let (_, queue) = app.get("/admin/v1/offer-campaigns", Some(admin)).await;
    let queued = queue["items"].as_array().expect("items");
    assert!(
        !queued.iter().any(|c| c["campaignId"] == id),
        "a live campaign without a pending revision leaves the queue"
    );
    assert_eq!(
        app.balance(&t).await,
        (700 * USD, 300 * USD, 0),
        "the reserve follows the new budget"
    );

    let (_, revs) = app.get(&format!("{path}/revisions"), Some(t)).await;
    let items = revs["items"].as_array().expect("items");
    assert_eq!(items.len(), 3);
    assert_eq!(
        (items[0]["revision"].as_i64(), items[0]["live"].as_bool()),
        (Some(3), Some(true))
    );
    assert_eq!(items[2]["config"]["name"], "Reach level 10");
    assert_eq!(items[1]["config"]["countries"], json!(["FR"]));
}

/// A clone is a new DRAFT with the newest configuration and no money; ended campaigns are
/// read-only; the audit trail names every change.
async fn clones_read_only_ends_and_the_audit_trail(app: &TestApp, t: &str, id: &str) {
    let path = format!("{CAMPAIGNS}/{id}");
    // Clone: a new DRAFT with the newest configuration, no money.
    let (s, copy) = app
        .post(&format!("{path}/clone"), Some(t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{copy}");
    assert_eq!(
        (copy["status"].as_str(), copy["name"].as_str()),
        (Some("DRAFT"), Some("Copy of Reach level 10"))
    );
    assert_eq!(copy["budgetMicros"], 300 * USD);
    assert_eq!(copy["reservedMicros"], 0);
    assert_ne!(copy["campaignId"], id);

    // Ended campaigns are read-only.
    assert_eq!(transition(app, t, &id, "ENDED").await.0, StatusCode::OK);
    let (s, e) = app
        .patch(&path, Some(t), &json!({"name": "Too late"}))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&e), "campaign_not_editable");

    let (_, audit) = app.get(&format!("{path}/audit"), Some(t)).await;
    let actions: Vec<&str> = audit["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|a| a["action"].as_str())
        .collect();
    for a in [
        "campaign.created",
        "campaign.updated",
        "campaign.transition",
        "campaign.approved",
    ] {
        assert!(actions.contains(&a), "{a} in {actions:?}");
    }
    assert_eq!(actions[0], "campaign.transition", "newest first");
    let first_edit = audit["items"]
        .as_array()
        .expect("items")
        .iter()
        .rev()
        .find(|a| a["action"] == "campaign.updated")
        .expect("edit");
    assert_eq!(
        first_edit["detail"]["fields"],
        json!(["name"]),
        "only what changed is recorded"
    );
}

async fn readiness_and_report(app: TestApp) {
    let (user, t) = app.funded_advertiser(100 * USD).await;
    let admin = app.admin_token().await;
    let id = create(&app, &t, &campaign_body("CUSTOM_S2S", 150 * USD)).await;
    let path = format!("{CAMPAIGNS}/{id}");
    let (s, r) = app.get(&format!("{path}/readiness"), Some(&t)).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["readyToSubmit"], true);
    assert_eq!(r["readyToLaunch"], false);
    let codes: Vec<&str> = r["reasons"]
        .as_array()
        .expect("reasons")
        .iter()
        .filter_map(|r| r["code"].as_str())
        .collect();
    assert!(
        codes.contains(&"insufficient_balance") && codes.contains(&"tracking_credential_missing"),
        "{r}"
    );

    // A schedule that has already ended blocks submission.
    let (_, c) = app
        .patch(
            &path,
            Some(&t),
            &json!({"budgetMicros": 60 * USD, "schedule": {"endAt": "2026-03-01T00:00:00Z"}}),
        )
        .await;
    assert_eq!(c["budgetMicros"], 60 * USD);
    let (s, e) = transition(&app, &t, &id, "IN_REVIEW").await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&e), "campaign_not_ready");
    let (_, c) = app
        .patch(
            &path,
            Some(&t),
            &json!({"schedule": {"endAt": "2026-12-31T00:00:00Z"}}),
        )
        .await;
    assert!(c["schedule"]["endAt"].is_string(), "{c}");
    let (_, r) = app.get(&format!("{path}/readiness"), Some(&t)).await;
    assert_eq!(r["readyToLaunch"], true, "{r}");

    assert_eq!(
        transition(&app, &t, &id, "IN_REVIEW").await.0,
        StatusCode::OK
    );
    assert_eq!(approve(&app, &admin, &id).await.0, StatusCode::OK);
    spend(&app, &id, 1_500_000, "conv:a").await;
    app.clock.advance(chrono::Duration::days(1));
    spend(&app, &id, 1_500_000, "conv:b").await;
    spend(&app, &id, 1_500_000, "conv:c").await;
    let t = app.token(&user).await; // a day later the first token has expired

    let (s, rep) = app
        .get(
            &format!("{path}/report?from=2026-03-01&to=2026-03-03"),
            Some(&t),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{rep}");
    let days = rep["days"].as_array().expect("days");
    assert_eq!(days.len(), 3);
    assert_eq!(days[0]["spendMicros"], 0);
    assert_eq!(days[1]["spendMicros"], 1_500_000);
    assert_eq!(days[2]["spendMicros"], 3_000_000);
    assert_eq!(rep["totals"]["spend"], "4.500000");
    let (s, e) = app
        .get(
            &format!("{path}/report?from=2026-03-05&to=2026-03-01"),
            Some(&t),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(e["error"]["fieldErrors"]["from"].is_string());
    let (s, _) = app
        .get(&format!("{path}/report?from=yesterday"), Some(&t))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
}
