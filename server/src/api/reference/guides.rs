//! The guides of `docs/` as reference pages (compiled in, so the page and the repository
//! never disagree): reporting conversions, fraud protection, receiving callbacks, the survey API, the web SDK,
//! accounts (mail and recovery), and versions with the changelog. Markdown is rendered with pulldown-cmark; raw HTML in a
//! guide is shown as text.

use std::collections::HashMap;

use pulldown_cmark::{Event, Options, Parser, html};

use super::layout::page;

/// (route name, title, markdown).
const GUIDES: [(&str, &str, &str); 7] = [
    (
        "postbacks",
        "Reporting conversions",
        include_str!("../../../../docs/postbacks.md"),
    ),
    (
        "fraud",
        "Fraud protection and held conversions",
        include_str!("../../../../docs/fraud.md"),
    ),
    (
        "callbacks",
        "Receiving reward callbacks",
        include_str!("../../../../docs/callbacks.md"),
    ),
    (
        "surveys",
        "The survey API",
        include_str!("../../../../docs/surveys.md"),
    ),
    (
        "web-sdk",
        "Hosted offerwall and web SDK",
        include_str!("../../../../docs/web-sdk.md"),
    ),
    (
        "accounts",
        "Accounts: mail and recovery",
        include_str!("../../../../docs/accounts.md"),
    ),
    (
        "versioning",
        "Versions and changelog",
        include_str!("../../../../docs/api-versioning.md"),
    ),
];

fn markdown(text: &str) -> String {
    let events = Parser::new_ext(text, Options::ENABLE_TABLES).map(|e| match e {
        Event::Html(h) | Event::InlineHtml(h) => Event::Text(h),
        other => other,
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    out
}

/// Every guide's page by route name.
pub fn render_all() -> HashMap<&'static str, String> {
    GUIDES
        .iter()
        .map(|(name, title, text)| {
            let body = format!(
                r#"<section class="card guide" id="guide-{name}">{}</section>"#,
                markdown(text)
            );
            (*name, page(title, &body))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guides_render_their_code_and_tables_and_show_html_as_text() {
        let out = markdown(
            "# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nx = 1\n```\n\n<script>x</script>\n",
        );
        assert!(out.contains("<table>") && out.contains("<code class=\"language-python\">x = 1"));
        assert!(out.contains("&lt;script&gt;") && !out.contains("<script>"));
        assert!(render_all()["postbacks"].contains("X-Service-Signature"));
    }
}
