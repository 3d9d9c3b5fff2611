//! The whole-ledger check run by tests and offered to operators.

use std::collections::HashMap;

use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

use super::Kind;
use crate::error::AppError;
use entity::{conversion, ledger_account, ledger_entry};

/// What [`reconcile`] found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Reconciliation {
    /// Accounts whose cached balance differs from the sum of their entries.
    pub drifted_accounts: Vec<String>,
    /// Transactions whose entries do not sum to zero.
    pub unbalanced_transactions: Vec<String>,
    /// Accounts below zero whose kind may not go negative.
    pub negative_accounts: Vec<String>,
    /// The sum of every balance (zero in a double-entry ledger).
    pub total_micros: i128,
    /// Campaigns whose spend (SPENT) and its mirror (SPEND_CLEARING) do not cancel out.
    /// Campaigns with spend from before publisher earnings existed have no mirror and are
    /// not listed.
    pub mirror_mismatches: Vec<String>,
    /// `publisher|campaign` whose pending earnings differ from the sum of its conversions
    /// still in the hold.
    pub pending_mismatches: Vec<String>,
}

/// Checks the whole ledger: balances equal their entries, every transaction and the whole
/// ledger balance, no account is negative that may not be, every campaign's spend is
/// mirrored and pending earnings match the conversions in the hold. It reads every row, so
/// it is for tests and an operator's occasional check, not for a request path.
pub async fn reconcile<C: ConnectionTrait>(db: &C) -> Result<Reconciliation, AppError> {
    let accounts = ledger_account::Entity::find().all(db).await?;
    let entries = ledger_entry::Entity::find().all(db).await?;
    let mut by_account: HashMap<&str, i128> = HashMap::new();
    let mut by_tx: HashMap<&str, i128> = HashMap::new();
    for e in &entries {
        *by_account.entry(e.ledger_account_id.as_str()).or_default() += i128::from(e.amount_micros);
        *by_tx.entry(e.transaction_id.as_str()).or_default() += i128::from(e.amount_micros);
    }
    let mut r = Reconciliation::default();
    let mut mirror: HashMap<&str, (i128, bool)> = HashMap::new();
    let mut pending: HashMap<(String, String), i128> = HashMap::new();
    for a in &accounts {
        if by_account.get(a.id.as_str()).copied().unwrap_or(0) != i128::from(a.balance_micros) {
            r.drifted_accounts.push(a.id.clone());
        }
        if a.balance_micros < 0 && !super::kind::may_go_negative(a.kind) {
            r.negative_accounts.push(a.id.clone());
        }
        r.total_micros += i128::from(a.balance_micros);
        match a.kind {
            Kind::Spent => {
                mirror.entry(a.reference_id.as_str()).or_default().0 +=
                    i128::from(a.balance_micros);
            }
            Kind::SpendClearing => {
                let m = mirror.entry(a.reference_id.as_str()).or_default();
                m.0 += i128::from(a.balance_micros);
                m.1 = true;
            }
            Kind::PublisherPending => {
                *pending
                    .entry((a.owner_account_id.clone(), a.reference_id.clone()))
                    .or_default() += i128::from(a.balance_micros);
            }
            _ => {}
        }
    }
    r.mirror_mismatches = mirror
        .into_iter()
        .filter(|(_, (sum, mirrored))| *mirrored && *sum != 0)
        .map(|(c, _)| c.to_owned())
        .collect();
    let held = conversion::Entity::find()
        .filter(
            conversion::Column::EarningsState
                .eq(crate::model::publisher::earnings::EarningsState::Pending.as_str()),
        )
        .all(db)
        .await?;
    for c in held {
        *pending
            .entry((c.publisher_id.unwrap_or_default(), c.campaign_id))
            .or_default() -= i128::from(c.publisher_earnings_micros);
    }
    r.pending_mismatches = pending
        .into_iter()
        .filter(|(_, v)| *v != 0)
        .map(|((p, c), _)| format!("{p}|{c}"))
        .collect();
    r.unbalanced_transactions = by_tx
        .into_iter()
        .filter(|(_, s)| *s != 0)
        .map(|(t, _)| t.to_owned())
        .collect();
    Ok(r)
}
