//! Which live offers a slot may show to whom, and how they look. The SDK offer list, the
//! single-offer read, impressions and launches all decide eligibility here, so an offer
//! that is listed can be shown, and one that is filtered (policy, blacklist, platform,
//! country, caps, the user's own completions) can be neither listed nor launched.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};

use super::deliverable_sdk_slot;
use crate::domain::Ctx;
use crate::domain::billing::share::publisher_share;
use crate::domain::campaigns::ATTRIBUTION_WINDOW_HOURS;
use crate::domain::campaigns::snapshot::{Offer, snapshot};
use crate::domain::principal::SdkActor;
use crate::domain::publisher::blacklists::{Candidate, excludes};
use crate::error::AppError;
use crate::model::campaign::device_targeting::Device;
use crate::model::campaign::{CreativeKind, Platform};
use crate::model::delivery::*;
use crate::model::money::Micros;
use crate::model::publisher::rules::convert;
use crate::model::publisher::{AdSlot, Currency};
use entity::{conversion, placement};

/// Conversions that count as the user's completions (the offer is not shown for that goal
/// again): pending, paid, and held for review (a held user must not convert again while a
/// decision is pending).
pub const COUNTED_SETTLEMENTS: [&str; 3] = ["PENDING", "APPROVED", "HELD"];

/// The slot a session asks about, checked: same placement, the bound slot if the session
/// has one, an SDK slot that is READY or ACTIVE.
pub async fn session_slot(
    ctx: &Ctx,
    s: &SdkActor,
    slot_id: Option<&str>,
) -> Result<(placement::Model, AdSlot), AppError> {
    let config = ctx
        .delivery_configs
        .get(&ctx.db, ctx.now(), &s.placement_id)
        .await?
        .ok_or_else(|| AppError::not_found("placement"))?;
    let p = config.placement.clone();
    let wanted = match (slot_id, s.ad_slot_id.as_deref()) {
        (Some(asked), Some(bound)) if asked != bound => {
            return Err(AppError::forbidden(
                "this session is bound to another ad slot",
            ));
        }
        (Some(asked), _) => Some(asked.to_owned()),
        (None, Some(bound)) => Some(bound.to_owned()),
        (None, None) => None,
    };
    // The parsed views are kept with the configuration: no JSON is read per request.
    let index = match wanted {
        Some(id) => config
            .slots
            .iter()
            .position(|c| c.id == id)
            .ok_or_else(|| AppError::not_found("ad slot"))?,
        None => {
            let mut deliverable = config
                .slots
                .iter()
                .enumerate()
                .filter(|(_, c)| deliverable_sdk_slot(c));
            match (deliverable.next(), deliverable.next()) {
                (Some((i, _)), None) => i,
                _ => {
                    return Err(AppError::field(
                        "adSlotId",
                        "name the ad slot: the session is not bound to one and the placement has several",
                    ));
                }
            }
        }
    };
    let view = config
        .views
        .get(index)
        .cloned()
        .ok_or_else(|| AppError::not_found("ad slot"))?;
    // A named STATIC_API slot is allowed too: static feed items point to the SDK impression
    // and launch routes, under the feed slot's policy and currency.
    if !matches!(
        view.state,
        crate::model::publisher::SlotState::Ready | crate::model::publisher::SlotState::Active
    ) {
        return Err(
            AppError::conflict("the ad slot must be READY or ACTIVE").with_code("slot_not_ready")
        );
    }
    Ok((p, view))
}

/// Who the offers are for.
pub struct Audience<'a> {
    pub platform: &'a str,
    /// Two uppercase letters; `None` skips geography (less precise).
    pub country: Option<&'a str>,
    /// The user, for caps and completions; `None` for the static feed.
    pub user: Option<&'a str>,
    /// Look at this one campaign only (a single offer is being read or launched).
    pub only: Option<&'a str>,
    /// What the offer list said about the device (empty elsewhere: unknown admits).
    pub device: Option<&'a Device>,
    /// Read the user's completions from the database rather than the hot cache (launches).
    pub exact: bool,
}

/// A live offer a slot may show, with the goals the user has already completed.
pub struct Eligible {
    pub offer: Arc<Offer>,
    pub completed_goals: HashSet<String>,
}

/// Checks and normalises a country query value.
pub fn country_param(raw: Option<&str>) -> Result<Option<String>, AppError> {
    match raw.map(str::trim).filter(|c| !c.is_empty()) {
        None => Ok(None),
        Some(c) if c.len() == 2 && c.chars().all(|ch| ch.is_ascii_uppercase()) => {
            Ok(Some(c.to_owned()))
        }
        Some(_) => Err(AppError::field(
            "country",
            "must be two uppercase letters (ISO 3166-1 alpha-2)",
        )),
    }
}

/// Live offers the slot may show to the audience, in the slot's sort order: the first
/// `want` of them (all when `None`). Reads the in-memory inventory; the only queries are
/// the publisher's blacklist rules and, for a user, their completions.
pub async fn eligible(
    ctx: &Ctx,
    p: &placement::Model,
    slot: &AdSlot,
    who: &Audience<'_>,
    want: Option<usize>,
) -> Result<Vec<Eligible>, AppError> {
    let now = ctx.now();
    let Some(platform) = Platform::parse(who.platform) else {
        return Ok(Vec::new());
    };
    let snap = snapshot(ctx).await?;
    let config = ctx
        .delivery_configs
        .get(&ctx.db, ctx.now(), &p.id)
        .await?
        .ok_or_else(|| AppError::not_found("placement"))?;
    // A placement paused for fraud review shows nothing (no fill) until it is resumed.
    if config.placement.delivery_paused_at.is_some() {
        return Ok(Vec::new());
    }
    let rules = &config.rules;
    let per_user = match who.user {
        Some(user) if who.exact => Some(Arc::new(completions(&ctx.db, &p.id, user).await?)),
        Some(user) => Some(cached_completions(ctx, &p.id, user).await?),
        None => None,
    };
    let policy = &slot.policy;
    let has = |list: &[String], v: &str| list.iter().any(|x| x.eq_ignore_ascii_case(v));
    if let Some(country) = who.country
        && ((!policy.allowed_countries.is_empty() && !has(&policy.allowed_countries, country))
            || has(&policy.blocked_countries, country))
    {
        return Ok(Vec::new());
    }
    let candidates: Box<dyn Iterator<Item = &Arc<Offer>>> = match who.only {
        Some(id) => Box::new(snap.get(id).into_iter().filter(move |o| {
            o.config.platforms.contains(&platform)
                && who
                    .country
                    .is_none_or(|k| o.config.countries.iter().any(|c| c == k))
        })),
        None => Box::new(snap.ordered(platform, who.country, slot.offer_delivery.sort)),
    };
    let want = want.unwrap_or(usize::MAX);
    let mut out = Vec::new();
    for offer in candidates {
        if out.len() >= want {
            break;
        }
        let c = &offer.config;
        if !offer.in_schedule(now)
            || policy
                .blocked_campaign_ids
                .iter()
                .any(|id| id == &offer.campaign.id)
            || has(&policy.excluded_campaign_task_types, &c.task_type)
            || has(&policy.excluded_campaign_categories, &c.category)
            || publisher_share(offer.total_payout_micros)
                < slot.offer_delivery.minimum_payout_micros
            || offer.caps_reached(snap.day, now)
            || who
                .device
                .is_some_and(|d| !c.targeting.admits(platform, who.country, d))
        {
            continue;
        }
        let candidate = Candidate {
            campaign_id: &offer.campaign.id,
            advertiser_id: &offer.campaign.advertiser_id,
            category: &c.category,
            task_type: &c.task_type,
            destination_host: &offer.host,
        };
        if excludes(rules, &candidate) {
            continue;
        }
        let mut completed_goals = HashSet::new();
        if let Some(per_user) = per_user.as_ref().filter(|m| !m.is_empty()) {
            let limit = c.caps.per_user.unwrap_or(1).max(1);
            for g in &c.goals {
                let key = (offer.campaign.id.clone(), g.external_goal_id.clone());
                if per_user.get(&key).is_some_and(|n| *n >= limit) {
                    completed_goals.insert(g.external_goal_id.clone());
                }
            }
            if completed_goals.len() >= c.goals.len() {
                continue;
            }
        }
        out.push(Eligible {
            offer: offer.clone(),
            completed_goals,
        });
    }
    Ok(out)
}

/// [`completions`] through the hot cache (settlements invalidate the user's entry).
pub(super) async fn cached_completions(
    ctx: &Ctx,
    placement_id: &str,
    user: &str,
) -> Result<Arc<HashMap<(String, String), i64>>, AppError> {
    let key = crate::domain::hot_cache::user_key(placement_id, user);
    ctx.hot
        .completions
        .get_or_load(&key, || async {
            completions(&ctx.db, placement_id, user).await.map(Arc::new)
        })
        .await
}

/// The user's counted conversions on a placement, by (campaign, goal).
pub async fn completions<C: ConnectionTrait>(
    db: &C,
    placement_id: &str,
    user: &str,
) -> Result<HashMap<(String, String), i64>, AppError> {
    let rows: Vec<(String, String)> = conversion::Entity::find()
        .select_only()
        .column(conversion::Column::CampaignId)
        .column(conversion::Column::GoalId)
        .filter(conversion::Column::PlacementId.eq(placement_id.to_owned()))
        .filter(conversion::Column::ExternalUserId.eq(user.to_owned()))
        .filter(conversion::Column::Settlement.is_in(COUNTED_SETTLEMENTS))
        .into_tuple()
        .all(db)
        .await?;
    let mut out = HashMap::new();
    for k in rows {
        *out.entry(k).or_insert(0) += 1;
    }
    Ok(out)
}

fn reward_minor(currency: &Currency, payout_micros: Micros) -> i64 {
    convert(
        publisher_share(payout_micros),
        currency.rate_numerator_minor_units,
        currency.rate_denominator_usd_micros.get(),
        currency.rounding,
    )
    .unwrap_or(0)
}

fn as_number(minor: i64, decimals: i32) -> f64 {
    // Display number only; `*MinorUnits` carries the exact amount.
    minor as f64 / 10f64.powi(decimals.max(0))
}

/// The offer as the SDK and the static feed show it.
pub fn item(e: &Eligible, currency: &Currency) -> OfferItem {
    let c = &e.offer.config;
    let goals: Vec<OfferGoal> = c
        .goals
        .iter()
        .map(|g| {
            let minor = reward_minor(currency, g.payout_micros);
            OfferGoal {
                id: g.external_goal_id.clone(),
                name: g.name.clone(),
                reward: as_number(minor, currency.decimals),
                reward_minor_units: minor,
                pending_minutes: g.pending_minutes,
                completion_window_hours: ATTRIBUTION_WINDOW_HOURS,
            }
        })
        .collect();
    let total: i64 = goals.iter().map(|g| g.reward_minor_units).sum();
    let steps: Vec<&str> = c.goals.iter().map(|g| g.name.as_str()).collect();
    let max_pending = c.goals.iter().map(|g| g.pending_minutes).max().unwrap_or(0);
    OfferItem {
        campaign_id: e.offer.campaign.id.clone(),
        title: c.name.clone(),
        requirements: c
            .description
            .clone()
            .filter(|d| !d.trim().is_empty())
            .unwrap_or_else(|| format!("Complete: {}", steps.join(", "))),
        disclaimer: format!(
            "Rewards are credited only after the advertiser confirms each goal{}. New users only; \
             one reward per goal.",
            if max_pending > 0 {
                format!(" (confirmation can take up to {max_pending} minutes)")
            } else {
                String::new()
            }
        ),
        category: c.category.clone(),
        task_type: c.task_type.clone(),
        image_urls: c
            .creatives
            .iter()
            .filter(|cr| cr.kind != CreativeKind::Video)
            .filter_map(|cr| cr.url.clone())
            .collect(),
        goals,
        total_reward: as_number(total, currency.decimals),
        total_reward_minor_units: total,
        currency: currency.clone(),
        attribution_window_hours: ATTRIBUTION_WINDOW_HOURS,
        creative_revision_id: format!(
            "{}:r{}",
            e.offer.campaign.id,
            e.offer
                .campaign
                .live_revision
                .unwrap_or(e.offer.campaign.revision)
        ),
        availability: Availability {
            status: crate::model::delivery::AvailabilityStatus::Available,
            reservation_required: true,
        },
        headline: None,
        description: None,
        call_to_action: None,
        artwork: None,
        impression_endpoint: None,
        launch_endpoint: None,
    }
}

/// One offer for the session (404 `offer_unavailable` when it is not eligible for it).
/// `exact` reads the user's completions from the database (launches) instead of the cache.
pub async fn find_for_session(
    ctx: &Ctx,
    s: &SdkActor,
    slot_id: Option<&str>,
    offer_id: &str,
    exact: bool,
) -> Result<(placement::Model, AdSlot, Eligible), AppError> {
    let (p, slot) = session_slot(ctx, s, slot_id).await?;
    let found = eligible(
        ctx,
        &p,
        &slot,
        &Audience {
            platform: &s.platform,
            country: None,
            user: Some(&s.external_user_id),
            only: Some(offer_id),
            device: None,
            exact,
        },
        Some(1),
    )
    .await?
    .into_iter()
    .find(|e| e.offer.campaign.id == offer_id)
    .ok_or_else(unavailable)?;
    Ok((p, slot, found))
}

/// `GET /sdk/v2/offers/{offerId}`.
pub async fn get(
    ctx: &Ctx,
    s: &SdkActor,
    offer_id: &str,
    slot_id: Option<&str>,
) -> Result<OfferItem, AppError> {
    let (_, slot, e) = find_for_session(ctx, s, slot_id, offer_id, false).await?;
    Ok(item(&e, &slot.currency))
}

/// 404 `offer_unavailable`: the offer is not (or no longer) eligible for this session's user.
pub(super) fn unavailable() -> AppError {
    AppError::new(
        404,
        "offer_unavailable",
        "this offer is not available to this user now",
    )
}
