//! The error catalogue at `/docs/errors`: every `code` an answer's `{"error": {"code",
//! "message", "fieldErrors"?}}` can carry, its HTTP status, what it means and what to do,
//! from the table in `docs/error-codes.md`. A test reads the sources and fails when a code is
//! used that the table does not list. (Survey fetch answers the specification's own error
//! shape; docs/surveys.md lists those.)

use super::layout::{page, prose};

/// The catalogue, kept as a table in `docs/error-codes.md` (readable in the repository).
const CATALOGUE: &str = include_str!("../../../../docs/error-codes.md");

/// The catalogue's rows: (code, HTTP status, what it means and what to do).
pub(crate) fn rows() -> Vec<(&'static str, u16, &'static str)> {
    CATALOGUE
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line
                .trim()
                .trim_matches('|')
                .split('|')
                .map(str::trim)
                .collect();
            let [code, status, about] = cells[..] else {
                return None;
            };
            let code = code.strip_prefix('`')?.strip_suffix('`')?;
            Some((code, status.parse().ok()?, about))
        })
        .collect()
}

/// The catalogue page.
pub fn render() -> String {
    let body: String = rows()
        .iter()
        .map(|(code, status, about)| {
            let about = prose(about);
            format!(r#"<tr id="{code}"><td><code>{code}</code></td><td>{status}</td><td>{about}</td></tr>"#)
        })
        .collect();
    page(
        "Error codes",
        &format!(
            r#"<section class="card"><h1>Error codes</h1>
<p>Every JSON error is <code>{{"error": {{"code", "message", "fieldErrors"?}}}}</code>. Act on the <code>code</code> (stable, snake_case) and the HTTP status; the <code>message</code> is for people and may change. A code not listed here is new: treat it by its status. 5xx, 408 and 429 are worth retrying (with the same <code>Idempotency-Key</code> for writes); other 4xx are not until the request changes.</p>
<table id="error-codes"><thead><tr><th>Code</th><th>Status</th><th>Meaning and what to do</th></tr></thead><tbody>{body}</tbody></table></section>"#
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn sources(dir: &Path, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("source folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(std::fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }

    /// Every code the sources give an error (`with_code("…")`, `AppError::new(…, "…")` and
    /// the constructors' codes) is in the catalogue.
    #[test]
    fn every_error_code_in_the_sources_is_catalogued() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        for dir in ["app/src", "server/src"] {
            sources(&root.join(dir), &mut files);
        }
        let mut used = std::collections::BTreeSet::new();
        for text in &files {
            for marker in ["with_code(\"", "AppError::new(", "Self::new("] {
                // `Self::new` makes an error only inside `impl AppError`.
                if marker == "Self::new(" && !text.contains("impl AppError") {
                    continue;
                }
                for part in text.split(marker).skip(1) {
                    let code = if marker.starts_with("with_code") {
                        part.split('"').next()
                    } else {
                        part.split('"')
                            .nth(1)
                            .filter(|_| part.split('"').next().is_some_and(|s| s.len() < 40))
                    };
                    if let Some(c) = code.filter(|c| {
                        !c.is_empty() && c.chars().all(|x| x.is_ascii_lowercase() || x == '_')
                    }) {
                        used.insert(c.to_owned());
                    }
                }
            }
        }
        let known: std::collections::BTreeSet<&str> = rows().iter().map(|(c, _, _)| *c).collect();
        let missing: Vec<&String> = used
            .iter()
            .filter(|c| !known.contains(c.as_str()))
            .collect();
        assert!(used.len() > 60, "the scan found the codes: {used:?}");
        assert!(
            missing.is_empty(),
            "codes missing from the catalogue: {missing:?}"
        );
    }
}
