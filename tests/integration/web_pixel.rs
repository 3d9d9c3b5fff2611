//! The web pixel (issue 51): the hole an outsider found (an unsigned pixel paid any click
//! whose id the SDK handed out) is closed. A pixel moves no money on a Custom S2S campaign,
//! without a followed launch link, without a page, from a foreign page or too soon after the
//! click; an accepted one is held for the campaign's review window and then paid once.

use reqwest::StatusCode;
use serde_json::json;
use tests::builders::callbacks::click;
use tests::builders::fraud::{
    PIXEL_ORIGIN, THANKS, behind_proxy, click_from, conversion_of, follow, pixel, pixel_campaign,
    signals,
};
use tests::builders::{CAMPAIGNS, USD, campaign_body, live_campaign, publisher};
use tests::{Backend, TestApp, error_code};

tests::each_backend!(
    an_unsigned_pixel_on_a_custom_s2s_campaign_moves_no_money,
    a_pixel_needs_a_followed_launch_and_a_page,
    a_pixel_conversion_is_held_for_review_then_paid_once,
    a_pixel_conversion_can_be_rejected_during_review,
);

/// The outsider's request: an SDK click id, no page, on a Custom S2S web campaign.
async fn an_unsigned_pixel_on_a_custom_s2s_campaign_moves_no_money(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let (campaign, _, _) =
        live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let (_, clk) = click(&app, &p, "farmer", &campaign).await;
    for page in [None, Some(THANKS)] {
        let (s, e) = pixel(&app, &campaign, &clk, "anything", page).await;
        assert_eq!(s, StatusCode::FORBIDDEN, "{e}");
        assert_eq!(error_code(&e), "pixel_not_enabled");
    }
    assert_eq!(app.balance(&adv).await.2, 0, "nothing spent");
    // The advertiser chose signed reporting: the pixel cannot be turned on.
    let (s, e) = app
        .put(
            &format!("{CAMPAIGNS}/{campaign}/tracking/web-pixel"),
            Some(&adv),
            &json!({"enabled": true, "allowedOrigins": [PIXEL_ORIGIN]}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert_eq!(error_code(&e), "pixel_not_supported");
    let (_, px) = app
        .get(
            &format!("{CAMPAIGNS}/{campaign}/tracking/web-pixels"),
            Some(&adv),
        )
        .await;
    assert_eq!(px["supported"], false, "{px}");
    assert_eq!(px["trustLevel"], "BROWSER");
}

async fn a_pixel_needs_a_followed_launch_and_a_page(backend: Backend) {
    let app = behind_proxy(backend, &[]).await;
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let campaign = pixel_campaign(&app, &adv, &admin).await;
    let c = click_from(&app, &p, "u1", &campaign, "81.2.69.10").await;
    // The SDK's click id alone, with the right page: refused.
    let (s, e) = pixel(&app, &campaign, &c.click_id, "tx-1", Some(THANKS)).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{e}");
    assert_eq!(error_code(&e), "pixel_click_unverified");
    // The page's click id without the link having been followed: refused.
    let forged =
        app::domain::campaigns::tracking::pixel::pixel_click_id(&app.state.ctx.keys, &c.click_id);
    let (s, e) = pixel(&app, &campaign, &forged, "tx-1", Some(THANKS)).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{e}");
    assert_eq!(error_code(&e), "pixel_click_unverified");
    let page_click = follow(&app, &c, "81.2.69.10").await;
    assert_eq!(
        page_click, forged,
        "the link hands the page the pixel click id"
    );
    assert_ne!(
        page_click, c.click_id,
        "which the SDK's answer never carries"
    );
    // No page, a foreign page, too soon: refused.
    let (s, e) = pixel(&app, &campaign, &page_click, "tx-1", None).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::FORBIDDEN, "pixel_page_required")
    );
    let (s, e) = pixel(
        &app,
        &campaign,
        &page_click,
        "tx-1",
        Some("https://evil.example/"),
    )
    .await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::FORBIDDEN, "pixel_origin_mismatch")
    );
    let (s, e) = pixel(&app, &campaign, &page_click, "tx-1", Some(THANKS)).await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::FORBIDDEN, "pixel_too_early")
    );
    let (s, e) = pixel(
        &app,
        &campaign,
        &page_click,
        "{transaction_id}",
        Some(THANKS),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert_eq!(
        app.balance(&adv).await.2,
        0,
        "no refused pixel spent anything"
    );
    assert!(
        tests::builders::fraud::callbacks_for(&app, &p.placement).await == 0,
        "and no reward callback was written"
    );
}

/// A visit as it should be: a user's click, the launch link followed from the user's
/// browser, the minimum time passed.
struct Visit {
    app: TestApp,
    adv_user: tests::TestUser,
    adv: String,
    p: tests::builders::Publisher,
    campaign: String,
    page_click: String,
}

async fn visit(backend: Backend) -> Visit {
    let app = behind_proxy(backend, &[]).await;
    let admin = app.admin_token().await;
    let (adv_user, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(&app, &admin).await;
    let campaign = pixel_campaign(&app, &adv, &admin).await;
    let c = click_from(&app, &p, "u1", &campaign, "81.2.69.10").await;
    let page_click = follow(&app, &c, "81.2.69.10").await;
    app.clock.advance(chrono::Duration::seconds(45));
    Visit {
        app,
        adv_user,
        adv,
        p,
        campaign,
        page_click,
    }
}

/// A real visit: followed link, the allowed page, after the minimum time. Held, not paid,
/// until the review window ends; then paid once, with its reward callback.
async fn a_pixel_conversion_is_held_for_review_then_paid_once(backend: Backend) {
    let v = visit(backend).await;
    let (app, p) = (&v.app, &v.p);
    let (s, _) = pixel(app, &v.campaign, &v.page_click, "order-1", Some(THANKS)).await;
    assert_eq!(s, StatusCode::OK);
    let held = conversion_of(app, "order-1").await;
    assert_eq!(held.settlement, entity::values::Settlement::Held);
    assert!(held.held_until.is_some(), "a review window, not a decision");
    assert_eq!(signals(&held), ["PIXEL_REVIEW"]);
    assert_eq!(held.click_ip.as_deref(), Some("81.2.69.10"));
    // A reload of the thank-you page changes nothing.
    let (s, _) = pixel(app, &v.campaign, &v.page_click, "order-1", Some(THANKS)).await;
    assert_eq!(s, StatusCode::OK);
    app.run_workers_once().await;
    assert_eq!(
        app.balance(&v.adv).await.2,
        0,
        "nothing paid during the window"
    );
    assert_eq!(
        tests::builders::fraud::callbacks_for(app, &p.placement).await,
        0
    );
    app.clock.advance(chrono::Duration::hours(72));
    app.run_workers_once().await;
    app.run_workers_once().await;
    let paid = conversion_of(app, "order-1").await;
    assert_eq!(paid.settlement, entity::values::Settlement::Approved);
    let adv = app.token(&v.adv_user).await;
    assert_eq!(
        app.balance(&adv).await.2,
        1_500_000,
        "paid once after the window"
    );
    assert_eq!(
        tests::builders::fraud::callbacks_for(app, &p.placement).await,
        1
    );
    tests::builders::earnings::assert_reconciled(app).await;
}

async fn a_pixel_conversion_can_be_rejected_during_review(backend: Backend) {
    let v = visit(backend).await;
    let app = &v.app;
    let (s, _) = pixel(app, &v.campaign, &v.page_click, "order-2", Some(THANKS)).await;
    assert_eq!(s, StatusCode::OK);
    let id = conversion_of(app, "order-2").await.id;
    let (s, r) = tests::builders::fraud::decide(
        app,
        tests::builders::fraud::ADVERTISER_DECISIONS,
        &v.adv,
        std::slice::from_ref(&id),
        "REJECT",
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["items"][0]["result"], "REJECTED");
    app.clock.advance(chrono::Duration::hours(73));
    app.run_workers_once().await;
    assert_eq!(
        conversion_of(app, "order-2").await.settlement,
        entity::values::Settlement::Rejected
    );
    assert_eq!(
        tests::builders::fraud::callbacks_for(app, &v.p.placement).await,
        0
    );
}
