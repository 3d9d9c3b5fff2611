//! A campaign's fraud rules (issue 51): the score at which its conversions are held for a
//! decision instead of paid, and the advertiser's floor on the time from click to
//! conversion. Stored on the campaign row (not a revision: a rule applies to conversions
//! settled from now on, whatever revision they were launched under); audited.

use sea_orm::{ActiveModelTrait, IntoActiveModel, Set};
use serde::{Deserialize, Serialize};

use super::store::SUBJECT;
use super::{locked_campaign, owned_campaign};
use crate::domain::{Ctx, Principal, db};
use crate::error::{AppError, FieldErrors};
use crate::model::fraud::{DEFAULT_HOLD_SCORE, FraudRules, FraudRulesInput};
use entity::offer_campaign;

/// The rules as stored (`offer_campaigns.fraud_rules`); absent fields are defaults.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    hold_score: Option<i32>,
    min_seconds_to_convert: Option<i64>,
}

/// The rules in force for a campaign.
pub fn of(m: &offer_campaign::Model) -> FraudRules {
    let s: Stored = serde_json::from_str(&m.fraud_rules).unwrap_or_default();
    FraudRules {
        campaign_id: m.id.clone(),
        hold_score: s.hold_score.unwrap_or(DEFAULT_HOLD_SCORE),
        min_seconds_to_convert: s.min_seconds_to_convert,
    }
}

/// `GET campaigns/{id}/fraud-rules`.
pub async fn get(ctx: &Ctx, actor: &Principal, id: &str) -> Result<FraudRules, AppError> {
    Ok(of(&owned_campaign(&ctx.db, actor, id).await?))
}

/// `PUT campaigns/{id}/fraud-rules`: an absent field returns to the default.
pub async fn put(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    input: FraudRulesInput,
) -> Result<FraudRules, AppError> {
    let mut errs = FieldErrors::new();
    if input.hold_score.is_some_and(|s| !(1..=100).contains(&s)) {
        errs.add("holdScore", "must be 1 to 100");
    }
    if input
        .min_seconds_to_convert
        .is_some_and(|s| !(0..=86_400).contains(&s))
    {
        errs.add("minSecondsToConvert", "must be 0 to 86400");
    }
    errs.finish()?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked_campaign(&txn, actor, id).await?;
    let before = of(&m);
    let stored = Stored {
        hold_score: input.hold_score,
        min_seconds_to_convert: input.min_seconds_to_convert,
    };
    let mut a = m.into_active_model();
    a.fraud_rules = Set(serde_json::to_string(&stored).map_err(|_| AppError::internal())?);
    a.updated_at = Set(now);
    let m = a.update(&txn).await?;
    let after = of(&m);
    let detail = serde_json::json!({
        "holdScore": {"from": before.hold_score, "to": after.hold_score},
        "minSecondsToConvert": {"from": before.min_seconds_to_convert, "to": after.min_seconds_to_convert},
    });
    actor
        .audit(&txn, now, "campaign.fraud_rules", (SUBJECT, &m.id), detail)
        .await?;
    txn.commit().await?;
    Ok(after)
}
