//! Reversal of a paid conversion: the exact opposite of its payment, from the amounts and
//! the earnings state stored on the conversion, so what was paid is what comes back however
//! the campaign or the publisher's terms have changed since.

use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, DatabaseTransaction, EntityTrait, Set};

use super::{Reported, Settlement};
use crate::domain::billing::ledger::{self, PostError};
use crate::domain::callback_delivery::outbox::{self, RewardEvent};
use crate::domain::campaigns::store::SUBJECT;
use crate::domain::earnings;
use crate::error::AppError;
use crate::model::money::Micros;
use crate::model::publisher::RewardPreview;
use crate::model::publisher::earnings::EarningsState;
use crate::model::publisher::rules::format_minor;
use entity::{ad_slot, conversion, offer_campaign, placement};

/// Reverses an approved conversion with the amounts stored when it was paid.
pub(super) async fn reverse(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    campaign: &offer_campaign::Model,
    ev: &Reported,
    c: &conversion::Model,
) -> Result<(), AppError> {
    if c.payout_micros > 0 {
        // The campaign's money always returns to the advertiser's available balance (the
        // reserve it came from may have been released since).
        let earning = earnings::stored_earning(c);
        match ledger::post(
            txn,
            now,
            "refund",
            &campaign.advertiser_id,
            (SUBJECT, &campaign.id),
            &format!("conversion_reversal:{}", c.id),
            &ledger::conversion_reversal_legs(
                ledger::PaidFrom::Reserve,
                &campaign.advertiser_id,
                &campaign.id,
                c.payout_micros,
                earning.as_ref(),
            ),
        )
        .await
        {
            Ok(_) | Err(PostError::AlreadyPosted) => {}
            Err(e) => return Err(e.into()),
        }
    }
    let mut am: conversion::ActiveModel = c.clone().into();
    am.status = Set(ev.status.as_str().to_owned());
    am.settlement = Set(Settlement::Reversed.as_str().to_owned());
    if c.earnings_state.is_some() {
        am.earnings_state = Set(Some(EarningsState::Reversed.as_str().to_owned()));
    }
    am.reversed_at = Set(Some(now));
    am.updated_at = Set(now);
    am.update(txn).await?;
    let Some(placement_id) = &c.placement_id else {
        return Ok(());
    };
    let Some(p) = placement::Entity::find_by_id(placement_id.clone())
        .one(txn)
        .await?
    else {
        return Ok(());
    };
    let slot = match &c.ad_slot_id {
        Some(id) => ad_slot::Entity::find_by_id(id.clone()).one(txn).await?,
        None => None,
    };
    let (currency, decimals) = slot
        .as_ref()
        .map(|s| (s.currency_name.clone(), s.currency_decimals))
        .unwrap_or_default();
    let reward = RewardPreview {
        usd_micros: Micros(c.publisher_earnings_micros),
        minor_units: c.reward_minor_units,
        display: format_minor(c.reward_minor_units, decimals),
        currency,
        decimals,
        meets_minimum_payout: true,
    };
    let event = RewardEvent {
        placement: &p,
        slot: slot.as_ref(),
        conversion_id: &c.id,
        campaign_id: &campaign.id,
        user: c.external_user_id.as_deref().unwrap_or_default(),
        goal_id: &c.goal_id,
        reward: &reward,
        occurred_at: ev.occurred_at,
    };
    outbox::reverse(txn, now, &event).await?;
    Ok(())
}

