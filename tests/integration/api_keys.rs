//! API keys for the dashboard API (issue 54, part 5): shown once, recognisable, granted per
//! area, refused outside their grants and where no key is accepted, revocable at once in
//! every process, expiring, and never replayed a stored answer they may not see.

use app::model::Role;
use app::model::mail::MailTopic;
use reqwest::StatusCode;
use sea_orm::EntityTrait;
use serde_json::{Value, json};
use tests::{Backend, TestApp, both_backends, each_backend, error_code};

both_backends!(
    a_key_works_within_its_grants_only,
    keys_are_named_limited_and_expire,
);
each_backend!(a_revoked_key_is_refused_by_the_other_process_at_once);

/// Creates a key with `scopes` and returns `(key, view)`.
pub async fn make_key(app: &TestApp, token: &str, scopes: &[&str]) -> (String, Value) {
    let (s, body) = app
        .post(
            "/auth/v1/api-keys",
            Some(token),
            &json!({"name": "Integration", "scopes": scopes}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{body}");
    let key = body["key"].as_str().expect("key").to_owned();
    (key, body["apiKey"].clone())
}

fn refused(answer: &(StatusCode, Value)) -> bool {
    answer.0 == StatusCode::FORBIDDEN && error_code(&answer.1) == "insufficient_scope"
}

async fn a_key_works_within_its_grants_only(app: TestApp) {
    let (user, token) = app.signed_in(Role::Publisher).await;
    let (key, view) = make_key(&app, &token, &["placements:read", "earnings:write"]).await;
    assert!(key.starts_with("mkt_key_"), "recognisable: {key}");
    assert_eq!(view["prefix"].as_str(), Some(&key[..12]));
    assert_eq!(view["scopes"], json!(["placements:read", "earnings:write"]));
    assert!(view["lastUsedAt"].is_null());

    // Reads in a granted area; writes only where granted write.
    let placement = app.website_placement(&token, "keys.example").await;
    let pid = placement["placementId"].as_str().expect("id");
    let (s, list) = app.get("/publisher/v2/placements", Some(&key)).await;
    assert_eq!(s, StatusCode::OK, "{list}");
    assert!(list.to_string().contains(pid));
    let write = app
        .post(
            "/publisher/v2/placements",
            Some(&key),
            &json!({"type": "WEBSITE", "name": "By key", "platformIdentity": "bykey.example"}),
        )
        .await;
    assert!(refused(&write), "read cannot write: {write:?}");
    let other_area = app
        .get("/publisher/v2/callback-deliveries", Some(&key))
        .await;
    assert!(refused(&other_area), "{other_area:?}");
    assert_eq!(
        app.get("/publisher/v2/earnings", Some(&key)).await.0,
        StatusCode::OK
    );
    let (s, me) = app.get("/auth/v1/me", Some(&key)).await;
    assert_eq!(
        (s, me["email"].as_str()),
        (StatusCode::OK, Some(user.email.as_str()))
    );
    // The administrator routes stay closed to a publisher's key.
    let admin = app.get("/admin/v1/advertisers/pending", Some(&key)).await;
    assert_eq!(admin.0, StatusCode::FORBIDDEN, "{admin:?}");

    // No key manages keys, tokens or the account.
    for (method, path, body) in [
        (reqwest::Method::GET, "/auth/v1/api-keys", None),
        (
            reqwest::Method::POST,
            "/auth/v1/api-keys",
            Some(json!({"name": "x", "scopes": ["placements:write"]})),
        ),
        (
            reqwest::Method::POST,
            "/auth/v1/password",
            Some(json!({"currentPassword": user.password, "newPassword": "another passphrase"})),
        ),
        (
            reqwest::Method::POST,
            "/auth/v1/sign-out-everywhere",
            Some(json!({})),
        ),
        (reqwest::Method::DELETE, "/auth/v1/tokens/current", None),
    ] {
        let answer = app.send(method, path, Some(&key), body.as_ref()).await;
        assert!(refused(&answer), "{path}: {answer:?}");
    }

    // A stored answer is not replayed to a key without the grant.
    let keyed = |bearer: &str| {
        let req = app
            .client
            .post(app.url("/publisher/v2/placements"))
            .bearer_auth(bearer)
            .header("idempotency-key", "make-placement-once")
            .json(&json!({"type": "WEBSITE", "name": "Once", "platformIdentity": "once.example"}));
        async move {
            let res = req.send().await.expect("post");
            let s = res.status();
            (s, res.json::<Value>().await.unwrap_or(Value::Null))
        }
    };
    assert_eq!(keyed(&token).await.0, StatusCode::CREATED);
    let replay = keyed(&key).await;
    assert!(refused(&replay), "no replay for a read key: {replay:?}");

    // Shown once: the list never carries the key, and records the use.
    let (s, keys) = app.get("/auth/v1/api-keys", Some(&token)).await;
    assert_eq!(s, StatusCode::OK);
    assert!(!keys.to_string().contains(&key));
    assert!(keys["items"][0]["lastUsedAt"].is_string(), "{keys}");

    // A publisher cannot grant an advertiser's area.
    let (s, err) = app
        .post(
            "/auth/v1/api-keys",
            Some(&token),
            &json!({"name": "x", "scopes": ["billing:read"]}),
        )
        .await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::BAD_REQUEST, "invalid_input")
    );
    assert!(err["error"]["fieldErrors"]["scopes"].is_string(), "{err}");

    // Revoked: refused at once; another account cannot revoke it (404).
    let id = view["id"].as_str().expect("id");
    let stranger = app.signed_in(Role::Publisher).await.1;
    let path = format!("/auth/v1/api-keys/{id}");
    assert_eq!(
        app.delete(&path, Some(&stranger)).await.0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.get("/publisher/v2/placements", Some(&key)).await.0,
        StatusCode::OK
    );
    assert_eq!(
        app.delete(&path, Some(&token)).await.0,
        StatusCode::NO_CONTENT
    );
    let (s, err) = app.get("/publisher/v2/placements", Some(&key)).await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::UNAUTHORIZED, "unauthorized")
    );
    assert_eq!(
        app.delete(&path, Some(&token)).await.0,
        StatusCode::NO_CONTENT
    );

    // The owner was told once, without the key.
    let told = entity::mail_outbox::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("outbox");
    let letters: Vec<_> = told
        .iter()
        .filter(|m| m.topic == MailTopic::ApiKeyCreated && m.to_address == user.email)
        .collect();
    assert_eq!(letters.len(), 1);
    let text = app::domain::mail::outbox::text_of(&app.state.ctx, letters[0]).expect("text");
    assert!(
        text.contains(&key[..12]) && !text.contains(&key),
        "the prefix, never the key: {text}"
    );
}

async fn keys_are_named_limited_and_expire(app: TestApp) {
    let token = app.signed_in(Role::Advertiser).await.1;
    let create = |body: Value| {
        let (app, token) = (&app, token.clone());
        async move { app.post("/auth/v1/api-keys", Some(&token), &body).await }
    };
    for bad in [
        json!({"name": "", "scopes": ["campaigns:read"]}),
        json!({"name": "x", "scopes": []}),
        json!({"name": "x", "scopes": ["campaigns:delete"]}),
        json!({"name": "x", "scopes": ["campaigns"]}),
        json!({"name": "x", "scopes": ["campaigns:read"], "expiresInDays": 0}),
        json!({"name": "x", "scopes": ["campaigns:read"], "expiresInDays": 731}),
    ] {
        let (s, err) = create(bad.clone()).await;
        assert_eq!(
            (s, error_code(&err)),
            (StatusCode::BAD_REQUEST, "invalid_input"),
            "{bad}"
        );
    }
    let (s, body) =
        create(json!({"name": "Nightly", "scopes": ["billing:read"], "expiresInDays": 1})).await;
    assert_eq!(s, StatusCode::CREATED, "{body}");
    let key = body["key"].as_str().expect("key").to_owned();
    assert_eq!(
        app.get("/performance-marketing/v2/billing/balance", Some(&key))
            .await
            .0,
        StatusCode::OK
    );
    // 25 active keys at most.
    for _ in 1..app::domain::accounts::api_keys::MAX_ACTIVE_KEYS {
        let (s, body) = create(json!({"name": "k", "scopes": ["campaigns:read"]})).await;
        assert_eq!(s, StatusCode::CREATED, "{body}");
    }
    let (s, err) = create(json!({"name": "one too many", "scopes": ["campaigns:read"]})).await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::CONFLICT, "too_many_keys")
    );
    app.clock
        .advance(chrono::Duration::days(1) - chrono::Duration::seconds(1));
    let balance = "/performance-marketing/v2/billing/balance";
    assert_eq!(
        app.get(balance, Some(&key)).await.0,
        StatusCode::OK,
        "not yet"
    );
    app.clock.advance(chrono::Duration::seconds(1));
    let (s, err) = app.get(balance, Some(&key)).await;
    assert_eq!(
        (s, error_code(&err)),
        (StatusCode::UNAUTHORIZED, "unauthorized"),
        "expired"
    );
}

async fn a_revoked_key_is_refused_by_the_other_process_at_once(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let b = tests::process::start(&app.database_url, &[], "/readyz").await;
    let token = app.signed_in(Role::Publisher).await.1;
    let (key, view) = make_key(&app, &token, &["placements:read"]).await;
    let on_b = || {
        let req = app
            .client
            .get(format!("{}/publisher/v2/placements", b.base))
            .bearer_auth(&key);
        async move { req.send().await.expect("B").status() }
    };
    assert_eq!(on_b().await, StatusCode::OK);
    let id = view["id"].as_str().expect("id");
    let (s, _) = app
        .delete(&format!("/auth/v1/api-keys/{id}"), Some(&token))
        .await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    assert_eq!(
        on_b().await,
        StatusCode::UNAUTHORIZED,
        "refused by B at once"
    );
}
