//! Reward-callback delivery under real traffic: fair claims across placements, leases that
//! are checked before an outcome is recorded, rewards settled while a receiver is being
//! configured, reversals after a failed replay, unreadable keys, and dead receivers that
//! are paused and resumed.

use app::domain::callback_delivery::dispatch::{self, ClaimRequest, Finished, Outcome};
use chrono::Duration;
use entity::callback_delivery;
use reqwest::StatusCode;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::json;
use tests::Backend;
use tests::receiver::Answer;

use tests::builders::callbacks::*;
use tests::builders::publisher;

tests::each_backend!(
    claims_take_every_placement_before_any_backlog,
    an_outcome_is_recorded_only_under_a_held_lease,
    a_reward_left_waiting_beside_a_configured_receiver_is_sent,
    a_failed_replay_of_a_confirmation_does_not_strand_its_reversal,
    an_unreadable_signing_key_stalls_no_other_placement,
    a_receiver_failing_for_a_day_is_paused_until_resumed,
    replays_are_limited_per_publisher,
    a_reversal_never_cancels_a_confirmation_being_sent,
);

/// A reversal reported while a worker is sending the confirmation does not cancel it (the
/// receiver may already have it): a reversal is queued behind it instead, and the receiver
/// ends on the reversal (issue 52, item 6, `callback_delivery/outbox.rs`).
async fn a_reversal_never_cancels_a_confirmation_being_sent(backend: Backend) {
    let (rx, w) = receiving(backend).await;
    let (_, clk) = click(&w.app, &w.p, "user-1", &w.campaign).await;
    w.report(&clk, "order-1", "approved").await;
    let ctx = &w.app.state.ctx;
    // A worker has the confirmation in hand: claimed, its request on the wire.
    let mut sending = dispatch::claim(ctx, request("wrk_mid", 1, 1))
        .await
        .expect("claim");
    assert_eq!(sending.len(), 1);
    let confirmation = sending[0].delivery.id.clone();
    w.report(&clk, "order-1", "reversed").await;
    let row = callback_delivery::Entity::find_by_id(confirmation.clone())
        .one(&ctx.db)
        .await
        .expect("q")
        .expect("row");
    assert_ne!(
        row.status,
        entity::values::DeliveryStatus::Cancelled,
        "cancelled while being sent: {row:?}"
    );
    let reversals = callback_delivery::Entity::find()
        .filter(callback_delivery::Column::DependsOn.eq(confirmation.clone()))
        .all(&ctx.db)
        .await
        .expect("q");
    assert_eq!(
        reversals.len(),
        1,
        "a reversal waits behind the confirmation"
    );
    // The send succeeds and is recorded; the reversal follows it.
    let delivered = Finished {
        claimed: sending.remove(0),
        sent: Some(("key".into(), "nonce".into(), "ts".into())),
        outcome: Outcome {
            started_at: w.app.clock_now(),
            response_status: Some(200),
            ..Outcome::default()
        },
    };
    let recorded = dispatch::record_batch(ctx, "wrk_mid", vec![delivered])
        .await
        .expect("record");
    assert_eq!(recorded.len(), 1, "{recorded:?}");
    w.app.run_workers_once().await;
    let events = rx.event_types();
    assert_eq!(
        events,
        ["reward.reversed"],
        "the receiver ends on the reversal"
    );
}

/// Replays go to the publisher's own receiver, but not without limit: ten at once, then one
/// every six seconds per publisher (issue 52, item 9, `callback_delivery/console.rs`).
async fn replays_are_limited_per_publisher(backend: Backend) {
    let (rx, w) = receiving(backend).await;
    let (_, id) = w.one_delivered().await;
    let path = format!("/publisher/v2/callback-deliveries/{id}/replay");
    let empty = json!({});
    let replay = || w.app.post(&path, Some(&w.p.token), &empty);
    for i in 0..10 {
        let (s, e) = replay().await;
        assert_eq!(s, StatusCode::ACCEPTED, "replay {i}: {e}");
        w.app.run_workers_once().await;
    }
    assert_eq!(rx.received().len(), 11);
    let (s, e) = replay().await;
    assert_eq!(s, StatusCode::TOO_MANY_REQUESTS, "{e}");
    w.app.run_workers_once().await;
    assert_eq!(rx.received().len(), 11, "the refused replay sent nothing");
    w.app.clock.advance(Duration::seconds(7));
    let (s, e) = replay().await;
    assert_eq!(s, StatusCode::ACCEPTED, "one more after six seconds: {e}");
}

async fn claims_take_every_placement_before_any_backlog(backend: Backend) {
    let (_rx, w) = unconfigured(backend).await;
    let admin = w.app.admin_token().await;
    let other = publisher(&w.app, &admin).await;
    // A backlog of 300 old deliveries for one placement, then one new for another.
    queue(&w, &w.p.placement, 300, 600).await;
    let fresh = queue(&w, &other.placement, 1, 0).await;
    let first = dispatch::claim(&w.app.state.ctx, request("wrk_a", 10, 5))
        .await
        .expect("claim");
    assert_eq!(
        first.len(),
        6,
        "five of the backlog, one of the other placement"
    );
    assert!(
        first.iter().any(|c| c.delivery.id == fresh[0]),
        "the other placement's delivery is in the first round, not behind 300"
    );
    // The backlog's own rows come out oldest first and are leased to the claimer.
    let mut backlog: Vec<_> = first
        .iter()
        .filter(|c| c.delivery.placement_id == w.p.placement)
        .map(|c| c.delivery.next_attempt_at)
        .collect();
    let sorted = {
        let mut s = backlog.clone();
        s.sort();
        s
    };
    assert_eq!(backlog, sorted);
    backlog.clear();
    assert_eq!(
        row(&w, &fresh[0]).await.lease_owner.as_deref(),
        Some("wrk_a")
    );
    // A second claimer gets none of the leased rows, and an excluded placement is skipped.
    let exclude = [w.p.placement.clone()];
    let second = dispatch::claim(
        &w.app.state.ctx,
        ClaimRequest {
            exclude: &exclude,
            ..request("wrk_b", 10, 5)
        },
    )
    .await
    .expect("claim");
    assert!(second.is_empty(), "{second:?}");
}

async fn an_outcome_is_recorded_only_under_a_held_lease(backend: Backend) {
    let (_rx, w) = unconfigured(backend).await;
    let ids = queue(&w, &w.p.placement, 1, 0).await;
    let ctx = &w.app.state.ctx;
    let mine = dispatch::claim(ctx, request("wrk_a", 1, 1))
        .await
        .expect("claim");
    assert_eq!(mine.len(), 1);
    // A's send outlives its lease; B claims the delivery again.
    w.app.clock.advance(Duration::seconds(61));
    let theirs = dispatch::claim(ctx, request("wrk_b", 1, 1))
        .await
        .expect("claim");
    assert_eq!(theirs.len(), 1, "an expired lease is claimable");
    let ok = Outcome {
        started_at: w.app.clock_now(),
        response_status: Some(200),
        ..Outcome::default()
    };
    let late = Finished {
        claimed: mine[0].clone(),
        sent: Some(("key".into(), "nonce".into(), "ts".into())),
        outcome: ok.clone(),
    };
    let recorded = dispatch::record_batch(ctx, "wrk_a", vec![late])
        .await
        .expect("record");
    assert!(recorded.is_empty(), "A lost its lease: {recorded:?}");
    let r = row(&w, &ids[0]).await;
    assert_eq!((r.status.as_str(), r.attempts), ("PENDING", 0));
    assert_eq!(r.lease_owner.as_deref(), Some("wrk_b"));
    // A lease that ran out without a new claimer does not count either.
    w.app.clock.advance(Duration::seconds(61));
    let stale = Finished {
        claimed: theirs[0].clone(),
        sent: None,
        outcome: ok.clone(),
    };
    assert!(
        dispatch::record_batch(ctx, "wrk_b", vec![stale])
            .await
            .expect("record")
            .is_empty()
    );
    // Renewal keeps only leases still held; the holder then records.
    let fresh = dispatch::claim(ctx, request("wrk_c", 1, 1))
        .await
        .expect("claim");
    let (kept, _) = dispatch::renew(ctx, "wrk_c", &ids, Duration::seconds(60))
        .await
        .expect("renew");
    assert!(kept.contains(&ids[0]));
    let (lost, _) = dispatch::renew(ctx, "wrk_a", &ids, Duration::seconds(60))
        .await
        .expect("renew");
    assert!(lost.is_empty());
    let done = Finished {
        claimed: fresh[0].clone(),
        sent: None,
        outcome: ok,
    };
    let recorded = dispatch::record_batch(ctx, "wrk_c", vec![done])
        .await
        .expect("record");
    assert_eq!(recorded.len(), 1);
    let r = row(&w, &ids[0]).await;
    assert_eq!((r.status.as_str(), r.attempts), ("DELIVERED", 1));
}

async fn a_reward_left_waiting_beside_a_configured_receiver_is_sent(backend: Backend) {
    let (rx, w) = receiving(backend).await;
    let (_, clk) = click(&w.app, &w.p, "user-1", &w.campaign).await;
    w.report(&clk, "order-1", "approved").await;
    // The settlement read the placement before the receiver was configured and committed
    // after the configuration released the waiting rewards: its reward is left waiting.
    callback_delivery::Entity::update_many()
        .col_expr(callback_delivery::Column::Status, "WAITING_RECEIVER".into())
        .filter(callback_delivery::Column::PlacementId.eq(w.p.placement.clone()))
        .exec(&w.app.state.ctx.db)
        .await
        .expect("simulate the race");
    w.app.run_workers_once().await;
    assert_eq!(rx.accepted().len(), 1, "the worker releases and sends it");
    assert_eq!(w.deliveries("?status=DELIVERED").await["count"], 1);
}

async fn a_failed_replay_of_a_confirmation_does_not_strand_its_reversal(backend: Backend) {
    let (rx, w) = receiving(backend).await;
    let (clk, confirmation) = w.one_delivered().await;
    // Replaying the delivered confirmation sends it, then its reversal again, in order.
    w.report(&clk, "order-1", "reversed").await;
    w.app.run_workers_once().await;
    assert_eq!(rx.received().len(), 2);
    let (s, _) = w
        .app
        .post(
            &format!("/publisher/v2/callback-deliveries/{confirmation}/replay"),
            Some(&w.p.token),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::ACCEPTED);
    w.app.run_workers_once().await;
    let events = rx.event_types();
    assert_eq!(
        events,
        [
            "reward.confirmed",
            "reward.reversed",
            "reward.confirmed",
            "reward.reversed"
        ]
    );
    // A replay that ends FAILED: the reversal queued behind it still goes.
    let (_, clk2) = click(&w.app, &w.p, "user-2", &w.campaign).await;
    w.report(&clk2, "order-2", "approved").await;
    w.app.run_workers_once().await;
    w.report(&clk2, "order-2", "reversed").await;
    let second = w
        .deliveries("?externalUserId=user-2&status=DELIVERED")
        .await["items"][0]["deliveryId"]
        .as_str()
        .expect("id")
        .to_owned();
    callback_delivery::Entity::update_many()
        .col_expr(callback_delivery::Column::Status, "FAILED".into())
        .filter(callback_delivery::Column::Id.eq(second))
        .exec(&w.app.state.ctx.db)
        .await
        .expect("the replay failed for good");
    w.app.run_workers_once().await;
    let last = rx.received().last().map(|r| r.json()).unwrap_or_default();
    assert_eq!(last["eventType"], "reward.reversed", "{last}");
    assert_eq!(last["externalUserId"], "user-2");
}

async fn an_unreadable_signing_key_stalls_no_other_placement(backend: Backend) {
    let (rx, w) = unconfigured(backend).await;
    let admin = w.app.admin_token().await;
    let other = publisher(&w.app, &admin).await;
    configure(&w.app, &w.p, &rx.url).await;
    configure(&w.app, &other, &rx.url).await;
    let (_, a) = click(&w.app, &w.p, "user-a", &w.campaign).await;
    let (_, b) = click(&w.app, &other, "user-b", &w.campaign).await;
    w.report(&a, "order-a", "approved").await;
    w.report(&b, "order-b", "approved").await;
    // The first placement's key was sealed under a master key this process does not have.
    entity::callback_key::Entity::update_many()
        .col_expr(
            entity::callback_key::Column::SecretCiphertext,
            "v1:garbage".into(),
        )
        .filter(entity::callback_key::Column::PlacementId.eq(w.p.placement.clone()))
        .exec(&w.app.state.ctx.db)
        .await
        .expect("spoil the key");
    w.app.run_workers_once().await;
    let got = rx.received();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].json()["externalUserId"], "user-b");
    let stuck = w.deliveries("?externalUserId=user-a").await;
    assert_eq!(stuck["items"][0]["status"], "PENDING", "{stuck}");
    assert_eq!(stuck["items"][0]["attemptCount"], 1, "{stuck}");
    assert!(
        stuck["items"][0]["lastError"]
            .as_str()
            .unwrap_or_default()
            .starts_with("signing_key"),
        "{stuck}"
    );
}

async fn a_receiver_failing_for_a_day_is_paused_until_resumed(backend: Backend) {
    let (rx, w) = receiving(backend).await;
    let health_path = format!("/publisher/v2/placements/{}/callback/health", w.p.placement);
    // Five failures: the first, then retries 1, 3, 11 and 31 hours later (the last, over a
    // day into the streak, pauses the receiver).
    rx.answer(&[Answer::Status(500); 5]);
    let (_, clk) = click(&w.app, &w.p, "user-1", &w.campaign).await;
    w.report(&clk, "order-1", "approved").await;
    w.app.run_workers_once().await;
    let (s, h) = w.app.get(&health_path, Some(&w.p.token)).await;
    assert_eq!(s, StatusCode::OK, "{h}");
    assert_eq!(h["placementId"], w.p.placement.as_str(), "{h}");
    assert!(h["failingSince"].is_string(), "{h}");
    assert!(h["pausedAt"].is_null(), "{h}");
    // Retries keep failing; the first failure more than a day after the streak began pauses.
    for hours in [1, 3, 8, 20, 26] {
        w.app.clock.advance(Duration::hours(hours));
        w.app.run_workers_once().await;
    }
    // A day later the dashboard token has expired: sign in again.
    let token = w.app.token(&w.p.user).await;
    let (s, h) = w.app.get(&health_path, Some(&token)).await;
    assert_eq!(s, StatusCode::OK, "{h}");
    assert_eq!(h["placementId"], w.p.placement.as_str(), "{h}");
    assert!(
        h["pausedAt"].is_string(),
        "paused after a day of failures: {h}"
    );
    let sent = rx.received().len();
    assert_eq!(sent, 5, "no attempt after the pause");
    // The publisher was told once that it fails (an hour into the streak), once that it paused.
    let (_, told) = w.app.get("/auth/v1/notifications", Some(&token)).await;
    let told: Vec<&str> = told["items"]
        .as_array()
        .expect("notices")
        .iter()
        .filter_map(|n| n["topic"].as_str())
        .collect();
    let times = |t: &str| told.iter().filter(|x| **x == t).count();
    assert_eq!(times("callbacks.receiver_failing"), 1, "{told:?}");
    assert_eq!(times("callbacks.receiver_paused"), 1, "{told:?}");
    // While paused nothing is attempted, however long it waits.
    let (_, clk2) = click(&w.app, &w.p, "user-2", &w.campaign).await;
    w.report(&clk2, "order-2", "approved").await;
    w.app.clock.advance(Duration::hours(30));
    w.app.run_workers_once().await;
    assert_eq!(rx.received().len(), sent, "no attempt while paused");
    // One call resumes: the pending deliveries are due at once and go to the fixed receiver.
    let resume = format!("/publisher/v2/placements/{}/callback/resume", w.p.placement);
    let (_, stranger) = w.app.signed_in(app::model::Role::Publisher).await;
    assert_eq!(
        w.app.post(&resume, Some(&stranger), &json!({})).await.0,
        StatusCode::NOT_FOUND
    );
    let token = w.app.token(&w.p.user).await;
    let (s, r) = w.app.post(&resume, Some(&token), &json!({})).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(
        r["pending"], 2,
        "the failed reward and the one queued while paused: {r}"
    );
    w.app.run_workers_once().await;
    assert_eq!(
        rx.accepted().len(),
        2,
        "both rewards arrive after the resume"
    );
    let (s, h) = w.app.get(&health_path, Some(&token)).await;
    assert_eq!(s, StatusCode::OK, "{h}");
    assert_eq!(h["placementId"], w.p.placement.as_str(), "{h}");
    assert!(
        h["pausedAt"].is_null() && h["failingSince"].is_null(),
        "{h}"
    );
}
