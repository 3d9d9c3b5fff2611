//! Every dashboard route of `/openapi.json` and every dashboard server function, called by
//! each team role (issue 54, part 3), so a new route or form is covered without a new test.
//! The document names, per operation, the roles that may call it (`x-team-roles`): a member
//! of any other role is refused (`403 insufficient_role`), a member of a named role is not.
//! On the dashboard, a viewer is refused every server function that writes and none that reads.

use std::collections::BTreeMap;

use app::model::Role;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use tests::{TestApp, both_backends};

both_backends!(every_route_admits_the_roles_its_document_names);
tests::each_backend!(a_viewer_is_refused_every_dashboard_write);

const ROLES: [&str; 5] = ["OWNER", "ADMIN", "FINANCE", "DEVELOPER", "VIEWER"];

fn refused(s: StatusCode, body: &Value) -> bool {
    s == StatusCode::FORBIDDEN && body["error"]["code"] == "insufficient_role"
}

/// A token per role for an organisation whose owner holds `owner`.
async fn team(app: &TestApp, owner: String) -> Vec<(&'static str, String)> {
    let mut out = vec![("OWNER", owner.clone())];
    for role in &ROLES[1..] {
        out.push((role, app.member(&owner, role).await.1));
    }
    out
}

async fn every_route_admits_the_roles_its_document_names(app: TestApp) {
    let (_, publisher) = app.signed_in(Role::Publisher).await;
    let (_, advertiser) = app.funded_advertiser(0).await;
    let teams = [
        ("/publisher/v2", team(&app, publisher).await),
        ("/performance-marketing/v2", team(&app, advertiser).await),
    ];
    let (_, doc) = app.get("/openapi.json", None).await;
    let (mut checked, mut wrong) = (0, Vec::new());
    for (template, ops) in doc["paths"].as_object().expect("paths") {
        let Some((_, tokens)) = teams.iter().find(|(p, _)| template.starts_with(p)) else {
            continue;
        };
        let path = tests::path_with_missing_ids(template);
        for (method, op) in ops.as_object().into_iter().flatten() {
            let Some(roles) = op["x-team-roles"].as_array() else {
                continue;
            };
            let Ok(method) = method.to_uppercase().parse::<Method>() else {
                continue;
            };
            checked += 1;
            let body = (method != Method::GET && method != Method::DELETE).then(|| json!({}));
            for (role, token) in tokens {
                let (s, b) = app
                    .send(method.clone(), &path, Some(token), body.as_ref())
                    .await;
                let named = roles.iter().any(|r| r == role);
                if named == refused(s, &b) {
                    wrong.push(format!("{method} {template} as {role}: {s} {b:.200}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(checked >= 100, "operations with team roles: {checked}");
    println!("team roles: {checked} operations called by each of five roles");
}

/// The server functions of the dashboard's sources whose body reaches `writer` (form posts),
/// and those that only read: `(endpoint, arguments, writes)`.
fn server_fns() -> Vec<(String, Vec<String>, bool)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../app/src/server_fns");
    let mut files = vec![dir.clone()];
    let mut out = Vec::new();
    while let Some(d) = files.pop() {
        for e in std::fs::read_dir(&d).expect("dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                files.push(p);
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap_or_default();
            for part in text
                .split("#[server(prefix = \"/fn\", endpoint = \"")
                .skip(1)
            {
                let endpoint = part.split('"').next().unwrap_or_default().to_owned();
                let body = part.split("\n}\n").next().unwrap_or_default();
                let args = body
                    .split("pub async fn ")
                    .nth(1)
                    .and_then(|sig| sig.split_once('('))
                    .and_then(|(_, rest)| rest.split_once(") ->"))
                    .map(|(p, _)| p)
                    .unwrap_or_default()
                    .split(',')
                    .filter_map(|p| p.split_once(':').map(|(n, _)| n.trim().to_owned()))
                    .collect();
                let writes = body.contains("writer(&csrf)") || body.contains("web::write(&csrf");
                let own = body.contains("own_writer(");
                out.push((endpoint, args, writes && !own));
            }
        }
    }
    out
}

async fn a_viewer_is_refused_every_dashboard_write(backend: tests::Backend) {
    let app = TestApp::spawn(backend).await;
    let (_, owner) = app.signed_in(Role::Publisher).await;
    let (viewer, _) = app.member(&owner, "VIEWER").await;
    let client = tests::browser();
    let csrf = app.browser_sign_in(&client, &viewer).await;
    let (mut writes, mut reads, mut wrong) = (0, 0, Vec::new());
    for (endpoint, args, write) in server_fns() {
        // These sign the browser out (and would spend the CSRF token of the rest).
        if matches!(
            endpoint.as_str(),
            "sign_out" | "leave_team" | "sign_out_everywhere" | "sign_out_session"
        ) {
            continue;
        }
        let form: BTreeMap<String, String> = args
            .iter()
            .map(|a| {
                (
                    a.clone(),
                    if a == "csrf" {
                        csrf.clone()
                    } else {
                        "1".to_owned()
                    },
                )
            })
            .collect();
        let res = client
            .post(app.url(&format!("/fn/{endpoint}")))
            .header("referer", app.url("/"))
            .form(&form)
            .send()
            .await
            .expect("post");
        let status = res.status();
        let text = res.text().await.unwrap_or_default();
        let by_role = status == StatusCode::FORBIDDEN && text.contains("insufficient_role");
        if write {
            writes += 1;
        } else {
            reads += 1;
        }
        // The account's own cards are open to every person, but a viewer keeps no API keys
        // and registers no account webhooks.
        let expected = write
            || matches!(
                endpoint.as_str(),
                "create_api_key" | "notices_create_webhook" | "notices_webhook_action"
            );
        if expected != by_role {
            wrong.push(format!(
                "{endpoint} (writes: {write}): {status} {text:.200}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(
        writes >= 60 && reads >= 40,
        "writes {writes}, reads {reads}"
    );
    println!("team roles: a viewer refused {writes} dashboard writes and none of {reads} reads");
}
