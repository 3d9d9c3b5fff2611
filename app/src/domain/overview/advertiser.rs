//! An advertiser's home page: payouts, conversions and reversals of its campaigns (offer and
//! survey) by day, the available balance, and live campaigns that ran out of budget,
//! rejected campaigns, wires awaiting review and surveys awaiting approval.

use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};

use super::{Side, days};
use crate::domain::billing::ledger;
use crate::domain::campaigns::{config_of, inventory};
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::billing::FundingStatus;
use crate::model::campaign::CampaignStatus;
use crate::model::overview::{Overview, plural};
use crate::model::survey::campaign::SurveyStatus;
use entity::{funding, offer_campaign, survey_campaign};

/// The signed-in advertiser's figures.
pub async fn overview(ctx: &Ctx, actor: &Principal) -> Result<Overview, AppError> {
    actor.require_approved_advertiser()?;
    let owner = actor.account_id.as_str();
    let balance = ledger::balance(&ctx.db, owner).await?;
    let mut o = Overview {
        currency: balance.currency.clone(),
        days: days(&ctx.db, Side::Advertiser(owner), ctx.now().date_naive()).await?,
        balance_micros: Some(balance.available_micros),
        ..Overview::default()
    }
    .with_totals();
    let campaigns = offer_campaign::Entity::find()
        .filter(offer_campaign::Column::AdvertiserId.eq(owner.to_owned()))
        .filter(offer_campaign::Column::Status.is_in([
            CampaignStatus::Live.as_str(),
            CampaignStatus::Rejected.as_str(),
        ]))
        .all(&ctx.db)
        .await?;
    let live: Vec<&offer_campaign::Model> = campaigns
        .iter()
        .filter(|c| c.status == CampaignStatus::Live)
        .collect();
    let ids: Vec<String> = live.iter().map(|c| c.id.clone()).collect();
    let reserves = inventory::reserves(&ctx.db, &ids).await?;
    let starved = live
        .iter()
        .filter(|c| {
            let reserved = inventory::reserve_of(&reserves, owner, &c.id);
            config_of(c).is_ok_and(|cfg| !inventory::can_pay(&cfg, reserved))
        })
        .count() as i64;
    o.attend(
        "out_of_budget",
        starved,
        |n| {
            format!(
                "{} live but out of budget: raise the budget or add funds",
                plural(n, "campaign is", "campaigns are")
            )
        },
        "/advertiser/campaigns",
    );
    let rejected = campaigns.len() as i64 - live.len() as i64;
    o.attend(
        "rejected_campaigns",
        rejected,
        |n| {
            format!(
                "{} rejected in review: see the reason, edit and resubmit",
                plural(n, "campaign was", "campaigns were")
            )
        },
        "/advertiser/campaigns",
    );
    let wires = funding::Entity::find()
        .filter(funding::Column::AdvertiserId.eq(owner.to_owned()))
        .filter(funding::Column::Status.eq(FundingStatus::AwaitingReview.as_str()))
        .count(&ctx.db)
        .await?;
    o.attend(
        "fundings_in_review",
        wires as i64,
        |n| {
            format!(
                "{} awaiting an administrator's review",
                plural(n, "wire transfer is", "wire transfers are")
            )
        },
        "/advertiser/billing",
    );
    let surveys = survey_campaign::Entity::find()
        .filter(survey_campaign::Column::AdvertiserId.eq(owner.to_owned()))
        .filter(survey_campaign::Column::Status.eq(SurveyStatus::PendingApproval.as_str()))
        .count(&ctx.db)
        .await?;
    o.attend(
        "surveys_in_review",
        surveys as i64,
        |n| {
            format!(
                "{} awaiting approval",
                plural(n, "survey campaign is", "survey campaigns are")
            )
        },
        "/advertiser/surveys",
    );
    Ok(o)
}
