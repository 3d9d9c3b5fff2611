//! Manual measurement-partner callbacks: `/postbacks/mmp/{campaignId}/{provider}`,
//! authenticated with the campaign token (`CAMPAIGN_TOKEN`).

use crate::extract::ClientIp;
use app::domain::Policy;
use app::domain::conversions::token_postbacks;
use app::domain::rate_limit::client_bucket;
use app::error::AppError;
use app::model::delivery::CallbackReceipt;
use app::model::postbacks::TokenConversion;
use axum::Extension;
use axum::extract::State;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::CallbackInput;
use super::answers::MmpAnswers;
use crate::extract::{AppJson, AppPath};
use crate::state::AppState;

pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(mmp_postback_get, mmp_postback_post))
}

/// The campaign and partner of the path.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct MmpPath {
    campaign_id: String,
    provider: String,
}

async fn handle(
    s: AppState,
    ip: std::net::IpAddr,
    p: MmpPath,
    input: CallbackInput,
) -> Result<AppJson<CallbackReceipt>, AppError> {
    s.ctx
        .limits
        .check(Policy::ProviderCallback, &client_bucket(ip))?;
    token_postbacks::mmp(&s.ctx, &p.campaign_id, &p.provider, input.0, ip)
        .await
        .map(AppJson)
}

/// Report a conversion from a measurement partner, with the fields in the query string.
///
/// Only while the manual measurement-partner feature is on (`APP_FEATURE_MMP_MANUAL`).
/// `{provider}` is the lowercase code of the campaign's certified partner (`appsflyer`,
/// `adjust`, `branch`, `singular`, `kochava`, `airbridge`) and must be the campaign's
/// `MMP:<CODE>` provider. Authentication `CAMPAIGN_TOKEN`: the campaign's active token in
/// the `X-Service-Token` header (preferred: it stays out of URL logs) or the `token`
/// parameter; the campaign's IP allowlist applies. The five canonical fields (click_id,
/// transaction_id, goal_id, status, occurred_at) or the partner's own names below. 200 means
/// durably in the processing inbox (settled in the same transaction); an exact retry answers
/// `duplicate: true` with the same receipt.
#[utoipa::path(get, path = "/postbacks/mmp/{campaignId}/{provider}", tag = "tracking",
    params(
        ("campaignId" = String, Path, description = "The offer campaign"),
        ("provider" = String, Path, description = "Lowercase partner code: appsflyer, adjust, branch, singular, kochava or airbridge"),
        ("X-Service-Token" = Option<String>, Header, description = "The campaign token (or the `token` parameter)"),
        TokenConversion),
    responses(MmpAnswers))]
async fn mmp_postback_get(
    State(s): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    AppPath(p): AppPath<MmpPath>,
    input: CallbackInput,
) -> Result<AppJson<CallbackReceipt>, AppError> {
    handle(s, ip, p, input).await
}

/// Report a conversion from a measurement partner, with the fields in a JSON or form body.
///
/// Same rules as the GET variant; the body may be `application/json` (an object; numbers
/// are read as text) or `application/x-www-form-urlencoded`, and query parameters are read
/// as well (a body value wins). The token goes in the `X-Service-Token` header or the
/// `token` field.
#[utoipa::path(post, path = "/postbacks/mmp/{campaignId}/{provider}", tag = "tracking",
    params(
        ("campaignId" = String, Path, description = "The offer campaign"),
        ("provider" = String, Path, description = "Lowercase partner code: appsflyer, adjust, branch, singular, kochava or airbridge"),
        ("X-Service-Token" = Option<String>, Header, description = "The campaign token (or the `token` field)")),
    request_body(content(
        (TokenConversion = "application/json"),
        (TokenConversion = "application/x-www-form-urlencoded")),
        description = "The canonical five fields or the partner's names (see the table), and optionally `token`"),
    responses(MmpAnswers))]
async fn mmp_postback_post(
    State(s): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    AppPath(p): AppPath<MmpPath>,
    input: CallbackInput,
) -> Result<AppJson<CallbackReceipt>, AppError> {
    handle(s, ip, p, input).await
}
