//! Holding instead of paying (issue 51). An approved report that someone other than the
//! advertiser or an administrator stands behind is screened (`fraud::Screen`) before any
//! money moves; at or above the campaign's hold score, or when a web pixel reported it, the
//! conversion is HELD: nothing is posted, no reward callback is written, the user's
//! completion is counted (so the offer is not shown again) and the placement is marked for
//! the fraud guard. A held pixel conversion pays by itself when its review window ends
//! (`conversions::holds::release_reviewed`) unless it was rejected or its signals hold it;
//! every other hold waits for a decision (`conversions::holds::decide`).

use chrono::{DateTime, Duration, Utc};
use sea_orm::{ConnectionTrait, DatabaseTransaction};

use super::attribution::Attribution;
use super::batch::Batch;
use crate::domain::campaigns::fraud_rules;
use crate::domain::campaigns::tracking::pixel;
use crate::domain::conversions::reported::{Reported, ReportedStatus, Trust};
use crate::domain::fraud::{self, Report};
use crate::error::AppError;
use entity::offer_campaign;

/// What screening found about one approved report.
pub(super) struct Screening {
    pub score: i32,
    pub reasons: Option<String>,
    /// Held instead of paid: `Some(until)` for a pixel's review window, `Some(None)` for a
    /// decision.
    pub held: Option<Option<DateTime<Utc>>>,
    /// The click is the user's first sighting today with its address, with its device.
    pub new_address: bool,
    pub new_device: bool,
}

/// The report as the screen sees it.
fn report<'a>(
    campaign: &'a offer_campaign::Model,
    ev: &'a Reported,
    a: &'a Attribution,
    click: &'a fraud::evidence::Click,
    now: DateTime<Utc>,
) -> Report<'a> {
    Report {
        campaign_id: &campaign.id,
        goal_id: &ev.goal_id,
        first_goal: a.first_goal.as_deref(),
        click,
        click_at: a.launch.created_at,
        reported_at: ev.received_at.unwrap_or(now),
    }
}

/// Reads what screening `ev` will need on `db` (outside the settlement's transaction),
/// when it will be screened: a report settled alone then holds the campaign lock (and on
/// SQLite the write lock) for the money only.
pub(in crate::domain::conversions) async fn prefetch<C: ConnectionTrait>(
    batch: &mut Batch,
    db: &C,
    now: DateTime<Utc>,
    campaign: &offer_campaign::Model,
    ev: &Reported,
    a: &Attribution,
) -> Result<(), AppError> {
    if ev.trust == Trust::Vouched || ev.status != ReportedStatus::Approved {
        return Ok(());
    }
    let click = fraud::click_of(&a.launch);
    let fraud = batch.fraud.clone();
    batch
        .screen
        .prefetch(&fraud, db, now, &report(campaign, ev, a, &click, now))
        .await
}

/// Screens an approved report (`None` when its trust needs no screening).
pub(super) async fn screen(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    campaign: &offer_campaign::Model,
    ev: &Reported,
    a: &Attribution,
    batch: &mut Batch,
) -> Result<Option<Screening>, AppError> {
    if ev.trust == Trust::Vouched {
        return Ok(None);
    }
    let rules = fraud_rules::of(campaign);
    let click = fraud::click_of(&a.launch);
    let report = report(campaign, ev, a, &click, now);
    let fraud = batch.fraud.clone();
    let screened = batch
        .screen
        .assess(&fraud, txn, now, &rules, &report)
        .await?;
    let mut assessment = screened.assessment;
    let held = if ev.trust == Trust::Pixel {
        let hours = pixel::settings_of(campaign).review_hours;
        let holds = assessment.holds(&rules);
        assessment.pixel_review(hours);
        // A score that holds by itself waits for a decision, not for the window.
        Some((!holds).then(|| now + Duration::hours(hours)))
    } else {
        assessment.holds(&rules).then_some(None)
    };
    if held.is_some() {
        fraud.watch.touched(&a.placement.id);
    }
    Ok(Some(Screening {
        score: assessment.score,
        reasons: assessment.stored_reasons(),
        held,
        new_address: screened.new_address,
        new_device: screened.new_device,
    }))
}
