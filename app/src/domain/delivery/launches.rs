//! Launches (clicks): a signed, five-minute link that redirects the user to the advertiser
//! with a fresh click id in place of `{click_id}`. A destination is never built from what
//! the client sends, and a retried launch with the same Idempotency-Key returns the same
//! launch without checking or holding anything again.

use std::net::IpAddr;

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, Set};

use super::LAUNCH_TTL;
use super::impressions::key_used;
use super::offers::{find_for_session, unavailable};
use crate::domain::campaigns::caps::caps_reached;
use crate::domain::campaigns::inventory::live_offer;
use crate::domain::campaigns::tracking::pixel;
use crate::domain::idempotency::{IdempotencyKey, Written, insert_or_replay};
use crate::domain::principal::SdkActor;
use crate::domain::{Ctx, ids::new_id};
use crate::error::AppError;
use crate::model::delivery::{LaunchRequest, SignedLaunch};
use crate::model::money::Micros;
use entity::{sdk_impression, sdk_launch};

/// `POST /sdk/v2/offers/{offerId}/launch` from the user's `client` address; the flag says
/// whether it was new.
pub async fn launch(
    ctx: &Ctx,
    s: &SdkActor,
    offer_id: &str,
    req: LaunchRequest,
    key: &IdempotencyKey,
    client: Option<IpAddr>,
) -> Result<(SignedLaunch, bool), AppError> {
    let key = key.as_str();
    let impression_id = req
        .impression_id
        .as_deref()
        .map(str::trim)
        .filter(|i| !i.is_empty())
        .ok_or_else(|| AppError::field("impressionId", "is required"))?
        .to_owned();
    if let Some(prior) = by_key(ctx, s, key).await? {
        if prior.campaign_id != offer_id || prior.impression_id != impression_id {
            return Err(AppError::conflict(
                "this Idempotency-Key was already used for another launch",
            )
            .with_code("idempotency_key_reused"));
        }
        return Ok((signed(ctx, &prior, true), false));
    }
    if key_used(ctx, s, key).await? {
        return Err(AppError::field(
            "Idempotency-Key",
            "use a different Idempotency-Key from the impression's",
        ));
    }
    let now = ctx.now();
    // The impression may come from an earlier session of the same user and placement.
    let imp = sdk_impression::Entity::find_by_id(impression_id.clone())
        .one(&ctx.db)
        .await?
        .filter(|i| {
            i.placement_id == s.placement_id
                && i.external_user_id == s.external_user_id
                && i.campaign_id == offer_id
        })
        .ok_or_else(|| {
            AppError::new(
                404,
                "impression_not_found",
                "no such impression of this offer for this user",
            )
        })?;
    if imp.expires_at <= now {
        return Err(AppError::conflict(
            "the impression expired; show the offer again and record a new impression",
        )
        .with_code("impression_expired"));
    }
    let (_, _, e) = find_for_session(ctx, s, Some(&imp.ad_slot_id), offer_id, true).await?;
    // The inventory snapshot chose the offer; money is checked exactly, in the database:
    // the campaign is still live with its reserve, and no cap is used up.
    let exact = live_offer(&ctx.db, now, offer_id)
        .await?
        .pop()
        .ok_or_else(unavailable)?;
    if caps_reached(&ctx.db, now, &exact, Micros(0)).await? {
        return Err(unavailable());
    }
    // Budget capacity: the reserve must cover every goal the user can still complete.
    let open_goals: i64 = exact
        .config
        .goals
        .iter()
        .filter(|g| !e.completed_goals.contains(&g.external_goal_id))
        .map(|g| g.payout_micros.get())
        .sum();
    if exact.reserved_micros < Micros(open_goals) {
        return Err(
            AppError::conflict("this offer has no budget left for a new user")
                .with_code("budget_exhausted"),
        );
    }
    let click_id = new_id("clk");
    // A pixel campaign's page gets the pixel click id, which only this redirect reveals.
    let page_click = if pixel::takes_pixel(&exact.campaign, &exact.config) {
        pixel::pixel_click_id(&ctx.keys, &click_id)
    } else {
        click_id.clone()
    };
    let destination = exact
        .config
        .destination_url
        .replace("{click_id}", &page_click);
    let row = sdk_launch::ActiveModel {
        id: Set(new_id("lch")),
        click_id: Set(click_id),
        session_id: Set(s.id.clone()),
        impression_id: Set(imp.id.clone()),
        placement_id: Set(s.placement_id.clone()),
        ad_slot_id: Set(imp.ad_slot_id.clone()),
        campaign_id: Set(e.offer.campaign.id.clone()),
        campaign_revision: Set(exact
            .campaign
            .live_revision
            .unwrap_or(exact.campaign.revision)),
        external_user_id: Set(s.external_user_id.clone()),
        idempotency_key: Set(key.to_owned()),
        trace_id: Set(new_id("trc")),
        destination_url: Set(destination),
        created_at: Set(now),
        expires_at: Set(now + LAUNCH_TTL),
        opened_at: Set(None),
        client_ip: Set(client.map(|ip| ip.to_string())),
        opened_ip: Set(None),
        device_id: Set(s.device_id.clone()),
    };
    match insert_or_replay(&ctx.db, row, || by_key(ctx, s, key)).await? {
        Written::New(row) => {
            // The click redirect then needs no read: the destination never changes.
            let generation = ctx.hot.launches.generation();
            ctx.hot.launches.insert(
                generation,
                row.id.clone(),
                (std::sync::Arc::from(row.destination_url.as_str()), false),
            );
            Ok((signed(ctx, &row, false), true))
        }
        // A concurrent retry with the same key won the insert: answer with its launch.
        Written::Replay(prior) if prior.campaign_id == offer_id => {
            Ok((signed(ctx, &prior, true), false))
        }
        Written::Replay(_) => Err(AppError::conflict("this Idempotency-Key is in use")
            .with_code("idempotency_key_reused")),
    }
}

async fn by_key(ctx: &Ctx, s: &SdkActor, key: &str) -> Result<Option<sdk_launch::Model>, AppError> {
    Ok(sdk_launch::Entity::find()
        .filter(sdk_launch::Column::SessionId.eq(s.id.clone()))
        .filter(sdk_launch::Column::IdempotencyKey.eq(key.to_owned()))
        .one(&ctx.db)
        .await?)
}

fn message(launch_id: &str, expires: i64) -> String {
    format!("launch:{launch_id}:{expires}")
}

fn signed(ctx: &Ctx, r: &sdk_launch::Model, duplicate: bool) -> SignedLaunch {
    let expires = r.expires_at.timestamp();
    let sig = ctx.keys.sign(&message(&r.id, expires));
    SignedLaunch {
        session_id: r.session_id.clone(),
        trace_id: r.trace_id.clone(),
        launch_url: format!(
            "{}/sdk/v2/launch/{}?expires={expires}&signature={sig}",
            ctx.config.base_url, r.id
        ),
        expires_at: r.expires_at,
        offer_id: r.campaign_id.clone(),
        click_id: r.click_id.clone(),
        duplicate,
    }
}

/// `GET /sdk/v2/launch/{launchId}` from the browser at `client`: checks the link's
/// signature and expiry and answers the advertiser destination to redirect to (401
/// `invalid_signature`, 410 `launch_expired`). The first open is recorded with its address
/// (the click's address for the fraud signals; a pixel needs the link to have been opened).
pub async fn open(
    ctx: &Ctx,
    launch_id: &str,
    expires: Option<i64>,
    signature: Option<&str>,
    client: Option<IpAddr>,
) -> Result<String, AppError> {
    let (Some(expires), Some(sig)) = (expires, signature) else {
        return Err(
            AppError::unauthorized("the launch link is not signed").with_code("invalid_signature")
        );
    };
    if !ctx.keys.verify(&message(launch_id, expires), sig) {
        return Err(
            AppError::unauthorized("the launch link signature does not match")
                .with_code("invalid_signature"),
        );
    }
    let now = ctx.now();
    if DateTime::from_timestamp(expires, 0).is_none_or(|e| e <= now) {
        return Err(AppError::new(
            410,
            "launch_expired",
            "the launch link expired; launch the offer again from the app",
        ));
    }
    // A launch's destination never changes and its first open is recorded once, so the
    // hot cache answers repeated opens without the database.
    if let Some((destination, true)) = ctx.hot.launches.get(launch_id) {
        return Ok(destination.to_string());
    }
    // Boxed: the database work is the rare case, and inline its future would make every
    // repeat open's future (moved on each request) that large.
    Box::pin(first_open(ctx, launch_id, now, client)).await
}

/// Records a launch's first open (once) and caches its destination.
async fn first_open(
    ctx: &Ctx,
    launch_id: &str,
    now: DateTime<Utc>,
    client: Option<IpAddr>,
) -> Result<String, AppError> {
    let generation = ctx.hot.launches.generation();
    let (destination, opened) = match ctx.hot.launches.get(launch_id) {
        Some(hit) => hit,
        None => {
            let row = sdk_launch::Entity::find_by_id(launch_id.to_owned())
                .one(&ctx.db)
                .await?
                .ok_or_else(|| AppError::not_found("launch"))?;
            (
                std::sync::Arc::from(row.destination_url.as_str()),
                row.opened_at.is_some(),
            )
        }
    };
    if !opened {
        sdk_launch::Entity::update_many()
            .col_expr(sdk_launch::Column::OpenedAt, Expr::value(Some(now)))
            .col_expr(
                sdk_launch::Column::OpenedIp,
                Expr::value(client.map(|ip| ip.to_string())),
            )
            .filter(sdk_launch::Column::Id.eq(launch_id.to_owned()))
            .filter(sdk_launch::Column::OpenedAt.is_null())
            .exec(&ctx.db)
            .await?;
    }
    ctx.hot.launches.insert(
        generation,
        launch_id.to_owned(),
        (destination.clone(), true),
    );
    Ok(destination.to_string())
}
