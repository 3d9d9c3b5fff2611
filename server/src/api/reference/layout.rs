//! The reference's page shell: the dashboard stylesheet, a navigation bar and a few rules of
//! its own; no script and nothing from a CDN.

/// Escapes text for HTML content and quoted attributes.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const STYLE: &str = "\
.m{font:600 11px/1 ui-monospace,monospace;padding:3px 6px;border-radius:4px;color:#fff;text-transform:uppercase}\
.m-get{background:#067647}.m-post{background:#2456d6}.m-put,.m-patch{background:#8a5a00}.m-delete{background:#b42318}\
pre.code{background:#0f172a;color:#e2e8f0;padding:12px;border-radius:8px;overflow-x:auto;font-size:12.5px;line-height:1.45}\
.ref table{width:100%;border-collapse:collapse}.ref td,.ref th{padding:6px 8px;border-bottom:1px solid #e3e6ea;text-align:start;vertical-align:top}\
.ref h2{margin-top:1.6rem}.ref details{margin:.4rem 0}.ref .req{color:#b42318;font-size:.8rem}\
.ref nav.side a{margin-inline-end:12px}.guide pre{background:#0f172a;color:#e2e8f0;padding:12px;border-radius:8px;overflow-x:auto}";

/// A whole page: `title` in the head and the heading, `body` below the navigation.
pub fn page(title: &str, body: &str) -> String {
    format!(
        r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{t} · API reference</title><link rel="stylesheet" href="/assets/app.css"><style>{STYLE}</style></head>
<body><header class="topbar"><a class="brand" href="/">Marketplace</a><nav class="nav"><a href="/docs">Operations</a><a href="/docs/guides/postbacks">Postbacks</a><a href="/docs/guides/fraud">Fraud</a><a href="/docs/guides/callbacks">Callbacks</a><a href="/docs/guides/surveys">Survey API</a><a href="/docs/guides/web-sdk">Web SDK</a><a href="/docs/errors">Errors</a><a href="/docs/guides/versioning">Versions</a><a href="/openapi.json">openapi.json</a></nav></header>
<main class="content ref">{body}</main></body></html>"#,
        t = esc(title),
    )
}

/// Prose from the document: escaped, with `backticks` as code.
pub fn prose(s: &str) -> String {
    esc(s)
        .split('`')
        .enumerate()
        .map(|(i, p)| {
            if i % 2 == 1 {
                format!("<code>{p}</code>")
            } else {
                p.to_owned()
            }
        })
        .collect()
}

/// A method badge.
pub fn method(m: &str) -> String {
    format!(r#"<span class="m m-{m}">{m}</span>"#)
}

/// A code block.
pub fn code(text: &str) -> String {
    format!(r#"<pre class="code"><code>{}</code></pre>"#, esc(text))
}
