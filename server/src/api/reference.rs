//! `/docs`: a browsable API reference rendered on the server from the OpenAPI document,
//! with no external scripts (the service runs where no CDN is reachable).

use std::fmt::Write as _;

use utoipa::openapi::OpenApi;
use utoipa::openapi::path::HttpMethod;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Renders the reference page for `doc`.
pub fn render(doc: &OpenApi) -> String {
    let mut body = String::new();
    let methods = [
        (HttpMethod::Get, "GET"),
        (HttpMethod::Post, "POST"),
        (HttpMethod::Put, "PUT"),
        (HttpMethod::Patch, "PATCH"),
        (HttpMethod::Delete, "DELETE"),
    ];
    for (path, item) in &doc.paths.paths {
        for (method, label) in &methods {
            let op = match method {
                HttpMethod::Get => &item.get,
                HttpMethod::Post => &item.post,
                HttpMethod::Put => &item.put,
                HttpMethod::Patch => &item.patch,
                HttpMethod::Delete => &item.delete,
                _ => &None,
            };
            let Some(op) = op else { continue };
            let summary = op
                .summary
                .clone()
                .or_else(|| op.description.clone())
                .unwrap_or_default();
            let tags = op.tags.clone().unwrap_or_default().join(", ");
            let mut responses = String::new();
            for (code, _) in &op.responses.responses {
                let _ = write!(responses, "<code>{}</code> ", esc(code));
            }
            let auth = op
                .security
                .as_ref()
                .map(|s| {
                    if s.is_empty() {
                        String::new()
                    } else {
                        "authenticated".to_owned()
                    }
                })
                .unwrap_or_default();
            let _ = write!(
                body,
                "<tr><td><span class=\"m m-{l}\">{label}</span></td><td><code>{p}</code></td><td>{s}</td><td>{t}</td><td>{a}</td><td>{r}</td></tr>",
                l = label.to_ascii_lowercase(),
                p = esc(path),
                s = esc(&summary),
                t = esc(&tags),
                a = auth,
                r = responses,
            );
        }
    }
    format!(
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Marketplace</title><link rel="stylesheet" href="/assets/app.css">
<style>.m{{font:600 11px/1 ui-monospace,monospace;padding:3px 6px;border-radius:4px;color:#fff}}.m-get{{background:#067647}}.m-post{{background:#2456d6}}.m-put,.m-patch{{background:#8a5a00}}.m-delete{{background:#b42318}}</style>
</head><body><header class="topbar"><a class="brand" href="/">Marketplace</a><nav class="nav"><a href="/openapi.json">openapi.json</a></nav></header>
<main class="content"><section class="card"><h1>{title} <small class="muted">{version}</small></h1><p>{desc}</p>
<p class="muted">The machine-readable OpenAPI 3.1 document is at <a href="/openapi.json">/openapi.json</a>; request and response schemas are there.</p>
<table><thead><tr><th>Method</th><th>Path</th><th>Summary</th><th>Tag</th><th>Auth</th><th>Responses</th></tr></thead><tbody>{body}</tbody></table></section></main></body></html>"#,
        title = esc(&doc.info.title),
        version = esc(&doc.info.version),
        desc = esc(doc.info.description.as_deref().unwrap_or_default()),
    )
}
