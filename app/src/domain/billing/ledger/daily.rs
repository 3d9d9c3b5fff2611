//! The net movement of an owner's accounts per UTC day, transaction kind and account kind:
//! one grouped query over the entries, for statements, the publisher's earnings chart and the
//! platform's revenue by day.

use chrono::{DateTime, Duration, NaiveDate, NaiveTime, Utc};
use sea_orm::{ConnectionTrait, FromQueryResult};

use super::{Kind, TransactionKind};
use crate::domain::sql::{prefix_of, statement};
use crate::error::AppError;

/// Transaction kinds that pay a conversion or a survey complete.
/// (`earnings_backfill`: the earnings of conversions paid before earnings were kept.)
pub const EARNING: [TransactionKind; 4] = [
    TransactionKind::CampaignSpend,
    TransactionKind::Spend,
    TransactionKind::ExternalSpend,
    TransactionKind::EarningsBackfill,
];
/// Transaction kinds that reverse one.
pub const REVERSING: [TransactionKind; 2] =
    [TransactionKind::Refund, TransactionKind::ExternalRefund];

/// One day's net movement of one transaction kind on one kind of account.
#[derive(Debug, Clone, FromQueryResult)]
pub struct DayTotal {
    /// `YYYY-MM-DD` (UTC).
    pub day: String,
    pub transaction_kind: TransactionKind,
    pub account_kind: Kind,
    pub micros: i64,
    /// Distinct transactions behind it.
    pub transactions: i64,
}

/// The entries of `owner`'s accounts of `kinds` (the platform's: owner `""`) in
/// `[from, until)`, summed per day, transaction kind and account kind.
pub async fn by_day<C: ConnectionTrait>(
    db: &C,
    owner: &str,
    kinds: &[Kind],
    from: DateTime<Utc>,
    until: DateTime<Utc>,
) -> Result<Vec<DayTotal>, AppError> {
    let backend = db.get_database_backend();
    let day = prefix_of(backend, "e.created_at", 10);
    // Kind names are this crate's constants, never input.
    let kinds = kinds
        .iter()
        .map(|k| format!("'{}'", k.as_str()))
        .collect::<Vec<_>>()
        .join(", ");
    let sql = format!(
        "SELECT {day} AS day, t.kind AS transaction_kind, a.kind AS account_kind, \
         CAST(SUM(e.amount_micros) AS BIGINT) AS micros, COUNT(DISTINCT t.id) AS transactions \
         FROM ledger_entries e \
         JOIN ledger_accounts a ON a.id = e.ledger_account_id \
         JOIN ledger_transactions t ON t.id = e.transaction_id \
         WHERE a.owner_account_id = ? AND a.kind IN ({kinds}) \
         AND e.created_at >= ? AND e.created_at < ? \
         GROUP BY {day}, t.kind, a.kind"
    );
    let values = vec![owner.to_owned().into(), from.into(), until.into()];
    Ok(
        DayTotal::find_by_statement(statement(backend, &sql, values))
            .all(db)
            .await?,
    )
}

/// The instants that bound the UTC days `from` to `to` (inclusive): `[start, until)`.
pub fn instants(from: NaiveDate, to: NaiveDate) -> (DateTime<Utc>, DateTime<Utc>) {
    let at = |d: NaiveDate| d.and_time(NaiveTime::MIN).and_utc();
    (at(from), at(to + Duration::days(1)))
}

/// The position of `day` (`YYYY-MM-DD`) in a list of days starting at `from`.
pub fn day_index(day: &str, from: NaiveDate) -> Option<usize> {
    let d = day.parse::<NaiveDate>().ok()?;
    usize::try_from((d - from).num_days()).ok()
}
