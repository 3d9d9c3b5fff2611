//! The terms a publisher earns under: the hold, the minimum payout and the reserve,
//! defaults unless an administrator set them. A changed hold or reserve applies to earnings
//! not yet released (the release worker reads the terms at each run); the audit trail keeps
//! the old and the new value.

use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, ConnectionTrait, EntityTrait, Set};

use super::{DEFAULT_HOLD_DAYS, DEFAULT_MINIMUM_PAYOUT_MICROS, MAX_HOLD_DAYS, reserve};
use crate::domain::billing::share::PUBLISHER_SHARE_BPS;
use crate::domain::{Ctx, Principal, db};
use crate::error::{AppError, FieldErrors};
use crate::model::Role;
use crate::model::money::Micros;
use crate::model::publisher::earnings::{EarningTerms, EarningTermsInput};
use entity::publisher_earning_terms as terms;

/// Audit subject of a publisher's terms.
const SUBJECT: &str = "publisher_earning_terms";
/// The smallest and largest minimum payout an administrator may set (1 and 100,000 USD).
const MINIMUM_PAYOUT_RANGE: std::ops::RangeInclusive<i64> = 1_000_000..=100_000_000_000;

fn effective(
    row: Option<&terms::Model>,
    created_at: DateTime<Utc>,
    now: DateTime<Utc>,
) -> EarningTerms {
    let reserve = reserve::in_force(row, created_at, now);
    EarningTerms {
        revenue_share_bps: PUBLISHER_SHARE_BPS,
        hold_days: row
            .and_then(|r| r.hold_days)
            .map_or(DEFAULT_HOLD_DAYS, i64::from),
        minimum_payout_micros: Micros(
            row.and_then(|r| r.minimum_payout_micros)
                .unwrap_or(DEFAULT_MINIMUM_PAYOUT_MICROS),
        ),
        reserve_percent: reserve.map_or(0, |r| r.percent),
        reserve_days: reserve.map_or(0, |r| r.days),
        reserve_until: (reserve.is_some() && row.and_then(|r| r.reserve_percent).is_none())
            .then(|| reserve::new_until(created_at)),
    }
}

/// The terms in force for a publisher at `now`.
pub async fn of<C: ConnectionTrait>(
    db: &C,
    publisher_id: &str,
    now: DateTime<Utc>,
) -> Result<EarningTerms, AppError> {
    let row = terms::Entity::find_by_id(publisher_id.to_owned())
        .one(db)
        .await?;
    let created_at = entity::account::Entity::find_by_id(publisher_id.to_owned())
        .one(db)
        .await?
        .map_or(now, |a| a.created_at);
    Ok(effective(row.as_ref(), created_at, now))
}

/// Publishers with a hold of their own: `(publisher, days)`. A small table (one row per
/// publisher an administrator changed), read once per release run.
pub(super) async fn hold_overrides<C: ConnectionTrait>(
    db: &C,
) -> Result<Vec<(String, i64)>, AppError> {
    Ok(terms::Entity::find()
        .all(db)
        .await?
        .into_iter()
        .filter_map(|r| r.hold_days.map(|d| (r.account_id, i64::from(d))))
        .filter(|(_, d)| *d != DEFAULT_HOLD_DAYS)
        .collect())
}

/// The publisher account (404 for an id that is not one).
async fn publisher(ctx: &Ctx, publisher_id: &str) -> Result<entity::account::Model, AppError> {
    let a = crate::domain::accounts::get(ctx, publisher_id)
        .await
        .map_err(|_| AppError::not_found("publisher"))?;
    match a.role {
        Role::Publisher => Ok(a),
        _ => Err(AppError::not_found("publisher")),
    }
}

/// `GET /admin/v1/publishers/{accountId}/earning-terms`.
pub async fn get(
    ctx: &Ctx,
    actor: &Principal,
    publisher_id: &str,
) -> Result<EarningTerms, AppError> {
    actor.require_admin()?;
    publisher(ctx, publisher_id).await?;
    of(&ctx.db, publisher_id, ctx.now()).await
}

/// `PUT /admin/v1/publishers/{accountId}/earning-terms`: sets the hold and the minimum
/// payout (an absent field returns to the default).
pub async fn put(
    ctx: &Ctx,
    actor: &Principal,
    publisher_id: &str,
    input: EarningTermsInput,
) -> Result<EarningTerms, AppError> {
    actor.require_admin()?;
    let mut errs = FieldErrors::new();
    if input
        .hold_days
        .is_some_and(|d| !(0..=MAX_HOLD_DAYS).contains(&d))
    {
        errs.add("holdDays", format!("must be 0 to {MAX_HOLD_DAYS}"));
    }
    if input
        .minimum_payout_micros
        .is_some_and(|m| !MINIMUM_PAYOUT_RANGE.contains(&m.get()))
    {
        errs.add("minimumPayoutMicros", "must be 1 to 100000 USD");
    }
    if input
        .reserve_percent
        .is_some_and(|p| !(0..=reserve::MAX_RESERVE_PERCENT).contains(&p))
    {
        errs.add(
            "reservePercent",
            format!("must be 0 to {}", reserve::MAX_RESERVE_PERCENT),
        );
    }
    if input
        .reserve_days
        .is_some_and(|d| !(1..=MAX_HOLD_DAYS).contains(&d))
    {
        errs.add("reserveDays", format!("must be 1 to {MAX_HOLD_DAYS}"));
    }
    errs.finish()?;
    let account = publisher(ctx, publisher_id).await?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let before = terms::Entity::find_by_id(publisher_id.to_owned())
        .one(&txn)
        .await?;
    let old = effective(before.as_ref(), account.created_at, now);
    let row = terms::ActiveModel {
        account_id: Set(publisher_id.to_owned()),
        hold_days: Set(input.hold_days.and_then(|d| i32::try_from(d).ok())),
        minimum_payout_micros: Set(input.minimum_payout_micros.map(Micros::get)),
        reserve_percent: Set(input.reserve_percent.and_then(|p| i32::try_from(p).ok())),
        reserve_days: Set(input.reserve_days.and_then(|d| i32::try_from(d).ok())),
        updated_by: Set(actor.account_id.clone()),
        updated_at: Set(now),
    };
    let saved = if before.is_some() {
        row.update(&txn).await?
    } else {
        row.insert(&txn).await?
    };
    let new = effective(Some(&saved), account.created_at, now);
    let detail = serde_json::json!({
        "holdDays": {"from": old.hold_days, "to": new.hold_days},
        "minimumPayoutMicros": {"from": old.minimum_payout_micros, "to": new.minimum_payout_micros},
        "reservePercent": {"from": old.reserve_percent, "to": new.reserve_percent},
        "reserveDays": {"from": old.reserve_days, "to": new.reserve_days},
    });
    actor
        .audit(
            &txn,
            now,
            "earning_terms.updated",
            (SUBJECT, publisher_id),
            detail,
        )
        .await?;
    txn.commit().await?;
    Ok(new)
}
