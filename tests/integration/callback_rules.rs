//! Reward-callback rules that decide whether a publisher hears of a reward (issue 28,
//! item 11): a delivery is FAILED after its last attempt and never sent again; a send whose
//! worker died is sent again once its lease has run out, and only once; and the address is
//! checked again at send time, so a receiver that points at a private address by then gets
//! nothing.

use chrono::Duration;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, IntoActiveModel, QueryFilter, QueryOrder, Set,
};
use tests::Backend;
use tests::receiver::{Answer, Receiver};

use app::domain::callback_delivery::{LEASE_SECONDS, MAX_ATTEMPTS, dispatch};

use tests::builders::USD;
use tests::builders::callbacks::{configure, unconfigured, world};
use tests::builders::callbacks::{queue, receiving, request, row};
use tests::builders::campaign_body;

tests::each_backend!(
    the_last_failed_attempt_fails_the_delivery_for_good,
    a_dead_workers_send_goes_again_once_after_its_lease,
    a_late_worker_cannot_reopen_a_delivered_callback,
    a_receiver_that_turned_private_gets_nothing,
    an_attempt_keeps_only_a_short_excerpt_of_the_answer,
    a_test_event_reaches_the_receiver_signed_and_is_never_credited,
);

async fn the_last_failed_attempt_fails_the_delivery_for_good(backend: Backend) {
    let (rx, w) = receiving(backend).await;
    let ids = queue(&w, &w.p.placement, 1, 0).await;
    // Nine attempts have failed already: the next one is the last.
    let mut a = row(&w, &ids[0]).await.into_active_model();
    a.attempts = Set(MAX_ATTEMPTS - 1);
    a.update(&w.app.state.ctx.db).await.expect("attempts");
    rx.answer(&[Answer::Status(500)]);
    w.app.run_workers_once().await;
    let r = row(&w, &ids[0]).await;
    assert_eq!((r.status.as_str(), r.attempts), ("FAILED", MAX_ATTEMPTS));
    assert!(r.failed_at.is_some(), "{r:?}");
    assert_eq!(rx.received().len(), 1);
    // However long it waits, a failed delivery is not sent again (only a replay sends it).
    for _ in 0..3 {
        w.app.clock.advance(Duration::days(2));
        w.app.run_workers_once().await;
    }
    assert_eq!(rx.received().len(), 1);
    assert_eq!(
        row(&w, &ids[0]).await.status,
        entity::values::DeliveryStatus::Failed
    );
}

async fn a_dead_workers_send_goes_again_once_after_its_lease(backend: Backend) {
    let (rx, w) = receiving(backend).await;
    let ids = queue(&w, &w.p.placement, 1, 0).await;
    // A worker claimed the delivery and died before it sent or recorded anything.
    let claimed = dispatch::claim(&w.app.state.ctx, request("wrk_dead", 1, 1))
        .await
        .expect("claim");
    assert_eq!(claimed.len(), 1);
    w.app.run_workers_once().await;
    assert!(rx.received().is_empty(), "the lease is still held");
    w.app.clock.advance(Duration::seconds(LEASE_SECONDS + 1));
    w.app.run_workers_once().await;
    assert_eq!(rx.received().len(), 1, "sent once the lease ran out");
    w.app.clock.advance(Duration::seconds(2 * LEASE_SECONDS));
    w.app.run_workers_once().await;
    assert_eq!(rx.received().len(), 1, "and only once");
    let r = row(&w, &ids[0]).await;
    assert_eq!((r.status.as_str(), r.attempts), ("DELIVERED", 1));
}

/// A worker whose lease ran out while it waited for the receiver comes back with a
/// failure after another worker delivered the callback: its record changes nothing (the
/// delivery stays DELIVERED with one attempt, nothing is retried or sent again; issue 52,
/// item 6, `dispatch/record.rs`).
async fn a_late_worker_cannot_reopen_a_delivered_callback(backend: Backend) {
    let (rx, w) = receiving(backend).await;
    let ids = queue(&w, &w.p.placement, 1, 0).await;
    let ctx = &w.app.state.ctx;
    let mut slow = dispatch::claim(ctx, request("wrk_slow", 1, 1))
        .await
        .expect("claim");
    assert_eq!(slow.len(), 1);
    w.app.clock.advance(Duration::seconds(LEASE_SECONDS + 1));
    w.app.run_workers_once().await;
    assert_eq!(
        row(&w, &ids[0]).await.status,
        entity::values::DeliveryStatus::Delivered
    );
    let late = dispatch::Finished {
        claimed: slow.remove(0),
        sent: None,
        outcome: dispatch::Outcome {
            started_at: ctx.now(),
            latency_ms: 10_000,
            error_class: Some("timeout".to_owned()),
            error_message: Some("no answer".to_owned()),
            ..dispatch::Outcome::default()
        },
    };
    let recorded = dispatch::record_batch(ctx, "wrk_slow", vec![late])
        .await
        .expect("record");
    assert!(recorded.is_empty(), "{recorded:?}");
    let r = row(&w, &ids[0]).await;
    assert_eq!((r.status.as_str(), r.attempts), ("DELIVERED", 1));
    w.app.clock.advance(Duration::hours(1));
    w.app.run_workers_once().await;
    assert_eq!(rx.received().len(), 1, "never sent again");
}

/// The console shows what a receiver answered, but only 256 bytes of it: replays go only to
/// the configured receiver, so the console cannot be used to read arbitrary services.
async fn an_attempt_keeps_only_a_short_excerpt_of_the_answer(backend: Backend) {
    let (rx, w) = receiving(backend).await;
    let ids = queue(&w, &w.p.placement, 1, 0).await;
    rx.answer(&[Answer::Long(500)]);
    w.app.run_workers_once().await;
    let attempt = entity::callback_delivery_attempt::Entity::find()
        .filter(entity::callback_delivery_attempt::Column::DeliveryId.eq(ids[0].clone()))
        .one(&w.app.state.ctx.db)
        .await
        .expect("q")
        .expect("an attempt is recorded");
    assert_eq!(attempt.response_status, Some(500));
    assert_eq!(attempt.response_excerpt.map(|e| e.len()), Some(256));
}

async fn a_receiver_that_turned_private_gets_nothing(backend: Backend) {
    let rx = Receiver::start().await;
    let ca = rx.ca_file.display().to_string();
    // Private receivers not allowed (the production setting).
    let app = tests::TestApp::spawn_with(
        backend,
        &["--callback-ca-file", &ca, "--callback-timeout-seconds", "1"],
    )
    .await;
    let w = world(app, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    // Configured with a public address, which later points at this machine (as a name
    // whose DNS answer changed would).
    configure(&w.app, &w.p, "https://93.184.216.34/rewards").await;
    let p = entity::placement::Entity::find_by_id(w.p.placement.clone())
        .one(&w.app.state.ctx.db)
        .await
        .expect("q")
        .expect("placement");
    let mut a = p.into_active_model();
    a.callback_url = Set(Some(rx.url.clone()));
    a.update(&w.app.state.ctx.db).await.expect("url");
    let ids = queue(&w, &w.p.placement, 1, 0).await;
    w.app.run_workers_once().await;
    assert!(
        rx.received().is_empty(),
        "nothing reaches a private address"
    );
    let attempt = entity::callback_delivery_attempt::Entity::find()
        .filter(entity::callback_delivery_attempt::Column::DeliveryId.eq(ids[0].clone()))
        .order_by_desc(entity::callback_delivery_attempt::Column::StartedAt)
        .one(&w.app.state.ctx.db)
        .await
        .expect("q")
        .expect("an attempt is recorded");
    assert_eq!(attempt.error_class.as_deref(), Some("address_refused"));
    let r = row(&w, &ids[0]).await;
    assert_eq!(
        (r.status.as_str(), r.attempts),
        ("PENDING", 1),
        "retried later"
    );
}

/// "Send test": the receiver gets a signed event marked as a test and its answer comes back;
/// nothing is queued, credited or retried; a refusal is reported, not raised; the preview
/// (`callback/test`) still sends nothing.
async fn a_test_event_reaches_the_receiver_signed_and_is_never_credited(backend: Backend) {
    let (rx, w) = unconfigured(backend).await;
    let path = format!("/publisher/v2/placements/{}/callback/test", w.p.placement);
    let send = format!("{path}/send");
    let (s, e) = w
        .app
        .post(&send, Some(&w.p.token), &serde_json::json!({}))
        .await;
    assert_eq!(s, reqwest::StatusCode::CONFLICT, "no receiver yet: {e}");
    let (_, secret) = configure(&w.app, &w.p, &rx.url).await;
    rx.answer(&[Answer::Long(418)]);
    let (s, refused) = w
        .app
        .post(&send, Some(&w.p.token), &serde_json::json!({}))
        .await;
    assert_eq!(s, reqwest::StatusCode::OK, "{refused}");
    assert_eq!(refused["answer"]["accepted"], false, "{refused}");
    assert_eq!(refused["answer"]["responseStatus"], 418);
    // Status and timing only: the receiver's 4 KiB body is not shown (issue 52).
    assert!(refused["answer"]["responseExcerpt"].is_null(), "{refused}");
    assert!(refused["answer"]["latencyMs"].is_number(), "{refused}");
    let (s, sent) = w
        .app
        .post(&send, Some(&w.p.token), &serde_json::json!({}))
        .await;
    assert_eq!(s, reqwest::StatusCode::OK, "{sent}");
    assert_eq!(sent["deliveredExternally"], true);
    assert_eq!(sent["answer"]["accepted"], true, "{sent}");
    assert_eq!(sent["answer"]["responseStatus"], 200);
    let got = rx.received();
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got[1].verifies(&secret), "signed with the current key");
    assert_eq!(got[1].json()["test"], true);
    assert_eq!(got[1].body, sent["body"].as_str().unwrap_or("?"));
    let (_, preview) = w
        .app
        .post(&path, Some(&w.p.token), &serde_json::json!({}))
        .await;
    assert_eq!(preview["deliveredExternally"], false);
    assert!(preview.get("answer").is_none(), "{preview}");
    assert_eq!(rx.received().len(), 2, "the preview sends nothing");
    let queued = entity::callback_delivery::Entity::find()
        .all(&w.app.state.ctx.db)
        .await
        .expect("q");
    assert!(queued.is_empty(), "a test is never a delivery: {queued:?}");
    // A receiver that does not answer is reported as a timeout before the request deadline.
    rx.answer(&[Answer::Hang(std::time::Duration::from_secs(9))]);
    let (s, slow) = w
        .app
        .post(&send, Some(&w.p.token), &serde_json::json!({}))
        .await;
    assert_eq!(s, reqwest::StatusCode::OK, "{slow}");
    assert_eq!(slow["answer"]["errorClass"], "timeout", "{slow}");
}
