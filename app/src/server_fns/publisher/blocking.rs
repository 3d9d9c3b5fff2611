//! User bans and blacklists from the dashboard: the same domain calls as
//! `/publisher/v2/user-bans` and `/publisher/v2/blacklists`, with form fields parsed here
//! (a ban's length comes as a number of days, empty for "until lifted").

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::publisher::ops::{Blacklist, BlacklistList, UserBan, UserBanList};

#[cfg(feature = "ssr")]
use super::support;

/// Longest ban the form offers, in days (the API takes any future instant).
pub const MAX_BAN_DAYS: i64 = 3650;

/// One page of the publisher's bans, newest first (`status`: ACTIVE, LIFTED or empty).
#[server(prefix = "/fn", endpoint = "publisher_bans")]
pub async fn list_bans(
    status: Option<String>,
    user: Option<String>,
    cursor: Option<String>,
) -> Result<UserBanList, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        let page = crate::domain::paging::Page::parse(Some(50), cursor.as_deref(), "ban")?;
        let user = support::text(user);
        crate::domain::publisher::bans::list(
            &ctx,
            &p,
            None,
            user.as_deref(),
            status.as_deref(),
            &page,
        )
        .await
    })
    .await
}

/// Bans a user of one of the publisher's placements for `days` (empty: until lifted).
#[server(prefix = "/fn", endpoint = "publisher_ban_user")]
pub async fn ban_user(
    placement_id: String,
    external_user_id: String,
    reason: String,
    days: Option<String>,
    csrf: String,
) -> Result<UserBan, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let mut errs = crate::error::FieldErrors::new();
        let days: Option<i64> = support::number(&mut errs, "days", days);
        if days.is_some_and(|d| !(1..=MAX_BAN_DAYS).contains(&d)) {
            errs.add("days", format!("must be 1 to {MAX_BAN_DAYS}"));
        }
        errs.finish()?;
        let input = crate::model::publisher::ops::CreateUserBan {
            placement_id,
            external_user_id,
            reason,
            expires_at: days.map(|d| ctx.now() + chrono::Duration::days(d)),
        };
        crate::domain::publisher::bans::create(&ctx, &p, input).await
    })
    .await
}

/// Lifts a ban (`status` LIFTED) or puts it back in force (ACTIVE).
#[server(prefix = "/fn", endpoint = "publisher_update_ban")]
pub async fn update_ban(ban_id: String, status: String, csrf: String) -> Result<UserBan, AppError> {
    crate::server_fns::web::run(async move {
        use crate::model::publisher::ops::{BanStatus, PatchUserBan};
        let (ctx, _, p) = support::writer(&csrf).await?;
        let status = BanStatus::parse(status.trim())
            .ok_or_else(|| AppError::field("status", "must be ACTIVE or LIFTED"))?;
        let input = PatchUserBan {
            status: Some(status),
            ..PatchUserBan::default()
        };
        crate::domain::publisher::bans::patch(&ctx, &p, &ban_id, input).await
    })
    .await
}

/// One page of the publisher's blacklist entries, newest first.
#[server(prefix = "/fn", endpoint = "publisher_blacklist")]
pub async fn list_blacklist(cursor: Option<String>) -> Result<BlacklistList, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        let page = crate::domain::paging::Page::parse(Some(50), cursor.as_deref(), "bl")?;
        crate::domain::publisher::blacklists::list(&ctx, &p, None, &page).await
    })
    .await
}

/// Adds an entry for all placements (empty `placement_id`) or one.
#[server(prefix = "/fn", endpoint = "publisher_add_blacklist")]
pub async fn add_blacklist(
    kind: String,
    value: String,
    placement_id: Option<String>,
    reason: Option<String>,
    csrf: String,
) -> Result<Blacklist, AppError> {
    crate::server_fns::web::run(async move {
        use crate::model::publisher::ops::{BlacklistKind, CreateBlacklist};
        let (ctx, _, p) = support::writer(&csrf).await?;
        let kind = BlacklistKind::parse(kind.trim()).ok_or_else(|| {
            AppError::field(
                "kind",
                "must be CAMPAIGN, ADVERTISER, CATEGORY, TASK_TYPE or DOMAIN",
            )
        })?;
        let input = CreateBlacklist {
            kind,
            value,
            placement_id: support::text(placement_id),
            reason: support::text(reason),
        };
        crate::domain::publisher::blacklists::create(&ctx, &p, input).await
    })
    .await
}

/// Removes an entry; offers it excluded come back with the next catalogue refresh.
#[server(prefix = "/fn", endpoint = "publisher_remove_blacklist")]
pub async fn remove_blacklist(blacklist_id: String, csrf: String) -> Result<(), AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        crate::domain::publisher::blacklists::delete(&ctx, &p, &blacklist_id).await
    })
    .await
}
