//! Finishing touches on the generated OpenAPI document so that it validates as OpenAPI 3.1
//! and generated clients get stable, unique method names: every response gets a
//! description (its status reason when the handler gave none), and an operation id used by
//! more than one handler (`list`, `create`, …) gets its resource appended
//! (`list_blacklists`).

use std::collections::HashMap;

use utoipa::openapi::path::Operation;
use utoipa::openapi::{OpenApi, RefOr};

fn operations(openapi: &mut OpenApi) -> Vec<(String, &mut Operation)> {
    let mut out = Vec::new();
    for (path, item) in openapi.paths.paths.iter_mut() {
        for op in [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.options,
            &mut item.head,
            &mut item.patch,
            &mut item.trace,
        ]
        .into_iter()
        .flatten()
        {
            out.push((path.clone(), op));
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
    for (_, op) in operations(openapi) {
        if let Some(id) = &op.operation_id {
            *seen.entry(id.clone()).or_default() += 1;
        }
    }
    let mut taken: HashMap<String, usize> = HashMap::new();
    for (path, op) in operations(openapi) {
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
