//! Account recovery (issue 54, part 2): a reset letter arrives over SMTP and its link works
//! once; asking tells nothing about whether an account uses the address; older and expired
//! links are refused; a reset revokes every bearer token and signs out every browser
//! session; the forms work without JavaScript.

use app::model::Role;
use reqwest::StatusCode;
use sea_orm::EntityTrait;
use serde_json::json;
use tests::smtp::{Mail, SmtpServer};
use tests::{Backend, TestApp, csrf_of, each_backend, error_code};

each_backend!(
    a_reset_letter_arrives_and_its_link_works_once,
    older_and_expired_links_are_refused,
    reset_requests_are_limited_alike_for_every_address,
    the_reset_forms_work_without_javascript,
);

const RESETS: &str = "/auth/v1/password-resets";
const CONFIRM: &str = "/auth/v1/password-resets/confirm";
const NEW_PASSWORD: &str = "a brand new passphrase";

async fn app_with_mail(backend: Backend, smtp: &SmtpServer) -> TestApp {
    let from = "Market <no-reply@market.example>";
    TestApp::spawn_with(backend, &["--mail-url", &smtp.url(), "--mail-from", from]).await
}

/// The token of the reset link in a letter.
fn token_in(mail: &Mail) -> String {
    let body = mail.body();
    let start = body
        .find("token=")
        .map(|i| i + 6)
        .unwrap_or_else(|| panic!("no link: {body}"));
    body[start..]
        .split(|c: char| c.is_whitespace())
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// Sends the workers round and returns the letters with `subject`.
async fn letters(app: &TestApp, smtp: &SmtpServer, subject: &str) -> Vec<Mail> {
    app.run_workers_once().await;
    smtp.received()
        .into_iter()
        .filter(|m| m.header("Subject").as_deref() == Some(subject))
        .collect()
}

async fn a_reset_letter_arrives_and_its_link_works_once(backend: Backend) {
    let smtp = SmtpServer::start().await;
    let app = &app_with_mail(backend, &smtp).await;
    let user = app.create_user(Role::Publisher).await;
    let bearer = app.token(&user).await;
    let browser = tests::browser();
    app.browser_sign_in(&browser, &user).await;
    let signed_in = |client: reqwest::Client| {
        let (url, home) = (app.url("/fn/session_info"), app.url("/"));
        async move {
            let res = client
                .post(url)
                .header("referer", home)
                .send()
                .await
                .expect("session");
            res.text().await.unwrap_or_default()
        }
    };
    assert!(signed_in(browser.clone()).await.contains(&user.email));

    let (s, known) = app.post(RESETS, None, &json!({"email": user.email})).await;
    assert_eq!(s, StatusCode::ACCEPTED, "{known}");
    let (s, unknown) = app
        .post(RESETS, None, &json!({"email": "nobody@nowhere.example"}))
        .await;
    assert_eq!(s, StatusCode::ACCEPTED);
    assert_eq!(
        known, unknown,
        "the same answer whether or not the address is known"
    );

    let got = letters(&app, &smtp, "Choose a new password").await;
    assert_eq!(
        got.len(),
        1,
        "one letter, to the known address only: {got:?}"
    );
    assert_eq!(got[0].to, [user.email.clone()]);
    let token = token_in(&got[0]);
    assert!(token.starts_with("mkt_reset_"), "{token}");
    // Only its hash is stored.
    let stored = entity::password_reset::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("resets");
    assert!(
        stored
            .iter()
            .all(|r| r.token_hash != token && !r.token_hash.contains(&token))
    );

    let (s, err) = app
        .post(
            CONFIRM,
            None,
            &json!({"token": token, "newPassword": "short"}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{err}");
    assert_eq!(error_code(&err), "invalid_input");
    let (s, body) = app
        .post(
            CONFIRM,
            None,
            &json!({"token": token, "newPassword": NEW_PASSWORD}),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::NO_CONTENT,
        "a refused password leaves the link usable: {body}"
    );
    let (s, err) = app
        .post(
            CONFIRM,
            None,
            &json!({"token": token, "newPassword": "yet another passphrase"}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "used once");
    assert_eq!(error_code(&err), "reset_link_invalid");

    // Everything signed in before is signed out.
    assert_eq!(
        app.get("/auth/v1/me", Some(&bearer)).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert!(
        !signed_in(browser).await.contains(&user.email),
        "the browser is signed out"
    );
    let sign_in = |password: &str| {
        let body = json!({"email": user.email, "password": password});
        async move { app.post("/auth/v1/tokens", None, &body).await.0 }
    };
    assert_eq!(sign_in(&user.password).await, StatusCode::UNAUTHORIZED);
    assert_eq!(sign_in(NEW_PASSWORD).await, StatusCode::CREATED);

    let told = letters(&app, &smtp, "Your password was changed").await;
    assert_eq!(told.len(), 1);
    assert_eq!(told[0].to, [user.email.clone()]);
}

async fn older_and_expired_links_are_refused(backend: Backend) {
    let smtp = SmtpServer::start().await;
    let app = &app_with_mail(backend, &smtp).await;
    let user = app.create_user(Role::Advertiser).await;
    let ask = || async {
        app.post(RESETS, None, &json!({"email": user.email}))
            .await
            .0
    };
    assert_eq!(ask().await, StatusCode::ACCEPTED);
    assert_eq!(ask().await, StatusCode::ACCEPTED);
    let got = letters(&app, &smtp, "Choose a new password").await;
    assert_eq!(got.len(), 2);
    let (older, newer) = (token_in(&got[0]), token_in(&got[1]));
    let confirm = |token: String| {
        let body = json!({"token": token, "newPassword": NEW_PASSWORD});
        async move { app.post(CONFIRM, None, &body).await }
    };
    let (s, err) = confirm(older).await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::BAD_REQUEST, "reset_link_invalid"),
        "a newer link makes it useless"
    );
    app.clock.advance(chrono::Duration::minutes(30));
    let (s, err) = confirm(newer).await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::BAD_REQUEST, "reset_link_invalid"),
        "expired after 30 minutes"
    );
    let (s, err) = confirm("mkt_reset_made-up".to_owned()).await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::BAD_REQUEST, "reset_link_invalid")
    );
    assert_eq!(ask().await, StatusCode::ACCEPTED);
    let got = letters(&app, &smtp, "Choose a new password").await;
    let (s, body) = confirm(token_in(&got[2])).await;
    assert_eq!(s, StatusCode::NO_CONTENT, "{body}");
}

async fn reset_requests_are_limited_alike_for_every_address(backend: Backend) {
    let smtp = SmtpServer::start().await;
    let app = app_with_mail(backend, &smtp).await;
    let user = app.create_user(Role::Publisher).await;
    for email in [user.email.as_str(), "nobody@nowhere.example"] {
        for _ in 0..3 {
            let (s, b) = app.post(RESETS, None, &json!({"email": email})).await;
            assert_eq!(s, StatusCode::ACCEPTED, "{b}");
        }
        let (s, err) = app.post(RESETS, None, &json!({"email": email})).await;
        assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{email}: {err}");
    }
    assert_eq!(
        letters(&app, &smtp, "Choose a new password").await.len(),
        3,
        "no mailbox is flooded"
    );
    let (s, _) = app
        .post(RESETS, None, &json!({"email": "not an address"}))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
}

async fn the_reset_forms_work_without_javascript(backend: Backend) {
    let smtp = SmtpServer::start().await;
    let app = app_with_mail(backend, &smtp).await;
    let user = app.create_user(Role::Publisher).await;
    let page = |path: String| {
        let (client, url) = (app.client.clone(), app.url(&path));
        async move {
            let res = client.get(url).send().await.expect("page");
            assert_eq!(res.status(), StatusCode::OK);
            res.text().await.unwrap_or_default()
        }
    };
    let form = |endpoint: &'static str, referer: String, fields: Vec<(&'static str, String)>| {
        let (client, url) = (app.client.clone(), app.url(&format!("/fn/{endpoint}")));
        async move {
            let res = client
                .post(url)
                .header("accept", "text/html")
                .header("referer", referer)
                .form(&fields)
                .send()
                .await
                .expect("post");
            let to = res
                .headers()
                .get("location")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            (res.status(), to)
        }
    };
    let sign_in = page("/sign-in".to_owned()).await;
    assert!(
        sign_in.contains("href=\"/forgot-password\""),
        "the sign-in page links to it"
    );
    let html = page("/forgot-password".to_owned()).await;
    let (s, to) = form(
        "request_password_reset",
        app.url("/forgot-password"),
        vec![("email", user.email.clone()), ("csrf", csrf_of(&html))],
    )
    .await;
    assert!(s.is_redirection(), "{s}");
    assert!(to.ends_with("/forgot-password?sent=1"), "{to}");
    assert!(
        page(to)
            .await
            .contains("a link to choose a new password is on its way")
    );

    let got = letters(&app, &smtp, "Choose a new password").await;
    let token = token_in(&got[0]);
    let link = format!("/reset-password?token={token}");
    let html = page(link.clone()).await;
    assert!(
        html.contains(&format!("value=\"{token}\"")),
        "the form carries the token"
    );
    let (s, to) = form(
        "reset_password",
        app.url(&link),
        vec![
            ("token", token),
            ("new_password", NEW_PASSWORD.to_owned()),
            ("csrf", csrf_of(&html)),
        ],
    )
    .await;
    assert!(s.is_redirection(), "{s}");
    assert!(to.ends_with("/sign-in?reset=1"), "{to}");
    assert!(page(to).await.contains("Your password was changed"));
    let body = json!({"email": user.email, "password": NEW_PASSWORD});
    assert_eq!(
        app.post("/auth/v1/tokens", None, &body).await.0,
        StatusCode::CREATED
    );
}
