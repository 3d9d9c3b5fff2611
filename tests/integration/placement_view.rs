//! A placement's own view says what its checks do (issue 27): `privacySettings` lists the
//! consent values session creation takes, `capabilities` what survey fetch and sessions serve.

use app::model::account::Role;
use reqwest::StatusCode;
use serde_json::json;
use tests::{TestApp, both_backends};

both_backends!(the_view_says_what_the_checks_do);

/// `privacySettings` and `capabilities` list exactly what session creation and survey fetch
/// accept (issue 27).
async fn the_view_says_what_the_checks_do(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, t) = app.signed_in(Role::Publisher).await;
    let domain = "consent.example";
    let (s, p) = app
        .post(
            "/publisher/v2/placements",
            Some(&t),
            &json!({"type": "WEBSITE", "name": "Consent first", "platformIdentity": domain, "requireConsent": true}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{p}");
    assert_eq!(
        p["privacySettings"]["consentValuesAccepted"],
        json!(["GRANTED"]),
        "{p}"
    );
    // Outside production survey fetch serves a placement before review; sessions do not.
    assert_eq!(p["capabilities"]["surveyFetch"], true, "{p}");
    assert_eq!(p["capabilities"]["sdkSessions"], false, "{p}");
    let id = p["placementId"].as_str().unwrap_or_default().to_owned();
    app.verify_placement(&t, &admin, &id, false).await;

    let session = |consent: &str| {
        json!({"placementId": id, "externalUserId": "u-1", "platform": "web", "sdkVersion": "2.1.0",
            "packageBundleOrDomain": domain, "environment": "development", "consent": consent})
    };
    for refused in ["NOT_REQUIRED", "UNKNOWN", "DENIED"] {
        let (s, e) = app.post("/sdk/v2/sessions", None, &session(refused)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{refused}: {e}");
        assert!(e["error"]["fieldErrors"]["consent"].is_string(), "{e}");
    }
    let (s, b) = app
        .post("/sdk/v2/sessions", None, &session("GRANTED"))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");

    // Without the requirement every value is listed, and every value is taken.
    let (s, p) = app
        .patch(
            &format!("/publisher/v2/placements/{id}"),
            Some(&t),
            &json!({"requireConsent": false}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{p}");
    let listed = p["privacySettings"]["consentValuesAccepted"].clone();
    assert_eq!(
        listed,
        json!(["GRANTED", "DENIED", "UNKNOWN", "NOT_REQUIRED"]),
        "{p}"
    );
    for consent in ["NOT_REQUIRED", "DENIED"] {
        let (s, b) = app.post("/sdk/v2/sessions", None, &session(consent)).await;
        assert_eq!(s, StatusCode::CREATED, "{consent}: {b}");
    }
}

both_backends!(the_home_page_shows_ten_placements_as_rows);

/// The publisher home lists the ten most recent placements and links to the placements
/// page for the rest; the lists carry only what they show (issue 56: 50 full placements
/// made the home 123 KB, half of it the data serialised for hydration).
async fn the_home_page_shows_ten_placements_as_rows(app: TestApp) {
    let user = app.create_user(Role::Publisher).await;
    let t = app.token(&user).await;
    for i in 0..12 {
        let body = json!({"type": "WEBSITE", "name": format!("Row site {i:02}"), "platformIdentity": format!("row{i}.example")});
        let (s, p) = app.post("/publisher/v2/placements", Some(&t), &body).await;
        assert_eq!(s, StatusCode::CREATED, "{p}");
    }
    let client = tests::browser();
    app.browser_sign_in(&client, &user).await;
    let page = |path: &'static str| {
        let (client, url) = (client.clone(), app.url(path));
        async move {
            let res = client.get(url).send().await.expect("page");
            assert_eq!(res.status(), StatusCode::OK, "{path}");
            res.text().await.unwrap_or_default()
        }
    };
    let rows = |html: &str| {
        html.matches("<td><a href=\"/publisher/placements/plc_")
            .count()
    };

    let home = page("/publisher").await;
    assert_eq!(rows(&home), 10, "the home shows the ten most recent");
    assert!(
        home.contains("Row site 11") && !home.contains("Row site 01"),
        "most recent first"
    );
    assert!(
        home.contains("href=\"/publisher/placements?q=&amp;status=\""),
        "a link to the rest"
    );
    assert!(home.contains("All placements →"));
    // The rows serialised for hydration hold the shown fields only.
    for hidden in [
        "privacySettings",
        "consentValuesAccepted",
        "minimumSdkVersion",
    ] {
        assert!(!home.contains(hidden), "{hidden} is not sent with the list");
    }

    let all = page("/publisher/placements").await;
    assert_eq!(rows(&all), 12, "the placements page shows them all");
    assert!(!all.contains("All placements →"));
}
