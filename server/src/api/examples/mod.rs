//! Examples in the OpenAPI document: every operation's request and answers as the
//! integration tests sent and received them. `scripts/record-examples.py` records them
//! (`record`), keeps per operation one request and one answer per status that validate
//! against the document, and writes `server/openapi-examples.json`, which is compiled in and
//! put on the operations here. `scripts/check-openapi.py` checks in CI that every operation
//! has them and that each still validates against its schema.

pub mod record;

use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::Value;
use utoipa::openapi::path::Operation;
use utoipa::openapi::{RefOr, content::Content};

const RECORDED: &str = include_str!("../../../openapi-examples.json");

/// One operation's examples: its request body, and an answer per status.
#[derive(Debug, Default, Deserialize)]
pub struct Recorded {
    #[serde(default)]
    pub request: Option<Value>,
    #[serde(default)]
    pub responses: BTreeMap<String, Value>,
    /// The error codes the tests received, by status.
    #[serde(default)]
    pub errors: BTreeMap<String, Vec<String>>,
}

/// Examples by `"<method> <path>"` (`"post /publisher/v2/placements"`).
static EXAMPLES: LazyLock<HashMap<String, Recorded>> =
    LazyLock::new(|| serde_json::from_str(RECORDED).unwrap_or_default());

/// The content an example belongs to: JSON when the operation has it, else its first type.
fn content<'a>(
    mut kinds: impl Iterator<Item = (&'a String, &'a mut RefOr<Content>)>,
) -> Option<&'a mut Content> {
    let mut first = None;
    for (kind, c) in kinds.by_ref() {
        let RefOr::T(c) = c else { continue };
        if kind == "application/json" {
            return Some(c);
        }
        first.get_or_insert(c);
    }
    first
}

/// The error codes the tests received from an operation, by status.
pub fn errors(method: &str, path: &str) -> BTreeMap<String, Vec<String>> {
    EXAMPLES
        .get(&format!("{method} {path}"))
        .map(|r| r.errors.clone())
        .unwrap_or_default()
}

/// Puts the recorded examples on an operation.
pub fn attach(path: &str, method: &str, op: &mut Operation) {
    let Some(r) = EXAMPLES.get(&format!("{method} {path}")) else {
        return;
    };
    if let (Some(example), Some(RefOr::T(body))) = (&r.request, op.request_body.as_mut()) {
        if let Some(c) = content(body.content.iter_mut()) {
            c.example = Some(example.clone());
        }
    }
    for (status, example) in &r.responses {
        if let Some(RefOr::T(res)) = op.responses.responses.get_mut(status) {
            if let Some(c) = content(res.content.iter_mut()) {
                c.example = Some(example.clone());
            }
        }
    }
}
