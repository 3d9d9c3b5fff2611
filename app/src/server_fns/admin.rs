//! Administrator actions from the dashboard.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::AccountView;

#[server(prefix = "/fn", endpoint = "pending_advertisers")]
pub async fn pending_advertisers() -> Result<Vec<AccountView>, AppError> {
    super::web::run(async move {
        use super::web;
        let ctx = web::ctx()?;
        let session = web::session().await?;
        let p = web::require_principal(&ctx, &session).await?;
        // The queue's first page: the 100 oldest (`Page::default`).
        let page = crate::domain::paging::Page::default();
        crate::domain::accounts::pending_advertisers(&ctx, &p, &page)
            .await
            .map(|list| list.items)
    })
    .await
}

#[server(prefix = "/fn", endpoint = "approve_advertiser")]
pub async fn approve_advertiser(account_id: String, csrf: String) -> Result<(), AppError> {
    super::web::run(async move {
        use super::web;
        let ctx = web::ctx()?;
        let session = web::session().await?;
        web::check_csrf(&session, &csrf).await?;
        let p = web::require_principal(&ctx, &session).await?;
        crate::domain::accounts::approve_advertiser(&ctx, &p, &account_id).await?;
        Ok(())
    })
    .await
}

// ---- survey campaign review --------------------------------------------------------------

/// Survey campaigns awaiting approval, oldest first.
#[server(prefix = "/fn", endpoint = "admin_survey_queue")]
pub async fn survey_review_queue()
-> Result<crate::model::survey::campaign::SurveyCampaignList, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        let page = crate::domain::paging::Page::default();
        crate::domain::surveys::campaigns::review::pending(&ctx, &p, &page).await
    })
    .await
}

/// One decision on a survey campaign awaiting approval: `APPROVE` the `revision` the
/// administrator looked at (a newer one is refused), `REJECT` back to DRAFT with `reason`,
/// or `PAID_EXTERNALLY` (paid outside the wallet, so it can then be approved).
#[server(prefix = "/fn", endpoint = "admin_review_survey")]
pub async fn review_survey_campaign(
    campaign_id: String,
    revision: i64,
    decision: String,
    reason: Option<String>,
    csrf: String,
) -> Result<String, AppError> {
    super::web::run(async move {
        use crate::domain::surveys::campaigns::review;
        let (ctx, _, p) = super::web::writer(&csrf).await?;
        let id = campaign_id.as_str();
        Ok(match decision.as_str() {
            "APPROVE" => {
                let c = review::approve(&ctx, &p, id, Some(revision)).await?;
                format!("{} is now LIVE.", c.name)
            }
            "REJECT" => {
                let reason = reason.unwrap_or_default();
                let c = review::reject(&ctx, &p, id, &reason).await?;
                format!("{} went back to the advertiser as a DRAFT.", c.name)
            }
            "PAID_EXTERNALLY" => {
                let c = review::record_external_payment(&ctx, &p, id).await?;
                format!("{} is recorded as paid outside the wallet.", c.name)
            }
            _ => {
                return Err(AppError::field(
                    "decision",
                    "must be APPROVE, REJECT or PAID_EXTERNALLY",
                ));
            }
        })
    })
    .await
}
