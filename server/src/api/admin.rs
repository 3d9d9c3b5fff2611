//! Administrator routes (CONTRACT.md section 3). Each decision is audited in the domain.

use app::domain::accounts;
use app::error::AppError;
use app::model::AccountView;
use axum::extract::State;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::extract::{AppJson, AppPath, Authenticated};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(approve_advertiser))
        .routes(routes!(pending_advertisers))
}

/// Approve a PENDING advertiser; it becomes ACTIVE.
#[utoipa::path(post, path = "/advertisers/{accountId}/approve", tag = "admin", security(("dashboardBearer" = [])),
    params(("accountId" = String, Path, description = "advertiser account id")),
    responses((status = 200, body = AccountView), (status = 403, body = super::ErrorBody), (status = 404, body = super::ErrorBody), (status = 409, body = super::ErrorBody)))]
async fn approve_advertiser(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(account_id): AppPath<String>,
) -> Result<AppJson<AccountView>, AppError> {
    accounts::approve_advertiser(&state.ctx, &p, &account_id)
        .await
        .map(AppJson)
}

/// Advertisers awaiting approval, oldest first.
#[utoipa::path(get, path = "/advertisers/pending", tag = "admin", security(("dashboardBearer" = [])),
    responses((status = 200, body = Vec<AccountView>), (status = 403, body = super::ErrorBody)))]
async fn pending_advertisers(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
) -> Result<AppJson<Vec<AccountView>>, AppError> {
    accounts::pending_advertisers(&state.ctx, &p)
        .await
        .map(AppJson)
}
