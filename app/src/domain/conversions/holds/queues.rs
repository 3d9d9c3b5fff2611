//! The queues of held conversions and the fraud rates: the administrators' queue (every
//! held conversion, by placement and reason, oldest first), the publisher's (its
//! placements' held conversions and why, without the advertiser's identifiers) and the
//! rates of placements (held and reversed shares over the pause window). The held
//! conversions are read through a partial index that holds only them.

use std::collections::HashMap;

use chrono::Duration;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Select};

use crate::domain::conversions::reported::Settlement;
use crate::domain::paging::Page;
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::fraud::{
    FraudOverview, FraudSignal, HeldConversion, HeldList, HeldQuery, PlacementFraudStats,
    SignalCount, parse_reasons,
};
use crate::model::money::{Micros, format_micros};
use entity::{conversion, placement};

/// Placements the administrators' overview lists at most.
const MAX_PLACEMENTS: u64 = 200;
/// Held conversions whose reasons are counted at most.
const MAX_COUNTED: u64 = 10_000;

fn item(c: conversion::Model, for_publisher: bool) -> HeldConversion {
    HeldConversion {
        payout: format_micros(c.payout_micros),
        payout_micros: Micros(c.payout_micros),
        reasons: parse_reasons(c.fraud_reasons.as_deref()),
        advertiser_id: (!for_publisher).then_some(c.advertiser_id),
        transaction_id: (!for_publisher).then_some(c.transaction_id),
        conversion_id: c.id,
        campaign_id: c.campaign_id,
        placement_id: c.placement_id,
        external_user_id: c.external_user_id,
        goal_id: c.goal_id,
        fraud_score: c.fraud_score,
        held_at: c.held_at,
        held_until: c.held_until,
        seconds_to_convert: c.seconds_to_convert,
        created_at: c.created_at,
    }
}

/// The held conversions matching the query's filters.
fn held(q: &HeldQuery) -> Result<Select<conversion::Entity>, AppError> {
    let mut sel = conversion::Entity::find()
        .filter(conversion::Column::Settlement.eq(Settlement::Held.as_str()));
    if let Some(p) = q.placement_id.as_deref().filter(|p| !p.is_empty()) {
        sel = sel.filter(conversion::Column::PlacementId.eq(p.to_owned()));
    }
    if let Some(c) = q.campaign_id.as_deref().filter(|c| !c.is_empty()) {
        sel = sel.filter(conversion::Column::CampaignId.eq(c.to_owned()));
    }
    if let Some(s) = q.signal.as_deref().filter(|s| !s.is_empty()) {
        let signal = FraudSignal::parse(s)
            .ok_or_else(|| AppError::field("signal", "must be one of the fraud signals"))?;
        // The stored reasons are JSON; the quoted name matches one reason's signal.
        sel = sel
            .filter(conversion::Column::FraudReasons.contains(format!("\"{}\"", signal.as_str())));
    }
    Ok(sel)
}

async fn page_of(
    ctx: &Ctx,
    sel: Select<conversion::Entity>,
    q: &HeldQuery,
    for_publisher: bool,
) -> Result<HeldList, AppError> {
    let page = Page::parse(q.limit, q.cursor.as_deref(), super::super::list::ID_PREFIX)?;
    let rows = page
        .select_oldest_first(sel, conversion::Column::Id)
        .all(&ctx.db)
        .await?;
    let (rows, next_cursor) = page.finish(rows, |c| &c.id);
    Ok(HeldList {
        items: rows.into_iter().map(|c| item(c, for_publisher)).collect(),
        next_cursor,
    })
}

/// Held conversions (read through their partial index) and placements paused for fraud, for
/// the operator's gauges.
pub async fn gauges(db: &sea_orm::DatabaseConnection) -> Result<(u64, u64), AppError> {
    use sea_orm::PaginatorTrait;
    let held = conversion::Entity::find()
        .filter(conversion::Column::Settlement.eq(Settlement::Held.as_str()))
        .count(db)
        .await?;
    let paused = placement::Entity::find()
        .filter(placement::Column::DeliveryPausedAt.is_not_null())
        .count(db)
        .await?;
    Ok((held, paused))
}

/// `GET /admin/v1/fraud/holds`: every held conversion, oldest first.
pub async fn admin_queue(
    ctx: &Ctx,
    actor: &Principal,
    q: &HeldQuery,
) -> Result<HeldList, AppError> {
    actor.require_admin()?;
    page_of(ctx, held(q)?, q, false).await
}

/// The publisher's placements (an administrator sees none of its own).
async fn own_placements(ctx: &Ctx, actor: &Principal) -> Result<Vec<placement::Model>, AppError> {
    actor.require_publisher()?;
    Ok(placement::Entity::find()
        .filter(placement::Column::OwnerAccountId.eq(actor.account_id.clone()))
        .filter(placement::Column::ArchivedAt.is_null())
        .order_by_asc(placement::Column::CreatedAt)
        .all(&ctx.db)
        .await?)
}

/// `GET /publisher/v2/fraud/holds`: the caller's placements' held conversions with their
/// reasons (the advertiser's identifiers left out).
pub async fn publisher_holds(
    ctx: &Ctx,
    actor: &Principal,
    q: &HeldQuery,
) -> Result<HeldList, AppError> {
    let ids: Vec<String> = own_placements(ctx, actor)
        .await?
        .into_iter()
        .map(|p| p.id)
        .collect();
    if q.placement_id
        .as_deref()
        .is_some_and(|p| !p.is_empty() && !ids.iter().any(|i| i == p))
    {
        return Err(AppError::not_found("placement"));
    }
    let sel = held(q)?.filter(conversion::Column::PlacementId.is_in(ids));
    page_of(ctx, sel, q, true).await
}

/// `GET /publisher/v2/fraud` (the caller's placements) and `GET /admin/v1/fraud/summary`
/// (placements with held conversions or a pause).
pub async fn fraud_overview(ctx: &Ctx, actor: &Principal) -> Result<FraudOverview, AppError> {
    let placements = if actor.role.is_admin() {
        let held: Vec<String> = conversion::Entity::find()
            .select_only()
            .column(conversion::Column::PlacementId)
            .filter(conversion::Column::Settlement.eq(Settlement::Held.as_str()))
            .filter(conversion::Column::PlacementId.is_not_null())
            .group_by(conversion::Column::PlacementId)
            .limit(MAX_PLACEMENTS)
            .into_tuple::<Option<String>>()
            .all(&ctx.db)
            .await?
            .into_iter()
            .flatten()
            .collect();
        placement::Entity::find()
            .filter(
                sea_orm::Condition::any()
                    .add(placement::Column::Id.is_in(held))
                    .add(placement::Column::DeliveryPausedAt.is_not_null()),
            )
            .order_by_asc(placement::Column::CreatedAt)
            .limit(MAX_PLACEMENTS)
            .all(&ctx.db)
            .await?
    } else {
        own_placements(ctx, actor).await?
    };
    let limits = ctx.fraud.limits;
    let since = ctx.now() - Duration::days(limits.window_days);
    let ids: Vec<String> = placements.iter().map(|p| p.id.clone()).collect();
    let counts: Vec<(Option<String>, Settlement, i64)> = conversion::Entity::find()
        .select_only()
        .column(conversion::Column::PlacementId)
        .column(conversion::Column::Settlement)
        .column_as(Expr::cust("COUNT(*)"), "n")
        .filter(conversion::Column::PlacementId.is_in(ids.clone()))
        .filter(conversion::Column::CreatedAt.gte(since))
        .group_by(conversion::Column::PlacementId)
        .group_by(conversion::Column::Settlement)
        .into_tuple()
        .all(&ctx.db)
        .await?;
    let mut by: HashMap<String, crate::domain::fraud::guard::Shares> = HashMap::new();
    for (p, settlement, n) in counts {
        let Some(p) = p else {
            continue;
        };
        let e = by.entry(p).or_default();
        match settlement {
            Settlement::UnmatchedClick | Settlement::UnknownGoal | Settlement::OutOfWindow => {
                continue;
            }
            Settlement::Held => e.held += n,
            Settlement::Reversed => e.reversed += n,
            _ => {}
        }
        e.conversions += n;
    }
    let reasons: Vec<Option<String>> = conversion::Entity::find()
        .select_only()
        .column(conversion::Column::FraudReasons)
        .filter(conversion::Column::Settlement.eq(Settlement::Held.as_str()))
        .filter(conversion::Column::PlacementId.is_in(ids))
        .limit(MAX_COUNTED)
        .into_tuple()
        .all(&ctx.db)
        .await?;
    let mut signals: HashMap<FraudSignal, i64> = HashMap::new();
    for r in reasons {
        for reason in parse_reasons(r.as_deref()) {
            *signals.entry(reason.signal).or_default() += 1;
        }
    }
    let held_by_signal = FraudSignal::ALL
        .iter()
        .filter_map(|s| {
            signals.get(s).map(|n| SignalCount {
                signal: *s,
                count: *n,
            })
        })
        .collect();
    Ok(FraudOverview {
        placements: placements
            .into_iter()
            .map(|p| {
                let s = by.get(&p.id).copied().unwrap_or_default();
                PlacementFraudStats {
                    held_share_bps: s.held * 10_000 / s.conversions.max(1),
                    reversal_share_bps: s.reversed * 10_000 / s.conversions.max(1),
                    conversions: s.conversions,
                    held: s.held,
                    reversed: s.reversed,
                    placement_id: p.id,
                    name: p.name,
                    paused_at: p.delivery_paused_at,
                    paused_reason: p.delivery_paused_reason,
                }
            })
            .collect(),
        held_by_signal,
        pause_share_bps: limits.share_bps,
        pause_min_conversions: limits.min_conversions,
        window_days: limits.window_days,
    })
}
