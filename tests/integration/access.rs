//! Every route with a path id, against a second account (issue 28, item 9). The routes come
//! from `/openapi.json`, so a new route is covered without a new test: one account of each
//! role makes one resource of every kind, then every route is called with those ids as a
//! second account of the same role (404 expected: another account's resource does not
//! exist for it), as the other role (403 or 404) and, for administrator routes, as a
//! publisher and an advertiser (403). Afterwards the first account's resources read exactly
//! as before. A route whose path names an id this test cannot make fails the test until the
//! id is added below.

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tests::builders::ownership::{Owned, make};
use tests::{TestApp, both_backends};

use tests::builders::publisher;
use tests::builders::surveys::{call, issue_key};

both_backends!(a_second_account_reaches_nothing_of_the_first);

/// Ids this test does not make: evidence and creatives exist only through development
/// uploads (their routes are covered by `evidence.rs` and the campaign tests).
const NOT_MADE: [&str; 2] = ["evidenceId", "creativeId"];
/// Path parameters that name a view of the caller's own data, not a resource that could be
/// another account's: a statement's month (`statements.rs` covers it).
const NOT_IDS: [&str; 1] = ["period"];

/// The id for a path parameter: `campaignId` is the survey on survey routes.
fn id_for<'a>(o: &'a Owned, path: &str, name: &str) -> Option<&'a str> {
    if name == "campaignId" && (path.starts_with("/api/v1") || path.contains("survey-campaigns")) {
        return Some(&o.survey);
    }
    o.ids.get(name).map(String::as_str)
}

/// What the first account reads of its own resources.
async fn snapshot(app: &TestApp, o: &Owned) -> Vec<Value> {
    let pid = &o.ids["placementId"];
    let cid = &o.ids["campaignId"];
    let mut out = Vec::new();
    for path in [
        format!("/publisher/v2/placements/{pid}"),
        format!("/publisher/v2/placements/{pid}/ad-slots"),
        format!("/publisher/v2/placements/{pid}/callback"),
        format!("/publisher/v2/placements/{pid}/user-identity"),
        "/publisher/v2/blacklists".to_owned(),
        "/publisher/v2/support-cases".to_owned(),
        format!("/publisher/v2/callback-deliveries/{}", o.ids["deliveryId"]),
        format!("/publisher/v2/payouts/{}", o.ids["payoutId"]),
    ] {
        let (s, v) = app.get(&path, Some(&o.publisher)).await;
        assert_eq!(s, StatusCode::OK, "{path}: {v}");
        out.push(v);
    }
    for path in [
        format!("/performance-marketing/v2/campaigns/{cid}"),
        format!("/performance-marketing/v2/campaigns/{cid}/tracking"),
        "/performance-marketing/v2/billing/balance".to_owned(),
        "/performance-marketing/v2/billing/funding".to_owned(),
    ] {
        let (s, v) = app.get(&path, Some(&o.advertiser)).await;
        assert_eq!(s, StatusCode::OK, "{path}: {v}");
        out.push(v);
    }
    for path in [
        format!("/api/v1/campaigns/{}", o.survey),
        format!("/api/v1/campaigns/{}/getcampaignquota", o.survey),
        format!("/api/v1/campaigns/{}/getcustomquestions", o.survey),
    ] {
        let (s, v) = call(app, &o.key, Method::GET, &path, None).await;
        assert_eq!(s, StatusCode::OK, "{path}: {v}");
        out.push(v);
    }
    out
}

async fn send(app: &TestApp, method: &Method, path: &str, bearer: &str) -> (StatusCode, Value) {
    let body = (*method != Method::GET && *method != Method::DELETE).then(|| json!({}));
    app.send(method.clone(), path, Some(bearer), body.as_ref())
        .await
}

async fn a_second_account_reaches_nothing_of_the_first(app: TestApp) {
    let admin = app.admin_token().await;
    let first = make(&app, &admin).await;
    let other_publisher = publisher(&app, &admin).await.token;
    let (_, other_advertiser) = app.funded_advertiser(0).await;
    let other_key = issue_key(&app, &other_advertiser, "SHA256").await;
    let before = snapshot(&app, &first).await;

    let (_, doc) = app.get("/openapi.json", None).await;
    let paths = doc["paths"].as_object().expect("paths");
    let (mut covered, mut wrong, mut before_lookup) = (0, Vec::new(), 0);
    for (template, ops) in paths {
        let names: Vec<&str> = template
            .split('/')
            .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
            .collect();
        let survey_api = template.starts_with("/api/v1/campaigns");
        let dashboard = ["/publisher/v2", "/performance-marketing/v2", "/admin/v1"]
            .iter()
            .any(|p| template.starts_with(p));
        for (method, op) in ops.as_object().into_iter().flatten() {
            let signed_in = op["security"].as_array().is_some_and(|s| {
                s.iter()
                    .any(|r| r.get("dashboardBearer").is_some() || r.get("surveyApiKey").is_some())
            });
            if names.is_empty() || !signed_in || !(survey_api || dashboard) {
                continue;
            }
            let Ok(method) = method.to_uppercase().parse::<Method>() else {
                continue;
            };
            if names
                .iter()
                .any(|n| NOT_MADE.contains(n) || NOT_IDS.contains(n))
            {
                continue;
            }
            let (mut path, mut missing) = (template.clone(), template.clone());
            for n in &names {
                let id = id_for(&first, template, n)
                    .unwrap_or_else(|| panic!("{method} {template}: make a `{n}` in access.rs"));
                path = path.replace(&format!("{{{n}}}"), id);
                missing = missing.replace(&format!("{{{n}}}"), "zz_missing");
            }
            covered += 1;
            // (who, answer for the first account's ids, answer for ids that do not exist,
            // answers that are right whatever the body).
            let mut answers = Vec::new();
            if survey_api {
                let body = (method == Method::POST || method == Method::PUT).then(|| json!({}));
                let (s, _) = call(&app, &other_key, method.clone(), &path, body.as_ref()).await;
                let (m, _) = call(&app, &other_key, method.clone(), &missing, body.as_ref()).await;
                answers.push(("other advertiser's key", s, m, &[StatusCode::NOT_FOUND][..]));
            } else if template.starts_with("/admin/v1") {
                for (who, token) in [
                    ("publisher", &first.publisher),
                    ("advertiser", &first.advertiser),
                ] {
                    let (s, _) = send(&app, &method, &path, token).await;
                    // Administrator routes refuse other roles before anything else.
                    answers.push((who, s, StatusCode::FORBIDDEN, &[StatusCode::FORBIDDEN][..]));
                }
            } else {
                let (same, other_role) = if template.starts_with("/publisher/v2") {
                    (&other_publisher, &first.advertiser)
                } else {
                    (&other_advertiser, &first.publisher)
                };
                let (s, _) = send(&app, &method, &path, same).await;
                let (m, _) = send(&app, &method, &missing, same).await;
                answers.push(("second account", s, m, &[StatusCode::NOT_FOUND][..]));
                let (s, _) = send(&app, &method, &path, other_role).await;
                let (m, _) = send(&app, &method, &missing, other_role).await;
                answers.push((
                    "other role",
                    s,
                    m,
                    &[StatusCode::FORBIDDEN, StatusCode::NOT_FOUND][..],
                ));
            }
            for (who, s, for_missing, right) in answers {
                // Right, or (a body refused before the lookup) exactly what an id that does
                // not exist gets: either way the answer shows nothing of the resource.
                let hidden = right.contains(&s) || (s == for_missing && s.is_client_error());
                if !hidden {
                    wrong.push(format!(
                        "{method} {template} as {who}: {s} (an unknown id: {for_missing})"
                    ));
                }
                if !right.contains(&s) {
                    before_lookup += 1;
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "answers that reach or reveal another account's resource:\n{}",
        wrong.join("\n")
    );
    // Every route with a path id of the consoles and the survey API (all but the two upload
    // routes) is called; a new one raises this count.
    assert!(covered >= 80, "routes covered: {covered}");
    println!(
        "access: {covered} routes with path ids called as a second account \
         ({before_lookup} answers refused the body before the lookup, as for an unknown id)"
    );
    assert_eq!(
        snapshot(&app, &first).await,
        before,
        "nothing of the first account changed"
    );
}
