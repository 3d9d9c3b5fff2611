//! Reward callbacks end to end against a real HTTPS receiver (its own CA, trusted through
//! `--callback-ca-file`): a signed confirmation arrives after an approved postback and a
//! linked reversal after a reversed one; failures are retried with the same
//! Idempotency-Key; rewards wait for a receiver and for pending holds; late conversions of
//! a paused campaign are paid; concurrent workers deliver each event once; the console
//! lists, shows and replays deliveries.

use app::model::Role;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::builders::callbacks::*;
use tests::receiver::{Answer, Received, Receiver};
use tests::{Backend, TestApp, error_code};

use tests::builders::{USD, session};
use tests::builders::{campaign_body, transition};

tests::each_backend!(
    callbacks_arrive_signed_and_reversals_follow,
    failing_receivers_are_retried_with_the_same_key,
    rewards_wait_for_a_receiver_and_for_pending_holds,
    late_conversions_after_a_pause_are_paid_from_the_wallet,
    concurrent_workers_deliver_each_callback_once,
    accepted_postbacks_survive_sigkill_and_two_processes_deliver_once,
    survey_completes_arrive_as_signed_reward_callbacks,
);

async fn callbacks_arrive_signed_and_reversals_follow(backend: Backend) {
    let (rx, w) = s2s_world(backend, true).await;
    let (key_id, secret) = configure(&w.app, &w.p, &rx.url).await;
    let (token, clk) = click(&w.app, &w.p, "user-1", &w.campaign).await;
    w.report(&clk, "order-1", "approved").await;

    // The background worker of the running server delivers within seconds.
    w.wait_delivered(1).await;
    let got = rx.received();
    assert_eq!(got.len(), 1, "{got:?}");
    let confirmed = &got[0];
    assert!(
        confirmed.verifies(&secret),
        "signature must verify independently: {confirmed:?}"
    );
    assert!(!confirmed.verifies("another-secret"));
    let event = confirmed.json();
    assert_eq!(event["eventType"], "reward.confirmed");
    assert_eq!(event["externalUserId"], "user-1");
    assert_eq!(event["reward"]["minorUnits"], 105);
    assert_eq!(
        confirmed.header("idempotency-key"),
        event["eventId"].as_str().unwrap_or("?")
    );
    assert_eq!(confirmed.header("x-service-key-id"), key_id);
    assert!(chrono::DateTime::parse_from_rfc3339(confirmed.header("x-service-timestamp")).is_ok());
    assert_eq!(confirmed.header("x-service-nonce").len(), 32);
    let (_, rs) = w.app.get("/sdk/v2/reward-status", Some(&token)).await;
    assert_eq!(rs["totals"]["earnedMinorUnits"], 105, "{rs}");
    let (id, stranger) = the_console_lists_and_details_it(&w, &event, confirmed, &secret).await;
    a_reversal_follows_the_confirmation(&w, &rx, &clk, &secret, (&event, confirmed)).await;
    a_replay_sends_the_same_event_again(&w, &rx, (&id, &stranger), &secret).await;
}

/// The console lists the delivery, filters it, details it with its attempt (and no secret);
/// another publisher sees 404. Returns the delivery id and the other publisher's token.
async fn the_console_lists_and_details_it(
    w: &World,
    event: &Value,
    confirmed: &Received,
    secret: &str,
) -> (String, String) {
    // The console: listed, filterable, detailed with its attempt; another publisher sees 404.
    let list = w.deliveries("?status=DELIVERED").await;
    assert_eq!(list["count"], 1, "{list}");
    let id = list["items"][0]["deliveryId"]
        .as_str()
        .expect("id")
        .to_owned();
    assert_eq!(id, event["eventId"].as_str().unwrap_or("?"));
    assert_eq!(w.deliveries("?status=FAILED").await["count"], 0);
    assert_eq!(w.deliveries("?externalUserId=user-2").await["count"], 0);
    let txn = event["transactionId"].as_str().unwrap_or("?");
    assert_eq!(
        w.deliveries(&format!("?transactionId={txn}")).await["count"],
        1
    );
    let (s, e) = w
        .app
        .get(
            "/publisher/v2/callback-deliveries?status=LOST",
            Some(&w.p.token),
        )
        .await;
    assert_eq!(
        (s, error_code(&e)),
        (StatusCode::BAD_REQUEST, "invalid_input")
    );
    let (s, detail) = w.delivery(&id).await;
    assert_eq!(s, StatusCode::OK, "{detail}");
    assert_eq!(detail["attempts"][0]["responseStatus"], 200, "{detail}");
    assert_eq!(detail["body"], confirmed.body.as_str());
    assert!(
        !detail.to_string().contains(secret),
        "no secret in the console"
    );
    let (_, stranger) = w.app.signed_in(Role::Publisher).await;
    assert_eq!(
        w.app
            .get(
                &format!("/publisher/v2/callback-deliveries/{id}"),
                Some(&stranger)
            )
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        w.app
            .get("/publisher/v2/callback-deliveries", Some(&stranger))
            .await
            .1["count"],
        0
    );
    (id, stranger)
}

/// A reversal arrives after the confirmation, linked to it, with its own Idempotency-Key.
async fn a_reversal_follows_the_confirmation(
    w: &World,
    rx: &Receiver,
    clk: &str,
    secret: &str,
    (event, confirmed): (&Value, &Received),
) {
    // A reversal arrives after the confirmation, linked to it.
    w.report(clk, "order-1", "reversed").await;
    // The running worker and this drain race for it; either one sends it.
    w.app.run_workers_once().await;
    let got = received_at_least(rx, 2).await;
    assert_eq!(got.len(), 2, "{got:?}");
    let reversed = got[1].json();
    assert!(got[1].verifies(secret));
    assert_eq!(reversed["eventType"], "reward.reversed");
    assert_eq!(reversed["reversesEventId"], event["eventId"]);
    assert_eq!(reversed["transactionId"], event["transactionId"]);
    assert_ne!(
        got[1].header("idempotency-key"),
        confirmed.header("idempotency-key")
    );
}

/// Replay: the same event and Idempotency-Key with a fresh signature, then its reversal
/// again; another publisher cannot replay it.
async fn a_replay_sends_the_same_event_again(
    w: &World,
    rx: &Receiver,
    (id, stranger): (&str, &str),
    secret: &str,
) {
    // Replay: the same event and Idempotency-Key with a fresh signature.
    let (s, r) = w
        .app
        .post(
            &format!("/publisher/v2/callback-deliveries/{id}/replay"),
            Some(&w.p.token),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::ACCEPTED, "{r}");
    assert_eq!(
        w.app
            .post(
                &format!("/publisher/v2/callback-deliveries/{id}/replay"),
                Some(stranger),
                &json!({})
            )
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    w.app.run_workers_once().await;
    // The replayed confirmation, then its reversal again.
    let got = received_at_least(rx, 4).await;
    let replayed = got
        .iter()
        .filter(|r| r.header("idempotency-key") == id)
        .collect::<Vec<_>>();
    assert_eq!(replayed.len(), 2, "{got:?}");
    assert_eq!(replayed[0].body, replayed[1].body);
    assert_ne!(
        replayed[0].header("x-service-nonce"),
        replayed[1].header("x-service-nonce")
    );
    assert!(replayed[1].verifies(secret));
    let (_, detail) = w.delivery(&id).await;
    assert_eq!(detail["replays"], 1);
    assert_eq!(detail["attempts"][1]["replay"], true, "{detail}");
}

/// What the receiver got once it has `n` requests (or after five seconds).
async fn received_at_least(rx: &Receiver, n: usize) -> Vec<tests::receiver::Received> {
    for _ in 0..100 {
        if rx.received().len() >= n {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    rx.received()
}

async fn failing_receivers_are_retried_with_the_same_key(backend: Backend) {
    let (rx, w) = s2s_world(backend, false).await;
    let (_, secret) = configure(&w.app, &w.p, &rx.url).await;
    let (_, clk) = click(&w.app, &w.p, "user-1", &w.campaign).await;
    rx.answer(&[
        Answer::Status(500),
        Answer::Hang(std::time::Duration::from_secs(3)),
    ]);
    w.report(&clk, "order-1", "approved").await;

    w.app.run_workers_once().await; // 500
    w.app.clock.advance(chrono::Duration::seconds(6));
    w.app.run_workers_once().await; // times out
    rx.stop();
    w.app.clock.advance(chrono::Duration::minutes(6));
    w.app.run_workers_once().await; // connection refused
    rx.resume().await;
    rx.answer(&[Answer::Status(503)]);
    w.app.clock.advance(chrono::Duration::minutes(40));
    w.app.run_workers_once().await; // 503 with Retry-After: 120
    let list = w.deliveries("").await;
    let item = &list["items"][0];
    assert_eq!(item["status"], "PENDING", "{list}");
    assert_eq!(item["attemptCount"], 4);
    let next = chrono::DateTime::parse_from_rfc3339(item["nextAttemptAt"].as_str().expect("next"))
        .expect("date");
    assert!(
        next.to_utc() >= w.app.clock_now() + chrono::Duration::seconds(120),
        "Retry-After honoured: {item}"
    );
    w.app.clock.advance(chrono::Duration::seconds(100));
    w.app.run_workers_once().await;
    assert_eq!(
        w.deliveries("").await["items"][0]["attemptCount"],
        4,
        "not before Retry-After"
    );
    w.app.clock.advance(chrono::Duration::hours(3));
    w.app.run_workers_once().await; // accepted

    let id = item["deliveryId"].as_str().expect("id");
    let (_, detail) = w.delivery(id).await;
    assert_eq!(detail["status"], "DELIVERED", "{detail}");
    let classes: Vec<Value> = detail["attempts"]
        .as_array()
        .expect("attempts")
        .iter()
        .map(|a| a["errorClass"].clone())
        .collect();
    assert_eq!(
        classes,
        vec![
            json!("http_status"),
            json!("timeout"),
            json!("connect"),
            json!("http_status"),
            Value::Null
        ],
        "{detail}"
    );
    let statuses: Vec<Value> = detail["attempts"]
        .as_array()
        .expect("attempts")
        .iter()
        .map(|a| a["responseStatus"].clone())
        .collect();
    assert_eq!(
        statuses,
        vec![json!(500), Value::Null, Value::Null, json!(503), json!(200)]
    );
    // Every request carried the same Idempotency-Key and a valid fresh signature; exactly one
    // was accepted.
    // The 500, the 503 and the accepted one; the timed-out one too when the receiver
    // recorded it before the connection closed (the refused one never arrives).
    let got = rx.received();
    assert!((3..=4).contains(&got.len()), "{got:?}");
    assert!(
        got.iter()
            .all(|r| r.header("idempotency-key") == id && r.verifies(&secret))
    );
    assert_eq!(rx.accepted().len(), 1);
    let health = w
        .app
        .get(
            &format!("/publisher/v2/placements/{}/callback/health", w.p.placement),
            Some(&w.p.token),
        )
        .await
        .1;
    assert_eq!(health["attempts24h"], 5, "{health}");
    assert_eq!(health["successRatePercent"], 20);
    assert!(health["lastFailure"].is_string());
}

async fn rewards_wait_for_a_receiver_and_for_pending_holds(backend: Backend) {
    let rx = Receiver::start().await;
    let mut body = campaign_body("CUSTOM_S2S", 100 * USD);
    body["goals"][0]["pendingMinutes"] = json!(60);
    let w = world(app_for(backend, &rx, false).await, body).await;

    // No receiver yet: the reward is kept, not dropped.
    let (token, clk) = click(&w.app, &w.p, "user-1", &w.campaign).await;
    w.report(&clk, "order-1", "approved").await;
    w.app.run_workers_once().await;
    let list = w.deliveries("").await;
    assert_eq!(list["items"][0]["status"], "WAITING_RECEIVER", "{list}");
    let health = format!("/publisher/v2/placements/{}/callback/health", w.p.placement);
    let (s, h) = w.app.get(&health, Some(&w.p.token)).await;
    assert_eq!(
        (s, h["waitingForReceiver"].as_u64()),
        (StatusCode::OK, Some(1)),
        "{h}"
    );

    // The hold: pending in reward status, nothing sent before it ends.
    let (_, rs) = w.app.get("/sdk/v2/reward-status", Some(&token)).await;
    assert_eq!(rs["totals"]["pendingMinorUnits"], 105, "{rs}");
    let (_, secret) = configure(&w.app, &w.p, &rx.url).await;
    assert_eq!(w.deliveries("").await["items"][0]["status"], "HELD");
    w.app.run_workers_once().await;
    assert!(rx.received().is_empty());

    // A second reward reversed during its hold is cancelled without any callback.
    let (_, clk2) = click(&w.app, &w.p, "user-2", &w.campaign).await;
    w.report(&clk2, "order-2", "approved").await;
    w.report(&clk2, "order-2", "reversed").await;
    assert_eq!(w.deliveries("?status=CANCELLED").await["count"], 1);

    w.app.clock.advance(chrono::Duration::minutes(61));
    w.app.run_workers_once().await;
    let got = rx.received();
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].verifies(&secret));
    assert_eq!(got[0].json()["externalUserId"], "user-1");
    let (_, token) = session(&w.app, &w.p, "user-1").await;
    let (_, rs) = w.app.get("/sdk/v2/reward-status", Some(&token)).await;
    assert_eq!(rs["totals"]["earnedMinorUnits"], 105, "{rs}");
}

async fn late_conversions_after_a_pause_are_paid_from_the_wallet(backend: Backend) {
    let (rx, w) = s2s_world(backend, false).await;
    configure(&w.app, &w.p, &rx.url).await;
    let (_, clk) = click(&w.app, &w.p, "user-1", &w.campaign).await;
    let (s, c) = transition(&w.app, &w.adv, &w.campaign, "PAUSED").await;
    assert_eq!(s, StatusCode::OK, "{c}");
    let (available, reserved, spent) = w.app.balance(&w.adv).await;
    assert_eq!(reserved, 0, "pausing released the reserve");
    w.report(&clk, "order-1", "approved").await;
    assert_eq!(
        w.app.balance(&w.adv).await,
        (available - 1_500_000, 0, spent + 1_500_000)
    );
    w.app.run_workers_once().await;
    assert_eq!(rx.accepted().len(), 1, "the publisher is credited");
}

async fn concurrent_workers_deliver_each_callback_once(backend: Backend) {
    let (rx, w) = s2s_world(backend, false).await;
    configure(&w.app, &w.p, &rx.url).await;
    const USERS: usize = 8;
    for i in 0..USERS {
        let (_, clk) = click(&w.app, &w.p, &format!("user-{i}"), &w.campaign).await;
        w.report(&clk, &format!("order-{i}"), "approved").await;
    }
    // Two workers (each its own claim owner) race for the same outbox.
    let (a, b) = tokio::join!(
        server::workers::callbacks::run_once(&w.app.state),
        server::workers::callbacks::run_once(&w.app.state)
    );
    assert_eq!(
        a.expect("worker a") + b.expect("worker b"),
        USERS,
        "each delivery claimed once"
    );
    let got = rx.received();
    assert_eq!(got.len(), USERS, "{got:?}");
    assert_eq!(rx.accepted().len(), USERS);
    assert_eq!(w.deliveries("?status=DELIVERED").await["count"], USERS);
}

use tests::process::ServerProcess as Process;

/// A `server` process of the real binary on the test's database, trusting the receiver.
async fn start_process(app: &TestApp, rx: &Receiver, workers: bool) -> Process {
    let ca = rx.ca_file.display().to_string();
    tests::process::start(
        &app.database_url,
        &[
            ("APP_CALLBACK_ALLOW_PRIVATE", "true"),
            ("APP_CALLBACK_CA_FILE", ca.as_str()),
            ("APP_RUN_WORKERS", if workers { "true" } else { "false" }),
        ],
        "/healthz",
    )
    .await
}

/// Reports a signed approved conversion to a server process (its clock is the real one).
async fn report_to(p: &Process, w: &World, click: &str, txn: &str, occurred: &str) -> StatusCode {
    use app::model::campaign::rules::s2s_message;
    let ts = chrono::Utc::now().timestamp().to_string();
    let sig = app::domain::crypto::hmac_sha256_hex(
        w.secret.as_bytes(),
        s2s_message(&ts, click, txn, "install", "approved", occurred).as_bytes(),
    );
    w.app
        .client
        .post(format!("{}/performance-marketing/v2/postbacks/custom-s2s/{}", p.base, w.campaign))
        .header("X-Service-Key-Id", &w.key_id)
        .header("X-Service-Timestamp", ts)
        .header("X-Service-Signature", sig)
        .json(&json!({"click_id": click, "transaction_id": txn, "goal_id": "install", "status": "approved", "occurred_at": occurred}))
        .send()
        .await
        .map(|r| r.status())
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

async fn accepted_postbacks_survive_sigkill_and_two_processes_deliver_once(backend: Backend) {
    let (rx, w) = s2s_world(backend, false).await;
    configure(&w.app, &w.p, &rx.url).await;
    const USERS: usize = 6;
    let mut clicks = Vec::new();
    for i in 0..USERS {
        clicks.push(
            click(&w.app, &w.p, &format!("user-{i}"), &w.campaign)
                .await
                .1,
        );
    }
    let occurred = w
        .app
        .clock_now()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    // A web-only process accepts every postback, then dies by SIGKILL before any delivery.
    let mut web = start_process(&w.app, &rx, false).await;
    for (i, clk) in clicks.iter().enumerate() {
        assert_eq!(
            report_to(&web, &w, clk, &format!("order-{i}"), &occurred).await,
            StatusCode::OK
        );
    }
    web.child.start_kill().expect("SIGKILL");
    let _ = web.child.wait().await;
    assert!(rx.received().is_empty());

    // Two processes with workers on the same database deliver every accepted postback once.
    let a = start_process(&w.app, &rx, true).await;
    let b = start_process(&w.app, &rx, true).await;
    for _ in 0..300 {
        if rx.accepted().len() == USERS {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    // A duplicate from two processes claiming one row would come at once; one from a
    // delivery wrongly retried would come with the first retry, 5 s later. (A re-send after
    // a lost lease, 60 s later, is `callback_rules.rs`, on the test clock.)
    tokio::time::sleep(std::time::Duration::from_secs(6)).await;
    let got = rx.received();
    assert_eq!(rx.accepted().len(), USERS, "{got:?}");
    assert_eq!(got.len(), USERS, "each callback sent exactly once: {got:?}");
    assert_eq!(w.deliveries("?status=DELIVERED").await["count"], USERS);
    drop((a, b));
}

/// A paid survey complete reaches the publisher's receiver as a signed reward callback,
/// through the same worker and signing as offer rewards.
async fn survey_completes_arrive_as_signed_reward_callbacks(backend: Backend) {
    use tests::builders::surveys::call;
    use tests::builders::surveys::{enter, market_with};
    let rx = Receiver::start().await;
    let app = app_for(backend, &rx, false).await;
    let m = market_with(&app, "SHA256", 2).await;
    let (s, cb) = app
        .put(
            &format!("/publisher/v2/placements/{}/callback", m.placement),
            Some(&m.pub_token),
            &json!({"url": rx.url}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{cb}");
    let secret = cb["secret"].as_str().expect("secret").to_owned();
    let tx = enter(&app, &m, "respondent-7").await.expect("offered");
    let path = format!("/api/v1/campaigns/{}/respondent-status", m.campaign);
    let (s, r) = call(
        &app,
        &m.key,
        reqwest::Method::POST,
        &path,
        Some(&json!({"transaction_id": tx, "status": "complete"})),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    app.run_workers_once().await;
    let got = rx.received();
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(got[0].verifies(&secret), "{:?}", got[0]);
    let event = got[0].json();
    assert_eq!(event["eventType"], "reward.confirmed");
    assert_eq!(event["externalUserId"], "respondent-7");
    assert_eq!(event["goalId"], "survey_complete", "{event}");
    // 70 % of the 2.50 USD CPI at 100 coins per USD.
    assert_eq!(event["reward"]["minorUnits"], 175, "{event}");
}
