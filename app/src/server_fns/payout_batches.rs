//! Sending approved payouts from `/admin/payouts`: the same domain calls as
//! `/admin/v1/payout-batches` (PayPal Payouts, `pain.001` bank files), with form fields
//! parsed here. The bank file itself is a plain form post to
//! `/admin/payout-batches/{id}/file`, answered as a download.

use leptos::prelude::*;

use crate::error::AppError;
#[cfg(feature = "ssr")]
use crate::model::publisher::payout_batches::{
    FailedPayout, PayoutBatchConfirmation, PayoutBatchRequest, PayoutRail,
};
use crate::model::publisher::payout_batches::{PayoutBatch, PayoutBatchList};

/// The newest payout batches (50).
#[server(prefix = "/fn", endpoint = "payout_batches")]
pub async fn payout_batches() -> Result<PayoutBatchList, AppError> {
    super::web::read(|ctx, p| async move {
        let page = crate::domain::paging::Page::parse(
            Some(50),
            None,
            crate::domain::payouts::rails::ID_PREFIX,
        )?;
        crate::domain::payouts::rails::list(&ctx, &p, &page).await
    })
    .await
}

/// Sends every approved payout of a rail (`PAYPAL` or `BANK_FILE`), with the
/// administrator's second-factor code in `otp` when it has a factor.
#[server(prefix = "/fn", endpoint = "send_payout_batch")]
pub async fn send_payout_batch(
    rail: String,
    otp: Option<String>,
    csrf: String,
) -> Result<PayoutBatch, AppError> {
    super::web::write(&csrf, |ctx, p| async move {
        let rail = PayoutRail::parse(&rail)
            .ok_or_else(|| AppError::field("rail", "must be PAYPAL or BANK_FILE"))?;
        let code = otp.as_deref().filter(|c| !c.trim().is_empty());
        let req = PayoutBatchRequest {
            rail,
            payout_ids: None,
        };
        crate::domain::payouts::rails::create(&ctx, &p, req, code).await
    })
    .await
}

/// Confirms a bank file with the bank's reference; `failed` names the refused transfers,
/// one `payout id: reason` per line.
#[server(prefix = "/fn", endpoint = "confirm_payout_batch")]
pub async fn confirm_payout_batch(
    batch_id: String,
    reference: String,
    failed: Option<String>,
    csrf: String,
) -> Result<PayoutBatch, AppError> {
    super::web::write(&csrf, |ctx, p| async move {
        let failed = failed
            .unwrap_or_default()
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .take(crate::domain::payouts::rails::MAX_BATCH as usize + 1)
            .map(|l| {
                let (id, reason) = l.split_once(':').unwrap_or((l, "refused by the bank"));
                FailedPayout {
                    payout_id: id.trim().to_owned(),
                    reason: reason.trim().to_owned(),
                }
            })
            .collect();
        let req = PayoutBatchConfirmation { reference, failed };
        crate::domain::payouts::rails::bank_file::confirm(&ctx, &p, &batch_id, req).await
    })
    .await
}

/// Asks PayPal about a PayPal batch now.
#[server(prefix = "/fn", endpoint = "refresh_payout_batch")]
pub async fn refresh_payout_batch(batch_id: String, csrf: String) -> Result<PayoutBatch, AppError> {
    super::web::write(&csrf, |ctx, p| async move {
        crate::domain::payouts::rails::paypal::refresh(&ctx, &p, &batch_id).await
    })
    .await
}
