//! The conversion row a settled report leaves: its settlement and money, the publisher's
//! earnings, and (issue 51) what its click looked like and what screening found, so the
//! next batch's fraud evidence, the goal norms and the review queues read it back.

use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, DatabaseTransaction, EntityTrait, Set};

use super::attribution::Attribution;
use super::hold::Screening;
use crate::domain::billing::share::publisher_share;
use crate::domain::conversions::reported::{Reported, Settlement};
use crate::domain::fraud;
use crate::error::AppError;
use crate::model::publisher::earnings::EarningsState;
use entity::{conversion, offer_campaign};

/// What a report makes of its conversion row: the row (new or `existing`), its settlement,
/// the launch it is attributed to, when the publisher is credited and what screening found.
pub(super) struct ConversionRow<'a> {
    pub id: &'a str,
    pub existing: Option<conversion::Model>,
    pub settlement: Settlement,
    pub attribution: Option<&'a Attribution>,
    pub credit_at: Option<DateTime<Utc>>,
    pub screening: Option<&'a Screening>,
}

/// The click's facts as the row keeps them: address, network, device and the seconds
/// from the click to the report.
struct ClickFacts {
    ip: Option<String>,
    network: Option<String>,
    device: Option<String>,
    seconds: i64,
}

/// The click's facts; its network and device only for a first sighting (or a report that
/// was not screened), so the evidence indexes hold one entry per user, placement and address
/// or device a day, however often the user converts.
fn click_facts(
    a: &Attribution,
    reported_at: DateTime<Utc>,
    screening: Option<&Screening>,
) -> ClickFacts {
    let click = fraud::click_of(&a.launch);
    let (new_address, new_device) =
        screening.map_or((true, true), |s| (s.new_address, s.new_device));
    ClickFacts {
        ip: a
            .launch
            .opened_ip
            .clone()
            .or_else(|| a.launch.client_ip.clone()),
        network: click.address.filter(|_| new_address).map(|c| c.network),
        device: click.device.filter(|_| new_device),
        seconds: (reported_at - a.launch.created_at).num_seconds().max(0),
    }
}

pub(super) async fn write(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    campaign: &offer_campaign::Model,
    ev: &Reported,
    row: ConversionRow<'_>,
) -> Result<(), AppError> {
    let ConversionRow {
        id,
        existing,
        settlement,
        attribution: a,
        credit_at,
        screening,
    } = row;
    let counted = matches!(settlement, Settlement::Pending | Settlement::Approved);
    let (payout, earnings, reward) = match a {
        Some(a) if counted => (
            a.payout_micros.get(),
            publisher_share(a.payout_micros).get(),
            a.reward.minor_units,
        ),
        // What paying a held conversion would cost (the queues show it); nothing earned.
        Some(a) if settlement == Settlement::Held => (a.payout_micros.get(), 0, 0),
        _ => (0, 0, 0),
    };
    // Paid conversions earn for the publisher from now, pending until the hold ends.
    let earned = (settlement == Settlement::Approved)
        .then(|| a.map(|a| a.placement.owner_account_id.clone()))
        .flatten();
    let earnings_state = earned.as_ref().map(|_| EarningsState::Pending);
    let earnings_at = earned.as_ref().map(|_| now);
    let held = settlement == Settlement::Held;
    let held_until = screening.and_then(|s| s.held.flatten());
    let facts = a.map(|a| click_facts(a, ev.received_at.unwrap_or(now), screening));
    match existing {
        Some(c) => {
            let was_held = c.settlement == Settlement::Held;
            let mut am: conversion::ActiveModel = c.clone().into();
            if earned.is_some() {
                am.publisher_id = Set(earned);
                am.earnings_state = Set(earnings_state);
                am.earnings_at = Set(earnings_at);
            }
            am.status = Set(ev.status);
            am.settlement = Set(settlement);
            am.payout_micros = Set(payout);
            am.publisher_earnings_micros = Set(earnings);
            am.reward_minor_units = Set(reward);
            am.credit_at = Set(credit_at);
            am.updated_at = Set(now);
            if let Some(s) = screening {
                am.fraud_score = Set(s.score);
                am.fraud_reasons = Set(s.reasons.clone());
            }
            if held && !was_held {
                am.held_at = Set(Some(now));
            }
            am.held_until = Set(held.then_some(held_until).flatten());
            // The first report's timing is the click's (a later approval keeps it).
            if let Some(f) = facts
                && c.seconds_to_convert.is_none()
            {
                am.click_ip = Set(f.ip);
                am.click_network = Set(f.network);
                am.device_id = Set(f.device);
                am.seconds_to_convert = Set(Some(f.seconds));
            }
            am.update(txn).await?;
        }
        None => {
            let row = conversion::ActiveModel {
                id: Set(id.to_owned()),
                campaign_id: Set(campaign.id.clone()),
                advertiser_id: Set(campaign.advertiser_id.clone()),
                transaction_id: Set(ev.transaction_id.clone()),
                click_id: Set(ev.click_id.clone()),
                goal_id: Set(ev.goal_id.clone()),
                status: Set(ev.status),
                settlement: Set(settlement),
                placement_id: Set(a.map(|a| a.placement.id.clone())),
                ad_slot_id: Set(a.map(|a| a.launch.ad_slot_id.clone())),
                session_id: Set(a.map(|a| a.launch.session_id.clone())),
                external_user_id: Set(a.map(|a| a.launch.external_user_id.clone())),
                payout_micros: Set(payout),
                publisher_earnings_micros: Set(earnings),
                reward_minor_units: Set(reward),
                occurred_at: Set(crate::domain::clock::truncate_micros(ev.occurred_at)),
                created_at: Set(now),
                updated_at: Set(now),
                credit_at: Set(credit_at),
                publisher_id: Set(earned),
                earnings_state: Set(earnings_state),
                earnings_at: Set(earnings_at),
                reversed_at: Set(None),
                fraud_score: Set(screening.map_or(0, |s| s.score)),
                fraud_reasons: Set(screening.and_then(|s| s.reasons.clone())),
                held_at: Set(held.then_some(now)),
                held_until: Set(held.then_some(held_until).flatten()),
                seconds_to_convert: Set(facts.as_ref().map(|f| f.seconds)),
                click_ip: Set(facts.as_ref().and_then(|f| f.ip.clone())),
                click_network: Set(facts.as_ref().and_then(|f| f.network.clone())),
                device_id: Set(facts.and_then(|f| f.device)),
                decided_by: Set(None),
                decided_at: Set(None),
                decision_note: Set(None),
            };
            conversion::Entity::insert(row)
                .exec_without_returning(txn)
                .await?;
        }
    }
    Ok(())
}
