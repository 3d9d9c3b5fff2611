//! The advertiser's conversion list: every transaction of its campaigns (offer conversions
//! and survey completes), filtered in SQL and paged newest first, one query a page on the
//! index that leads with the advertiser.

use chrono::{Duration, NaiveTime};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

use crate::domain::paging::Page;
use crate::domain::report_range::check_day;
use crate::domain::{Ctx, Principal};
use crate::error::{AppError, FieldErrors};
use crate::model::campaign::conversions::{ConversionItem, ConversionList, ConversionQuery};
use crate::model::money::{Micros, format_micros};
use entity::conversion;

/// The cursor prefix of conversions.
pub const ID_PREFIX: &str = "cnv";

fn item(c: conversion::Model) -> ConversionItem {
    ConversionItem {
        payout: format_micros(c.payout_micros),
        payout_micros: Micros(c.payout_micros),
        conversion_id: c.id,
        campaign_id: c.campaign_id,
        transaction_id: c.transaction_id,
        click_id: c.click_id,
        goal_id: c.goal_id,
        reported_status: c.status,
        settlement: c.settlement,
        placement_id: c.placement_id,
        occurred_at: c.occurred_at,
        created_at: c.created_at,
        reversed_at: c.reversed_at,
        fraud_score: c.fraud_score,
        fraud_reasons: crate::model::fraud::parse_reasons(c.fraud_reasons.as_deref()),
        held_until: c.held_until,
    }
}

/// `GET /performance-marketing/v2/conversions`: the caller's conversions (an administrator
/// names the advertiser with `advertiserId`).
pub async fn list(
    ctx: &Ctx,
    actor: &Principal,
    advertiser: Option<&str>,
    q: &ConversionQuery,
) -> Result<ConversionList, AppError> {
    let advertiser = crate::domain::billing::acting_advertiser(ctx, actor, advertiser).await?;
    let page = Page::parse(q.limit, q.cursor.as_deref(), ID_PREFIX)?;
    let from = check_day("from", q.from)?;
    let to = check_day("to", q.to)?;
    let mut errs = FieldErrors::new();
    if let (Some(f), Some(t)) = (from, to)
        && f > t
    {
        errs.add("to", "must not be before from");
    }
    let text = |v: &Option<String>, field: &str, errs: &mut FieldErrors| {
        let v = v.as_deref().map(str::trim).filter(|v| !v.is_empty())?;
        if v.len() > 200 {
            errs.add(field, "must be at most 200 characters");
            return None;
        }
        Some(v.to_owned())
    };
    let campaign = text(&q.campaign_id, "campaignId", &mut errs);
    let goal = text(&q.goal_id, "goalId", &mut errs);
    let transaction = text(&q.transaction_id, "transactionId", &mut errs);
    let click = text(&q.click_id, "clickId", &mut errs);
    let status = text(&q.status, "status", &mut errs).map(|s| s.to_ascii_uppercase());
    errs.finish()?;
    let mut sel =
        conversion::Entity::find().filter(conversion::Column::AdvertiserId.eq(advertiser));
    if let Some(c) = campaign {
        sel = sel.filter(conversion::Column::CampaignId.eq(c));
    }
    if let Some(g) = goal {
        sel = sel.filter(conversion::Column::GoalId.eq(g));
    }
    if let Some(t) = transaction {
        sel = sel.filter(conversion::Column::TransactionId.eq(t));
    }
    if let Some(c) = click {
        sel = sel.filter(conversion::Column::ClickId.eq(c));
    }
    if let Some(s) = status {
        sel = sel.filter(conversion::Column::Settlement.eq(s));
    }
    if let Some(f) = from {
        sel = sel.filter(conversion::Column::CreatedAt.gte(f.and_time(NaiveTime::MIN).and_utc()));
    }
    if let Some(t) = to {
        let end = (t + Duration::days(1)).and_time(NaiveTime::MIN).and_utc();
        sel = sel.filter(conversion::Column::CreatedAt.lt(end));
    }
    let rows = page
        .select(sel, conversion::Column::Id)
        .all(&ctx.db)
        .await?;
    let (rows, next_cursor) = page.finish(rows, |c| &c.id);
    Ok(ConversionList {
        items: rows.into_iter().map(item).collect(),
        next_cursor,
    })
}
