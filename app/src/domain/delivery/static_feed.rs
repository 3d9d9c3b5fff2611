//! The static offer feed of a STATIC_API slot, pulled by the publisher's server with the
//! slot key. It is inventory, not user eligibility: no user caps or completions, at most 100
//! offers, cached for 60 seconds, with an ETag over the content so an unchanged feed answers
//! 304. Built feeds are kept with the inventory snapshot they came from, so a repeated pull
//! (and every 304) costs the key, slot and blacklist reads only. Items carry the SDK impression and launch paths the publisher's app then uses.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use chrono::Duration;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

use super::offers::{Audience, country_param, eligible, item};
use crate::domain::campaigns::snapshot::{CachedFeed, FeedRequest, Snapshot, snapshot};
use crate::domain::publisher::delivery_config::DeliveryConfig;
use crate::domain::{Ctx, crypto};
use crate::error::AppError;
use crate::model::delivery::*;
use crate::model::publisher::{PlacementStatus, SlotState, SlotType};
use entity::static_key;

/// Most offers in one feed.
pub const MAX_ITEMS: usize = 100;
/// Cache and refresh window.
pub const MAX_AGE_SECONDS: u32 = 60;

/// The feed's JSON body and its ETag (quoted, as sent in the header).
pub struct Feed {
    pub body: bytes::Bytes,
    pub etag: String,
}

/// `GET /publisher/v2/ad-slots/{adSlotId}/static-offers`. 401 `invalid_static_key` for a
/// missing, unknown, inactive or expired key, 403 `static_key_slot_mismatch` for another
/// slot's key, 409 `slot_not_ready` / `placement_not_verified`, 400 for a bad query.
pub async fn feed(
    ctx: &Ctx,
    slot_id: &str,
    key: Option<&str>,
    country: Option<&str>,
    platform: Option<&str>,
) -> Result<Feed, AppError> {
    let invalid = || {
        AppError::unauthorized("a valid X-Service-Static-Key is required")
            .with_code("invalid_static_key")
    };
    let key = key
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .ok_or_else(invalid)?;
    let now = ctx.now();
    // Through the hot cache (issuing a key clears it, since that deactivates the slot's
    // earlier keys); an unknown key is not cached.
    let hash = crypto::sha256_hex(key);
    let k = ctx
        .hot
        .static_keys
        .get_or_load(&hash, || async {
            static_key::Entity::find()
                .filter(static_key::Column::KeyHash.eq(hash.clone()))
                .one(&ctx.db)
                .await?
                .map(std::sync::Arc::new)
                .ok_or_else(invalid)
        })
        .await?;
    if k.deactivated_at.is_some() || k.expires_at <= now {
        return Err(invalid());
    }
    if k.ad_slot_id != slot_id {
        return Err(AppError::forbidden("this key belongs to another ad slot")
            .with_code("static_key_slot_mismatch"));
    }
    let config = servable(ctx, slot_id).await?;
    let p = &config.placement;
    let country = country_param(country)?;
    let platform = match platform.map(str::trim).filter(|x| !x.is_empty()) {
        None => p.platform.clone(),
        Some(x) if x == p.platform => x.to_owned(),
        Some(x) if ["android", "ios", "web"].contains(&x) => {
            return Err(AppError::field(
                "platform",
                format!("the placement runs on {}", p.platform),
            ));
        }
        Some(_) => return Err(AppError::field("platform", "must be web, android or ios")),
    };
    let request = FeedRequest {
        slot_id: slot_id.to_owned(),
        country,
        platform,
    };
    let snap = snapshot(ctx).await?;
    from_snapshot(ctx, &snap, &config, &request, true).await
}

/// The configuration of a slot whose feed may be served: a STATIC_API slot, READY or
/// ACTIVE, of a verified placement that is not archived.
async fn servable(ctx: &Ctx, slot_id: &str) -> Result<Arc<DeliveryConfig>, AppError> {
    let placement_id = ctx
        .delivery_configs
        .placement_of_slot(&ctx.db, slot_id)
        .await?
        .ok_or_else(|| AppError::not_found("ad slot"))?;
    let config = ctx
        .delivery_configs
        .get(&ctx.db, ctx.now(), &placement_id)
        .await?
        .filter(|c| c.placement.archived_at.is_none())
        .ok_or_else(|| AppError::not_found("ad slot"))?;
    let s = config
        .slots
        .iter()
        .find(|s| s.id == slot_id)
        .ok_or_else(|| AppError::not_found("ad slot"))?;
    if config.placement.status != PlacementStatus::Verified {
        return Err(
            AppError::conflict("the placement is not verified").with_code("placement_not_verified")
        );
    }
    if SlotType::parse(&s.r#type) != Some(SlotType::StaticApi)
        || !matches!(s.state, SlotState::Ready | SlotState::Active)
    {
        return Err(
            AppError::conflict("the ad slot is not READY or ACTIVE").with_code("slot_not_ready")
        );
    }
    Ok(config)
}

/// How long a feed is kept warm after its last pull: two of its cache lifetimes, so a
/// publisher that pulls on every expiry always finds its feed built.
const WARM_FOR: std::time::Duration = std::time::Duration::from_secs(2 * MAX_AGE_SECONDS as u64);

/// Builds the feeds a new inventory snapshot will be asked for before anyone asks (issue
/// 30): every swap (a rebuild after a change, or the periodic refresh) starts with no
/// feeds, and without this the next pull of each feed would build it. Kept warm: the feeds
/// pulled in the last [`WARM_FOR`], sampled from the snapshot in place every second (and
/// from the outgoing one right after a swap), and those `start` names (start-up's default
/// feeds of the released STATIC_API slots) for as long. A pull that arrives before its
/// feed is rebuilt builds it itself, from the new snapshot: nothing ever waits for this.
pub async fn keep_warm(ctx: Ctx, start: Vec<FeedRequest>) {
    let mut warm: HashMap<FeedRequest, Instant> =
        start.into_iter().map(|r| (r, Instant::now())).collect();
    let mut swaps = ctx.inventory.swaps();
    swaps.mark_unchanged();
    loop {
        let current = ctx.inventory.peek();
        let swapped =
            tokio::time::timeout(std::time::Duration::from_secs(1), swaps.changed()).await;
        for (request, pulled) in current.feeds.requests() {
            if pulled {
                warm.insert(request, Instant::now());
            }
        }
        drop(current);
        match swapped {
            Ok(Ok(())) => {}
            Ok(Err(_)) => return,
            Err(_) => continue,
        }
        warm.retain(|_, pulled| pulled.elapsed() < WARM_FOR);
        let snap = ctx.inventory.peek();
        let mut gone = Vec::new();
        for request in warm.keys() {
            let built = match servable(&ctx, &request.slot_id).await {
                Ok(config) => from_snapshot(&ctx, &snap, &config, request, false).await,
                Err(e) => Err(e),
            };
            if let Err(e) = built {
                tracing::debug!(slot = %request.slot_id, error = %e.message, "static feed not kept warm");
                gone.push(request.clone());
            }
        }
        for request in gone {
            warm.remove(&request);
        }
    }
}

/// The default feed (no country filter, the placement's platform) of every STATIC_API slot
/// ready to serve in `placements`, built into the snapshot in place (start-up, before
/// `/readyz` says ready). Returns what was built, for [`keep_warm`].
pub async fn prebuild(ctx: &Ctx, placements: &[String]) -> Result<Vec<FeedRequest>, AppError> {
    let snap = snapshot(ctx).await?;
    let mut built = Vec::new();
    for placement_id in placements {
        let Some(config) = ctx
            .delivery_configs
            .get(&ctx.db, ctx.now(), placement_id)
            .await?
        else {
            continue;
        };
        for slot in &config.slots {
            if SlotType::parse(&slot.r#type) != Some(SlotType::StaticApi)
                || servable(ctx, &slot.id).await.is_err()
            {
                continue;
            }
            let request = FeedRequest {
                slot_id: slot.id.clone(),
                country: None,
                platform: config.placement.platform.clone(),
            };
            from_snapshot(ctx, &snap, &config, &request, false).await?;
            built.push(request);
        }
    }
    Ok(built)
}

/// The feed for `request` from `snap`: the one built earlier, or built now and kept.
/// The cache key names everything the feed depends on besides the inventory: the slots and
/// placement as stored (policy, currency, state) and the publisher's blacklists, by the
/// configuration's fingerprint. A snapshot holds the feeds built from it, so a new snapshot
/// starts empty (and [`keep_warm`] fills it again before the next pull).
async fn from_snapshot(
    ctx: &Ctx,
    snap: &Snapshot,
    config: &DeliveryConfig,
    request: &FeedRequest,
    pulled: bool,
) -> Result<Feed, AppError> {
    let FeedRequest {
        slot_id,
        country,
        platform,
    } = request;
    let cache_key = format!(
        "{slot_id}|{}|{platform}|{:x}",
        country.as_deref().unwrap_or(""),
        config.fingerprint
    );
    if let Some(hit) = snap.feeds.get(&cache_key) {
        if pulled {
            hit.pulled.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        return Ok(Feed {
            body: hit.body.clone(),
            etag: hit.etag.clone(),
        });
    }
    let p = &config.placement;
    let view = config
        .slots
        .iter()
        .position(|x| &x.id == slot_id)
        .and_then(|i| config.views.get(i).cloned())
        .ok_or_else(|| AppError::not_found("ad slot"))?;
    let offers = eligible(
        ctx,
        p,
        &view,
        &Audience {
            platform,
            country: country.as_deref(),
            user: None,
            only: None,
            device: None,
            exact: false,
        },
        Some(MAX_ITEMS),
    )
    .await?;
    let items: Vec<OfferItem> = offers
        .iter()
        .map(|e| {
            let mut i = item(e, &view.currency);
            creative_fields(&mut i, &e.offer.config);
            i.impression_endpoint = Some(format!("/sdk/v2/offers/{}/impressions", i.campaign_id));
            i.launch_endpoint = Some(format!("/sdk/v2/offers/{}/launch", i.campaign_id));
            i
        })
        .collect();
    // The ETag covers what the feed says, not when it was generated.
    let digest = crypto::sha256_hex(&serde_json::to_string(&items).unwrap_or_default());
    let etag = format!("\"{}\"", &digest[..32]);
    let now = ctx.now();
    let body = StaticFeed {
        items,
        generated_at: now,
        expires_at: now + Duration::seconds(i64::from(MAX_AGE_SECONDS)),
        etag: etag.clone(),
        cache: CacheAdvice {
            max_age_seconds: MAX_AGE_SECONDS,
        },
        contract_version: CONTRACT_VERSION.to_owned(),
    };
    let body = bytes::Bytes::from(serde_json::to_vec(&body).map_err(|_| AppError::internal())?);
    snap.feeds.remember(
        cache_key,
        CachedFeed {
            body: body.clone(),
            etag: etag.clone(),
            request: request.clone(),
            pulled: std::sync::atomic::AtomicBool::new(pulled),
        },
    );
    Ok(Feed { body, etag })
}

/// The fields a publisher that renders its own wall needs (the specification's headline,
/// description, call to action and artwork), from what the campaign already has.
fn creative_fields(i: &mut OfferItem, c: &crate::model::campaign::CampaignConfig) {
    i.headline = Some(c.name.clone());
    i.description = c.description.clone().filter(|d| !d.trim().is_empty());
    i.call_to_action = Some(call_to_action(&c.task_type).to_owned());
    i.artwork = Some(
        c.creatives
            .iter()
            .filter_map(|cr| cr.url.clone().map(|url| Artwork { kind: cr.kind, url }))
            .collect(),
    );
}

/// A button label for a task type; unknown types get a neutral one.
fn call_to_action(task_type: &str) -> &'static str {
    match task_type {
        "INSTALL" => "Install",
        "SIGNUP" | "REGISTER" | "REGISTRATION" => "Sign up",
        "PURCHASE" | "DEPOSIT" | "SUBSCRIBE" => "Buy",
        "LEVEL" | "PLAY" => "Play",
        "SURVEY" | "QUIZ" => "Answer",
        _ => "Start",
    }
}
