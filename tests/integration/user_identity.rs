//! Signed user identity (issue 28, item 6): session creation is open, so a session made for
//! any `externalUserId` must not read that user's support cases and reward history when the
//! placement requires its server's signature.

use app::domain::crypto::hmac_sha256_hex;
use app::domain::publisher::user_identity::signed_message;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::{TestApp, both_backends, error_code};

use tests::builders::{Publisher, keyed, publisher, session_body};

both_backends!(a_required_signature_keeps_a_users_history_private);

fn signed(p: &Publisher, user: &str, secret: &str, expires: i64) -> Value {
    let mut body = session_body(p, user);
    body["userSignature"] = json!(hmac_sha256_hex(
        secret.as_bytes(),
        signed_message(&p.placement, user, expires).as_bytes()
    ));
    body["userSignatureExpiresAt"] = json!(expires);
    body
}

/// The support list and the reward history, as (status, error code or "").
async fn history(app: &TestApp, token: &str) -> [(StatusCode, String); 2] {
    let mut out = [
        (StatusCode::OK, String::new()),
        (StatusCode::OK, String::new()),
    ];
    for (i, path) in ["/sdk/v2/support", "/sdk/v2/reward-status"]
        .into_iter()
        .enumerate()
    {
        let (s, b) = app.get(path, Some(token)).await;
        let code = if s.is_success() {
            assert!(b.is_object(), "{b}");
            String::new()
        } else {
            error_code(&b).to_owned()
        };
        out[i] = (s, code);
    }
    out
}

fn allowed() -> [(StatusCode, String); 2] {
    [
        (StatusCode::OK, String::new()),
        (StatusCode::OK, String::new()),
    ]
}

async fn a_required_signature_keeps_a_users_history_private(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let base = format!("/publisher/v2/placements/{}/user-identity", p.placement);
    let open = |body: Value| {
        let app = &app;
        async move { app.post("/sdk/v2/sessions", None, &body).await }
    };

    // Nothing configured: any session reads the history, as before.
    let (s, anon) = open(session_body(&p, "user-7")).await;
    assert_eq!(s, StatusCode::CREATED, "{anon}");
    let anon_token = anon["token"].as_str().expect("token").to_owned();
    assert_eq!(history(&app, &anon_token).await, allowed());
    let (s, v) = app.get(&base, Some(&p.token)).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(
        (v["required"].as_bool(), v["secretIssuedAt"].is_null()),
        (Some(false), true)
    );

    // Requiring needs a secret first; the secret is shown once.
    let (s, e) = app
        .put(&base, Some(&p.token), &json!({"required": true}))
        .await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "no_user_identity_secret")
    );
    let (s, k) = app
        .post(&format!("{base}/secret"), Some(&p.token), &json!({}))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{k}");
    let secret = k["secret"].as_str().expect("secret").to_owned();
    assert!(secret.starts_with("mkt_uis"), "{k}");
    let (s, v) = app
        .put(&base, Some(&p.token), &json!({"required": true}))
        .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["required"], true);
    let (_, v) = app.get(&base, Some(&p.token)).await;
    assert!(!v.to_string().contains(&secret), "never shown again: {v}");

    // Another publisher neither reads nor changes it.
    let other = publisher(&app, &admin).await;
    for (s, _) in [
        app.get(&base, Some(&other.token)).await,
        app.put(&base, Some(&other.token), &json!({"required": false}))
            .await,
        app.post(&format!("{base}/secret"), Some(&other.token), &json!({}))
            .await,
    ] {
        assert_eq!(s, StatusCode::NOT_FOUND);
    }

    // Unsigned sessions still get offers, but not the user's history.
    let refused = [
        (StatusCode::FORBIDDEN, "signed_user_required".to_owned()),
        (StatusCode::FORBIDDEN, "signed_user_required".to_owned()),
    ];
    assert_eq!(history(&app, &anon_token).await, refused);
    let (s, offers) = app
        .get(
            &format!("/sdk/v2/ad-slots/{}/offers", p.slot),
            Some(&anon_token),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{offers}");

    // A wrong user, a wrong secret or an expired signature is refused at creation.
    let later = app.clock_now().timestamp() + 3600;
    let mut wrong_user = signed(&p, "user-8", &secret, later);
    wrong_user["externalUserId"] = json!("user-7");
    for body in [
        wrong_user,
        signed(&p, "user-7", "mkt_uis_not_the_secret", later),
        signed(&p, "user-7", &secret, app.clock_now().timestamp() - 1),
    ] {
        let (s, e) = open(body).await;
        assert_eq!(
            (s, error_code(&e)),
            (StatusCode::UNAUTHORIZED, "invalid_user_signature"),
            "{e}"
        );
    }

    // The signed user reads their history, also after a refresh.
    let (s, mine) = open(signed(&p, "user-7", &secret, later)).await;
    assert_eq!(s, StatusCode::CREATED, "{mine}");
    let token = mine["token"].as_str().expect("token").to_owned();
    assert_eq!(history(&app, &token).await, allowed());
    let refresh = format!(
        "/sdk/v2/sessions/{}/refresh",
        mine["sessionId"].as_str().expect("id")
    );
    let (s, next) = keyed(&app, &refresh, &token, "refresh-uis-1", &json!({})).await;
    assert_eq!(s, StatusCode::OK, "{next}");
    assert_eq!(
        history(&app, next["token"].as_str().expect("token")).await,
        allowed()
    );

    // The signature holds until its expiry, refreshed or not (issue 52): a refresh used to
    // carry "verified" on for good.
    let soon = app.clock_now().timestamp() + 600;
    let (s, short) = open(signed(&p, "user-7", &secret, soon)).await;
    assert_eq!(s, StatusCode::CREATED, "{short}");
    let short_token = short["token"].as_str().expect("token").to_owned();
    let refresh = format!(
        "/sdk/v2/sessions/{}/refresh",
        short["sessionId"].as_str().expect("id")
    );
    let (s, next) = keyed(&app, &refresh, &short_token, "refresh-uis-2", &json!({})).await;
    assert_eq!(s, StatusCode::OK, "{next}");
    let next_token = next["token"].as_str().expect("token").to_owned();
    assert_eq!(history(&app, &next_token).await, allowed());
    app.clock.advance(chrono::Duration::minutes(11));
    assert_eq!(
        history(&app, &next_token).await,
        refused,
        "past the signature's expiry the session is unsigned"
    );

    // A rotation keeps the previous secret for a day, so the publisher's servers can switch;
    // then the old signatures stop, and sessions they opened stop counting as signed.
    let (s, k) = app
        .post(&format!("{base}/secret"), Some(&p.token), &json!({}))
        .await;
    assert_eq!(s, StatusCode::CREATED);
    let rotated = k["secret"].as_str().expect("secret").to_owned();
    let later = app.clock_now().timestamp() + 3 * 86_400;
    for key in [&secret, &rotated] {
        let (s, opened) = open(signed(&p, "user-7", key, later)).await;
        assert_eq!(s, StatusCode::CREATED, "{opened}");
        let t = opened["token"].as_str().expect("token");
        assert_eq!(history(&app, t).await, allowed());
    }
    // Opened with the old secret five minutes before the overlap ends: signed until then.
    app.clock
        .advance(chrono::Duration::hours(24) - chrono::Duration::minutes(5));
    let (s, last) = open(signed(&p, "user-7", &secret, later)).await;
    assert_eq!(s, StatusCode::CREATED, "{last}");
    let last_token = last["token"].as_str().expect("token").to_owned();
    assert_eq!(history(&app, &last_token).await, allowed());
    app.clock.advance(chrono::Duration::minutes(6));
    assert_eq!(
        history(&app, &last_token).await,
        refused,
        "the overlap ended"
    );
    let (s, e) = open(signed(&p, "user-7", &secret, later)).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::UNAUTHORIZED, "invalid_user_signature")
    );
    let (s, fresh) = open(signed(&p, "user-7", &rotated, later)).await;
    assert_eq!(s, StatusCode::CREATED, "{fresh}");
    assert_eq!(
        history(&app, fresh["token"].as_str().expect("token")).await,
        allowed()
    );
}
