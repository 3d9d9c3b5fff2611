//! The hot-path caches (sessions, bans, completions, static keys, launch links): each test
//! warms a cache through the hot path first, then commits a change and expects the very
//! next request to see it, so a cache that outlived its invalidation fails here.

use reqwest::StatusCode;
use sea_orm::EntityTrait;
use serde_json::{Value, json};
use tests::{TestApp, both_backends, error_code};

use tests::builders::{
    Conversion, Publisher, USD, keyed, live_campaign, now_ts, postback, publisher, session,
    static_key, static_slot,
};
use tests::builders::{campaign_body, launch_of};

both_backends!(
    a_revoked_session_stops_at_once,
    a_completed_offer_leaves_a_warm_list,
    a_replaced_static_key_stops_at_once,
    a_click_link_keeps_redirecting_and_is_recorded_once,
    the_offer_list_bytes_are_the_typed_answer_in_every_currency,
    a_lost_announcement_heals_within_the_time_limit,
);

async fn offers(app: &TestApp, p: &Publisher, token: &str) -> (StatusCode, Value) {
    app.get(&format!("/sdk/v2/ad-slots/{}/offers", p.slot), Some(token))
        .await
}

async fn a_revoked_session_stops_at_once(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (id, token) = session(&app, &p, "user-1").await;
    assert_eq!(offers(&app, &p, &token).await.0, StatusCode::OK);
    let (s, _) = keyed(
        &app,
        &format!("/sdk/v2/sessions/{id}/revoke"),
        &token,
        "revoke-0001",
        &json!({}),
    )
    .await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    let (s, e) = offers(&app, &p, &token).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{e}");
    assert_eq!(error_code(&e), "sdk_session_revoked");
    // Expiry is read from the clock on every request, cached or not.
    let (_, token) = session(&app, &p, "user-1").await;
    assert_eq!(offers(&app, &p, &token).await.0, StatusCode::OK);
    app.clock.advance(chrono::Duration::minutes(16));
    let (s, e) = offers(&app, &p, &token).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&e), "sdk_session_expired");
}

async fn a_completed_offer_leaves_a_warm_list(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let (game, key_id, secret) =
        live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let (_, token) = session(&app, &p, "player").await;
    let listed = |v: &Value| {
        v["items"]
            .as_array()
            .is_some_and(|i| i.iter().any(|o| o["campaignId"] == game.as_str()))
    };
    let (_, list) = offers(&app, &p, &token).await;
    assert!(listed(&list), "{list}");
    let l = launch_of(&app, &token, &game, "000001").await;
    let click = l["clickId"].as_str().expect("clickId");
    let conversion = Conversion {
        click,
        txn: "order-1",
        goal: "install",
        status: "approved",
    };
    let (s, r) = postback(&app, &game, &key_id, &secret, &conversion, now_ts(&app)).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let (s, list) = offers(&app, &p, &token).await;
    assert_eq!(s, StatusCode::OK, "{list}");
    assert!(list["items"].is_array(), "{list}");
    assert!(
        !listed(&list),
        "a completed offer is not listed again: {list}"
    );
    // Another user still sees it.
    let (_, other) = session(&app, &p, "newcomer").await;
    assert!(listed(&offers(&app, &p, &other).await.1));
}

async fn a_replaced_static_key_stops_at_once(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let slot = static_slot(&app, &p).await;
    let issue = || static_key(&app, &p, &slot);
    let pull = |key: String| {
        app.client
            .get(app.url(&format!("/publisher/v2/ad-slots/{slot}/static-offers")))
            .header("X-Service-Static-Key", key)
            .send()
    };
    let first = issue().await;
    assert_eq!(
        pull(first.clone()).await.expect("sent").status(),
        StatusCode::OK
    );
    let second = issue().await;
    assert_eq!(
        pull(first).await.expect("sent").status(),
        StatusCode::UNAUTHORIZED,
        "the replaced key is refused on the next pull"
    );
    assert_eq!(pull(second).await.expect("sent").status(), StatusCode::OK);
}

async fn a_click_link_keeps_redirecting_and_is_recorded_once(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let (game, _, _) =
        live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let (_, token) = session(&app, &p, "player").await;
    let l = launch_of(&app, &token, &game, "000001").await;
    // The link names the configured base address; the test server listens elsewhere.
    let signed = l["launchUrl"].as_str().expect("launchUrl");
    let url = app.url(&signed[signed.find("/sdk/v2/launch/").expect("launch path")..]);
    let click = l["clickId"].as_str().expect("clickId");
    let no_redirects = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    for _ in 0..3 {
        let res = no_redirects.get(&url).send().await.expect("sent");
        assert_eq!(res.status(), StatusCode::FOUND);
        let to = res.headers()["location"].to_str().expect("location");
        assert_eq!(
            to,
            format!("https://advertiser.example/install?click={click}")
        );
    }
    let launch_id = url
        .split("/sdk/v2/launch/")
        .nth(1)
        .and_then(|rest| rest.split('?').next())
        .expect("launch id");
    let row = entity::sdk_launch::Entity::find_by_id(launch_id.to_owned())
        .one(&app.state.ctx.db)
        .await
        .expect("read")
        .expect("launch row");
    assert!(row.opened_at.is_some(), "the first open is recorded");
    // A tampered link is refused even while the launch is cached.
    let bad = url.replace("signature=", "signature=00");
    let res = no_redirects.get(&bad).send().await.expect("sent");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    // The link expires after five minutes whatever the cache holds.
    app.clock.advance(chrono::Duration::minutes(6));
    let res = no_redirects.get(&url).send().await.expect("sent");
    assert_eq!(res.status(), StatusCode::GONE);
}

async fn the_offer_list_bytes_are_the_typed_answer_in_every_currency(app: TestApp) {
    use app::domain::delivery::{offer_list, sessions};
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    for _ in 0..3 {
        live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    }
    let (_, token) = session(&app, &p, "player").await;
    let typed = || async {
        let s = sessions::authenticate(&app.state.ctx, &token)
            .await
            .expect("session");
        let q = app::model::delivery::OfferListQuery {
            limit: Some(2),
            ..Default::default()
        };
        let list = offer_list::list(&app.state.ctx, &s, &p.slot, q)
            .await
            .expect("typed list");
        serde_json::to_value(list).expect("json")
    };
    let path = format!("/sdk/v2/ad-slots/{}/offers?limit=2", p.slot);
    for _ in 0..2 {
        // The first answer fills the item cache, the second copies from it.
        let (s, body) = app.get(&path, Some(&token)).await;
        assert_eq!(s, StatusCode::OK, "{body}");
        assert_eq!(body, typed().await);
        assert_eq!(body["items"].as_array().map(Vec::len), Some(2));
        assert!(body["page"]["nextCursor"].is_string(), "{body}");
    }
    // Another currency on the same snapshot gets its own items.
    let (s, slot) = app
        .patch(
            &format!("/publisher/v2/placements/{}/ad-slots/{}", p.placement, p.slot),
            Some(&p.token),
            &json!({"currency": {"name": "Gems", "decimals": 0, "rateNumeratorMinorUnits": 7, "rateDenominatorUsdMicros": 1_000_000, "rounding": "DOWN"}}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{slot}");
    let (_, body) = app.get(&path, Some(&token)).await;
    assert_eq!(body, typed().await);
    assert_eq!(body["items"][0]["currency"]["name"], "Gems", "{body}");
}

/// A blacklist committed without its announcement (a process that died between the two,
/// a notification lost on a half-open connection) is served stale only until the delivery
/// configuration's time limit (60 s by the domain clock), not for good (issue 52).
async fn a_lost_announcement_heals_within_the_time_limit(app: TestApp) {
    use sea_orm::{ActiveModelTrait, Set};
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let (game, _, _) =
        live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let (_, token) = session(&app, &p, "player").await;
    let listed = |v: &Value| {
        v["items"]
            .as_array()
            .is_some_and(|i| i.iter().any(|o| o["campaignId"] == game.as_str()))
    };
    assert!(listed(&offers(&app, &p, &token).await.1));
    // Written straight to the database: nobody announces it.
    entity::blacklist::ActiveModel {
        id: Set("bl_lost_announcement".to_owned()),
        owner_account_id: Set(p.user.account_id.clone()),
        placement_id: Set(None),
        kind: Set(entity::values::BlacklistKind::Campaign),
        value: Set(game.clone()),
        reason: Set(Some("lost".to_owned())),
        created_at: Set(app.clock_now()),
    }
    .insert(&app.state.ctx.db)
    .await
    .expect("blacklisted");
    assert!(
        listed(&offers(&app, &p, &token).await.1),
        "served from the cache until its time limit"
    );
    app.clock.advance(chrono::Duration::seconds(61));
    let (s, list) = offers(&app, &p, &token).await;
    assert_eq!(s, StatusCode::OK, "{list}");
    assert!(
        !listed(&list),
        "the time limit healed the lost announcement: {list}"
    );
}
