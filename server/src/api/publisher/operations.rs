//! Blacklists, user bans and support cases of the publisher console.

use app::domain::delivery::support_cases::console as support;
use app::domain::paging::Page;
use app::domain::publisher::{bans, blacklists};
use app::error::AppError;
use app::model::publisher::ops::*;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppPath, AppQuery, Authenticated};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_blacklists, create_blacklist))
        .routes(routes!(delete_blacklist))
        .routes(routes!(list_bans, create_ban))
        .routes(routes!(patch_ban))
        .routes(routes!(list_support_cases))
        .routes(routes!(patch_support_case))
        .routes(routes!(support_evidence_file))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct BlacklistQuery {
    /// Entries that apply to this placement (including those for all placements).
    placement_id: Option<String>,
    /// The previous page's `nextCursor` (newest first).
    cursor: Option<String>,
    /// Rows per page: 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u64>,
}

/// Blacklist entries of the caller, newest first, paged.
#[utoipa::path(get, path = "/blacklists", tag = "publisher", security(("dashboardBearer" = [])), params(BlacklistQuery),
    responses((status = 200, body = BlacklistList)))]
async fn list_blacklists(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<BlacklistQuery>,
) -> Result<AppJson<BlacklistList>, AppError> {
    let page = Page::parse(q.limit, q.cursor.as_deref(), "bl")?;
    blacklists::list(&s.ctx, &p, q.placement_id.as_deref(), &page)
        .await
        .map(AppJson)
}

/// Exclude a campaign, advertiser, category, task type or destination domain from delivery on
/// all placements or one; duplicates are 409.
#[utoipa::path(post, path = "/blacklists", tag = "publisher", security(("dashboardBearer" = [])), request_body = CreateBlacklist,
    responses((status = 201, body = Blacklist), (status = 400, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn create_blacklist(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(b): AppJson<CreateBlacklist>,
) -> Result<(StatusCode, AppJson<Blacklist>), AppError> {
    Ok((
        StatusCode::CREATED,
        AppJson(blacklists::create(&s.ctx, &p, b).await?),
    ))
}

/// Remove a blacklist entry.
#[utoipa::path(delete, path = "/blacklists/{blacklistId}", tag = "publisher", security(("dashboardBearer" = [])),
    params(("blacklistId" = String, Path)), responses((status = 204), (status = 404, body = ErrorBody)))]
async fn delete_blacklist(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<StatusCode, AppError> {
    blacklists::delete(&s.ctx, &p, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct BanQuery {
    placement_id: Option<String>,
    external_user_id: Option<String>,
    /// ACTIVE (in force now) or LIFTED (lifted or expired).
    #[param(value_type = Option<app::model::publisher::ops::BanStatus>, inline)]
    status: Option<String>,
    /// The previous page's `nextCursor` (newest first).
    cursor: Option<String>,
    /// Rows per page: 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u64>,
}

/// User bans of the caller's placements, newest first, paged.
#[utoipa::path(get, path = "/user-bans", tag = "publisher", security(("dashboardBearer" = [])), params(BanQuery),
    responses((status = 200, body = UserBanList), (status = 400, body = ErrorBody)))]
async fn list_bans(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<BanQuery>,
) -> Result<AppJson<UserBanList>, AppError> {
    let page = Page::parse(q.limit, q.cursor.as_deref(), "ban")?;
    bans::list(
        &s.ctx,
        &p,
        q.placement_id.as_deref(),
        q.external_user_id.as_deref(),
        q.status.as_deref(),
        &page,
    )
    .await
    .map(AppJson)
}

/// Ban an end user of a placement: no sessions and no launches while in force.
#[utoipa::path(post, path = "/user-bans", tag = "publisher", security(("dashboardBearer" = [])), request_body = CreateUserBan,
    responses((status = 201, body = UserBan), (status = 400, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn create_ban(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(b): AppJson<CreateUserBan>,
) -> Result<(StatusCode, AppJson<UserBan>), AppError> {
    Ok((
        StatusCode::CREATED,
        AppJson(bans::create(&s.ctx, &p, b).await?),
    ))
}

/// Lift or reinstate a ban, or change its reason or expiry.
#[utoipa::path(patch, path = "/user-bans/{banId}", tag = "publisher", security(("dashboardBearer" = [])),
    params(("banId" = String, Path)), request_body = PatchUserBan,
    responses((status = 200, body = UserBan), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn patch_ban(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(b): AppJson<PatchUserBan>,
) -> Result<AppJson<UserBan>, AppError> {
    bans::patch(&s.ctx, &p, &id, b).await.map(AppJson)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct SupportQuery {
    /// OPEN, IN_PROGRESS, RESOLVED or REJECTED.
    #[param(value_type = Option<app::model::publisher::ops::SupportStatus>, inline)]
    status: Option<String>,
    placement_id: Option<String>,
    /// The previous page's `nextCursor` (newest first).
    cursor: Option<String>,
    /// Rows per page: 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u64>,
}

/// Support cases opened by users of the caller's placements, newest first, paged.
#[utoipa::path(get, path = "/support-cases", tag = "publisher", security(("dashboardBearer" = [])), params(SupportQuery),
    responses((status = 200, body = SupportCaseList), (status = 400, body = ErrorBody)))]
async fn list_support_cases(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<SupportQuery>,
) -> Result<AppJson<SupportCaseList>, AppError> {
    let page = Page::parse(q.limit, q.cursor.as_deref(), "case")?;
    support::list(
        &s.ctx,
        &p,
        q.status.as_deref(),
        q.placement_id.as_deref(),
        &page,
    )
    .await
    .map(AppJson)
}

/// Move a case (OPEN → IN_PROGRESS → RESOLVED or REJECTED; closed cases reopen to IN_PROGRESS)
/// and/or set the publisher note.
#[utoipa::path(patch, path = "/support-cases/{supportCaseId}", tag = "publisher", security(("dashboardBearer" = [])),
    params(("supportCaseId" = String, Path)), request_body = PatchSupportCase,
    responses((status = 200, body = SupportCase), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn patch_support_case(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(b): AppJson<PatchSupportCase>,
) -> Result<AppJson<SupportCase>, AppError> {
    support::patch(&s.ctx, &p, &id, b).await.map(AppJson)
}

/// The file of one evidence upload on a case of the caller's placements, as stored (its
/// type was checked by content). Sent as an attachment with `nosniff` and a sandboxing
/// Content-Security-Policy, so a browser never runs it as a page.
#[utoipa::path(get, path = "/support-cases/{supportCaseId}/evidence/{evidenceId}", tag = "publisher", security(("dashboardBearer" = [])),
    params(("supportCaseId" = String, Path), ("evidenceId" = String, Path)),
    responses((status = 200, description = "the file", content_type = "application/octet-stream"), (status = 404, body = ErrorBody)))]
async fn support_evidence_file(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath((case_id, evidence_id)): AppPath<(String, String)>,
) -> Result<axum::response::Response, AppError> {
    evidence_download(&s, &p, &case_id, &evidence_id).await
}

/// The same file for a signed-in browser (the support inbox links here).
pub async fn browser_evidence_file(
    State(s): State<AppState>,
    session: tower_sessions::Session,
    AppPath((case_id, evidence_id)): AppPath<(String, String)>,
) -> Result<axum::response::Response, AppError> {
    let p = app::auth::require_principal(&s.ctx, &session).await?;
    evidence_download(&s, &p, &case_id, &evidence_id).await
}

async fn evidence_download(
    s: &AppState,
    p: &app::domain::Principal,
    case_id: &str,
    evidence_id: &str,
) -> Result<axum::response::Response, AppError> {
    use axum::response::IntoResponse;
    use http::header;
    let (kind, bytes) =
        app::domain::delivery::support_cases::evidence::content(&s.ctx, p, case_id, evidence_id)
            .await?;
    let ext = match kind.as_str() {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        _ => "pdf",
    };
    // The download name is ours, never the uploaded one.
    let disposition = format!("attachment; filename=\"{evidence_id}.{ext}\"");
    Ok((
        [
            (header::CONTENT_TYPE, kind),
            (header::CONTENT_DISPOSITION, disposition),
            (header::CACHE_CONTROL, "private, no-store".to_owned()),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
            (header::CONTENT_SECURITY_POLICY, "sandbox".to_owned()),
        ],
        bytes,
    )
        .into_response())
}
