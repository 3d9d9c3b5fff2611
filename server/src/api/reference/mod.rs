//! `/docs`: the API reference, rendered on the server from the finished OpenAPI document once
//! at start-up (no script, no CDN: the service runs where none is reachable). An index of
//! every operation by tag; a page per operation (`/docs/operations/{operationId}`) with its
//! parameters, schemas, recorded examples, answers and copy-paste snippets; the error
//! catalogue (`/docs/errors`); and the guides from `docs/` (signing postbacks and survey
//! requests, verifying callbacks, the web SDK, versions and the changelog).

pub(crate) mod errors;
mod guides;
mod layout;
mod operation;
mod schema;
mod snippets;

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::Path;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use http::{StatusCode, header};
use serde_json::Value;
use utoipa::openapi::OpenApi;

use layout::{esc, method, page};

/// Every page of the reference, rendered once.
struct Reference {
    index: String,
    operations: HashMap<String, String>,
    errors: String,
    guides: HashMap<&'static str, String>,
}

/// The operations of the document in path order: (method, path, operation).
fn operations(spec: &Value) -> Vec<(&'static str, &str, &Value)> {
    let mut out = Vec::new();
    let Some(paths) = spec["paths"].as_object() else {
        return out;
    };
    for (path, item) in paths {
        for m in ["get", "post", "put", "patch", "delete"] {
            if let Some(op) = item.get(m) {
                out.push((m, path.as_str(), op));
            }
        }
    }
    out
}

fn summary(op: &Value) -> String {
    let text = op["summary"]
        .as_str()
        .or_else(|| op["description"].as_str())
        .unwrap_or_default();
    text.lines().next().unwrap_or_default().to_owned()
}

fn index(spec: &Value) -> String {
    let mut by_tag: Vec<(String, String)> = Vec::new();
    let mut tags: Vec<(String, String)> = spec["tags"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| {
            let name = t["name"].as_str().unwrap_or_default().to_owned();
            (
                name,
                t["description"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    // Tags the operations use without a declaration, after the declared ones.
    for (_, _, op) in operations(spec) {
        let used = op["tags"].as_array().into_iter().flatten();
        for t in used.filter_map(Value::as_str) {
            if !tags.iter().any(|(name, _)| name == t) {
                tags.push((t.to_owned(), String::new()));
            }
        }
    }
    for (tag, about) in &tags {
        let rows: String = operations(spec)
            .into_iter()
            .filter(|(_, _, op)| op["tags"].as_array().is_some_and(|t| t.iter().any(|x| x == tag)))
            .map(|(m, path, op)| {
                let id = op["operationId"].as_str().unwrap_or_default();
                format!(
                    r#"<tr><td>{}</td><td><a href="/docs/operations/{id}"><code>{}</code></a></td><td>{}</td></tr>"#,
                    method(m),
                    esc(path),
                    esc(&summary(op))
                )
            })
            .collect();
        if !rows.is_empty() {
            by_tag.push((tag.clone(), format!(
                r#"<section class="card" id="tag-{t}"><h2>{t}</h2><p class="muted">{a}</p><table>{rows}</table></section>"#,
                t = esc(tag),
                a = esc(about)
            )));
        }
    }
    let info = &spec["info"];
    let body = format!(
        r#"<section class="card"><h1>{title} <small class="muted">{version}</small></h1><p>{desc}</p>
<p>Start here: <a href="/docs/guides/postbacks">report conversions</a> (Custom S2S signing),
<a href="/docs/guides/fraud">fraud protection and held conversions</a>,
<a href="/docs/guides/callbacks">receive reward callbacks</a> (verification),
<a href="/docs/guides/surveys">the survey API</a> (<code>enc</code> signing),
<a href="/docs/guides/web-sdk">the offerwall and web SDK</a>,
<a href="/docs/errors">error codes</a>, <a href="/docs/guides/versioning">versions and changelog</a>.
The machine-readable OpenAPI 3.1 document is <a href="/openapi.json">/openapi.json</a>.</p>
<nav class="side">{nav}</nav></section>{sections}"#,
        title = esc(info["title"].as_str().unwrap_or_default()),
        version = esc(info["version"].as_str().unwrap_or_default()),
        desc = esc(info["description"].as_str().unwrap_or_default()),
        nav = by_tag
            .iter()
            .map(|(t, _)| format!(r##"<a href="#tag-{t}">{t}</a>"##, t = esc(t)))
            .collect::<String>(),
        sections = by_tag.into_iter().map(|(_, s)| s).collect::<String>(),
    );
    page("Operations", &body)
}

impl Reference {
    fn build(doc: &OpenApi) -> Reference {
        let spec = serde_json::to_value(doc).unwrap_or_default();
        let operations = operations(&spec)
            .into_iter()
            .filter_map(|(m, path, op)| {
                let id = op["operationId"].as_str()?.to_owned();
                Some((id, operation::render(&spec, m, path, op)))
            })
            .collect();
        Reference {
            index: index(&spec),
            operations,
            errors: errors::render(),
            guides: guides::render_all(),
        }
    }
}

/// Pages change only with a new build of the server: browsers keep them five minutes.
fn html(body: &str) -> Response {
    (
        [(header::CACHE_CONTROL, "public, max-age=300")],
        Html(body.to_owned()),
    )
        .into_response()
}

fn missing(what: &str) -> Response {
    let body = page(
        "Not found",
        &format!(
            r#"<section class="card"><h1>Not found</h1><p>No {} here. See <a href="/docs">every operation</a>.</p></section>"#,
            esc(what)
        ),
    );
    (StatusCode::NOT_FOUND, Html(body)).into_response()
}

/// The reference's routes for the finished document.
pub fn router(doc: &OpenApi) -> Router {
    let r = Arc::new(Reference::build(doc));
    let (a, b, c, d) = (r.clone(), r.clone(), r.clone(), r);
    Router::new()
        .route("/docs", get(move || async move { html(&a.index) }))
        .route(
            "/docs/operations/{id}",
            get(move |Path(id): Path<String>| async move {
                b.operations
                    .get(&id)
                    .map_or_else(|| missing("such operation"), |p| html(p))
            }),
        )
        .route("/docs/errors", get(move || async move { html(&c.errors) }))
        .route(
            "/docs/guides/{name}",
            get(move |Path(name): Path<String>| async move {
                d.guides
                    .get(name.as_str())
                    .map_or_else(|| missing("such guide"), |p| html(p))
            }),
        )
}
