//! Device and region targeting: campaigns name device types, a lowest OS version per
//! platform and regions within their countries; the SDK offer list validates its device
//! parameters (400 with `fieldErrors`) and filters by the ones it is sent, while a value it
//! is not sent never hides an offer.

use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::{TestApp, both_backends};

use tests::builders::{CAMPAIGNS, campaign_body};
use tests::builders::{USD, live_campaign};

both_backends!(
    campaign_targeting_is_validated,
    offer_list_applies_and_checks_device_parameters,
);

const PACKAGE: &str = "com.pixel.quest";

fn targeted(name: &str, targeting: Value) -> Value {
    let mut body = campaign_body("CUSTOM_S2S", 100 * USD);
    body["name"] = json!(name);
    body["targeting"] = targeting;
    body
}

async fn campaign_targeting_is_validated(app: TestApp) {
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let mut bad = targeted(
        "Bad targeting",
        json!({"deviceTypes": ["phone", "fridge"], "minOsVersion": {"android": "ten", "ios": "16"},
               "regions": ["FR-IDF"]}),
    );
    bad["platforms"] = json!(["android", "web"]);
    let (s, e) = app.post(CAMPAIGNS, Some(&adv), &bad).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let fields = &e["error"]["fieldErrors"];
    for f in [
        "targeting.deviceTypes",
        "targeting.minOsVersion.android",
        "targeting.minOsVersion.ios",
        "targeting.regions",
    ] {
        assert!(fields[f].is_string(), "{f}: {e}");
    }
    let good = targeted(
        "Good targeting",
        json!({"deviceTypes": ["Tablet", "phone"], "minOsVersion": {"ios": "16.4"}, "regions": ["us-ca", "US-CA"]}),
    );
    let (s, c) = app.post(CAMPAIGNS, Some(&adv), &good).await;
    assert_eq!(s, StatusCode::CREATED, "{c}");
    assert_eq!(
        c["targeting"],
        json!({"deviceTypes": ["phone", "tablet"], "minOsVersion": {"ios": "16.4"}, "regions": ["US-CA"]})
    );
    // A PATCH that drops the country a region belongs to names the region.
    let id = c["campaignId"].as_str().expect("id");
    let (s, e) = app
        .patch(
            &format!("{CAMPAIGNS}/{id}"),
            Some(&adv),
            &json!({"countries": ["DE"]}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert!(
        e["error"]["fieldErrors"]["targeting.regions"].is_string(),
        "{e}"
    );
}

/// A released Android app with one ready offerwall slot and a session token for `user`.
async fn android_session(app: &TestApp, admin: &str, user: &str) -> (String, String) {
    let (_, publisher) = app.signed_in(app::model::Role::Publisher).await;
    let (s, p) = app
        .post(
            "/publisher/v2/placements",
            Some(&publisher),
            &json!({"type": "ANDROID_APP", "name": "Quest", "platformIdentity": PACKAGE,
                    "storeUrl": "https://play.google.com/store/apps/details?id=com.pixel.quest"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{p}");
    let placement = p["placementId"].as_str().expect("id").to_owned();
    app.verify_placement(&publisher, admin, &placement, true)
        .await;
    let (s, slot) = app
        .post(
            &format!("/publisher/v2/placements/{placement}/ad-slots"),
            Some(&publisher),
            &json!({"name": "Wall", "type": "OFFERWALL", "currency": {"name": "Coins", "decimals": 0,
                    "rateNumeratorMinorUnits": 100, "rateDenominatorUsdMicros": 1_000_000, "rounding": "DOWN"}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{slot}");
    let slot = slot["adSlotId"].as_str().expect("slot").to_owned();
    let (s, b) = app
        .post(
            "/sdk/v2/sessions",
            None,
            &json!({"placementId": placement, "adSlotId": slot, "externalUserId": user, "platform": "android",
                    "sdkVersion": "2.1.0", "packageBundleOrDomain": PACKAGE, "environment": "production",
                    "consent": "GRANTED"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    (slot, b["token"].as_str().expect("token").to_owned())
}

async fn offer_list_applies_and_checks_device_parameters(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let (open, ..) = live_campaign(&app, &adv, &admin, targeted("Open to all", json!({}))).await;
    let (tablets, ..) = live_campaign(
        &app,
        &adv,
        &admin,
        targeted(
            "Tablets in California",
            json!({"deviceTypes": ["tablet"], "regions": ["US-CA"]}),
        ),
    )
    .await;
    let (modern, ..) = live_campaign(
        &app,
        &adv,
        &admin,
        targeted(
            "Android 12 and later",
            json!({"minOsVersion": {"android": "12"}}),
        ),
    )
    .await;
    let (slot, token) = android_session(&app, &admin, "player-1").await;
    let list = |query: &'static str| {
        let (app, slot, token) = (&app, slot.clone(), token.clone());
        async move {
            app.get(
                &format!("/sdk/v2/ad-slots/{slot}/offers?limit=100&{query}"),
                Some(&token),
            )
            .await
        }
    };
    let ids = |b: &Value| -> Vec<String> {
        let mut v: Vec<String> = b["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|i| i["campaignId"].as_str().unwrap_or_default().to_owned())
            .collect();
        v.sort();
        v
    };
    let sorted = |mut v: Vec<&String>| {
        v.sort();
        v.into_iter().cloned().collect::<Vec<String>>()
    };
    let all = sorted(vec![&open, &tablets, &modern]);
    // Accepted, and applied where a campaign targets them.
    let cases: [(&str, Vec<String>); 10] = [
        ("", all.clone()),
        ("deviceType=phone", sorted(vec![&open, &modern])),
        ("deviceType=tablet", all.clone()),
        ("country=US&stateCode=CA", all.clone()),
        ("country=US&stateCode=US-NY", sorted(vec![&open, &modern])),
        ("country=DE&stateCode=BY", all.clone()),
        ("osVersion=11", sorted(vec![&open, &tablets])),
        ("osVersion=12.0.1", all.clone()),
        ("deviceManufacturer=Samsung%20Electronics", all.clone()),
        ("browser=chrome&browserVersion=120.0.6099", all.clone()),
    ];
    for (query, want) in cases {
        let (s, b) = list(query).await;
        assert_eq!(s, StatusCode::OK, "{query}: {b}");
        assert_eq!(ids(&b), want, "{query}");
    }
    // Refused, naming the parameter.
    let refusals = [
        ("stateCode=CA", "stateCode"),
        ("country=DE&stateCode=US-CA", "stateCode"),
        ("country=US&stateCode=C%40", "stateCode"),
        ("deviceType=fridge", "deviceType"),
        ("deviceType=desktop", "deviceType"),
        ("deviceManufacturer=%3Cscript%3E", "deviceManufacturer"),
        ("osVersion=twelve", "osVersion"),
        ("osVersion=1.2.3.4.5", "osVersion"),
        ("browser=netscape", "browser"),
        ("browserVersion=120", "browserVersion"),
        ("browser=chrome&browserVersion=latest", "browserVersion"),
    ];
    for (query, field) in refusals {
        let (s, e) = list(query).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{query}: {e}");
        assert!(e["error"]["fieldErrors"][field].is_string(), "{query}: {e}");
    }
}
