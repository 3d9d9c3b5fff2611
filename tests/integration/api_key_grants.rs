//! Every dashboard route of `/openapi.json`, called with API keys (issue 54, part 5), so a
//! new route is covered without a new test. The document names, per operation, the grant an
//! API key needs (`dashboardApiKey: ["area:read"]`) or accepts no key (no `dashboardApiKey`).
//! For each operation: a key with every grant of the role but that area is refused
//! (`403 insufficient_scope`), a read-only key is refused every write, and a key with every
//! grant passes the key check (whatever the handler then answers an empty body or an
//! unknown id); where no key is accepted, even that key is refused.

use std::collections::HashMap;

use app::model::Role;
use app::model::api_key::KeyArea;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tests::{TestApp, both_backends};

use super::api_keys::make_key;

both_backends!(every_route_asks_a_key_for_the_grant_its_document_names);

/// Keys of one role: every grant (write), every grant read-only, and every grant but one
/// area (made when first needed).
struct RoleKeys {
    token: String,
    all: String,
    read_only: String,
    without: HashMap<KeyArea, String>,
}

impl RoleKeys {
    async fn new(app: &TestApp, token: String, role: Role) -> RoleKeys {
        let areas = KeyArea::of_role(role);
        let write: Vec<String> = areas
            .iter()
            .map(|a| format!("{}:write", a.as_str()))
            .collect();
        let read: Vec<String> = areas
            .iter()
            .map(|a| format!("{}:read", a.as_str()))
            .collect();
        let all = make_key(app, &token, &refs(&write)).await.0;
        let read_only = make_key(app, &token, &refs(&read)).await.0;
        RoleKeys {
            token,
            all,
            read_only,
            without: HashMap::new(),
        }
    }

    async fn without(&mut self, app: &TestApp, role: Role, area: KeyArea) -> Option<String> {
        if let Some(k) = self.without.get(&area) {
            return Some(k.clone());
        }
        let rest: Vec<String> = KeyArea::of_role(role)
            .iter()
            .filter(|a| **a != area)
            .map(|a| format!("{}:write", a.as_str()))
            .collect();
        if rest.is_empty() {
            return None;
        }
        let key = make_key(app, &self.token, &refs(&rest)).await.0;
        self.without.insert(area, key.clone());
        Some(key)
    }
}

fn refs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// The grant the document names for an API key, `Some(None)` for any key, `None` where no
/// key is accepted.
fn grant(op: &Value) -> Option<Option<(KeyArea, bool)>> {
    let req = op["security"]
        .as_array()?
        .iter()
        .find_map(|r| r.get("dashboardApiKey"))?;
    let Some(g) = req
        .as_array()
        .and_then(|a| a.first())
        .and_then(Value::as_str)
    else {
        return Some(None);
    };
    let (area, access) = g.split_once(':').expect("area:access");
    Some(Some((
        KeyArea::parse(area).expect("a known area"),
        access == "write",
    )))
}

fn refused(s: StatusCode, body: &Value) -> bool {
    s == StatusCode::FORBIDDEN && body["error"]["code"] == "insufficient_scope"
}

async fn every_route_asks_a_key_for_the_grant_its_document_names(app: TestApp) {
    let (_, publisher) = app.signed_in(Role::Publisher).await;
    let (_, advertiser) = app.funded_advertiser(0).await;
    let admin = app.admin_token().await;
    let mut keys = [
        (
            Role::Publisher,
            RoleKeys::new(&app, publisher, Role::Publisher).await,
        ),
        (
            Role::Advertiser,
            RoleKeys::new(&app, advertiser, Role::Advertiser).await,
        ),
        (Role::Admin, RoleKeys::new(&app, admin, Role::Admin).await),
    ];
    let (_, doc) = app.get("/openapi.json", None).await;
    let (mut open, mut closed, mut wrong) = (0, 0, Vec::new());
    for (template, ops) in doc["paths"].as_object().expect("paths") {
        let role = if template.starts_with("/publisher/v2") || template.starts_with("/auth/v1") {
            Role::Publisher
        } else if template.starts_with("/performance-marketing/v2") {
            Role::Advertiser
        } else if template.starts_with("/admin/v1") {
            Role::Admin
        } else {
            continue;
        };
        let path = tests::path_with_missing_ids(template);
        for (method, op) in ops.as_object().into_iter().flatten() {
            let bearer = op["security"]
                .as_array()
                .is_some_and(|s| s.iter().any(|r| r.get("dashboardBearer").is_some()));
            let Ok(method) = method.to_uppercase().parse::<Method>() else {
                continue;
            };
            if !bearer {
                continue;
            }
            let body = (method != Method::GET && method != Method::DELETE).then(|| json!({}));
            let k = &mut keys.iter_mut().find(|(r, _)| *r == role).expect("role").1;
            let call = |key: String| {
                let (app, method, path, body) = (&app, method.clone(), path.clone(), body.clone());
                async move { app.send(method, &path, Some(&key), body.as_ref()).await }
            };
            let what = format!("{method} {template}");
            let (s, b) = call(k.all.clone()).await;
            match grant(op) {
                None => {
                    closed += 1;
                    if !refused(s, &b) {
                        wrong.push(format!("{what}: accepts no key, but answered {s} {b}"));
                    }
                }
                Some(need) => {
                    open += 1;
                    if refused(s, &b) {
                        wrong.push(format!("{what}: a key with every grant was refused"));
                    }
                    let Some((area, write)) = need else { continue };
                    if let Some(without) = k.without(&app, role, area).await {
                        let (s, b) = call(without).await;
                        if !refused(s, &b) {
                            wrong.push(format!("{what}: no {} grant, answered {s}", area.as_str()));
                        }
                    }
                    if write {
                        let (s, b) = call(k.read_only.clone()).await;
                        if !refused(s, &b) {
                            wrong.push(format!("{what}: a read-only key answered {s}"));
                        }
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(open >= 120, "operations open to keys: {open}");
    assert!(closed >= 5, "operations closed to keys: {closed}");
    println!("api key grants: {open} operations open to keys, {closed} closed");
}
