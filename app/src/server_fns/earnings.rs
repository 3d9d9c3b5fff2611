//! Earnings and payouts from the dashboards: the same domain calls as
//! `/publisher/v2/earnings`, `/publisher/v2/payouts` and `/admin/v1/payouts`, with form fields
//! parsed here (amounts come as USD text).

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::publisher::earnings::{EarningsBalance, EarningsMovements};
use crate::model::publisher::payouts::{
    Payout, PayoutList, PayoutProfile, PayoutRun, PayoutRunList,
};
#[cfg(feature = "ssr")]
use crate::model::publisher::payouts::{
    PayoutDecision, PayoutProfileInput, PayoutRequestInput, PayoutRunInput,
};

#[cfg(feature = "ssr")]
use super::web::{reader, writer};

/// A dashboard list page: 50 rows after `cursor`.
#[cfg(feature = "ssr")]
fn page(cursor: Option<String>, prefix: &str) -> Result<crate::domain::paging::Page, AppError> {
    crate::domain::paging::Page::parse(Some(50), cursor.as_deref(), prefix)
}

/// The caller's earnings balance.
#[server(prefix = "/fn", endpoint = "earnings_balance")]
pub async fn my_earnings() -> Result<EarningsBalance, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        crate::domain::earnings::balance::balance(&ctx, &p).await
    })
    .await
}

/// One page of the caller's earnings movements, newest first.
#[server(prefix = "/fn", endpoint = "earnings_movements")]
pub async fn my_earnings_movements(cursor: Option<String>) -> Result<EarningsMovements, AppError> {
    super::web::run(async move {
        use crate::domain::earnings::balance;
        let (ctx, p) = reader().await?;
        balance::movements(&ctx, &p, page(cursor, balance::MOVEMENT_ID_PREFIX)?).await
    })
    .await
}

/// The caller's payout profile (`None` until it is set).
#[server(prefix = "/fn", endpoint = "payout_profile")]
pub async fn my_payout_profile() -> Result<Option<PayoutProfile>, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        match crate::domain::payouts::profile::get(&ctx, &p).await {
            Ok(profile) => Ok(Some(profile)),
            Err(e) if e.status == 404 => Ok(None),
            Err(e) => Err(e),
        }
    })
    .await
}

/// Saves the payout profile.
#[server(prefix = "/fn", endpoint = "save_payout_profile")]
pub async fn save_payout_profile(
    legal_name: String,
    country: String,
    method: String,
    details: String,
    otp: Option<String>,
    csrf: String,
) -> Result<PayoutProfile, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let input = PayoutProfileInput {
            legal_name: Some(legal_name),
            country: Some(country),
            method: Some(method),
            details: Some(details),
        };
        crate::domain::payouts::profile::put(&ctx, &p, input, otp.as_deref()).await
    })
    .await
}

/// Requests a payout of `amount` USD (empty: the whole available balance). A second press
/// is refused by the one-open-payout rule (`payout_open`).
#[server(prefix = "/fn", endpoint = "request_payout")]
pub async fn request_payout(
    amount: Option<String>,
    otp: Option<String>,
    csrf: String,
) -> Result<Payout, AppError> {
    super::web::run(async move {
        use crate::domain::idempotency::IdempotencyKey;
        use crate::model::money::Micros;
        let (ctx, _, p) = writer(&csrf).await?;
        let amount = match amount.as_deref().map(str::trim).filter(|a| !a.is_empty()) {
            None => None,
            Some(a) => Some(Micros(super::publisher::usd_to_micros(a).ok_or_else(
                || AppError::field("amount", "must be an amount in USD, such as 50.00"),
            )?)),
        };
        let key = IdempotencyKey::derived(crate::domain::ids::new_id("dash"));
        let input = PayoutRequestInput {
            amount_micros: amount,
        };
        crate::domain::payouts::requests::request(&ctx, &p, key, input, otp.as_deref())
            .await
            .map(|(payout, _)| payout)
    })
    .await
}

/// One page of the caller's payouts, newest first.
#[server(prefix = "/fn", endpoint = "list_payouts")]
pub async fn list_payouts(cursor: Option<String>) -> Result<PayoutList, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        let page = page(cursor, crate::domain::payouts::ID_PREFIX)?;
        crate::domain::payouts::requests::list(&ctx, &p, page).await
    })
    .await
}

/// Cancels a payout not yet approved.
#[server(prefix = "/fn", endpoint = "cancel_payout")]
pub async fn cancel_payout(payout_id: String, csrf: String) -> Result<Payout, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        crate::domain::payouts::requests::cancel(&ctx, &p, &payout_id).await
    })
    .await
}

/// The administrator's payout queue of one status (default REQUESTED).
#[server(prefix = "/fn", endpoint = "payout_queue")]
pub async fn payout_queue(
    status: Option<String>,
    cursor: Option<String>,
) -> Result<PayoutList, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        let page = page(cursor, crate::domain::payouts::ID_PREFIX)?;
        let status = status.filter(|s| !s.trim().is_empty());
        crate::domain::payouts::decisions::queue(&ctx, &p, status.as_deref(), page).await
    })
    .await
}

/// An administrator's decision on a payout: `approve`, `reject` (with `note` as the
/// reason), `mark-paid` (`note` is the external reference) or `fail` (`note` is the reason).
#[server(prefix = "/fn", endpoint = "decide_payout")]
pub async fn decide_payout(
    payout_id: String,
    decision: String,
    note: Option<String>,
    csrf: String,
) -> Result<Payout, AppError> {
    super::web::run(async move {
        use crate::domain::payouts::decisions;
        let (ctx, _, p) = writer(&csrf).await?;
        let reason = || PayoutDecision {
            reason: note.clone(),
            external_reference: None,
        };
        match decision.as_str() {
            "approve" => decisions::approve(&ctx, &p, &payout_id).await,
            "reject" => decisions::reject(&ctx, &p, &payout_id, reason()).await,
            "fail" => decisions::fail(&ctx, &p, &payout_id, reason()).await,
            "mark-paid" => {
                let d = PayoutDecision {
                    reason: None,
                    external_reference: note.clone(),
                };
                decisions::mark_paid(&ctx, &p, &payout_id, d).await
            }
            _ => Err(AppError::field(
                "decision",
                "must be approve, reject, mark-paid or fail",
            )),
        }
    })
    .await
}

/// The latest monthly runs (administrators).
#[server(prefix = "/fn", endpoint = "payout_runs")]
pub async fn payout_runs() -> Result<PayoutRunList, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        crate::domain::payouts::runs::list(&ctx, &p).await
    })
    .await
}

/// Queues the monthly payout run of `period` (`YYYY-MM`), or again for what is missing.
#[server(prefix = "/fn", endpoint = "start_payout_run")]
pub async fn start_payout_run(period: String, csrf: String) -> Result<PayoutRun, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let input = PayoutRunInput {
            period: Some(period),
        };
        crate::domain::payouts::runs::start(&ctx, &p, input)
            .await
            .map(|(run, _)| run)
    })
    .await
}

/// The months the caller has a statement for, newest first.
#[server(prefix = "/fn", endpoint = "statement_periods")]
pub async fn my_statement_periods()
-> Result<crate::model::publisher::earnings::StatementPeriods, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        crate::domain::earnings::statements::periods(&ctx, &p).await
    })
    .await
}

/// The caller's statement of `period` (YYYY-MM).
#[server(prefix = "/fn", endpoint = "statement")]
pub async fn my_statement(
    period: String,
) -> Result<crate::model::publisher::earnings::EarningsStatement, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        crate::domain::earnings::statements::month(&ctx, &p, period.trim()).await
    })
    .await
}

/// The caller's earnings per day of the last 30 days.
#[server(prefix = "/fn", endpoint = "earnings_daily")]
pub async fn my_earnings_daily()
-> Result<crate::model::publisher::earnings::EarningsDaily, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        crate::domain::earnings::statements::daily(&ctx, &p, None, None).await
    })
    .await
}

/// The platform's revenue per day of the last 30 days (administrators).
#[server(prefix = "/fn", endpoint = "platform_revenue")]
pub async fn platform_revenue() -> Result<crate::model::billing::RevenueReport, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        crate::domain::billing::revenue::by_day(&ctx, &p, None, None).await
    })
    .await
}

/// The flash scope of opened payout details (the administrators' payouts page).
#[cfg(feature = "ssr")]
const DETAILS_SCOPE: &str = "admin-payout-details";

/// An administrator opens a payout's payment details to send the money (with a current
/// second-factor code in `otp` when the administrator has a factor); each opening is an
/// audit entry. A plain form post finds them on the page it returns to, once.
#[server(prefix = "/fn", endpoint = "open_payout_details")]
pub async fn open_payout_details(
    payout_id: String,
    otp: Option<String>,
    csrf: String,
) -> Result<crate::model::OneTimeSecret, AppError> {
    super::web::run(async move {
        let (ctx, session, p) = writer(&csrf).await?;
        let code = otp.as_deref().filter(|c| !c.trim().is_empty());
        let d = crate::domain::payouts::details::open(&ctx, &p, &payout_id, code).await?;
        let label = format!(
            "Payout {}: {} {} by {}",
            d.payout_id,
            d.amount_micros.amount_in(&d.currency),
            d.currency,
            d.method.as_str()
        );
        let value = format!("{}\n{} ({})", d.details, d.legal_name, d.country);
        super::flash::put_secret(&ctx, &session, DETAILS_SCOPE, &label, &value).await?;
        Ok(crate::model::OneTimeSecret { label, value })
    })
    .await
}

/// The payout details a plain form post opened, for the page it returned to (once).
#[server(prefix = "/fn", endpoint = "opened_payout_details")]
pub async fn opened_payout_details() -> Result<Option<crate::model::OneTimeSecret>, AppError> {
    super::web::run(async move {
        let (ctx, p) = reader().await?;
        p.require_admin()?;
        let session = super::web::session().await?;
        super::flash::take_secret(&ctx, &session, DETAILS_SCOPE).await
    })
    .await
}
