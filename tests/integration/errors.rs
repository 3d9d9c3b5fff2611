//! Malformed requests always get the CONTRACT.md error body, never a 500 or plain text.

use reqwest::StatusCode;
use serde_json::Value;
use tests::{TestApp, both_backends, error_code};

both_backends!(
    malformed_json_is_400,
    wrong_content_type_is_400,
    unknown_enum_value_names_the_field,
    oversized_body_is_413,
    unknown_api_route_is_json_404,
    wrong_method_is_json_405,
    nul_in_query_or_path_is_refused,
);

async fn raw(app: &TestApp, path: &str, content_type: &str, body: Vec<u8>) -> (StatusCode, Value) {
    let res = app
        .client
        .post(app.url(path))
        .header("content-type", content_type)
        .body(body)
        .send()
        .await
        .expect("sent");
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn malformed_json_is_400(app: TestApp) {
    for path in [
        "/auth/v1/accounts",
        "/auth/v1/tokens",
        "/performance-marketing/v2/survey-api/credentials",
    ] {
        let (s, body) = raw(&app, path, "application/json", b"{\"email\": ".to_vec()).await;
        // The credentials route checks the bearer first: 401 before reading the body.
        if path.contains("survey-api") {
            assert_eq!(s, StatusCode::UNAUTHORIZED, "{path}: {body}");
        } else {
            assert_eq!(s, StatusCode::BAD_REQUEST, "{path}: {body}");
            assert_eq!(error_code(&body), "malformed_json");
        }
    }
    let (s, body) = raw(
        &app,
        "/auth/v1/tokens",
        "application/json",
        b"{\"email\": tru".to_vec(),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(error_code(&body), "malformed_json");
}

async fn wrong_content_type_is_400(app: TestApp) {
    let (s, body) = raw(
        &app,
        "/auth/v1/tokens",
        "text/plain",
        b"{\"email\":\"a@b.co\",\"password\":\"x\"}".to_vec(),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(error_code(&body), "unsupported_media_type");
}

async fn unknown_enum_value_names_the_field(app: TestApp) {
    let body = br#"{"email":"a@example.com","password":"long enough pw","role":"EMPEROR","companyName":"X"}"#.to_vec();
    let (s, err) = raw(&app, "/auth/v1/accounts", "application/json", body).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(error_code(&err), "invalid_input");
    assert!(
        err["error"]["fieldErrors"]["role"]
            .as_str()
            .is_some_and(|m| m.contains("EMPEROR")),
        "{err}"
    );

    let (s, err) = raw(
        &app,
        "/auth/v1/accounts",
        "application/json",
        br#"{"email":"a@example.com"}"#.to_vec(),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(err["error"]["fieldErrors"].is_object(), "{err}");
}

async fn oversized_body_is_413(app: TestApp) {
    // A declared 10 MiB body is refused from its headers, before any of it is read.
    // The delivery routes' lean stack refuses the same way.
    for path in [
        "/auth/v1/tokens",
        "/fn/sign_in",
        "/no/such/route",
        "/performance-marketing/v2/postbacks/custom-s2s/cmp_x",
        "/getallsurveys-api",
        "/sdk/v2/offers/off_x/launch",
    ] {
        let (status, body) = declared_body(&app, path, 10 * 1024 * 1024).await;
        assert_eq!(status, 413, "{path}");
        assert_eq!(error_code(&body), "payload_too_large", "{path}");
    }
    // A chunked body without Content-Length is cut at the limit by the extractor.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        (0..11).map(|_| Ok(vec![b' '; 1024 * 1024])).collect();
    let res = app
        .client
        .post(app.url("/auth/v1/tokens"))
        .header("content-type", "application/json")
        .body(reqwest::Body::wrap_stream(futures::stream::iter(chunks)))
        .send()
        .await;
    // The server may close the connection while the client is still sending; either way
    // nothing was accepted.
    if let Ok(res) = res {
        assert_eq!(res.status(), StatusCode::PAYLOAD_TOO_LARGE);
    }
}

/// Sends only the headers of a request declaring `len` body bytes; returns status and body.
async fn declared_body(app: &TestApp, path: &str, len: usize) -> (u16, Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = app.base.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.expect("write");
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw).await;
    let text = String::from_utf8_lossy(&raw);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text.split("\r\n\r\n").nth(1).unwrap_or_default();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

async fn unknown_api_route_is_json_404(app: TestApp) {
    for path in [
        "/auth/v1/nothing",
        "/publisher/v2/nothing",
        "/sdk/v2/nothing",
        "/performance-marketing/v2/nothing",
    ] {
        let (s, body) = app.get(path, None).await;
        assert_eq!(s, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(error_code(&body), "not_found", "{path}");
    }
}

async fn wrong_method_is_json_405(app: TestApp) {
    let (s, body) = app.get("/auth/v1/tokens", None).await;
    assert_eq!(s, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(error_code(&body), "method_not_allowed");
    // Delivery routes (their own lean stack) hand other methods to the full stack.
    for path in [
        "/sdk/v2/ad-slots/slot_x/offers",
        "/sdk/v2/launch/lch_x",
        "/publisher/v2/ad-slots/slot_x/static-offers",
    ] {
        let (s, body) = app.post(path, None, &serde_json::json!({})).await;
        assert_eq!(s, StatusCode::METHOD_NOT_ALLOWED, "{path}");
        assert_eq!(error_code(&body), "method_not_allowed", "{path}");
    }
}

/// PostgreSQL text cannot hold NUL: a search or an id carrying `%00` is refused (400, 404)
/// on both databases instead of failing inside the query (found by the API fuzzer).
async fn nul_in_query_or_path_is_refused(app: TestApp) {
    let (_, adv) = app.funded_advertiser(0).await;
    let (s, e) = app
        .get(
            "/performance-marketing/v2/campaigns?q=%C3%A6%00",
            Some(&adv),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert_eq!(error_code(&e), "invalid_input");
    let (s, e) = app
        .get("/performance-marketing/v2/campaigns/cmp_%00x", Some(&adv))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{e}");
    let (s, _) = app
        .get("/performance-marketing/v2/campaigns?q=100%25", Some(&adv))
        .await;
    assert_eq!(s, StatusCode::OK, "an encoded percent sign is fine");
}
