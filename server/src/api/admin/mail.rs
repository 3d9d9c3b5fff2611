//! The mail outbox for operators (issue 54, part 1): where mail goes, what waits or failed,
//! and the newest letters (the administrators' Mail page shows the same).

use app::domain::mail::console;
use app::error::AppError;
use app::model::mail::{MailOutbox, MailQuery};
use axum::extract::State;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppQuery, Authenticated};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(outbox))
}

/// The mail outbox: the transport (`SMTP`, `DEVELOPMENT_MAILBOX` or `OFF`), how many letters
/// wait, failed or were sent, and the newest 100 letters (with their attempts and the mail
/// server's last answer; the text only in the development mailbox).
#[utoipa::path(get, path = "/mail", tag = "admin", security(("dashboardBearer" = [])), params(MailQuery),
    responses((status = 200, body = MailOutbox), (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn outbox(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<MailQuery>,
) -> Result<AppJson<MailOutbox>, AppError> {
    console::outbox(&s.ctx, &p, q.status).await.map(AppJson)
}
