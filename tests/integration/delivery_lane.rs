//! The delivery routes answer through their own lean stack (server/src/delivery_lane.rs):
//! what the general stack gives every answer must still hold there.

use reqwest::StatusCode;
use tests::{TestApp, both_backends};

use crate::delivery::{publisher, session};

both_backends!(lean_stack_keeps_cors_request_ids_and_metrics);

async fn lean_stack_keeps_cors_request_ids_and_metrics(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (_, token) = session(&app, &p, "lane-user").await;
    let list = format!("/sdk/v2/ad-slots/{}/offers", p.slot);

    // A web SDK read from the publisher's page: CORS headers, a request id, JSON.
    let res = app
        .client
        .get(app.url(&list))
        .bearer_auth(&token)
        .header("origin", "https://publisher.example")
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["access-control-allow-origin"], "*");
    assert!(
        res.headers()
            .get("x-request-id")
            .is_some_and(|v| !v.is_empty())
    );
    let body: serde_json::Value = res.json().await.unwrap_or_default();
    assert!(body["items"].is_array(), "{body}");

    // A caller's own request id is kept.
    let res = app
        .client
        .get(app.url(&list))
        .bearer_auth(&token)
        .header("x-request-id", "lane-42")
        .send()
        .await
        .expect("sent");
    assert_eq!(res.headers()["x-request-id"], "lane-42");

    // The browser's preflight is answered (it falls through to the full stack's CORS).
    let res = app
        .client
        .request(reqwest::Method::OPTIONS, app.url(&list))
        .header("origin", "https://publisher.example")
        .header("access-control-request-method", "GET")
        .header("access-control-request-headers", "authorization")
        .send()
        .await
        .expect("sent");
    assert!(res.status().is_success(), "{}", res.status());
    assert_eq!(res.headers()["access-control-allow-origin"], "*");

    // Refusals keep the JSON error body.
    let (s, e) = app.get(&list, Some("not-a-token")).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{e}");
    assert!(e["error"]["code"].is_string(), "{e}");

    // The requests are counted under the route template (never the raw path).
    let metrics = app
        .client
        .get(app.url("/metrics"))
        .send()
        .await
        .expect("sent")
        .text()
        .await
        .unwrap_or_default();
    let line = metrics
        .lines()
        .find(|l| {
            // The GET series: the preflight below has its own 2xx series on this route.
            l.starts_with("http_requests_total")
                && l.contains(r#"method="GET""#)
                && l.contains(r#"route="/sdk/v2/ad-slots/{adSlotId}/offers""#)
                && l.contains(r#"status="2xx""#)
        })
        .unwrap_or_default()
        .to_owned();
    let counted: f64 = line
        .rsplit(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0.0);
    assert!(counted >= 2.0, "{line}");
    assert!(!metrics.contains(&p.slot), "raw paths never become labels");
    // The preflight fell through to the full stack, which labels it with the plain route
    // template (not the two routers' templates joined).
    assert!(
        metrics.lines().any(|l| l.starts_with("http_requests_total")
            && l.contains(r#"method="OPTIONS""#)
            && l.contains(r#"route="/sdk/v2/ad-slots/{adSlotId}/offers""#)),
        "{metrics}"
    );
    assert!(
        !metrics.contains("/offers/sdk/v2/"),
        "route templates are not joined"
    );
}
