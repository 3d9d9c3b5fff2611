//! Direct (older) and managed callbacks: `/postbacks/direct` and `/postbacks/managed`. The
//! token names the campaign; a token of one kind never authenticates another route.

use crate::extract::ClientIp;
use app::domain::Policy;
use app::domain::campaigns::providers::TrackingKind;
use app::domain::conversions::token_postbacks;
use app::domain::rate_limit::client_bucket;
use app::error::AppError;
use app::model::delivery::CallbackReceipt;
use app::model::postbacks::TokenConversion;
use axum::Extension;
use axum::extract::State;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::CallbackInput;
use super::answers::TokenAnswers;
use crate::extract::AppJson;
use crate::state::AppState;

pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(direct_postback_get, direct_postback_post))
        .routes(routes!(managed_postback_get, managed_postback_post))
}

async fn handle(
    s: AppState,
    ip: std::net::IpAddr,
    kind: TrackingKind,
    input: CallbackInput,
) -> Result<AppJson<CallbackReceipt>, AppError> {
    s.ctx
        .limits
        .check(Policy::ProviderCallback, &client_bucket(ip))?;
    token_postbacks::by_token(&s.ctx, kind, input.0, ip)
        .await
        .map(AppJson)
}

/// Report a conversion for an older DIRECT campaign, with the fields in the query string.
///
/// Authentication `DIRECT_TOKEN`: the campaign's active direct token in the
/// `X-Service-Token` header (preferred: it stays out of URL logs) or the `token` parameter;
/// the token names the campaign. Custom S2S secrets, campaign (measurement-partner) and
/// managed tokens are refused with 401. The campaign's IP allowlist applies. Canonical
/// fields only: click_id, transaction_id, goal_id, status (pending, approved, rejected or
/// reversed), occurred_at (ISO 8601; Unix seconds or milliseconds are normalised). 200 means
/// durably in the processing inbox; an exact retry answers `duplicate: true`.
#[utoipa::path(get, path = "/postbacks/direct", tag = "tracking",
    params(("X-Service-Token" = Option<String>, Header, description = "The direct token (or the `token` parameter)"), TokenConversion),
    responses(TokenAnswers))]
async fn direct_postback_get(
    State(s): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    input: CallbackInput,
) -> Result<AppJson<CallbackReceipt>, AppError> {
    handle(s, ip, TrackingKind::Direct, input).await
}

/// Report a conversion for an older DIRECT campaign, with the fields in a JSON or form body.
///
/// Same rules as the GET variant; `application/json` (an object) or
/// `application/x-www-form-urlencoded`; query parameters are read as well (a body value
/// wins). The token goes in the `X-Service-Token` header or the `token` field.
#[utoipa::path(post, path = "/postbacks/direct", tag = "tracking",
    params(("X-Service-Token" = Option<String>, Header, description = "The direct token (or the `token` field)")),
    request_body(content(
        (TokenConversion = "application/json"),
        (TokenConversion = "application/x-www-form-urlencoded")),
        description = "The canonical five fields and optionally `token`"),
    responses(TokenAnswers))]
async fn direct_postback_post(
    State(s): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    input: CallbackInput,
) -> Result<AppJson<CallbackReceipt>, AppError> {
    handle(s, ip, TrackingKind::Direct, input).await
}

/// Report a conversion for a MANAGED campaign, with the fields in the query string.
///
/// Authentication `MANAGED_TOKEN`: the campaign's active managed token in the
/// `X-Service-Token` header (preferred) or the `token` parameter; the token names the
/// campaign. Custom S2S secrets, campaign (measurement-partner) and direct tokens are
/// refused with 401. The campaign's IP allowlist applies. Canonical fields only, as on the
/// direct route. 200 means durably in the processing inbox; an exact retry answers
/// `duplicate: true`.
#[utoipa::path(get, path = "/postbacks/managed", tag = "tracking",
    params(("X-Service-Token" = Option<String>, Header, description = "The managed token (or the `token` parameter)"), TokenConversion),
    responses(TokenAnswers))]
async fn managed_postback_get(
    State(s): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    input: CallbackInput,
) -> Result<AppJson<CallbackReceipt>, AppError> {
    handle(s, ip, TrackingKind::Managed, input).await
}

/// Report a conversion for a MANAGED campaign, with the fields in a JSON or form body.
///
/// Same rules as the GET variant; `application/json` (an object) or
/// `application/x-www-form-urlencoded`; query parameters are read as well (a body value
/// wins). The token goes in the `X-Service-Token` header or the `token` field.
#[utoipa::path(post, path = "/postbacks/managed", tag = "tracking",
    params(("X-Service-Token" = Option<String>, Header, description = "The managed token (or the `token` field)")),
    request_body(content(
        (TokenConversion = "application/json"),
        (TokenConversion = "application/x-www-form-urlencoded")),
        description = "The canonical five fields and optionally `token`"),
    responses(TokenAnswers))]
async fn managed_postback_post(
    State(s): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    input: CallbackInput,
) -> Result<AppJson<CallbackReceipt>, AppError> {
    handle(s, ip, TrackingKind::Managed, input).await
}
