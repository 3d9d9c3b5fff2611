//! The callback sandbox: `POST /sandbox/callbacks` (development only; 404 in production).

use crate::extract::ClientIp;
use app::domain::accounts::api_keys::KeyUse;
use app::domain::conversions::sandbox;
use app::domain::idempotency::IdempotencyKey;
use app::domain::rate_limit::client_bucket;
use app::domain::{Environment, Policy, tokens};
use app::error::AppError;
use app::model::postbacks::{SandboxFixture, SandboxReceipt};
use axum::Extension;
use axum::extract::{Request, State};
use http::StatusCode;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, parse_json, read_body};
use crate::state::AppState;

pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(sandbox_callback_post))
}

fn header<'a>(req: &'a Request, name: &str) -> Option<&'a str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// Check a provider callback fixture without recording a conversion.
///
/// The fixture names the real route (`provider`: `CUSTOM_S2S`, `DIRECT`, `MANAGED` or
/// `MMP:<CODE>`) and carries its fields in `event`: the canonical five, or for `MMP:<CODE>`
/// the partner's own names (table below). The fields are validated exactly as that route
/// validates them (Custom S2S: as sent; direct and managed: timestamps normalised;
/// measurement partners: mapped, then normalised). Signatures and tokens are not checked
/// (no campaign is looked up); `headers` may carry them for the record. Any string that is
/// an http(s) URL off this service's base address, and any `callbackUrl` or
/// `destinationUrl` off it, is refused with 400 `external_url_refused`. Nothing is paid,
/// ledgered or sent. `Idempotency-Key` (8 to 120 letters, digits, `:`, `_`, `-`) is
/// required: the first accepted fixture answers 202, an identical retry (same key, same
/// body, any key order) 200 with `duplicate: true` and the same `eventId`, the same key with
/// another body 409 `idempotency_conflict`. Authentication is optional: with an advertiser
/// dashboard bearer the keys are scoped to that account, without one to `anonymous`.
#[utoipa::path(post, path = "/sandbox/callbacks", tag = "tracking",
    params(("Idempotency-Key" = String, Header, description = "8 to 120 letters, digits, `:`, `_` or `-`")),
    security((), ("dashboardBearer" = [])),
    request_body(content = SandboxFixture, description = "A provider callback fixture, e.g. `{\"provider\": \"MMP:APPSFLYER\", \"event\": {\"clickid\": \"clk_1\", \"event_id\": \"evt-1\", \"event_name\": \"install\", \"event_type\": \"install\", \"event_time\": \"1772442300\"}}`"),
    responses(
        (status = 202, body = SandboxReceipt, description = "Accepted fixture: `sandbox: true`, `duplicate: false`, a new `eventId` and the normalised event"),
        (status = 200, body = SandboxReceipt, description = "Identical retry: `duplicate: true` with the first `eventId`"),
        (status = 400, body = ErrorBody, description = "`invalid_input` (missing or invalid Idempotency-Key, bad fixture or fields, with `fieldErrors`), `external_url_refused`, `unsupported_media_type`, `malformed_json`"),
        (status = 401, body = ErrorBody, description = "`unauthorized`: a bearer was sent but is unknown, expired or revoked"),
        (status = 403, body = ErrorBody, description = "`forbidden`: the bearer is not an advertiser's"),
        (status = 404, body = ErrorBody, description = "`not_found`: production, or delivery switched off"),
        (status = 409, body = ErrorBody, description = "`idempotency_conflict`: the key was used with another fixture"),
        (status = 429, body = ErrorBody, description = "`rate_limited`: more than 120 callbacks a minute from this address")))]
async fn sandbox_callback_post(
    State(s): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    req: Request,
) -> Result<(StatusCode, AppJson<SandboxReceipt>), AppError> {
    if s.ctx.config.environment == Environment::Production {
        return Err(AppError::not_found("route"));
    }
    s.ctx
        .limits
        .check(Policy::ProviderCallback, &client_bucket(ip))?;
    let actor = match header(&req, "authorization") {
        None => None,
        Some(v) => {
            let token = v
                .split_once(' ')
                .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
                .map(|(_, t)| t.trim())
                .filter(|t| !t.is_empty())
                .ok_or_else(|| {
                    AppError::unauthorized("the Authorization header must be `Bearer <token>`")
                })?;
            // An API key needs `tracking:write` (`route_facts::key_use`).
            let need = req
                .extensions()
                .get::<axum::extract::MatchedPath>()
                .map_or(KeyUse::Closed, |r| {
                    crate::route_facts::key_use(req.method(), r.as_str())
                });
            let p = tokens::authorize(&s.ctx, token, need).await?;
            app::domain::accounts::second_factor::admin_may_act(&s.ctx, &p).await?;
            Some(p)
        }
    };
    let scope = sandbox::scope_of(actor.as_ref())?;
    let key = IdempotencyKey::from_header(header(&req, "idempotency-key"))?;
    crate::extract::require_json(req.headers())?;
    let body = parse_json::<serde_json::Value>(&read_body(req, &s).await?)?;
    let (receipt, created) = sandbox::record(&s.ctx, &scope, &key, body).await?;
    let status = if created {
        StatusCode::ACCEPTED
    } else {
        StatusCode::OK
    };
    Ok((status, AppJson(receipt)))
}
