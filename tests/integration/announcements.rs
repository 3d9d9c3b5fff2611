//! Announcements that could be lost between processes (issue 52, item 3): a LISTEN
//! connection that went silent without closing, and changes still gathering when a process
//! stops. Each test fails when the cache's own time limit (60 s for delivery configuration)
//! is all that brings the other process round: it expects the change within seconds.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::json;
use tests::builders::session;
use tests::proxy::Mode;
use tests::{Backend, each_backend};

use crate::processes::{ProcessB, lists, within, world_with};

each_backend!(changes_still_gathering_reach_the_others_when_a_process_stops);

/// B's LISTEN connection stops carrying bytes without closing (a firewall dropped it): B
/// hears no announcement, so only its probe (every second here, 30 s by default) finds the
/// dead connection; B then listens again and drops every cache, and serves A's blacklist.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_silent_listen_connection_is_replaced_on_postgres() {
    tests::bounded(async {
        let w = world_with(
            Backend::Postgres,
            "player",
            &[("APP_LISTEN_PROBE_SECONDS", "1")],
            true,
        )
        .await;
        let proxy = w.proxy.as_ref().expect("B talks through the proxy");
        proxy.set(Mode::StallListeners);
        w.blacklist_game().await;
        // Probe after 1 s, its 5-second wait, 1 s before reconnecting: well under the 60 s
        // of the delivery configuration's time limit.
        within(Duration::from_secs(20), "blacklist on B", || async {
            let (s, list) = w.b.offers(&w.app, &w.p, &w.token).await;
            s == StatusCode::OK && !lists(&list, &w.game)
        })
        .await;
        proxy.set(Mode::Forward);
    })
    .await;
}

/// B commits a blacklist and is told to stop while the announcement is still gathering
/// (3 s here, 50 ms by default): B sends it before it goes, and A, warm, drops the campaign.
async fn changes_still_gathering_reach_the_others_when_a_process_stops(backend: Backend) {
    let mut w = world_with(
        backend,
        "player",
        &[("APP_ANNOUNCE_COALESCE_MS", "3000")],
        false,
    )
    .await;
    let (_, on_a) = session(&w.app, &w.p, "player").await;
    let path = format!("/sdk/v2/ad-slots/{}/offers", w.p.slot);
    let (s, list) = w.app.get(&path, Some(&on_a)).await;
    assert_eq!(s, StatusCode::OK, "{list}");
    assert!(lists(&list, &w.game), "A lists the campaign first: {list}");

    let req = w
        .app
        .client
        .post(format!("{}/publisher/v2/blacklists", w.b.process.base))
        .bearer_auth(&w.p.token)
        .json(&json!({"kind": "CAMPAIGN", "value": w.game, "reason": "brand safety"}));
    let (s, r) = ProcessB::send(req).await;
    assert_eq!(s, StatusCode::CREATED, "{r}");
    let pid = w.b.process.child.id().expect("B runs");
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let exited = tokio::time::timeout(Duration::from_secs(15), w.b.process.child.wait()).await;
    assert!(
        exited.is_ok_and(|e| e.is_ok_and(|s| s.success())),
        "B stops cleanly"
    );
    // A hears it at once on PostgreSQL, at its next poll (1 s) on SQLite.
    within(Duration::from_secs(3), "blacklist on A", || async {
        let (s, list) = w.app.get(&path, Some(&on_a)).await;
        s == StatusCode::OK && !lists(&list, &w.game)
    })
    .await;
}
