//! An owner's ledger, entry by entry: the advertiser's wallet accounts or the publisher's
//! earnings accounts, in a date range, oldest first, with the balance before the range and
//! at its end, so the lines of an export add up to the balances the owner is shown.

use std::collections::HashMap;

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

use super::Kind;
use crate::error::AppError;
use crate::model::billing::{LedgerExport, LedgerExportQuery, LedgerLine};
use crate::model::money::Micros;
use entity::{ledger_account, ledger_entry, ledger_transaction};

/// Most lines a page holds.
pub const MAX_EXPORT_LINES: u64 = 10_000;
/// The cursor prefix (ledger entry ids).
const ENTRY_PREFIX: &str = "len";

/// A checked export range: `[from, until)`.
pub struct DayRange {
    pub from: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
}

impl DayRange {
    /// The days of `q` (inclusive, UTC), checked.
    pub fn of(from: Option<NaiveDate>, to: Option<NaiveDate>) -> Result<Self, AppError> {
        let from = crate::domain::report_range::check_day("from", from)?;
        let to = crate::domain::report_range::check_day("to", to)?;
        if let (Some(f), Some(t)) = (from, to)
            && f > t
        {
            return Err(AppError::field("to", "must not be before from"));
        }
        let start = |d: NaiveDate| d.and_time(NaiveTime::MIN).and_utc();
        Ok(Self {
            from: from.map(start),
            until: to.map(|t| start(t) + Duration::days(1)),
        })
    }
}

/// One page of the entries on `owner`'s accounts (of `kinds`, or all) in `range`.
pub async fn export<C: ConnectionTrait>(
    db: &C,
    owner: &str,
    kinds: &[Kind],
    range: &DayRange,
    q: &LedgerExportQuery,
) -> Result<LedgerExport, AppError> {
    let limit = q.limit.unwrap_or(MAX_EXPORT_LINES);
    if !(1..=MAX_EXPORT_LINES).contains(&limit) {
        return Err(AppError::field(
            "limit",
            format!("must be 1 to {MAX_EXPORT_LINES}"),
        ));
    }
    let cursor = q.cursor.as_deref().map(str::trim).filter(|c| !c.is_empty());
    if cursor.is_some_and(|c| {
        !c.starts_with(&format!("{ENTRY_PREFIX}_"))
            || c.len() > 64
            || !c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
    }) {
        return Err(AppError::field(
            "cursor",
            "must be the nextCursor of the previous page",
        ));
    }
    let accounts = accounts(db, owner, kinds).await?;
    let empty = LedgerExport {
        owner_account_id: owner.to_owned(),
        currency: crate::domain::billing::CURRENCY.to_owned(),
        opening_micros: None,
        lines: vec![],
        closing_micros: None,
        next_cursor: None,
    };
    if accounts.is_empty() {
        return Ok(LedgerExport {
            opening_micros: cursor.is_none().then_some(Micros(0)),
            closing_micros: Some(Micros(0)),
            ..empty
        });
    }
    let ids: Vec<String> = accounts.keys().cloned().collect();
    let mut sel = ledger_entry::Entity::find()
        .filter(ledger_entry::Column::LedgerAccountId.is_in(ids.clone()));
    if let Some(f) = range.from {
        sel = sel.filter(ledger_entry::Column::CreatedAt.gte(f));
    }
    if let Some(u) = range.until {
        sel = sel.filter(ledger_entry::Column::CreatedAt.lt(u));
    }
    if let Some(c) = cursor {
        sel = sel.filter(ledger_entry::Column::Id.gt(c.to_owned()));
    }
    let mut rows = sel
        .order_by_asc(ledger_entry::Column::Id)
        .limit(limit + 1)
        .all(db)
        .await?;
    let more = rows.len() as u64 > limit;
    rows.truncate(limit as usize);
    let txs: HashMap<String, ledger_transaction::Model> = ledger_transaction::Entity::find()
        .filter(ledger_transaction::Column::Id.is_in(rows.iter().map(|e| e.transaction_id.clone())))
        .all(db)
        .await?
        .into_iter()
        .map(|t| (t.id.clone(), t))
        .collect();
    let lines = rows
        .into_iter()
        .map(|e| {
            let tx = txs.get(&e.transaction_id);
            let account = accounts.get(&e.ledger_account_id);
            LedgerLine {
                at: e.created_at,
                transaction_kind: tx.map(|t| t.kind.as_str().to_owned()).unwrap_or_default(),
                account: account
                    .map(|(k, _)| k.as_str().to_owned())
                    .unwrap_or_default(),
                account_reference: account.map(|(_, r)| r.clone()).unwrap_or_default(),
                reference: tx
                    .and_then(|t| t.dedupe_key.split_once(':').map(|(_, r)| r.to_owned()))
                    .unwrap_or_default(),
                amount_micros: Micros(e.amount_micros),
                entry_id: e.id,
            }
        })
        .collect::<Vec<_>>();
    let next_cursor = more
        .then(|| lines.last().map(|l| l.entry_id.clone()))
        .flatten();
    let opening = match (cursor, range.from) {
        (Some(_), _) => None,
        (None, Some(f)) => Some(Micros(total_before(db, &ids, Some(f)).await?)),
        (None, None) => Some(Micros(0)),
    };
    let closing = match more {
        true => None,
        false => Some(Micros(total_before(db, &ids, range.until).await?)),
    };
    Ok(LedgerExport {
        opening_micros: opening,
        lines,
        closing_micros: closing,
        next_cursor,
        ..empty
    })
}

/// The owner's accounts of `kinds` (all kinds when empty): id → (kind, reference).
async fn accounts<C: ConnectionTrait>(
    db: &C,
    owner: &str,
    kinds: &[Kind],
) -> Result<HashMap<String, (Kind, String)>, AppError> {
    Ok(ledger_account::Entity::find()
        .filter(ledger_account::Column::OwnerAccountId.eq(owner.to_owned()))
        .all(db)
        .await?
        .into_iter()
        .map(|a| (a.id, (a.kind, a.reference_id)))
        .filter(|(_, (k, _))| kinds.is_empty() || kinds.contains(k))
        .collect())
}

/// The sum of the entries on `accounts` before `until` (all of them when `None`).
pub(in crate::domain) async fn total_before<C: ConnectionTrait>(
    db: &C,
    accounts: &[String],
    until: Option<DateTime<Utc>>,
) -> Result<i64, AppError> {
    Ok(by_account_before(db, accounts, until).await?.values().sum())
}

/// The sum of the entries on each of `accounts` before `until`.
pub(in crate::domain) async fn by_account_before<C: ConnectionTrait>(
    db: &C,
    accounts: &[String],
    until: Option<DateTime<Utc>>,
) -> Result<HashMap<String, i64>, AppError> {
    let mut sel = ledger_entry::Entity::find()
        .select_only()
        .column(ledger_entry::Column::LedgerAccountId)
        .column_as(
            Expr::cust("CAST(COALESCE(SUM(amount_micros), 0) AS BIGINT)"),
            "total",
        )
        .filter(ledger_entry::Column::LedgerAccountId.is_in(accounts.to_vec()))
        .group_by(ledger_entry::Column::LedgerAccountId);
    if let Some(u) = until {
        sel = sel.filter(ledger_entry::Column::CreatedAt.lt(u));
    }
    Ok(sel
        .into_tuple::<(String, i64)>()
        .all(db)
        .await?
        .into_iter()
        .collect())
}

/// The owner's accounts of `kinds` by id (for statements).
pub(in crate::domain) async fn account_kinds<C: ConnectionTrait>(
    db: &C,
    owner: &str,
    kinds: &[Kind],
) -> Result<HashMap<String, Kind>, AppError> {
    Ok(accounts(db, owner, kinds)
        .await?
        .into_iter()
        .map(|(id, (k, _))| (id, k))
        .collect())
}
