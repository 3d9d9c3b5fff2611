//! The administrators' fraud review (issue 51): held conversions by placement and reason,
//! decisions on them in bulk, and pausing or resuming a placement's delivery.

use app::domain::conversions::holds;
use app::domain::fraud::guard;
use app::error::AppError;
use app::model::fraud::{
    DecisionResults, DeliveryPauseInput, FraudOverview, HeldList, HeldQuery, HoldDecisionInput,
};
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppPath, AppQuery, Authenticated};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(holds_queue))
        .routes(routes!(summary))
        .routes(routes!(decisions))
        .routes(routes!(pause_delivery))
        .routes(routes!(resume_delivery))
}

/// Held conversions, oldest first, with their score and reasons; filters by placement,
/// campaign and signal.
#[utoipa::path(get, path = "/fraud/holds", tag = "admin", security(("dashboardBearer" = [])), params(HeldQuery),
    responses((status = 200, body = HeldList), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn holds_queue(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<HeldQuery>,
) -> Result<AppJson<HeldList>, AppError> {
    holds::admin_queue(&s.ctx, &p, &q).await.map(AppJson)
}

/// Placements with held conversions or a paused delivery, with their held and reversed
/// shares over the pause window, and the held conversions by reason.
#[utoipa::path(get, path = "/fraud/summary", tag = "admin", security(("dashboardBearer" = [])),
    responses((status = 200, body = FraudOverview), (status = 403, body = ErrorBody)))]
async fn summary(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
) -> Result<AppJson<FraudOverview>, AppError> {
    p.require_admin()?;
    holds::fraud_overview(&s.ctx, &p).await.map(AppJson)
}

/// Approve (pay, with caps and the budget checked then) or reject up to 500 held
/// conversions; each is decided once (`NOT_HELD` when it was decided before). Audited.
#[utoipa::path(post, path = "/fraud/decisions", tag = "admin", security(("dashboardBearer" = [])), request_body = HoldDecisionInput,
    responses((status = 200, body = DecisionResults), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn decisions(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(b): AppJson<HoldDecisionInput>,
) -> Result<AppJson<DecisionResults>, AppError> {
    p.require_admin()?;
    holds::decide(&s.ctx, &p, b).await.map(AppJson)
}

/// Pause a placement's delivery (its offers are not shown; launches are refused) with a
/// note (409 `already_paused`).
#[utoipa::path(post, path = "/placements/{placementId}/pause-delivery", tag = "admin", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), request_body = DeliveryPauseInput,
    responses((status = 204, description = "paused"), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn pause_delivery(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(b): AppJson<DeliveryPauseInput>,
) -> Result<StatusCode, AppError> {
    guard::pause_by_admin(&s.ctx, &p, &id, b).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Resume a paused placement's delivery with a note (409 `not_paused`); its held and
/// reversed share counts from now on.
#[utoipa::path(post, path = "/placements/{placementId}/resume-delivery", tag = "admin", security(("dashboardBearer" = [])),
    params(("placementId" = String, Path)), request_body = DeliveryPauseInput,
    responses((status = 204, description = "resumed"), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn resume_delivery(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(b): AppJson<DeliveryPauseInput>,
) -> Result<StatusCode, AppError> {
    guard::resume(&s.ctx, &p, &id, b).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The dashboard's bulk decision (`POST /admin/fraud/decide`, a plain form with the cookie
/// session: `csrf`, one `conversion_id` per checked conversion, `decision` and `note`):
/// decides, then returns to the queue with the counts (or the refusal).
pub async fn browser_decide(
    State(s): State<AppState>,
    session: tower_sessions::Session,
    body: axum::body::Bytes,
) -> axum::response::Response {
    use axum::response::{IntoResponse, Redirect};
    let back = |message: String| {
        let text: String = url::form_urlencoded::byte_serialize(message.as_bytes()).collect();
        Redirect::to(&format!("/admin/fraud?decided={text}#held")).into_response()
    };
    match browser_decision(&s, &session, &body).await {
        Ok(r) => back(format!(
            "{} approved, {} rejected, {} already decided or not found",
            r.approved_count,
            r.rejected_count,
            r.items.len() - r.approved_count - r.rejected_count
        )),
        Err(e) => back(format!("refused: {}", e.message)),
    }
}

async fn browser_decision(
    s: &AppState,
    session: &tower_sessions::Session,
    body: &[u8],
) -> Result<DecisionResults, AppError> {
    let p = app::auth::require_principal(&s.ctx, session).await?;
    let mut input = HoldDecisionInput::default();
    let mut csrf = String::new();
    for (k, v) in url::form_urlencoded::parse(body) {
        match k.as_ref() {
            "csrf" => csrf = v.into_owned(),
            // Bounded: the domain refuses more than 500; one more shows the refusal.
            "conversion_id"
                if input.conversion_ids.len() <= app::model::fraud::MAX_DECISION_IDS =>
            {
                input.conversion_ids.push(v.into_owned());
            }
            "decision" => input.decision = app::model::fraud::HoldDecision::parse(&v),
            "note" => input.note = Some(v.into_owned()),
            _ => {}
        }
    }
    app::auth::check_csrf(session, &csrf).await?;
    p.require_admin()?;
    holds::decide(&s.ctx, &p, input).await
}
