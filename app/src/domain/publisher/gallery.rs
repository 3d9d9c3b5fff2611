//! The offer gallery: live inventory a publisher is eligible for, optionally for one of its
//! placements (its platform and placement blacklist) and a country. Blacklists apply exactly
//! as they will in delivery.

use super::blacklists::{Candidate, excludes, rules_for};
use super::owned_placement;
use crate::domain::campaigns::snapshot::snapshot;
use crate::domain::paging;
use crate::domain::{Ctx, Principal};
use crate::error::{AppError, FieldErrors};
use crate::model::campaign::Platform;
use crate::model::money::Micros;
use crate::model::money::format_micros;
use crate::model::publisher::ops::{GalleryGoal, GalleryOffer, OfferGallery};

/// Gallery filters.
#[derive(Debug, Default, Clone)]
pub struct GalleryQuery {
    pub placement_id: Option<String>,
    /// ISO alpha-2.
    pub country: Option<String>,
    /// android, ios or web (implied by the placement when one is named).
    pub platform: Option<String>,
    /// 1 to 500 offers a page (default 100).
    pub limit: Option<u64>,
    /// The previous page's `nextCursor`.
    pub cursor: Option<String>,
}

/// Where a page ends in the gallery's order (highest total payout first, then campaign id):
/// `g<total micros>.<campaign id>`. A position, not an index, so offers that start or end
/// between two requests neither repeat nor hide the offers after it.
fn cursor_of(o: &GalleryOffer) -> String {
    format!("g{}.{}", o.total_payout_micros.get(), o.campaign_id)
}

fn parse_cursor(c: &str) -> Option<(i64, String)> {
    let (total, id) = c.strip_prefix('g')?.split_once('.')?;
    let ok = id.len() <= 64 && id.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_');
    ok.then_some((total.parse().ok()?, id.to_owned()))
}

/// Live offers for the publisher, highest total payout first, a page at a time.
pub async fn gallery(
    ctx: &Ctx,
    actor: &Principal,
    q: GalleryQuery,
) -> Result<OfferGallery, AppError> {
    actor.require_publisher()?;
    let mut errs = FieldErrors::new();
    let limit = q.limit.unwrap_or(paging::DEFAULT_LIMIT);
    if !(1..=paging::MAX_LIMIT).contains(&limit) {
        errs.add("limit", format!("must be 1 to {}", paging::MAX_LIMIT));
    }
    let after = match q.cursor.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        Some(c) => errs.check(
            "cursor",
            parse_cursor(c).ok_or_else(|| "must be the nextCursor of the previous page".to_owned()),
        ),
        None => None,
    };
    errs.finish()?;
    let (owner, placement, platform) = match q.placement_id.as_deref().filter(|p| !p.is_empty()) {
        Some(id) => {
            let p = owned_placement(&ctx.db, actor, id).await?;
            (
                p.owner_account_id.clone(),
                p.id.clone(),
                Some(p.platform.clone()),
            )
        }
        None => (
            actor.account_id.clone(),
            String::new(),
            q.platform.clone().filter(|p| !p.is_empty()),
        ),
    };
    let platform = match platform {
        Some(p) => Some(
            Platform::parse(&p.to_ascii_lowercase())
                .ok_or_else(|| AppError::field("platform", "must be android, ios or web"))?,
        ),
        None => None,
    };
    let country = q
        .country
        .map(|c| c.trim().to_ascii_uppercase())
        .filter(|c| !c.is_empty());
    if country
        .as_ref()
        .is_some_and(|c| c.len() != 2 || !c.chars().all(|ch| ch.is_ascii_alphabetic()))
    {
        return Err(AppError::field(
            "country",
            "must be a two-letter country code",
        ));
    }
    let rules = rules_for(&ctx.db, &owner, &placement).await?;
    let mut items = Vec::new();
    let now = ctx.now();
    let inventory = snapshot(ctx).await?;
    for offer in inventory.all() {
        let c = &offer.config;
        if !offer.in_schedule(now)
            || platform.is_some_and(|p| !c.platforms.contains(&p))
            || country.as_ref().is_some_and(|k| !c.countries.contains(k))
        {
            continue;
        }
        let host = &offer.host;
        let candidate = Candidate {
            campaign_id: &offer.campaign.id,
            advertiser_id: &offer.campaign.advertiser_id,
            category: &c.category,
            task_type: &c.task_type,
            destination_host: host,
        };
        if excludes(&rules, &candidate) {
            continue;
        }
        let total: i64 = c.goals.iter().map(|g| g.payout_micros.get()).sum();
        items.push(GalleryOffer {
            campaign_id: offer.campaign.id.clone(),
            name: c.name.clone(),
            category: c.category.clone(),
            task_type: c.task_type.clone(),
            platforms: c.platforms.iter().map(|p| p.as_str().to_owned()).collect(),
            countries: c.countries.clone(),
            description: c.description.clone(),
            preview_url: c.preview_url.clone(),
            goals: c
                .goals
                .iter()
                .map(|g| GalleryGoal {
                    external_goal_id: g.external_goal_id.clone(),
                    name: g.name.clone(),
                    payout_micros: g.payout_micros,
                    payout: g.payout.clone(),
                })
                .collect(),
            total_payout_micros: Micros(total),
            total_payout: format_micros(total),
        });
    }
    items.sort_by(|a, b| {
        b.total_payout_micros
            .cmp(&a.total_payout_micros)
            .then_with(|| a.campaign_id.cmp(&b.campaign_id))
    });
    if let Some((total, id)) = after {
        // Keep what comes after the cursor's position in that order.
        items.retain(|o| {
            let t = o.total_payout_micros.get();
            t < total || (t == total && o.campaign_id > id)
        });
    }
    let more = items.len() as u64 > limit;
    items.truncate(limit as usize);
    let next_cursor = more.then(|| items.last().map(cursor_of)).flatten();
    Ok(OfferGallery {
        count: items.len(),
        items,
        next_cursor,
    })
}
