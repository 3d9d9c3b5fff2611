//! The terms a publisher earns under: the hold and the minimum payout, defaults unless an
//! administrator set them. A changed hold applies to earnings not yet released (the release
//! worker reads the terms at each run); the audit trail keeps the old and the new value.

use sea_orm::{ActiveModelTrait, ConnectionTrait, EntityTrait, Set};

use super::{DEFAULT_HOLD_DAYS, DEFAULT_MINIMUM_PAYOUT_MICROS, MAX_HOLD_DAYS};
use crate::domain::delivery::PUBLISHER_SHARE_BPS;
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

fn effective(row: Option<&terms::Model>) -> EarningTerms {
    EarningTerms {
        revenue_share_bps: PUBLISHER_SHARE_BPS,
        hold_days: row
            .and_then(|r| r.hold_days)
            .map_or(DEFAULT_HOLD_DAYS, i64::from),
        minimum_payout_micros: Micros(
            row.and_then(|r| r.minimum_payout_micros)
                .unwrap_or(DEFAULT_MINIMUM_PAYOUT_MICROS),
        ),
    }
}

/// The terms in force for a publisher.
pub async fn of<C: ConnectionTrait>(db: &C, publisher_id: &str) -> Result<EarningTerms, AppError> {
    let row = terms::Entity::find_by_id(publisher_id.to_owned())
        .one(db)
        .await?;
    Ok(effective(row.as_ref()))
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

/// Refuses (404) an id that is not a publisher account.
async fn publisher(ctx: &Ctx, publisher_id: &str) -> Result<(), AppError> {
    let a = crate::domain::accounts::get(ctx, publisher_id)
        .await
        .map_err(|_| AppError::not_found("publisher"))?;
    match Role::parse(&a.role) {
        Some(Role::Publisher) => Ok(()),
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
    of(&ctx.db, publisher_id).await
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
    errs.finish()?;
    publisher(ctx, publisher_id).await?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let before = terms::Entity::find_by_id(publisher_id.to_owned())
        .one(&txn)
        .await?;
    let old = effective(before.as_ref());
    let row = terms::ActiveModel {
        account_id: Set(publisher_id.to_owned()),
        hold_days: Set(input.hold_days.and_then(|d| i32::try_from(d).ok())),
        minimum_payout_micros: Set(input.minimum_payout_micros.map(Micros::get)),
        updated_by: Set(actor.account_id.clone()),
        updated_at: Set(now),
    };
    let saved = if before.is_some() {
        row.update(&txn).await?
    } else {
        row.insert(&txn).await?
    };
    let new = effective(Some(&saved));
    let detail = serde_json::json!({
        "holdDays": {"from": old.hold_days, "to": new.hold_days},
        "minimumPayoutMicros": {"from": old.minimum_payout_micros, "to": new.minimum_payout_micros},
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
