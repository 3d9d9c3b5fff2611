//! Administrator review of offer campaigns from the admin page: the queue, approve, reject
//! with a reason and the live-test verification of measurement-partner campaigns.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::model::campaign::*;

#[cfg(feature = "ssr")]
use crate::server_fns::campaigns::support;

/// A campaign awaiting review, with the advertiser it belongs to.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CampaignReviewItem {
    pub campaign: Campaign,
    pub company_name: String,
    pub email: String,
    /// What the pending revision changes against the live one (empty for a new campaign).
    pub changes: Vec<RevisionChange>,
}

/// IN_REVIEW campaigns and live ones with a pending revision, oldest first.
#[server(prefix = "/fn", endpoint = "admin_campaign_queue")]
pub async fn campaign_review_queue() -> Result<Vec<CampaignReviewItem>, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        let page = crate::domain::paging::Page::default();
        let queue = crate::domain::campaigns::lifecycle::review_queue(&ctx, &p, &page).await?;
        let mut out = Vec::with_capacity(queue.items.len());
        for campaign in queue.items {
            let (company_name, email) =
                match crate::domain::accounts::get(&ctx, &campaign.advertiser_id).await {
                    Ok(a) => (a.company_name, a.email),
                    Err(_) => (String::new(), String::new()),
                };
            let changes =
                crate::domain::campaigns::review_diff::changes(&ctx, &p, &campaign.campaign_id)
                    .await?;
            out.push(CampaignReviewItem {
                campaign,
                company_name,
                email,
                changes,
            });
        }
        Ok(out)
    })
    .await
}

/// The submit button carries `decision`: APPROVE, REJECT (with `reason`) or VERIFY (the
/// live test of a measurement-partner campaign, `reason` kept as the note).
#[server(prefix = "/fn", endpoint = "admin_review_campaign")]
pub async fn review_offer_campaign(
    campaign_id: String,
    decision: String,
    reason: Option<String>,
    revision: Option<i64>,
    csrf: String,
) -> Result<Campaign, AppError> {
    crate::server_fns::web::run(async move {
        use crate::domain::campaigns::lifecycle;
        let (ctx, _, p) = support::writer(&csrf).await?;
        let id = campaign_id.trim();
        match decision.trim() {
            // The review page always names the revision it showed; an approval without it
            // could approve content nobody looked at. (The JSON route keeps CONTRACT.md's
            // optional body.)
            "APPROVE" => match revision {
                Some(r) => lifecycle::approve(&ctx, &p, id, Some(r)).await,
                None => Err(AppError::field(
                    "revision",
                    "name the revision you reviewed (reload the review page)",
                )),
            },
            "REJECT" => {
                let req = RejectCampaignRequest {
                    reason: reason.unwrap_or_default(),
                };
                lifecycle::reject(&ctx, &p, id, req).await
            }
            "VERIFY" => {
                let req = VerificationRequest {
                    note: support::text(reason),
                };
                lifecycle::verify_mmp(&ctx, &p, id, req).await
            }
            _ => Err(AppError::field(
                "decision",
                "must be APPROVE, REJECT or VERIFY",
            )),
        }
    })
    .await
}
