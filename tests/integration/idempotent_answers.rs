//! `Idempotency-Key` on the dashboard API's POSTs (issue 35, part 4): a retry gets the first
//! answer without running twice, for the account whatever its token; another request under
//! the same key is refused; a request still running is waited for; the answer is kept for 24
//! hours; without the header nothing changes.

use chrono::Duration;
use reqwest::StatusCode;
use sea_orm::{ActiveModelTrait, EntityTrait, Set};
use serde_json::{Value, json};
use tests::{Backend, TestApp, both_backends, each_backend, error_code};

use app::model::Role;
use tests::builders::USD;
use tests::builders::surveys::{Key, call, issue_key, survey};
use tests::builders::{keyed_replay, replay_answer};

both_backends!(
    a_retried_creation_gets_the_first_answer,
    a_running_or_expired_key_is_told_apart,
    a_signed_survey_creation_is_replayed_only_when_signed,
    a_request_refused_while_pending_succeeds_after_approval,
);
each_backend!(a_request_cut_by_its_deadline_after_its_commit_is_not_run_again);

/// A POST with a key: status, whether it was a replay, and the body.
async fn keyed_post(
    app: &TestApp,
    token: &str,
    key: &str,
    path: &str,
    body: &Value,
) -> (StatusCode, bool, Value) {
    keyed_replay(app, path, token, key, body).await
}

fn placement(name: &str) -> Value {
    json!({"type": "WEBSITE", "name": name, "platformIdentity": "keyed.example.com"})
}

async fn placements(app: &TestApp, token: &str) -> usize {
    let (s, l) = app.get("/publisher/v2/placements", Some(token)).await;
    assert_eq!(s, StatusCode::OK, "{l}");
    l["items"].as_array().map_or(0, Vec::len)
}

async fn a_retried_creation_gets_the_first_answer(app: TestApp) {
    let (user, token) = app.signed_in(Role::Publisher).await;
    let path = "/publisher/v2/placements";
    let (s, replayed, first) =
        keyed_post(&app, &token, "create-plc-0001", path, &placement("A")).await;
    assert_eq!((s, replayed), (StatusCode::CREATED, false), "{first}");
    // Retried, with a token signed in again meanwhile: the same answer, nothing created.
    let again_token = app.token(&user).await;
    let (s, replayed, again) =
        keyed_post(&app, &again_token, "create-plc-0001", path, &placement("A")).await;
    assert_eq!((s, replayed), (StatusCode::CREATED, true));
    assert_eq!(again, first);
    assert_eq!(placements(&app, &token).await, 1);
    // Stored sealed (answers may carry secrets shown once), not as the body.
    let stored = entity::idempotent_request::Entity::find()
        .one(&app.state.ctx.db)
        .await
        .expect("query")
        .and_then(|r| r.response)
        .expect("stored");
    assert!(
        !stored.contains(first["placementId"].as_str().expect("id")),
        "{stored}"
    );

    // The same key for another body is refused; a malformed key is a 400 naming the header.
    let (s, _, refused) = keyed_post(&app, &token, "create-plc-0001", path, &placement("B")).await;
    assert_eq!(
        (s, error_code(&refused)),
        (StatusCode::CONFLICT, "idempotency_key_reused")
    );
    let (s, _, bad) = keyed_post(&app, &token, "short", path, &placement("B")).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(
        bad["error"]["fieldErrors"]["Idempotency-Key"].is_string(),
        "{bad}"
    );

    // A refusal changed nothing: it is not kept, so a retry runs again (issue 52).
    for _ in 0..2 {
        let (s, replayed, invalid) = keyed_post(
            &app,
            &token,
            "create-plc-0002",
            path,
            &json!({"type": "WEBSITE"}),
        )
        .await;
        assert_eq!((s, replayed), (StatusCode::BAD_REQUEST, false), "{invalid}");
    }
    // And the same key then takes the corrected request.
    let (s, replayed, fixed) =
        keyed_post(&app, &token, "create-plc-0002", path, &placement("B")).await;
    assert_eq!((s, replayed), (StatusCode::CREATED, false), "{fixed}");

    // Keys belong to their account: another publisher's same key creates its own.
    let (_, other) = app.signed_in(Role::Publisher).await;
    let (s, replayed, theirs) =
        keyed_post(&app, &other, "create-plc-0001", path, &placement("A")).await;
    assert_eq!((s, replayed), (StatusCode::CREATED, false));
    assert_ne!(theirs["placementId"], first["placementId"]);

    // Without a key, two requests are two placements.
    for _ in 0..2 {
        let (s, p) = app.post(path, Some(&token), &placement("C")).await;
        assert_eq!(s, StatusCode::CREATED, "{p}");
    }
    assert_eq!(placements(&app, &token).await, 4);
}

async fn a_running_or_expired_key_is_told_apart(app: TestApp) {
    let (user, token) = app.signed_in(Role::Publisher).await;
    let path = "/publisher/v2/placements";
    // A first request still running (its record is in progress, locked for a minute).
    let now = app.state.ctx.now();
    entity::idempotent_request::ActiveModel {
        id: Set("idr_running".to_owned()),
        account_id: Set(user.account_id.clone()),
        idempotency_key: Set("running-key-1".to_owned()),
        request_hash: Set(app::domain::crypto::sha256_hex(&format!(
            "POST\n{path}\n{}",
            placement("R")
        ))),
        status_code: Set(None),
        content_type: Set(None),
        response: Set(None),
        created_at: Set(now),
        locked_until: Set(Some(now + Duration::seconds(60))),
    }
    .insert(&app.state.ctx.db)
    .await
    .expect("insert");
    let res = app
        .client
        .post(app.url(path))
        .bearer_auth(&token)
        .header("Idempotency-Key", "running-key-1")
        .json(&placement("R"))
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::CONFLICT);
    assert_eq!(res.headers()["retry-after"], "1");
    let body: Value = res.json().await.expect("json");
    assert_eq!(error_code(&body), "idempotency_in_progress");
    assert_eq!(placements(&app, &token).await, 0);

    // Abandoned (the process stopped): once the lock lapses a retry runs, and of two
    // retries at once exactly one takes it over (issue 52, item 9); the other is told to
    // wait, then gets the first one's answer.
    app.clock.advance(Duration::seconds(61));
    let body = placement("R");
    let (a, b) = tokio::join!(
        keyed_post(&app, &token, "running-key-1", path, &body),
        keyed_post(&app, &token, "running-key-1", path, &body),
    );
    let (ran, waited) = if a.0 == StatusCode::CREATED && !a.1 {
        (a, b)
    } else {
        (b, a)
    };
    assert_eq!((ran.0, ran.1), (StatusCode::CREATED, false), "{}", ran.2);
    assert!(
        waited.0 == StatusCode::CONFLICT || (waited.0 == StatusCode::CREATED && waited.1),
        "the second retry waits or replays: {:?}",
        waited
    );
    assert_eq!(placements(&app, &token).await, 1, "one placement, not two");
    let first = ran.2;

    // Kept 24 hours: after that the key is new again, and the sweep forgets old answers.
    app.clock.advance(Duration::hours(25));
    let token = app.token(&user).await;
    let (s, replayed, later) =
        keyed_post(&app, &token, "running-key-1", path, &placement("R")).await;
    assert_eq!((s, replayed), (StatusCode::CREATED, false));
    assert_ne!(later["placementId"], first["placementId"]);
    app.clock.advance(Duration::hours(25));
    let gone = app::domain::idempotency::stored::sweep(&app.state.ctx)
        .await
        .expect("sweep");
    assert_eq!(gone, 1);
}

/// A signed survey API creation with a key; `sign` false sends a wrong signature.
async fn signed_create(
    app: &TestApp,
    key: &Key,
    idem: &str,
    body: &Value,
    sign: bool,
) -> (StatusCode, bool, Value) {
    use app::domain::surveys::signature::{digest, signed_input};
    let url = app.url("/api/v1/campaigns/create");
    let text = body.to_string();
    let secret = if sign {
        key.secret.clone()
    } else {
        "wrong".to_owned()
    };
    let enc = digest(key.kind, &signed_input(&url, text.as_bytes(), &secret));
    let res = app
        .client
        .post(format!("{url}?enc={enc}"))
        .header("X-Api-Key", &key.api_key)
        .header("Idempotency-Key", idem)
        .header("Content-Type", "application/json")
        .body(text)
        .send()
        .await
        .expect("sent");
    replay_answer(res).await
}

/// The signed survey API: a retry is answered from the store only once its signature holds.
async fn a_signed_survey_creation_is_replayed_only_when_signed(app: TestApp) {
    let (_, adv) = app.funded_advertiser(100 * USD).await;
    let key = issue_key(&app, &adv, "SHA256").await;
    let body = survey("Keyed survey");
    let (s, replayed, first) = signed_create(&app, &key, "survey-create-1", &body, true).await;
    assert_eq!((s, replayed), (StatusCode::CREATED, false), "{first}");
    let (s, _, refused) = signed_create(&app, &key, "survey-create-1", &body, false).await;
    assert_eq!(
        s,
        StatusCode::UNAUTHORIZED,
        "a wrong signature gets no stored answer: {refused}"
    );
    let (s, replayed, again) = signed_create(&app, &key, "survey-create-1", &body, true).await;
    assert_eq!((s, replayed), (StatusCode::CREATED, true));
    assert_eq!(again, first);
    let (s, _, reused) =
        signed_create(&app, &key, "survey-create-1", &survey("Another"), true).await;
    assert_eq!(
        (s, error_code(&reused)),
        (StatusCode::CONFLICT, "idempotency_key_reused")
    );
    let (s, list) = call(
        &app,
        &key,
        reqwest::Method::GET,
        "/api/v1/campaigns/getcampaigns",
        None,
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{list}");
    assert_eq!(list["count"], 1, "created once: {list}");
}

/// A pending advertiser's creation is refused with 403 `account_pending`; retried with the
/// same key after the approval, it runs (the refusal was not stored for 24 hours).
async fn a_request_refused_while_pending_succeeds_after_approval(app: TestApp) {
    let (s, reg) = app
        .post(
            "/auth/v1/accounts",
            None,
            &json!({"email": "keyed@adv.example", "password": "long enough pw",
                    "role": "ADVERTISER", "companyName": "Keyed"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{reg}");
    let account_id = reg["accountId"].as_str().expect("id").to_owned();
    let (_, tok) = app
        .post(
            "/auth/v1/tokens",
            None,
            &json!({"email": "keyed@adv.example", "password": "long enough pw"}),
        )
        .await;
    let pending = tok["token"].as_str().expect("token").to_owned();
    let path = "/performance-marketing/v2/survey-api/credentials";
    let body = json!({"encryptionType": "SHA256"});
    let (s, replayed, refused) = keyed_post(&app, &pending, "cred-key-0001", path, &body).await;
    assert_eq!((s, replayed), (StatusCode::FORBIDDEN, false), "{refused}");
    assert_eq!(error_code(&refused), "account_pending");

    let (_, admin) = app.signed_in(Role::Admin).await;
    let (s, approved) = app.approve_advertiser(&admin, &account_id).await;
    assert_eq!(s, StatusCode::OK, "{approved}");
    let (s, replayed, issued) = keyed_post(&app, &pending, "cred-key-0001", path, &body).await;
    assert_eq!((s, replayed), (StatusCode::CREATED, false), "{issued}");
}

/// A campaign paused under a key commits, then waits for the inventory to drop the offer;
/// held past the request's deadline (1 s here) its client gets 408. The request still runs to
/// its end and keeps its answer: the retry is the stored answer, not a second run (before,
/// the key stayed "in progress" for a minute and then the pause ran again).
async fn a_request_cut_by_its_deadline_after_its_commit_is_not_run_again(backend: Backend) {
    use tests::builders::{campaign_body, live_campaign};
    let app = TestApp::spawn_with(backend, &["--request-deadline-seconds", "1"]).await;
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let (game, _, _) =
        live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let path = format!("{}/{game}/transition", tests::builders::CAMPAIGNS);
    let body = json!({"to": "PAUSED"});
    let held = app.state.ctx.inventory.hold_builds().await;
    let (s, replayed, cut) = keyed_post(&app, &adv, "pause-0000001", &path, &body).await;
    assert_eq!((s, replayed), (StatusCode::REQUEST_TIMEOUT, false), "{cut}");
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    drop(held);
    let started = std::time::Instant::now();
    let (s, replayed, again) = loop {
        let answer = keyed_post(&app, &adv, "pause-0000001", &path, &body).await;
        let running =
            answer.0 == StatusCode::CONFLICT && error_code(&answer.2) == "idempotency_in_progress";
        if !running || started.elapsed() > std::time::Duration::from_secs(8) {
            break answer;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    assert_eq!((s, replayed), (StatusCode::OK, true), "{again}");
    assert_eq!(again["status"], "PAUSED", "{again}");
}
