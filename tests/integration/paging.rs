//! One pagination style for every list (issue 35): `cursor` and `limit` in, `items` and
//! `nextCursor` out, a page at most 500 long, and no list that stops at a cap without a
//! cursor to go on. Walks the lists that used to answer everything or a silent first 100,
//! 200 or 500 (review queues, audit trail, revisions, offer gallery) page by page.

use app::model::Role;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::builders::campaign_ids;
use tests::builders::{approve, campaign_body, create, transition};
use tests::{TestApp, both_backends, error_code};

both_backends!(lists_page_with_cursor_and_limit);
both_backends!(review_queues_page_oldest_first);

const USD: i64 = 1_000_000;

/// Every page of `path` at `limit` a page: the ids (`field`) in order, and the page count.
async fn walk(
    app: &TestApp,
    token: &str,
    path: &str,
    field: &str,
    limit: u32,
) -> (Vec<String>, usize) {
    let sep = if path.contains('?') { '&' } else { '?' };
    let (mut ids, mut pages, mut cursor) = (Vec::new(), 0, None::<String>);
    loop {
        let url = match &cursor {
            Some(c) => format!("{path}{sep}limit={limit}&cursor={c}"),
            None => format!("{path}{sep}limit={limit}"),
        };
        let (s, page) = app.get(&url, Some(token)).await;
        assert_eq!(s, StatusCode::OK, "{url}: {page}");
        let items = page["items"].as_array().expect("items");
        assert!(items.len() <= limit as usize, "{url}: {page}");
        ids.extend(
            items
                .iter()
                .map(|i| i[field].as_str().expect("id").to_owned()),
        );
        pages += 1;
        assert!(pages < 50, "{path} never ends");
        match page["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => {
                assert!(
                    page["nextCursor"].is_null(),
                    "{url}: nextCursor is always there"
                );
                return (ids, pages);
            }
        }
    }
}

/// A bad `limit` or `cursor` is a 400 naming the field, not a silent default.
async fn refuses_bad_pages(app: &TestApp, token: &str, path: &str) {
    let sep = if path.contains('?') { '&' } else { '?' };
    for (query, field) in [
        ("limit=0", "limit"),
        ("limit=501", "limit"),
        ("cursor=zzz", "cursor"),
    ] {
        let (s, b) = app.get(&format!("{path}{sep}{query}"), Some(token)).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{path}?{query}: {b}");
        assert_eq!(error_code(&b), "invalid_input", "{b}");
        assert!(
            b["error"]["fieldErrors"][field].is_string(),
            "{path}?{query}: {b}"
        );
    }
}

async fn live(app: &TestApp, adv: &str, admin: &str, payout: i64) -> String {
    let mut body = campaign_body("CUSTOM_S2S", 100 * USD);
    body["goals"][0]["payoutMicros"] = json!(payout);
    let id = create(app, adv, &body).await;
    assert_eq!(
        transition(app, adv, &id, "IN_REVIEW").await.0,
        StatusCode::OK
    );
    let (s, c) = approve(app, admin, &id).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    id
}

async fn lists_page_with_cursor_and_limit(app: TestApp) {
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let admin = app.admin_token().await;
    let (_, publisher) = app.signed_in(Role::Publisher).await;

    // The gallery: highest payout first, two offers tied on payout ordered by id.
    let low = live(&app, &adv, &admin, 1_000_000).await;
    let tied_a = live(&app, &adv, &admin, 3_000_000).await;
    let tied_b = live(&app, &adv, &admin, 3_000_000).await;
    let high = live(&app, &adv, &admin, 5_000_000).await;
    let mut tied = [tied_a, tied_b];
    tied.sort();
    let gallery = "/publisher/v2/offer-gallery";
    let (ids, pages) = walk(&app, &publisher, gallery, "campaignId", 1).await;
    assert_eq!(
        ids,
        vec![high.clone(), tied[0].clone(), tied[1].clone(), low.clone()]
    );
    assert_eq!(pages, 4);
    let (_, whole) = app.get(gallery, Some(&publisher)).await;
    assert_eq!(whole["count"], 4, "{whole}");
    assert!(whole["nextCursor"].is_null(), "{whole}");
    refuses_bad_pages(&app, &publisher, gallery).await;

    // An offer that ends between two pages hides nothing after it.
    let (_, first) = app
        .get(&format!("{gallery}?limit=2"), Some(&publisher))
        .await;
    let cursor = first["nextCursor"].as_str().expect("more").to_owned();
    assert_eq!(
        transition(&app, &adv, &tied[1], "PAUSED").await.0,
        StatusCode::OK
    );
    let (_, rest) = app
        .get(
            &format!("{gallery}?limit=2&cursor={cursor}"),
            Some(&publisher),
        )
        .await;
    let rest = campaign_ids(&rest);
    assert_eq!(rest, vec![low.as_str()]);

    // The audit trail and the revisions of one campaign, newest first, one at a time.
    let audit = format!("/performance-marketing/v2/campaigns/{high}/audit");
    let (_, all) = app.get(&audit, Some(&adv)).await;
    let every: Vec<Value> = all["items"].as_array().expect("items").clone();
    assert!(every.len() >= 2, "{all}");
    let (_, pages) = walk(&app, &adv, &audit, "action", 1).await;
    assert_eq!(pages, every.len());
    refuses_bad_pages(&app, &adv, &audit).await;
    let (s, b) = app
        .patch(
            &format!("/performance-marketing/v2/campaigns/{low}"),
            Some(&adv),
            &json!({"name": "Pixel Quest v2"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let revisions = format!("/performance-marketing/v2/campaigns/{low}/revisions");
    let (_, one) = app.get(&format!("{revisions}?limit=1"), Some(&adv)).await;
    assert_eq!(one["items"].as_array().map(Vec::len), Some(1), "{one}");
    assert!(one["nextCursor"].is_string(), "{one}");
    let (_, two) = app
        .get(
            &format!(
                "{revisions}?limit=1&cursor={}",
                one["nextCursor"].as_str().unwrap_or("")
            ),
            Some(&adv),
        )
        .await;
    assert!(
        one["items"][0]["revision"].as_i64() > two["items"][0]["revision"].as_i64(),
        "newest first: {one} {two}"
    );
}

async fn review_queues_page_oldest_first(app: TestApp) {
    let admin = app.admin_token().await;

    // Advertisers awaiting approval.
    let mut registered = Vec::new();
    for n in 0..3 {
        let (s, b) = app
            .post("/auth/v1/accounts", None, &json!({"email": format!("queue{n}@example.com"), "password": "long enough pw", "role": "ADVERTISER", "companyName": format!("Queue {n}")}))
            .await;
        assert_eq!(s, StatusCode::CREATED, "{b}");
        registered.push(b["accountId"].as_str().expect("accountId").to_owned());
    }
    let pending = "/admin/v1/advertisers/pending";
    let (ids, pages) = walk(&app, &admin, pending, "accountId", 2).await;
    assert_eq!(ids, registered, "oldest first");
    assert_eq!(pages, 2);
    refuses_bad_pages(&app, &admin, pending).await;

    // Placements awaiting review.
    let (_, publisher) = app.signed_in(Role::Publisher).await;
    let mut submitted = Vec::new();
    for n in 0..3 {
        let p = app
            .website_placement(&publisher, &format!("queue{n}.example.com"))
            .await;
        let id = p["placementId"].as_str().expect("id").to_owned();
        let (s, b) = app
            .post(
                &format!("/publisher/v2/placements/{id}/request-review"),
                Some(&publisher),
                &json!({}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        submitted.push(id);
    }
    let queue = "/admin/v1/placements";
    let (ids, pages) = walk(&app, &admin, queue, "placementId", 2).await;
    assert_eq!(ids, submitted, "oldest first");
    assert_eq!(pages, 2);
    let (ids, _) = walk(
        &app,
        &admin,
        &format!("{queue}?status=DRAFT"),
        "placementId",
        2,
    )
    .await;
    assert!(ids.is_empty(), "{ids:?}");
    refuses_bad_pages(&app, &admin, queue).await;

    // The other queues take the same parameters.
    for path in [
        "/admin/v1/funding",
        "/admin/v1/offer-campaigns",
        "/admin/v1/survey-campaigns",
    ] {
        refuses_bad_pages(&app, &admin, path).await;
        let (s, b) = app.get(&format!("{path}?limit=1"), Some(&admin)).await;
        assert_eq!(s, StatusCode::OK, "{path}: {b}");
    }
    let (_, b) = app.get("/admin/v1/offer-campaigns", Some(&admin)).await;
    assert!(b.get("nextCursor").is_some(), "{b}");
    let (_, b) = app.get("/admin/v1/survey-campaigns", Some(&admin)).await;
    assert!(b.get("next_cursor").is_some(), "{b}");
}
