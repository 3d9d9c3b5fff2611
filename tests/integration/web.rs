//! The server-rendered dashboards without a browser: pages render complete HTML, forms
//! post without JavaScript, CSRF is enforced, and sessions live in the database.

use app::model::Role;
use reqwest::StatusCode;
use tests::{TestApp, both_backends};

both_backends!(
    sign_in_page_renders_a_complete_form,
    form_sign_in_and_out_without_javascript,
    sign_out_starts_the_session_the_next_sign_in_uses,
    cross_site_and_tokenless_posts_are_refused,
    dashboard_approvals_name_the_reviewed_revision
);

/// The CSRF token inside a rendered page.
fn csrf_of(html: &str) -> String {
    let marker = "name=\"csrf\" value=\"";
    let start = html
        .find(marker)
        .map(|i| i + marker.len())
        .expect("csrf field in page");
    html[start..]
        .split('"')
        .next()
        .unwrap_or_default()
        .to_owned()
}

async fn page(app: &TestApp, path: &str) -> (StatusCode, String) {
    let res = app.client.get(app.url(path)).send().await.expect("page");
    let s = res.status();
    (s, res.text().await.unwrap_or_default())
}

async fn sign_in_page_renders_a_complete_form(app: TestApp) {
    let (s, html) = page(&app, "/sign-in").await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        html.contains("action=\"/fn/sign_in\""),
        "form posts to the server function"
    );
    assert!(html.contains("name=\"email\"") && html.contains("name=\"password\""));
    assert!(!csrf_of(&html).is_empty());
    assert!(html.contains("/assets/app.css"));
    let (s, html) = page(&app, "/definitely-not-a-page").await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert!(html.contains("Page not found"));
}

async fn form_sign_in_and_out_without_javascript(app: TestApp) {
    let user = app.create_user(Role::Publisher).await;
    let (_, html) = page(&app, "/sign-in").await;
    let csrf = csrf_of(&html);
    let referer = app.url("/sign-in");

    // Wrong password: back to the form with the error encoded for the page.
    let res = app
        .client
        .post(app.url("/fn/sign_in"))
        .header("accept", "text/html")
        .header("referer", &referer)
        .form(&[
            ("email", user.email.as_str()),
            ("password", "wrong password!"),
            ("csrf", csrf.as_str()),
        ])
        .send()
        .await
        .expect("post");
    assert!(res.status().is_redirection());
    let loc = res.headers()["location"]
        .to_str()
        .unwrap_or_default()
        .to_owned();
    assert!(loc.contains("__err"), "{loc}");
    let (_, html) = page(&app, loc.trim_start_matches(&app.base)).await;
    assert!(
        html.contains("e-mail or password is incorrect"),
        "error shown without JavaScript"
    );

    let res = app
        .client
        .post(app.url("/fn/sign_in"))
        .header("accept", "text/html")
        .header("referer", &referer)
        .form(&[
            ("email", user.email.as_str()),
            ("password", user.password.as_str()),
            ("csrf", csrf.as_str()),
        ])
        .send()
        .await
        .expect("post");
    assert!(res.status().is_redirection());
    assert_eq!(res.headers()["location"], "/publisher");
    let cookie = res
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("mkt_session="))
        .map(str::to_owned);
    let cookie = cookie.expect("session cookie");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );

    let (s, html) = page(&app, "/publisher").await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        html.contains(&user.email),
        "dashboard shows the signed-in account"
    );
    assert!(html.contains("Sign out"));

    // The session is stored in the database (it survives a restart), keyed by the SHA-256
    // of the cookie value: the table alone signs nobody in.
    use sea_orm::EntityTrait;
    let session_id = cookie
        .trim_start_matches("mkt_session=")
        .split(';')
        .next()
        .unwrap_or_default()
        .to_owned();
    let rows = entity::web_session::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("sessions");
    assert!(!rows.is_empty());
    assert!(
        rows.iter()
            .all(|r| r.id != session_id && !r.data.contains(&session_id))
    );
    assert!(
        rows.iter()
            .any(|r| r.id == app::domain::crypto::sha256_hex(&session_id)),
        "the row is keyed by the hash of the cookie"
    );

    let csrf = csrf_of(&html);
    let res = app
        .client
        .post(app.url("/fn/sign_out"))
        .header("accept", "text/html")
        .header("referer", app.url("/publisher"))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .expect("post");
    assert_eq!(res.headers()["location"], "/sign-in");
    let (_, html) = page(&app, "/publisher").await;
    assert!(!html.contains(&user.email));
    assert!(html.contains("Sign in required"));
}

/// After a sign-out the browser renders the sign-in page itself and reads the session in two
/// requests at once (the page and its navigation). The sign-out answer already started the
/// next anonymous session, so both reads see one CSRF token and the sign-in with it passes;
/// before, each read created a session of its own and the form could be refused.
async fn sign_out_starts_the_session_the_next_sign_in_uses(app: TestApp) {
    let user = app.create_user(Role::Publisher).await;
    let csrf = app.browser_sign_in(&app.client, &user).await;
    let res = app
        .client
        .post(app.url("/fn/sign_out"))
        .form(&[("csrf", csrf.as_str())])
        .send()
        .await
        .expect("sign out");
    assert!(res.status().is_success(), "{}", res.status());

    let read = || async {
        let res = app
            .client
            .post(app.url("/fn/session_info"))
            .header("content-type", "application/x-www-form-urlencoded")
            .send()
            .await
            .expect("session read");
        let v: serde_json::Value = res.json().await.unwrap_or_default();
        assert!(v["user"].is_null(), "signed out: {v}");
        v["csrf"].as_str().unwrap_or_default().to_owned()
    };
    let (a, b) = tokio::join!(read(), read());
    assert!(!a.is_empty());
    assert_eq!(a, b, "one anonymous session after the sign-out");

    let res = app
        .client
        .post(app.url("/fn/sign_in"))
        .form(&[
            ("email", user.email.as_str()),
            ("password", user.password.as_str()),
            ("csrf", a.as_str()),
        ])
        .send()
        .await
        .expect("sign in");
    assert!(res.status().is_success(), "{}", res.status());
}

async fn cross_site_and_tokenless_posts_are_refused(app: TestApp) {
    let user = app.create_user(Role::Publisher).await;
    let (_, html) = page(&app, "/sign-in").await;
    let csrf = csrf_of(&html);
    let form = [
        ("email", user.email.as_str()),
        ("password", user.password.as_str()),
        ("csrf", csrf.as_str()),
    ];

    // A cross-site form post is refused, whichever header says so.
    for (header, value) in [
        ("sec-fetch-site", "cross-site"),
        ("origin", "https://evil.example"),
    ] {
        let sign_in = app.client.post(app.url("/fn/sign_in"));
        let res = sign_in.header(header, value).form(&form).send().await;
        assert_eq!(
            res.expect("post").status(),
            StatusCode::FORBIDDEN,
            "{header}"
        );
    }

    let bad = [
        ("email", user.email.as_str()),
        ("password", user.password.as_str()),
        ("csrf", "forged"),
    ];
    let res = app
        .client
        .post(app.url("/fn/sign_in"))
        .form(&bad)
        .send()
        .await
        .expect("post");
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let body: serde_json::Value = res.json().await.unwrap_or_default();
    assert_eq!(body["code"], "csrf_failed", "{body}");
}

/// The review page always names the revision it showed; an approval posted without one is
/// refused, so nothing is approved that the administrator did not see (issue 28).
async fn dashboard_approvals_name_the_reviewed_revision(app: TestApp) {
    use tests::builders::{campaign_body, create, transition};
    let (_, adv) = app.funded_advertiser(500 * 1_000_000).await;
    let id = create(&app, &adv, &campaign_body("CUSTOM_S2S", 100 * 1_000_000)).await;
    let path = format!("/performance-marketing/v2/campaigns/{id}");
    let (s, k) = app
        .post(
            &format!("{path}/tracking/custom-s2s/credentials"),
            Some(&adv),
            &serde_json::json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{k}");
    let (s, c) = transition(&app, &adv, &id, "IN_REVIEW").await;
    assert_eq!(s, StatusCode::OK, "{c}");
    let revision = c["revision"].as_i64().expect("revision").to_string();

    let admin = app.create_user(Role::Admin).await;
    let csrf = app.browser_sign_in(&app.client, &admin).await;
    let review = |fields: Vec<(&'static str, String)>| {
        let (app, csrf) = (&app, csrf.clone());
        async move {
            let mut form = fields;
            form.push(("csrf", csrf));
            app.client
                .post(app.url("/fn/admin_review_campaign"))
                .header("referer", app.url("/admin"))
                .form(&form)
                .send()
                .await
                .expect("post")
                .status()
        }
    };
    let status = || {
        let (app, adv, path) = (&app, adv.clone(), path.clone());
        async move { app.get(&path, Some(&adv)).await.1["status"].clone() }
    };
    let s = review(vec![
        ("campaign_id", id.clone()),
        ("decision", "APPROVE".into()),
    ])
    .await;
    assert!(!s.is_success(), "{s}");
    assert_eq!(
        status().await,
        "IN_REVIEW",
        "not approved without a revision"
    );
    let s = review(vec![
        ("campaign_id", id.clone()),
        ("decision", "APPROVE".into()),
        ("revision", revision),
    ])
    .await;
    assert!(s.is_success() || s.is_redirection(), "{s}");
    assert_eq!(status().await, "LIVE");
}
