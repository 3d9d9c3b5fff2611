//! Money and access hardening: one active key under concurrency, the development checkout
//! bound to its order's owner, the per-account sign-in budget and IPv6 /64 buckets.

use app::model::Role;
use reqwest::StatusCode;
use serde_json::json;
use tests::{TestApp, both_backends, error_code};

use tests::builders::{campaign_body, create, transition};

both_backends!(
    approval_names_the_reviewed_revision_and_edits_withdraw_a_review,
    concurrent_key_issuers_leave_one_active_key,
    sign_in_budget_is_per_account_and_ipv6_is_bucketed_by_64,
);

async fn concurrent_key_issuers_leave_one_active_key(app: TestApp) {
    let (_, adv) = app.funded_advertiser(0).await;
    let id = create(&app, &adv, &campaign_body("CUSTOM_S2S", 100_000_000)).await;
    let path = format!("/performance-marketing/v2/campaigns/{id}/tracking/custom-s2s/credentials");
    let empty = json!({});
    let calls = (0..6).map(|_| app.post(&path, Some(&adv), &empty));
    let answers = futures::future::join_all(calls).await;
    let created = answers
        .iter()
        .filter(|(s, _)| *s == StatusCode::CREATED)
        .count();
    assert_eq!(created, 1, "{answers:?}");
    for (s, b) in answers.iter().filter(|(s, _)| *s != StatusCode::CREATED) {
        assert_eq!(
            (*s, error_code(b)),
            (StatusCode::CONFLICT, "credential_exists")
        );
    }
    use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
    let active = entity::campaign_credential::Entity::find()
        .filter(entity::campaign_credential::Column::CampaignId.eq(id.clone()))
        .filter(entity::campaign_credential::Column::Status.eq("ACTIVE"))
        .count(&app.state.ctx.db)
        .await
        .expect("count");
    assert_eq!(active, 1);

    // The first callback configuration, twice at once: one secret, one current key.
    let (_, publisher) = app.signed_in(Role::Publisher).await;
    let p = app
        .website_placement(&publisher, "race.pixelquest.example")
        .await;
    let pid = p["placementId"].as_str().expect("id");
    let cb = format!("/publisher/v2/placements/{pid}/callback");
    let body = json!({"url": "https://hooks.pixelquest.example/reward"});
    let answers =
        futures::future::join_all((0..4).map(|_| app.put(&cb, Some(&publisher), &body))).await;
    assert!(
        answers.iter().all(|(s, _)| *s == StatusCode::OK),
        "{answers:?}"
    );
    assert_eq!(
        answers
            .iter()
            .filter(|(_, b)| b["secret"].is_string())
            .count(),
        1,
        "{answers:?}"
    );
    let current = entity::callback_key::Entity::find()
        .filter(entity::callback_key::Column::PlacementId.eq(pid.to_owned()))
        .filter(entity::callback_key::Column::State.eq("CURRENT"))
        .count(&app.state.ctx.db)
        .await
        .expect("count");
    assert_eq!(current, 1);
}

async fn sign_in_budget_is_per_account_and_ipv6_is_bucketed_by_64(_app: TestApp) {
    // Behind a trusted proxy the client address comes from X-Forwarded-For.
    let app = TestApp::spawn_with(_app.backend, &["--trusted-proxies", "127.0.0.1"]).await;
    let user = app.create_user(Role::Publisher).await;
    let attempt = |ip: String, password: &'static str| {
        let (client, url, email) = (
            app.client.clone(),
            app.url("/auth/v1/tokens"),
            user.email.clone(),
        );
        async move {
            client
                .post(url)
                .header("X-Forwarded-For", ip)
                .json(&json!({"email": email, "password": password}))
                .send()
                .await
                .map(|r| r.status())
                .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
        }
    };
    // Rotating addresses inside one /64 is one client: its burst of 10 runs out.
    let mut limited = false;
    for i in 0..12 {
        let s = attempt(format!("2001:db8:7:1::{i:x}"), "wrong password 1").await;
        limited |= s == StatusCode::TOO_MANY_REQUESTS;
    }
    assert!(limited, "one /64 shares a limit");
    // Across /64s, the account's own budget (20 failures) is spent: its sign-ins are slowed
    // (in the audit log), never refused, so the owner's right password from a new address
    // still works (issue 28: nobody can lock anyone out).
    for i in 0..12 {
        attempt(format!("2001:db8:{i:x}:2::1"), "wrong password 2").await;
    }
    let started = std::time::Instant::now();
    let s = attempt("2001:db8:99:3::1".to_owned(), "correct horse battery").await;
    assert_eq!(s, StatusCode::CREATED, "the owner still signs in");
    assert!(
        started.elapsed() >= std::time::Duration::from_secs(2),
        "after a pause"
    );
    use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
    let slowed = entity::audit_event::Entity::find()
        .filter(entity::audit_event::Column::Action.eq("account.sign_in_slowed"))
        .count(&app.state.ctx.db)
        .await
        .expect("audit");
    assert_eq!(slowed, 1);
    // One address cannot buy Argon2 work by varying the e-mail: 30 attempts, then 429.
    let mut limited_at = None;
    for i in 0..40 {
        let s = app
            .client
            .post(app.url("/auth/v1/tokens"))
            .header("X-Forwarded-For", "198.51.100.77")
            .json(&json!({"email": format!("nobody{i}@example.test"), "password": "guess"}))
            .send()
            .await
            .map(|r| r.status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if s == StatusCode::TOO_MANY_REQUESTS {
            limited_at = Some(i);
            break;
        }
    }
    assert!(
        limited_at.is_some_and(|i| (30..36).contains(&i)),
        "{limited_at:?}"
    );
    // Another account is not affected.
    let other = app.create_user(Role::Publisher).await;
    let (s, _) = app
        .post(
            "/auth/v1/tokens",
            None,
            &json!({"email": other.email, "password": other.password}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
}

async fn approval_names_the_reviewed_revision_and_edits_withdraw_a_review(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000_000_000).await;
    let id = create(&app, &adv, &campaign_body("CUSTOM_S2S", 100_000_000)).await;
    assert_eq!(
        transition(&app, &adv, &id, "IN_REVIEW").await.0,
        StatusCode::OK
    );
    let approve = format!("/admin/v1/offer-campaigns/{id}/approve");
    let (_, c) = app
        .get(
            &format!("/performance-marketing/v2/campaigns/{id}"),
            Some(&adv),
        )
        .await;
    let reviewed = c["revision"].as_i64().expect("revision");

    // Swapping the destination after submission withdraws the campaign from review.
    let (s, c) = app
        .patch(
            &format!("/performance-marketing/v2/campaigns/{id}"),
            Some(&adv),
            &json!({"destinationUrl": "https://elsewhere.example/x?c={click_id}"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(c["status"], "DRAFT", "{c}");
    let (s, e) = app
        .post(&approve, Some(&admin), &json!({"revision": reviewed}))
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert_eq!(error_code(&e), "revision_changed");
    let (s, e) = app.post(&approve, Some(&admin), &json!({})).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::CONFLICT, "invalid_transition")
    );

    // Submitted again, the reviewed revision is approved.
    assert_eq!(
        transition(&app, &adv, &id, "IN_REVIEW").await.0,
        StatusCode::OK
    );
    let (s, c) = app
        .post(&approve, Some(&admin), &json!({"revision": c["revision"]}))
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(c["status"], "LIVE");
}

/// In production the session cookie is Secure even behind a TLS-terminating proxy whose
/// public address the service was not told, and `server demo` (known passwords) is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn production_cookies_are_secure_and_the_demo_is_refused() {
    tests::bounded(async {
        let app = TestApp::spawn_with(
            tests::Backend::Sqlite,
            &[
                "--environment",
                "production",
                "--base-url",
                "https://market.example",
                "--mail-url",
                "off",
            ],
        )
        .await;
        let res = app
            .client
            .get(app.url("/sign-in"))
            .send()
            .await
            .expect("page");
        let cookies: Vec<String> = res
            .headers()
            .get_all("set-cookie")
            .iter()
            .filter_map(|v| v.to_str().ok().map(str::to_owned))
            .collect();
        assert!(
            cookies.iter().any(|c| c.starts_with("mkt_session=")),
            "{cookies:?}"
        );
        assert!(cookies.iter().all(|c| c.contains("Secure")), "{cookies:?}");

        let dir = tempfile::tempdir().expect("dir");
        let out = std::process::Command::new(tests::process::server_binary())
            .arg("demo")
            .env("APP_ENVIRONMENT", "production")
            .env("APP_BASE_URL", "https://market.example")
            .env("APP_SECRET_KEY", "5e".repeat(32))
            .env(
                "APP_DATABASE_URL",
                format!("sqlite://{}/app.db?mode=rwc", dir.path().display()),
            )
            .env("APP_DATA_DIR", dir.path())
            .output()
            .expect("run server demo");
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains("refused in production"));
    })
    .await
}

/// Production refuses to start on settings that only make sense on a developer's machine,
/// each with a one-line reason (issue 29).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn production_refuses_development_settings() {
    tests::bounded(async {
        let dir = tempfile::tempdir().expect("dir");
        let run = |extra: &[(&str, &str)]| {
            let mut cmd = std::process::Command::new(tests::process::server_binary());
            // `user create` builds the service's context, as `serve` does, then exits.
            cmd.args([
                "user",
                "create",
                "--email",
                "ops@market.example",
                "--password",
                "a-long-operator-password",
                "--role",
                "admin",
            ])
            .env("APP_ENVIRONMENT", "production")
            .env(
                "APP_DATABASE_URL",
                format!("sqlite://{}/app.db?mode=rwc", dir.path().display()),
            )
            .env("APP_DATA_DIR", dir.path())
            .env_remove("APP_SECRET_KEY")
            .env_remove("APP_BASE_URL");
            for (k, v) in extra {
                cmd.env(k, v);
            }
            let out = cmd.output().expect("run server");
            (
                out.status.success(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        };
        let key = "5e".repeat(32);
        let ready = [
            ("APP_SECRET_KEY", key.as_str()),
            ("APP_BASE_URL", "https://market.example"),
            ("APP_MAIL_URL", "off"),
        ];
        let with = |extra: &[(&'static str, &'static str)]| {
            let mut env = ready.to_vec();
            env.retain(|(k, _)| extra.iter().all(|(e, _)| e != k));
            env.extend_from_slice(extra);
            env
        };
        let mail_cases: [(Vec<(&str, &str)>, &str); 3] = [
            (
                vec![
                    ("APP_SECRET_KEY", &key),
                    ("APP_BASE_URL", "https://market.example"),
                ],
                "APP_MAIL_URL is required",
            ),
            (
                with(&[("APP_MAIL_URL", "smtp://mail.market.example:25")]),
                "sends in the clear",
            ),
            (
                with(&[("APP_MAIL_URL", "smtps://user:pass@mail.market.example:465")]),
                "APP_MAIL_FROM must be",
            ),
        ];
        for (env, reason) in mail_cases {
            let (ok, stderr) = run(&env);
            assert!(!ok, "{env:?} started");
            assert!(stderr.contains(reason), "{env:?}: {stderr}");
            assert!(
                !stderr.contains("user:pass"),
                "the mail password is never printed: {stderr}"
            );
        }
        let cases: [(Vec<(&str, &str)>, &str); 5] = [
            (
                vec![("APP_SECRET_KEY", &key)],
                "APP_BASE_URL must be the public https:// address",
            ),
            (
                vec![
                    ("APP_SECRET_KEY", &key),
                    ("APP_BASE_URL", "https://127.0.0.1:3000"),
                ],
                "not a loopback one",
            ),
            (
                vec![("APP_BASE_URL", "https://market.example")],
                "APP_SECRET_KEY is required",
            ),
            (
                vec![
                    ("APP_SECRET_KEY", &key),
                    ("APP_BASE_URL", "https://market.example"),
                    ("APP_ALLOW_REMOTE_DEVELOPMENT", "true"),
                ],
                "APP_ALLOW_REMOTE_DEVELOPMENT is a development switch",
            ),
            (
                vec![
                    ("APP_SECRET_KEY", &key),
                    ("APP_BASE_URL", "https://market.example"),
                    ("APP_CALLBACK_ALLOW_PRIVATE", "true"),
                ],
                "APP_CALLBACK_ALLOW_PRIVATE is a development switch",
            ),
        ];
        for (env, reason) in cases {
            let (ok, stderr) = run(&env);
            assert!(!ok, "{env:?} started");
            assert!(stderr.contains(reason), "{env:?}: {stderr}");
        }
        let (ok, stderr) = run(&ready);
        assert!(ok, "{stderr}");
        // Past the production checks (the operator it creates exists from the run above).
        let (_, stderr) = run(&with(&[
            (
                "APP_MAIL_URL",
                "smtp://user:pass@mail.market.example:587?tls=required",
            ),
            ("APP_MAIL_FROM", "Market <no-reply@market.example>"),
        ]));
        assert!(stderr.contains("already exists"), "{stderr}");
    })
    .await
}
