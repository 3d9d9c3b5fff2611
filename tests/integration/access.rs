//! Every route with a path id, against a second account (issue 28, item 9). The routes come
//! from `/openapi.json`, so a new route is covered without a new test: one account of each
//! role makes one resource of every kind, then every route is called with those ids as a
//! second account of the same role (404 expected: another account's resource does not
//! exist for it), as the other role (403 or 404) and, for administrator routes, as a
//! publisher and an advertiser (403). Afterwards the first account's resources read exactly
//! as before. A route whose path names an id this test cannot make fails the test until the
//! id is added below.

use std::collections::BTreeMap;

use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tests::{TestApp, both_backends};

use crate::billing::ORDER;
use tests::builders::surveys::{Key, call, create as create_survey, issue_key, survey};
use tests::builders::{USD, keyed, publisher, session, static_slot};
use tests::builders::{campaign_body, create as create_campaign};

both_backends!(a_second_account_reaches_nothing_of_the_first);

/// Ids this test does not make: evidence and creatives exist only through development
/// uploads (their routes are covered by `evidence.rs` and the campaign tests).
const NOT_MADE: [&str; 2] = ["evidenceId", "creativeId"];

/// The first account's resources.
pub(crate) struct Owned {
    pub(crate) publisher: String,
    pub(crate) advertiser: String,
    key: Key,
    /// Path parameter → id (offer campaign for `campaignId`; see [`id_for`]).
    pub(crate) ids: BTreeMap<&'static str, String>,
    pub(crate) survey: String,
}

fn id_of(v: &Value, field: &str) -> String {
    v[field]
        .as_str()
        .unwrap_or_else(|| panic!("{field} in {v}"))
        .to_owned()
}

pub(crate) async fn make(app: &TestApp, admin: &str) -> Owned {
    let mut ids = BTreeMap::new();
    let p = publisher(app, admin).await;
    static_slot(app, &p).await;
    let (s, cb) = app
        .put(
            &format!("/publisher/v2/placements/{}/callback", p.placement),
            Some(&p.token),
            &json!({"url": "https://receiver.example/rewards"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{cb}");
    let (s, bl) = app
        .post(
            "/publisher/v2/blacklists",
            Some(&p.token),
            &json!({"kind": "CATEGORY", "value": "FINANCE"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{bl}");
    let (s, ban) = app
        .post(
            "/publisher/v2/user-bans",
            Some(&p.token),
            &json!({"placementId": p.placement, "externalUserId": "cheater", "reason": "reward fraud"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{ban}");
    let (sid, token) = session(app, &p, "user-1").await;
    let body = json!({"sessionId": sid, "reasonCode": "MISSING_REWARD", "message": "I reached level 10 yesterday but got nothing."});
    let (s, case) = keyed(app, "/sdk/v2/support", &token, "case-access-1", &body).await;
    assert_eq!(s, StatusCode::CREATED, "{case}");
    ids.insert("placementId", p.placement.clone());
    ids.insert("adSlotId", p.slot.clone());
    ids.insert("blacklistId", id_of(&bl, "blacklistId"));
    ids.insert("banId", id_of(&ban, "banId"));
    ids.insert("supportCaseId", id_of(&case, "supportCaseId"));
    ids.insert(
        "deliveryId",
        crate::callback_delivery::insert(
            app,
            &p.placement,
            &p.user.account_id,
            &format!("cnv_access_{}", p.placement),
            "DELIVERED",
            app.clock_now(),
        )
        .await,
    );

    let (adv_user, adv) = app.funded_advertiser(500 * USD).await;
    let campaign = create_campaign(app, &adv, &campaign_body("CUSTOM_S2S", 100 * USD)).await;
    let (s, f) = app
        .post(
            "/performance-marketing/v2/billing/funding/wire",
            Some(&adv),
            &json!({"amount": 150_000_000, "currency": "USD", "externalReference": "ACCESS-1"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{f}");
    let (s, order) = app
        .post(
            ORDER,
            Some(&adv),
            &json!({"amount": 40_000_000, "currency": "USD", "idempotencyKey": "order:access:0001"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{order}");
    ids.insert("campaignId", campaign.clone());
    ids.insert("assetId", campaign);
    ids.insert("fundingId", id_of(&f, "fundingId"));
    ids.insert("orderId", id_of(&order, "orderId"));
    ids.insert("accountId", adv_user.account_id.clone());

    let key = issue_key(app, &adv, "SHA256").await;
    let survey_id = create_survey(app, &key, &survey("Access survey")).await;
    let base = format!("/api/v1/campaigns/{survey_id}");
    let (s, q) = call(
        app,
        &key,
        Method::POST,
        &format!("{base}/campaignsquota"),
        Some(&json!({"name": "All", "num_respondents": 10})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{q}");
    let quota = q["campaignQuota"]["_id"]
        .as_str()
        .expect("quota")
        .to_owned();
    let (s, g) = call(
        app,
        &key,
        Method::POST,
        &format!("{base}/campaignsquota/{quota}/campaignsqualification"),
        Some(&json!({"question_id": "GENDER", "answer_ids": ["2"]})),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{g}");
    let (s, cq) = call(
        app,
        &key,
        Method::POST,
        &format!("{base}/customquestion"),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{cq}");
    let qid = id_of(&cq, "_id");
    let (s, o) = call(
        app,
        &key,
        Method::POST,
        &format!("/api/v1/campaigns/cq/{qid}/createoption"),
        None,
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{o}");
    ids.insert("campaignQuotaId", quota);
    ids.insert(
        "campaignQualificationsId",
        g["campaignQualification"]["_id"]
            .as_str()
            .expect("qualification")
            .to_owned(),
    );
    ids.insert("customquestionId", qid);
    ids.insert(
        "option_id",
        o["customQuestions"]["options"][0]["option_id"]
            .as_str()
            .expect("option")
            .to_owned(),
    );
    Owned {
        publisher: p.token,
        advertiser: adv,
        key,
        ids,
        survey: survey_id,
    }
}

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
            if names.iter().any(|n| NOT_MADE.contains(n)) {
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
