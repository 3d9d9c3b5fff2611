//! Payouts to publishers (issue 34). A payout sets its amount aside from the publisher's
//! AVAILABLE earnings into PAYOUT_HELD when it is requested (by the publisher or by an
//! administrator's monthly run), an administrator approves it, marks it paid with the bank's
//! or payment service's reference (PAYOUT_HELD → PAYOUT_CLEARING) or fails it with a reason,
//! which returns the money to the balance; the publisher may cancel it until it is approved.
//! Every step is one transaction with its ledger posting and its audit entry.
//!
//! | From → To | Who | Ledger |
//! |---|---|---|
//! | (none) → REQUESTED | publisher, monthly run | `payout_hold:<id>` |
//! | REQUESTED → CANCELLED | publisher | `payout_return:<id>` |
//! | REQUESTED → APPROVED | administrator | none |
//! | REQUESTED, APPROVED → REJECTED | administrator, reason | `payout_return:<id>` |
//! | APPROVED → PAID | administrator, external reference | `payout_paid:<id>` |
//! | APPROVED → SENDING | administrator sending a batch ([`rails`]) | none |
//! | SENDING → PAID | PayPal's item report, the operator confirming a bank file | `payout_paid:<id>` |
//! | SENDING → APPROVED | PayPal refused the whole batch | none |
//! | APPROVED, PAID → FAILED | administrator with a reason (PAID → FAILED: returned by the bank) | `payout_return:<id>` |
//! | SENDING, PAID → FAILED | PayPal's item report (failed, returned, reversed), a bank file's refused line | `payout_return:<id>` |

pub mod decisions;
pub mod details;
pub mod profile;
pub mod rails;
pub mod requests;
pub mod runs;

use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, DatabaseTransaction, EntityTrait, IntoActiveModel, QuerySelect};

use crate::domain::Principal;
use crate::domain::billing::ledger::{self, Leg};
use crate::error::AppError;
use crate::model::money::{Micros, format_micros};
use crate::model::publisher::payouts::{Payout, PayoutMethod, PayoutStatus};
use entity::payout;

/// The id prefix of payouts (and their cursors).
pub const ID_PREFIX: &str = "pyo";
/// Audit subject of payouts.
const SUBJECT: &str = "payout";

/// The sealing binding of a payout's copy of the payment details.
pub fn seal_binding(id: &str) -> String {
    format!("payouts:{id}")
}

pub(crate) fn view(m: &payout::Model) -> Payout {
    Payout {
        id: m.id.clone(),
        publisher_id: m.publisher_id.clone(),
        status: m.status,
        amount_micros: Micros(m.amount_micros),
        amount: format_micros(m.amount_micros),
        currency: m.currency.clone(),
        method: PayoutMethod::parse(&m.method).unwrap_or(PayoutMethod::BankTransfer),
        details_hint: m.details_hint.clone(),
        run_id: m.run_id.clone(),
        external_reference: m.external_reference.clone(),
        reason: m.reason.clone(),
        created_at: m.created_at,
        approved_at: m.approved_at,
        paid_at: m.paid_at,
        closed_at: m.closed_at,
        first_approved_by: m.first_approved_by.clone(),
        first_approved_at: m.first_approved_at,
        batch_id: m.batch_id.clone(),
    }
}

/// One status change: the payout locked and re-read, its status checked against `from`, the
/// change, its posting and its audit entry, all in `txn`.
struct Transition<'a> {
    from: &'a [PayoutStatus],
    to: PayoutStatus,
    /// The ledger posting's name (`payout_paid`, `payout_return`) and legs.
    posting: Option<(ledger::TransactionKind, Vec<Leg>)>,
    action: &'static str,
    detail: serde_json::Value,
}

/// `actor` is the administrator or publisher deciding, or `None` for the payout rail's own
/// report (PayPal's item status, a confirmed bank file), which the audit entry shows as such.
async fn transition(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    actor: Option<&Principal>,
    id: &str,
    change: impl FnOnce(&payout::Model) -> Transition<'static>,
    edit: impl FnOnce(&mut payout::ActiveModel),
) -> Result<payout::Model, AppError> {
    let row = payout::Entity::find_by_id(id.to_owned())
        .lock_exclusive()
        .one(txn)
        .await?
        .ok_or_else(|| AppError::not_found("payout"))?;
    if let Some(actor) = actor {
        actor.require_owner(&row.publisher_id, "payout")?;
    }
    let t = change(&row);
    let current = row.status;
    if !t.from.contains(&current) {
        return Err(AppError::conflict(format!(
            "a {} payout cannot become {}",
            current.as_str(),
            t.to.as_str()
        ))
        .with_code("invalid_transition"));
    }
    if let Some((kind, legs)) = t.posting {
        ledger::post(
            txn,
            now,
            kind,
            &row.publisher_id,
            (SUBJECT, &row.id),
            &format!("{kind}:{}", row.id),
            &legs,
        )
        .await?;
    }
    let mut a = row.clone().into_active_model();
    a.status = sea_orm::Set(t.to);
    a.updated_at = sea_orm::Set(now);
    edit(&mut a);
    let saved = a.update(txn).await?;
    let mut detail = t.detail;
    detail["amountMicros"] = serde_json::json!(row.amount_micros);
    detail["from"] = serde_json::json!(current.as_str());
    match actor {
        Some(a) => {
            a.audit(txn, now, t.action, (SUBJECT, &row.id), detail)
                .await?
        }
        None => {
            detail["by"] = serde_json::json!("payout rail");
            crate::domain::audit::record(txn, now, None, t.action, (SUBJECT, &row.id), detail)
                .await?
        }
    }
    Ok(saved)
}
