//! The SDK offer list (`GET /sdk/v2/ad-slots/{adSlotId}/offers`): validation of the query,
//! paging, and the answer. The JSON route copies each item's bytes from the inventory
//! snapshot's cache ([`list_body`]); the hosted wall renders the typed answer ([`list`]).

use std::sync::Arc;

use bytes::Bytes;

use super::offers::{Audience, Eligible, country_param, eligible, item, session_slot};
use crate::domain::Ctx;
use crate::domain::campaigns::snapshot::{Snapshot, snapshot};
use crate::domain::principal::SdkActor;
use crate::error::{AppError, FieldErrors};
use crate::model::campaign::device_targeting::{self, DeviceParams};
use crate::model::delivery::*;
use crate::model::publisher::Currency;

const DEFAULT_LIMIT: u32 = 20;
const MAX_LIMIT: u32 = 100;

fn cursor_offset(cursor: Option<&str>) -> Result<usize, AppError> {
    match cursor.filter(|c| !c.is_empty()) {
        None => Ok(0),
        Some(c) => c
            .strip_prefix("o")
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(|| AppError::field("cursor", "use the previous page's nextCursor")),
    }
}

/// The page of eligible offers an offer list shows, and the answer around them (its
/// `items` left empty).
async fn list_page(
    ctx: &Ctx,
    s: &SdkActor,
    slot_id: &str,
    q: OfferListQuery,
) -> Result<(Vec<Eligible>, OfferList), AppError> {
    let mut errs = FieldErrors::new();
    let country = errs.check(
        "country",
        country_param(q.country.as_deref())
            .map_err(|_| "must be two uppercase letters (ISO 3166-1 alpha-2)".to_owned()),
    );
    let limit = q.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        errs.add("limit", format!("must be 1 to {MAX_LIMIT}"));
    }
    let offset = errs.check(
        "cursor",
        cursor_offset(q.cursor.as_deref())
            .map_err(|_| "use the previous page's nextCursor".to_owned()),
    );
    let mut device_errs = crate::model::campaign::rules::Errors::new();
    let device = device_targeting::device(
        DeviceParams {
            state_code: q.state_code.as_deref(),
            device_type: q.device_type.as_deref(),
            device_manufacturer: q.device_manufacturer.as_deref(),
            os_version: q.os_version.as_deref(),
            browser: q.browser.as_deref(),
            browser_version: q.browser_version.as_deref(),
        },
        &s.platform,
        country.as_ref().and_then(|c| c.as_deref()),
        &mut device_errs,
    );
    for (field, why) in device_errs {
        errs.add(&field, why);
    }
    errs.finish()?;
    let country = country.flatten();
    let (p, slot) = session_slot(ctx, s, Some(slot_id)).await?;
    let offset = offset.unwrap_or(0);
    // One more than the page, to know whether another page follows.
    let want = offset.saturating_add(limit as usize).saturating_add(1);
    let mut all = eligible(
        ctx,
        &p,
        &slot,
        &Audience {
            platform: &s.platform,
            country: country.as_deref(),
            user: Some(&s.external_user_id),
            only: None,
            device: Some(&device),
            exact: false,
        },
        Some(want),
    )
    .await?;
    let offset = offset.min(all.len());
    let end = offset.saturating_add(limit as usize).min(all.len());
    let next_cursor = (end < all.len()).then(|| format!("o{end}"));
    all.truncate(end);
    let shown = all.split_off(offset);
    Ok((
        shown,
        OfferList {
            items: Vec::new(),
            page: Page { next_cursor, limit },
            cache: CacheAdvice {
                max_age_seconds: 60,
            },
            contract_version: CONTRACT_VERSION.to_owned(),
            context: OfferContext {
                placement_id: p.id.clone(),
                ad_slot_id: slot.ad_slot_id.clone(),
                slot_type: slot.slot_type,
                platform: s.platform.clone(),
                country,
                currency: slot.currency.clone(),
            },
        },
    ))
}

/// The offer list as a typed answer.
pub async fn list(
    ctx: &Ctx,
    s: &SdkActor,
    slot_id: &str,
    q: OfferListQuery,
) -> Result<OfferList, AppError> {
    let (shown, mut list) = list_page(ctx, s, slot_id, q).await?;
    list.items = shown
        .iter()
        .map(|e| item(e, &list.context.currency))
        .collect();
    Ok(list)
}

/// The offer list serialised, the same JSON as [`list`]. A user with no counted
/// conversions on the placement sees exactly what every such user of the slot sees for
/// the same query, so that page is kept with the inventory snapshot for a second
/// ([`crate::domain::campaigns::snapshot::PAGE_TTL`]) and copied to the next one; other
/// users' pages are built from each item's bytes, serialised once per snapshot and slot
/// currency. Authentication, bans and the rate limit run before this for every request;
/// only a page built for a request that passed validation and the slot check is kept, and
/// its key holds every query parameter and the session's binding, so a hit stands for a
/// request that would pass them too.
pub async fn list_body(
    ctx: &Ctx,
    s: &SdkActor,
    slot_id: &str,
    q: OfferListQuery,
) -> Result<Bytes, AppError> {
    let snap = snapshot(ctx).await?;
    let now = ctx.now();
    let key = match shared_page_key(ctx, s, slot_id, &q).await? {
        Some(key) => match snap.page(&key, now) {
            Some(hit) => return Ok(hit),
            None => Some(key),
        },
        None => None,
    };
    let body = Bytes::from(build_body(ctx, s, slot_id, q).await?);
    if let Some(key) = key {
        snap.remember_page(key, now, body.clone());
    }
    Ok(body)
}

/// The key of the page this request shares with other users, or `None` when the user's
/// own completions shape it. Everything the page depends on besides the snapshot and the
/// clock: the placement's delivery configuration (its fingerprint covers slots, policy
/// and blacklist rules), the session's binding and platform, the slot and every query
/// parameter.
async fn shared_page_key(
    ctx: &Ctx,
    s: &SdkActor,
    slot_id: &str,
    q: &OfferListQuery,
) -> Result<Option<String>, AppError> {
    if !super::offers::cached_completions(ctx, &s.placement_id, &s.external_user_id)
        .await?
        .is_empty()
    {
        return Ok(None);
    }
    let Some(config) = ctx
        .delivery_configs
        .get(&ctx.db, ctx.now(), &s.placement_id)
        .await?
    else {
        return Ok(None);
    };
    let o = |v: &Option<String>| v.clone().unwrap_or_default();
    Ok(Some(format!(
        "{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{}\u{1f}{:?}\u{1f}{}",
        config.fingerprint,
        s.placement_id,
        s.ad_slot_id.as_deref().unwrap_or_default(),
        slot_id,
        s.platform,
        o(&q.country),
        o(&q.state_code),
        o(&q.device_type),
        o(&q.device_manufacturer),
        o(&q.os_version),
        o(&q.browser),
        o(&q.browser_version),
        q.limit,
        o(&q.cursor),
    )))
}

/// Builds the page: each item's bytes from the snapshot's item cache.
async fn build_body(
    ctx: &Ctx,
    s: &SdkActor,
    slot_id: &str,
    q: OfferListQuery,
) -> Result<Vec<u8>, AppError> {
    let (shown, list) = list_page(ctx, s, slot_id, q).await?;
    let snap = snapshot(ctx).await?;
    let currency = currency_key(&list.context.currency);
    let items: Vec<Bytes> = shown
        .iter()
        .map(|e| item_bytes(&snap, currency, e, &list.context.currency))
        .collect::<Result<_, _>>()?;
    // The envelope is serialised by serde (same attributes as `list`), with no items;
    // `items` is its first field, so the items go right after the opening bracket.
    let envelope = serde_json::to_vec(&list).map_err(|_| AppError::internal())?;
    const HEAD: &[u8] = b"{\"items\":[";
    let rest = envelope.strip_prefix(HEAD).ok_or_else(AppError::internal)?;
    let size = items.iter().map(|i| i.len() + 1).sum::<usize>();
    let mut out = Vec::with_capacity(HEAD.len() + size + rest.len());
    out.extend_from_slice(HEAD);
    for (i, json) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(json);
    }
    out.extend_from_slice(rest);
    Ok(out)
}

/// One item's JSON: from the snapshot's cache when the campaign as read is that snapshot's
/// own (a newer snapshot may have replaced it meanwhile; then it is serialised, not kept).
fn item_bytes(
    snap: &Snapshot,
    currency_key: u64,
    e: &Eligible,
    currency: &Currency,
) -> Result<Bytes, AppError> {
    let id = &e.offer.campaign.id;
    let current = snap
        .get(id)
        .is_some_and(|o| Arc::ptr_eq(&o.live, &e.offer.live));
    if current && let Some(hit) = snap.item_json(currency_key, id) {
        return Ok(hit);
    }
    let json =
        Bytes::from(serde_json::to_vec(&item(e, currency)).map_err(|_| AppError::internal())?);
    if current {
        snap.remember_item_json(currency_key, id, json.clone());
    }
    Ok(json)
}

/// A key for a slot currency: items differ only by it.
fn currency_key(c: &Currency) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{c:?}").hash(&mut h);
    h.finish()
}
