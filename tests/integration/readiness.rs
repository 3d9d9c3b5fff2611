//! Ready means ready (issue 30, in part): a restarted process answers `/readyz` 200 only
//! once its offer inventory holds the live campaigns, so a load balancer never sends the
//! first users to a process that would make them wait for the build; and a later rebuild
//! never makes a request wait either.

use std::sync::Arc;

use app::domain::TestClock;
use reqwest::StatusCode;
use server::config::Settings;
use server::startup::Application;
use tests::{TestApp, both_backends};

use tests::builders::{USD, live_campaign, publisher, session, static_slot};
use tests::builders::{campaign_body, transition};

both_backends!(
    a_restarted_process_is_ready_only_with_its_inventory,
    requests_during_a_rebuild_are_answered_from_the_previous_snapshot,
);

async fn a_restarted_process_is_ready_only_with_its_inventory(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(500 * USD).await;
    let (campaign, _, _) =
        live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let p = publisher(&app, &admin).await;
    let feed_slot = static_slot(&app, &p).await;

    // A second process on the same database, as a rolling restart starts one.
    let dir = tempfile::tempdir().expect("dir");
    let data = dir.path().display().to_string();
    let secret = "5e".repeat(32);
    let settings = Settings::from_flags([
        "--database-url",
        &app.database_url,
        "--bind",
        "127.0.0.1:0",
        "--secret-key",
        &secret,
        "--data-dir",
        &data,
        "--run-workers",
        "false",
    ])
    .expect("settings");
    let clock = Arc::new(TestClock::new(app.clock_now()));
    let next = Application::build(settings, clock).await.expect("builds");
    let base = format!("http://127.0.0.1:{}", next.port());
    let state = next.state().clone();
    assert!(
        state.ctx.inventory.peek().get(&campaign).is_none(),
        "nothing is built before the process runs"
    );
    tokio::spawn(next.run_until_stopped());
    let client = reqwest::Client::new();
    let mut ready = false;
    for _ in 0..500 {
        let res = client.get(format!("{base}/readyz")).send().await;
        match res {
            Ok(r) if r.status() == StatusCode::OK => {
                ready = true;
                break;
            }
            Ok(r) => {
                assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
                let body: serde_json::Value = r.json().await.unwrap_or_default();
                assert_eq!(body["status"], "warming", "{body}");
            }
            Err(_) => {}
        }
        // The inventory is checked the moment readiness is seen below; until then the
        // probe may only ever say "warming".
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    assert!(ready, "ready within 2.5 s");
    assert!(
        state.ctx.inventory.peek().get(&campaign).is_some(),
        "ready means the live campaign is in the inventory"
    );
    let built = |snap: &app::domain::campaigns::snapshot::Snapshot| {
        snap.feeds
            .requests()
            .iter()
            .any(|(r, _)| r.slot_id == feed_slot && r.country.is_none())
    };
    assert!(
        built(&state.ctx.inventory.peek()),
        "ready means the static feed of the STATIC_API slot is built"
    );

    // A change swaps in a new snapshot, which starts with no feeds: the feed is built
    // into it again without anyone pulling it.
    state.ctx.inventory.changed();
    state.ctx.inventory.caught_up().await;
    let mut rebuilt = false;
    for _ in 0..200 {
        if built(&state.ctx.inventory.peek()) {
            rebuilt = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(
        rebuilt,
        "the feed is built into the new snapshot within 2 s"
    );
}

/// A rebuild (here held for as long as the test likes, as a slow one would take) never
/// makes a reader wait: the offer list answers from the snapshot in place, and the change
/// is served once the new snapshot is swapped in. A writer's own answer waits for it.
async fn requests_during_a_rebuild_are_answered_from_the_previous_snapshot(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(500 * USD).await;
    let p = publisher(&app, &admin).await;
    let (campaign, _, _) =
        live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let (_, token) = session(&app, &p, "player").await;
    let path = format!("/sdk/v2/ad-slots/{}/offers", p.slot);
    let lists = |v: &serde_json::Value| {
        v["items"]
            .as_array()
            .is_some_and(|i| i.iter().any(|o| o["campaignId"] == campaign.as_str()))
    };
    let (s, list) = app.get(&path, Some(&token)).await;
    assert_eq!(s, StatusCode::OK, "{list}");
    assert!(lists(&list), "{list}");

    let inventory = app.state.ctx.inventory.clone();
    let held = inventory.hold_builds().await;
    // A change announced by another process (the listener calls this).
    inventory.changed();
    let started = std::time::Instant::now();
    let (s, list) = app.get(&path, Some(&token)).await;
    assert_eq!(s, StatusCode::OK, "{list}");
    assert!(lists(&list), "answered from the snapshot in place: {list}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(1),
        "the request did not wait for the rebuild ({:?})",
        started.elapsed()
    );
    drop(held);

    // A writer answers only once the snapshot reflects its change.
    let (s, c) = transition(&app, &adv, &campaign, "PAUSED").await;
    assert_eq!(s, StatusCode::OK, "{c}");
    let (s, list) = app.get(&path, Some(&token)).await;
    assert_eq!(s, StatusCode::OK, "{list}");
    assert!(!lists(&list), "the paused campaign is gone at once: {list}");
}
