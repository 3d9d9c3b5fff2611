//! Evidence upload on SDK support cases: development sessions only, multipart field
//! `evidence`, 5 MiB, images and PDFs recognised by content, Idempotency-Key replays, and
//! the publisher reading the file from the support inbox.

use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::{TestApp, both_backends, error_code};

use tests::builders::{DOMAIN, Publisher, keyed, publisher, session_body};

both_backends!(evidence_is_checked_stored_and_shown_to_the_publisher);

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR fake png body";
const PDF: &[u8] = b"%PDF-1.7\n1 0 obj << >> endobj\n%%EOF\n";
const MIB: usize = 1024 * 1024;

/// A session in the given environment: (session id, token, capabilities).
async fn session_in(
    app: &TestApp,
    p: &Publisher,
    user: &str,
    env: &str,
) -> (String, String, Value) {
    let mut body = session_body(p, user);
    body["environment"] = json!(env);
    let (s, b) = app.post("/sdk/v2/sessions", None, &body).await;
    assert_eq!(s, StatusCode::CREATED, "{b}");
    (
        b["sessionId"].as_str().expect("id").to_owned(),
        b["token"].as_str().expect("token").to_owned(),
        b["capabilities"].clone(),
    )
}

/// Posts one multipart file (built by hand, as a browser would send it).
async fn upload(
    app: &TestApp,
    case: &str,
    token: &str,
    key: Option<&str>,
    field: &str,
    declared: &str,
    bytes: &[u8],
) -> (StatusCode, Value) {
    let boundary = "----evidence-test-boundary";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"shot.png\"\r\nContent-Type: {declared}\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let mut req = app
        .client
        .post(app.url(&format!("/sdk/v2/support/{case}/evidence")))
        .bearer_auth(token)
        .header(
            "Content-Type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .body(body);
    if let Some(k) = key {
        req = req.header("Idempotency-Key", k);
    }
    let res = req.send().await.expect("sent");
    let status = res.status();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// Uploads to one case as one user.
struct Uploader<'a> {
    app: &'a TestApp,
    case: &'a str,
    token: &'a str,
}

impl Uploader<'_> {
    /// A file in the `evidence` field under Idempotency-Key `key`, declared as `declared`.
    async fn file(&self, key: &str, declared: &str, bytes: &[u8]) -> (StatusCode, Value) {
        let (app, case, token) = (self.app, self.case, self.token);
        upload(app, case, token, Some(key), "evidence", declared, bytes).await
    }
}

async fn open_case(app: &TestApp, sid: &str, token: &str, key: &str) -> String {
    let (s, case) = keyed(
        app,
        "/sdk/v2/support",
        token,
        key,
        &json!({"sessionId": sid, "reasonCode": "MISSING_REWARD", "message": "Finished level 10, no coins yet."}),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{case}");
    case["supportCaseId"].as_str().expect("case").to_owned()
}

async fn evidence_is_checked_stored_and_shown_to_the_publisher(app: TestApp) {
    let app = &app;
    let admin = app.admin_token().await;
    let p = publisher(app, &admin).await;
    assert!(!DOMAIN.is_empty());
    production_sessions_may_not_upload(app, &p).await;
    let (case, token, id) = uploads_are_checked_and_kept_once(app, &p).await;
    the_user_and_the_publisher_see_the_files(app, &p, (&case, &token, &id)).await;
}

async fn production_sessions_may_not_upload(app: &TestApp, p: &Publisher) {
    // Production sessions may not upload, and say so in their capabilities.
    let (psid, ptoken, pcaps) = session_in(app, p, "user-1", "production").await;
    assert_eq!(pcaps["evidenceUpload"], false);
    let pcase = open_case(app, &psid, &ptoken, "case-prod-1").await;
    let prod = Uploader {
        app,
        case: &pcase,
        token: &ptoken,
    };
    let (s, e) = prod.file("ev-prod-0001", "image/png", PNG).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{e}");
    assert_eq!(error_code(&e), "evidence_upload_unavailable");
}

/// The key and the field name are required; the type comes from the content; one file per
/// key; 5 MiB at most; another user's case is not found; at most five files per case.
/// Returns the case, the user's token and the PNG's evidence id.
async fn uploads_are_checked_and_kept_once(
    app: &TestApp,
    p: &Publisher,
) -> (String, String, String) {
    let (sid, token, caps) = session_in(app, p, "user-1", "development").await;
    assert_eq!(caps["evidenceUpload"], true);
    let case = open_case(app, &sid, &token, "case-dev-01").await;
    let mine = Uploader {
        app,
        case: &case,
        token: &token,
    };

    // The Idempotency-Key is required.
    let (s, _) = upload(app, &case, &token, None, "evidence", "image/png", PNG).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    // The field must be called `evidence`.
    let (s, e) = upload(
        app,
        &case,
        &token,
        Some("ev-00000001"),
        "file",
        "image/png",
        PNG,
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert!(e["error"]["fieldErrors"]["evidence"].is_string(), "{e}");
    // The type comes from the content: HTML declared as PNG is refused…
    let (s, e) = mine
        .file(
            "ev-00000002",
            "image/png",
            b"<html><script>alert(1)</script>",
        )
        .await;
    assert_eq!(s, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{e}");
    // …and a PDF declared as octet-stream is accepted as a PDF.
    let (s, pdf) = mine
        .file("ev-00000003", "application/octet-stream", PDF)
        .await;
    assert_eq!(s, StatusCode::CREATED, "{pdf}");
    assert_eq!(pdf["contentType"], "application/pdf");
    assert_eq!(pdf["byteSize"], PDF.len());

    // A PNG, then the same upload again: one file.
    let (s, png) = mine.file("ev-00000004", "image/png", PNG).await;
    assert_eq!(s, StatusCode::CREATED, "{png}");
    assert_eq!(png["contentType"], "image/png");
    assert_eq!(png["duplicate"], false);
    let (s, again) = mine.file("ev-00000004", "image/png", PNG).await;
    assert_eq!(s, StatusCode::OK, "{again}");
    assert_eq!(again["evidenceId"], png["evidenceId"]);
    assert_eq!(again["duplicate"], true);
    // The same key with another file is a conflict.
    let (s, e) = mine.file("ev-00000004", "application/pdf", PDF).await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert_eq!(error_code(&e), "idempotency_key_reused");

    // 5 MiB is the limit: exactly 5 MiB passes, one byte more is 413.
    let mut big = PNG.to_vec();
    big.resize(5 * MIB, 0);
    let (s, e) = mine.file("ev-00000005", "image/png", &big).await;
    assert_eq!(s, StatusCode::CREATED, "{e}");
    assert_eq!(e["byteSize"], 5 * MIB);
    big.push(0);
    let (s, e) = mine.file("ev-00000006", "image/png", &big).await;
    assert_eq!(s, StatusCode::PAYLOAD_TOO_LARGE, "{e}");
    assert_eq!(error_code(&e), "payload_too_large");

    // Another user's case is not found.
    let (osid, otoken, _) = session_in(app, p, "user-2", "development").await;
    assert!(!osid.is_empty());
    let other = Uploader {
        app,
        case: &case,
        token: &otoken,
    };
    let (s, _) = other.file("ev-00000007", "image/png", PNG).await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    // At most five files per case.
    for i in 0..2 {
        let (s, e) = mine
            .file(&format!("ev-more-000{i}"), "image/png", PNG)
            .await;
        assert_eq!(s, StatusCode::CREATED, "{e}");
    }
    let (s, e) = mine.file("ev-more-0009", "image/png", PNG).await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert_eq!(error_code(&e), "evidence_limit_reached");
    let id = png["evidenceId"].as_str().expect("evidence id").to_owned();
    (case, token, id)
}

/// The user and the publisher see the files with the case; the publisher downloads one;
/// another publisher cannot read it.
async fn the_user_and_the_publisher_see_the_files(
    app: &TestApp,
    p: &Publisher,
    (case, token, id): (&str, &str, &str),
) {
    // The user and the publisher see the files with the case; the publisher downloads one.
    let (_, mine) = app.get("/sdk/v2/support", Some(token)).await;
    assert_eq!(
        mine["items"][0]["evidence"].as_array().map(Vec::len),
        Some(5),
        "{mine}"
    );
    let (s, inbox) = app.get("/publisher/v2/support-cases", Some(&p.token)).await;
    assert_eq!(s, StatusCode::OK);
    let listed = inbox["items"]
        .as_array()
        .and_then(|items| items.iter().find(|c| c["supportCaseId"] == case))
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(
        listed["evidence"].as_array().map(Vec::len),
        Some(5),
        "{inbox}"
    );
    let res = app
        .client
        .get(app.url(&format!("/publisher/v2/support-cases/{case}/evidence/{id}")))
        .bearer_auth(&p.token)
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "image/png");
    assert_eq!(res.headers()["x-content-type-options"], "nosniff");
    assert_eq!(res.bytes().await.expect("body").as_ref(), PNG);
    // Another publisher cannot read it.
    let (_, other) = app.signed_in(app::model::Role::Publisher).await;
    let (s, _) = app
        .get(
            &format!("/publisher/v2/support-cases/{case}/evidence/{id}"),
            Some(&other),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND);
}
