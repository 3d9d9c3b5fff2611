//! Dashboard bearer tokens: issued on sign-in, stored only as SHA-256, expiring and revocable.

use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

use crate::domain::accounts::api_keys::{self, KeyUse};
use crate::domain::{Ctx, Principal, accounts, crypto, ids::new_id};
use crate::error::AppError;
use crate::model::{AccountStatus, TokenAccount, TokenResponse};
use entity::api_token;

/// Prefix of dashboard bearer tokens, so a leaked one is recognisable (secret scanning).
pub const TOKEN_PREFIX: &str = "mkt_dash";

/// Signs in with e-mail and password (and the second factor's code, `otp`, when the account
/// has one) and issues a new bearer token; `client` is the caller's rate-limit bucket.
pub async fn issue(
    ctx: &Ctx,
    email: &str,
    password: &str,
    otp: Option<&str>,
    client: &str,
) -> Result<TokenResponse, AppError> {
    let acc = accounts::authenticate(ctx, email, password, client).await?;
    accounts::second_factor::at_sign_in(ctx, &acc, otp).await?;
    let now = ctx.now();
    let token = crypto::random_token(TOKEN_PREFIX);
    let expires_at = now + ctx.config.dashboard_token_ttl;
    api_token::ActiveModel {
        id: Set(new_id("tok")),
        account_id: Set(acc.id.clone()),
        token_hash: Set(crypto::sha256_hex(&token)),
        created_at: Set(now),
        expires_at: Set(expires_at),
        revoked_at: Set(None),
    }
    .insert(&ctx.db)
    .await?;
    let p = accounts::principal_of(ctx, &acc).await?;
    Ok(TokenResponse {
        token,
        token_type: "Bearer".to_owned(),
        expires_at,
        account: TokenAccount {
            account_id: p.account_id,
            email: p.email,
            role: p.role,
            status: p.status,
        },
    })
}

/// The account behind a bearer token, or `401` when it is unknown, expired or revoked. An
/// API key is refused (`403 insufficient_scope`): use [`authorize`] where keys are accepted.
pub async fn resolve(ctx: &Ctx, token: &str) -> Result<Principal, AppError> {
    authorize(ctx, token, KeyUse::Closed).await
}

/// The account behind a dashboard token or an API key (`mkt_key_…`) whose grants allow
/// `need`; both are looked up on every request, so a revocation holds at once everywhere.
/// A member's team role is asked too (`teams::require_write`): a key works only as far as the
/// role of the person who made it still reaches.
pub async fn authorize(ctx: &Ctx, token: &str, need: KeyUse) -> Result<Principal, AppError> {
    let p = if token.starts_with(api_keys::KEY_PREFIX) {
        api_keys::resolve(ctx, token, need).await?
    } else {
        bearer(ctx, token).await?
    };
    if let KeyUse::Area { area, write: true } = need {
        accounts::teams::require_write(&p, area)?;
    }
    Ok(p)
}

/// The person behind a dashboard bearer token.
async fn bearer(ctx: &Ctx, token: &str) -> Result<Principal, AppError> {
    let unauthorized = || AppError::unauthorized("missing, expired or revoked bearer token");
    if !token.starts_with(TOKEN_PREFIX) {
        return Err(unauthorized());
    }
    let hash = crypto::sha256_hex(token);
    let row = api_token::Entity::find()
        .filter(api_token::Column::TokenHash.eq(hash.clone()))
        .one(&ctx.db)
        .await?
        .ok_or_else(unauthorized)?;
    // The lookup is by hash already; compare once more in constant time as a belt-and-braces.
    if !crypto::constant_time_eq(row.token_hash.as_bytes(), hash.as_bytes()) {
        return Err(unauthorized());
    }
    if row.revoked_at.is_some() || row.expires_at <= ctx.now() {
        return Err(unauthorized());
    }
    let acc = accounts::get(ctx, &row.account_id)
        .await
        .map_err(|_| unauthorized())?;
    let p = accounts::principal_of(ctx, &acc)
        .await
        .map_err(|_| unauthorized())?;
    if p.status == AccountStatus::Disabled {
        return Err(AppError::forbidden("this account is disabled"));
    }
    Ok(p)
}

/// Revokes the given token (sign-out). Unknown tokens are already unusable.
pub async fn revoke(ctx: &Ctx, token: &str) -> Result<(), AppError> {
    let hash = crypto::sha256_hex(token);
    if let Some(row) = api_token::Entity::find()
        .filter(api_token::Column::TokenHash.eq(hash))
        .one(&ctx.db)
        .await?
    {
        if row.revoked_at.is_none() {
            let mut am: api_token::ActiveModel = row.into();
            am.revoked_at = Set(Some(ctx.now()));
            am.update(&ctx.db).await?;
        }
    }
    Ok(())
}
