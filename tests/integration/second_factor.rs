//! The second factor (issue 54, part 4): TOTP enrolment by a confirmed code, sign-in with a
//! code or a recovery code (each works once), the step-up before money moves or a key is
//! made, turning it off, and administrators who must have one.

use app::model::Role;
use app::model::mail::MailTopic;
use reqwest::StatusCode;
use sea_orm::EntityTrait;
use serde_json::{Value, json};
use tests::{Backend, TestApp, both_backends, each_backend, error_code, totp_code};

both_backends!(
    enrolment_sign_in_and_recovery_codes,
    money_and_keys_ask_for_a_code_again,
    a_code_works_once_when_raced_and_guessing_stops,
);
each_backend!(administrators_act_only_with_a_second_factor);

async fn sign_in(
    app: &TestApp,
    email: &str,
    password: &str,
    otp: Option<&str>,
) -> (StatusCode, Value) {
    app.post(
        "/auth/v1/tokens",
        None,
        &json!({"email": email, "password": password, "otp": otp}),
    )
    .await
}

async fn enrolment_sign_in_and_recovery_codes(app: TestApp) {
    let (user, token) = app.signed_in(Role::Publisher).await;
    let (s, state) = app.get("/auth/v1/second-factor", Some(&token)).await;
    assert_eq!(
        (s, state["enabled"].as_bool()),
        (StatusCode::OK, Some(false))
    );

    // An enrolment asks for the password (a stolen token cannot lock the owner out), then
    // shows a secret, its link and QR code; a wrong code does not turn it on.
    let (s, err) = app
        .post(
            "/auth/v1/second-factor/enrolment",
            Some(&token),
            &json!({"currentPassword": "not the password"}),
        )
        .await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::UNAUTHORIZED, "invalid_credentials")
    );
    let (s, e) = app
        .post(
            "/auth/v1/second-factor/enrolment",
            Some(&token),
            &json!({"currentPassword": user.password}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{e}");
    let secret = e["secret"].as_str().expect("secret").to_owned();
    assert!(
        e["uri"]
            .as_str()
            .expect("uri")
            .starts_with("otpauth://totp/Marketplace:"),
        "{e}"
    );
    assert!(e["qrSvg"].as_str().expect("svg").contains("<svg"));
    let (s, err) = app
        .post(
            "/auth/v1/second-factor/confirm",
            Some(&token),
            &json!({"code": "000000"}),
        )
        .await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::BAD_REQUEST, "invalid_input")
    );
    assert_eq!(
        sign_in(&app, &user.email, &user.password, None).await.0,
        StatusCode::CREATED
    );

    let now_code = totp_code(&secret, app.clock_now());
    let (s, c) = app
        .post(
            "/auth/v1/second-factor/confirm",
            Some(&token),
            &json!({"code": now_code}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    let codes: Vec<String> = serde_json::from_value(c["recoveryCodes"].clone()).expect("codes");
    assert_eq!(codes.len(), 10);
    let (_, state) = app.get("/auth/v1/second-factor", Some(&token)).await;
    assert_eq!(state["enabled"], json!(true));
    assert_eq!(state["recoveryCodesLeft"], json!(10));
    assert!(state["pending"].is_null());

    // Sign-in needs the code now; the code that confirmed cannot be used again.
    let (s, err) = sign_in(&app, &user.email, &user.password, None).await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::UNAUTHORIZED, "second_factor_required")
    );
    let (s, err) = sign_in(&app, &user.email, &user.password, Some(&now_code)).await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::UNAUTHORIZED, "invalid_second_factor"),
        "replayed"
    );
    let (s, err) = sign_in(&app, &user.email, "wrong password!", Some(&now_code)).await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::UNAUTHORIZED, "invalid_credentials")
    );
    app.clock.advance(chrono::Duration::seconds(30));
    let next = totp_code(&secret, app.clock_now());
    assert_eq!(
        sign_in(&app, &user.email, &user.password, Some(&next))
            .await
            .0,
        StatusCode::CREATED
    );
    let again = sign_in(&app, &user.email, &user.password, Some(&next)).await;
    assert_eq!(again.0, StatusCode::UNAUTHORIZED, "a code works once");

    // A recovery code works once, typed with or without its dash.
    let typed = codes[0].replace('-', " ").to_uppercase();
    assert_eq!(
        sign_in(&app, &user.email, &user.password, Some(&typed))
            .await
            .0,
        StatusCode::CREATED
    );
    let (s, err) = sign_in(&app, &user.email, &user.password, Some(&codes[0])).await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::UNAUTHORIZED, "invalid_second_factor")
    );
    let (_, state) = app.get("/auth/v1/second-factor", Some(&token)).await;
    assert_eq!(state["recoveryCodesLeft"], json!(9));

    // New recovery codes need a code; the old ones stop working.
    app.clock.advance(chrono::Duration::seconds(30));
    let code = totp_code(&secret, app.clock_now());
    let (s, fresh) = app
        .post(
            "/auth/v1/second-factor/recovery-codes",
            Some(&token),
            &json!({"code": code}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{fresh}");
    assert_eq!(
        sign_in(&app, &user.email, &user.password, Some(&codes[1]))
            .await
            .0,
        StatusCode::UNAUTHORIZED
    );

    // Turning it off takes the password and a code.
    let (s, err) = app
        .post(
            "/auth/v1/second-factor/disable",
            Some(&token),
            &json!({"currentPassword": "not it at all", "code": codes[2]}),
        )
        .await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::UNAUTHORIZED, "invalid_credentials")
    );
    let recovery = fresh["recoveryCodes"][0].as_str().expect("code");
    let (s, body) = app
        .post(
            "/auth/v1/second-factor/disable",
            Some(&token),
            &json!({"currentPassword": user.password, "code": recovery}),
        )
        .await;
    assert_eq!(s, StatusCode::NO_CONTENT, "{body}");
    assert_eq!(
        sign_in(&app, &user.email, &user.password, None).await.0,
        StatusCode::CREATED
    );

    let told = entity::mail_outbox::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("outbox")
        .into_iter()
        .filter(|m| m.topic == MailTopic::SecondFactorChanged && m.to_address == user.email)
        .count();
    assert_eq!(told, 2, "told when turned on and off");
}

async fn money_and_keys_ask_for_a_code_again(app: TestApp) {
    let (_, token) = app.signed_in(Role::Publisher).await;
    let key = json!({"name": "job", "scopes": ["earnings:read"]});
    // Without a factor nothing more is asked.
    assert_eq!(
        app.post("/auth/v1/api-keys", Some(&token), &key).await.0,
        StatusCode::CREATED
    );
    let (secret, _) = app.enrol_second_factor(&token).await;

    let with_code = |path: &str, method: reqwest::Method, body: Value, code: Option<String>| {
        let mut req = app
            .client
            .request(method, app.url(path))
            .bearer_auth(&token)
            .json(&body);
        if let Some(c) = code {
            req = req.header("X-Second-Factor", c);
        }
        async move {
            let res = req.send().await.expect("sent");
            let s = res.status();
            (s, res.json::<Value>().await.unwrap_or(Value::Null))
        }
    };
    let profile = json!({"legalName": "Pixel Quest Ltd", "country": "DE", "method": "BANK_TRANSFER", "details": "DE89370400440532013000"});
    for (path, method, body) in [
        ("/auth/v1/api-keys", reqwest::Method::POST, key.clone()),
        (
            "/publisher/v2/payouts/profile",
            reqwest::Method::PUT,
            profile.clone(),
        ),
    ] {
        let (s, err) = with_code(path, method.clone(), body.clone(), None).await;
        assert_eq!(
            (s, error_code(&err)),
            (StatusCode::FORBIDDEN, "step_up_required"),
            "{path}"
        );
        let (s, err) = with_code(path, method.clone(), body.clone(), Some("123456".into())).await;
        assert_eq!(
            (s, error_code(&err)),
            (StatusCode::FORBIDDEN, "step_up_required"),
            "{path}"
        );
        app.clock.advance(chrono::Duration::seconds(30));
        let (s, ok) = with_code(
            path,
            method,
            body,
            Some(totp_code(&secret, app.clock_now())),
        )
        .await;
        assert!(s.is_success(), "{path}: {s} {ok}");
    }
    // A payout request asks too: refused for the code before the balance is looked at, and
    // with a current code it reaches the balance rule (nothing earned yet: 409).
    let payout = |code: Option<String>| {
        let mut req = app
            .client
            .post(app.url("/publisher/v2/payouts"))
            .bearer_auth(&token)
            .header(
                "Idempotency-Key",
                format!("payout-step-up-{}", code.is_some()),
            )
            .json(&json!({}));
        if let Some(c) = code {
            req = req.header("X-Second-Factor", c);
        }
        async move {
            let res = req.send().await.expect("sent");
            (res.status(), res.json::<Value>().await.expect("json"))
        }
    };
    let (s, err) = payout(None).await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::FORBIDDEN, "step_up_required")
    );
    app.clock.advance(chrono::Duration::seconds(30));
    let (s, err) = payout(Some(totp_code(&secret, app.clock_now()))).await;
    assert_eq!(s, StatusCode::CONFLICT, "past the step-up: {err}");
}

async fn administrators_act_only_with_a_second_factor(backend: Backend) {
    let app = TestApp::spawn_with(backend, &["--admin-second-factor", "true"]).await;
    let (admin_user, admin) = app.signed_in(Role::Admin).await;
    let (s, err) = app.get("/admin/v1/advertisers/pending", Some(&admin)).await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::FORBIDDEN, "admin_second_factor_required")
    );
    // Acting on a publisher's behalf is closed too; the account's own routes stay open.
    let (s, err) = app.get("/publisher/v2/placements", Some(&admin)).await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::FORBIDDEN, "admin_second_factor_required")
    );
    assert_eq!(app.get("/auth/v1/me", Some(&admin)).await.0, StatusCode::OK);
    // The dashboard too: its server functions refuse, the account's own cards answer.
    let browser = tests::browser();
    let csrf = app.browser_sign_in(&browser, &admin_user).await;
    let call = |endpoint: &str, form: Vec<(&'static str, String)>| {
        let req = browser
            .post(app.url(&format!("/fn/{endpoint}")))
            .header("referer", app.url("/admin"))
            .form(&form);
        async move {
            let res = req.send().await.expect("fn");
            (res.status(), res.text().await.unwrap_or_default())
        }
    };
    for (endpoint, form) in [
        ("pending_advertisers", vec![]),
        (
            "approve_advertiser",
            vec![("account_id", "acc_x".to_owned()), ("csrf", csrf.clone())],
        ),
    ] {
        let (s, body) = call(endpoint, form).await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{endpoint}: {body}");
        assert!(
            body.contains("admin_second_factor_required"),
            "{endpoint}: {body}"
        );
    }
    let (s, body) = call("second_factor_summary", vec![]).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let (secret, _) = app.enrol_second_factor(&admin).await;
    assert_eq!(
        app.get("/admin/v1/advertisers/pending", Some(&admin))
            .await
            .0,
        StatusCode::OK
    );
    // It cannot be turned off while required.
    let code = totp_code(&secret, app.clock_now());
    let (s, _) = app
        .post(
            "/auth/v1/second-factor/disable",
            Some(&admin),
            &json!({"currentPassword": "correct horse battery", "code": code}),
        )
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN);
    // Publishers are not asked to have one.
    let (_, publisher) = app.signed_in(Role::Publisher).await;
    assert_eq!(
        app.get("/publisher/v2/placements", Some(&publisher))
            .await
            .0,
        StatusCode::OK
    );
}

async fn a_code_works_once_when_raced_and_guessing_stops(app: TestApp) {
    let (user, token) = app.signed_in(Role::Advertiser).await;
    let (secret, _) = app.enrol_second_factor(&token).await;
    // Eight sign-ins at once with one code: exactly one gets a token.
    let code = totp_code(&secret, app.clock_now());
    let tries = (0..8).map(|_| sign_in(&app, &user.email, &user.password, Some(&code)));
    let answers = futures::future::join_all(tries).await;
    let won = answers
        .iter()
        .filter(|(s, _)| *s == StatusCode::CREATED)
        .count();
    assert_eq!(won, 1, "{answers:?}");

    // The seven replays counted as wrong codes; once the budget has refilled, five wrong
    // codes, then even the right one waits (429 with Retry-After) until the next refill.
    app.clock.advance(chrono::Duration::minutes(10));
    let right = totp_code(&secret, app.clock_now());
    for _ in 0..5 {
        let (s, err) = sign_in(&app, &user.email, &user.password, Some("999999")).await;
        assert_eq!(
            (s, error_code(&err)),
            (StatusCode::UNAUTHORIZED, "invalid_second_factor")
        );
    }
    let (s, err) = sign_in(&app, &user.email, &user.password, Some(&right)).await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::TOO_MANY_REQUESTS, "rate_limited")
    );
    app.clock.advance(chrono::Duration::seconds(31));
    let fresh = totp_code(&secret, app.clock_now());
    assert_eq!(
        sign_in(&app, &user.email, &user.password, Some(&fresh))
            .await
            .0,
        StatusCode::CREATED
    );
}
