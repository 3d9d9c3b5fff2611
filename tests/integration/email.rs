//! The sign-in address (issue 54, part 2): a registration mails a verification link that
//! works once and marks the address confirmed; changing the address needs the password,
//! goes by a link to the new address, tells the old one when asked and when done, and the
//! account then signs in with the new address only; an unconfirmed address may not invite.

use app::model::Role;
use app::model::mail::MailTopic;
use reqwest::StatusCode;
use sea_orm::EntityTrait;
use serde_json::json;
use tests::{TestApp, both_backends, error_code};

both_backends!(
    a_registration_is_confirmed_by_its_link_once,
    the_address_changes_through_the_new_one_and_the_old_one_is_told,
);

const CONFIRM: &str = "/auth/v1/email/confirm";

async fn register(app: &TestApp, email: &str) -> String {
    let (s, b) = app
        .post(
            "/auth/v1/accounts",
            None,
            &json!({"email": email, "password": "correct horse battery", "role": "PUBLISHER", "companyName": "Fresh Co"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let (s, t) = app
        .post(
            "/auth/v1/tokens",
            None,
            &json!({"email": email, "password": "correct horse battery"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{t}");
    t["token"].as_str().expect("token").to_owned()
}

async fn a_registration_is_confirmed_by_its_link_once(app: TestApp) {
    let email = "fresh@example.com";
    let token = register(&app, email).await;
    let (_, me) = app.get("/auth/v1/me", Some(&token)).await;
    assert_eq!(me["emailVerified"], false, "{me}");
    // An unconfirmed address works, but may not invite a team.
    let (s, _) = app.get("/publisher/v2/placements", Some(&token)).await;
    assert_eq!(s, StatusCode::OK);
    let invite = app
        .post(
            "/auth/v1/members/invitations",
            Some(&token),
            &json!({"email": "mate@example.com", "role": "VIEWER"}),
        )
        .await;
    assert_eq!(error_code(&invite.1), "email_unverified", "{invite:?}");

    // Asking again makes the first link useless.
    let first = app.mailed_token(email, "account.email_verification").await;
    assert!(first.starts_with("mkt_email_"), "{first}");
    let (s, _) = app
        .post("/auth/v1/email/verification", Some(&token), &json!({}))
        .await;
    assert_eq!(s, StatusCode::ACCEPTED);
    let second = app.mailed_token(email, "account.email_verification").await;
    assert_ne!(first, second);
    let old = app.post(CONFIRM, None, &json!({"token": first})).await;
    assert_eq!(error_code(&old.1), "email_link_invalid");
    let (s, b) = app.post(CONFIRM, None, &json!({"token": second})).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["purpose"], "VERIFY");
    let again = app.post(CONFIRM, None, &json!({"token": second})).await;
    assert_eq!(error_code(&again.1), "email_link_invalid");
    let (_, me) = app.get("/auth/v1/me", Some(&token)).await;
    assert_eq!(me["emailVerified"], true, "{me}");
    let resend = app
        .post("/auth/v1/email/verification", Some(&token), &json!({}))
        .await;
    assert_eq!(error_code(&resend.1), "email_verified");
    let (s, _) = app
        .post(
            "/auth/v1/members/invitations",
            Some(&token),
            &json!({"email": "mate@example.com", "role": "VIEWER"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "a confirmed address invites");
    // A link expires.
    let late = "late@example.com";
    register(&app, late).await;
    let link = app.mailed_token(late, "account.email_verification").await;
    app.clock
        .advance(chrono::Duration::days(3) + chrono::Duration::seconds(1));
    let expired = app.post(CONFIRM, None, &json!({"token": link})).await;
    assert_eq!(error_code(&expired.1), "email_link_invalid");
}

async fn the_address_changes_through_the_new_one_and_the_old_one_is_told(app: TestApp) {
    let (user, token) = app.signed_in(Role::Advertiser).await;
    let (_, me) = app.get("/auth/v1/me", Some(&token)).await;
    assert_eq!(
        me["emailVerified"], true,
        "an operator's account is confirmed"
    );
    let change = |new: &str, pw: &str| json!({"newEmail": new, "currentPassword": pw});
    // The password is asked; a taken address is refused.
    let wrong = app
        .post(
            "/auth/v1/email",
            Some(&token),
            &change("new@example.com", "not it at all"),
        )
        .await;
    assert_eq!(wrong.0, StatusCode::UNAUTHORIZED);
    let (other, _) = app.signed_in(Role::Publisher).await;
    let taken = app
        .post(
            "/auth/v1/email",
            Some(&token),
            &change(&other.email, &user.password),
        )
        .await;
    assert_eq!(error_code(&taken.1), "email_taken");
    let (s, b) = app
        .post(
            "/auth/v1/email",
            Some(&token),
            &change("New@Example.com", &user.password),
        )
        .await;
    assert_eq!(s, StatusCode::ACCEPTED, "{b}");
    // Nothing changes until the link is used; the old address was told.
    let sign_in = |email: &str| {
        let body = json!({"email": email, "password": user.password});
        let app = &app;
        async move { app.post("/auth/v1/tokens", None, &body).await.0 }
    };
    assert_eq!(sign_in(&user.email).await, StatusCode::CREATED);
    let link = app
        .mailed_token("new@example.com", "account.email_change_requested")
        .await;
    let (s, b) = app.post(CONFIRM, None, &json!({"token": link})).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    assert_eq!(b["purpose"], "CHANGE");
    assert_eq!(sign_in("new@example.com").await, StatusCode::CREATED);
    assert_eq!(sign_in(&user.email).await, StatusCode::UNAUTHORIZED);
    let (_, me) = app.get("/auth/v1/me", Some(&token)).await;
    assert_eq!(me["email"], "new@example.com");
    let told: Vec<_> = entity::mail_outbox::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("outbox")
        .into_iter()
        .filter(|m| m.topic == MailTopic::EmailChanged && m.to_address == user.email)
        .collect();
    assert_eq!(
        told.len(),
        2,
        "the old address is told when asked and when done"
    );
}
