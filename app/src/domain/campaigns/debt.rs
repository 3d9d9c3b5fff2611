//! An advertiser in debt: a refund or chargeback took back more than its wallet held
//! (`billing::funding` books the rest as owed). Its live offer campaigns pause, their unused
//! reserves return to the wallet and pay the debt as far as they go, and the advertiser is
//! told which campaigns stopped; resuming one reserves its budget again, which only money
//! beyond the debt can do (the next funding pays the debt first).
//!
//! Billing sits below campaigns, so it cannot pause them itself: the provider's webhook
//! calls [`pause_for_debt`] after every return it receives, repeats included, which makes a
//! crash between the two steps heal on PayPal's next delivery.

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect, Set};

use super::lifecycle::{save, set_reserve};
use super::store::SUBJECT;
use crate::domain::billing::funding::{owed_under_lock, pay_debt_from_wallet};
use crate::domain::changes::Change;
use crate::domain::notices::{self, Notice};
use crate::domain::{Ctx, audit, db};
use crate::error::AppError;
use crate::model::NoticeTopic;
use crate::model::campaign::CampaignStatus;
use crate::model::money::Micros;
use entity::offer_campaign;

/// What pausing for a debt did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DebtPause {
    /// The campaigns paused.
    pub paused: Vec<String>,
    /// What their released reserves paid of the debt.
    pub paid: Micros,
    /// What is still owed.
    pub owed: Micros,
}

/// Pauses the advertiser's live offer campaigns while it owes money, in one transaction
/// under the advertiser's lock; nothing when it owes nothing.
pub async fn pause_for_debt(ctx: &Ctx, advertiser_id: &str) -> Result<DebtPause, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let owed = owed_under_lock(&txn, advertiser_id).await?;
    if owed == 0 {
        return Ok(DebtPause::default());
    }
    let live = offer_campaign::Entity::find()
        .filter(offer_campaign::Column::AdvertiserId.eq(advertiser_id.to_owned()))
        .filter(offer_campaign::Column::Status.eq(CampaignStatus::Live))
        .lock_exclusive()
        .all(&txn)
        .await?;
    let mut paused = Vec::with_capacity(live.len());
    for m in live {
        set_reserve(&txn, now, &m, 0).await?;
        let m = save(&txn, m, |a| a.status = Set(CampaignStatus::Paused), now).await?;
        let detail = serde_json::json!({"from": "LIVE", "to": "PAUSED", "owedMicros": owed});
        audit::record(
            &txn,
            now,
            None,
            "campaign.paused_for_debt",
            (SUBJECT, &m.id),
            detail,
        )
        .await?;
        paused.push(m.id);
    }
    let paid = pay_debt_from_wallet(&txn, now, advertiser_id, owed).await?;
    let left = owed - paid;
    if !paused.is_empty() || paid > 0 {
        let mut body = format!(
            "A refund or chargeback left {} owed. ",
            Micros(owed).money("USD")
        );
        if !paused.is_empty() {
            body.push_str(&format!(
                "These campaigns were paused and their unused budgets returned to your wallet: {}. ",
                paused.join(", ")
            ));
        }
        body.push_str(&format!(
            "{} of the debt was paid from your wallet; {} is still owed. Fund your wallet to \
             resume them.",
            Micros(paid).money("USD"),
            Micros(left).money("USD")
        ));
        let told = Notice::new(
            NoticeTopic::FundingReturned,
            "Campaigns paused: a refund or chargeback left money owed".to_owned(),
            body,
        )
        .about("advertiser", advertiser_id, "/advertiser/billing");
        notices::tell(ctx, &txn, now, advertiser_id, told).await?;
    }
    ctx.commit_and_announce(txn, [Change::Offers]).await?;
    Ok(DebtPause {
        paused,
        paid: Micros(paid),
        owed: Micros(left),
    })
}

/// After a provider event about `funding_id` (a return, or any other: a no-op without a
/// debt), the funding's advertiser pauses for its debt.
pub async fn after_provider_event(ctx: &Ctx, funding_id: &str) -> Result<DebtPause, AppError> {
    let Some(f) = entity::funding::Entity::find_by_id(funding_id.to_owned())
        .one(&ctx.db)
        .await?
    else {
        return Ok(DebtPause::default());
    };
    pause_for_debt(ctx, &f.advertiser_id).await
}
