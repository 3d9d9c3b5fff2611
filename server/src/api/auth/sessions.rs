//! "Where you are signed in" (`/auth/v1/sessions`, docs/accounts.md): the account's browser
//! sessions and dashboard tokens, and signing one out. Only with a dashboard token.

use app::domain::accounts::sessions::{self, Current};
use app::error::AppError;
use app::model::signed_in::SignedInList;
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppPath, Authenticated, bearer};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(sign_out))
}

/// The account's signed-in browsers (device, address, when) and live dashboard tokens,
/// newest first, 100 of each at most; `current` marks the token of this request. API keys
/// are listed at `/auth/v1/api-keys`.
#[utoipa::path(get, path = "/sessions", tag = "auth", security(("dashboardBearer" = [])),
    responses((status = 200, body = SignedInList), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn list(
    State(s): State<AppState>,
    parts: http::request::Parts,
    Authenticated(p): Authenticated,
) -> Result<AppJson<SignedInList>, AppError> {
    let current = Current {
        browser: None,
        token: bearer(&parts),
    };
    sessions::list(&s.ctx, &p, current).await.map(AppJson)
}

/// Sign out one browser (`ses_…`) or revoke one dashboard token (`tok_…`): refused at once
/// in every process. Another account's, or one already gone, is 404.
#[utoipa::path(delete, path = "/sessions/{sessionId}", tag = "auth", security(("dashboardBearer" = [])),
    params(("sessionId" = String, Path, description = "A browser session's `ses_…` or a token's `tok_…` id from the list")),
    responses((status = 204, description = "Signed out"), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody), (status = 404, body = ErrorBody)))]
async fn sign_out(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<StatusCode, AppError> {
    sessions::sign_out(&s.ctx, &p, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
