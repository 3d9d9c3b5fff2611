//! A publisher's earning terms (hold and minimum payout), set by an administrator.

use app::domain::earnings::terms;
use app::error::AppError;
use app::model::publisher::earnings::{EarningTerms, EarningTermsInput};
use axum::extract::State;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppPath, Authenticated};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_terms, put_terms))
}

/// The terms a publisher earns under: revenue share, hold in days and minimum payout.
#[utoipa::path(get, path = "/publishers/{accountId}/earning-terms", tag = "admin", security(("dashboardBearer" = [])),
    params(("accountId" = String, Path, description = "publisher account id")),
    responses((status = 200, body = EarningTerms), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn get_terms(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(account_id): AppPath<String>,
) -> Result<AppJson<EarningTerms>, AppError> {
    terms::get(&s.ctx, &p, &account_id).await.map(AppJson)
}

/// Sets a publisher's hold (0 to 365 days) and minimum payout; an absent field returns to
/// the default (30 days, 50 USD). A new hold applies to earnings not yet released. Audited.
#[utoipa::path(put, path = "/publishers/{accountId}/earning-terms", tag = "admin", security(("dashboardBearer" = [])),
    params(("accountId" = String, Path, description = "publisher account id")), request_body = EarningTermsInput,
    responses((status = 200, body = EarningTerms), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn put_terms(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(account_id): AppPath<String>,
    AppJson(input): AppJson<EarningTermsInput>,
) -> Result<AppJson<EarningTerms>, AppError> {
    terms::put(&s.ctx, &p, &account_id, input)
        .await
        .map(AppJson)
}
