//! The publisher offer gallery: live inventory only, filtered by placement platform,
//! country and the publisher's blacklists.

use app::model::Role;
use reqwest::StatusCode;
use serde_json::json;
use tests::{TestApp, both_backends};

use tests::builders::campaign_ids;
use tests::builders::{approve, campaign_body, create, transition};

both_backends!(gallery_shows_live_eligible_offers);

const USD: i64 = 1_000_000;
const GALLERY: &str = "/publisher/v2/offer-gallery";

async fn live(app: &TestApp, t: &str, admin: &str, body: serde_json::Value) -> String {
    let id = create(app, t, &body).await;
    assert_eq!(transition(app, t, &id, "IN_REVIEW").await.0, StatusCode::OK);
    let (s, c) = approve(app, admin, &id).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    id
}

async fn gallery_shows_live_eligible_offers(app: TestApp) {
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let admin = app.admin_token().await;
    let (_, publisher) = app.signed_in(Role::Publisher).await;

    let game = live(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let mut finance = campaign_body("CUSTOM_S2S", 100 * USD);
    finance["category"] = json!("FINANCE");
    finance["platforms"] = json!(["android"]);
    finance["countries"] = json!(["DE"]);
    finance["goals"][0]["payoutMicros"] = json!(4_000_000);
    let finance = live(&app, &adv, &admin, finance).await;
    let draft = create(&app, &adv, &campaign_body("CUSTOM_S2S", 100 * USD)).await;

    let (s, g) = app.get(GALLERY, Some(&publisher)).await;
    assert_eq!(s, StatusCode::OK, "{g}");
    let ids = campaign_ids(&g);
    assert_eq!(
        ids,
        vec![finance.as_str(), game.as_str()],
        "live only, highest payout first"
    );
    assert!(!ids.contains(&draft.as_str()));
    assert_eq!(g["items"][0]["goals"][0]["payout"], "4.000000");

    // A web placement sees web offers; a country filter narrows further.
    let placement = app.website_placement(&publisher, "games.example.com").await;
    let pid = placement["placementId"].as_str().expect("id");
    let (_, g) = app
        .get(&format!("{GALLERY}?placementId={pid}"), Some(&publisher))
        .await;
    assert_eq!(g["count"], 1);
    assert_eq!(g["items"][0]["campaignId"], game.as_str());
    let (_, g) = app
        .get(
            &format!("{GALLERY}?platform=android&country=us"),
            Some(&publisher),
        )
        .await;
    assert_eq!(g["count"], 1, "{g}");
    assert_eq!(
        app.get(&format!("{GALLERY}?country=USA"), Some(&publisher))
            .await
            .0,
        StatusCode::BAD_REQUEST
    );

    // Blacklists filter the gallery exactly as delivery.
    let (s, b) = app
        .post(
            "/publisher/v2/blacklists",
            Some(&publisher),
            &json!({"kind": "CATEGORY", "value": "FINANCE"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    let (_, g) = app.get(GALLERY, Some(&publisher)).await;
    assert_eq!(g["count"], 1);
    assert_eq!(g["items"][0]["campaignId"], game.as_str());

    // Paused campaigns leave the inventory; other publishers' placements are not found.
    assert_eq!(
        transition(&app, &adv, &game, "PAUSED").await.0,
        StatusCode::OK
    );
    assert_eq!(app.get(GALLERY, Some(&publisher)).await.1["count"], 0);
    let (_, other) = app.signed_in(Role::Publisher).await;
    assert_eq!(
        app.get(&format!("{GALLERY}?placementId={pid}"), Some(&other))
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(app.get(GALLERY, Some(&adv)).await.0, StatusCode::FORBIDDEN);
}
