//! Survey campaign API credentials for approved advertisers (CONTRACT.md section 4).

use app::domain::survey_api_keys;
use app::error::AppError;
use app::model::{SurveyApiCredentialIssued, SurveyApiCredentialRequest};
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::extract::{AppJson, Authenticated};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(create_credentials))
}

/// Issue an API key and signing secret (shown once). Earlier keys of the advertiser stop working.
#[utoipa::path(post, path = "/survey-api/credentials", tag = "survey-api", security(("dashboardBearer" = [])),
    request_body = SurveyApiCredentialRequest,
    responses((status = 201, body = SurveyApiCredentialIssued), (status = 400, body = crate::api::ErrorBody), (status = 401, body = crate::api::ErrorBody), (status = 403, body = crate::api::ErrorBody, description = "not an approved advertiser (`account_pending` while awaiting approval)")))]
async fn create_credentials(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(req): AppJson<SurveyApiCredentialRequest>,
) -> Result<(StatusCode, AppJson<SurveyApiCredentialIssued>), AppError> {
    let issued = survey_api_keys::issue(&state.ctx, &p, req.encryption_type).await?;
    Ok((StatusCode::CREATED, AppJson(issued)))
}
