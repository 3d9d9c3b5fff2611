//! Ad slots (matrix, readiness, merged PATCH and revisions, state), reward preview,
//! snippets, static keys and reward callback settings.

use app::model::Role;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::{TestApp, both_backends, error_code, error_message};

both_backends!(
    slot_types_follow_the_placement_type,
    readiness_follows_verification_and_rate,
    patch_merges_sections_and_stores_revisions,
    activation_needs_release,
    reward_preview_uses_rate_and_rounding,
    snippets_are_credential_free,
    static_keys_rules,
    callback_settings_rotate_promote_and_test,
    no_read_ever_returns_a_secret,
);

async fn placement(app: &TestApp, t: &str, kind: &str, identity: &str) -> String {
    let mut body = json!({"type": kind, "name": "P", "platformIdentity": identity});
    if kind.ends_with("_APP") {
        body["storeUrl"] = json!("https://play.google.com/store/apps/details?id=com.pixel.quest");
    }
    let (s, p) = app.post("/publisher/v2/placements", Some(t), &body).await;
    assert_eq!(s, StatusCode::CREATED, "{p}");
    p["placementId"].as_str().expect("id").to_owned()
}

async fn slot(app: &TestApp, t: &str, pid: &str, body: Value) -> Value {
    let (s, b) = app
        .post(
            &format!("/publisher/v2/placements/{pid}/ad-slots"),
            Some(t),
            &body,
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    b
}

fn coins(num: i64) -> Value {
    json!({"name": "Coins", "decimals": 0, "rateNumeratorMinorUnits": num, "rateDenominatorUsdMicros": 1_000_000, "rounding": "DOWN"})
}

async fn slot_types_follow_the_placement_type(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let android = placement(&app, &t, "ANDROID_APP", "com.pixel.quest").await;
    let (s, err) = app
        .post(
            &format!("/publisher/v2/placements/{android}/ad-slots"),
            Some(&t),
            &json!({"name": "Feed", "type": "STATIC_API"}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(
        err["error"]["fieldErrors"]["type"]
            .as_str()
            .is_some_and(|m| m.contains("OFFERWALL")),
        "{err}"
    );
    slot(
        &app,
        &t,
        &android,
        json!({"name": "Wall", "type": "OFFERWALL"}),
    )
    .await;
    let network = placement(&app, &t, "API_NETWORK", "api.partner.example").await;
    let (s, _) = app
        .post(
            &format!("/publisher/v2/placements/{network}/ad-slots"),
            Some(&t),
            &json!({"name": "Wall", "type": "OFFERWALL"}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    slot(
        &app,
        &t,
        &network,
        json!({"name": "Feed", "type": "STATIC_API"}),
    )
    .await;
    let (s, err) = app
        .post(
            &format!("/publisher/v2/placements/{network}/ad-slots"),
            Some(&t),
            &json!({"name": "x"}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(err["error"]["fieldErrors"]["type"].is_string());
}

async fn readiness_follows_verification_and_rate(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let admin = app.admin_token().await;
    let pid = placement(&app, &t, "WEBSITE", "ready.example.com").await;
    let paid = slot(
        &app,
        &t,
        &pid,
        json!({"name": "Wall", "type": "OFFERWALL", "currency": coins(100)}),
    )
    .await;
    assert_eq!(paid["state"], "DRAFT");
    assert_eq!(
        paid["readiness"],
        json!({"ready": false, "reasons": ["placement_not_verified"]})
    );
    let free = slot(&app, &t, &pid, json!({"name": "Zero", "type": "OFFER_API"})).await;
    assert_eq!(
        free["readiness"]["reasons"],
        json!(["placement_not_verified", "currency_rate_zero"])
    );

    app.verify_placement(&t, &admin, &pid, false).await;
    let (_, p) = app
        .get(&format!("/publisher/v2/placements/{pid}"), Some(&t))
        .await;
    let slots = p["adSlots"].as_array().expect("slots");
    let by_name = |n: &str| {
        slots
            .iter()
            .find(|s| s["name"] == n)
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(
        by_name("Wall")["state"],
        "READY",
        "verification makes a configured slot ready"
    );
    assert_eq!(by_name("Zero")["state"], "DRAFT");
    assert_eq!(
        by_name("Zero")["readiness"]["reasons"],
        json!(["currency_rate_zero"])
    );

    let sid = free["adSlotId"].as_str().expect("id");
    let (_, fixed) = app
        .patch(
            &format!("/publisher/v2/placements/{pid}/ad-slots/{sid}"),
            Some(&t),
            &json!({"currency": {"rateNumeratorMinorUnits": 250}}),
        )
        .await;
    assert_eq!(fixed["state"], "READY");
    assert_eq!(fixed["readiness"], json!({"ready": true, "reasons": []}));
}

async fn patch_merges_sections_and_stores_revisions(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let pid = placement(&app, &t, "WEBSITE", "merge.example.com").await;
    let s0 = slot(
        &app,
        &t,
        &pid,
        json!({"name": "Wall", "type": "OFFERWALL", "currency": coins(100), "design": {"theme": "dark", "accent": "#f60"},
               "policy": {"allowedCountries": ["us", "DE"], "blockedCampaignIds": ["cmp_1"]}, "offerDelivery": {"sort": "EPC"}}),
    )
    .await;
    assert_eq!(s0["configurationVersion"], 1);
    assert_eq!(s0["policy"]["allowedCountries"], json!(["US", "DE"]));
    let sid = s0["adSlotId"].as_str().expect("id");
    let path = format!("/publisher/v2/placements/{pid}/ad-slots/{sid}");

    let (s, s1) = app.patch(&path, Some(&t), &json!({"currency": {"rounding": "UP"}, "design": {"accent": "#0af"}, "policy": {"blockedCountries": ["FR"]}})).await;
    assert_eq!(s, StatusCode::OK, "{s1}");
    assert_eq!(s1["configurationVersion"], 2);
    assert_eq!(s1["currency"]["rounding"], "UP");
    assert_eq!(
        s1["currency"]["rateNumeratorMinorUnits"], 100,
        "unnamed currency fields are kept"
    );
    assert_eq!(s1["currency"]["name"], "Coins");
    assert_eq!(s1["design"], json!({"theme": "dark", "accent": "#0af"}));
    assert_eq!(s1["policy"]["allowedCountries"], json!(["US", "DE"]));
    assert_eq!(s1["policy"]["blockedCountries"], json!(["FR"]));
    assert_eq!(s1["offerDelivery"]["sort"], "EPC");
    assert_eq!(s1["name"], "Wall");

    let (s, err) = app
        .patch(&path, Some(&t), &json!({"type": "OFFER_API"}))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(err["error"]["fieldErrors"]["type"].is_string());
    for bad in [
        json!({"currency": {"decimals": 12}}),
        json!({"currency": {"rateDenominatorUsdMicros": 0}}),
        json!({"policy": {"allowedCountries": ["USA"]}}),
        json!({"offerDelivery": {"minimumPayoutMicros": -1}}),
        json!({"offerDelivery": {"sort": "RANDOM"}}),
        json!({"design": "dark"}),
    ] {
        let (s, err) = app.patch(&path, Some(&t), &bad).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {err}");
    }
    let (_, again) = app.get(&path, Some(&t)).await;
    assert_eq!(
        again["configurationVersion"], 2,
        "refused PATCHes change nothing"
    );

    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
    let revs = entity::ad_slot_revision::Entity::find()
        .filter(entity::ad_slot_revision::Column::AdSlotId.eq(sid))
        .order_by_asc(entity::ad_slot_revision::Column::Version)
        .all(&app.state.ctx.db)
        .await
        .expect("revisions");
    assert_eq!(
        revs.iter().map(|r| r.version).collect::<Vec<_>>(),
        vec![1, 2]
    );
    let first: Value = serde_json::from_str(&revs[0].configuration).expect("json");
    assert_eq!(
        first["currency"]["rounding"], "DOWN",
        "revision 1 is immutable"
    );
}

async fn activation_needs_release(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let admin = app.admin_token().await;
    let pid = placement(&app, &t, "WEBSITE", "live.example.com").await;
    let s0 = slot(
        &app,
        &t,
        &pid,
        json!({"name": "Wall", "type": "OFFERWALL", "currency": coins(100)}),
    )
    .await;
    let sid = s0["adSlotId"].as_str().expect("id");
    let base = format!("/publisher/v2/placements/{pid}/ad-slots/{sid}");
    assert_eq!(
        app.post(&format!("{base}/activate"), Some(&t), &json!({}))
            .await
            .0,
        StatusCode::CONFLICT,
        "DRAFT cannot activate"
    );
    app.verify_placement(&t, &admin, &pid, false).await;
    let (s, err) = app
        .post(&format!("{base}/activate"), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert!(error_message(&err).contains("released"), "{err}");
    let (s, _) = app
        .post(
            &format!("/admin/v1/placements/{pid}/release"),
            Some(&admin),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let (s, active) = app
        .post(&format!("{base}/activate"), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{active}");
    assert_eq!(active["state"], "ACTIVE");
    // PATCH keeps an ACTIVE slot ACTIVE, even with a zero rate (delivery re-checks readiness).
    let (_, patched) = app
        .patch(
            &base,
            Some(&t),
            &json!({"currency": {"rateNumeratorMinorUnits": 0}}),
        )
        .await;
    assert_eq!(patched["state"], "ACTIVE");
    assert_eq!(patched["readiness"]["ready"], false);
    let (_, disabled) = app
        .post(&format!("{base}/disable"), Some(&t), &json!({}))
        .await;
    assert_eq!(disabled["state"], "DISABLED");
    let (s, err) = app
        .delete(&format!("/publisher/v2/placements/{pid}"), Some(&t))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert!(error_message(&err).contains("slot"), "{err}");
}

async fn reward_preview_uses_rate_and_rounding(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let pid = placement(&app, &t, "WEBSITE", "preview.example.com").await;
    let s0 = slot(
        &app,
        &t,
        &pid,
        json!({"name": "Wall", "type": "OFFERWALL", "currency": coins(150)}),
    )
    .await;
    let sid = s0["adSlotId"].as_str().expect("id");
    let base = format!("/publisher/v2/placements/{pid}/ad-slots/{sid}");
    // 0.01 USD at 150 coins per USD = 1.5 coins.
    for (rounding, expected) in [("DOWN", 1), ("NEAREST", 2), ("UP", 2)] {
        app.patch(
            &base,
            Some(&t),
            &json!({"currency": {"rounding": rounding}}),
        )
        .await;
        let (s, p) = app
            .post(
                &format!("{base}/reward-preview"),
                Some(&t),
                &json!({"usdMicros": 10_000}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{p}");
        assert_eq!(p["minorUnits"], expected, "{rounding}");
        assert_eq!(p["usdMicros"], 10_000);
        assert_eq!(p["currency"], "Coins");
        assert_eq!(p["decimals"], 0);
    }
    let (_, cents) = app.patch(&base, Some(&t), &json!({"currency": {"decimals": 2, "rateNumeratorMinorUnits": 1000, "rounding": "NEAREST"}})).await;
    assert_eq!(cents["currency"]["decimals"], 2);
    let (_, p) = app
        .post(
            &format!("{base}/reward-preview"),
            Some(&t),
            &json!({"usdMicros": 1_234_567}),
        )
        .await;
    assert_eq!(p["minorUnits"], 1235);
    assert_eq!(p["display"], "12.35");
    let (s, _) = app
        .post(
            &format!("{base}/reward-preview"),
            Some(&t),
            &json!({"usdMicros": -5}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (s, _) = app
        .post(
            &format!("{base}/reward-preview"),
            Some(&t),
            &json!({"usdMicros": 1.5}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "money is never a float");
}

async fn snippets_are_credential_free(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let pid = placement(&app, &t, "WEBSITE", "snip.example.com").await;
    let s0 = slot(&app, &t, &pid, json!({"name": "Wall", "type": "OFFERWALL"})).await;
    let sid = s0["adSlotId"].as_str().expect("id");
    let (s, sn) = app
        .get(
            &format!("/publisher/v2/placements/{pid}/ad-slots/{sid}/snippets"),
            Some(&t),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(sn["containsCredential"], false);
    assert_eq!(sn["placementId"], pid.as_str());
    for platform in ["android", "ios", "web"] {
        let code = sn[platform].as_str().expect("snippet");
        assert!(code.contains(&pid) && code.contains(sid), "{platform}");
        assert!(
            !code.contains("mkt_"),
            "{platform} snippet carries no credential"
        );
    }
    // No package that does not exist: app platforms show the REST integration, the web the
    // web SDK the service serves.
    for platform in ["android", "ios"] {
        let code = sn[platform].as_str().unwrap_or_default();
        assert!(
            code.contains("/sdk/v2/sessions") && code.contains("/launch"),
            "{code}"
        );
        assert!(
            !code.contains("implementation(") && !code.contains("Swift Package"),
            "{code}"
        );
    }
    assert!(
        sn["web"]
            .as_str()
            .unwrap_or_default()
            .contains("/sdk/v2/offers.js")
    );
}

async fn static_keys_rules(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let pid = placement(&app, &t, "WEBSITE", "feed.example.com").await;
    let wall = slot(&app, &t, &pid, json!({"name": "Wall", "type": "OFFERWALL"})).await;
    let feed = slot(
        &app,
        &t,
        &pid,
        json!({"name": "Feed", "type": "STATIC_API"}),
    )
    .await;
    let now = tests::start_time();
    let in_days = |d: i64| (now + chrono::Duration::days(d)).to_rfc3339();
    let key_path = |s: &Value| {
        format!(
            "/publisher/v2/placements/{pid}/ad-slots/{}/static-key",
            s["adSlotId"].as_str().unwrap_or_default()
        )
    };

    let (s, err) = app
        .post(
            &key_path(&wall),
            Some(&t),
            &json!({"expiresAt": in_days(30), "reason": "partner feed"}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{err}");
    for (expires, field) in [(in_days(-1), "expiresAt"), (in_days(367), "expiresAt")] {
        let (s, err) = app
            .post(
                &key_path(&feed),
                Some(&t),
                &json!({"expiresAt": expires, "reason": "partner feed"}),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        assert!(err["error"]["fieldErrors"][field].is_string(), "{err}");
    }
    let (s, _) = app
        .post(
            &key_path(&feed),
            Some(&t),
            &json!({"expiresAt": in_days(30), "reason": "x"}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (s, _) = app
        .post(
            &key_path(&feed),
            Some(&t),
            &json!({"expiresAt": "next tuesday", "reason": "partner feed"}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);

    let (s, k1) = app
        .post(
            &key_path(&feed),
            Some(&t),
            &json!({"expiresAt": in_days(365), "reason": "partner feed"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{k1}");
    assert_eq!(k1["displayedOnce"], true);
    assert!(k1["staticKeyId"].is_string());
    let token1 = k1["token"].as_str().expect("token").to_owned();
    let (_, k2) = app
        .post(
            &key_path(&feed),
            Some(&t),
            &json!({"expiresAt": in_days(90), "reason": "rotated after leak"}),
        )
        .await;
    assert_ne!(k2["token"], k1["token"]);

    use sea_orm::EntityTrait;
    let rows = entity::static_key::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("rows");
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows.iter().filter(|r| r.deactivated_at.is_none()).count(),
        1,
        "a new key deactivates the earlier one"
    );
    assert!(
        rows.iter()
            .all(|r| r.key_hash != token1 && r.key_hash.len() == 64)
    );
}

async fn callback_settings_rotate_promote_and_test(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let pid = placement(&app, &t, "WEBSITE", "hooks.example.com").await;
    let cb = format!("/publisher/v2/placements/{pid}/callback");
    assert_eq!(app.get(&cb, Some(&t)).await.0, StatusCode::NOT_FOUND);
    assert_eq!(
        app.post(&format!("{cb}/rotate"), Some(&t), &json!({}))
            .await
            .0,
        StatusCode::CONFLICT
    );
    assert_eq!(
        app.post(&format!("{cb}/test"), Some(&t), &json!({}))
            .await
            .0,
        StatusCode::CONFLICT
    );

    for bad in [
        "http://hooks.example.com/cb",
        "https://127.0.0.1/cb",
        "https://10.0.0.8/cb",
        "https://localhost/cb",
        "https://[::1]/cb",
        "not a url",
    ] {
        let (s, err) = app.put(&cb, Some(&t), &json!({"url": bad})).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}");
        assert!(
            err["error"]["fieldErrors"]["url"].is_string(),
            "{bad}: {err}"
        );
    }

    let (s, first) = app
        .put(
            &cb,
            Some(&t),
            &json!({"url": "https://hooks.pixelquest.example/reward"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{first}");
    assert_eq!(first["status"], "ACTIVE");
    let secret1 = first["secret"]
        .as_str()
        .expect("secret shown on first configuration")
        .to_owned();
    let key1 = first["keyId"].as_str().expect("keyId").to_owned();
    let (_, second) = app
        .put(
            &cb,
            Some(&t),
            &json!({"url": "https://hooks.pixelquest.example/v2/reward"}),
        )
        .await;
    assert!(
        second.get("secret").is_none(),
        "no secret after the first configuration"
    );
    assert_eq!(second["keyId"], key1.as_str());
    assert_eq!(second["url"], "https://hooks.pixelquest.example/v2/reward");

    // The test operation signs with the current key.
    let (s, test) = app.post(&format!("{cb}/test"), Some(&t), &json!({})).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(test["deliveredExternally"], false);
    assert_eq!(test["accountingWrites"], 0);
    assert_eq!(test["headers"]["X-Service-Key-Id"], key1.as_str());
    verify_signature(&test, &secret1);
    assert_eq!(test["payload"]["test"], true);
    assert_eq!(
        test["headers"]["Idempotency-Key"],
        test["payload"]["eventId"]
    );

    // Rotate: a next key, shown once; the current key keeps signing.
    let (s, next) = app
        .post(&format!("{cb}/rotate"), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::CREATED);
    let key2 = next["keyId"].as_str().expect("keyId").to_owned();
    let secret2 = next["secret"].as_str().expect("secret").to_owned();
    assert_ne!(key2, key1);
    let (_, still) = app.post(&format!("{cb}/test"), Some(&t), &json!({})).await;
    assert_eq!(still["headers"]["X-Service-Key-Id"], key1.as_str());
    let (_, settings) = app.get(&cb, Some(&t)).await;
    assert_eq!(settings["nextKeyId"], key2.as_str());

    let (s, promoted) = app
        .post(&format!("{cb}/promote"), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(promoted["keyId"], key2.as_str());
    let (_, after) = app.post(&format!("{cb}/test"), Some(&t), &json!({})).await;
    assert_eq!(after["headers"]["X-Service-Key-Id"], key2.as_str());
    verify_signature(&after, &secret2);
    assert_eq!(
        app.post(&format!("{cb}/promote"), Some(&t), &json!({}))
            .await
            .0,
        StatusCode::CONFLICT,
        "nothing left to promote"
    );

    // Secrets are sealed at rest.
    use sea_orm::EntityTrait;
    let rows = entity::callback_key::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("rows");
    assert!(rows.iter().all(
        |r| !r.secret_ciphertext.contains(&secret1) && !r.secret_ciphertext.contains(&secret2)
    ));
}

/// Recomputes the documented signature from the test response.
fn verify_signature(test: &Value, secret: &str) {
    let h = &test["headers"];
    let ts = h["X-Service-Timestamp"].as_str().expect("timestamp");
    let nonce = h["X-Service-Nonce"].as_str().expect("nonce");
    let body = test["body"].as_str().expect("body");
    assert!(chrono::DateTime::parse_from_rfc3339(ts).is_ok());
    assert_eq!(test["signedString"], format!("{ts}.{nonce}.{body}"));
    let expected = app::domain::crypto::hmac_sha256_hex(
        secret.as_bytes(),
        format!("{ts}.{nonce}.{body}").as_bytes(),
    );
    assert_eq!(h["X-Service-Signature"], expected.as_str());
    // The body is canonical JSON of the payload: keys sorted, no whitespace.
    assert_eq!(
        body,
        app::domain::callback_delivery::setup::canonical_json(&test["payload"])
    );
    assert!(body.starts_with("{\"adSlotId\""));
}

async fn no_read_ever_returns_a_secret(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let pid = placement(&app, &t, "WEBSITE", "secrets.example.com").await;
    let feed = slot(
        &app,
        &t,
        &pid,
        json!({"name": "Feed", "type": "STATIC_API"}),
    )
    .await;
    let sid = feed["adSlotId"].as_str().expect("id");
    let (s, cb) = app
        .put(
            &format!("/publisher/v2/placements/{pid}/callback"),
            Some(&t),
            &json!({"url": "https://hooks.example.org/cb"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{cb}");
    let (s, next) = app
        .post(
            &format!("/publisher/v2/placements/{pid}/callback/rotate"),
            Some(&t),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{next}");
    let expires = (tests::start_time() + chrono::Duration::days(10)).to_rfc3339();
    let (s, sk) = app
        .post(
            &format!("/publisher/v2/placements/{pid}/ad-slots/{sid}/static-key"),
            Some(&t),
            &json!({"expiresAt": expires, "reason": "feed"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{sk}");
    let (s, ak) = app
        .post(
            &format!("/publisher/v2/placements/{pid}/app-key"),
            Some(&t),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{ak}");
    let secrets = [
        cb["secret"].as_str(),
        next["secret"].as_str(),
        sk["token"].as_str(),
        ak["appKey"].as_str(),
    ];
    assert!(secrets.iter().all(Option::is_some));
    let reads = [
        app.get(&format!("/publisher/v2/placements/{pid}"), Some(&t))
            .await,
        app.get("/publisher/v2/placements", Some(&t)).await,
        app.get(
            &format!("/publisher/v2/placements/{pid}/callback"),
            Some(&t),
        )
        .await,
        app.get(
            &format!("/publisher/v2/placements/{pid}/ad-slots/{sid}"),
            Some(&t),
        )
        .await,
        app.get(
            &format!("/publisher/v2/placements/{pid}/ad-slots/{sid}/snippets"),
            Some(&t),
        )
        .await,
        app.post(
            &format!("/publisher/v2/placements/{pid}/callback/test"),
            Some(&t),
            &json!({}),
        )
        .await,
    ];
    for (status, r) in reads {
        assert_eq!(status, StatusCode::OK, "{r}");
        assert!(r.as_object().is_some_and(|o| !o.is_empty()), "{r}");
        let text = r.to_string();
        for s in secrets.iter().flatten() {
            assert!(!text.contains(s), "a read returned a secret: {text}");
        }
        assert!(!text.contains("secret\":"), "{text}");
    }
    let _ = error_code;
}
