//! Password reset by e-mail (issue 54, part 2). Asking always answers the same, whether or
//! not an account uses the address; a known, enabled account gets a letter with a link that
//! works once, for [`RESET_LIFETIME`] (a newer link makes older ones useless). Only the
//! SHA-256 of the link's token is stored. Using it sets the new password, revokes every
//! bearer token and signs out every browser session of the account (in every process: both
//! are read on each request), audits the change and tells the owner.

use chrono::Duration;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

use crate::domain::{Ctx, Policy, audit, crypto, db, ids::new_id, mail, password};
use crate::error::{AppError, FieldErrors};
use crate::model::{AccountStatus, validate};
use entity::{account, password_reset};

/// How long a reset link works.
pub const RESET_LIFETIME: Duration = Duration::minutes(30);
/// The prefix of reset tokens (recognisable in a leak).
pub const TOKEN_PREFIX: &str = "mkt_reset";

/// Asks for a reset link for `email`, as `client` (the caller's rate-limit bucket). Always
/// `Ok` for a well-formed address (429 past the limits, which count unknown addresses too).
pub async fn request(ctx: &Ctx, email: &str, client: &str) -> Result<(), AppError> {
    let mut errs = FieldErrors::new();
    let email = errs.check("email", validate::email(email));
    errs.finish()?;
    let Some(email) = email else {
        return Err(AppError::invalid("invalid e-mail"));
    };
    ctx.limits.check(Policy::PasswordResetAddress, client)?;
    ctx.limits.check(Policy::PasswordReset, &email)?;
    let found = account::Entity::find()
        .filter(account::Column::Email.eq(email.clone()))
        .one(&ctx.db)
        .await?;
    let Some(acc) = found.filter(|a| a.status != AccountStatus::Disabled) else {
        return Ok(());
    };
    let now = ctx.now();
    let token = crypto::random_token(TOKEN_PREFIX);
    let txn = db::begin(&ctx.db).await?;
    // Only the newest link works.
    password_reset::Entity::update_many()
        .col_expr(password_reset::Column::UsedAt, Expr::value(Some(now)))
        .filter(password_reset::Column::AccountId.eq(acc.id.clone()))
        .filter(password_reset::Column::UsedAt.is_null())
        .exec(&txn)
        .await?;
    password_reset::ActiveModel {
        id: Set(new_id("pwr")),
        account_id: Set(acc.id.clone()),
        token_hash: Set(crypto::sha256_hex(&token)),
        created_at: Set(now),
        expires_at: Set(now + RESET_LIFETIME),
        used_at: Set(None),
    }
    .insert(&txn)
    .await?;
    let letter =
        mail::letters::password_reset(&ctx.config.base_url, &token, RESET_LIFETIME.num_minutes());
    mail::outbox::enqueue(ctx, &txn, now, Some(&acc.id), &acc.email, letter).await?;
    audit::record(
        &txn,
        now,
        None,
        "account.password_reset_requested",
        ("account", &acc.id),
        serde_json::json!({}),
    )
    .await?;
    txn.commit().await?;
    Ok(())
}

/// Sets a new password with the token of a reset link; returns the account id. A token that
/// is unknown, used or expired is refused (400 `reset_link_invalid`), and so is a password
/// the rules refuse (400 with the field), which leaves the link usable.
pub async fn reset(ctx: &Ctx, token: &str, new_password: &str) -> Result<String, AppError> {
    let mut errs = FieldErrors::new();
    let pw = errs.check(
        "newPassword",
        validate::password(new_password).map(str::to_owned),
    );
    errs.finish()?;
    let Some(pw) = pw else {
        return Err(AppError::invalid("invalid password"));
    };
    let invalid = || {
        AppError::invalid("this link is not valid any more; ask for a new one")
            .with_code("reset_link_invalid")
    };
    if !token.starts_with(&format!("{TOKEN_PREFIX}_")) {
        return Err(invalid());
    }
    let hash = crypto::sha256_hex(token);
    let now = ctx.now();
    let link = password_reset::Entity::find()
        .filter(password_reset::Column::TokenHash.eq(hash.clone()))
        .one(&ctx.db)
        .await?
        .filter(|r| crypto::constant_time_eq(r.token_hash.as_bytes(), hash.as_bytes()))
        .ok_or_else(invalid)?;
    let hashed = password::hash(pw).await?;
    let txn = db::begin(&ctx.db).await?;
    // Used once: of two uses at once only one moves `used_at`.
    let claimed = password_reset::Entity::update_many()
        .col_expr(password_reset::Column::UsedAt, Expr::value(Some(now)))
        .filter(password_reset::Column::Id.eq(link.id.clone()))
        .filter(password_reset::Column::UsedAt.is_null())
        .filter(password_reset::Column::ExpiresAt.gt(now))
        .exec(&txn)
        .await?;
    if claimed.rows_affected != 1 {
        return Err(invalid());
    }
    let acc = account::Entity::find_by_id(link.account_id.clone())
        .one(&txn)
        .await?
        .filter(|a| a.status != AccountStatus::Disabled)
        .ok_or_else(invalid)?;
    let mut am: account::ActiveModel = acc.clone().into();
    am.password_hash = Set(hashed);
    am.updated_at = Set(now);
    am.update(&txn).await?;
    super::security::next_generation(&txn, &acc.id, now).await?;
    super::security::revoke_tokens(&txn, &acc.id, now, None).await?;
    audit::record(
        &txn,
        now,
        Some(&acc.id),
        "account.password_reset",
        ("account", &acc.id),
        serde_json::json!({}),
    )
    .await?;
    let letter = mail::letters::password_changed(&ctx.config.base_url);
    mail::outbox::enqueue(ctx, &txn, now, Some(&acc.id), &acc.email, letter).await?;
    txn.commit().await?;
    Ok(acc.id)
}
