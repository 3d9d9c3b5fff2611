//! The signed-in owner's own security (issue 54, part 2): changing the password after
//! entering the current one, and signing out everywhere. Both move the account's session
//! generation on and revoke its bearer tokens in one transaction, which every process reads
//! on every request, so the change holds at once everywhere; the caller's own session or
//! token can be kept (the server function re-stamps its session with the new generation, the
//! API keeps the token that asked).

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect, Set,
};

use crate::domain::{Ctx, Policy, Principal, crypto, db, mail, password};
use crate::error::{AppError, FieldErrors};
use crate::model::validate;
use entity::{account, api_token};

/// Changes the password of the signed-in account after checking the current one (401
/// `invalid_credentials`, counted like sign-ins). Returns the new session generation.
/// `keep_token`: the bearer token of the request, which stays valid.
pub async fn change_password(
    ctx: &Ctx,
    actor: &Principal,
    current: &str,
    new_password: &str,
    keep_token: Option<&str>,
) -> Result<i32, AppError> {
    let mut errs = FieldErrors::new();
    let pw = errs.check(
        "newPassword",
        validate::password(new_password).map(str::to_owned),
    );
    errs.finish()?;
    let Some(pw) = pw else {
        return Err(AppError::invalid("invalid password"));
    };
    ctx.limits
        .check(Policy::SignIn, &format!("change|{}", actor.person_id))?;
    let acc = super::get(ctx, &actor.person_id).await?;
    if !password::verify(current.to_owned(), Some(acc.password_hash.clone())).await? {
        return Err(AppError::unauthorized("the current password is incorrect")
            .with_code("invalid_credentials"));
    }
    let hashed = password::hash(pw).await?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let mut am: account::ActiveModel = acc.clone().into();
    am.password_hash = Set(hashed);
    am.updated_at = Set(now);
    am.update(&txn).await?;
    let generation = next_generation(&txn, &acc.id, now).await?;
    revoke_tokens(&txn, &acc.id, now, keep_token).await?;
    actor
        .audit(
            &txn,
            now,
            "account.password_change",
            ("account", &acc.id),
            serde_json::json!({}),
        )
        .await?;
    let letter = mail::letters::password_changed(&ctx.config.base_url);
    mail::outbox::enqueue(ctx, &txn, now, Some(&acc.id), &acc.email, letter).await?;
    txn.commit().await?;
    Ok(generation)
}

/// Signs the account out of every browser and revokes every bearer token but `keep_token`.
pub async fn sign_out_everywhere(
    ctx: &Ctx,
    actor: &Principal,
    keep_token: Option<&str>,
) -> Result<(), AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    next_generation(&txn, &actor.person_id, now).await?;
    revoke_tokens(&txn, &actor.person_id, now, keep_token).await?;
    actor
        .audit(
            &txn,
            now,
            "account.sign_out_everywhere",
            ("account", &actor.person_id),
            serde_json::json!({}),
        )
        .await?;
    txn.commit().await?;
    Ok(())
}

/// Moves the account's session generation on (signing out every browser session signed in
/// before) in the caller's transaction; returns the new generation.
pub(super) async fn next_generation<C: ConnectionTrait>(
    db: &C,
    account_id: &str,
    now: DateTime<Utc>,
) -> Result<i32, AppError> {
    account::Entity::update_many()
        .col_expr(
            account::Column::SessionGeneration,
            Expr::col(account::Column::SessionGeneration).add(1),
        )
        .col_expr(account::Column::UpdatedAt, Expr::value(now))
        .filter(account::Column::Id.eq(account_id.to_owned()))
        .exec(db)
        .await?;
    // The account's stored browser sessions go too: the generation already signs them out
    // (also those stored before sessions named their account), and deleting them keeps the
    // list of sessions to the live ones.
    entity::web_session::Entity::delete_many()
        .filter(entity::web_session::Column::AccountId.eq(account_id.to_owned()))
        .exec(db)
        .await?;
    account::Entity::find_by_id(account_id.to_owned())
        .select_only()
        .column(account::Column::SessionGeneration)
        .into_tuple::<i32>()
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("account"))
}

/// Revokes the account's live bearer tokens, all but `keep` (a token, not its hash).
pub(super) async fn revoke_tokens<C: ConnectionTrait>(
    db: &C,
    account_id: &str,
    now: DateTime<Utc>,
    keep: Option<&str>,
) -> Result<(), AppError> {
    let mut q = api_token::Entity::update_many()
        .col_expr(api_token::Column::RevokedAt, Expr::value(Some(now)))
        .filter(api_token::Column::AccountId.eq(account_id.to_owned()))
        .filter(api_token::Column::RevokedAt.is_null());
    if let Some(token) = keep {
        q = q.filter(api_token::Column::TokenHash.ne(crypto::sha256_hex(token)));
    }
    q.exec(db).await?;
    Ok(())
}

/// Deletes everything a person signs in with (tokens, API keys, browser sessions, the second
/// factor, recovery codes, reset links), in the caller's transaction, before their row goes
/// (a member removed from a team). Each is read on every request, so this holds at once in
/// every process.
pub(super) async fn forget_person<C: ConnectionTrait>(
    db: &C,
    person_id: &str,
) -> Result<(), AppError> {
    use entity::{api_key, password_reset, recovery_code, second_factor, web_session};
    let id = || person_id.to_owned();
    api_token::Entity::delete_many()
        .filter(api_token::Column::AccountId.eq(id()))
        .exec(db)
        .await?;
    api_key::Entity::delete_many()
        .filter(api_key::Column::AccountId.eq(id()))
        .exec(db)
        .await?;
    web_session::Entity::delete_many()
        .filter(web_session::Column::AccountId.eq(id()))
        .exec(db)
        .await?;
    recovery_code::Entity::delete_many()
        .filter(recovery_code::Column::AccountId.eq(id()))
        .exec(db)
        .await?;
    second_factor::Entity::delete_by_id(id()).exec(db).await?;
    password_reset::Entity::delete_many()
        .filter(password_reset::Column::AccountId.eq(id()))
        .exec(db)
        .await?;
    Ok(())
}
