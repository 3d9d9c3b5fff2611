//! The double-entry ledger. Every movement is one `ledger_transactions` row whose entries sum
//! to zero, written in the caller's database transaction together with the balance updates.
//! Advertiser accounts can never go negative: each debit is a guarded update
//! (`balance + delta >= 0`) that fails as a whole when the money is not there, which is atomic
//! on PostgreSQL (row lock) and on SQLite (single writer). Balances are a cache of the
//! entries, checked by [`reconcile`].

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait, OnConflict};
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};

use crate::domain::{db, ids::new_id};
use crate::error::AppError;
use crate::model::billing::Balance;
use crate::model::money::{Micros, format_micros};
use entity::{ledger_account, ledger_entry, ledger_transaction};

/// Kinds of ledger accounts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Money the advertiser can spend or reserve.
    Available,
    /// Money held for one campaign (reference = campaign id).
    Reserved,
    /// Money paid out for delivered conversions and completes.
    Spent,
    /// The platform's view of money received from outside (goes negative as funds arrive).
    FundingClearing,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Available => "AVAILABLE",
            Kind::Reserved => "RESERVED",
            Kind::Spent => "SPENT",
            Kind::FundingClearing => "FUNDING_CLEARING",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "AVAILABLE" => Some(Kind::Available),
            "RESERVED" => Some(Kind::Reserved),
            "SPENT" => Some(Kind::Spent),
            "FUNDING_CLEARING" => Some(Kind::FundingClearing),
            _ => None,
        }
    }

    /// Whether the account may hold a negative balance.
    fn may_go_negative(self) -> bool {
        matches!(self, Kind::FundingClearing)
    }
}

/// One posting: which account and the signed amount.
#[derive(Debug, Clone)]
pub struct Leg {
    pub owner: String,
    pub kind: Kind,
    pub reference: String,
    pub amount_micros: Micros,
}

impl Leg {
    pub fn new(owner: &str, kind: Kind, reference: &str, amount: impl Into<Micros>) -> Self {
        Self {
            owner: owner.to_owned(),
            kind,
            reference: reference.to_owned(),
            amount_micros: amount.into(),
        }
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

impl From<sea_orm::DbErr> for PostError {
    fn from(e: sea_orm::DbErr) -> Self {
        PostError::Other(e.into())
    }
}

async fn account_id<C: ConnectionTrait>(
    db: &C,
    leg: &Leg,
    now: DateTime<Utc>,
) -> Result<String, PostError> {
    let find = || {
        ledger_account::Entity::find()
            .filter(ledger_account::Column::OwnerAccountId.eq(leg.owner.clone()))
            .filter(ledger_account::Column::Kind.eq(leg.kind.as_str()))
            .filter(ledger_account::Column::ReferenceId.eq(leg.reference.clone()))
    };
    if let Some(a) = find().one(db).await? {
        return Ok(a.id);
    }
    let row = ledger_account::ActiveModel {
        id: Set(new_id("lac")),
        owner_account_id: Set(leg.owner.clone()),
        kind: Set(leg.kind.as_str().to_owned()),
        reference_id: Set(leg.reference.clone()),
        balance_micros: Set(0),
        created_at: Set(now),
    };
    ledger_account::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([
                ledger_account::Column::OwnerAccountId,
                ledger_account::Column::Kind,
                ledger_account::Column::ReferenceId,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    find()
        .one(db)
        .await?
        .map(|a| a.id)
        .ok_or_else(|| PostError::Other(AppError::internal()))
}

/// Undoes, inside the caller's transaction, what a posting refused for lack of money had
/// already done: the legs moved before the one that found too little, and the transaction
/// row holding the once-only key. Callers carry on after a refusal (a conversion becomes
/// NO_BUDGET and is committed), so without this a half-moved posting would be committed and
/// the key spent: a later attempt, once funded, would count as already posted.
async fn take_back<C: ConnectionTrait>(
    db: &C,
    tx_id: &str,
    moved: &[(String, i64)],
) -> Result<(), PostError> {
    for (acc, amount) in moved {
        ledger_account::Entity::update_many()
            .col_expr(
                ledger_account::Column::BalanceMicros,
                Expr::col(ledger_account::Column::BalanceMicros).sub(*amount),
            )
            .filter(ledger_account::Column::Id.eq(acc.clone()))
            .exec(db)
            .await?;
    }
    ledger_transaction::Entity::delete_by_id(tx_id.to_owned())
        .exec(db)
        .await?;
    Ok(())
}

/// Posts one balanced movement. `dedupe_key` (e.g. `funding_credit:fnd_…`) makes it
/// idempotent: a second post with the same key is [`PostError::AlreadyPosted`].
pub async fn post<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    kind: &str,
    owner: &str,
    reference: (&str, &str),
    dedupe_key: &str,
    legs: &[Leg],
) -> Result<String, PostError> {
    if legs.is_empty()
        || legs
            .iter()
            .map(|l| i128::from(l.amount_micros.get()))
            .sum::<i128>()
            != 0
    {
        tracing::error!(kind, "unbalanced ledger posting refused");
        return Err(PostError::Other(AppError::internal()));
    }
    let tx_id = new_id("ltx");
    let inserted = ledger_transaction::ActiveModel {
        id: Set(tx_id.clone()),
        kind: Set(kind.to_owned()),
        owner_account_id: Set(owner.to_owned()),
        reference_type: Set(reference.0.to_owned()),
        reference_id: Set(reference.1.to_owned()),
        dedupe_key: Set(dedupe_key.to_owned()),
        memo: Set(None),
        created_at: Set(now),
    }
    .insert(db)
    .await;
    if let Err(e) = inserted {
        return Err(if db::is_unique_violation(&e) {
            PostError::AlreadyPosted
        } else {
            PostError::Other(e.into())
        });
    }
    let mut entries = Vec::with_capacity(legs.len());
    let mut moved: Vec<(String, i64)> = Vec::with_capacity(legs.len());
    for leg in legs {
        let acc = match move_by_key(db, leg).await? {
            Some(acc) => acc,
            None => {
                // No RETURNING, no such account yet, or not enough in it: find or create
                // the account and try again by id, which tells the last case apart.
                let acc = account_id(db, leg, now).await?;
                let update = guarded(
                    ledger_account::Entity::update_many()
                        .filter(ledger_account::Column::Id.eq(acc.clone())),
                    leg,
                );
                if update.exec(db).await?.rows_affected != 1 {
                    take_back(db, &tx_id, &moved).await?;
                    return Err(PostError::Insufficient);
                }
                acc
            }
        };
        moved.push((acc.clone(), leg.amount_micros.get()));
        entries.push(ledger_entry::ActiveModel {
            id: Set(new_id("len")),
            transaction_id: Set(tx_id.clone()),
            ledger_account_id: Set(acc),
            amount_micros: Set(leg.amount_micros.get()),
            created_at: Set(now),
        });
    }
    // The entries in one statement (a posting has two to four legs).
    ledger_entry::Entity::insert_many(entries)
        .exec_without_returning(db)
        .await?;
    Ok(tx_id)
}

/// Adds the leg's amount to its account's balance (refusing to take a non-negative kind
/// below zero).
fn guarded(
    update: sea_orm::UpdateMany<ledger_account::Entity>,
    leg: &Leg,
) -> sea_orm::UpdateMany<ledger_account::Entity> {
    let update = update.col_expr(
        ledger_account::Column::BalanceMicros,
        Expr::col(ledger_account::Column::BalanceMicros).add(leg.amount_micros.get()),
    );
    if !leg.kind.may_go_negative() && leg.amount_micros.is_negative() {
        update.filter(
            Expr::col(ledger_account::Column::BalanceMicros)
                .add(leg.amount_micros.get())
                .gte(0),
        )
    } else {
        update
    }
}

/// Where the database returns updated rows (PostgreSQL): moves the balance of the leg's
/// account found by its key and returns the account id, in one statement instead of a
/// lookup and an update. `None` when the account does not exist yet or the guard refused.
async fn move_by_key<C: ConnectionTrait>(db: &C, leg: &Leg) -> Result<Option<String>, PostError> {
    if !db.support_returning() {
        return Ok(None);
    }
    let update = guarded(
        ledger_account::Entity::update_many()
            .filter(ledger_account::Column::OwnerAccountId.eq(leg.owner.clone()))
            .filter(ledger_account::Column::Kind.eq(leg.kind.as_str()))
            .filter(ledger_account::Column::ReferenceId.eq(leg.reference.clone())),
        leg,
    );
    let rows = update.exec_with_returning(db).await?;
    Ok(match rows.as_slice() {
        [one] => Some(one.id.clone()),
        _ => None,
    })
}

/// The advertiser's balance: available, reserved (all campaigns) and spent.
pub async fn balance<C: ConnectionTrait>(db: &C, advertiser_id: &str) -> Result<Balance, AppError> {
    let rows = ledger_account::Entity::find()
        .filter(ledger_account::Column::OwnerAccountId.eq(advertiser_id.to_owned()))
        .all(db)
        .await?;
    let sum = |k: Kind| {
        rows.iter()
            .filter(|a| Kind::parse(&a.kind) == Some(k))
            .map(|a| a.balance_micros)
            .sum::<i64>()
    };
    let (available, reserved, spent) =
        (sum(Kind::Available), sum(Kind::Reserved), sum(Kind::Spent));
    Ok(Balance {
        advertiser_id: advertiser_id.to_owned(),
        currency: super::CURRENCY.to_owned(),
        available_micros: Micros(available),
        available: format_micros(available),
        reserved_micros: Micros(reserved),
        reserved: format_micros(reserved),
        spent_micros: Micros(spent),
        spent: format_micros(spent),
    })
}

/// Credits external money to an advertiser's available balance.
pub fn funding_legs(advertiser_id: &str, micros: i64) -> Vec<Leg> {
    vec![
        Leg::new("", Kind::FundingClearing, "", -micros),
        Leg::new(advertiser_id, Kind::Available, "", micros),
    ]
}

/// Moves available money into a campaign's reserve.
pub fn reserve_legs(advertiser_id: &str, campaign_id: &str, micros: i64) -> Vec<Leg> {
    vec![
        Leg::new(advertiser_id, Kind::Available, "", -micros),
        Leg::new(advertiser_id, Kind::Reserved, campaign_id, micros),
    ]
}

/// Returns a campaign's unused reserve to available.
pub fn release_legs(advertiser_id: &str, campaign_id: &str, micros: i64) -> Vec<Leg> {
    vec![
        Leg::new(advertiser_id, Kind::Reserved, campaign_id, -micros),
        Leg::new(advertiser_id, Kind::Available, "", micros),
    ]
}

/// Spends from a campaign's reserve (spend is kept per campaign too, for reports).
pub fn spend_legs(advertiser_id: &str, campaign_id: &str, micros: i64) -> Vec<Leg> {
    vec![
        Leg::new(advertiser_id, Kind::Reserved, campaign_id, -micros),
        Leg::new(advertiser_id, Kind::Spent, campaign_id, micros),
    ]
}

/// Pays a late conversion of a paused or ended campaign (its reserve was released) straight
/// from the available balance.
pub fn late_spend_legs(advertiser_id: &str, campaign_id: &str, micros: i64) -> Vec<Leg> {
    vec![
        Leg::new(advertiser_id, Kind::Available, "", -micros),
        Leg::new(advertiser_id, Kind::Spent, campaign_id, micros),
    ]
}

/// Gives back a reversed conversion's spend to the advertiser's available balance.
pub fn reversal_legs(advertiser_id: &str, campaign_id: &str, micros: i64) -> Vec<Leg> {
    vec![
        Leg::new(advertiser_id, Kind::Spent, campaign_id, -micros),
        Leg::new(advertiser_id, Kind::Available, "", micros),
    ]
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

/// What [`reconcile`] found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Reconciliation {
    /// Accounts whose cached balance differs from the sum of their entries.
    pub drifted_accounts: Vec<String>,
    /// Transactions whose entries do not sum to zero.
    pub unbalanced_transactions: Vec<String>,
    /// Advertiser accounts below zero.
    pub negative_accounts: Vec<String>,
}

/// Checks the whole ledger: balances equal their entries, every transaction balances, no
/// advertiser account is negative. Run by tests and available to operators.
pub async fn reconcile<C: ConnectionTrait>(db: &C) -> Result<Reconciliation, AppError> {
    use std::collections::HashMap;
    let accounts = ledger_account::Entity::find().all(db).await?;
    let entries = ledger_entry::Entity::find().all(db).await?;
    let mut by_account: HashMap<&str, i128> = HashMap::new();
    let mut by_tx: HashMap<&str, i128> = HashMap::new();
    for e in &entries {
        *by_account.entry(e.ledger_account_id.as_str()).or_default() += i128::from(e.amount_micros);
        *by_tx.entry(e.transaction_id.as_str()).or_default() += i128::from(e.amount_micros);
    }
    let mut r = Reconciliation::default();
    for a in &accounts {
        if by_account.get(a.id.as_str()).copied().unwrap_or(0) != i128::from(a.balance_micros) {
            r.drifted_accounts.push(a.id.clone());
        }
        if Kind::parse(&a.kind) != Some(Kind::FundingClearing) && a.balance_micros < 0 {
            r.negative_accounts.push(a.id.clone());
        }
    }
    r.unbalanced_transactions = by_tx
        .into_iter()
        .filter(|(_, s)| *s != 0)
        .map(|(t, _)| t.to_owned())
        .collect();
    Ok(r)
}
