//! "Where you are signed in" (issue 54, part 2): an account's live browser sessions and
//! dashboard tokens, each of which its owner can sign out on its own ("sign out everywhere"
//! is in [`super::security`]). Browser sessions are the session store's rows that name the
//! account (`web_sessions.account_id`), of the account's current session generation (older
//! ones are already signed out); both are read from the database on every request, so a
//! sign-out holds at once in every process.

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

use crate::domain::{Ctx, Principal, crypto, db};
use crate::error::AppError;
use crate::model::signed_in::{BrowserSession, SignedInList, TokenSession};
use entity::{api_token, web_session};

/// Keys of a browser session's record (written by `crate::auth` at sign-in): the account,
/// its session generation then, and what the list shows.
pub const ACCOUNT_KEY: &str = "account_id";
pub const GENERATION_KEY: &str = "session_generation";
pub const SIGNED_IN_AT_KEY: &str = "signed_in_at";
pub const DEVICE_KEY: &str = "device";
pub const ADDRESS_KEY: &str = "address";

/// The id prefix of a browser session in the list (the rest is its row key, the SHA-256 of
/// the cookie's id: it names the session without being able to sign anyone in).
const BROWSER_PREFIX: &str = "ses_";
/// Rows of each kind listed at most (a person has a handful; the bound keeps the answer small).
const LISTED: u64 = 100;

/// What the request itself is signed in with, to mark it `current`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Current<'a> {
    /// The browser session's row key (`crypto::sha256_hex` of its id).
    pub browser: Option<&'a str>,
    /// The bearer token of the request.
    pub token: Option<&'a str>,
}

/// The account's live browser sessions and dashboard tokens, newest first.
pub async fn list(
    ctx: &Ctx,
    actor: &Principal,
    current: Current<'_>,
) -> Result<SignedInList, AppError> {
    let now = ctx.now();
    let generation = super::get(ctx, &actor.person_id).await?.session_generation;
    let rows = web_session::Entity::find()
        .filter(web_session::Column::AccountId.eq(actor.person_id.clone()))
        .filter(web_session::Column::ExpiresAt.gt(now))
        // The most recently active first (a session's expiry moves with its use); sessions
        // of an earlier generation are deleted when the generation moves on
        // (`security::next_generation`), so they do not take the places of live ones.
        .order_by_desc(web_session::Column::ExpiresAt)
        .limit(LISTED)
        .all(&ctx.db)
        .await?;
    let mut browsers: Vec<BrowserSession> = rows
        .iter()
        .filter_map(|r| browser(r, generation, current.browser))
        .collect();
    browsers.sort_by(|a, b| b.signed_in_at.cmp(&a.signed_in_at));
    let token_hash = current.token.map(crypto::sha256_hex);
    let tokens = api_token::Entity::find()
        .filter(api_token::Column::AccountId.eq(actor.person_id.clone()))
        .filter(api_token::Column::RevokedAt.is_null())
        .filter(api_token::Column::ExpiresAt.gt(now))
        .order_by_desc(api_token::Column::CreatedAt)
        .limit(LISTED)
        .all(&ctx.db)
        .await?
        .into_iter()
        .map(|t| TokenSession {
            current: token_hash.as_deref() == Some(t.token_hash.as_str()),
            id: t.id,
            created_at: t.created_at,
            expires_at: t.expires_at,
        })
        .collect();
    Ok(SignedInList { browsers, tokens })
}

/// A stored session as listed, if it is signed in under the account's current generation.
fn browser(
    r: &web_session::Model,
    generation: i32,
    current: Option<&str>,
) -> Option<BrowserSession> {
    let record: serde_json::Value = serde_json::from_str(&r.data).ok()?;
    let data = record.get("data")?;
    let text = |key: &str| {
        data.get(key)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_owned()
    };
    let signed_under = data
        .get(GENERATION_KEY)
        .and_then(serde_json::Value::as_i64)
        .unwrap_or(0);
    if signed_under != i64::from(generation) {
        return None;
    }
    Some(BrowserSession {
        id: format!("{BROWSER_PREFIX}{}", r.id),
        device: text(DEVICE_KEY),
        address: text(ADDRESS_KEY),
        signed_in_at: chrono::DateTime::parse_from_rfc3339(&text(SIGNED_IN_AT_KEY))
            .ok()
            .map(|t| t.with_timezone(&chrono::Utc)),
        expires_at: r.expires_at,
        current: current == Some(r.id.as_str()),
    })
}

/// Signs out one of the account's browser sessions (`ses_…`) or revokes one of its tokens
/// (`tok_…`); anything else, or another account's, is `404`. Audited.
pub async fn sign_out(ctx: &Ctx, actor: &Principal, id: &str) -> Result<(), AppError> {
    let now = ctx.now();
    // The sign-out and its audit entry commit together.
    let txn = db::begin(&ctx.db).await?;
    let done = if let Some(row) = id.strip_prefix(BROWSER_PREFIX) {
        web_session::Entity::delete_many()
            .filter(web_session::Column::Id.eq(row.to_owned()))
            .filter(web_session::Column::AccountId.eq(actor.person_id.clone()))
            .exec(&txn)
            .await?
            .rows_affected
    } else if id.starts_with("tok_") {
        api_token::Entity::update_many()
            .col_expr(
                api_token::Column::RevokedAt,
                sea_orm::sea_query::Expr::value(Some(now)),
            )
            .filter(api_token::Column::Id.eq(id.to_owned()))
            .filter(api_token::Column::AccountId.eq(actor.person_id.clone()))
            .filter(api_token::Column::RevokedAt.is_null())
            .exec(&txn)
            .await?
            .rows_affected
    } else {
        0
    };
    if done == 0 {
        return Err(AppError::not_found("session"));
    }
    let kind = if id.starts_with(BROWSER_PREFIX) {
        "browser"
    } else {
        "token"
    };
    actor
        .audit(
            &txn,
            now,
            "account.session_sign_out",
            ("account", &actor.person_id),
            serde_json::json!({ "kind": kind }),
        )
        .await?;
    txn.commit().await?;
    Ok(())
}
