//! The web pixel records conversions (issue 27): attribution by click, duplicates and
//! conflicts as on every other route, and the limits a browser report has (the page must be
//! on the destination's site when the browser names it; unfilled macros are refused).

use reqwest::StatusCode;
use serde_json::Value;
use tests::receiver::Receiver;
use tests::{Backend, error_code};

use tests::builders::USD;
use tests::builders::callbacks::{app_for, click, world};
use tests::builders::campaign_body;

tests::each_backend!(a_pixel_settles_a_clicked_conversion_once);

async fn a_pixel_settles_a_clicked_conversion_once(backend: Backend) {
    let rx = Receiver::start().await;
    let app = app_for(backend, &rx, false).await;
    let w = world(app, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let app = &w.app;
    let (_, clk) = click(app, &w.p, "pixel-user", &w.campaign).await;
    let pixel = |click: &str, tx: &str, page: Option<&str>| {
        let url = app.url(&format!(
            "/performance-marketing/v2/pixels/web/{}.gif?click_id={click}&goal_id=install&transaction_id={tx}",
            w.campaign
        ));
        let mut req = app.client.get(url);
        if let Some(p) = page {
            req = req.header("referer", p);
        }
        async move {
            let res = req.send().await.expect("sent");
            let status = res.status();
            let kind = res
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            let body: Value = if kind.starts_with("application/json") {
                res.json().await.unwrap_or_default()
            } else {
                Value::Null
            };
            (status, kind, body)
        }
    };
    let thanks = Some("https://advertiser.example/thanks?order=1");

    // Refused before anything is written: a foreign page, an unfilled macro.
    let (s, _, e) = pixel(&clk, "order-1", Some("https://evil.example/")).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{e}");
    assert_eq!(error_code(&e), "pixel_origin_mismatch");
    let (s, _, e) = pixel(&clk, "{transaction_id}", thanks).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert_eq!(error_code(&e), "invalid_input", "{e}");
    assert!(
        e["error"]["fieldErrors"]["transaction_id"].is_string(),
        "{e}"
    );
    assert_eq!(app.balance(&w.adv).await.2, 0, "nothing spent yet");

    // The thank-you page's pixel settles the conversion: the advertiser pays once.
    let (s, kind, e) = pixel(&clk, "order-1", thanks).await;
    assert_eq!(s, StatusCode::OK, "{e}");
    assert_eq!(kind, "image/gif");
    let spent = app.balance(&w.adv).await.2;
    assert_eq!(spent, 1_500_000, "the conversion's payout was paid");
    // A reload of the page is a duplicate; the same order for another click a conflict.
    let (s, _, _) = pixel(&clk, "order-1", thanks).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        app.balance(&w.adv).await.2,
        spent,
        "a reload pays nothing more"
    );
    let (s, _, e) = pixel("clk_someone_else", "order-1", thanks).await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert_eq!(error_code(&e), "transaction_conflict", "{e}");
    // A click that does not exist is received (as on every conversion route) but pays
    // nothing.
    let _ = pixel("clk_made_up", "order-2", None).await;
    assert_eq!(app.balance(&w.adv).await.2, spent);
}
