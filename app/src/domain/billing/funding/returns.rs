//! Money of a credited provider funding that goes back to the payer: a refund issued at the
//! provider, or a chargeback (the payer's bank took it back). Both arrive as the provider's
//! webhook naming the capture and a return id of their own.
//!
//! The rule: the return comes out of the advertiser's available balance first; what the
//! balance does not hold (the money was reserved for campaigns or spent) is recorded as owed
//! ([`ledger::Kind::Owed`]) and the next funding, wire or provider, pays it before anything
//! reaches the wallet. Reserves already committed to live campaigns are not clawed back:
//! their conversions were bought in good faith and their publishers are owed. Each return
//! posts once (its id is the ledger's dedupe key), never more than the funding's amount in
//! all, and the advertiser is told in the same transaction.

use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use crate::domain::billing::ledger::{self, Kind, PostError, TransactionKind};
use crate::domain::billing::payprovider::ProviderReturn;
use crate::domain::notices::{self, Notice};
use crate::domain::{Ctx, audit, db};
use crate::error::AppError;
use crate::model::NoticeTopic;
use crate::model::money::Micros;
use entity::funding;

/// The ledger's once-only key of a return.
pub fn dedupe_key(return_id: &str) -> String {
    format!("funding_return:{return_id}")
}

/// Whether this return was already recorded (checked before asking the provider to verify
/// the event, so a repeated delivery costs no provider call).
pub async fn recorded<C: ConnectionTrait>(db: &C, return_id: &str) -> Result<bool, AppError> {
    Ok(entity::ledger_transaction::Entity::find()
        .filter(entity::ledger_transaction::Column::DedupeKey.eq(dedupe_key(return_id)))
        .one(db)
        .await?
        .is_some())
}

/// What the advertiser owes now (0 or more), read after locking the advertiser's account
/// row, so fundings and returns of one advertiser take their turns (SQLite's write
/// transaction already does).
pub async fn owed_under_lock<C: ConnectionTrait>(
    db: &C,
    advertiser_id: &str,
) -> Result<i64, AppError> {
    entity::account::Entity::find_by_id(advertiser_id.to_owned())
        .lock_exclusive()
        .one(db)
        .await?;
    let balance = ledger::account_balance(db, advertiser_id, Kind::Owed, "").await?;
    Ok((-balance).max(0))
}

/// Pays what the advertiser owes from its available balance, as far as it goes (after its
/// paused campaigns released their reserves), in the caller's transaction, which holds the
/// advertiser's lock ([`owed_under_lock`]). Returns what was paid.
pub async fn pay_debt_from_wallet<C: ConnectionTrait>(
    db: &C,
    now: chrono::DateTime<chrono::Utc>,
    advertiser_id: &str,
    owed: i64,
) -> Result<i64, AppError> {
    let available = ledger::account_balance(db, advertiser_id, Kind::Available, "").await?;
    let paying = available.clamp(0, owed.max(0));
    if paying == 0 {
        return Ok(0);
    }
    ledger::post(
        db,
        now,
        TransactionKind::DebtPayment,
        advertiser_id,
        ("advertiser", advertiser_id),
        &format!("debt_payment:{}", crate::domain::ids::new_id("dbt")),
        &ledger::debt_payment_legs(advertiser_id, paying),
    )
    .await?;
    Ok(paying)
}

/// Applies one return to a credited funding, once. A return of another currency or of a
/// funding not (yet) credited changes nothing and is left in the audit trail for an
/// operator.
pub async fn apply(ctx: &Ctx, f: &funding::Model, r: &ProviderReturn) -> Result<(), AppError> {
    // A spend between reading the balance and the guarded debit refuses the posting as a
    // whole; reading again settles it (spends are not locked against returns).
    for _ in 0..3 {
        match apply_once(ctx, f, r).await {
            Err(PostError::Insufficient) => continue,
            Err(PostError::AlreadyPosted) => return Ok(()),
            Err(PostError::Other(e)) => return Err(e),
            Ok(()) => return Ok(()),
        }
    }
    Err(AppError::unavailable(
        "the wallet kept changing while the return was recorded; the provider sends it again",
    ))
}

async fn apply_once(ctx: &Ctx, f: &funding::Model, r: &ProviderReturn) -> Result<(), PostError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    owed_under_lock(&txn, &f.advertiser_id).await?;
    let Some(f) = funding::Entity::find_by_id(f.id.clone())
        .lock_exclusive()
        .one(&txn)
        .await?
    else {
        return Ok(());
    };
    let subject = ("funding", f.id.as_str());
    let mut detail = serde_json::json!({
        "returnId": r.return_id,
        "chargeback": r.chargeback,
        "reportedMicros": r.amount_micros,
        "currency": r.currency,
    });
    let left = f.amount_micros - f.returned_micros;
    if r.currency != f.currency || f.status != entity::values::FundingStatus::Credited || left <= 0
    {
        tracing::warn!(funding = %f.id, "a provider return this service cannot apply");
        audit::record(&txn, now, None, "funding.return_unapplied", subject, detail).await?;
        txn.commit().await?;
        return Ok(());
    }
    // Never more than was credited, whatever the provider reports.
    let amount = r.amount_micros.get().clamp(0, left);
    let available = ledger::account_balance(&txn, &f.advertiser_id, Kind::Available, "").await?;
    let from_wallet = available.clamp(0, amount);
    ledger::post(
        &txn,
        now,
        TransactionKind::FundingReturn,
        &f.advertiser_id,
        subject,
        &dedupe_key(&r.return_id),
        &ledger::funding_return_legs(&f.advertiser_id, amount, from_wallet),
    )
    .await?;
    funding::Entity::update_many()
        .col_expr(
            funding::Column::ReturnedMicros,
            sea_orm::sea_query::ExprTrait::add(Expr::col(funding::Column::ReturnedMicros), amount),
        )
        .col_expr(funding::Column::UpdatedAt, Expr::value(now))
        .filter(funding::Column::Id.eq(f.id.clone()))
        .exec(&txn)
        .await?;
    let owed = amount - from_wallet;
    detail["returnedMicros"] = serde_json::json!(amount);
    detail["owedMicros"] = serde_json::json!(owed);
    let action = if r.chargeback {
        "funding.chargeback"
    } else {
        "funding.refund"
    };
    if owed > 0 {
        // The platform carries this until the advertiser funds again: worth an operator's look.
        tracing::warn!(funding = %f.id, owed, "a funding return exceeded the available balance");
    }
    audit::record(&txn, now, None, action, subject, detail).await?;
    notices::tell(
        ctx,
        &txn,
        now,
        &f.advertiser_id,
        notice(&f, r, amount, owed),
    )
    .await?;
    txn.commit().await?;
    Ok(())
}

fn notice(f: &funding::Model, r: &ProviderReturn, amount: i64, owed: i64) -> Notice {
    let what = if r.chargeback {
        "charged back by the payer's bank"
    } else {
        "refunded to the payer"
    };
    let amount = Micros(amount).money(&f.currency);
    let mut body = format!(
        "{amount} of your funding {} was {what} and left your wallet.",
        f.id
    );
    if owed > 0 {
        body.push_str(&format!(
            " Your available balance did not hold it all: {} is owed and your next funding \
             pays it first.",
            Micros(owed).money(&f.currency)
        ));
    }
    Notice::new(
        NoticeTopic::FundingReturned,
        format!("{amount} of a funding was {what}"),
        body,
    )
    .about("funding", &f.id, "/advertiser/billing")
}
