//! The double-entry ledger. Every movement is one `ledger_transactions` row whose entries sum
//! to zero, written in the caller's database transaction together with the balance updates.
//! Money someone could spend twice (an advertiser's balances, a payout hold) can never go
//! negative: each such debit is a guarded update (`balance + delta >= 0`) that fails as a
//! whole when the money is not there, which is atomic on PostgreSQL (row lock) and on SQLite
//! (single writer). Balances are a cache of the entries, checked by [`reconcile`].
//!
//! A paid conversion moves the advertiser's money to spend and, in the same posting, splits
//! its mirror (`SPEND_CLEARING`) into the publisher's earnings and the platform's revenue;
//! see [`legs`] and `docs/decisions.md` "Publisher earnings".

pub mod daily;
pub mod export;
mod kind;
pub mod legs;
mod post;
mod reconcile;

pub use entity::values::TransactionKind;
pub use kind::Kind;
pub use legs::*;
pub use post::{Posting, post, post_many};
pub use reconcile::{Reconciliation, reconcile};

use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use crate::error::AppError;
use crate::model::billing::Balance;
use crate::model::money::{Micros, format_micros};
use entity::ledger_account;

/// One posting: which account and the signed amount.
#[derive(Debug, Clone)]
pub struct Leg {
    pub owner: String,
    pub kind: Kind,
    pub reference: String,
    pub amount_micros: Micros,
    /// Whether a debit is refused below zero (the kind's rule unless set otherwise).
    pub guarded: bool,
}

impl Leg {
    pub fn new(owner: &str, kind: Kind, reference: &str, amount: impl Into<Micros>) -> Self {
        Self {
            owner: owner.to_owned(),
            kind,
            reference: reference.to_owned(),
            amount_micros: amount.into(),
            guarded: kind::guards_debits(kind),
        }
    }

    /// The debit is refused below zero even where the kind may go negative (a payout may
    /// not take more than is available; a reversal may).
    pub fn floored(mut self) -> Self {
        self.guarded = true;
        self
    }
}

/// Why a posting was refused.
#[derive(Debug)]
pub enum PostError {
    /// The event was posted before (same dedupe key).
    AlreadyPosted,
    /// An account would go negative.
    Insufficient,
    Other(AppError),
}

impl From<PostError> for AppError {
    fn from(e: PostError) -> Self {
        match e {
            PostError::AlreadyPosted => AppError::conflict("this movement was already recorded"),
            PostError::Insufficient => AppError::conflict("the available balance is insufficient")
                .with_code("insufficient_balance"),
            PostError::Other(e) => e,
        }
    }
}

impl From<AppError> for PostError {
    fn from(e: AppError) -> Self {
        PostError::Other(e)
    }
}

impl From<sea_orm::DbErr> for PostError {
    fn from(e: sea_orm::DbErr) -> Self {
        PostError::Other(e.into())
    }
}

/// The sum of an owner's accounts per kind (kinds it never posted to are absent), summed by
/// the database: an advertiser holds a reserved and a spent account per campaign, so loading
/// the rows would make every balance read (wallet cards, approvals) grow with its campaigns.
pub async fn balances_by_kind<C: ConnectionTrait>(
    db: &C,
    owner: &str,
) -> Result<std::collections::HashMap<Kind, i64>, AppError> {
    let rows = ledger_account::Entity::find()
        .filter(ledger_account::Column::OwnerAccountId.eq(owner.to_owned()))
        .select_only()
        .column(ledger_account::Column::Kind)
        .column_as(
            sea_orm::sea_query::Expr::cust("CAST(SUM(balance_micros) AS BIGINT)"),
            "total",
        )
        .group_by(ledger_account::Column::Kind)
        .into_tuple::<(Kind, Option<i64>)>()
        .all(db)
        .await?;
    Ok(rows
        .into_iter()
        .map(|(kind, total)| (kind, total.unwrap_or(0)))
        .collect())
}

/// The advertiser's balance: available, reserved (all campaigns) and spent.
pub async fn balance<C: ConnectionTrait>(db: &C, advertiser_id: &str) -> Result<Balance, AppError> {
    let sums = balances_by_kind(db, advertiser_id).await?;
    let sum = |k: Kind| sums.get(&k).copied().unwrap_or(0);
    let (available, reserved, spent) =
        (sum(Kind::Available), sum(Kind::Reserved), sum(Kind::Spent));
    let owed = -sum(Kind::Owed);
    Ok(Balance {
        advertiser_id: advertiser_id.to_owned(),
        currency: super::CURRENCY.to_owned(),
        available_micros: Micros(available),
        available: format_micros(available),
        reserved_micros: Micros(reserved),
        reserved: format_micros(reserved),
        spent_micros: Micros(spent),
        spent: format_micros(spent),
        debt_micros: Micros(owed),
        debt: format_micros(owed),
    })
}

/// The reserve currently held for one campaign.
pub async fn reserved_for<C: ConnectionTrait>(
    db: &C,
    advertiser_id: &str,
    campaign_id: &str,
) -> Result<i64, AppError> {
    account_balance(db, advertiser_id, Kind::Reserved, campaign_id).await
}

/// One ledger account's balance (0 when it has never been posted to).
pub async fn account_balance<C: ConnectionTrait>(
    db: &C,
    owner: &str,
    kind: Kind,
    reference: &str,
) -> Result<i64, AppError> {
    Ok(find_account(db, owner, kind, reference)
        .await?
        .map_or(0, |a| a.balance_micros))
}

/// One ledger account, if it was ever posted to.
pub async fn find_account<C: ConnectionTrait>(
    db: &C,
    owner: &str,
    kind: Kind,
    reference: &str,
) -> Result<Option<ledger_account::Model>, AppError> {
    Ok(ledger_account::Entity::find()
        .filter(ledger_account::Column::OwnerAccountId.eq(owner.to_owned()))
        .filter(ledger_account::Column::Kind.eq(kind.as_str()))
        .filter(ledger_account::Column::ReferenceId.eq(reference.to_owned()))
        .one(db)
        .await?)
}
