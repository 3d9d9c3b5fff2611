//! What one request can make the server hold and answer is bounded by its size, whatever
//! it holds (issue 52): a bulk reconciliation of a million bad lines answers a few
//! kilobytes (the first 100 problems and a count), and a list longer than its bound is
//! refused while it is read, before it becomes a million structs.

use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::builders::reconciliation::{RECONCILIATIONS, reconcile};
use tests::{TestApp, both_backends, error_code};

use app::model::Role;

both_backends!(
    a_huge_csv_reconciliation_answers_a_small_refusal,
    many_bad_lines_answer_the_first_hundred_and_a_count,
    a_list_past_its_bound_is_refused_while_read,
);

/// The largest refusal any of these may answer.
const SMALL: usize = 16 * 1024;

async fn csv(app: &TestApp, token: &str, body: String) -> (StatusCode, usize, Value) {
    let res = app
        .client
        .post(app.url(&format!(
            "{RECONCILIATIONS}?action=approve&reason=bulk%20check"
        )))
        .bearer_auth(token)
        .header(
            "idempotency-key",
            format!("bounds-{}", uuid::Uuid::new_v4().simple()),
        )
        .header("content-type", "text/csv")
        .body(body)
        .send()
        .await
        .expect("sent");
    let status = res.status();
    let bytes = res.bytes().await.expect("body");
    (
        status,
        bytes.len(),
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

async fn a_huge_csv_reconciliation_answers_a_small_refusal(app: TestApp) {
    let (_, adv) = app.signed_in(Role::Advertiser).await;
    // 1 MiB of "," lines: 524,288 lines without a transaction id (it answered 96 MB).
    let (s, size, body) = csv(&app, &adv, ",\n".repeat(512 * 1024)).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
    assert!(size < SMALL, "{size} bytes answered");
    assert!(body["error"]["fieldErrors"]["lines"].is_string(), "{body}");
    // With a spreadsheet's byte-order mark, the header is still a header.
    let (s, _, body) = csv(&app, &adv, "\u{feff}transaction_id\n,\n".to_owned()).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let fields = body["error"]["fieldErrors"].as_object().expect("fields");
    assert!(fields.contains_key("lines[0].transactionId"), "{body}");
    assert_eq!(fields.len(), 1, "the header was not read as a line: {body}");
}

async fn many_bad_lines_answer_the_first_hundred_and_a_count(app: TestApp) {
    let (_, adv) = app.signed_in(Role::Advertiser).await;
    let lines: Vec<Value> = (0..10_000).map(|_| json!({"transactionId": ""})).collect();
    let (s, size, body) = csv(&app, &adv, (0..10_000).map(|_| ",\n").collect::<String>()).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(size < SMALL, "{size} bytes answered");
    let (s, e) = reconcile(
        &app,
        &adv,
        "bounds-json-1",
        &json!({"action": "approve", "reason": "bulk check", "lines": lines}),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(error_code(&e), "invalid_input");
    assert_eq!(
        e["error"]["fieldErrors"].as_object().map(|f| f.len()),
        Some(100),
        "the first hundred problems"
    );
    let message = e["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.ends_with("and 9900 more problems not listed"),
        "{message}"
    );
    assert!(body["error"]["message"].is_string());
}

async fn a_list_past_its_bound_is_refused_while_read(app: TestApp) {
    let (_, adv) = app.signed_in(Role::Advertiser).await;
    // 10,001 lines: one past the bound, refused by the parser.
    let lines: Vec<Value> = (0..10_001).map(|_| json!({})).collect();
    let (s, e) = reconcile(
        &app,
        &adv,
        "bounds-json-2",
        &json!({"action": "approve", "reason": "bulk check", "lines": lines}),
    )
    .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let why = e["error"]["fieldErrors"]["lines"]
        .as_str()
        .unwrap_or_default();
    assert!(why.contains("at most 10000 items"), "{e}");
    // 900 KB of empty objects in a list of the campaign API: refused while read, small.
    let goals = format!(
        "{{\"name\":\"x\",\"goals\":[{}{{}}]}}",
        "{},".repeat(300_000)
    );
    let res = app
        .client
        .post(app.url("/performance-marketing/v2/campaigns"))
        .bearer_auth(&adv)
        .header("content-type", "application/json")
        .body(goals)
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let bytes = res.bytes().await.expect("body");
    assert!(bytes.len() < SMALL, "{} bytes answered", bytes.len());
}
