//! The survey API's view of a campaign, with its quota totals and estimated cost. Lists,
//! single reads and every write answer with it, so it is computed in one place.

use sea_orm::ConnectionTrait;

use super::input::{Metadata, TRANSACTION_MACRO};
use crate::domain::Ctx;
use crate::domain::surveys::cost;
use crate::error::AppError;
use crate::model::money::Micros;
use crate::model::money::format_micros;
use crate::model::survey::campaign::*;
use entity::survey_campaign as survey;

/// Where the test link sends testers back to (opaque to advertisers).
pub fn test_redirect_url(ctx: &Ctx, id: &str) -> String {
    format!(
        "{}/api/v1/campaigns/{id}/test-redirect?transaction_id={TRANSACTION_MACRO}",
        ctx.config.base_url
    )
}

/// The survey API views of campaigns, their quota totals read in one query.
pub async fn views<C: ConnectionTrait>(
    ctx: &Ctx,
    db: &C,
    rows: &[survey::Model],
) -> Result<Vec<SurveyCampaign>, AppError> {
    let ids: Vec<String> = rows.iter().map(|m| m.id.clone()).collect();
    let totals = cost::quota_totals(db, &ids).await?;
    Ok(rows
        .iter()
        .map(|m| view(ctx, m, totals.get(&m.id).copied().unwrap_or(0)))
        .collect())
}

/// The survey API view of one campaign.
pub async fn view_of<C: ConnectionTrait>(
    ctx: &Ctx,
    db: &C,
    m: &survey::Model,
) -> Result<SurveyCampaign, AppError> {
    Ok(view(ctx, m, cost::quota_total(db, &m.id).await?))
}

fn view(ctx: &Ctx, m: &survey::Model, quota_total: i64) -> SurveyCampaign {
    let meta: Metadata = serde_json::from_str(&m.metadata).unwrap_or_default();
    let cost = cost::estimated_cost(m, quota_total);
    SurveyCampaign {
        _id: m.id.clone(),
        advertiser_id: m.advertiser_id.clone(),
        name: m.name.clone(),
        status: m.status,
        payment_status: m.payment_status,
        country_language_id: m.country_language_id.clone(),
        cpi_micros: m.cpi_micros.map(Micros),
        cpi: m.cpi_micros.map(format_micros),
        length_of_interview: m.loi_hundredths.map(Hundredths),
        conversion: m.conversion_hundredths.map(Hundredths),
        start_date: m.start_date,
        end_date: m.end_date,
        survey_live_link: m.survey_live_link.clone(),
        survey_test_link: m.survey_test_link.clone(),
        max_daily_completes: m.max_daily_completes,
        total_completes: m.total_completes,
        planned_completes: cost::planned_completes(m, quota_total),
        revision: m.revision,
        estimated_cost_micros: Micros(cost),
        estimated_cost: format_micros(cost),
        supported_devices: serde_json::from_str(&m.supported_devices).unwrap_or_default(),
        research_category: meta.research_category,
        research_industry: meta.research_industry,
        campaign_manager: meta.campaign_manager,
        tags: meta.tags,
        rejection_reason: meta.rejection_reason,
        test_redirect_url: test_redirect_url(ctx, &m.id),
        created_at: m.created_at,
        updated_at: m.updated_at,
    }
}

/// Status and payment helpers for the allocation rules.
pub fn eligibility(m: &survey::Model) -> (SurveyStatus, PaymentStatus) {
    (m.status, m.payment_status)
}
