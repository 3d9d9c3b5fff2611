//! The publisher's support inbox from the dashboard: the cases users open through the SDK.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::publisher::ops::{SupportCase, SupportCaseList};

/// Cases on the publisher's placements, newest first, optionally one status; 50 a page
/// (`cursor`: the previous page's `nextCursor`).
#[server(prefix = "/fn", endpoint = "publisher_support_inbox")]
pub async fn support_inbox(
    status: Option<String>,
    cursor: Option<String>,
) -> Result<SupportCaseList, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        let page = crate::domain::paging::Page::parse(Some(50), cursor.as_deref(), "case")?;
        crate::domain::delivery::support_cases::console::list(
            &ctx,
            &p,
            status.as_deref(),
            None,
            &page,
        )
        .await
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
    crate::server_fns::web::run(async move {
        use crate::model::publisher::ops::{PatchSupportCase, SupportStatus};
        let ctx = crate::server_fns::web::ctx()?;
        let session = crate::server_fns::web::session().await?;
        crate::server_fns::web::check_csrf(&session, &csrf).await?;
        let p = crate::server_fns::web::require_principal(&ctx, &session).await?;
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
        crate::domain::delivery::support_cases::console::patch(&ctx, &p, &support_case_id, input)
            .await
    })
    .await
}
