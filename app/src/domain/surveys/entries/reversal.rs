//! Reversal of a paid survey complete by its advertiser (`status: "reversed"` on the signed
//! outcome report, or a line of a bulk reconciliation), inside the reconciliation window.
//! The money moves exactly back (`conversions::reversal`): a wallet campaign's CPI returns
//! to the advertiser's available balance, an externally paid campaign no longer owes it,
//! and the publisher's share leaves its earnings. The entry keeps status COMPLETE, so the
//! quota and the limits still count it: the campaign's reservation was fixed for that many
//! completes, and counting it out would admit one more than the reservation covers.

use chrono::{DateTime, Utc};
use sea_orm::{DatabaseTransaction, EntityTrait};

use crate::domain::billing::ledger::PaidFrom;
use crate::domain::conversions::reported::Settlement;
use crate::domain::conversions::reversal::{Reversal, inside_window, reverse_paid};
use crate::domain::surveys::campaigns::SUBJECT;
use crate::error::AppError;
use crate::model::survey::campaign::PaymentStatus;
use entity::values::EntryStatus;
use entity::{conversion, survey_campaign as survey, survey_entry as entry};

/// What a reversal of a complete found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::domain) enum CompleteReversal {
    /// Reversed now.
    Reversed,
    /// It had been reversed before: nothing changed.
    AlreadyReversed,
}

/// Why a complete cannot be reversed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::domain) enum NotReversible {
    /// Not a paid complete (another outcome, a test transaction or an unpaid complete).
    NotPaid,
    /// Later than the reconciliation window after the complete.
    OutsideWindow,
}

impl NotReversible {
    pub(in crate::domain) fn refusal(self) -> AppError {
        match self {
            NotReversible::NotPaid => AppError::conflict("only a paid complete can be reversed")
                .with_code("transaction_not_paid"),
            NotReversible::OutsideWindow => {
                AppError::conflict("the reconciliation window of this transaction has closed")
                    .with_code("reconciliation_window_closed")
            }
        }
    }
}

/// The paid conversion of entry `e` and whether it can be reversed now; the caller holds
/// the survey campaign `m` locked.
pub(in crate::domain) async fn reversible(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    window: chrono::Duration,
    m: &survey::Model,
    e: &entry::Model,
) -> Result<Result<conversion::Model, NotReversible>, AppError> {
    let Some(conversion_id) = e.conversion_id.clone().filter(|_| !e.test) else {
        return Ok(Err(NotReversible::NotPaid));
    };
    if e.status != EntryStatus::Complete || paid_from(m).is_none() {
        return Ok(Err(NotReversible::NotPaid));
    }
    let Some(c) = conversion::Entity::find_by_id(conversion_id)
        .one(txn)
        .await?
    else {
        return Ok(Err(NotReversible::NotPaid));
    };
    if c.settlement != Settlement::Reversed && !inside_window(&c, now, window) {
        return Ok(Err(NotReversible::OutsideWindow));
    }
    Ok(Ok(c))
}

/// Whether entry `e` is a complete whose payment was reversed.
pub(in crate::domain) async fn was_reversed(
    txn: &DatabaseTransaction,
    e: &entry::Model,
) -> Result<bool, AppError> {
    let Some(conversion_id) = e.conversion_id.clone() else {
        return Ok(false);
    };
    let c = conversion::Entity::find_by_id(conversion_id)
        .one(txn)
        .await?;
    Ok(c.is_some_and(|c| c.settlement == Settlement::Reversed))
}

/// Reverses the complete whose conversion `c` [`reversible`] found, in `txn`.
pub(in crate::domain) async fn reverse_complete(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    m: &survey::Model,
    c: &conversion::Model,
) -> Result<CompleteReversal, AppError> {
    if c.settlement == Settlement::Reversed {
        return Ok(CompleteReversal::AlreadyReversed);
    }
    let how = Reversal {
        paid_from: paid_from(m).ok_or_else(AppError::internal)?,
        subject: SUBJECT,
        reported_status: entity::values::ReportedStatus::Reversed,
        occurred_at: now,
    };
    reverse_paid(txn, now, c, &how).await?;
    Ok(CompleteReversal::Reversed)
}

/// Where the campaign's completes are paid from (`None`: not paid at all).
fn paid_from(m: &survey::Model) -> Option<PaidFrom> {
    match m.payment_status {
        PaymentStatus::Wallet => Some(PaidFrom::Reserve),
        PaymentStatus::External => Some(PaidFrom::External),
        PaymentStatus::Unpaid => None,
    }
}
