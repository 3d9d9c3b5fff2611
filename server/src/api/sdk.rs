//! The user-bound SDK surface (`/sdk/v2`), behind the delivery feature switch. Session
//! creation takes no token; everything else takes the session token as a bearer. Reads are
//! limited to 120 and writes to 60 per minute per session; creation to 60 per minute per
//! placement and source address.

use crate::extract::ClientIp;
use app::domain::Policy;
use app::domain::delivery::{
    impressions, launches, offer_list, offers, reward_status, sessions, support_cases,
};
use app::domain::rate_limit::client_bucket;
use app::error::AppError;
use app::model::delivery::*;
use app::model::publisher::ops::{SupportCase, SupportCaseList, SupportEvidence};
use axum::Extension;
use axum::extract::multipart::MultipartRejection;
use axum::extract::{DefaultBodyLimit, FromRequestParts, Multipart, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouterExt};
use utoipa_axum::routes;

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppPath, AppQuery, OptionalJson, bearer, created_or_ok};
use crate::state::AppState;

/// The web SDK calls these routes from the publisher's pages (another origin). They carry
/// a bearer token, never cookies, so any origin may call them.
pub(crate) fn cors() -> tower_http::cors::CorsLayer {
    use axum::http::{HeaderName, Method};
    tower_http::cors::CorsLayer::new()
        .allow_origin(tower_http::cors::Any)
        .allow_methods([Method::GET, Method::POST])
        .allow_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            HeaderName::from_static("idempotency-key"),
        ])
        // So the SDK can pace itself by the limits (`RateLimit`, draft-ietf-httpapi).
        .expose_headers([
            HeaderName::from_static("ratelimit"),
            HeaderName::from_static("ratelimit-policy"),
            header::RETRY_AFTER,
        ])
        .max_age(std::time::Duration::from_secs(600))
}

pub fn router() -> OpenApiRouter<AppState> {
    // The writes and the launch redirect answer a few bytes: no compression layer to pass.
    OpenApiRouter::new()
        .routes(routes!(record_impression))
        .routes(routes!(launch))
        .routes(routes!(open_launch))
        .merge(compressed().layer(crate::layers::compression()))
        .layer(cors())
}

fn compressed() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_session))
        .routes(routes!(configuration))
        .routes(routes!(refresh))
        .routes(routes!(revoke))
        .routes(routes!(list_offers))
        .routes(routes!(get_offer))
        .routes(routes!(rewards))
        .routes(routes!(offer_rewards))
        .routes(routes!(support_cases, open_support_case))
        .routes(
            routes!(support_evidence)
                .layer(DefaultBodyLimit::max(crate::extract::EVIDENCE_BODY_BYTES)),
        )
}

/// The raw session token of the request.
pub(crate) struct SessionToken(String);

impl<S: Send + Sync> FromRequestParts<S> for SessionToken {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, AppError> {
        bearer(parts)
            .map(|t| SessionToken(t.to_owned()))
            .ok_or_else(|| AppError::unauthorized("an SDK session bearer token is required"))
    }
}

/// A live session (expired, revoked and banned users are refused).
pub(crate) struct Session(std::sync::Arc<app::domain::principal::SdkActor>);

impl FromRequestParts<AppState> for Session {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        let SessionToken(token) = SessionToken::from_request_parts(parts, state).await?;
        let s = sessions::authenticate(&state.ctx, &token).await?;
        let policy = if parts.method == http::Method::GET {
            Policy::SdkRead
        } else {
            Policy::SdkWrite
        };
        state.ctx.limits.check(policy, &s.id)?;
        Ok(Session(s))
    }
}

/// The `Idempotency-Key` header, checked by the one rule of `domain::idempotency`.
pub(crate) struct IdempotencyKey(pub(crate) app::domain::idempotency::IdempotencyKey);

impl<S: Send + Sync> FromRequestParts<S> for IdempotencyKey {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, AppError> {
        let raw = parts
            .headers
            .get("idempotency-key")
            .and_then(|v| v.to_str().ok());
        app::domain::idempotency::IdempotencyKey::from_header(raw).map(IdempotencyKey)
    }
}

/// Create a session for one user of a verified placement. The identity, platform, SDK
/// version and consent must match the placement (400 with `fieldErrors`); production
/// needs a released placement (403 `placement_not_released`); a banned user gets 403
/// `user_banned`. The token is shown only here and on refresh.
#[utoipa::path(post, path = "/sessions", tag = "sdk", request_body = CreateSession,
    responses((status = 201, body = SdkSession), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 429, body = ErrorBody)))]
async fn create_session(
    State(s): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    AppJson(body): AppJson<CreateSession>,
) -> Result<(StatusCode, AppJson<SdkSession>), AppError> {
    let placement = body.placement_id.clone().unwrap_or_default();
    s.ctx.limits.check(
        Policy::SessionCreate,
        &format!("{placement}|{}", client_bucket(ip)),
    )?;
    let session = sessions::create(&s.ctx, body).await?;
    Ok((StatusCode::CREATED, AppJson(session)))
}

/// The session's configuration (no token). The path id must be the bearer's session.
#[utoipa::path(get, path = "/sessions/{sessionId}/configuration", tag = "sdk", security(("sdkSession" = [])),
    params(("sessionId" = String, Path)),
    responses((status = 200, body = SdkSession), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn configuration(
    State(s): State<AppState>,
    Session(sess): Session,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<SdkSession>, AppError> {
    sessions::configuration(&s.ctx, &sess, &id)
        .await
        .map(AppJson)
}

/// Replace the session with a new token and fifteen fresh minutes; the old token stops
/// working. A retry with the same Idempotency-Key returns the same replacement.
#[utoipa::path(post, path = "/sessions/{sessionId}/refresh", tag = "sdk", security(("sdkSession" = [])),
    params(("sessionId" = String, Path), ("Idempotency-Key" = String, Header, description = "8 to 120 letters, digits, `:`, `_` or `-`; a retry with the same key answers the first result")),
    responses((status = 200, body = SdkSession), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn refresh(
    State(s): State<AppState>,
    SessionToken(token): SessionToken,
    IdempotencyKey(key): IdempotencyKey,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<SdkSession>, AppError> {
    s.ctx.limits.check(Policy::SdkWrite, &id)?;
    sessions::refresh(&s.ctx, &token, &id, &key)
        .await
        .map(AppJson)
}

/// Revoke the session: its token stops working (204; again 204 when already revoked).
#[utoipa::path(post, path = "/sessions/{sessionId}/revoke", tag = "sdk", security(("sdkSession" = [])),
    params(("sessionId" = String, Path), ("Idempotency-Key" = String, Header, description = "8 to 120 letters, digits, `:`, `_` or `-`; a retry with the same key answers the first result")),
    responses((status = 204), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)))]
async fn revoke(
    State(s): State<AppState>,
    SessionToken(token): SessionToken,
    IdempotencyKey(key): IdempotencyKey,
    AppPath(id): AppPath<String>,
) -> Result<StatusCode, AppError> {
    s.ctx.limits.check(Policy::SdkWrite, &id)?;
    sessions::revoke(&s.ctx, &token, &id, &key).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Offers for the session's user in one slot, filtered by platform, country, slot policy,
/// the publisher's blacklists, campaign caps and the user's completed goals, in the slot's
/// sort order. An empty list is an ordinary result (no fill). Private cache up to 60 s.
#[utoipa::path(get, path = "/ad-slots/{adSlotId}/offers", tag = "sdk", security(("sdkSession" = [])),
    params(("adSlotId" = String, Path), OfferListQuery),
    responses((status = 200, body = OfferList), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub(crate) async fn list_offers(
    State(s): State<AppState>,
    Session(sess): Session,
    AppPath(slot): AppPath<String>,
    AppQuery(q): AppQuery<OfferListQuery>,
) -> Result<Response, AppError> {
    let body = offer_list::list_body(&s.ctx, &sess, &slot, q).await?;
    Ok((
        [
            (header::CACHE_CONTROL, "private, max-age=60"),
            (header::CONTENT_TYPE, "application/json"),
        ],
        body,
    )
        .into_response())
}

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SlotParam {
    /// Needed only when the session is not bound to a slot and the placement has several.
    ad_slot_id: Option<String>,
}

/// One offer for this session (404 `offer_unavailable` when it is not eligible).
#[utoipa::path(get, path = "/offers/{offerId}", tag = "sdk", security(("sdkSession" = [])),
    params(("offerId" = String, Path), SlotParam),
    responses((status = 200, body = OfferItem), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody)))]
pub(crate) async fn get_offer(
    State(s): State<AppState>,
    Session(sess): Session,
    AppPath(offer): AppPath<String>,
    AppQuery(q): AppQuery<SlotParam>,
) -> Result<AppJson<OfferItem>, AppError> {
    offers::get(&s.ctx, &sess, &offer, q.ad_slot_id.as_deref())
        .await
        .map(AppJson)
}

/// Record that the offer was shown (201; a retry with the same Idempotency-Key answers 200
/// with the first receipt and `duplicate: true`). A launch needs the receipt within ten
/// minutes.
#[utoipa::path(post, path = "/offers/{offerId}/impressions", tag = "sdk", security(("sdkSession" = [])),
    params(("offerId" = String, Path), ("Idempotency-Key" = String, Header, description = "8 to 120 letters, digits, `:`, `_` or `-`; a retry with the same key answers the first result")), request_body(content = ImpressionRequest, description = "optional"),
    responses((status = 201, body = ImpressionReceipt), (status = 200, body = ImpressionReceipt), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub(crate) async fn record_impression(
    State(s): State<AppState>,
    Session(sess): Session,
    IdempotencyKey(key): IdempotencyKey,
    AppPath(offer): AppPath<String>,
    OptionalJson(body): OptionalJson<ImpressionRequest>,
) -> Result<(StatusCode, AppJson<ImpressionReceipt>), AppError> {
    let (receipt, created) =
        impressions::record(&s.ctx, &sess, &offer, body.ad_slot_id.as_deref(), &key).await?;
    Ok(created_or_ok(receipt, created))
}

/// Launch the offer from an unexpired impression: a signed `launchUrl` valid five minutes
/// that redirects to the advertiser with a new click id. Checks eligibility, caps and the
/// campaign's budget (409 `budget_exhausted`); a banned user gets 403 `user_banned`. A retry
/// with the same Idempotency-Key returns the same launch (200, `duplicate: true`).
#[utoipa::path(post, path = "/offers/{offerId}/launch", tag = "sdk", security(("sdkSession" = [])),
    params(("offerId" = String, Path), ("Idempotency-Key" = String, Header, description = "8 to 120 letters, digits, `:`, `_` or `-`; a retry with the same key answers the first result")), request_body = LaunchRequest,
    responses((status = 201, body = SignedLaunch), (status = 200, body = SignedLaunch), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub(crate) async fn launch(
    State(s): State<AppState>,
    Session(sess): Session,
    IdempotencyKey(key): IdempotencyKey,
    AppPath(offer): AppPath<String>,
    axum::Extension(crate::extract::ClientIp(ip)): axum::Extension<crate::extract::ClientIp>,
    AppJson(body): AppJson<LaunchRequest>,
) -> Result<(StatusCode, AppJson<SignedLaunch>), AppError> {
    let (l, created) = launches::launch(&s.ctx, &sess, &offer, body, &key, Some(ip)).await?;
    Ok(created_or_ok(l, created))
}

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct LaunchSignature {
    /// Unix seconds.
    expires: Option<i64>,
    signature: Option<String>,
}

/// The signed launch link: 302 to the advertiser destination (401 `invalid_signature`, 410
/// `launch_expired` after five minutes). Carries no bearer; the signature is the credential.
#[utoipa::path(get, path = "/launch/{launchId}", tag = "sdk",
    params(("launchId" = String, Path), LaunchSignature),
    responses((status = 302, description = "redirect to the advertiser"), (status = 401, body = ErrorBody), (status = 410, body = ErrorBody)))]
pub(crate) async fn open_launch(
    State(s): State<AppState>,
    AppPath(id): AppPath<String>,
    axum::Extension(crate::extract::ClientIp(ip)): axum::Extension<crate::extract::ClientIp>,
    AppQuery(q): AppQuery<LaunchSignature>,
) -> Result<Response, AppError> {
    let to = launches::open(&s.ctx, &id, q.expires, q.signature.as_deref(), Some(ip)).await?;
    Ok((
        StatusCode::FOUND,
        [
            (header::CACHE_CONTROL, "no-store".to_owned()),
            (header::LOCATION, to),
        ],
    )
        .into_response())
}

/// The user's reward progress on this placement (pending, earned, reversed). A progress
/// view, not final credit: credit comes from the signed reward callback.
#[utoipa::path(get, path = "/reward-status", tag = "sdk", security(("sdkSession" = [])),
    responses((status = 200, body = RewardStatus), (status = 401, body = ErrorBody)))]
async fn rewards(
    State(s): State<AppState>,
    Session(sess): Session,
) -> Result<AppJson<RewardStatus>, AppError> {
    reward_status::status(&s.ctx, &sess, None)
        .await
        .map(AppJson)
}

/// Reward progress for one offer.
#[utoipa::path(get, path = "/reward-status/{offerId}", tag = "sdk", security(("sdkSession" = [])),
    params(("offerId" = String, Path)),
    responses((status = 200, body = RewardStatus), (status = 401, body = ErrorBody)))]
async fn offer_rewards(
    State(s): State<AppState>,
    Session(sess): Session,
    AppPath(offer): AppPath<String>,
) -> Result<AppJson<RewardStatus>, AppError> {
    reward_status::status(&s.ctx, &sess, Some(&offer))
        .await
        .map(AppJson)
}

/// Paging of the SDK support list.
#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct SupportPage {
    /// The previous page's `nextCursor` (newest first).
    cursor: Option<String>,
    /// Cases per page: 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u64>,
}

/// The session user's support cases on this placement, newest first:
/// `{items, count, nextCursor}`.
#[utoipa::path(get, path = "/support", tag = "sdk", security(("sdkSession" = [])), params(SupportPage),
    responses((status = 200, body = SupportCaseList), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)))]
async fn support_cases(
    State(s): State<AppState>,
    Session(sess): Session,
    AppQuery(q): AppQuery<SupportPage>,
) -> Result<AppJson<SupportCaseList>, AppError> {
    let page = app::domain::paging::Page::parse(q.limit, q.cursor.as_deref(), "case")?;
    support_cases::list(&s.ctx, &sess, &page).await.map(AppJson)
}

/// Open a support case (201), or get the one already opened with this Idempotency-Key
/// (200). `reasonCode`: 3-64 of A-Z, 0-9, _; `message`: 10-2000 characters; `sessionId`: a
/// session of the same user and placement.
#[utoipa::path(post, path = "/support", tag = "sdk", security(("sdkSession" = [])),
    params(("Idempotency-Key" = String, Header, description = "8 to 120 letters, digits, `:`, `_` or `-`; a retry with the same key answers the first result")), request_body = SdkSupportRequest,
    responses((status = 201, body = SupportCase), (status = 200, body = SupportCase), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody)))]
async fn open_support_case(
    State(s): State<AppState>,
    Session(sess): Session,
    IdempotencyKey(key): IdempotencyKey,
    AppJson(body): AppJson<SdkSupportRequest>,
) -> Result<(StatusCode, AppJson<SupportCase>), AppError> {
    let (case, created) = support_cases::open(&s.ctx, &sess, body, &key).await?;
    Ok(created_or_ok(case, created))
}

/// Attach a file to one of the session user's support cases: multipart field `evidence`,
/// a PNG, JPEG, GIF or WebP image or a PDF (decided by the content) of at most 5 MiB (413
/// beyond, 415 for another type), up to 5 per open case. Development only: 403
/// `evidence_upload_unavailable` in production. A retry with the same Idempotency-Key and
/// the same file answers 200 with the first upload (`duplicate: true`); another file under
/// that key is 409 `idempotency_key_reused`.
#[utoipa::path(post, path = "/support/{supportCaseId}/evidence", tag = "sdk", security(("sdkSession" = [])),
    params(("supportCaseId" = String, Path), ("Idempotency-Key" = String, Header, description = "8 to 120 letters, digits, `:`, `_` or `-`; a retry with the same key answers the first result")),
    request_body(content_type = "multipart/form-data", content = EvidenceForm),
    responses((status = 201, body = SupportEvidence), (status = 200, body = SupportEvidence), (status = 400, body = ErrorBody), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody), (status = 413, body = ErrorBody), (status = 415, body = ErrorBody)))]
async fn support_evidence(
    State(s): State<AppState>,
    Session(sess): Session,
    IdempotencyKey(key): IdempotencyKey,
    AppPath(id): AppPath<String>,
    form: Result<Multipart, MultipartRejection>,
) -> Result<(StatusCode, AppJson<SupportEvidence>), AppError> {
    support_cases::evidence::ensure_allowed(&s.ctx, &sess)?;
    let upload = crate::extract::evidence_field(
        form,
        "evidence",
        support_cases::evidence::MAX_EVIDENCE_BYTES,
    )
    .await?;
    let (e, created) = support_cases::evidence::upload(&s.ctx, &sess, &id, upload, &key).await?;
    Ok(created_or_ok(e, created))
}

/// The multipart form of an evidence upload.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct EvidenceForm {
    /// The file: PNG, JPEG, GIF, WebP or PDF, at most 5 MiB.
    #[schema(value_type = String, format = Binary)]
    evidence: Vec<u8>,
}
