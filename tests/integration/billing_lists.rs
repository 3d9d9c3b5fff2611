//! The wallet's history lists page by cursor like every other list: `limit` (1 to 500,
//! default 100, the specification's "up to 100 newest") and `nextCursor`, newest first,
//! every row once.

use reqwest::{Method, StatusCode};
use serde_json::json;
use tests::builders::billing::WIRE;
use tests::builders::surveys::{USD, call, create, issue_key, survey};
use tests::{TestApp, both_backends};

both_backends!(funding_history_and_allocations_page_by_cursor);

/// Every id of `path` read two at a time, and the number of pages it took.
async fn all_pages(app: &TestApp, token: &str, path: &str, id: &str) -> (Vec<String>, usize) {
    let (mut seen, mut pages) = (Vec::new(), 0);
    let mut next = format!("{path}?limit=2");
    loop {
        let (s, page) = app.get(&next, Some(token)).await;
        assert_eq!(s, StatusCode::OK, "{page}");
        pages += 1;
        let items = page["items"].as_array().expect("items");
        assert!(items.len() <= 2, "{page}");
        seen.extend(
            items
                .iter()
                .map(|i| i[id].as_str().unwrap_or_default().to_owned()),
        );
        match page["nextCursor"].as_str() {
            Some(c) => next = format!("{path}?limit=2&cursor={c}"),
            None => return (seen, pages),
        }
    }
}

async fn funding_history_and_allocations_page_by_cursor(app: TestApp) {
    let (_, t) = app.funded_advertiser(5_000 * USD).await;
    let fundings = "/performance-marketing/v2/billing/funding";
    let (_, first) = app.get(fundings, Some(&t)).await;
    let mut created: Vec<String> =
        vec![first["items"][0]["fundingId"].as_str().expect("id").into()];
    for n in 0..4 {
        let body = json!({"amount": 150_000_000, "currency": "USD", "externalReference": format!("WIRE-PAGE-{n}")});
        let (s, f) = app.post(WIRE, Some(&t), &body).await;
        assert_eq!(s, StatusCode::CREATED, "{f}");
        created.push(f["fundingId"].as_str().expect("id").to_owned());
    }
    created.reverse();
    let (seen, pages) = all_pages(&app, &t, fundings, "fundingId").await;
    assert_eq!(pages, 3);
    assert_eq!(seen, created, "every funding once, newest first");
    let (s, all) = app.get(fundings, Some(&t)).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(all["items"].as_array().map(Vec::len), Some(5));
    assert!(all["nextCursor"].is_null(), "{all}");

    // Three surveys paid from the wallet.
    let key = issue_key(&app, &t, "SHA256").await;
    let mut paid = Vec::new();
    for n in 0..3 {
        let id = create(&app, &key, &survey(&format!("Paged survey {n}"))).await;
        let quota = json!({"name": "All", "num_respondents": 4});
        let path = format!("/api/v1/campaigns/{id}/campaignsquota");
        let (s, q) = call(&app, &key, Method::POST, &path, Some(&quota)).await;
        assert_eq!(s, StatusCode::CREATED, "{q}");
        let allocate = format!("/performance-marketing/v2/billing/survey-campaigns/{id}/allocate");
        let (s, a) = app.post(&allocate, Some(&t), &json!({})).await;
        assert_eq!(s, StatusCode::CREATED, "{a}");
        paid.push(a["campaignId"].as_str().expect("campaign").to_owned());
    }
    paid.reverse();
    let allocations = "/performance-marketing/v2/billing/allocations";
    let (seen, pages) = all_pages(&app, &t, allocations, "campaignId").await;
    assert_eq!(pages, 2);
    assert_eq!(seen, paid, "every allocation once, newest first");

    for bad in ["limit=0", "limit=501", "cursor=nonsense", "cursor=alc_0190"] {
        let (s, e) = app.get(&format!("{fundings}?{bad}"), Some(&t)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{bad}: {e}");
    }
    let (s, e) = app
        .get(&format!("{allocations}?cursor=fnd_0190"), Some(&t))
        .await;
    assert_eq!(
        s,
        StatusCode::BAD_REQUEST,
        "a funding cursor is not an allocation's: {e}"
    );
}
