//! One idempotency rule: a failed insert that is not a replay (here a trigger refusing the
//! row, standing for a foreign key or a lost connection) answers 500 with its cause in the
//! log, instead of being looked up by key and answered without a cause. One test per
//! write that takes an Idempotency-Key from the SDK.

use reqwest::StatusCode;
use sea_orm::ConnectionTrait;
use serde_json::{Value, json};
use tests::{Backend, TestApp, both_backends, error_code};

use tests::builders::{USD, keyed, live_campaign, publisher, session, session_body};

both_backends!(
    a_refused_impression_keeps_its_cause,
    a_refused_launch_keeps_its_cause,
    a_refused_support_case_keeps_its_cause,
    a_refused_evidence_upload_keeps_its_cause,
    the_one_key_rule_holds_on_every_route,
);

/// Makes every insert into `table` fail with a message naming `marker`.
async fn refuse_inserts(app: &TestApp, table: &str) -> String {
    let marker = format!("refused-by-test-{}", uuid::Uuid::new_v4().simple());
    let statements = match app.backend {
        Backend::Sqlite => vec![format!(
            "CREATE TRIGGER refuse_{table} BEFORE INSERT ON {table} \
             BEGIN SELECT RAISE(ABORT, '{marker}'); END"
        )],
        Backend::Postgres => vec![
            format!(
                "CREATE FUNCTION refuse_{table}() RETURNS trigger LANGUAGE plpgsql AS \
                 $$ BEGIN RAISE EXCEPTION '{marker}'; END $$"
            ),
            format!(
                "CREATE TRIGGER refuse_{table} BEFORE INSERT ON {table} \
                 FOR EACH ROW EXECUTE FUNCTION refuse_{table}()"
            ),
        ],
    };
    for sql in statements {
        app.state
            .ctx
            .db
            .execute_unprepared(&sql)
            .await
            .expect("trigger created");
    }
    tests::logs::capture();
    marker
}

/// A 500 whose cause (the marker) reached the log.
fn assert_kept(status: StatusCode, body: &Value, marker: &str) {
    assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{body}");
    assert_eq!(error_code(body), "internal", "{body}");
    assert!(
        !body.to_string().contains(marker),
        "the cause is logged, never shown: {body}"
    );
    assert!(
        tests::logs::contain(marker),
        "the cause {marker} was not logged"
    );
}

/// A live campaign and a session user on a released placement: (campaign, token).
async fn offer_and_session(app: &TestApp) -> (String, String) {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(100 * USD).await;
    let p = publisher(app, &admin).await;
    let body = tests::builders::campaign_body("CUSTOM_S2S", 50 * USD);
    let (campaign, _, _) = live_campaign(app, &adv, &admin, body).await;
    let (_, token) = session(app, &p, "user-1").await;
    (campaign, token)
}

async fn a_refused_impression_keeps_its_cause(app: TestApp) {
    tests::logs::capture();
    let (campaign, token) = offer_and_session(&app).await;
    let marker = refuse_inserts(&app, "sdk_impressions").await;
    let path = format!("/sdk/v2/offers/{campaign}/impressions");
    let (s, b) = keyed(&app, &path, &token, "imp-refused-1", &json!({})).await;
    assert_kept(s, &b, &marker);
}

async fn a_refused_launch_keeps_its_cause(app: TestApp) {
    tests::logs::capture();
    let (campaign, token) = offer_and_session(&app).await;
    let path = format!("/sdk/v2/offers/{campaign}/impressions");
    let (s, imp) = keyed(&app, &path, &token, "imp-000001", &json!({})).await;
    assert_eq!(s, StatusCode::CREATED, "{imp}");
    let marker = refuse_inserts(&app, "sdk_launches").await;
    let body = json!({"impressionId": imp["impressionId"]});
    let path = format!("/sdk/v2/offers/{campaign}/launch");
    let (s, b) = keyed(&app, &path, &token, "launch-refused", &body).await;
    assert_kept(s, &b, &marker);
}

async fn a_refused_support_case_keeps_its_cause(app: TestApp) {
    tests::logs::capture();
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (sid, token) = session(&app, &p, "user-1").await;
    let marker = refuse_inserts(&app, "support_cases").await;
    let body = json!({"sessionId": sid, "reasonCode": "MISSING_REWARD", "message": "Finished level 10, no coins yet."});
    let (s, b) = keyed(&app, "/sdk/v2/support", &token, "case-refused", &body).await;
    assert_kept(s, &b, &marker);
}

async fn a_refused_evidence_upload_keeps_its_cause(app: TestApp) {
    tests::logs::capture();
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let mut body = session_body(&p, "user-1");
    body["environment"] = json!("development");
    let (s, sess) = app.post("/sdk/v2/sessions", None, &body).await;
    assert_eq!(s, StatusCode::CREATED, "{sess}");
    let (sid, token) = (&sess["sessionId"], sess["token"].as_str().expect("token"));
    let case = json!({"sessionId": sid, "reasonCode": "MISSING_REWARD", "message": "Finished level 10, no coins yet."});
    let (s, case) = keyed(&app, "/sdk/v2/support", token, "case-000001", &case).await;
    assert_eq!(s, StatusCode::CREATED, "{case}");
    let marker = refuse_inserts(&app, "support_evidence").await;
    let boundary = "----refused-evidence";
    let mut form = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"evidence\"; filename=\"a.pdf\"\r\n\
         Content-Type: application/pdf\r\n\r\n"
    )
    .into_bytes();
    form.extend_from_slice(b"%PDF-1.7\n%%EOF\n");
    form.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let case_id = case["supportCaseId"].as_str().expect("case");
    let res = app
        .client
        .post(app.url(&format!("/sdk/v2/support/{case_id}/evidence")))
        .bearer_auth(token)
        .header("Idempotency-Key", "evidence-refused")
        .header(
            "Content-Type",
            format!("multipart/form-data; boundary={boundary}"),
        )
        .body(form)
        .send()
        .await
        .expect("sent");
    let s = res.status();
    let b: Value = res.json().await.unwrap_or(Value::Null);
    assert_kept(s, &b, &marker);
}

/// The SDK, the sandbox and payment orders refuse the same keys with the same words.
async fn the_one_key_rule_holds_on_every_route(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (_, token) = session(&app, &p, "user-1").await;
    let (_, adv) = app.funded_advertiser(100 * USD).await;
    let body = json!({"sessionId": "x", "reasonCode": "MISSING_REWARD", "message": "Finished level 10, no coins yet."});
    for bad in [
        "short",
        "has space in it",
        "dots.are.refused",
        &"k".repeat(121),
    ] {
        let (s, b) = keyed(&app, "/sdk/v2/support", &token, bad, &body).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {b}");
        let why = b["error"]["fieldErrors"]["Idempotency-Key"]
            .as_str()
            .unwrap_or_default();
        assert!(why.contains("8 to 120 letters, digits, colons"), "{b}");
        let fixture = json!({"provider": "CUSTOM_S2S", "campaignId": "c", "event": {}});
        let (s, b) = keyed(
            &app,
            "/performance-marketing/v2/sandbox/callbacks",
            &adv,
            bad,
            &fixture,
        )
        .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {b}");
        let why = b["error"]["fieldErrors"]["Idempotency-Key"]
            .as_str()
            .unwrap_or_default();
        assert!(why.contains("8 to 120 letters, digits, colons"), "{b}");
        let order = json!({"amount": 10, "currency": "USD", "idempotencyKey": bad});
        let (s, b) = app
            .post(
                "/performance-marketing/v2/billing/funding/payprovider/order",
                Some(&adv),
                &order,
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {b}");
        let why = b["error"]["fieldErrors"]["idempotencyKey"]
            .as_str()
            .unwrap_or_default();
        assert!(why.contains("8 to 120 letters, digits, colons"), "{b}");
    }
}
