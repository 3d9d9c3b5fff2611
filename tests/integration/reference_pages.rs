//! The API reference at `/docs`: an index that links every operation of `/openapi.json`, a
//! page per operation with its recorded examples and snippets, the error catalogue and the
//! guides (signing postbacks and survey requests, verifying callbacks, versions).

use reqwest::StatusCode;
use tests::{TestApp, both_backends};

both_backends!(the_reference_has_a_page_for_every_operation);

async fn text(app: &TestApp, path: &str) -> (StatusCode, String) {
    let res = app.client.get(app.url(path)).send().await.expect("sent");
    (res.status(), res.text().await.expect("page"))
}

async fn the_reference_has_a_page_for_every_operation(app: TestApp) {
    let app = &app;
    let (s, spec) = app.get("/openapi.json", None).await;
    assert_eq!(s, StatusCode::OK);
    let (s, index) = text(app, "/docs").await;
    assert_eq!(s, StatusCode::OK);
    let mut pages = 0;
    for (path, item) in spec["paths"].as_object().into_iter().flatten() {
        for (method, op) in item.as_object().into_iter().flatten() {
            let Some(id) = op["operationId"].as_str() else {
                continue;
            };
            let link = format!("/docs/operations/{id}");
            assert!(
                index.contains(&format!("href=\"{link}\"")),
                "the index links {id}"
            );
            let (s, page) = text(app, &link).await;
            assert_eq!(s, StatusCode::OK, "{link}");
            assert!(page.contains(&format!("data-operation=\"{id}\"")), "{link}");
            assert!(
                page.contains(&path.replace('&', "&amp;")),
                "{link} names its path"
            );
            assert!(
                page.contains("<h3>curl</h3>") && page.contains("<h3>Python</h3>"),
                "{link}"
            );
            let body = &op["requestBody"]["content"]["application/json"];
            if body["example"].is_object() {
                assert!(
                    page.contains("Example (recorded from the tests)"),
                    "{method} {path}"
                );
            }
            pages += 1;
        }
    }
    assert!(pages > 200, "{pages} operation pages");

    // A Custom S2S postback: its signing headers in the snippets, its error codes linked.
    let postback = "/docs/operations/custom_s2s_post";
    let (_, page) = text(app, postback).await;
    assert!(
        page.contains("X-Service-Signature: $X_SERVICE_SIGNATURE"),
        "{page}"
    );
    assert!(
        page.contains("href=\"/docs/errors#transaction_conflict\""),
        "{page}"
    );

    let (s, errors) = text(app, "/docs/errors").await;
    assert_eq!(s, StatusCode::OK);
    assert!(errors.contains(r#"<tr id="idempotency_key_reused"><td><code>idempotency_key_reused</code></td><td>409</td>"#));
    // The guides, with their signing and verification code.
    for (guide, must, code) in [
        ("postbacks", "X-Service-Signature", true),
        ("callbacks", "webhook-signature", true),
        ("surveys", "X-Signature-Version", true),
        ("web-sdk", "Accept-Language", true),
        ("versioning", "Changelog", false),
    ] {
        let (s, page) = text(app, &format!("/docs/guides/{guide}")).await;
        assert_eq!(s, StatusCode::OK, "{guide}");
        assert!(page.contains(must), "{guide}");
        assert_eq!(page.contains("<pre><code"), code, "{guide}");
    }
    assert_eq!(
        text(app, "/docs/operations/nope").await.0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        text(app, "/docs/guides/nope").await.0,
        StatusCode::NOT_FOUND
    );
}
