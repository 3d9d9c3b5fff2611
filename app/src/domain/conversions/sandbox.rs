//! The sandbox for provider callbacks (`POST /performance-marketing/v2/sandbox/callbacks`,
//! never in production): a fixture is validated exactly as its real route validates the
//! fields (partner mapping included), refused when it points at any address other than this
//! service, and recorded once per caller scope and Idempotency-Key. Nothing is settled,
//! ledgered or sent: the only write is the `sandbox_callbacks` row.

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, Set};
use serde_json::Value;

use super::postbacks::validate;
use super::provider_params::{canonical_event, pairs_from_json};
use crate::domain::idempotency::{IdempotencyKey, Written, insert_or_replay};
use crate::domain::{Ctx, Environment, Principal, crypto, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::Role;
use crate::model::delivery::ConversionEvent;
use crate::model::postbacks::{
    NormalizedEvent, PartnerParams, SandboxFixture, SandboxReceipt, partner_params,
};
use entity::sandbox_callback;

/// Scope of a caller without a dashboard bearer.
pub const ANONYMOUS: &str = "anonymous";

/// The replay scope: the advertiser's account id (administrators too), or [`ANONYMOUS`].
pub fn scope_of(actor: Option<&Principal>) -> Result<String, AppError> {
    match actor {
        None => Ok(ANONYMOUS.to_owned()),
        Some(p) if p.role == Role::Advertiser || p.role.is_admin() => Ok(p.account_id.clone()),
        Some(_) => Err(AppError::forbidden(
            "the sandbox takes an advertiser dashboard bearer, or none",
        )),
    }
}

/// Whether `raw` is an address on this service (`ctx.config.base_url`: same scheme, host
/// and port, path under the base path, no user info).
fn on_base(ctx: &Ctx, raw: &str) -> bool {
    let (Ok(base), Ok(u)) = (
        url::Url::parse(&ctx.config.base_url),
        url::Url::parse(raw.trim()),
    ) else {
        return false;
    };
    let base_path = base.path().trim_end_matches('/');
    u.scheme() == base.scheme()
        && u.host() == base.host()
        && u.port_or_known_default() == base.port_or_known_default()
        && u.username().is_empty()
        && u.password().is_none()
        && (u.path() == base_path
            || u.path().starts_with(&format!("{base_path}/"))
            || base_path.is_empty())
}

fn refuse_url(path: &str) -> AppError {
    AppError::field(
        path,
        "points outside this service; the sandbox never calls external addresses",
    )
    .with_code("external_url_refused")
}

/// Refuses any string value that is an http(s) URL off this service, anywhere in the body.
fn check_urls(ctx: &Ctx, v: &Value, path: &str) -> Result<(), AppError> {
    match v {
        Value::String(s) => {
            let lower = s.trim_start().to_ascii_lowercase();
            if (lower.starts_with("http://") || lower.starts_with("https://")) && !on_base(ctx, s) {
                return Err(refuse_url(path));
            }
            Ok(())
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, x)| check_urls(ctx, x, &format!("{path}[{i}]"))),
        Value::Object(map) => map.iter().try_for_each(|(k, x)| {
            let p = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            check_urls(ctx, x, &p)
        }),
        _ => Ok(()),
    }
}

/// JSON with object keys sorted, so equal fixtures hash equally however they were spelled.
fn canonical_json(v: &Value) -> String {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let inner = keys
                .into_iter()
                .map(|k| {
                    format!(
                        "{}:{}",
                        Value::String(k.clone()),
                        map.get(k).map(canonical_json).unwrap_or_default()
                    )
                })
                .collect::<Vec<_>>()
                .join(",");
            format!("{{{inner}}}")
        }
        Value::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(canonical_json)
                .collect::<Vec<_>>()
                .join(",")
        ),
        other => other.to_string(),
    }
}

/// Which real route a fixture stands for.
enum Route {
    CustomS2s,
    /// Direct or managed: canonical names, timestamps normalised.
    Token,
    Mmp(&'static PartnerParams),
}

fn route_of(ctx: &Ctx, provider: &str) -> Result<(Route, String), String> {
    let p = provider.trim().to_ascii_uppercase();
    match p.as_str() {
        "CUSTOM_S2S" => Ok((Route::CustomS2s, p)),
        "DIRECT" | "MANAGED" => Ok((Route::Token, p)),
        _ => {
            let partner = p.strip_prefix("MMP:").and_then(partner_params).ok_or(
                "must be CUSTOM_S2S, DIRECT, MANAGED or MMP:<CODE> of a certified partner",
            )?;
            if !ctx.config.mmp_manual_enabled {
                return Err("measurement partners are not enabled on this service".to_owned());
            }
            Ok((Route::Mmp(partner), format!("MMP:{}", partner.code)))
        }
    }
}

/// The fields of the fixture's event as its real route reads them.
fn event_of(route: &Route, event: &serde_json::Map<String, Value>) -> ConversionEvent {
    let pairs = pairs_from_json(event);
    match route {
        // Custom S2S signs the values as sent: no mapping, no normalisation.
        Route::CustomS2s => {
            let get = |n: &str| pairs.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
            ConversionEvent {
                click_id: get("click_id"),
                transaction_id: get("transaction_id"),
                goal_id: get("goal_id"),
                status: get("status"),
                occurred_at: get("occurred_at"),
            }
        }
        Route::Token => canonical_event(None, &pairs),
        Route::Mmp(p) => canonical_event(Some(p), &pairs),
    }
}

fn receipt(row: &sandbox_callback::Model, duplicate: bool) -> SandboxReceipt {
    SandboxReceipt {
        sandbox: true,
        duplicate,
        event_id: row.id.clone(),
        provider: row.provider.clone(),
        normalized: NormalizedEvent {
            click_id: row.click_id.clone(),
            transaction_id: row.transaction_id.clone(),
            goal_id: row.goal_id.clone(),
            status: row.status.as_str().to_owned(),
            occurred_at: row.occurred_at.clone(),
        },
    }
}

/// Validates and records a fixture. `Ok((receipt, true))` for a new one (202), `(receipt,
/// false)` with `duplicate: true` for an exact retry (200); 409 `idempotency_conflict` when
/// the key was used with another body.
pub async fn record(
    ctx: &Ctx,
    scope: &str,
    key: &IdempotencyKey,
    body: Value,
) -> Result<(SandboxReceipt, bool), AppError> {
    if ctx.config.environment == Environment::Production {
        return Err(AppError::not_found("route"));
    }
    let Value::Object(obj) = &body else {
        return Err(AppError::field("body", "must be a JSON object"));
    };
    check_urls(ctx, &body, "")?;
    for f in ["callbackUrl", "destinationUrl"] {
        match obj.get(f) {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if on_base(ctx, s) => {}
            Some(Value::String(_)) => return Err(refuse_url(f)),
            Some(_) => return Err(AppError::field(f, "must be a string")),
        }
    }
    let fixture: SandboxFixture = serde_json::from_value(body.clone()).map_err(|e| {
        AppError::invalid(format!(
            "the fixture does not have the documented shape: {e}"
        ))
    })?;
    let mut errs = FieldErrors::new();
    let route = match fixture.provider.as_deref() {
        None => {
            errs.add("provider", "is required");
            None
        }
        Some(p) => errs.check("provider", route_of(ctx, p)),
    };
    if let Some(c) = &fixture.campaign_id
        && (c.is_empty()
            || c.len() > 64
            || !c
                .chars()
                .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '_' | '-')))
    {
        errs.add(
            "campaignId",
            "must be 1 to 64 letters, digits, underscores or dashes",
        );
    }
    match &fixture.headers {
        None | Some(Value::Null) => {}
        Some(Value::Object(h))
            if h.len() <= 30
                && h.iter().all(|(k, v)| {
                    k.len() <= 100 && v.as_str().is_some_and(|s| s.len() <= 1000)
                }) => {}
        Some(_) => errs.add(
            "headers",
            "must be an object of at most 30 headers with string values",
        ),
    }
    let event = match &fixture.event {
        Some(Value::Object(e)) => Some(e),
        _ => {
            errs.add("event", "is required: an object with the callback's fields");
            None
        }
    };
    errs.finish()?;
    let (Some((route, provider)), Some(event)) = (route, event) else {
        return Err(AppError::invalid("the fixture is incomplete"));
    };
    let reported = validate(&event_of(&route, event)).map_err(|mut e| {
        e.field_errors = std::mem::take(&mut e.field_errors)
            .into_iter()
            .map(|(k, v)| (format!("event.{k}"), v))
            .collect();
        e
    })?;

    let canonical = canonical_json(&body);
    let hash = crypto::sha256_hex(&canonical);
    let find = || {
        sandbox_callback::Entity::find()
            .filter(sandbox_callback::Column::Scope.eq(scope.to_owned()))
            .filter(sandbox_callback::Column::IdempotencyKey.eq(key.as_str().to_owned()))
    };
    let replay = |row: sandbox_callback::Model| -> Result<(SandboxReceipt, bool), AppError> {
        if crypto::constant_time_eq(row.request_hash.as_bytes(), hash.as_bytes()) {
            Ok((receipt(&row, true), false))
        } else {
            Err(
                AppError::conflict("this Idempotency-Key was already used with another fixture")
                    .with_code("idempotency_conflict"),
            )
        }
    };
    if let Some(row) = find().one(&ctx.db).await? {
        return replay(row);
    }
    let inserted = sandbox_callback::ActiveModel {
        id: Set(new_id("sbx")),
        scope: Set(scope.to_owned()),
        idempotency_key: Set(key.as_str().to_owned()),
        request_hash: Set(hash.clone()),
        provider: Set(provider),
        campaign_id: Set(fixture.campaign_id.clone()),
        click_id: Set(reported.click_id),
        transaction_id: Set(reported.transaction_id),
        goal_id: Set(reported.goal_id),
        status: Set(reported.status),
        occurred_at: Set(reported.occurred_at_raw),
        fixture: Set(canonical),
        created_at: Set(ctx.now()),
    };
    let prior = || async { Ok(find().one(&ctx.db).await?) };
    match insert_or_replay(&ctx.db, inserted, prior).await? {
        Written::New(row) => Ok((receipt(&row, false), true)),
        // A concurrent request with the same key won the race: answer like a replay.
        Written::Replay(row) => replay(row),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_keys_at_every_level() {
        let a: Value = serde_json::json!({"b": 1, "a": {"d": [1, {"z": 0, "y": 1}], "c": "x"}});
        let b: Value = serde_json::json!({"a": {"c": "x", "d": [1, {"y": 1, "z": 0}]}, "b": 1});
        assert_eq!(canonical_json(&a), canonical_json(&b));
        assert_eq!(
            canonical_json(&a),
            r#"{"a":{"c":"x","d":[1,{"y":1,"z":0}]},"b":1}"#
        );
    }
}
