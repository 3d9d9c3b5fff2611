//! Administrator campaign routes: offer-campaign review queue, approval (CONTRACT section 3),
//! rejection and measurement-partner live-test verification; survey-campaign approval and
//! external payments.

use app::domain::campaigns::lifecycle;
use app::domain::surveys::campaigns::review as surveys;
use app::error::AppError;
use app::model::campaign::*;
use app::model::survey::campaign::{SurveyCampaign, SurveyCampaignList};
use axum::extract::State;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::api::paging::PageQuery;
use crate::extract::{AppJson, AppPath, AppQuery, Authenticated, EmptyObject, OptionalJson};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(queue))
        .routes(routes!(changes))
        .routes(routes!(approve))
        .routes(routes!(reject))
        .routes(routes!(verify))
        .routes(routes!(survey_queue))
        .routes(routes!(approve_survey))
        .routes(routes!(reject_survey))
        .routes(routes!(external_payment))
}

/// IN_REVIEW campaigns and live ones with a pending revision, oldest first, a page at a time.
#[utoipa::path(get, path = "/offer-campaigns", tag = "admin", security(("dashboardBearer" = [])), params(PageQuery),
    responses((status = 200, body = CampaignList), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn queue(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<PageQuery>,
) -> Result<AppJson<CampaignList>, AppError> {
    lifecycle::review_queue(&s.ctx, &p, &q.page("cmp")?)
        .await
        .map(AppJson)
}

/// What the campaign's pending revision changes against its live revision, field by field
/// (empty for a campaign that was never live: all of it is under review).
#[utoipa::path(get, path = "/offer-campaigns/{campaignId}/changes", tag = "admin", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), responses((status = 200, body = Vec<RevisionChange>), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn changes(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<AppJson<Vec<RevisionChange>>, AppError> {
    app::domain::campaigns::review_diff::changes(&s.ctx, &p, &id)
        .await
        .map(AppJson)
}

/// Approve an IN_REVIEW campaign: it goes LIVE with its budget reserved from the wallet
/// (409 `insufficient_balance`, `mmp_credential_missing`, `mmp_verification_required`). On
/// a live campaign with a pending revision, promotes that revision. Send the reviewed
/// `revision` (optional body): a newer revision saved since is refused with 409
/// `revision_changed`. An edit of an IN_REVIEW campaign returns it to DRAFT.
#[utoipa::path(post, path = "/offer-campaigns/{campaignId}/approve", tag = "admin", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), request_body(content = Option<ApproveCampaignRequest>), responses((status = 200, body = Campaign), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn approve(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    OptionalJson(b): OptionalJson<ApproveCampaignRequest>,
) -> Result<AppJson<Campaign>, AppError> {
    lifecycle::approve(&s.ctx, &p, &id, b.revision)
        .await
        .map(AppJson)
}

/// Reject an IN_REVIEW campaign with the reason the advertiser sees.
#[utoipa::path(post, path = "/offer-campaigns/{campaignId}/reject", tag = "admin", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), request_body = RejectCampaignRequest,
    responses((status = 200, body = Campaign), (status = 400, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn reject(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(b): AppJson<RejectCampaignRequest>,
) -> Result<AppJson<Campaign>, AppError> {
    lifecycle::reject(&s.ctx, &p, &id, b).await.map(AppJson)
}

/// Record a successful live test of a measurement-partner campaign's current revision.
#[utoipa::path(post, path = "/offer-campaigns/{campaignId}/mmp-verification", tag = "admin", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), request_body = VerificationRequest,
    responses((status = 200, body = Campaign), (status = 409, body = ErrorBody)))]
async fn verify(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    OptionalJson(b): OptionalJson<VerificationRequest>,
) -> Result<AppJson<Campaign>, AppError> {
    lifecycle::verify_mmp(&s.ctx, &p, &id, b).await.map(AppJson)
}

/// Approve a funded (wallet or external) DRAFT or PENDINGAPPROVAL survey campaign: it goes
/// LIVE (409 `campaign_not_funded` otherwise). Send the reviewed `revision` (optional body):
/// a campaign edited since is refused with 409 `revision_changed`.
#[utoipa::path(post, path = "/survey-campaigns/{campaignId}/approve", tag = "admin", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), request_body(content = Option<ApproveCampaignRequest>), responses((status = 200, body = SurveyCampaign), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn approve_survey(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    OptionalJson(b): OptionalJson<ApproveCampaignRequest>,
) -> Result<AppJson<SurveyCampaign>, AppError> {
    surveys::approve(&s.ctx, &p, &id, b.revision)
        .await
        .map(AppJson)
}

/// Record that a survey campaign was paid outside the wallet; allocation then refuses it
/// (409 `paid_outside_wallet`) so it is never charged twice.
#[utoipa::path(post, path = "/survey-campaigns/{campaignId}/external-payment", tag = "admin", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), responses((status = 200, body = SurveyCampaign), (status = 409, body = ErrorBody)))]
async fn external_payment(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    _b: EmptyObject,
) -> Result<AppJson<SurveyCampaign>, AppError> {
    surveys::record_external_payment(&s.ctx, &p, &id)
        .await
        .map(AppJson)
}

/// Survey campaigns awaiting approval (PENDINGAPPROVAL), oldest first, with their payment
/// status and estimated cost, a page at a time (`next_cursor`, as the survey API names it).
#[utoipa::path(get, path = "/survey-campaigns", tag = "admin", security(("dashboardBearer" = [])), params(PageQuery),
    responses((status = 200, body = SurveyCampaignList), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn survey_queue(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<PageQuery>,
) -> Result<AppJson<SurveyCampaignList>, AppError> {
    let page = q.page(app::domain::surveys::campaigns::ID_PREFIX)?;
    surveys::pending(&s.ctx, &p, &page).await.map(AppJson)
}

/// Send a survey campaign awaiting approval back to DRAFT with the reason the advertiser sees
/// (`rejection_reason` on the campaign until it is submitted again). Wallet money allocated to
/// it stays allocated.
#[utoipa::path(post, path = "/survey-campaigns/{campaignId}/reject", tag = "admin", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path)), request_body = RejectCampaignRequest,
    responses((status = 200, body = SurveyCampaign), (status = 400, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn reject_survey(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(b): AppJson<RejectCampaignRequest>,
) -> Result<AppJson<SurveyCampaign>, AppError> {
    surveys::reject(&s.ctx, &p, &id, &b.reason)
        .await
        .map(AppJson)
}
