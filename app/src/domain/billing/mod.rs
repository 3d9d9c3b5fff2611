//! The advertiser wallet: a double-entry ledger in integer micros, billing profiles,
//! fundings by wire and payment provider. One wallet per advertiser, shared by survey and
//! offer campaigns.

pub mod funding;
pub mod invoices;
pub mod ledger;
pub mod payprovider;
pub mod profile;
pub mod revenue;
pub mod share;

use crate::domain::Principal;
use crate::error::AppError;
use crate::model::Role;

/// The wallet currency. Every amount is USD micros.
pub const CURRENCY: &str = "USD";
/// Smallest wire funding: 100 USD.
pub const WIRE_MINIMUM_MICROS: i64 = 100_000_000;
/// Smallest payment-provider funding: 10 USD.
pub const PAYPROVIDER_MINIMUM_MICROS: i64 = 10_000_000;
/// Largest single funding: 1,000,000 USD.
pub const FUNDING_MAXIMUM_MICROS: i64 = 1_000_000_000_000;

/// The advertiser a billing call acts for: the caller itself, or (administrators only) the
/// `advertiserId` they name. An advertiser naming another advertiser is refused.
pub async fn acting_advertiser(
    ctx: &crate::domain::Ctx,
    actor: &Principal,
    selected: Option<&str>,
) -> Result<String, AppError> {
    actor.require_approved_advertiser()?;
    match (actor.role.is_admin(), selected.filter(|s| !s.is_empty())) {
        (true, Some(id)) => {
            let acc = crate::domain::accounts::get(ctx, id)
                .await
                .map_err(|_| AppError::field("advertiserId", "no such advertiser"))?;
            if acc.role != Role::Advertiser {
                return Err(AppError::field(
                    "advertiserId",
                    "is not an advertiser account",
                ));
            }
            Ok(acc.id)
        }
        (true, None) => Err(AppError::field(
            "advertiserId",
            "is required for administrators",
        )),
        (false, Some(id)) if id != actor.account_id => Err(AppError::forbidden(
            "advertisers act only on their own wallet",
        )),
        (false, _) => Ok(actor.account_id.clone()),
    }
}

/// Validates a funding currency: the wallet is USD.
pub fn check_currency(raw: &str) -> Result<String, String> {
    let c = raw.trim().to_ascii_uppercase();
    if c.len() != 3 || !c.chars().all(|ch| ch.is_ascii_alphabetic()) {
        return Err("must be a three-letter currency code".to_owned());
    }
    if c != CURRENCY {
        return Err(format!(
            "the wallet is held in {CURRENCY}; {c} is not accepted"
        ));
    }
    Ok(c)
}

/// `GET /performance-marketing/v2/billing/ledger/export`: the advertiser's wallet accounts
/// (available, reserved per campaign, spent per campaign, and what it owes after a refund
/// or chargeback) entry by entry; the lines add up to the balance.
pub async fn ledger_export(
    ctx: &crate::domain::Ctx,
    actor: &Principal,
    selected: Option<&str>,
    q: &crate::model::billing::LedgerExportQuery,
) -> Result<crate::model::billing::LedgerExport, AppError> {
    use ledger::{Kind, export};
    let advertiser = acting_advertiser(ctx, actor, selected).await?;
    let range = export::DayRange::of(q.from, q.to)?;
    let kinds = [Kind::Available, Kind::Reserved, Kind::Spent, Kind::Owed];
    export::export(&ctx.db, &advertiser, &kinds, &range, q).await
}
