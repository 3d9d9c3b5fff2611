//! Custom S2S: `/postbacks/custom-s2s/{campaignId}`, signed with the campaign's HMAC key.

use crate::extract::ClientIp;
use app::domain::Policy;
use app::domain::conversions::postbacks::{self, S2sHeaders};
use app::domain::rate_limit::client_bucket;
use app::error::AppError;
use app::model::delivery::{CallbackReceipt, ConversionEvent};
use axum::Extension;
use axum::extract::State;
use axum::http::HeaderMap;

use super::answers::CustomS2sAnswers;
use crate::extract::{AppJson, AppPath, AppQuery};
use crate::state::AppState;

fn signing_headers(h: &HeaderMap) -> S2sHeaders {
    let get = |n: &str| h.get(n).and_then(|v| v.to_str().ok()).map(str::to_owned);
    S2sHeaders {
        key_id: get("x-service-key-id"),
        timestamp: get("x-service-timestamp"),
        signature: get("x-service-signature"),
    }
}

/// Report a conversion for a Custom S2S campaign. Signature: lowercase hex HMAC-SHA256,
/// keyed with the campaign secret, over `timestamp\nclick_id\ntransaction_id\ngoal_id\nstatus\noccurred_at`
/// (timestamp = Unix seconds, within five minutes). 200 means durably in the processing
/// inbox (settled in the same transaction), not that a reward was paid; an exact retry
/// answers `duplicate: true` with the same receipt. Refusals: 400 invalid fields, 401
/// `unauthorized` (headers missing), 401 `invalid_signature`, 401 `stale_timestamp`, 403
/// `ip_not_allowed`, 404 unknown campaign or not Custom S2S, 409 `transaction_conflict`
/// (a transaction_id reused with another click or goal).
#[utoipa::path(post, path = "/postbacks/custom-s2s/{campaignId}", tag = "tracking",
    params(("campaignId" = String, Path), ("X-Service-Key-Id" = String, Header), ("X-Service-Timestamp" = String, Header), ("X-Service-Signature" = String, Header)),
    request_body = ConversionEvent,
    responses(CustomS2sAnswers))]
pub(crate) async fn custom_s2s_post(
    State(s): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    headers: HeaderMap,
    AppPath(id): AppPath<String>,
    AppJson(ev): AppJson<ConversionEvent>,
) -> Result<AppJson<CallbackReceipt>, AppError> {
    report(&s, ip, &headers, &id, ev).await
}

/// The same report with the five fields in the query string (POST keeps them out of logs).
#[utoipa::path(get, path = "/postbacks/custom-s2s/{campaignId}", tag = "tracking",
    params(("campaignId" = String, Path), ConversionEvent, ("X-Service-Key-Id" = String, Header), ("X-Service-Timestamp" = String, Header), ("X-Service-Signature" = String, Header)),
    responses(CustomS2sAnswers))]
pub(crate) async fn custom_s2s_get(
    State(s): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    headers: HeaderMap,
    AppPath(id): AppPath<String>,
    AppQuery(ev): AppQuery<ConversionEvent>,
) -> Result<AppJson<CallbackReceipt>, AppError> {
    report(&s, ip, &headers, &id, ev).await
}

/// One report, whichever way its fields came: the caller's address is limited first.
async fn report(
    s: &AppState,
    ip: std::net::IpAddr,
    headers: &HeaderMap,
    id: &str,
    ev: ConversionEvent,
) -> Result<AppJson<CallbackReceipt>, AppError> {
    s.ctx
        .limits
        .check(Policy::ProviderCallback, &client_bucket(ip))?;
    postbacks::custom_s2s(&s.ctx, id, signing_headers(headers), ev, ip)
        .await
        .map(AppJson)
}

/// A delivery route (`api::delivery_routes`): no console extras.
pub(crate) fn router() -> utoipa_axum::router::OpenApiRouter<AppState> {
    utoipa_axum::router::OpenApiRouter::new()
        .routes(utoipa_axum::routes!(custom_s2s_post, custom_s2s_get))
}
