//! Writing one balanced posting: its transaction row (the once-only key), the balance
//! moves and the entries, in the caller's database transaction.
//!
//! Cost: a guarded debit is one statement where the database returns updated rows
//! (PostgreSQL) and two otherwise (a lookup, then the update by id). Every other leg of the
//! posting moves together in one more statement (two without RETURNING), however many there
//! are, so the publisher and platform legs of a conversion add no statement to the
//! settlement's hot path.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{CaseStatement, Condition, Expr, ExprTrait, OnConflict};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};

use super::{Kind, Leg, PostError, TransactionKind};
use crate::domain::{db, ids::new_id};
use crate::error::AppError;
use crate::model::money::Micros;
use entity::{ledger_account, ledger_entry, ledger_transaction};

/// The identity of an account: owner, kind and reference.
type Key = (String, Kind, String);

fn key_of(leg: &Leg) -> Key {
    (leg.owner.clone(), leg.kind, leg.reference.clone())
}

fn matches_key(k: &Key) -> Condition {
    Condition::all()
        .add(ledger_account::Column::OwnerAccountId.eq(k.0.clone()))
        .add(ledger_account::Column::Kind.eq(k.1))
        .add(ledger_account::Column::ReferenceId.eq(k.2.clone()))
}

async fn account_id<C: ConnectionTrait>(
    db: &C,
    leg: &Leg,
    now: DateTime<Utc>,
) -> Result<String, PostError> {
    let k = key_of(leg);
    let find = || ledger_account::Entity::find().filter(matches_key(&k));
    if let Some(a) = find().one(db).await? {
        return Ok(a.id);
    }
    let row = ledger_account::ActiveModel {
        id: Set(new_id("lac")),
        owner_account_id: Set(leg.owner.clone()),
        kind: Set(leg.kind),
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
/// rows holding the once-only keys. Callers carry on after a refusal (a conversion becomes
/// NO_BUDGET and is committed), so without this a half-moved posting would be committed and
/// the key spent: a later attempt, once funded, would count as already posted.
async fn take_back<C: ConnectionTrait>(
    db: &C,
    tx_ids: &[String],
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
    ledger_transaction::Entity::delete_many()
        .filter(ledger_transaction::Column::Id.is_in(tx_ids.iter().cloned()))
        .exec(db)
        .await?;
    Ok(())
}

/// One balanced movement to write: what [`post`] takes, as a value that can wait in a
/// batch ([`post_many`]).
#[derive(Debug, Clone)]
pub struct Posting {
    pub kind: TransactionKind,
    /// The account the movement is about (the advertiser, the publisher).
    pub owner: String,
    /// What it is about: `(type, id)`, e.g. `("offer_campaign", "cmp_…")`.
    pub reference: (String, String),
    pub dedupe_key: String,
    pub legs: Vec<Leg>,
}

/// Posts one balanced movement. `dedupe_key` (e.g. `funding_credit:fnd_…`) makes it
/// idempotent: a second post with the same key is [`PostError::AlreadyPosted`]. Guarded
/// debits move first, so a refusal leaves the other legs unmoved.
pub async fn post<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    kind: TransactionKind,
    owner: &str,
    reference: (&str, &str),
    dedupe_key: &str,
    legs: &[Leg],
) -> Result<String, PostError> {
    let one = Posting {
        kind,
        owner: owner.to_owned(),
        reference: (reference.0.to_owned(), reference.1.to_owned()),
        dedupe_key: dedupe_key.to_owned(),
        legs: legs.to_vec(),
    };
    post_many(db, now, std::slice::from_ref(&one))
        .await?
        .pop()
        .ok_or_else(|| PostError::Other(AppError::internal()))
}

/// Posts several movements as if one after the other, in as many statements as one: the
/// transaction rows in one insert, each account moved once by the sum of its legs, the
/// entries in one insert. All or nothing: a refused guard or a key posted before refuses
/// the whole batch (the caller, which holds the accounts' lock, knows the money is there).
/// Returns the transaction ids in the postings' order.
pub async fn post_many<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    postings: &[Posting],
) -> Result<Vec<String>, PostError> {
    for p in postings {
        let sum: i128 = p
            .legs
            .iter()
            .map(|l| i128::from(l.amount_micros.get()))
            .sum();
        if p.legs.is_empty() || sum != 0 {
            tracing::error!(kind = %p.kind, "unbalanced ledger posting refused");
            return Err(PostError::Other(AppError::internal()));
        }
    }
    if postings.is_empty() {
        return Ok(Vec::new());
    }
    let tx_ids: Vec<String> = postings.iter().map(|_| new_id("ltx")).collect();
    let rows = postings
        .iter()
        .zip(&tx_ids)
        .map(|(p, id)| ledger_transaction::ActiveModel {
            id: Set(id.clone()),
            kind: Set(p.kind),
            owner_account_id: Set(p.owner.clone()),
            reference_type: Set(p.reference.0.clone()),
            reference_id: Set(p.reference.1.clone()),
            dedupe_key: Set(p.dedupe_key.clone()),
            memo: Set(None),
            created_at: Set(now),
        });
    if let Err(e) = ledger_transaction::Entity::insert_many(rows)
        .exec_without_returning(db)
        .await
    {
        return Err(if db::is_unique_violation(&e) {
            PostError::AlreadyPosted
        } else {
            PostError::Other(e.into())
        });
    }
    let legs: Vec<&Leg> = postings.iter().flat_map(|p| &p.legs).collect();
    let mut ids: HashMap<Key, String> = HashMap::with_capacity(legs.len());
    let mut moved: Vec<(String, i64)> = Vec::new();
    for leg in summed(legs.iter().copied().filter(|l| is_guarded_debit(l))) {
        match move_one(db, &leg, now).await? {
            Some(acc) => {
                moved.push((acc.clone(), leg.amount_micros.get()));
                ids.insert(key_of(&leg), acc);
            }
            None => {
                take_back(db, &tx_ids, &moved).await?;
                return Err(PostError::Insufficient);
            }
        }
    }
    let free = summed(legs.iter().copied().filter(|l| !is_guarded_debit(l)));
    ids.extend(move_together(db, &free.iter().collect::<Vec<_>>(), now).await?);
    let mut entries = Vec::with_capacity(legs.len());
    for (p, tx_id) in postings.iter().zip(&tx_ids) {
        for leg in &p.legs {
            let acc = ids
                .get(&key_of(leg))
                .cloned()
                .ok_or_else(|| PostError::Other(AppError::internal()))?;
            entries.push(ledger_entry::ActiveModel {
                id: Set(new_id("len")),
                transaction_id: Set(tx_id.clone()),
                ledger_account_id: Set(acc),
                amount_micros: Set(leg.amount_micros.get()),
                created_at: Set(now),
            });
        }
    }
    // The entries in one statement.
    ledger_entry::Entity::insert_many(entries)
        .exec_without_returning(db)
        .await?;
    Ok(tx_ids)
}

/// The legs with one leg per account, its amount the sum of theirs (in first-seen order).
fn summed<'a>(legs: impl Iterator<Item = &'a Leg>) -> Vec<Leg> {
    let mut out: Vec<Leg> = Vec::new();
    for leg in legs {
        let k = key_of(leg);
        match out.iter_mut().find(|l| key_of(l) == k) {
            Some(l) => l.amount_micros = Micros(l.amount_micros.get() + leg.amount_micros.get()),
            None => out.push(leg.clone()),
        }
    }
    out
}

/// Whether the leg is a debit its guard may refuse (it moves on its own, before the rest).
fn is_guarded_debit(leg: &Leg) -> bool {
    leg.guarded && leg.amount_micros.is_negative()
}

/// Adds the leg's amount to its account's balance, refusing a guarded debit that would take
/// it below zero.
fn guarded(
    update: sea_orm::UpdateMany<ledger_account::Entity>,
    leg: &Leg,
) -> sea_orm::UpdateMany<ledger_account::Entity> {
    let update = update.col_expr(
        ledger_account::Column::BalanceMicros,
        Expr::col(ledger_account::Column::BalanceMicros).add(leg.amount_micros.get()),
    );
    if is_guarded_debit(leg) {
        update.filter(
            Expr::col(ledger_account::Column::BalanceMicros)
                .add(leg.amount_micros.get())
                .gte(0),
        )
    } else {
        update
    }
}

/// Moves one leg; `None` when its guard refused.
async fn move_one<C: ConnectionTrait>(
    db: &C,
    leg: &Leg,
    now: DateTime<Utc>,
) -> Result<Option<String>, PostError> {
    if db.support_returning() {
        // By key, returning the id: one statement instead of a lookup and an update.
        let rows = guarded(
            ledger_account::Entity::update_many().filter(matches_key(&key_of(leg))),
            leg,
        )
        .exec_with_returning(db)
        .await?;
        if let [one] = rows.as_slice() {
            return Ok(Some(one.id.clone()));
        }
    }
    // No RETURNING, no such account yet, or not enough in it: find or create the account
    // and try again by id, which tells the last case apart.
    let acc = account_id(db, leg, now).await?;
    let update = guarded(
        ledger_account::Entity::update_many().filter(ledger_account::Column::Id.eq(acc.clone())),
        leg,
    );
    Ok((update.exec(db).await?.rows_affected == 1).then_some(acc))
}

/// Moves unguarded legs in one statement (amounts summed per account); returns each
/// account's id. An account that does not exist yet is created first.
async fn move_together<C: ConnectionTrait>(
    db: &C,
    legs: &[&Leg],
    now: DateTime<Utc>,
) -> Result<HashMap<Key, String>, PostError> {
    let mut sums: Vec<(Key, i64, &Leg)> = Vec::with_capacity(legs.len());
    for leg in legs {
        let k = key_of(leg);
        match sums.iter_mut().find(|(s, _, _)| *s == k) {
            Some(s) => s.1 += leg.amount_micros.get(),
            None => sums.push((k, leg.amount_micros.get(), leg)),
        }
    }
    let mut ids = HashMap::with_capacity(sums.len());
    if let [(k, _, leg)] = sums.as_slice() {
        // One account: the single-leg path is as cheap.
        let acc = move_one(db, leg, now)
            .await?
            .ok_or_else(|| PostError::Other(AppError::internal()))?;
        ids.insert(k.clone(), acc);
        return Ok(ids);
    }
    if sums.is_empty() {
        return Ok(ids);
    }
    let any = sums
        .iter()
        .fold(Condition::any(), |c, (k, _, _)| c.add(matches_key(k)));
    let mut missing: Vec<&(Key, i64, &Leg)> = Vec::new();
    if db.support_returning() {
        let case = sums.iter().fold(CaseStatement::new(), |c, (k, amount, _)| {
            c.case(matches_key(k), *amount)
        });
        let rows = ledger_account::Entity::update_many()
            .col_expr(
                ledger_account::Column::BalanceMicros,
                Expr::col(ledger_account::Column::BalanceMicros).add(case.finally(0)),
            )
            .filter(any)
            .exec_with_returning(db)
            .await?;
        for r in rows {
            if let Some((k, _, _)) = sums.iter().find(|(k, _, _)| {
                k.0 == r.owner_account_id && k.1 == r.kind && k.2 == r.reference_id
            }) {
                ids.insert(k.clone(), r.id);
            }
        }
        for s in &sums {
            if !ids.contains_key(&s.0) {
                missing.push(s);
            }
        }
        // Rare (the first posting to an account): create it and move it by id.
        for (k, amount, leg) in missing {
            let acc = account_id(db, leg, now).await?;
            add_by_id(db, &[(acc.clone(), *amount)]).await?;
            ids.insert(k.clone(), acc);
        }
        return Ok(ids);
    }
    for r in ledger_account::Entity::find().filter(any).all(db).await? {
        if let Some((k, _, _)) = sums
            .iter()
            .find(|(k, _, _)| k.0 == r.owner_account_id && k.1 == r.kind && k.2 == r.reference_id)
        {
            ids.insert(k.clone(), r.id);
        }
    }
    for (k, _, leg) in &sums {
        if !ids.contains_key(k) {
            ids.insert(k.clone(), account_id(db, leg, now).await?);
        }
    }
    let by_id: Vec<(String, i64)> = sums
        .iter()
        .filter_map(|(k, amount, _)| ids.get(k).map(|id| (id.clone(), *amount)))
        .collect();
    add_by_id(db, &by_id).await?;
    Ok(ids)
}

/// Adds each amount to its account, in one statement.
async fn add_by_id<C: ConnectionTrait>(db: &C, moves: &[(String, i64)]) -> Result<(), PostError> {
    let case = moves.iter().fold(CaseStatement::new(), |c, (id, amount)| {
        c.case(ledger_account::Column::Id.eq(id.clone()), *amount)
    });
    let done = ledger_account::Entity::update_many()
        .col_expr(
            ledger_account::Column::BalanceMicros,
            Expr::col(ledger_account::Column::BalanceMicros).add(case.finally(0)),
        )
        .filter(ledger_account::Column::Id.is_in(moves.iter().map(|(id, _)| id.clone())))
        .exec(db)
        .await?;
    if done.rows_affected != moves.len() as u64 {
        return Err(PostError::Other(AppError::internal()));
    }
    Ok(())
}
