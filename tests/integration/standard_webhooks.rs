//! Reward callbacks verify with the Standard Webhooks reference library (issue 35): a
//! delivered confirmation is accepted by the `standardwebhooks` package from PyPI with the
//! `whsec_` secret the configuration answered, and during a rotation with the next key's
//! secret too; a changed body or another secret is refused.

use reqwest::StatusCode;
use serde_json::json;
use tests::builders::callbacks::{app_for, click, world};
use tests::builders::{USD, campaign_body};
use tests::receiver::{Receiver, standard_verifies as verifies};
use tests::{Backend, each_backend};

each_backend!(a_delivered_callback_verifies_with_the_standard_library);

async fn a_delivered_callback_verifies_with_the_standard_library(backend: Backend) {
    let rx = Receiver::start().await;
    let app = app_for(backend, &rx, true).await;
    // The library refuses messages older than five minutes by the real clock.
    app.clock.set(chrono::Utc::now());
    let w = world(app, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let callback = format!("/publisher/v2/placements/{}/callback", w.p.placement);
    let (s, cb) = w
        .app
        .put(&callback, Some(&w.p.token), &json!({"url": rx.url}))
        .await;
    assert_eq!(s, StatusCode::OK, "{cb}");
    let standard = cb["standardWebhooksSecret"]
        .as_str()
        .expect("whsec")
        .to_owned();
    assert!(standard.starts_with("whsec_"), "{cb}");
    let (s, next) = w
        .app
        .post(&format!("{callback}/rotate"), Some(&w.p.token), &json!({}))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{next}");
    let next_standard = next["standardWebhooksSecret"]
        .as_str()
        .expect("whsec")
        .to_owned();

    let (_, clk) = click(&w.app, &w.p, "user-1", &w.campaign).await;
    w.report(&clk, "order-1", "approved").await;
    w.wait_delivered(1).await;
    let got = rx.received();
    let r = got.first().expect("a delivered callback");
    assert_eq!(r.header("webhook-id"), r.header("idempotency-key"));
    assert_eq!(
        r.header("webhook-signature").split(' ').count(),
        2,
        "both keys sign"
    );
    assert!(
        verifies(&standard, r, &r.body),
        "the current key's whsec secret"
    );
    assert!(
        verifies(&next_standard, r, &r.body),
        "the next key's, during the rotation"
    );
    let forged = r.body.replace("\"test\":false", "\"test\":true");
    assert_ne!(forged, r.body);
    assert!(
        !verifies(&standard, r, &forged),
        "a changed body is refused"
    );
    assert!(
        !verifies("whsec_bm90LXRoZS1zZWNyZXQ=", r, &r.body),
        "another secret is refused"
    );
}
