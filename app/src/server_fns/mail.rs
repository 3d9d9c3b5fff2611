//! The administrators' Mail page (issue 54, part 1): the outbox as `app::domain::mail`
//! keeps it.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::mail::MailOutbox;

/// Where mail goes, what waits or failed, and the newest letters (`status`: PENDING, SENT
/// or FAILED narrows the list; empty shows all).
#[server(prefix = "/fn", endpoint = "mail_outbox")]
pub async fn mail_outbox_view(status: Option<String>) -> Result<MailOutbox, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        let status = match status.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            None => None,
            Some(raw) => Some(
                crate::model::mail::MailStatus::parse(raw)
                    .ok_or_else(|| AppError::invalid("status must be PENDING, SENT or FAILED"))?,
            ),
        };
        crate::domain::mail::console::outbox(&ctx, &p, status).await
    })
    .await
}
