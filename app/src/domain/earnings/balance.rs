//! What a publisher reads of its earnings: the balance by state and the movements behind it.

use std::collections::HashMap;

use chrono::Duration;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

use super::terms;
use crate::domain::billing::{CURRENCY, ledger, ledger::TransactionKind};
use crate::domain::paging::Page;
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::money::{Micros, format_micros};
use crate::model::publisher::earnings::{
    EarningsBalance, EarningsMovement, EarningsMovements, EarningsState, MovementKind,
};
use crate::model::publisher::payouts::PayoutStatus;
use entity::{conversion, ledger_account, ledger_entry, ledger_transaction};

/// The cursor prefix of movements (ledger entry ids).
pub const MOVEMENT_ID_PREFIX: &str = "len";

/// `GET /publisher/v2/earnings`.
pub async fn balance(ctx: &Ctx, actor: &Principal) -> Result<EarningsBalance, AppError> {
    actor.require_publisher()?;
    let id = &actor.account_id;
    let sums = ledger::balances_by_kind(&ctx.db, id).await?;
    let sum = |k| sums.get(&k).copied().unwrap_or(0);
    let terms = terms::of(&ctx.db, id, ctx.now()).await?;
    // The oldest pending conversion (the partial index on pending earnings by publisher).
    let oldest = conversion::Entity::find()
        .filter(conversion::Column::PublisherId.eq(id.clone()))
        .filter(conversion::Column::EarningsState.eq(EarningsState::Pending.as_str()))
        .order_by_asc(conversion::Column::EarningsAt)
        .one(&ctx.db)
        .await?
        .and_then(|c| c.earnings_at);
    let money = |v: i64| (Micros(v), format_micros(v));
    let (pending_micros, pending) = money(sum(ledger::Kind::PublisherPending));
    let (available_micros, available) = money(sum(ledger::Kind::PublisherAvailable));
    let (held_for_payout_micros, held_for_payout) = money(sum(ledger::Kind::PayoutHeld));
    let (reserve_micros, reserve) = money(sum(ledger::Kind::PublisherReserve));
    let (debt_micros, debt) = money((-sum(ledger::Kind::PublisherAvailable)).max(0));
    // The earliest reserve still held (its account's reference is its due day).
    let next_reserve_release = ledger_account::Entity::find()
        .filter(ledger_account::Column::OwnerAccountId.eq(id.clone()))
        .filter(ledger_account::Column::Kind.eq(ledger::Kind::PublisherReserve.as_str()))
        .filter(ledger_account::Column::BalanceMicros.gt(0))
        .order_by_asc(ledger_account::Column::ReferenceId)
        .one(&ctx.db)
        .await?
        .and_then(|a| chrono::NaiveDate::parse_from_str(&a.reference_id, "%Y-%m-%d").ok());
    // Summed by the database: a publisher paid weekly for years has hundreds of payouts.
    let paid_to_date: i64 = entity::payout::Entity::find()
        .filter(entity::payout::Column::PublisherId.eq(id.clone()))
        .filter(entity::payout::Column::Status.eq(PayoutStatus::Paid.as_str()))
        .select_only()
        .column_as(
            sea_orm::sea_query::Expr::cust("CAST(COALESCE(SUM(amount_micros), 0) AS BIGINT)"),
            "total",
        )
        .into_tuple::<i64>()
        .one(&ctx.db)
        .await?
        .unwrap_or(0);
    let (paid_micros, paid) = money(paid_to_date);
    Ok(EarningsBalance {
        publisher_id: id.clone(),
        currency: CURRENCY.to_owned(),
        pending_micros,
        pending,
        available_micros,
        available,
        held_for_payout_micros,
        held_for_payout,
        reserve_micros,
        reserve,
        debt_micros,
        debt,
        next_reserve_release,
        paid_micros,
        paid,
        next_release_at: oldest.map(|t| t + Duration::days(terms.hold_days)),
        terms,
    })
}

/// What a ledger transaction kind means to a publisher.
fn movement_kind(tx_kind: Option<TransactionKind>) -> MovementKind {
    use TransactionKind as T;
    match tx_kind {
        Some(T::CampaignSpend | T::Spend | T::ExternalSpend | T::EarningsBackfill) => {
            MovementKind::Conversion
        }
        Some(T::Refund | T::ExternalRefund) => MovementKind::Reversal,
        Some(T::EarningsRelease) => MovementKind::Release,
        Some(T::ReserveRelease) => MovementKind::ReserveRelease,
        Some(T::PayoutHold) => MovementKind::Payout,
        Some(T::PayoutReturn) => MovementKind::PayoutReturn,
        _ => MovementKind::Adjustment,
    }
}

/// `GET /publisher/v2/earnings/movements`: every entry on the publisher's earnings
/// accounts, newest first. Three queries a page: the publisher's accounts, the entries, and
/// their transactions.
pub async fn movements(
    ctx: &Ctx,
    actor: &Principal,
    page: Page,
) -> Result<EarningsMovements, AppError> {
    actor.require_publisher()?;
    let accounts: HashMap<String, ledger::Kind> = ledger_account::Entity::find()
        .filter(ledger_account::Column::OwnerAccountId.eq(actor.account_id.clone()))
        .all(&ctx.db)
        .await?
        .into_iter()
        .map(|a| (a.id, a.kind))
        .filter(|(_, k)| {
            matches!(
                k,
                ledger::Kind::PublisherPending
                    | ledger::Kind::PublisherAvailable
                    | ledger::Kind::PublisherReserve
            )
        })
        .collect();
    if accounts.is_empty() {
        return Ok(EarningsMovements {
            items: vec![],
            next_cursor: None,
        });
    }
    let q = ledger_entry::Entity::find()
        .filter(ledger_entry::Column::LedgerAccountId.is_in(accounts.keys().cloned()));
    let rows = page
        .select(q, ledger_entry::Column::Id)
        .all(&ctx.db)
        .await?;
    let (rows, next_cursor) = page.finish(rows, |e| &e.id);
    let txs: HashMap<String, ledger_transaction::Model> = ledger_transaction::Entity::find()
        .filter(ledger_transaction::Column::Id.is_in(rows.iter().map(|e| e.transaction_id.clone())))
        .all(&ctx.db)
        .await?
        .into_iter()
        .map(|t| (t.id.clone(), t))
        .collect();
    let items = rows
        .into_iter()
        .map(|e| {
            let tx = txs.get(&e.transaction_id);
            let balance = match accounts.get(&e.ledger_account_id) {
                Some(ledger::Kind::PublisherPending) => "PENDING",
                Some(ledger::Kind::PublisherReserve) => "RESERVE",
                _ => "AVAILABLE",
            };
            EarningsMovement {
                kind: movement_kind(tx.map(|t| t.kind)).as_str().to_owned(),
                balance: balance.to_owned(),
                amount_micros: Micros(e.amount_micros),
                amount: format_micros(e.amount_micros),
                // The conversion, survey transaction or release the movement belongs to.
                reference: tx
                    .and_then(|t| t.dedupe_key.split_once(':').map(|(_, r)| r.to_owned()))
                    .unwrap_or_default(),
                at: e.created_at,
                id: e.id,
            }
        })
        .collect();
    Ok(EarningsMovements { items, next_cursor })
}

/// `GET /publisher/v2/earnings/export`: the publisher's earnings accounts (pending per
/// campaign, available, held for payouts) entry by entry; the lines add up to the balances.
pub async fn export(
    ctx: &Ctx,
    actor: &Principal,
    q: &crate::model::billing::LedgerExportQuery,
) -> Result<crate::model::billing::LedgerExport, AppError> {
    use crate::domain::billing::ledger::export::{DayRange, export};
    actor.require_publisher()?;
    let range = DayRange::of(q.from, q.to)?;
    let kinds = super::statements::EARNINGS_KINDS;
    export(&ctx.db, &actor.account_id, &kinds, &range, q).await
}
