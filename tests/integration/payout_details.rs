//! An administrator opens a payout's payment details to send the money (issue 55, item 2):
//! administrators only, the copy the payout was requested with (not a later profile), a
//! current second-factor code when the administrator has a factor, an audit entry naming the
//! person without the details, an answer no cache keeps; and the same on the administrators'
//! payouts page without JavaScript, shown once.

use app::model::Role;
use reqwest::StatusCode;
use sea_orm::EntityTrait;
use serde_json::{Value, json};
use tests::builders::earnings::{IBAN, earned, request};
use tests::{TestApp, both_backends, csrf_of, error_code, totp_code};

both_backends!(an_administrator_opens_payout_details_under_audit);

const OTHER_IBAN: &str = "GB82WEST12345698765432";

async fn profile(app: &TestApp, token: &str, iban: &str) {
    let body = json!({"legalName": "Pixel Quest GmbH", "country": "DE", "method": "BANK_TRANSFER", "details": iban});
    let (s, p) = app
        .put("/publisher/v2/payouts/profile", Some(token), &body)
        .await;
    assert_eq!(s, StatusCode::OK, "{p}");
}

async fn open(
    app: &TestApp,
    token: &str,
    id: &str,
    code: Option<&str>,
) -> (StatusCode, Value, String) {
    let mut req = app
        .client
        .post(app.url(&format!("/admin/v1/payouts/{id}/details")))
        .bearer_auth(token)
        .json(&json!({}));
    if let Some(c) = code {
        req = req.header("X-Second-Factor", c);
    }
    let res = req.send().await.expect("sent");
    let status = res.status();
    let cache = (res.headers().get("cache-control"))
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (status, res.json().await.unwrap_or(Value::Null), cache)
}

async fn an_administrator_opens_payout_details_under_audit(app: TestApp) {
    let (w, token) = earned(app).await;
    let app = &w.app;
    profile(app, &token, IBAN).await;
    let (s, payout) = request(app, &token, Some("payout-details-0001"), &json!({})).await;
    assert_eq!(s, StatusCode::CREATED, "{payout}");
    let id = payout["id"].as_str().expect("id").to_owned();
    // The publisher changes its profile afterwards: the payout keeps what it was asked with.
    profile(app, &token, OTHER_IBAN).await;

    let (s, e, _) = open(app, &token, &id, None).await;
    assert_eq!(
        s,
        StatusCode::FORBIDDEN,
        "a publisher cannot open them: {e}"
    );
    let (admin_user, admin) = app.signed_in(Role::Admin).await;
    let (s, d, cache) = open(app, &admin, &id, None).await;
    assert_eq!(s, StatusCode::OK, "{d}");
    assert_eq!(d["details"], IBAN.replace(' ', ""));
    assert_eq!(d["legalName"], "Pixel Quest GmbH");
    assert_eq!(d["method"], "BANK_TRANSFER");
    assert_eq!(d["amountMicros"], payout["amountMicros"]);
    assert_eq!(cache, "no-store");
    let (s, e, _) = open(app, &admin, "pyo_missing", None).await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{e}");

    // Each opening is in the audit trail under the person, never with the details.
    let audits = entity::audit_event::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("audit");
    let opened: Vec<_> = audits
        .iter()
        .filter(|a| a.action == "payout.details_opened")
        .collect();
    assert_eq!(opened.len(), 1, "one opening, one entry");
    assert_eq!(opened[0].subject_id, id);
    assert_eq!(
        opened[0].actor_account_id.as_deref(),
        Some(admin_user.account_id.as_str())
    );
    assert!(
        !opened[0].detail.contains(&IBAN.replace(' ', "")),
        "{}",
        opened[0].detail
    );

    // An administrator with a second factor confirms with a current code.
    let (_, factor_admin) = app.signed_in(Role::Admin).await;
    let (secret, _) = app.enrol_second_factor(&factor_admin).await;
    let (s, e, _) = open(app, &factor_admin, &id, None).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::FORBIDDEN, "step_up_required"),
        "{e}"
    );
    let (s, e, _) = open(app, &factor_admin, &id, Some("000000")).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "a wrong code: {e}");
    let code = totp_code(&secret, app.clock_now());
    let (s, d, _) = open(app, &factor_admin, &id, Some(&code)).await;
    assert_eq!(s, StatusCode::OK, "{d}");
    assert_eq!(d["details"], IBAN.replace(' ', ""));

    // The payouts page without JavaScript: the form opens them, the page shows them once.
    let browser = tests::browser();
    app.browser_sign_in(&browser, &admin_user).await;
    let page = |path: String| {
        let browser = browser.clone();
        async move {
            browser
                .get(path)
                .send()
                .await
                .expect("page")
                .text()
                .await
                .unwrap_or_default()
        }
    };
    let list = page(app.url("/admin/payouts")).await;
    assert!(
        list.contains("details-form"),
        "a form per open payout: {list:.2000}"
    );
    let res = browser
        .post(app.url("/fn/open_payout_details"))
        .header("accept", "text/html")
        .header("referer", app.url("/admin/payouts"))
        .form(&[
            ("payout_id", id.as_str()),
            ("otp", ""),
            ("csrf", csrf_of(&list).as_str()),
        ])
        .send()
        .await
        .expect("form");
    assert!(res.status().is_redirection(), "{}", res.status());
    let shown = page(app.url("/admin/payouts")).await;
    assert!(shown.contains("id=\"payout-details\""), "{shown:.3000}");
    assert!(shown.contains(&IBAN.replace(' ', "")));
    let again = page(app.url("/admin/payouts")).await;
    assert!(!again.contains(&IBAN.replace(' ', "")), "shown once");
}
