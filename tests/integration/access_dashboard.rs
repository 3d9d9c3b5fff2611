//! The dashboard's server functions that take an id, against a second account (issue 28,
//! item 9). The functions are read from `app/src/server_fns` (every `#[server]` whose
//! arguments name an id), so a new one is covered without a new test: each is posted as a
//! signed-in second publisher and a second advertiser with the first account's ids, and
//! again with ids that do not exist. The two answers must be the same refusal: a server
//! function shows nothing of another account's resource, not even that it exists.

use std::collections::BTreeMap;

use reqwest::StatusCode;
use tests::{TestApp, TestUser, both_backends};

use tests::builders::ownership::{Owned, make};
use tests::builders::publisher;

both_backends!(a_second_account_reaches_nothing_through_the_dashboard);

/// One `#[server]` function: its endpoint and argument names.
struct ServerFn {
    endpoint: String,
    args: Vec<String>,
}

/// The source files under `dir`, its folders included.
fn sources(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("source folder") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// Every server function in `app/src/server_fns` (and its folders).
fn server_fns() -> Vec<ServerFn> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../app/src/server_fns");
    let mut out = Vec::new();
    for path in sources(&dir) {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        for part in text
            .split("#[server(prefix = \"/fn\", endpoint = \"")
            .skip(1)
        {
            let endpoint = part.split('"').next().unwrap_or_default().to_owned();
            let Some(sig) = part.split("pub async fn ").nth(1) else {
                continue;
            };
            let params = sig
                .split_once('(')
                .and_then(|(_, rest)| rest.split_once(") ->"))
                .map(|(p, _)| p)
                .unwrap_or_default();
            let args = params
                .split(',')
                .filter_map(|p| p.split_once(':').map(|(n, _)| n.trim().to_owned()))
                .collect();
            out.push(ServerFn { endpoint, args });
        }
    }
    out
}

/// The first account's id for an argument (`None`: not a resource id).
fn id_for<'a>(o: &'a Owned, endpoint: &str, arg: &str) -> Option<&'a str> {
    let key = match arg {
        "campaign_id" if endpoint.starts_with("survey") => return Some(&o.survey),
        "placement_id" => "placementId",
        "slot_id" => "adSlotId",
        "campaign_id" => "campaignId",
        "funding_id" => "fundingId",
        "order_id" => "orderId",
        "support_case_id" => "supportCaseId",
        "account_id" => "accountId",
        "quota_id" => "campaignQuotaId",
        "delivery_id" => "deliveryId",
        _ => return None,
    };
    o.ids.get(key).map(String::as_str)
}

/// A browser of its own signed in as `user`, with its CSRF token.
async fn browser(app: &TestApp, user: &TestUser) -> (reqwest::Client, String) {
    let client = tests::browser();
    let csrf = app.browser_sign_in(&client, user).await;
    (client, csrf)
}

async fn post(
    app: &TestApp,
    client: &reqwest::Client,
    endpoint: &str,
    form: &BTreeMap<String, String>,
) -> (StatusCode, String) {
    let res = client
        .post(app.url(&format!("/fn/{endpoint}")))
        .header("referer", app.url("/"))
        .form(form)
        .send()
        .await
        .expect("post");
    let status = res.status();
    (status, res.text().await.unwrap_or_default())
}

async fn a_second_account_reaches_nothing_through_the_dashboard(app: TestApp) {
    let admin = app.admin_token().await;
    let first = make(&app, &admin).await;
    let second = publisher(&app, &admin).await;
    let (other_advertiser, _) = app.funded_advertiser(0).await;
    let browsers = [
        ("second publisher", browser(&app, &second.user).await),
        ("second advertiser", browser(&app, &other_advertiser).await),
    ];
    // The browsers are signed in and their tokens work: the second publisher reads its own
    // placement (so the refusals below are about ownership, not a missing session).
    let (client, _) = &browsers[0].1;
    let own = BTreeMap::from([("placement_id".to_owned(), second.placement.clone())]);
    let (s, body) = post(&app, client, "publisher_placement", &own).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    assert!(body.contains(&second.placement), "{body}");
    let (mut covered, mut wrong) = (0, Vec::new());
    for f in server_fns() {
        let ids: Vec<&String> = f
            .args
            .iter()
            .filter(|a| id_for(&first, &f.endpoint, a).is_some())
            .collect();
        if ids.is_empty() {
            continue;
        }
        covered += 1;
        for (who, (client, csrf)) in &browsers {
            let mut theirs = BTreeMap::new();
            let mut missing = BTreeMap::new();
            for a in &f.args {
                let (real, none) = match (a.as_str(), id_for(&first, &f.endpoint, a)) {
                    ("csrf", _) => (csrf.clone(), csrf.clone()),
                    (_, Some(id)) => (id.to_owned(), "zz_missing".to_owned()),
                    // Every other argument gets a plain value; a function that refuses it
                    // does so for both calls alike.
                    _ => ("1".to_owned(), "1".to_owned()),
                };
                theirs.insert(a.clone(), real);
                missing.insert(a.clone(), none);
            }
            let (s, body) = post(&app, client, &f.endpoint, &theirs).await;
            let (m, none) = post(&app, client, &f.endpoint, &missing).await;
            // A refusal, or an answer that is the same as for an id that does not exist
            // (a flash read finds nothing in the caller's own session either way).
            let refused = !(s.is_success() || s.is_redirection()) && s == m;
            if !refused && (s != m || body != none) {
                wrong.push(format!(
                    "{} as {who}: {s} (an unknown id: {m}) {body:.200}",
                    f.endpoint
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "server functions that reach or reveal another account's resource:\n{}",
        wrong.join("\n")
    );
    assert!(covered >= 45, "server functions covered: {covered}");
    println!(
        "access: {covered} dashboard server functions with ids called as a second publisher and advertiser"
    );
}
