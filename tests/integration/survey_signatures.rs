//! Survey API signatures (issue 28): a captured signed request cannot be sent again as
//! another method or a second time, and version 2 signs the method and the body.

use app::domain::surveys::signature::{digest, signed_input, signed_input_at, signed_input_v2};
use reqwest::{Method, StatusCode};
use tests::{TestApp, both_backends, error_code};

use tests::builders::surveys::{call, create, issue_key, survey};

both_backends!(a_captured_signature_cannot_be_replayed_or_repurposed);

async fn a_captured_signature_cannot_be_replayed_or_repurposed(app: TestApp) {
    let (_, t) = app.funded_advertiser(0).await;
    let key = issue_key(&app, &t, "SHA256").await;
    let id = create(&app, &key, &survey("Replay target")).await;
    let url = app.url(&format!("/api/v1/campaigns/{id}"));
    let now = app.clock_now().timestamp().to_string();
    let send =
        |method: Method, enc: String, body: &'static str, headers: Vec<(&'static str, String)>| {
            let mut req = app
                .client
                .request(method, format!("{url}?enc={enc}"))
                .header("X-Api-Key", &key.api_key);
            for (k, v) in headers {
                req = req.header(k, v);
            }
            if !body.is_empty() {
                req = req.header("content-type", "application/json").body(body);
            }
            async move {
                let res = req.send().await.expect("sent");
                let status = res.status();
                (
                    status,
                    res.json::<serde_json::Value>().await.unwrap_or_default(),
                )
            }
        };

    // A timestamped GET, captured, then sent as a DELETE whose body is the timestamp: the
    // plain scheme's input would be the same bytes. A body on DELETE is refused.
    let enc = digest(key.kind, &signed_input_at(&url, b"", &now, &key.secret));
    let (s, _) = send(
        Method::GET,
        enc.clone(),
        "",
        vec![("X-Request-Timestamp", now.clone())],
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    let stamp: &'static str = Box::leak(now.clone().into_boxed_str());
    let (s, e) = send(Method::DELETE, enc.clone(), stamp, vec![]).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    // The same timestamped GET a second time is a replay.
    let (s, e) = send(
        Method::GET,
        enc,
        "",
        vec![("X-Request-Timestamp", now.clone())],
    )
    .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{e}");
    assert_eq!(error_code(&e), "replayed_signature");

    // Version 2 signs the method: a GET's signature does not open a DELETE.
    let v2 = |method: &str| {
        digest(
            key.kind,
            &signed_input_v2(method, &url, b"", &now, &key.secret),
        )
    };
    let headers = || {
        vec![
            ("X-Request-Timestamp", now.clone()),
            ("X-Signature-Version", "2".to_owned()),
        ]
    };
    let (s, e) = send(Method::GET, v2("GET"), "", headers()).await;
    assert_eq!(s, StatusCode::OK, "{e}");
    let (s, e) = send(Method::DELETE, v2("GET"), "", headers()).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{e}");
    assert_eq!(error_code(&e), "invalid_signature");
    // Version 2 without a timestamp is refused.
    let (s, _) = send(
        Method::GET,
        v2("GET"),
        "",
        vec![("X-Signature-Version", "2".to_owned())],
    )
    .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);

    // The campaign is still there; the specification's plain scheme keeps working.
    let (s, c) = call(
        &app,
        &key,
        Method::GET,
        &format!("/api/v1/campaigns/{id}"),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    let plain = digest(key.kind, &signed_input(&url, b"", &key.secret));
    let (s, _) = send(Method::GET, plain, "", vec![]).await;
    assert_eq!(s, StatusCode::OK);
}
