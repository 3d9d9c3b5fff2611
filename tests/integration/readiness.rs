//! Ready means ready (issue 30, in part): a restarted process answers `/readyz` 200 only
//! once its offer inventory holds the live campaigns, so a load balancer never sends the
//! first users to a process that would make them wait for the build.

use std::sync::Arc;

use app::domain::TestClock;
use reqwest::StatusCode;
use server::config::Settings;
use server::startup::Application;
use tests::{TestApp, both_backends};

use crate::campaigns::campaign_body;
use crate::delivery::{USD, live_campaign};

both_backends!(a_restarted_process_is_ready_only_with_its_inventory);

async fn a_restarted_process_is_ready_only_with_its_inventory(app: TestApp) {
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(500 * USD).await;
    let (campaign, _, _) =
        live_campaign(&app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;

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
}
