//! Tracking setup of a campaign: Custom S2S keys, measurement-partner, direct and managed
//! tokens, the IP allowlist, the tracking summary and the web pixel.

use app::domain::campaigns::providers::TrackingKind;
use app::domain::campaigns::{fraud_rules, tracking};
use app::error::AppError;
use app::model::campaign::*;
use app::model::fraud::{FraudRules, FraudRulesInput};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppPath, AppQuery, Authenticated, EmptyObject, OptionalJson};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(setup))
        .routes(routes!(s2s_create))
        .routes(routes!(s2s_rotate))
        .routes(routes!(s2s_test))
        .routes(routes!(mmp_credentials))
        .routes(routes!(mmp_rotate))
        .routes(routes!(direct_credentials))
        .routes(routes!(managed_credentials))
        .routes(routes!(ip_allowlist))
        .routes(routes!(web_pixels))
        .routes(routes!(web_pixel_settings))
        .routes(routes!(fraud_rules_get, fraud_rules_put))
        .routes(routes!(pixel_gif))
}

/// Active callback endpoint, credential metadata (never secrets), required parameters, the
/// signing recipe, the IP allowlist, web-pixel capability and live-test verification.
#[utoipa::path(get, path = "/campaigns/{campaignId}/tracking", tag = "tracking", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), responses((status = 200, body = TrackingSetup), (status = 404, body = ErrorBody)))]
async fn setup(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<TrackingSetup>, AppError> {
    tracking::setup(&s.ctx, &p, &id).await.map(AppJson)
}

fn created(issued: CredentialIssued) -> (StatusCode, AppJson<CredentialIssued>) {
    let new = issued.created;
    crate::extract::created_or_ok(issued, new)
}

/// Create the campaign's Custom S2S key: `{keyId, secret}`, the secret shown once (409
/// `credential_exists` when a key exists; rotate instead).
#[utoipa::path(post, path = "/campaigns/{campaignId}/tracking/custom-s2s/credentials", tag = "tracking", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), responses((status = 201, body = CredentialIssued), (status = 409, body = ErrorBody)))]
async fn s2s_create(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<(StatusCode, AppJson<CredentialIssued>), AppError> {
    tracking::create_s2s(&s.ctx, &p, &id).await.map(created)
}

/// Replace the Custom S2S key; the old one stops authenticating at once.
#[utoipa::path(post, path = "/campaigns/{campaignId}/tracking/custom-s2s/rotate", tag = "tracking", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), responses((status = 201, body = CredentialIssued), (status = 409, body = ErrorBody)))]
async fn s2s_rotate(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<(StatusCode, AppJson<CredentialIssued>), AppError> {
    tracking::rotate_s2s(&s.ctx, &p, &id).await.map(created)
}

/// Check a sample signed conversion locally: `deliveredExternally: false`,
/// `accountingWrites: 0`. Send `timestamp` and `signature` to check your own signing.
#[utoipa::path(post, path = "/campaigns/{campaignId}/tracking/custom-s2s/test", tag = "tracking", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), request_body = S2sTestRequest,
    responses((status = 200, body = S2sTestResult), (status = 409, body = ErrorBody)))]
async fn s2s_test(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    OptionalJson(b): OptionalJson<S2sTestRequest>,
) -> Result<AppJson<S2sTestResult>, AppError> {
    tracking::test_s2s(&s.ctx, &p, &id, b).await.map(AppJson)
}

/// Generate (201, token shown once) or retrieve (200, no token) the measurement-partner
/// campaign token.
#[utoipa::path(post, path = "/campaigns/{campaignId}/tracking/mmp/credentials", tag = "tracking", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), responses((status = 201, body = CredentialIssued), (status = 200, body = CredentialIssued), (status = 409, body = ErrorBody)))]
async fn mmp_credentials(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<(StatusCode, AppJson<CredentialIssued>), AppError> {
    tracking::token(&s.ctx, &p, &id, TrackingKind::Mmp)
        .await
        .map(created)
}

/// Replace the measurement-partner token (DRAFT or IN_REVIEW only); clears the live-test
/// verification.
#[utoipa::path(post, path = "/campaigns/{campaignId}/tracking/mmp/rotate", tag = "tracking", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), responses((status = 201, body = CredentialIssued), (status = 409, body = ErrorBody, description = "rotation_not_allowed")))]
async fn mmp_rotate(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<(StatusCode, AppJson<CredentialIssued>), AppError> {
    tracking::rotate_mmp(&s.ctx, &p, &id).await.map(created)
}

/// Generate or retrieve the DIRECT (older) token of a DIRECT campaign.
#[utoipa::path(post, path = "/campaigns/{campaignId}/tracking/direct/credentials", tag = "tracking", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), responses((status = 201, body = CredentialIssued), (status = 409, body = ErrorBody)))]
async fn direct_credentials(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<(StatusCode, AppJson<CredentialIssued>), AppError> {
    tracking::token(&s.ctx, &p, &id, TrackingKind::Direct)
        .await
        .map(created)
}

/// Generate or retrieve the MANAGED integration token of a MANAGED campaign.
#[utoipa::path(post, path = "/campaigns/{campaignId}/tracking/managed/credentials", tag = "tracking", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), responses((status = 201, body = CredentialIssued), (status = 409, body = ErrorBody)))]
async fn managed_credentials(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<(StatusCode, AppJson<CredentialIssued>), AppError> {
    tracking::token(&s.ctx, &p, &id, TrackingKind::Managed)
        .await
        .map(created)
}

/// Replace the IP allowlist checked on conversion callbacks (empty = any source).
#[utoipa::path(put, path = "/campaigns/{campaignId}/tracking/ip-allowlist", tag = "tracking", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), request_body = IpAllowlist,
    responses((status = 200, body = IpAllowlist), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody, description = "campaign_not_editable: the campaign has ended")))]
async fn ip_allowlist(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(b): AppJson<IpAllowlist>,
) -> Result<AppJson<IpAllowlist>, AppError> {
    tracking::set_allowlist(&s.ctx, &p, &id, b)
        .await
        .map(AppJson)
}

/// The campaign's web pixel: whether it is supported and turned on, its allowed origins,
/// timing and review window, the URL template and HTML snippet.
#[utoipa::path(get, path = "/campaigns/{campaignId}/tracking/web-pixels", tag = "tracking", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), responses((status = 200, body = WebPixel), (status = 404, body = ErrorBody)))]
async fn web_pixels(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<WebPixel>, AppError> {
    tracking::pixel::get(&s.ctx, &p, &id).await.map(AppJson)
}

/// Turn the web pixel on or off and set its limits: the origins of the pages allowed to
/// load it (required to turn it on), the minimum seconds from the followed launch link to
/// the pixel, and the hours a pixel conversion is held for review before it pays. Not for
/// Custom S2S campaigns (409 `pixel_not_supported`): they report signed.
#[utoipa::path(put, path = "/campaigns/{campaignId}/tracking/web-pixel", tag = "tracking", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), request_body = WebPixelSettingsInput,
    responses((status = 200, body = WebPixel), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn web_pixel_settings(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(b): AppJson<WebPixelSettingsInput>,
) -> Result<AppJson<WebPixel>, AppError> {
    tracking::pixel::set(&s.ctx, &p, &id, b).await.map(AppJson)
}

/// The campaign's fraud rules: the score at which a conversion is held for review (default
/// 50) and the advertiser's floor on seconds from click to conversion (docs/fraud.md).
#[utoipa::path(get, path = "/campaigns/{campaignId}/fraud-rules", tag = "campaigns", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), responses((status = 200, body = FraudRules), (status = 404, body = ErrorBody)))]
async fn fraud_rules_get(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<FraudRules>, AppError> {
    fraud_rules::get(&s.ctx, &p, &id).await.map(AppJson)
}

/// Set the campaign's fraud rules (an absent field returns to its default); applies to
/// conversions settled from now on. Audited.
#[utoipa::path(put, path = "/campaigns/{campaignId}/fraud-rules", tag = "campaigns", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), request_body = FraudRulesInput,
    responses((status = 200, body = FraudRules), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn fraud_rules_put(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(b): AppJson<FraudRulesInput>,
) -> Result<AppJson<FraudRules>, AppError> {
    fraud_rules::put(&s.ctx, &p, &id, b).await.map(AppJson)
}

/// The smallest transparent GIF.
const GIF: &[u8] = &[
    0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00,
    0xff, 0xff, 0xff, 0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x2c, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3b,
];

/// Web pixel `pixels/web/{campaignId}.gif?click_id=…&goal_id=…&transaction_id=…`, for
/// campaigns whose tracking setup turned the pixel on (trust level BROWSER; see
/// docs/postbacks.md). Refused with no money moved unless the page that loads it is one of
/// the campaign's allowed origins (`Origin` or `Referer`; 403 `pixel_page_required`,
/// `pixel_origin_mismatch`), the click id is the one the launch link gave that page (403
/// `pixel_click_unverified`: the SDK's click id is not enough, the link must have been
/// followed) and the campaign's minimum time since the click has passed (403
/// `pixel_too_early`); 403 `pixel_not_enabled` for other campaigns. An accepted pixel
/// answers a 1×1 transparent GIF, never cached; its conversion is held for the campaign's
/// review window before it pays. Unfilled macros 400; 120 per minute per address.
#[utoipa::path(get, path = "/pixels/web/{pixel}", tag = "tracking",
    params(("pixel" = String, Path, description = "`{campaignId}.gif`"),
        ("click_id" = String, Query), ("goal_id" = String, Query), ("transaction_id" = String, Query)),
    responses((status = 200, content_type = "image/gif", description = "1×1 GIF: the conversion is recorded (or was already)"),
        (status = 400, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody),
        (status = 409, body = ErrorBody), (status = 429, body = ErrorBody)))]
async fn pixel_gif(
    State(s): State<AppState>,
    AppPath(pixel): AppPath<String>,
    axum::Extension(crate::extract::ClientIp(ip)): axum::Extension<crate::extract::ClientIp>,
    headers: http::HeaderMap,
    AppQuery(q): AppQuery<std::collections::HashMap<String, String>>,
) -> Result<Response, AppError> {
    if !s.settings.feature_delivery {
        return Err(AppError::not_found("route"));
    }
    let id = pixel
        .strip_suffix(".gif")
        .ok_or_else(|| AppError::not_found("pixel"))?;
    s.ctx.limits.check(
        app::domain::Policy::ProviderCallback,
        &app::domain::rate_limit::client_bucket(ip),
    )?;
    let page = ["origin", "referer"].iter().find_map(|h| {
        headers
            .get(*h)
            .and_then(|v| v.to_str().ok())
            .filter(|v| !v.is_empty() && *v != "null")
            .map(str::to_owned)
    });
    let hit = app::domain::delivery::web_pixel::PixelHit {
        click_id: q.get("click_id").cloned(),
        goal_id: q.get("goal_id").cloned(),
        transaction_id: q.get("transaction_id").cloned(),
        page,
    };
    app::domain::delivery::web_pixel::record(&s.ctx, id, hit).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/gif"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        GIF,
    )
        .into_response())
}
