//! Offer campaign tracking: provider capabilities, Custom S2S keys and the local test,
//! measurement-partner tokens with live-test verification, the allowlist, the web pixel and
//! development creatives.

use app::model::Role;
use reqwest::StatusCode;
use serde_json::json;
use tests::{TestApp, both_backends, error_code};

use tests::builders::{CAMPAIGNS, approve, campaign_body, create, transition};

both_backends!(
    provider_capabilities,
    custom_s2s_keys_and_local_test,
    mmp_campaigns_need_token_and_verification,
    allowlist_pixel_and_creatives,
);

const USD: i64 = 1_000_000;

async fn provider_capabilities(app: TestApp) {
    let (_, t) = app.signed_in(Role::Advertiser).await;
    let (s, caps) = app
        .get("/performance-marketing/v2/providers/capabilities", Some(&t))
        .await;
    assert_eq!(s, StatusCode::OK, "{caps}");
    assert!(caps["contractVersion"].is_string());
    let items = caps["items"].as_array().expect("items");
    let selectable_mmps = items
        .iter()
        .filter(|i| i["kind"] == "MMP" && i["selectable"] == true)
        .count();
    assert_eq!(selectable_mmps, 6);
    for code in ["CUSTOM_S2S", "DIRECT", "MANAGED", "APPSFLYER"] {
        let item = items.iter().find(|i| i["code"] == code).expect(code);
        assert_eq!(item["selectable"], true, "{item}");
        assert!(
            item["requiredMacros"]
                .as_array()
                .expect("macros")
                .contains(&json!("{click_id}"))
        );
        assert!(item["callbackAuthentication"].is_string() && item["credentialFields"].is_array());
    }
    let tenjin = items
        .iter()
        .find(|i| i["code"] == "TENJIN")
        .expect("tenjin");
    assert_eq!(
        (
            tenjin["certified"].as_bool(),
            tenjin["selectable"].as_bool()
        ),
        (Some(false), Some(false))
    );
    assert_eq!(
        app.get("/performance-marketing/v2/providers/capabilities", None)
            .await
            .0,
        StatusCode::UNAUTHORIZED
    );
}

async fn custom_s2s_keys_and_local_test(app: TestApp) {
    let app = &app;
    let k = a_custom_s2s_key_is_issued_once(app).await;
    let body = the_local_test_signs_only_its_own_sample(app, &k).await;
    rotation_retires_the_old_key(app, &k, &body).await;
}

/// An advertiser's Custom S2S campaign and its signing key (shown once).
struct S2sKey {
    t: String,
    base: String,
    secret: String,
    key_id: String,
}

/// The key is issued once (a second create is refused) and the tracking summary never
/// carries the secret.
async fn a_custom_s2s_key_is_issued_once(app: &TestApp) -> S2sKey {
    let (_, t) = app.funded_advertiser(0).await;
    let id = create(app, &t, &campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let base = format!("{CAMPAIGNS}/{id}/tracking");
    let (s, e) = app
        .post(&format!("{base}/custom-s2s/test"), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&e), "credential_missing");

    let (s, key) = app
        .post(
            &format!("{base}/custom-s2s/credentials"),
            Some(&t),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{key}");
    let secret = key["secret"].as_str().expect("secret").to_owned();
    let key_id = key["keyId"].as_str().expect("keyId").to_owned();
    assert!(
        key["postbackUrl"]
            .as_str()
            .expect("url")
            .ends_with(&format!("/postbacks/custom-s2s/{id}"))
    );
    let (s, e) = app
        .post(
            &format!("{base}/custom-s2s/credentials"),
            Some(&t),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&e), "credential_exists");

    // The tracking summary never carries the secret.
    let (s, setup) = app.get(&base, Some(&t)).await;
    assert_eq!(s, StatusCode::OK, "{setup}");
    assert!(!setup.to_string().contains(&secret));
    assert_eq!(setup["callbackAuthentication"], "HMAC_SHA256");
    assert_eq!(setup["credentials"][0]["keyId"], key_id.as_str());
    assert_eq!(
        setup["requiredParameters"],
        json!([
            "click_id",
            "transaction_id",
            "goal_id",
            "status",
            "occurred_at"
        ])
    );
    assert!(
        !app.get(&format!("{CAMPAIGNS}/{id}"), Some(&t))
            .await
            .1
            .to_string()
            .contains(&secret)
    );
    S2sKey {
        t,
        base,
        secret,
        key_id,
    }
}

/// The route never signs values the caller chose (no signing oracle); the local test signs
/// its own sample with the active key, and checks the advertiser's own signature, goal and
/// skew. Nothing is delivered or accounted. Returns the advertiser's signed sample body.
async fn the_local_test_signs_only_its_own_sample(app: &TestApp, k: &S2sKey) -> serde_json::Value {
    let (t, base, secret, key_id) = (k.t.as_str(), &k.base, &k.secret, &k.key_id);
    // The route never signs values the caller chose (no signing oracle): they need the
    // caller's own signature.
    let (s, r) = app
        .post(
            &format!("{base}/custom-s2s/test"),
            Some(t),
            &json!({"click_id": "clk_1", "transaction_id": "order-9"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["valid"], false, "{r}");
    assert_eq!(r["request"]["headers"]["X-Service-Signature"], "", "{r}");

    // The local test signs its own sample with the active key; nothing is delivered or accounted.
    let (s, r) = app
        .post(&format!("{base}/custom-s2s/test"), Some(t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(
        (
            r["valid"].as_bool(),
            r["deliveredExternally"].as_bool(),
            r["accountingWrites"].as_i64()
        ),
        (Some(true), Some(false), Some(0))
    );
    let headers = &r["request"]["headers"];
    let ts = headers["X-Service-Timestamp"].as_str().expect("ts");
    assert_eq!(ts, app.state.ctx.now().timestamp().to_string());
    let message = format!(
        "{ts}\nclk_sample\ntxn_sample_1\ninstall\napproved\n{}",
        r["request"]["body"]["occurred_at"].as_str().expect("at")
    );
    assert_eq!(r["signedMessage"], message.as_str());
    let expected = app::domain::crypto::hmac_sha256_hex(secret.as_bytes(), message.as_bytes());
    assert_eq!(headers["X-Service-Signature"], expected.as_str());
    assert_eq!(headers["X-Service-Key-Id"], key_id.as_str());

    // The advertiser's own signature is checked, as are goal and skew.
    let body = json!({"click_id": "clk_sample", "transaction_id": "txn_sample_1", "goal_id": "install", "status": "approved",
        "occurred_at": r["request"]["body"]["occurred_at"], "timestamp": ts, "signature": expected});
    assert_eq!(
        app.post(&format!("{base}/custom-s2s/test"), Some(t), &body)
            .await
            .1["valid"],
        true
    );
    let mut bad = body.clone();
    bad["signature"] = json!("00".repeat(32));
    let (_, r) = app
        .post(&format!("{base}/custom-s2s/test"), Some(t), &bad)
        .await;
    assert_eq!(r["valid"], false);
    assert!(
        r["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .any(|c| c["name"] == "signature" && c["ok"] == false)
    );
    let mut stale = body.clone();
    stale["timestamp"] = json!((app.state.ctx.now().timestamp() - 301).to_string());
    stale["goal_id"] = json!("level_99");
    let (_, r) = app
        .post(&format!("{base}/custom-s2s/test"), Some(t), &stale)
        .await;
    let failed: Vec<&str> = r["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter(|c| c["ok"] == false)
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(
        failed.contains(&"timestamp") && failed.contains(&"goal_id"),
        "{r}"
    );
    body
}

/// Rotation replaces the key and retires the old one; token routes belong to their
/// providers; another advertiser sees nothing.
async fn rotation_retires_the_old_key(app: &TestApp, k: &S2sKey, body: &serde_json::Value) {
    let (t, base, secret) = (k.t.as_str(), &k.base, &k.secret);
    // Rotation replaces the key: the old one is retired.
    let (s, rotated) = app
        .post(&format!("{base}/custom-s2s/rotate"), Some(t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{rotated}");
    assert_ne!(rotated["secret"].as_str(), Some(secret.as_str()));
    let (_, setup) = app.get(&base, Some(t)).await;
    let creds = setup["credentials"].as_array().expect("credentials");
    assert_eq!(creds.len(), 2);
    assert_eq!(
        (creds[0]["status"].as_str(), creds[1]["status"].as_str()),
        (Some("ACTIVE"), Some("RETIRED"))
    );
    let (_, r) = app
        .post(&format!("{base}/custom-s2s/test"), Some(t), body)
        .await;
    assert_eq!(r["valid"], false, "the old secret no longer signs");

    // Token routes belong to their providers.
    let (s, e) = app
        .post(&format!("{base}/mmp/credentials"), Some(t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&e), "tracking_provider_mismatch");
    let (_, other) = app.funded_advertiser(0).await;
    assert_eq!(
        app.post(
            &format!("{base}/custom-s2s/rotate"),
            Some(&other),
            &json!({})
        )
        .await
        .0,
        StatusCode::NOT_FOUND
    );
}

async fn mmp_campaigns_need_token_and_verification(app: TestApp) {
    let (_, t) = app.funded_advertiser(1_000 * USD).await;
    let admin = app.admin_token().await;
    let id = create(&app, &t, &campaign_body("mmp:appsflyer", 100 * USD)).await;
    let base = format!("{CAMPAIGNS}/{id}/tracking");
    assert_eq!(
        transition(&app, &t, &id, "IN_REVIEW").await.0,
        StatusCode::OK
    );
    let (s, e) = approve(&app, &admin, &id).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&e), "mmp_credential_missing");

    let (s, tok) = app
        .post(&format!("{base}/mmp/credentials"), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{tok}");
    let token = tok["token"].as_str().expect("token").to_owned();
    assert!(
        tok["postbackUrl"]
            .as_str()
            .expect("url")
            .ends_with(&format!("/postbacks/mmp/{id}/appsflyer"))
    );
    let (s, again) = app
        .post(&format!("{base}/mmp/credentials"), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        (again["created"].as_bool(), again.get("token").is_none()),
        (Some(false), true),
        "{again}"
    );
    assert_eq!(again["keyId"], tok["keyId"]);

    let (s, e) = approve(&app, &admin, &id).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&e), "mmp_verification_required");
    let verify = format!("/admin/v1/offer-campaigns/{id}/mmp-verification");
    assert_eq!(
        app.post(&verify, Some(&t), &json!({})).await.0,
        StatusCode::FORBIDDEN
    );
    let (s, c) = app
        .post(
            &verify,
            Some(&admin),
            &json!({"note": "test install attributed"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");

    // Rotation while IN_REVIEW clears the verification.
    let (s, rotated) = app
        .post(&format!("{base}/mmp/rotate"), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{rotated}");
    assert_ne!(rotated["token"].as_str(), Some(token.as_str()));
    let (s, setup) = app.get(&base, Some(&t)).await;
    assert_eq!(s, StatusCode::OK, "{setup}");
    assert!(setup["mmpVerification"].is_null(), "{setup}");
    assert!(
        !setup
            .to_string()
            .contains(rotated["token"].as_str().expect("token"))
    );
    assert_eq!(
        error_code(&approve(&app, &admin, &id).await.1),
        "mmp_verification_required"
    );

    assert_eq!(
        app.post(&verify, Some(&admin), &json!({})).await.0,
        StatusCode::OK
    );
    let (s, setup) = app.get(&base, Some(&t)).await;
    assert_eq!(s, StatusCode::OK, "{setup}");
    assert_eq!(setup["mmpVerification"]["current"], true);
    let (s, c) = approve(&app, &admin, &id).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(c["status"], "LIVE");
    assert_eq!(app.balance(&t).await, (900 * USD, 100 * USD, 0));

    // Outside DRAFT and IN_REVIEW the token cannot rotate.
    let (s, e) = app
        .post(&format!("{base}/mmp/rotate"), Some(&t), &json!({}))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&e), "rotation_not_allowed");

    // A new revision needs a new live test before it can be promoted.
    app.patch(
        &format!("{CAMPAIGNS}/{id}"),
        Some(&t),
        &json!({"name": "Level 20"}),
    )
    .await;
    assert_eq!(
        error_code(&approve(&app, &admin, &id).await.1),
        "mmp_verification_required"
    );

    // With the manual measurement-partner feature off, partners are not selectable.
    let off = TestApp::spawn_with(app.backend, &["--feature-mmp-manual", "false"]).await;
    let (_, t2) = off.funded_advertiser(0).await;
    let (s, e) = off
        .post(CAMPAIGNS, Some(&t2), &campaign_body("MMP:ADJUST", 10 * USD))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert!(e["error"]["fieldErrors"]["trackingProvider"].is_string());
}

async fn allowlist_pixel_and_creatives(app: TestApp) {
    let app = &app;
    let (_, t) = app.funded_advertiser(0).await;
    let id = create(app, &t, &campaign_body("CUSTOM_S2S", 100 * USD)).await;
    the_allowlist_and_the_web_pixel(app, &t, &id).await;
    development_creatives_match_their_type(app, &t, &id).await;
    production_takes_no_uploads(app).await;
}

/// The IP allowlist is checked; the web pixel is documented per campaign and is a
/// conversion route (a draft campaign takes no conversions).
async fn the_allowlist_and_the_web_pixel(app: &TestApp, t: &str, id: &str) {
    let base = format!("{CAMPAIGNS}/{id}/tracking");

    let (s, l) = app
        .put(
            &format!("{base}/ip-allowlist"),
            Some(t),
            &json!({"entries": ["203.0.113.7", "198.51.100.0/24", "2001:db8::/32"]}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{l}");
    assert_eq!(l["entries"][0], "203.0.113.7/32");
    let (s, e) = app
        .put(
            &format!("{base}/ip-allowlist"),
            Some(t),
            &json!({"entries": ["not-an-ip"]}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(e["error"]["fieldErrors"]["entries[0]"].is_string());
    assert_eq!(
        app.get(&base, Some(t)).await.1["ipAllowlist"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );

    // Web pixel: documented per campaign; a Custom S2S campaign reports signed, so it
    // takes no pixel (tests/integration/web_pixel.rs).
    let (s, px) = app.get(&format!("{base}/web-pixels"), Some(t)).await;
    assert_eq!(s, StatusCode::OK, "{px}");
    assert_eq!(px["supported"], false);
    assert_eq!(px["enabled"], false);
    assert!(
        px["pixelUrl"]
            .as_str()
            .expect("url")
            .contains(&format!("/pixels/web/{id}.gif"))
    );
    // The pixel is a conversion route (tests/integration/web_pixel.rs): a draft campaign
    // takes no conversions.
    let res = app
        .client
        .get(app.url(&format!(
            "/performance-marketing/v2/pixels/web/{id}.gif?click_id=c1"
        )))
        .send()
        .await
        .expect("pixel");
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let res = app
        .client
        .get(app.url("/performance-marketing/v2/pixels/web/cmp_missing.gif"))
        .send()
        .await
        .expect("pixel");
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

/// Development creatives: the bytes must match the declared type.
/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

async fn development_creatives_match_their_type(app: &TestApp, t: &str, id: &str) {
    // Development creatives: the bytes must match the declared type.
    let (_, cap) = app
        .get("/performance-marketing/v2/upload-capability", Some(t))
        .await;
    assert_eq!(
        (cap["enabled"].as_bool(), cap["developmentOnly"].as_bool()),
        (Some(true), Some(true))
    );
    let assets = format!("/performance-marketing/v2/assets/{id}/creatives");
    let (s, c) = app
        .post(
            &assets,
            Some(t),
            &json!({"name": "icon", "contentType": "image/png", "dataBase64": PNG}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{c}");
    let creative = c["creativeId"].as_str().expect("id").to_owned();
    let (s, e) = app
        .post(
            &assets,
            Some(t),
            &json!({"name": "icon", "contentType": "image/jpeg", "dataBase64": PNG}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert_eq!(
        app.get(&assets, Some(t)).await.1["items"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    let res = app
        .client
        .get(app.url(&format!("{assets}/{creative}/content")))
        .bearer_auth(&t)
        .send()
        .await
        .expect("content");
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "image/png");
    let (_, v) = app
        .post(
            "/performance-marketing/v2/campaigns/validate-asset",
            Some(t),
            &json!({"creativeId": creative}),
        )
        .await;
    assert_eq!(v["valid"], true, "{v}");
    let (_, v) = app
        .post(
            "/performance-marketing/v2/campaigns/validate-asset",
            Some(t),
            &json!({"url": "http://cdn.example/icon.png"}),
        )
        .await;
    assert_eq!(v["valid"], false);
    let (s, c) = app
        .patch(
            &format!("{CAMPAIGNS}/{id}"),
            Some(t),
            &json!({"creatives": [{"kind": "ICON", "creativeId": creative}]}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    let (s, _) = app
        .patch(
            &format!("{CAMPAIGNS}/{id}"),
            Some(t),
            &json!({"creatives": [{"kind": "ICON", "creativeId": "crt_nope"}]}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
}

/// Production has no uploads.
async fn production_takes_no_uploads(app: &TestApp) {
    // Production has no uploads.
    let prod = TestApp::spawn_with(
        app.backend,
        &[
            "--environment",
            "production",
            "--base-url",
            "https://ads.example",
            "--mail-url",
            "off",
        ],
    )
    .await;
    let (_, pt) = prod.funded_advertiser(0).await;
    let pid = create(&prod, &pt, &campaign_body("CUSTOM_S2S", 10 * USD)).await;
    let (s, e) = prod
        .post(
            &format!("/performance-marketing/v2/assets/{pid}/creatives"),
            Some(&pt),
            &json!({"name": "icon", "contentType": "image/png", "dataBase64": PNG}),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{e}");
    assert_eq!(
        prod.get("/performance-marketing/v2/upload-capability", Some(&pt))
            .await
            .1["enabled"],
        false
    );
}
