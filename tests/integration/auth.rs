//! Accounts, bearer tokens, approval and the sign-in rate limit.

use app::model::Role;
use reqwest::StatusCode;
use serde_json::json;
use tests::{TestApp, both_backends, error_code};

both_backends!(
    registration_sets_status_by_role,
    duplicate_email_is_a_conflict,
    token_opens_authenticated_routes,
    wrong_password_is_401_with_error_body,
    revoked_token_is_401,
    expired_token_is_401,
    pending_advertiser_is_refused_until_approved,
    only_admins_approve,
    failed_sign_ins_are_rate_limited,
);

async fn registration_sets_status_by_role(app: TestApp) {
    let (s, pubr) = app
        .post("/auth/v1/accounts", None, &json!({"email": "Pub@Example.com", "password": "long enough pw", "role": "PUBLISHER", "companyName": "Pixel"}))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{pubr}");
    assert_eq!(pubr["status"], "ACTIVE");
    assert_eq!(pubr["role"], "PUBLISHER");
    assert!(
        pubr["accountId"]
            .as_str()
            .is_some_and(|id| id.starts_with("acc_"))
    );

    let (s, adv) = app
        .post("/auth/v1/accounts", None, &json!({"email": "adv@example.com", "password": "long enough pw", "role": "ADVERTISER", "companyName": "Northwind"}))
        .await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(adv["status"], "PENDING");

    // Self-service cannot create administrators.
    let (s, body) = app
        .post("/auth/v1/accounts", None, &json!({"email": "x@example.com", "password": "long enough pw", "role": "ADMIN", "companyName": "X"}))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(body["error"]["fieldErrors"]["role"].is_string(), "{body}");

    // Several problems are reported together.
    let (s, body) = app
        .post(
            "/auth/v1/accounts",
            None,
            &json!({"email": "nope", "password": "short", "role": "PUBLISHER", "companyName": ""}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let fe = &body["error"]["fieldErrors"];
    assert!(
        fe["email"].is_string() && fe["password"].is_string() && fe["companyName"].is_string(),
        "{body}"
    );

    // The e-mail was normalised: signing in with other casing works.
    let (s, _) = app
        .post(
            "/auth/v1/tokens",
            None,
            &json!({"email": "pub@example.COM", "password": "long enough pw"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
}

async fn duplicate_email_is_a_conflict(app: TestApp) {
    let body = json!({"email": "dup@example.com", "password": "long enough pw", "role": "PUBLISHER", "companyName": "A"});
    assert_eq!(
        app.post("/auth/v1/accounts", None, &body).await.0,
        StatusCode::CREATED
    );
    let (s, err) = app.post("/auth/v1/accounts", None, &body).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&err), "conflict");
}

async fn token_opens_authenticated_routes(app: TestApp) {
    let user = app.create_user(Role::Publisher).await;
    let (s, tok) = app
        .post(
            "/auth/v1/tokens",
            None,
            &json!({"email": user.email, "password": user.password}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(tok["tokenType"], "Bearer");
    assert_eq!(tok["account"]["accountId"], user.account_id.as_str());
    assert_eq!(tok["account"]["role"], "PUBLISHER");
    assert_eq!(tok["account"]["status"], "ACTIVE");
    let expires: chrono::DateTime<chrono::Utc> =
        serde_json::from_value(tok["expiresAt"].clone()).expect("expiresAt");
    assert_eq!(expires, tests::start_time() + chrono::Duration::hours(12));
    let token = tok["token"].as_str().expect("token");

    let (s, me) = app.get("/auth/v1/me", Some(token)).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(me["email"], user.email.as_str());

    let (s, err) = app.get("/auth/v1/me", None).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&err), "unauthorized");
    let (s, _) = app.get("/auth/v1/me", Some("mkt_dash_forged")).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);

    // The token is stored only as a hash.
    let rows = entity::api_token::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("tokens");
    assert!(
        rows.iter()
            .all(|r| r.token_hash != token && r.token_hash.len() == 64)
    );
}

async fn wrong_password_is_401_with_error_body(app: TestApp) {
    let user = app.create_user(Role::Publisher).await;
    let (s, err) = app
        .post(
            "/auth/v1/tokens",
            None,
            &json!({"email": user.email, "password": "wrong password!"}),
        )
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&err), "invalid_credentials");
    // An unknown e-mail gets the very same answer.
    let (s, err2) = app
        .post(
            "/auth/v1/tokens",
            None,
            &json!({"email": "ghost@example.com", "password": "wrong password!"}),
        )
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(err, err2);
}

async fn revoked_token_is_401(app: TestApp) {
    let (_, token) = app.signed_in(Role::Publisher).await;
    let (s, _) = app.delete("/auth/v1/tokens/current", Some(&token)).await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    let (s, err) = app.get("/auth/v1/me", Some(&token)).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&err), "unauthorized");
    // Revoking again needs a working token.
    let (s, _) = app.delete("/auth/v1/tokens/current", Some(&token)).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
}

async fn expired_token_is_401(app: TestApp) {
    let (_, token) = app.signed_in(Role::Publisher).await;
    app.clock
        .advance(chrono::Duration::hours(12) - chrono::Duration::seconds(1));
    assert_eq!(app.get("/auth/v1/me", Some(&token)).await.0, StatusCode::OK);
    app.clock.advance(chrono::Duration::seconds(1));
    let (s, err) = app.get("/auth/v1/me", Some(&token)).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&err), "unauthorized");
}

async fn pending_advertiser_is_refused_until_approved(app: TestApp) {
    let (s, reg) = app
        .post("/auth/v1/accounts", None, &json!({"email": "adv@example.com", "password": "long enough pw", "role": "ADVERTISER", "companyName": "Northwind"}))
        .await;
    assert_eq!(s, StatusCode::CREATED);
    let account_id = reg["accountId"].as_str().expect("id").to_owned();
    let (s, tok) = app
        .post(
            "/auth/v1/tokens",
            None,
            &json!({"email": "adv@example.com", "password": "long enough pw"}),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::CREATED,
        "a pending advertiser can sign in and see its status"
    );
    assert_eq!(tok["account"]["status"], "PENDING");
    let adv = tok["token"].as_str().expect("token").to_owned();

    let cred = json!({"encryptionType": "SHA256"});
    let (s, err) = app
        .post(
            "/performance-marketing/v2/survey-api/credentials",
            Some(&adv),
            &cred,
        )
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    assert_eq!(error_code(&err), "account_pending");

    let (_, admin) = app.signed_in(Role::Admin).await;
    let (s, approved) = app.approve_advertiser(&admin, &account_id).await;
    assert_eq!(s, StatusCode::OK, "{approved}");
    assert_eq!(approved["status"], "ACTIVE");
    // Approving twice is a conflict, not a second approval.
    let (s, _) = app.approve_advertiser(&admin, &account_id).await;
    assert_eq!(s, StatusCode::CONFLICT);

    let (s, issued) = app
        .post(
            "/performance-marketing/v2/survey-api/credentials",
            Some(&adv),
            &cred,
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{issued}");
    assert_eq!(issued["encryptionType"], "SHA256");
    let secret = issued["secret"].as_str().expect("secret");
    // The secret is stored encrypted, never in clear.
    let rows = entity::survey_api_credential::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("rows");
    assert_eq!(rows.len(), 1);
    assert!(!rows[0].secret_ciphertext.contains(secret));
    assert_eq!(
        app.state
            .ctx
            .keys
            .open(
                &format!("survey_api_credentials:{}", rows[0].id),
                &rows[0].secret_ciphertext
            )
            .expect("decrypts for its own row"),
        secret
    );

    // An unknown encryption type names the field.
    let (s, err) = app
        .post(
            "/performance-marketing/v2/survey-api/credentials",
            Some(&adv),
            &json!({"encryptionType": "MD5"}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(
        err["error"]["fieldErrors"]["encryptionType"].is_string(),
        "{err}"
    );
}

async fn only_admins_approve(app: TestApp) {
    let adv = app.create_user(Role::Advertiser).await;
    let (_, publisher) = app.signed_in(Role::Publisher).await;
    let (s, err) = app.approve_advertiser(&publisher, &adv.account_id).await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    assert_eq!(error_code(&err), "forbidden");
    let (_, admin) = app.signed_in(Role::Admin).await;
    let (s, err) = app
        .post(
            "/admin/v1/advertisers/acc_missing/approve",
            Some(&admin),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    assert_eq!(error_code(&err), "not_found");
}

async fn failed_sign_ins_are_rate_limited(app: TestApp) {
    let user = app.create_user(Role::Publisher).await;
    let bad = json!({"email": user.email, "password": "not the password"});
    for _ in 0..10 {
        assert_eq!(
            app.post("/auth/v1/tokens", None, &bad).await.0,
            StatusCode::UNAUTHORIZED
        );
    }
    let res = app
        .client
        .post(app.url("/auth/v1/tokens"))
        .json(&bad)
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    let retry: u64 = res.headers()["retry-after"]
        .to_str()
        .ok()
        .and_then(|v| v.parse().ok())
        .expect("Retry-After");
    assert!((1..=60).contains(&retry));
    let body: serde_json::Value = res.json().await.expect("json");
    assert_eq!(error_code(&body), "rate_limited");
}

use sea_orm::EntityTrait;
