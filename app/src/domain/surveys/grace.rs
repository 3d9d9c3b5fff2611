//! A closed survey still pays the completes that were in the field when it closed.
//!
//! Closing releases the campaign's wallet reservation except `open entries × cpi`, where an
//! open entry is a real (not test) transaction that is still ENTERED and began within the
//! grace period before the close. Completes reported within the grace period after the close
//! are paid from that hold; the sweep releases what is left once the grace period has passed.
//! The grace period is three lengths of interview, at least one hour: a respondent who took
//! the survey before it closed has finished by then, and the advertiser's server has
//! reported the outcome.

use chrono::{DateTime, Duration, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter};

use super::SUBJECT;
use crate::domain::billing::ledger;
use crate::domain::{Ctx, db};
use crate::error::AppError;
use crate::model::survey::campaign::SurveyStatus;
use entity::survey_campaign as survey;
use entity::survey_entry as entry;
use entity::values::EntryStatus;

/// The shortest grace period.
const MIN_GRACE_MINUTES: i64 = 60;
/// The sweep looks back this far for closed campaigns still holding money (far beyond the
/// longest grace: a length of interview is at most a few hours).
const SWEEP_LOOKBACK_DAYS: i64 = 14;

/// How long after its close a campaign pays completes of entries opened before it.
pub fn period(m: &survey::Model) -> Duration {
    // loi is minutes × 100; three of them is loi × 3 / 100 minutes, rounded up.
    let loi_minutes3 = (m.loi_hundredths.unwrap_or(0).max(0) * 3 + 99) / 100;
    Duration::minutes(loi_minutes3.max(MIN_GRACE_MINUTES))
}

/// Whether a complete of `e` reported at `now` is still payable by a closed campaign.
pub fn pays_late(m: &survey::Model, e: &entry::Model, now: DateTime<Utc>) -> bool {
    m.closed_at
        .is_some_and(|closed| e.created_at <= closed && now <= closed + period(m))
}

/// Before paying a complete: refused (409 `survey_closed`) when the campaign is closed and
/// the complete is not one of those it still pays.
pub fn refuse_after_grace(
    m: &survey::Model,
    e: &entry::Model,
    now: DateTime<Utc>,
) -> Result<(), AppError> {
    if m.status != SurveyStatus::Closed || pays_late(m, e, now) {
        return Ok(());
    }
    Err(AppError::conflict(format!(
        "the survey closed{}; completes of transactions opened before the close are paid \
         only within its grace period ({} minutes)",
        m.closed_at
            .map(|c| format!(" at {}", c.to_rfc3339()))
            .unwrap_or_default(),
        period(m).num_minutes()
    ))
    .with_code("survey_closed"))
}

/// At the close (inside its transaction): keeps `open entries × cpi` of the reservation and
/// releases the rest.
pub async fn hold_on_close<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    m: &survey::Model,
) -> Result<(), AppError> {
    let held = ledger::reserved_for(db, &m.advertiser_id, &m.id).await?;
    let open = entry::Entity::find()
        .filter(entry::Column::CampaignId.eq(m.id.clone()))
        .filter(entry::Column::Status.eq(EntryStatus::Entered))
        .filter(entry::Column::Test.eq(false))
        .filter(entry::Column::CreatedAt.gte(now - period(m)))
        .count(db)
        .await?;
    let cpi = m.cpi_micros.unwrap_or(0).max(0);
    let keep = i64::try_from(open)
        .unwrap_or(i64::MAX)
        .saturating_mul(cpi)
        .min(held);
    release(
        db,
        now,
        m,
        held - keep,
        ledger::TransactionKind::SurveyRelease,
    )
    .await
}

/// Releases what closed campaigns past their grace period still hold; returns how many
/// campaigns gave money back. Run by the sweep; each campaign in its own transaction.
pub async fn release_expired(ctx: &Ctx) -> Result<usize, AppError> {
    let now = ctx.now();
    let closed = survey::Entity::find()
        .filter(survey::Column::Status.eq(SurveyStatus::Closed.as_str()))
        .filter(survey::Column::ClosedAt.gte(now - Duration::days(SWEEP_LOOKBACK_DAYS)))
        .filter(survey::Column::ClosedAt.lt(now - Duration::minutes(MIN_GRACE_MINUTES)))
        .all(&ctx.db)
        .await?;
    let mut released = 0;
    for m in closed {
        if m.closed_at.is_some_and(|c| now <= c + period(&m)) {
            continue;
        }
        let txn = db::begin(&ctx.db).await?;
        let held = ledger::reserved_for(&txn, &m.advertiser_id, &m.id).await?;
        if held > 0 {
            release(
                &txn,
                now,
                &m,
                held,
                ledger::TransactionKind::SurveyGraceRelease,
            )
            .await?;
            released += 1;
        }
        txn.commit().await?;
    }
    Ok(released)
}

/// Posts one release of `micros` (nothing when zero); `kind` also names its dedupe key, so
/// the close and the end of the grace period release once each.
async fn release<C: ConnectionTrait>(
    db: &C,
    now: DateTime<Utc>,
    m: &survey::Model,
    micros: i64,
    kind: ledger::TransactionKind,
) -> Result<(), AppError> {
    if micros <= 0 {
        return Ok(());
    }
    match ledger::post(
        db,
        now,
        kind,
        &m.advertiser_id,
        (SUBJECT, &m.id),
        &format!("{kind}:{}", m.id),
        &ledger::release_legs(&m.advertiser_id, &m.id, micros),
    )
    .await
    {
        Ok(_) | Err(ledger::PostError::AlreadyPosted) => Ok(()),
        Err(ledger::PostError::Insufficient) => Err(AppError::internal()),
        Err(ledger::PostError::Other(e)) => Err(e),
    }
}
