//! Payouts (issue 34): the profile, a publisher's request, the administrator's decisions and
//! the monthly run, each moving the publisher's money exactly once and leaving an audit
//! trail without the payment details.

use reqwest::StatusCode;
use sea_orm::EntityTrait;
use serde_json::json;
use tests::builders::USD;
use tests::builders::earnings::{
    EARNED, IBAN, assert_reconciled, decide, earned, earnings, micros, request,
};
use tests::{TestApp, both_backends, error_code};

/// Saves a payment-service payout profile for the publisher.
async fn payment_service_profile(app: &TestApp, token: &str) {
    let (s, p) = app
        .put(
            "/publisher/v2/payouts/profile",
            Some(token),
            &json!({"legalName": "Pixel Quest", "country": "US", "method": "PAYMENT_SERVICE", "details": "payouts@pixelquest.example"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{p}");
}

/// Starts the month's run, lets the workers make its payouts, and answers the start's status
/// and body and the run as it ended.
async fn run_month(
    app: &TestApp,
    admin: &str,
    period: &str,
) -> (StatusCode, serde_json::Value, serde_json::Value) {
    let (s, started) = app
        .post(
            "/admin/v1/payouts/runs",
            Some(admin),
            &json!({ "period": period }),
        )
        .await;
    app.run_workers_once().await;
    let id = started["id"].as_str().unwrap_or_default();
    let (g, ended) = app
        .get(&format!("/admin/v1/payouts/runs/{id}"), Some(admin))
        .await;
    assert!(!s.is_success() || g == StatusCode::OK, "{started} {ended}");
    (s, started, ended)
}

async fn a_payout_is_requested_approved_paid_and_returned(app: TestApp) {
    let (w, token) = earned(app).await;
    let app = &w.app;
    let (s, e) = request(app, &token, Some("payout-0001"), &json!({})).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "payout_profile_incomplete"),
        "{e}"
    );
    let (s, e) = app
        .put(
            "/publisher/v2/payouts/profile",
            Some(&token),
            &json!({"legalName": "Pixel Quest GmbH", "country": "de", "method": "BANK_TRANSFER", "details": "DE89370400440532013001"}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "a wrong IBAN checksum: {e}");
    let (s, prof) = app
        .put(
            "/publisher/v2/payouts/profile",
            Some(&token),
            &json!({"legalName": "Pixel Quest GmbH", "country": "de", "method": "BANK_TRANSFER", "details": IBAN}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{prof}");
    assert_eq!(prof["detailsHint"], "IBAN ••••3000");
    assert_eq!(prof["country"], "DE");

    let (s, e) = request(app, &token, None, &json!({})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "the key is required: {e}");
    let (s, e) = request(
        app,
        &token,
        Some("payout-0001"),
        &json!({"amountMicros": USD / 2}),
    )
    .await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "below_minimum_payout"),
        "{e}"
    );
    let (s, e) = request(
        app,
        &token,
        Some("payout-0001"),
        &json!({"amountMicros": 5 * USD}),
    )
    .await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "insufficient_balance"),
        "{e}"
    );
    let (s, p) = request(app, &token, Some("payout-0001"), &json!({})).await;
    assert_eq!(s, StatusCode::CREATED, "{p}");
    assert_eq!(
        (p["status"].clone(), p["amountMicros"].clone()),
        (json!("REQUESTED"), json!(EARNED))
    );
    let id = p["id"].as_str().expect("id").to_owned();
    let (s, again) = request(app, &token, Some("payout-0001"), &json!({})).await;
    assert_eq!(
        (s, again["id"].clone()),
        (StatusCode::OK, json!(id)),
        "a retry answers the first"
    );
    let (s, e) = request(app, &token, Some("payout-0002"), &json!({})).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "payout_open"),
        "{e}"
    );
    let e = earnings(&w).await;
    assert_eq!(
        (
            micros(&e, "availableMicros"),
            micros(&e, "heldForPayoutMicros")
        ),
        (0, EARNED)
    );

    let (s, e) = decide(app, &token, &id, "approve", json!({})).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{e}");
    let admin = app.admin_token().await;
    let (s, q) = app.get("/admin/v1/payouts", Some(&admin)).await;
    assert_eq!(s, StatusCode::OK, "{q}");
    assert_eq!(q["items"][0]["id"], json!(id), "{q}");
    let (s, a) = decide(app, &admin, &id, "approve", json!({})).await;
    assert_eq!(
        (s, a["status"].clone()),
        (StatusCode::OK, json!("APPROVED")),
        "{a}"
    );
    let (s, e) = app
        .post(
            &format!("/publisher/v2/payouts/{id}/cancel"),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "invalid_transition"),
        "{e}"
    );
    let (s, e) = decide(app, &admin, &id, "mark-paid", json!({})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "the reference is required: {e}");
    let (s, paid_out) = decide(
        app,
        &admin,
        &id,
        "mark-paid",
        json!({"externalReference": "SEPA-2026-11-0042"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{paid_out}");
    assert_eq!(paid_out["status"], "PAID");
    let e = earnings(&w).await;
    assert_eq!(
        (
            micros(&e, "availableMicros"),
            micros(&e, "heldForPayoutMicros"),
            micros(&e, "paidMicros")
        ),
        (0, 0, EARNED)
    );
    assert_reconciled(app).await;

    // The bank returns it: the money is available again.
    let (s, f) = decide(
        app,
        &admin,
        &id,
        "fail",
        json!({"reason": "account closed"}),
    )
    .await;
    assert_eq!(
        (s, f["status"].clone()),
        (StatusCode::OK, json!("FAILED")),
        "{f}"
    );
    let e = earnings(&w).await;
    assert_eq!(
        (micros(&e, "availableMicros"), micros(&e, "paidMicros")),
        (EARNED, 0)
    );
    let (s, e) = decide(app, &admin, &id, "fail", json!({"reason": "again"})).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "invalid_transition"),
        "{e}"
    );

    // A smaller request, cancelled by the publisher.
    let (s, p) = request(
        app,
        &token,
        Some("payout-0003"),
        &json!({"amountMicros": USD}),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{p}");
    let small = p["id"].as_str().expect("id");
    let (s, c) = app
        .post(
            &format!("/publisher/v2/payouts/{small}/cancel"),
            Some(&token),
            &json!({}),
        )
        .await;
    assert_eq!(
        (s, c["status"].clone()),
        (StatusCode::OK, json!("CANCELLED")),
        "{c}"
    );
    assert_eq!(micros(&earnings(&w).await, "availableMicros"), EARNED);
    let (s, l) = app.get("/publisher/v2/payouts?limit=1", Some(&token)).await;
    assert_eq!(s, StatusCode::OK, "{l}");
    assert_eq!(l["items"][0]["id"], json!(small));
    assert!(l["nextCursor"].is_string(), "{l}");
    assert_reconciled(app).await;
    no_details_in_the_clear(app).await;
}

/// The IBAN is in no audit entry and no payout row in the clear.
async fn no_details_in_the_clear(app: &TestApp) {
    use sea_orm::EntityTrait;
    let db = &app.state.ctx.db;
    let plain = IBAN.replace(' ', "");
    for a in entity::audit_event::Entity::find()
        .all(db)
        .await
        .expect("audit")
    {
        assert!(!a.detail.contains(&plain), "{}", a.action);
    }
    for p in entity::payout::Entity::find()
        .all(db)
        .await
        .expect("payouts")
    {
        assert!(!p.details_sealed.contains(&plain));
        assert_eq!(
            app.state
                .ctx
                .keys
                .open(
                    &app::domain::payouts::seal_binding(&p.id),
                    &p.details_sealed
                )
                .ok(),
            Some(plain.clone()),
            "the payout keeps its own sealed copy"
        );
    }
    let actions: Vec<String> = entity::audit_event::Entity::find()
        .all(db)
        .await
        .expect("audit")
        .into_iter()
        .map(|a| a.action)
        .filter(|a| a.starts_with("payout"))
        .collect();
    for wanted in [
        "payout.requested",
        "payout.approved",
        "payout.paid",
        "payout.failed",
        "payout.cancelled",
        "payout_profile.updated",
    ] {
        assert!(
            actions.iter().any(|a| a == wanted),
            "{wanted} in {actions:?}"
        );
    }
}

async fn the_monthly_run_creates_one_payout_per_eligible_publisher(app: TestApp) {
    let (w, token) = earned(app).await;
    let app = &w.app;
    let admin = app.admin_token().await;
    let (s, e) = app
        .post(
            "/admin/v1/payouts/runs",
            Some(&admin),
            &json!({"period": "2026-13"}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    // Queued at once (a worker makes the payouts); without a profile the publisher is
    // skipped.
    let (s, started, r) = run_month(app, &admin, "2026-11").await;
    assert_eq!(s, StatusCode::ACCEPTED, "{started}");
    assert_eq!(
        (&started["status"], &started["createdCount"]),
        (&json!("QUEUED"), &json!(0)),
        "{started}"
    );
    assert_eq!(
        (&r["status"], &r["createdCount"], &r["skippedCount"]),
        (&json!("COMPLETED"), &json!(0), &json!(1)),
        "{r}"
    );
    assert!(r["finishedAt"].is_string(), "{r}");
    payment_service_profile(app, &token).await;
    // Again for what is missing: queued again, one payout; a third call creates nothing.
    for expected in [1, 1] {
        let (s, started, r) = run_month(app, &admin, "2026-11").await;
        assert_eq!(s, StatusCode::ACCEPTED, "{started}");
        assert_eq!(
            r["createdCount"],
            json!(expected),
            "a second call creates nothing: {r}"
        );
        assert_eq!(r["id"], started["id"], "one run per month");
    }
    // While queued, starting it again answers it as it stands.
    let october = json!({"period": "2026-10"});
    let queued = || app.post("/admin/v1/payouts/runs", Some(&admin), &october);
    let (s, first) = queued().await;
    assert_eq!(s, StatusCode::ACCEPTED, "{first}");
    let (s, again) = queued().await;
    assert_eq!(
        (s, &again["status"]),
        (StatusCode::OK, &json!("QUEUED")),
        "{again}"
    );
    let (s, l) = app.get("/admin/v1/payouts/runs", Some(&admin)).await;
    assert_eq!(s, StatusCode::OK, "{l}");
    let periods: Vec<_> = l["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|r| r["period"].clone())
        .collect();
    assert_eq!(periods, vec![json!("2026-11"), json!("2026-10")], "{l}");
    let (s, e) = app
        .get("/admin/v1/payouts/runs/prn_missing", Some(&admin))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{e}");
    let (s, _) = app.get("/admin/v1/payouts/runs", Some(&token)).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "administrators only");
    app.run_workers_once().await;
    let (_, q) = app.get("/admin/v1/payouts", Some(&admin)).await;
    let items = q["items"].as_array().expect("items");
    assert_eq!(items.len(), 1, "{q}");
    assert_eq!(items[0]["amountMicros"], json!(EARNED));
    assert!(items[0]["runId"].is_string());
    assert_eq!(items[0]["detailsHint"], "account ••••mple");
    let id = items[0]["id"].as_str().expect("id");
    let (s, r) = decide(
        app,
        &admin,
        id,
        "reject",
        json!({"reason": "tax form missing"}),
    )
    .await;
    assert_eq!(
        (s, r["status"].clone()),
        (StatusCode::OK, json!("REJECTED")),
        "{r}"
    );
    assert_eq!(micros(&earnings(&w).await, "availableMicros"), EARNED);
    assert_reconciled(app).await;
}

/// Money held twice is the race to lose (issue 52, item 10): two payout requests at once
/// under different keys hold the balance once; two runs of one month at once create one
/// run and one payout, and neither answers 500.
async fn requests_and_runs_at_once_hold_the_money_once(app: TestApp) {
    let (w, token) = earned(app).await;
    let app = &w.app;
    payment_service_profile(app, &token).await;
    let empty = json!({});
    let (a, b) = tokio::join!(
        request(app, &token, Some("payout-race-a"), &empty),
        request(app, &token, Some("payout-race-b"), &empty),
    );
    let created = [&a, &b]
        .iter()
        .filter(|(s, _)| *s == StatusCode::CREATED)
        .count();
    assert_eq!(created, 1, "{a:?} {b:?}");
    for (s, e) in [&a, &b] {
        assert!(s.is_success() || *s == StatusCode::CONFLICT, "{s} {e}");
    }
    let e = earnings(&w).await;
    assert_eq!(micros(&e, "availableMicros"), 0, "{e}");
    assert_eq!(micros(&e, "heldForPayoutMicros"), EARNED, "held once: {e}");

    let admin = app.admin_token().await;
    let period = json!({"period": "2026-12"});
    let run = || app.post("/admin/v1/payouts/runs", Some(&admin), &period);
    let (x, y) = tokio::join!(run(), run());
    for (s, r) in [&x, &y] {
        assert!(
            s.is_success() || *s == StatusCode::CONFLICT,
            "a run at the same moment is told, not failed: {s} {r}"
        );
    }
    // Two workers at once make the run's payouts once.
    let ctx = &app.state.ctx;
    let work = app::domain::payouts::runs::work_next;
    let (x, y) = tokio::join!(work(ctx), work(ctx));
    let done = [x.expect("worker"), y.expect("worker")];
    assert_eq!(
        done.iter().flatten().count(),
        1,
        "one worker took the run: {done:?}"
    );
    let runs = entity::payout_run::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("runs");
    assert_eq!(runs.len(), 1);
    let (_, q) = app.get("/admin/v1/payouts", Some(&admin)).await;
    assert_eq!(q["items"].as_array().map(Vec::len), Some(1), "{q}");
    assert_reconciled(app).await;
}

/// A disabled publisher is not paid by the monthly run (issue 52): it is counted as
/// skipped, and its balance stays where it was.
async fn a_disabled_publisher_is_not_paid_by_a_run(app: TestApp) {
    use sea_orm::{ActiveModelTrait, IntoActiveModel, Set};
    let (w, token) = earned(app).await;
    let app = &w.app;
    payment_service_profile(app, &token).await;
    let account = entity::account::Entity::find_by_id(w.p.user.account_id.clone())
        .one(&app.state.ctx.db)
        .await
        .expect("q")
        .expect("account");
    let mut a = account.into_active_model();
    a.status = Set(entity::values::AccountStatus::Disabled);
    a.update(&app.state.ctx.db).await.expect("disabled");
    let admin = app.admin_token().await;
    let (s, _, r) = run_month(app, &admin, "2026-11").await;
    assert_eq!(s, StatusCode::ACCEPTED, "{r}");
    assert_eq!(
        (r["createdCount"].clone(), r["skippedCount"].clone()),
        (json!(0), json!(1)),
        "{r}"
    );
    let (_, q) = app.get("/admin/v1/payouts", Some(&admin)).await;
    assert_eq!(q["items"].as_array().map(Vec::len), Some(0), "{q}");
    assert_reconciled(app).await;
}

/// A publisher's request checks its amount and its key (issue 52, the mutation run's
/// survivors in `payouts::requests`): a zero or negative amount is a field error, the same
/// key sent several times at once makes one payout that every copy answers, a retry with the
/// same amount answers it again and one with another amount is refused.
async fn a_payout_request_checks_its_amount_and_key(app: TestApp) {
    let (w, token) = earned(app).await;
    let app = &w.app;
    payment_service_profile(app, &token).await;
    for bad in [0, -1] {
        let (s, e) = request(
            app,
            &token,
            Some("payout-bad-1"),
            &json!({"amountMicros": bad}),
        )
        .await;
        assert_eq!(
            (s, error_code(&e)),
            (StatusCode::BAD_REQUEST, "invalid_input"),
            "{e}"
        );
        assert!(e["error"]["fieldErrors"]["amountMicros"].is_string(), "{e}");
    }
    let same = json!({"amountMicros": EARNED});
    let answers = futures::future::join_all(
        (0..6).map(|_| request(app, &token, Some("payout-same-1"), &same)),
    )
    .await;
    let created = answers
        .iter()
        .filter(|(s, _)| *s == StatusCode::CREATED)
        .count();
    assert_eq!(created, 1, "{answers:?}");
    let id = answers
        .iter()
        .find(|(s, _)| *s == StatusCode::CREATED)
        .map(|(_, p)| p["id"].clone())
        .expect("created");
    for (s, p) in &answers {
        assert!(s.is_success(), "a copy is answered, not refused: {s} {p}");
        assert_eq!(p["id"], id, "{p}");
    }
    let payouts = entity::payout::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("payouts");
    assert_eq!(payouts.len(), 1);
    let (s, p) = request(app, &token, Some("payout-same-1"), &same).await;
    assert_eq!((s, p["id"].clone()), (StatusCode::OK, id), "{p}");
    let (s, e) = request(
        app,
        &token,
        Some("payout-same-1"),
        &json!({"amountMicros": EARNED - 1}),
    )
    .await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "idempotency_key_reused"),
        "{e}"
    );
    assert_reconciled(app).await;
}

both_backends!(
    a_payout_request_checks_its_amount_and_key,
    a_disabled_publisher_is_not_paid_by_a_run,
    a_payout_is_requested_approved_paid_and_returned,
    the_monthly_run_creates_one_payout_per_eligible_publisher,
    requests_and_runs_at_once_hold_the_money_once,
);
