//! The error codes each operation can answer, in the document itself: every JSON error
//! answer (`ErrorBody`) carries `x-error-codes`, the `error.code` values a client may see
//! with that status. They come from three places, so the list is what the service does and
//! not only what a handler's author remembered:
//! - the codes its description names (in backticks) that the catalogue lists with that status;
//! - the codes the integration tests received from it (recorded with the examples,
//!   `scripts/record-examples.py`, as `errors` by status);
//! - the codes every operation of its kind answers: `invalid_input` and `malformed_json` for
//!   a JSON body, `unauthorized` and `forbidden` behind a dashboard token, `not_found` with
//!   a path id, `rate_limited`, and the `service_unavailable` of a database outage, which
//!   every JSON operation can answer and so documents (503 with `Retry-After`).
//!
//! A status the tests received but no annotation documents is added with its codes, and so
//! is the 401 of an operation that needs credentials.
//! `scripts/check-openapi.py` checks every JSON error answer lists its codes, that each is
//! in the catalogue (docs/error-codes.md), and that each recorded error example's code is
//! listed.

use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::extensions::ExtensionsBuilder;
use utoipa::openapi::path::Operation;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::{Ref, RefOr};

const ERROR_BODY: &str = "#/components/schemas/ErrorBody";

/// The catalogue: code → the status it is answered with.
static CATALOGUE: LazyLock<HashMap<&'static str, u16>> = LazyLock::new(|| {
    crate::api::reference::errors::rows()
        .into_iter()
        .map(|(code, status, _)| (code, status))
        .collect()
});

/// The code a status carries when nothing more precise is known of the operation.
fn general(status: u16) -> Option<&'static str> {
    Some(match status {
        400 => "invalid_input",
        401 => "unauthorized",
        403 => "forbidden",
        404 => "not_found",
        405 => "method_not_allowed",
        408 => "timeout",
        409 => "conflict",
        410 => "gone",
        413 => "payload_too_large",
        415 => "unsupported_media_type",
        429 => "rate_limited",
        500 => "internal",
        503 => "service_unavailable",
        _ => return None,
    })
}

/// Whether an answer is the JSON error body.
fn is_error_body(r: &Response) -> bool {
    matches!(
        r.content.get("application/json"),
        Some(RefOr::T(c)) if matches!(&c.schema, Some(RefOr::Ref(r)) if r.ref_location == ERROR_BODY)
    )
}

fn error_response(description: &str) -> RefOr<Response> {
    RefOr::T(
        ResponseBuilder::new()
            .description(description)
            .content(
                "application/json",
                ContentBuilder::new()
                    .schema(Some(Ref::from_schema_name("ErrorBody")))
                    .build(),
            )
            .build(),
    )
}

/// What an operation is, for the codes every operation of its kind answers.
struct Kind {
    json_body: bool,
    path_id: bool,
    dashboard: bool,
    /// The code of a call without credentials: `invalid_static_key` for the static feed's
    /// key, `unauthorized` for every other scheme.
    no_credentials: &'static str,
}

fn kind(path: &str, op: &Operation) -> Kind {
    let json_body = op
        .request_body
        .as_ref()
        .is_some_and(|b| matches!(b, RefOr::T(b) if b.content.contains_key("application/json")));
    let dashboard = schemes(op).iter().any(|s| {
        s.as_object()
            .is_some_and(|o| o.contains_key("dashboardBearer"))
    });
    let static_key = schemes(op)
        .iter()
        .all(|s| s.as_object().is_some_and(|o| o.contains_key("staticKey")));
    Kind {
        json_body,
        path_id: path.contains('{'),
        dashboard,
        no_credentials: if static_key && credentials_required(op) {
            "invalid_static_key"
        } else {
            "unauthorized"
        },
    }
}

/// Whether every way to call the operation needs credentials (then a call without is 401).
fn credentials_required(op: &Operation) -> bool {
    let schemes = schemes(op);
    !schemes.is_empty()
        && schemes
            .iter()
            .all(|s| s.as_object().is_some_and(|o| !o.is_empty()))
}

/// The operation's security requirements as JSON (`{}` is "none needed").
fn schemes(op: &Operation) -> Vec<serde_json::Value> {
    op.security
        .iter()
        .flatten()
        .filter_map(|s| serde_json::to_value(s).ok())
        .collect()
}

fn generic(status: u16, k: &Kind) -> Vec<&'static str> {
    match status {
        400 if k.json_body => vec!["invalid_input", "malformed_json"],
        401 => vec![k.no_credentials],
        // Any dashboard operation refuses an API key without the grant (or any key, where
        // keys are not accepted).
        403 if k.dashboard => vec!["forbidden", "insufficient_scope"],
        404 if k.path_id => vec!["not_found"],
        413 | 415 | 429 | 503 => general(status).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// Backticked catalogue codes of `status` in a description.
fn named(description: &str, status: u16) -> impl Iterator<Item = String> + '_ {
    description
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(move |w| CATALOGUE.get(w) == Some(&status))
        .map(str::to_owned)
}

/// Lists the codes on every JSON error answer of `op` (see the module's comment).
pub fn list(path: &str, method: &str, op: &mut Operation) {
    let observed = super::super::examples::errors(method, path);
    let has_json_errors = op
        .responses
        .responses
        .values()
        .any(|r| matches!(r, RefOr::T(r) if is_error_body(r)));
    // Pages (the hosted wall, the survey entry) answer HTML, not the JSON error body.
    let html =
        op.responses.responses.values().any(
            |r| matches!(r, RefOr::T(r) if r.content.keys().any(|c| c.starts_with("text/html"))),
        );
    let k = kind(path, op);
    let has_params = op.parameters.as_ref().is_some_and(|p| !p.is_empty());
    let needs_credentials = credentials_required(op);
    // Nothing to refuse (`/healthz`): it documents only its answer.
    let open = !k.json_body && !has_params && !needs_credentials;
    if !has_json_errors && (html || open) {
        return;
    }
    // Statuses the tests received that no annotation documents.
    for status in observed.keys() {
        let about = status
            .parse::<u16>()
            .ok()
            .and_then(general)
            .map(|c| format!("`{c}` and the other codes listed"))
            .unwrap_or_else(|| "An error".to_owned());
        op.responses
            .responses
            .entry(status.clone())
            .or_insert_with(|| error_response(&about));
    }
    if needs_credentials {
        let about = format!(
            "`{}`: no credentials, or they are unknown or expired.",
            k.no_credentials
        );
        op.responses
            .responses
            .entry("401".to_owned())
            .or_insert_with(|| error_response(&about));
    }
    // What any operation of its kind can answer, whether or not a test received it: a
    // parameter or body that is not valid, credentials that do not allow this, an id in the
    // path that is not the caller's (the fuzzer checks every answer's status is documented).
    let mut add = |status: &str, about: &str| {
        op.responses
            .responses
            .entry(status.to_owned())
            .or_insert_with(|| error_response(about));
    };
    if k.json_body || has_params {
        add(
            "400",
            "`invalid_input`: a parameter or the body is not valid (`fieldErrors` names each).",
        );
    }
    if needs_credentials {
        add(
            "403",
            "`forbidden` and the other codes listed: the credentials are valid but do not allow this.",
        );
    }
    if k.path_id {
        add("404", "`not_found`: nothing of the caller's has this id.");
    }
    op.responses.responses.entry("503".to_owned()).or_insert_with(|| {
        error_response(
            "`service_unavailable`: the database cannot be reached now; retry after `Retry-After` seconds.",
        )
    });
    for (status, response) in op.responses.responses.iter_mut() {
        let RefOr::T(r) = response else { continue };
        let Ok(code) = status.parse::<u16>() else {
            continue;
        };
        if code < 400 || !is_error_body(r) {
            continue;
        }
        let mut codes: BTreeSet<String> = named(&r.description, code).collect();
        codes.extend(observed.get(status).into_iter().flatten().cloned());
        codes.extend(generic(code, &k).into_iter().map(str::to_owned));
        if codes.is_empty() {
            codes.extend(general(code).map(str::to_owned));
        }
        let codes: Vec<String> = codes.into_iter().collect();
        let ext = ExtensionsBuilder::new()
            .add("x-error-codes", serde_json::json!(codes))
            .build();
        match r.extensions.as_mut() {
            Some(e) => e.merge(ext),
            None => r.extensions = Some(ext),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_only_catalogued_codes_of_the_status() {
        let d = "`idempotency_in_progress`: still running; `limit` too high; `not_found` elsewhere";
        let found: Vec<String> = named(d, 409).collect();
        assert_eq!(found, vec!["idempotency_in_progress".to_owned()]);
    }

    #[test]
    fn every_general_code_is_catalogued_with_its_status() {
        for status in [
            400, 401, 403, 404, 405, 408, 409, 410, 413, 415, 429, 500, 503,
        ] {
            let code = general(status).expect("a general code");
            assert_eq!(CATALOGUE.get(code), Some(&status), "{code}");
        }
    }
}
