//! Survey fetch and the survey campaign API have documented rate limits (issue 27): 3,000
//! fetches per minute per app key and 600 survey API calls per minute per API key, counted
//! before any work, answered 429 `rate_limited` with `Retry-After`.

use reqwest::StatusCode;
use tests::{TestApp, both_backends, error_code};

both_backends!(survey_routes_are_rate_limited_per_key);

/// Sends `n` requests made by `make` and returns the first 429 seen (with its index).
async fn first_limited(
    n: usize,
    make: impl Fn() -> reqwest::RequestBuilder,
) -> Option<(usize, reqwest::Response)> {
    for i in 0..n {
        let res = make().send().await.expect("sent");
        if res.status() == StatusCode::TOO_MANY_REQUESTS {
            return Some((i, res));
        }
    }
    None
}

async fn survey_routes_are_rate_limited_per_key(app: TestApp) {
    // The survey API: the 601st call of one key in a minute is refused.
    let list = app.url("/api/v1/campaigns/getcampaigns?enc=00");
    let (i, res) = first_limited(700, || {
        app.client.get(&list).header("x-api-key", "k-limited")
    })
    .await
    .expect("limited");
    // The allowance refills at 10 a second while the test runs.
    assert!(
        (600..660).contains(&i),
        "600 calls pass first, then the limit: {i}"
    );
    assert!(res.headers().contains_key("retry-after"));
    let body: serde_json::Value = res.json().await.unwrap_or_default();
    assert_eq!(error_code(&body), "rate_limited", "{body}");
    // Another key has its own allowance.
    let res = app
        .client
        .get(&list)
        .header("x-api-key", "k-other")
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);

    // Survey fetch: the 3,001st fetch of one app key in a minute is refused.
    let fetch = app.url("/getallsurveys-api");
    let (i, res) = first_limited(5_000, || {
        app.client
            .post(&fetch)
            .header("x-service-api-key", "app-limited")
            .header("content-type", "application/json")
            .body("{}")
    })
    .await
    .expect("limited");
    assert!((3_000..4_000).contains(&i), "3,000 fetches pass first: {i}");
    assert!(res.headers().contains_key("retry-after"));
}
