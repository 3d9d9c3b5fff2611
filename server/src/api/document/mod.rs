//! Finishing touches on the generated OpenAPI document so that it validates as OpenAPI 3.1
//! and generated clients get stable, unique method names: every response gets a
//! description (its status reason when the handler gave none), and an operation id used by
//! more than one handler (`list`, `create`, …) gets its resource appended
//! (`list_blacklists`). Every operation that documents a 429 is rate limited: each of its
//! answers lists the `RateLimit-Policy` and `RateLimit` headers, and the 429 `Retry-After`.
//! Every JSON error answer lists its `x-error-codes` (`error_codes`).

mod error_codes;
mod webhooks;

use std::collections::HashMap;

use utoipa::openapi::content::ContentBuilder;
use utoipa::openapi::header::HeaderBuilder;
use utoipa::openapi::path::{Operation, ParameterBuilder, ParameterIn};
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::{Object, OpenApi, Ref, RefOr, Required, Type};

fn operations(openapi: &mut OpenApi) -> Vec<(String, &'static str, &mut Operation)> {
    let mut out = Vec::new();
    for (path, item) in openapi.paths.paths.iter_mut() {
        for (method, op) in [
            ("get", &mut item.get),
            ("put", &mut item.put),
            ("post", &mut item.post),
            ("delete", &mut item.delete),
            ("options", &mut item.options),
            ("head", &mut item.head),
            ("patch", &mut item.patch),
            ("trace", &mut item.trace),
        ] {
            if let Some(op) = op {
                out.push((path.clone(), method, op));
            }
        }
    }
    out
}

/// The resource words of a path: its literal segments after the version, `_`-joined.
fn resource(path: &str) -> String {
    let words: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty() && !s.starts_with('{'))
        .filter(|s| {
            !matches!(
                *s,
                "v1" | "v2"
                    | "publisher"
                    | "sdk"
                    | "performance-marketing"
                    | "api"
                    | "admin"
                    | "auth"
            )
        })
        .map(|s| s.replace(['-', '.'], "_").to_ascii_lowercase())
        .collect();
    let tail = words.len().saturating_sub(2);
    words[tail..].join("_")
}

/// Fills response descriptions and makes operation ids unique.
pub fn finish(openapi: &mut OpenApi) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (_, _, op) in operations(openapi) {
        if let Some(id) = &op.operation_id {
            *seen.entry(id.clone()).or_default() += 1;
        }
    }
    let mut taken: HashMap<String, usize> = HashMap::new();
    for (path, method, op) in operations(openapi) {
        shared_limit(&path, method, op);
        api_key_security(&path, method, op);
        idempotency_header(&path, method, op);
        // Adds the answers the tests received that no annotation names (and the 503), so it
        // comes before the examples and the limit headers go on every answer.
        error_codes::list(&path, method, op);
        super::examples::attach(&path, method, op);
        rate_limit_headers(op);
        for (status, response) in op.responses.responses.iter_mut() {
            if let RefOr::T(r) = response {
                if r.description.trim().is_empty() {
                    r.description = status
                        .parse::<u16>()
                        .ok()
                        .and_then(|c| http::StatusCode::from_u16(c).ok())
                        .and_then(|c| c.canonical_reason())
                        .unwrap_or("Response")
                        .to_owned();
                }
            }
        }
        let id = op
            .operation_id
            .clone()
            .unwrap_or_else(|| "operation".to_owned());
        let mut unique = if seen.get(&id).copied().unwrap_or(0) > 1 || op.operation_id.is_none() {
            format!("{id}_{}", resource(&path))
        } else {
            id
        };
        let n = taken.entry(unique.clone()).or_default();
        *n += 1;
        if *n > 1 {
            unique = format!("{unique}_{n}");
        }
        op.operation_id = Some(unique);
    }
    webhooks::add(openapi);
}

/// Where a dashboard token is accepted and the route is open to API keys
/// (`route_facts::key_use`), an API key is the alternative, named with the grant it needs.
fn api_key_security(path: &str, method: &str, op: &mut Operation) {
    use app::domain::accounts::api_keys::KeyUse;
    let Some(security) = op.security.as_ref() else {
        return;
    };
    let bearer = security.iter().any(|s| {
        serde_json::to_value(s).is_ok_and(|v| {
            v.as_object()
                .is_some_and(|o| o.contains_key("dashboardBearer"))
        })
    });
    let Ok(m) = method.to_ascii_uppercase().parse::<http::Method>() else {
        return;
    };
    let need = crate::route_facts::key_use(&m, path);
    if bearer {
        team_roles(path, need, op);
    }
    let grant = match need {
        KeyUse::Closed => return,
        KeyUse::Any => Vec::new(),
        KeyUse::Area { area, write } => {
            vec![format!(
                "{}:{}",
                area.as_str(),
                if write { "write" } else { "read" }
            )]
        }
    };
    if let (true, Some(security)) = (bearer, op.security.as_mut()) {
        security.push(utoipa::openapi::security::SecurityRequirement::new(
            "dashboardApiKey",
            grant,
        ));
    }
}

/// Names the team roles that may call a dashboard operation (`x-team-roles`, the role table
/// of docs/accounts.md): every role reads; a write needs a role that writes its area; a
/// route outside the areas is for owners and admins. The person's own `/auth/v1/` routes
/// state their rules in their descriptions instead.
fn team_roles(path: &str, need: app::domain::accounts::api_keys::KeyUse, op: &mut Operation) {
    use app::domain::accounts::api_keys::KeyUse;
    use app::model::TeamRole;
    if path.starts_with("/auth/v1/") || path.starts_with("/admin/v1/") {
        return;
    }
    let roles: Vec<&str> = TeamRole::ALL
        .iter()
        .filter(|r| match need {
            KeyUse::Area { write: false, .. } | KeyUse::Any => true,
            KeyUse::Area { area, write: true } => app::model::team::role_writes(**r, area),
            KeyUse::Closed => r.manages_team(),
        })
        .map(|r| r.as_str())
        .collect();
    let ext = utoipa::openapi::extensions::ExtensionsBuilder::new()
        .add("x-team-roles", serde_json::json!(roles))
        .build();
    match op.extensions.as_mut() {
        Some(e) => e.merge(ext),
        None => op.extensions = Some(ext),
    }
}

/// Adds the 429 an operation's shared limit can answer when its annotation has none.
fn shared_limit(path: &str, method: &str, op: &mut Operation) {
    if path.contains("/assets/") || op.responses.responses.contains_key("429") {
        return;
    }
    let Some((_, _, what, html)) = crate::route_facts::SHARED_LIMITS
        .iter()
        .find(|(m, prefix, _, _)| (*m == "*" || *m == method) && path.starts_with(prefix))
    else {
        return;
    };
    let mut answer = ResponseBuilder::new().description(*what);
    if !html {
        answer = answer.content(
            "application/json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("ErrorBody")))
                .build(),
        );
    }
    op.responses
        .responses
        .insert("429".to_owned(), RefOr::T(answer.build()));
}

/// Whether the dashboard API's stored answers apply (`route_facts`, read by
/// `idempotent_answers.rs` too).
fn keyed(path: &str, method: &str) -> bool {
    method
        .to_ascii_uppercase()
        .parse::<http::Method>()
        .is_ok_and(|m| {
            crate::route_facts::key_rule(&m, path) == crate::route_facts::KeyRule::Stored
        })
}

/// The optional `Idempotency-Key` of the dashboard API's POSTs, with the two refusals it
/// adds (operations that document their own key keep it).
fn idempotency_header(path: &str, method: &str, op: &mut Operation) {
    let has_own = op
        .parameters
        .iter()
        .flatten()
        .any(|p| matches!(p, RefOr::T(p) if p.name.eq_ignore_ascii_case("idempotency-key")));
    if !keyed(path, method) || has_own {
        return;
    }
    op.parameters.get_or_insert_with(Vec::new).push(RefOr::T(
        ParameterBuilder::new()
            .name("Idempotency-Key")
            .parameter_in(ParameterIn::Header)
            .required(Required::False)
            .description(Some(
                "Optional. 8 to 120 letters, digits, `:`, `_` or `-`. A retry with the same key \
                 within 24 hours gets the first answer again (`Idempotent-Replayed: true`) \
                 without running twice; the same key with another method, path or body is 409 \
                 `idempotency_key_reused`; a retry while the first still runs is 409 \
                 `idempotency_in_progress` with `Retry-After`. Answers of 5xx and 429 are not \
                 kept.",
            ))
            .schema(Some(Object::with_type(Type::String)))
            .build(),
    ));
    let json_error = || {
        ContentBuilder::new()
            .schema(Some(Ref::from_schema_name("ErrorBody")))
            .build()
    };
    for (status, what) in [(
        "409",
        "`idempotency_in_progress`: a request with this Idempotency-Key is still running; `idempotency_key_reused`: the key was used for another request (or another conflict of this operation)",
    )] {
        op.responses
            .responses
            .entry(status.to_owned())
            .or_insert_with(|| {
                RefOr::T(
                    ResponseBuilder::new()
                        .description(what)
                        .content("application/json", json_error())
                        .build(),
                )
            });
    }
}

/// The limit headers on every answer of a limited operation (one that documents a 429).
fn rate_limit_headers(op: &mut Operation) {
    if !op.responses.responses.contains_key("429") {
        return;
    }
    let header = |description: &str, example: &str| {
        RefOr::T(
            HeaderBuilder::new()
                .description(Some(description))
                .example(Some(serde_json::json!(example)))
                .build(),
        )
    };
    for (status, response) in op.responses.responses.iter_mut() {
        let RefOr::T(r) = response else { continue };
        r.headers.insert(
            "RateLimit-Policy".to_owned(),
            header(
                "The limits this request counts against (draft-ietf-httpapi-ratelimit-headers): per policy, `q` requests at once, whole again in `w` seconds.",
                "\"sdk-read\";q=120;w=60",
            ),
        );
        r.headers.insert(
            "RateLimit".to_owned(),
            header(
                "What is left of each policy after this request: `r` requests now, whole again in `t` seconds.",
                "\"sdk-read\";r=117;t=2",
            ),
        );
        if status == "429" {
            r.headers.insert(
                "Retry-After".to_owned(),
                header("Seconds until the next request is allowed.", "1"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_name_the_last_literal_segments() {
        assert_eq!(
            resource("/publisher/v2/blacklists/{blacklistId}"),
            "blacklists"
        );
        assert_eq!(
            resource("/performance-marketing/v2/campaigns/{id}/tracking/custom-s2s/rotate"),
            "custom_s2s_rotate"
        );
        assert_eq!(resource("/api/v1/campaigns/{campaignId}"), "campaigns");
    }
}
