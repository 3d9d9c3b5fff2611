//! Every dashboard page rendered 1,000 times, 20 at a time, by a `server` process of its own
//! (so its counters hold its renders only): the page-render retry is a safety net that must
//! never fire, so `page_render_retries_total` stays 0. The pages are found as a person finds
//! them: the demo's three users follow the dashboard links from their home pages.
//! `RENDER_ROUNDS` sets the rounds (1,000 unless set).

use std::collections::{BTreeSet, VecDeque};

use futures::StreamExt;
use reqwest::StatusCode;
use tests::{Backend, TestApp, csrf_of};

/// Renders in flight at once.
const PARALLEL: usize = 20;
/// Links followed from a home page.
const DEPTH: usize = 3;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_dashboard_page_renders_without_a_retry() {
    let rounds: usize = std::env::var("RENDER_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(1_000);
    let app = TestApp::spawn(Backend::Sqlite).await;
    server::demo::load(&app.state.ctx, &app.state.settings)
        .await
        .expect("demo data");
    let b = tests::process::start(&app.database_url, &[], "/readyz").await;
    let mut visits = Vec::new();
    for (email, home) in [
        ("publisher@demo.test", "/publisher"),
        ("advertiser@demo.test", "/advertiser"),
        ("admin@demo.test", "/admin"),
    ] {
        let client = signed_in(&b.base, email).await;
        for path in pages_from(&client, &b.base, home).await {
            visits.push((client.clone(), path));
        }
    }
    let paths: Vec<&str> = visits.iter().map(|(_, p)| p.as_str()).collect();
    assert!(
        visits.len() >= 15,
        "only {} pages found: {paths:?}",
        visits.len()
    );
    let all = visits.len() * rounds;
    let work = futures::stream::iter((0..all).map(|i| {
        let (client, path) = visits[i % visits.len()].clone();
        let url = format!("{}{path}", b.base);
        async move {
            let res = client.get(&url).send().await.expect("page answered");
            assert_eq!(res.status(), StatusCode::OK, "{url}");
            res.bytes().await.expect("page body");
        }
    }))
    .buffer_unordered(PARALLEL)
    .collect::<Vec<()>>();
    tokio::time::timeout(std::time::Duration::from_secs(1_800), work)
        .await
        .expect("renders finished within 30 minutes");
    let metrics = reqwest::get(format!("{}/metrics", b.base))
        .await
        .expect("metrics")
        .text()
        .await
        .unwrap_or_default();
    let retries: f64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("page_render_retries_total "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0);
    assert_eq!(
        retries,
        0.0,
        "{} renders of {} pages needed {retries} retries",
        all,
        visits.len()
    );
}

/// A cookie-keeping client signed in as the demo user `email` through the sign-in form.
async fn signed_in(base: &str, email: &str) -> reqwest::Client {
    let client = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .expect("client");
    let form = client
        .get(format!("{base}/sign-in"))
        .send()
        .await
        .expect("form");
    let token = csrf_of(&form.text().await.unwrap_or_default());
    let res = client
        .post(format!("{base}/fn/sign_in"))
        .header("accept", "text/html")
        .header("referer", format!("{base}/sign-in"))
        .form(&[
            ("email", email),
            ("password", "demo-password-2026"),
            ("csrf", token.as_str()),
        ])
        .send()
        .await
        .expect("sign in");
    assert!(res.status().is_redirection(), "{email}: {}", res.status());
    client
}

/// The dashboard pages under `home` reachable from it within [`DEPTH`] links (pages only:
/// no server functions, downloads or assets).
async fn pages_from(client: &reqwest::Client, base: &str, home: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::from([home.to_owned()]);
    let mut queue = VecDeque::from([(home.to_owned(), 0)]);
    while let Some((path, depth)) = queue.pop_front() {
        let res = client
            .get(format!("{base}{path}"))
            .send()
            .await
            .expect("page");
        assert_eq!(res.status(), StatusCode::OK, "{path}");
        let html = res.text().await.unwrap_or_default();
        if depth == DEPTH {
            continue;
        }
        for link in html
            .split("href=\"")
            .skip(1)
            .filter_map(|r| r.split('"').next())
        {
            let link = link.split(['?', '#']).next().unwrap_or_default().to_owned();
            // Each user's own dashboard (an administrator's view of another side's pages
            // needs the account to act for).
            let dashboard = link.starts_with(home);
            let page = !link.contains(".csv") && !link.contains("/evidence/");
            if dashboard && page && found.insert(link.clone()) {
                queue.push_back((link, depth + 1));
            }
        }
    }
    found
}
