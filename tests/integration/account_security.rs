//! The owner's own security (issue 54, part 2): changing the password needs the current one,
//! keeps the token that asked and signs out everything else; signing out everywhere reaches
//! another process at once (both are read from the database on every request, no cache).

use app::model::Role;
use app::model::mail::MailTopic;
use reqwest::StatusCode;
use sea_orm::EntityTrait;
use serde_json::json;
use tests::{Backend, TestApp, browser, each_backend, error_code};

each_backend!(
    changing_the_password_keeps_this_token_and_signs_out_the_rest,
    signing_out_everywhere_reaches_the_other_process,
);

const NEW_PASSWORD: &str = "a brand new passphrase";

/// Whether `client`'s browser session is signed in as `email`.
async fn browser_signed_in(app: &TestApp, client: &reqwest::Client, email: &str) -> bool {
    client
        .post(app.url("/fn/session_info"))
        .header("referer", app.url("/"))
        .send()
        .await
        .expect("session")
        .text()
        .await
        .unwrap_or_default()
        .contains(email)
}

async fn changing_the_password_keeps_this_token_and_signs_out_the_rest(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let user = app.create_user(Role::Advertiser).await;
    let (asking, other) = (app.token(&user).await, app.token(&user).await);
    let client = browser();
    app.browser_sign_in(&client, &user).await;
    assert!(browser_signed_in(&app, &client, &user.email).await);

    let change = |current: &str, new: &str| {
        let body = json!({"currentPassword": current, "newPassword": new});
        let asking = asking.clone();
        let app = &app;
        async move { app.post("/auth/v1/password", Some(&asking), &body).await }
    };
    let (s, err) = change("not the password", NEW_PASSWORD).await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::UNAUTHORIZED, "invalid_credentials")
    );
    let (s, err) = change(&user.password, "short").await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::BAD_REQUEST, "invalid_input")
    );
    assert_eq!(
        app.get("/auth/v1/me", Some(&other)).await.0,
        StatusCode::OK,
        "nothing changed yet"
    );
    let (s, body) = change(&user.password, NEW_PASSWORD).await;
    assert_eq!(s, StatusCode::NO_CONTENT, "{body}");

    assert_eq!(
        app.get("/auth/v1/me", Some(&asking)).await.0,
        StatusCode::OK,
        "the asking token stays"
    );
    assert_eq!(
        app.get("/auth/v1/me", Some(&other)).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert!(
        !browser_signed_in(&app, &client, &user.email).await,
        "the browser is signed out"
    );
    let sign_in = |password: &str| {
        let body = json!({"email": user.email, "password": password});
        let app = &app;
        async move { app.post("/auth/v1/tokens", None, &body).await.0 }
    };
    assert_eq!(sign_in(&user.password).await, StatusCode::UNAUTHORIZED);
    assert_eq!(sign_in(NEW_PASSWORD).await, StatusCode::CREATED);
    let told = entity::mail_outbox::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("outbox");
    assert_eq!(
        told.iter()
            .filter(|m| m.topic == MailTopic::PasswordChanged)
            .count(),
        1,
        "the owner is told"
    );
}

async fn signing_out_everywhere_reaches_the_other_process(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let b = tests::process::start(&app.database_url, &[], "/readyz").await;
    let user = app.create_user(Role::Publisher).await;
    let asking = app.token(&user).await;
    // B runs on the real clock: its token is issued by B, so it is valid there.
    let res = app
        .client
        .post(format!("{}/auth/v1/tokens", b.base))
        .json(&json!({"email": user.email, "password": user.password}))
        .send()
        .await
        .expect("B");
    assert_eq!(res.status(), StatusCode::CREATED);
    let issued: serde_json::Value = res.json().await.expect("token");
    let on_b = issued["token"].as_str().expect("token").to_owned();
    let me_on_b = || {
        let (client, url, token) = (
            app.client.clone(),
            format!("{}/auth/v1/me", b.base),
            on_b.clone(),
        );
        async move {
            client
                .get(url)
                .bearer_auth(token)
                .send()
                .await
                .expect("B")
                .status()
        }
    };
    assert_eq!(me_on_b().await, StatusCode::OK);
    let client = browser();
    app.browser_sign_in(&client, &user).await;

    let (s, err) = app
        .post("/auth/v1/sign-out-everywhere", None, &json!({}))
        .await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );
    let (s, body) = app
        .post("/auth/v1/sign-out-everywhere", Some(&asking), &json!({}))
        .await;
    assert_eq!(s, StatusCode::NO_CONTENT, "{body}");
    assert_eq!(
        me_on_b().await,
        StatusCode::UNAUTHORIZED,
        "refused by the other process at once"
    );
    assert!(!browser_signed_in(&app, &client, &user.email).await);
    assert_eq!(
        app.get("/auth/v1/me", Some(&asking)).await.0,
        StatusCode::OK
    );
    // Signing in again works.
    app.browser_sign_in(&client, &user).await;
    assert!(browser_signed_in(&app, &client, &user.email).await);
}
