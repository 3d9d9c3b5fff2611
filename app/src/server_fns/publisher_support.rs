//! The publisher's support inbox from the dashboard: the cases users open through the SDK.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::publisher_ops::{SupportCase, SupportCaseList};

/// Cases on the publisher's placements, newest first, optionally one status.
#[server(prefix = "/fn", endpoint = "publisher_support_inbox")]
pub async fn support_inbox(status: Option<String>) -> Result<SupportCaseList, AppError> {
    super::web::run(async move {
        let ctx = super::web::ctx()?;
        let session = super::web::session().await?;
        let p = super::web::require_principal(&ctx, &session).await?;
        let page = crate::domain::paging::Page::default();
        crate::domain::publisher::support::list(&ctx, &p, status.as_deref(), None, &page).await
    })
    .await
}

/// Moves a case and/or sets the note the user sees in the SDK.
#[server(prefix = "/fn", endpoint = "publisher_support_update")]
pub async fn update_support_case(
    support_case_id: String,
    status: String,
    publisher_note: String,
    csrf: String,
) -> Result<SupportCase, AppError> {
    super::web::run(async move {
        use crate::model::publisher_ops::{PatchSupportCase, SupportStatus};
        let ctx = super::web::ctx()?;
        let session = super::web::session().await?;
        super::web::check_csrf(&session, &csrf).await?;
        let p = super::web::require_principal(&ctx, &session).await?;
        let status = match status.trim() {
            "" => None,
            s => Some(
                SupportStatus::parse(s)
                    .ok_or_else(|| AppError::field("status", "is not a support status"))?,
            ),
        };
        let input = PatchSupportCase {
            status,
            publisher_note: Some(publisher_note),
        };
        crate::domain::publisher::support::patch(&ctx, &p, &support_case_id, input).await
    })
    .await
}
