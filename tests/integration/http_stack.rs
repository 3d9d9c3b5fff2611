//! One route table behind one outer layer (server/src/outer_layer.rs), with extras per
//! route group: what every answer gets (request ids, JSON error bodies, metrics under the
//! route template) holds on the delivery routes and the consoles alike, and each group
//! keeps its extras (CORS and compression on SDK reads, compression on consoles).

use reqwest::StatusCode;
use tests::{TestApp, both_backends};

use tests::builders::{publisher, session};

both_backends!(
    lean_stack_keeps_cors_request_ids_and_metrics,
    every_group_has_the_outer_layer_and_its_extras
);

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

    // The browser's preflight is answered by the SDK group's CORS layer.
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
    let metrics = metrics_text(&app).await;
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
    // The preflight (answered by the route's CORS layer) is labelled with the plain route
    // template too.
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

async fn every_group_has_the_outer_layer_and_its_extras(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (_, token) = session(&app, &p, "stack-user").await;

    // A delivery read answers compressed when asked; a console read too.
    let list = format!("/sdk/v2/ad-slots/{}/offers", p.slot);
    for (path, bearer) in [
        (list.as_str(), token.as_str()),
        ("/publisher/v2/placements", p.token.as_str()),
    ] {
        let res = app
            .client
            .get(app.url(path))
            .bearer_auth(bearer)
            .header("accept-encoding", "gzip")
            .send()
            .await
            .expect("sent");
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        assert_eq!(res.headers()["content-encoding"], "gzip", "{path}");
        assert!(res.headers().contains_key("x-request-id"), "{path}");
    }

    // A method a route does not take: 405 with the JSON error body, on both groups.
    for path in [list.as_str(), "/publisher/v2/placements"] {
        let res = app
            .client
            .delete(app.url(path))
            .bearer_auth(&token)
            .send()
            .await
            .expect("sent");
        assert_eq!(res.status(), StatusCode::METHOD_NOT_ALLOWED, "{path}");
        let body: serde_json::Value = res.json().await.unwrap_or_default();
        assert_eq!(body["error"]["code"], "method_not_allowed", "{body}");
    }

    // A declared body over the limit is refused before it is read, on both groups: the
    // request declares 1 MiB + 1 bytes and sends none of them, so only a server that
    // answers from the declared length (not after reading) replies at all.
    for path in ["/publisher/v2/placements", "/sdk/v2/offers/x/impressions"] {
        let head = declared_oversize_answer(&app, path, &p.token).await;
        assert!(head.starts_with("HTTP/1.1 413"), "{path}: {head}");
    }

    // A dashboard page is counted under its route as well.
    let _ = app.client.get(app.url("/sign-in")).send().await;
    let metrics = metrics_text(&app).await;
    assert!(
        metrics.lines().any(|l| l.starts_with("http_requests_total")
            && l.contains(r#"route="/publisher/v2/placements""#)
            && l.contains(r#"status="4xx""#)),
        "{metrics}"
    );
    assert!(
        metrics
            .lines()
            .any(|l| l.starts_with("http_requests_total") && l.contains(r#"route="/sign-in""#)),
        "{metrics}"
    );
}

/// Sends only the request head of an oversized POST and returns the status line the
/// server answers with (within five seconds).
async fn declared_oversize_answer(app: &TestApp, path: &str, bearer: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let authority = app.base.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(authority)
        .await
        .expect("connect");
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: {authority}\r\nauthorization: Bearer {bearer}\r\n\
         content-type: application/json\r\ncontent-length: {}\r\n\r\n",
        1024 * 1024 + 1
    );
    stream.write_all(head.as_bytes()).await.expect("head sent");
    let mut buf = vec![0u8; 512];
    let n = tokio::time::timeout(std::time::Duration::from_secs(5), stream.read(&mut buf))
        .await
        .expect("answered before the body was sent")
        .expect("read");
    String::from_utf8_lossy(&buf[..n])
        .lines()
        .next()
        .unwrap_or("")
        .to_owned()
}

/// The `/metrics` page as text.
async fn metrics_text(app: &TestApp) -> String {
    let res = app.client.get(app.url("/metrics")).send().await;
    res.expect("sent").text().await.unwrap_or_default()
}
