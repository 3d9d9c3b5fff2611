//! Offer campaigns (`/performance-marketing/v2/campaigns`, advertiser bearer): CRUD, the
//! lifecycle, readiness, audit, revisions, clone, report; provider capabilities; tracking
//! setup and development creatives in the submodules.

mod assets;
mod conversions;
mod reconciliations;

pub use reconciliations::browser_upload as reconciliation_upload;
mod tracking;

use app::domain::campaigns::{lifecycle, providers, readiness, report, store};
use app::error::AppError;
use app::model::campaign::*;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::NaiveDate;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::api::paging::PageQuery;
use crate::extract::{AppJson, AppPath, AppQuery, Authenticated, OptionalJson};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(capabilities))
        .routes(routes!(list, create))
        .routes(routes!(read, patch))
        .routes(routes!(transition))
        .routes(routes!(readiness_of))
        .routes(routes!(audit))
        .routes(routes!(revisions))
        .routes(routes!(clone_campaign))
        .routes(routes!(report_of))
        .merge(tracking::router())
        .merge(assets::router())
        .merge(conversions::router())
        .merge(reconciliations::router())
}

/// Tracking providers: `{contractVersion, items}`; only `selectable` ones can be chosen.
#[utoipa::path(get, path = "/providers/capabilities", tag = "campaigns", security(("dashboardBearer" = [])),
    responses((status = 200, body = ProviderCapabilities), (status = 401, body = ErrorBody)))]
async fn capabilities(
    State(s): State<AppState>,
    Authenticated(_p): Authenticated,
) -> AppJson<ProviderCapabilities> {
    AppJson(providers::catalogue(&s.ctx))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct ListParams {
    /// One status (ARCHIVED campaigns are listed only when asked for).
    #[param(value_type = Option<CampaignStatus>, inline)]
    status: Option<String>,
    /// Name fragment or exact campaign id.
    q: Option<String>,
    /// Administrators: one advertiser's campaigns.
    advertiser_id: Option<String>,
    /// Campaigns per page, 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u64>,
    /// The `nextCursor` of the previous page.
    cursor: Option<String>,
}

/// Campaigns, newest first, one page at a time: `{items, count, nextCursor}`.
#[utoipa::path(get, path = "/campaigns", tag = "campaigns", security(("dashboardBearer" = [])), params(ListParams),
    responses((status = 200, body = CampaignList), (status = 403, body = ErrorBody)))]
async fn list(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<ListParams>,
) -> Result<AppJson<CampaignList>, AppError> {
    let q = store::ListQuery {
        page: app::domain::paging::Page::parse(q.limit, q.cursor.as_deref(), "cmp")?,
        status: q.status,
        q: q.q,
        advertiser_id: q.advertiser_id,
    };
    store::list(&s.ctx, &p, q).await.map(AppJson)
}

/// Create a DRAFT campaign. `destinationUrl` must be HTTPS and contain `{click_id}`;
/// `externalGoalId` is unique per campaign; the provider must be selectable.
#[utoipa::path(post, path = "/campaigns", tag = "campaigns", security(("dashboardBearer" = [])), request_body = CampaignInput,
    responses((status = 201, body = Campaign), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn create(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(b): AppJson<CampaignInput>,
) -> Result<(StatusCode, AppJson<Campaign>), AppError> {
    Ok((
        StatusCode::CREATED,
        AppJson(store::create(&s.ctx, &p, b).await?),
    ))
}

/// One campaign (the newest revision's configuration).
#[utoipa::path(get, path = "/campaigns/{campaignId}", tag = "campaigns", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), responses((status = 200, body = Campaign), (status = 404, body = ErrorBody)))]
async fn read(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<Campaign>, AppError> {
    store::get(&s.ctx, &p, &id).await.map(AppJson)
}

/// Edit the named fields. After the first submission each edit is a new immutable revision;
/// a live campaign keeps delivering its approved revision until the new one is approved.
#[utoipa::path(patch, path = "/campaigns/{campaignId}", tag = "campaigns", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), request_body = CampaignInput,
    responses((status = 200, body = Campaign), (status = 400, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn patch(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(b): AppJson<CampaignInput>,
) -> Result<AppJson<Campaign>, AppError> {
    store::update(&s.ctx, &p, &id, b).await.map(AppJson)
}

/// Move the campaign: DRAFT→IN_REVIEW (submit), IN_REVIEW→DRAFT (withdraw),
/// REJECTED→DRAFT|IN_REVIEW, LIVE→PAUSED|ENDED|ARCHIVED, PAUSED→LIVE|ENDED|ARCHIVED,
/// ENDED→ARCHIVED, DRAFT→ARCHIVED. Going LIVE reserves the unspent budget; leaving LIVE
/// releases it. Approval to LIVE is the administrator's route.
#[utoipa::path(post, path = "/campaigns/{campaignId}/transition", tag = "campaigns", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), request_body = TransitionRequest,
    responses((status = 200, body = Campaign), (status = 409, body = ErrorBody, description = "invalid_transition, campaign_not_ready, insufficient_balance")))]
async fn transition(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(b): AppJson<TransitionRequest>,
) -> Result<AppJson<Campaign>, AppError> {
    lifecycle::transition(&s.ctx, &p, &id, b).await.map(AppJson)
}

/// What blocks submission (SUBMIT) or launch (LAUNCH), plus advice (NONE).
#[utoipa::path(get, path = "/campaigns/{campaignId}/readiness", tag = "campaigns", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), responses((status = 200, body = CampaignReadiness), (status = 404, body = ErrorBody)))]
async fn readiness_of(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<CampaignReadiness>, AppError> {
    readiness::get(&s.ctx, &p, &id).await.map(AppJson)
}

/// Who changed what, when: newest first, a page at a time.
#[utoipa::path(get, path = "/campaigns/{campaignId}/audit", tag = "campaigns", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path), PageQuery),
    responses((status = 200, body = AuditList), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn audit(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppQuery(q): AppQuery<PageQuery>,
) -> Result<AppJson<AuditList>, AppError> {
    store::audit_trail(&s.ctx, &p, &id, &q.page("aud")?)
        .await
        .map(AppJson)
}

/// The campaign's revisions, newest first, a page at a time; `live` marks the approved,
/// delivering one.
#[utoipa::path(get, path = "/campaigns/{campaignId}/revisions", tag = "campaigns", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path), PageQuery),
    responses((status = 200, body = RevisionList), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn revisions(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppQuery(q): AppQuery<PageQuery>,
) -> Result<AppJson<RevisionList>, AppError> {
    store::revisions(&s.ctx, &p, &id, &q.page("rev")?)
        .await
        .map(AppJson)
}

/// Copy into a new DRAFT (no credentials, no money); optional `{name}`.
#[utoipa::path(post, path = "/campaigns/{campaignId}/clone", tag = "campaigns", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), request_body = CloneRequest,
    responses((status = 201, body = Campaign), (status = 404, body = ErrorBody)))]
async fn clone_campaign(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    OptionalJson(b): OptionalJson<CloneRequest>,
) -> Result<(StatusCode, AppJson<Campaign>), AppError> {
    Ok((
        StatusCode::CREATED,
        AppJson(store::clone(&s.ctx, &p, &id, b).await?),
    ))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct ReportParams {
    /// First UTC day (default 29 days before `to`).
    from: Option<NaiveDate>,
    /// Last UTC day (default today).
    to: Option<NaiveDate>,
}

/// Clicks, conversions by status and spend by UTC day (at most 366 days).
#[utoipa::path(get, path = "/campaigns/{campaignId}/report", tag = "campaigns", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path), ReportParams), responses((status = 200, body = CampaignReport), (status = 400, body = ErrorBody)))]
async fn report_of(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppQuery(q): AppQuery<ReportParams>,
) -> Result<AppJson<CampaignReport>, AppError> {
    report::report(&s.ctx, &p, &id, q.from, q.to)
        .await
        .map(AppJson)
}
