//! Large payouts need two administrators (issue 55, item 2): at or above
//! `APP_PAYOUT_SECOND_APPROVAL_MICROS` the first approval is recorded and the payout stays
//! REQUESTED (it cannot be paid), the same administrator cannot give the second, another
//! one can; below it one approval is enough.

use app::model::Role;
use reqwest::StatusCode;
use sea_orm::EntityTrait;
use serde_json::json;
use tests::builders::earnings::{EARNED, IBAN, decide, earned, request};
use tests::{Backend, TestApp, each_backend, error_code};

each_backend!(a_large_payout_needs_two_administrators);

async fn a_large_payout_needs_two_administrators(backend: Backend) {
    // 2 USD: the publisher's 2.10 USD payout is large, 1 USD is not.
    let app = TestApp::spawn_with(backend, &["--payout-second-approval-micros", "2000000"]).await;
    let (w, token) = earned(app).await;
    let app = &w.app;
    let body = json!({"legalName": "Pixel Quest GmbH", "country": "DE", "method": "BANK_TRANSFER", "details": IBAN});
    let (s, p) = app
        .put("/publisher/v2/payouts/profile", Some(&token), &body)
        .await;
    assert_eq!(s, StatusCode::OK, "{p}");
    let (s, small) = request(
        app,
        &token,
        Some("payout-small-0001"),
        &json!({"amountMicros": 1_000_000}),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{small}");
    let small_id = small["id"].as_str().expect("id").to_owned();
    let (first_user, first) = app.signed_in(Role::Admin).await;
    let (s, done) = decide(app, &first, &small_id, "approve", json!({})).await;
    assert_eq!(s, StatusCode::OK, "{done}");
    assert_eq!(
        done["status"], "APPROVED",
        "below the amount one approval is enough"
    );
    let (s, _) = decide(
        app,
        &first,
        &small_id,
        "reject",
        json!({"reason": "test over"}),
    )
    .await;
    assert_eq!(s, StatusCode::OK);

    let (s, large) = request(app, &token, Some("payout-large-0001"), &json!({})).await;
    assert_eq!(s, StatusCode::CREATED, "{large}");
    assert_eq!(large["amountMicros"], EARNED);
    let id = large["id"].as_str().expect("id").to_owned();
    let (s, p) = decide(app, &first, &id, "approve", json!({})).await;
    assert_eq!(s, StatusCode::OK, "{p}");
    assert_eq!(p["status"], "REQUESTED", "{p}");
    assert_eq!(p["firstApprovedBy"], first_user.account_id.as_str());
    // Not payable yet, and not by the same person twice.
    let paid = json!({"externalReference": "BANK-REF-1"});
    let (s, e) = decide(app, &first, &id, "mark-paid", paid.clone()).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "invalid_transition"),
        "{e}"
    );
    let (s, e) = decide(app, &first, &id, "approve", json!({})).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "second_approver_required"),
        "{e}"
    );

    let (_, second) = app.signed_in(Role::Admin).await;
    let (s, p) = decide(app, &second, &id, "approve", json!({})).await;
    assert_eq!(s, StatusCode::OK, "{p}");
    assert_eq!(p["status"], "APPROVED");
    let (s, p) = decide(app, &second, &id, "mark-paid", paid).await;
    assert_eq!(s, StatusCode::OK, "{p}");
    assert_eq!(p["status"], "PAID");

    let audits = entity::audit_event::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("audit");
    let of = |action: &str| {
        audits
            .iter()
            .filter(|a| a.action == action && a.subject_id == id)
            .count()
    };
    assert_eq!(of("payout.first_approval"), 1);
    assert_eq!(of("payout.approved"), 1);
}
