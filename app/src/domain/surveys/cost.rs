//! What a survey campaign costs: `cpi` × the completes it plans (docs/surveys.md, "Paying
//! for a survey"). The specification's create body has no total; its quotas carry
//! `num_respondents`, so the plan is the sum of the quotas' `num_respondents`, unless the
//! campaign sets the optional `total_completes` extension, which wins. Paying from the
//! wallet fixes the plan: a campaign without `total_completes` gets the quotas' total
//! written into it in the allocation's transaction, so widening a quota later never lets
//! completes outrun the money reserved for them.

use std::collections::HashMap;

use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use crate::error::AppError;
use entity::{survey_campaign as survey, survey_quota as quota};

/// The completes a campaign plans: `total_completes` when set, else its quotas' total
/// (`None` when neither gives a positive number).
pub fn planned_completes(m: &survey::Model, quota_total: i64) -> Option<i64> {
    m.total_completes.or(Some(quota_total)).filter(|n| *n > 0)
}

/// Estimated total cost in micros: cpi × planned completes (0 when either is missing).
pub fn estimated_cost(m: &survey::Model, quota_total: i64) -> i64 {
    match (m.cpi_micros, planned_completes(m, quota_total)) {
        (Some(c), Some(n)) => c.checked_mul(n).unwrap_or(i64::MAX),
        _ => 0,
    }
}

/// The message of a refused allocation, naming the specification's fields.
pub const NOTHING_TO_PAY: &str = "the estimated cost (cpi × the quotas' num_respondents, or \
× total_completes when set) must be positive; set cpi and add a quota with num_respondents";

/// One campaign's quota total.
pub async fn quota_total<C: ConnectionTrait>(db: &C, campaign_id: &str) -> Result<i64, AppError> {
    Ok(quota_totals(db, &[campaign_id.to_owned()])
        .await?
        .remove(campaign_id)
        .unwrap_or(0))
}

/// The quota totals of several campaigns in one query (campaigns without quotas are absent).
pub async fn quota_totals<C: ConnectionTrait>(
    db: &C,
    campaign_ids: &[String],
) -> Result<HashMap<String, i64>, AppError> {
    if campaign_ids.is_empty() {
        return Ok(HashMap::new());
    }
    // SUM over BIGINT is NUMERIC on PostgreSQL: cast back so both databases answer i64.
    let rows: Vec<(String, i64)> = quota::Entity::find()
        .select_only()
        .column(quota::Column::CampaignId)
        .column_as(Expr::cust("CAST(SUM(num_respondents) AS BIGINT)"), "total")
        .filter(quota::Column::CampaignId.is_in(campaign_ids.iter().cloned()))
        .group_by(quota::Column::CampaignId)
        .into_tuple()
        .all(db)
        .await?;
    Ok(rows.into_iter().collect())
}

/// Fixes the plan when the campaign is paid: writes the quotas' total into an unset
/// `total_completes` (inside the allocation's transaction).
pub async fn fix_plan<C: ConnectionTrait>(
    db: &C,
    m: &survey::Model,
    planned: i64,
) -> Result<(), AppError> {
    if m.total_completes.is_none() {
        survey::Entity::update_many()
            .col_expr(survey::Column::TotalCompletes, Expr::value(planned))
            .filter(survey::Column::Id.eq(m.id.clone()))
            .exec(db)
            .await?;
    }
    Ok(())
}
