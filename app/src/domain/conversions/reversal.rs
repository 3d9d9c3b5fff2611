//! Reversal of a paid conversion: the exact opposite of its payment, from the amounts and
//! the earnings state stored on the conversion, so what was paid is what comes back however
//! the campaign or the publisher's terms have changed since. One function for every way a
//! conversion is reversed: a postback, a bulk reconciliation line, a survey reversal.

use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, DatabaseTransaction, EntityTrait, Set};

use super::reported::Settlement;
use crate::domain::billing::ledger::{self, PaidFrom, PostError};
use crate::domain::callback_delivery::outbox::{self, RewardEvent};
use crate::domain::earnings;
use crate::error::AppError;
use crate::model::money::Micros;
use crate::model::publisher::RewardPreview;
use crate::model::publisher::earnings::EarningsState;
use crate::model::publisher::rules::format_minor;
use entity::{ad_slot, conversion, placement};

/// How a paid conversion is reversed.
pub(in crate::domain) struct Reversal<'a> {
    /// Where the payment came from. Money paid from a reserve or the wallet returns to the
    /// advertiser's available balance (the reserve may have been released since); a
    /// complete paid outside the wallet cancels what the advertiser owed.
    pub paid_from: PaidFrom,
    /// The campaign's ledger subject (offer or survey campaign).
    pub subject: &'a str,
    /// The reported status stored on the conversion (`reversed` or `rejected`).
    pub reported_status: entity::values::ReportedStatus,
    /// When the reversal happened as reported (in the reward callback).
    pub occurred_at: DateTime<Utc>,
}

/// Reverses an approved conversion with the amounts stored when it was paid, in `txn`:
/// the ledger posting, the conversion row and the publisher's `reward.reversed` callback
/// (or the cancellation of a confirmation not sent yet). The caller holds the campaign's
/// lock and has checked that the conversion is APPROVED.
pub(in crate::domain) async fn reverse_paid(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    c: &conversion::Model,
    how: &Reversal<'_>,
) -> Result<(), AppError> {
    if c.payout_micros > 0 {
        let earning = earnings::stored_earning(c);
        match ledger::post(
            txn,
            now,
            if how.paid_from == PaidFrom::External {
                ledger::TransactionKind::ExternalRefund
            } else {
                ledger::TransactionKind::Refund
            },
            &c.advertiser_id,
            (how.subject, &c.campaign_id),
            &format!("conversion_reversal:{}", c.id),
            &ledger::conversion_reversal_legs(
                how.paid_from,
                &c.advertiser_id,
                &c.campaign_id,
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
    am.status = Set(how.reported_status);
    am.settlement = Set(Settlement::Reversed);
    if c.earnings_state.is_some() {
        am.earnings_state = Set(Some(EarningsState::Reversed));
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
        campaign_id: &c.campaign_id,
        user: c.external_user_id.as_deref().unwrap_or_default(),
        goal_id: &c.goal_id,
        reward: &reward,
        occurred_at: how.occurred_at,
    };
    outbox::reverse(txn, now, &event).await?;
    Ok(())
}

/// Whether `c` is still inside the reconciliation window at `now`.
pub(in crate::domain) fn inside_window(
    c: &conversion::Model,
    now: DateTime<Utc>,
    window: chrono::Duration,
) -> bool {
    now <= c.created_at + window
}
