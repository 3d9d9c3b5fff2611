//! One operation's page: what it does, how it authenticates, its parameters, its request
//! body (schema and the recorded example), every answer with its schema and example, the
//! error codes its documentation and examples name, snippets, and the named schemas it uses.

use std::collections::BTreeSet;

use serde_json::Value;

use super::layout::{code, esc, method, page, prose};
use super::{schema, snippets};

/// The content an example lives in: JSON first, else the first type.
fn content(c: &Value) -> Option<(&str, &Value)> {
    let map = c.as_object()?;
    map.get_key_value("application/json")
        .or_else(|| map.iter().next())
        .map(|(k, v)| (k.as_str(), v))
}

fn example_block(kind: &str, example: &Value) -> String {
    let text = match example {
        Value::String(s) if kind != "application/json" => s.clone(),
        v => serde_json::to_string_pretty(v).unwrap_or_default(),
    };
    code(&text)
}

/// Error codes an operation can answer: its answers' `x-error-codes` (document::error_codes),
/// and for its HTML answers the codes their descriptions name in backticks.
fn error_codes(op: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (status, r) in op["responses"].as_object().into_iter().flatten() {
        if !status.starts_with('4') && !status.starts_with('5') {
            continue;
        }
        if let Some(listed) = r["x-error-codes"].as_array() {
            out.extend(listed.iter().filter_map(Value::as_str).map(str::to_owned));
            continue;
        }
        let about = r["description"].as_str().unwrap_or_default();
        for (i, part) in about.split('`').enumerate() {
            let word = i % 2 == 1 && !part.is_empty();
            if word && part.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                out.insert(part.to_owned());
            }
        }
        if let Some((_, c)) = content(&r["content"]) {
            if let Some(code) = c["example"]["error"]["code"].as_str() {
                out.insert(code.to_owned());
            }
        }
    }
    out
}

fn parameters(spec: &Value, op: &Value) -> String {
    let rows: String = op["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            format!(
                r#"<tr><td><code>{}</code>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
                esc(p["name"].as_str().unwrap_or_default()),
                if p["required"] == true {
                    r#" <span class="req">required</span>"#
                } else {
                    ""
                },
                esc(p["in"].as_str().unwrap_or_default()),
                schema::label(spec, &p["schema"]),
                prose(p["description"].as_str().unwrap_or_default())
            )
        })
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    format!(
        "<h2>Parameters</h2><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>About</th></tr></thead><tbody>{rows}</tbody></table>"
    )
}

fn answers(spec: &Value, op: &Value, roots: &mut Vec<Value>) -> String {
    let mut out = String::new();
    for (status, r) in op["responses"].as_object().into_iter().flatten() {
        let about = r["description"].as_str().unwrap_or_default();
        let mut body = String::new();
        if let Some((kind, c)) = content(&r["content"]) {
            body += &format!(
                "<p><code>{}</code>: {}</p>",
                esc(kind),
                schema::label(spec, &c["schema"])
            );
            roots.push(c["schema"].clone());
            if !c["example"].is_null() {
                body += &example_block(kind, &c["example"]);
            }
        }
        let headers: Vec<String> = r["headers"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(h, _)| format!("<code>{}</code>", esc(h)))
            .collect();
        if !headers.is_empty() {
            body += &format!("<p class=\"muted\">Headers: {}</p>", headers.join(", "));
        }
        out += &format!(
            r#"<details{open}><summary><strong>{s}</strong> {a}</summary>{body}</details>"#,
            open = if status.starts_with('2') { " open" } else { "" },
            s = esc(status),
            a = prose(about)
        );
    }
    format!("<h2>Answers</h2>{out}")
}

/// The guide with the code an integrator needs beside the snippets (signing, verifying).
fn guide(path: &str) -> &'static str {
    // A part of the path (callback settings live under each placement).
    let links: [(&str, &str); 5] = [
        (
            "/performance-marketing/v2/postbacks/",
            r#"<p>Signing code: <a href="/docs/guides/postbacks">reporting conversions</a> (Python, Node, shell).</p>"#,
        ),
        (
            "/api/v1/campaigns",
            r#"<p>Computing <code>enc</code>: <a href="/docs/guides/surveys">the survey API guide</a>, "Signatures".</p>"#,
        ),
        (
            "/callback",
            r#"<p>Verifying the callbacks: <a href="/docs/guides/callbacks">receiving reward callbacks</a> (both schemes, test vectors).</p>"#,
        ),
        (
            "/sdk/v2/",
            r#"<p>The hosted wall and the web SDK: <a href="/docs/guides/web-sdk">the web SDK guide</a>.</p>"#,
        ),
        (
            "/offerwall",
            r#"<p>The hosted wall and the web SDK: <a href="/docs/guides/web-sdk">the web SDK guide</a>.</p>"#,
        ),
    ];
    links
        .iter()
        .find(|(part, _)| path.contains(part))
        .map_or("", |(_, link)| link)
}

/// The page of one operation.
pub fn render(spec: &Value, m: &str, path: &str, op: &Value) -> String {
    let id = op["operationId"].as_str().unwrap_or_default();
    let about = op["description"]
        .as_str()
        .or_else(|| op["summary"].as_str())
        .unwrap_or_default();
    let security: Vec<String> = op["security"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_object())
        .flat_map(|s| s.keys().map(|k| format!("<code>{}</code>", esc(k))))
        .collect();
    let auth = if security.is_empty() {
        "No credentials.".to_owned()
    } else {
        let about = security
            .iter()
            .filter_map(|k| {
                let name = k.trim_start_matches("<code>").trim_end_matches("</code>");
                spec["components"]["securitySchemes"][name]["description"].as_str()
            })
            .next()
            .unwrap_or_default();
        format!("Credentials: {}. {}", security.join(" or "), esc(about))
    };
    let mut roots = Vec::new();
    let mut request = String::new();
    let mut example_body = None;
    if let Some((kind, c)) = content(&op["requestBody"]["content"]) {
        roots.push(c["schema"].clone());
        request += &format!(
            "<h2>Request body</h2><p><code>{}</code></p>{}",
            esc(kind),
            schema::table(spec, &c["schema"])
        );
        if !c["example"].is_null() {
            request += &format!(
                "<p class=\"muted\">Example (recorded from the tests)</p>{}",
                example_block(kind, &c["example"])
            );
            if kind == "application/json" {
                example_body = Some(c["example"].clone());
            }
        }
    }
    let answers = answers(spec, op, &mut roots);
    let codes: Vec<String> = error_codes(op)
        .into_iter()
        .map(|c| format!(r#"<a href="/docs/errors#{c}"><code>{c}</code></a>"#))
        .collect();
    let errors = if codes.is_empty() {
        String::new()
    } else {
        format!("<h2>Error codes</h2><p>{}</p>", codes.join(" "))
    };
    let snippets: String = snippets::render(m, path, op, example_body.as_ref())
        .into_iter()
        .map(|(label, text)| format!("<h3>{label}</h3>{}", code(&text)))
        .collect();
    let roots: Vec<&Value> = roots.iter().collect();
    let schemas = schema::section(spec, &roots);
    let tag = op["tags"][0].as_str().unwrap_or_default();
    let body = format!(
        r##"<p class="crumbs"><a href="/docs#tag-{tag_e}">← {tag_e}</a></p>
<section class="card" id="operation" data-operation="{id_e}"><h1>{badge} <code>{path_e}</code></h1>
<p class="muted">Operation id <code>{id_e}</code></p><p>{about_e}</p><p>{auth}</p>
{params}{request}{answers}{errors}<h2>Try it</h2><p class="muted">Set <code>BASE</code> to the service's address and the variables to your values.</p>{guide}{snippets}
{schemas_h}</section>"##,
        tag_e = esc(tag),
        id_e = esc(id),
        badge = method(m),
        path_e = esc(path),
        about_e = prose(about).replace("\n\n", "</p><p>"),
        params = parameters(spec, op),
        guide = guide(path),
        schemas_h = if schemas.is_empty() {
            String::new()
        } else {
            format!("<h2>Schemas</h2>{schemas}")
        },
    );
    page(&format!("{} {path}", m.to_ascii_uppercase()), &body)
}
