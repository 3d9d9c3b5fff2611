//! The sign-in address (issue 54, part 2): verifying it at registration, and changing it
//! after re-entering the password. Both go by a mailed link that works once (only the SHA-256
//! of its token is kept; a newer link of the same purpose makes older ones useless). A
//! change is confirmed from the new address, and the old address is told twice: when the
//! change is asked for and when it is done, so a stolen session cannot move an account's
//! mail away unseen.
//!
//! An unverified address does not stop the account from working (the API contract lets a
//! new account act at once); the dashboard shows it, and inviting a team needs a verified
//! address (`teams::invitations`), so a throwaway registration cannot send invitations.

use chrono::Duration;
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};

use crate::domain::{Ctx, Policy, Principal, audit, crypto, db, ids::new_id, mail, password};
use crate::error::{AppError, FieldErrors};
use crate::model::{EmailLinkPurpose, validate};
use entity::{account, email_link};

/// How long a verification link works.
pub const VERIFY_LIFETIME: Duration = Duration::days(3);
/// How long a link confirming a new address works.
pub const CHANGE_LIFETIME: Duration = Duration::hours(24);
/// The prefix of e-mail link tokens (recognisable in a leak).
pub const TOKEN_PREFIX: &str = "mkt_email";

/// Writes a link of `purpose` for `email` in the caller's transaction (older open links of
/// the same purpose stop working) and returns its token.
async fn new_link<C: ConnectionTrait>(
    db: &C,
    now: chrono::DateTime<chrono::Utc>,
    person_id: &str,
    purpose: EmailLinkPurpose,
    email: &str,
) -> Result<String, AppError> {
    email_link::Entity::update_many()
        .col_expr(email_link::Column::UsedAt, Expr::value(Some(now)))
        .filter(email_link::Column::AccountId.eq(person_id.to_owned()))
        .filter(email_link::Column::Purpose.eq(purpose.as_str()))
        .filter(email_link::Column::UsedAt.is_null())
        .exec(db)
        .await?;
    let token = crypto::random_token(TOKEN_PREFIX);
    let lifetime = match purpose {
        EmailLinkPurpose::Verify => VERIFY_LIFETIME,
        EmailLinkPurpose::Change => CHANGE_LIFETIME,
    };
    email_link::ActiveModel {
        id: Set(new_id("eml")),
        account_id: Set(person_id.to_owned()),
        purpose: Set(purpose),
        email: Set(email.to_owned()),
        token_hash: Set(crypto::sha256_hex(&token)),
        created_at: Set(now),
        expires_at: Set(now + lifetime),
        used_at: Set(None),
    }
    .insert(db)
    .await?;
    Ok(token)
}

/// Mails a verification link to a new account's address, in the registration's transaction.
pub(super) async fn send_verification<C: ConnectionTrait>(
    ctx: &Ctx,
    db: &C,
    person_id: &str,
    email: &str,
) -> Result<(), AppError> {
    let now = ctx.now();
    let token = new_link(db, now, person_id, EmailLinkPurpose::Verify, email).await?;
    let letter =
        mail::letters::email_verification(&ctx.config.base_url, &token, VERIFY_LIFETIME.num_days());
    mail::outbox::enqueue(ctx, db, now, Some(person_id), email, letter).await?;
    Ok(())
}

/// Sends the signed-in person a new verification link (409 `email_verified` when the address
/// is verified already; limited like reset links, per address).
pub async fn resend_verification(ctx: &Ctx, actor: &Principal) -> Result<(), AppError> {
    let person = super::get(ctx, &actor.person_id).await?;
    if person.email_verified_at.is_some() {
        return Err(
            AppError::conflict("this address is verified already").with_code("email_verified")
        );
    }
    ctx.limits
        .check(Policy::PasswordReset, &format!("verify|{}", person.email))?;
    let txn = db::begin(&ctx.db).await?;
    send_verification(ctx, &txn, &person.id, &person.email).await?;
    txn.commit().await?;
    Ok(())
}

/// Asks to change the signed-in person's address to `new_email` after checking the password
/// (401 `invalid_credentials`, counted like sign-ins): a link goes to the new address, and
/// the old one is told. Nothing changes until the link is used.
pub async fn request_change(
    ctx: &Ctx,
    actor: &Principal,
    new_email: &str,
    current_password: &str,
) -> Result<(), AppError> {
    let mut errs = FieldErrors::new();
    let email = errs.check("newEmail", validate::email(new_email));
    errs.finish()?;
    let Some(email) = email else {
        return Err(AppError::invalid("invalid e-mail"));
    };
    ctx.limits
        .check(Policy::SignIn, &format!("change|{}", actor.person_id))?;
    let person = super::get(ctx, &actor.person_id).await?;
    if !password::verify(
        current_password.to_owned(),
        Some(person.password_hash.clone()),
    )
    .await?
    {
        return Err(AppError::unauthorized("the current password is incorrect")
            .with_code("invalid_credentials"));
    }
    if email == person.email {
        return Err(AppError::field("newEmail", "this is the address already"));
    }
    taken(&ctx.db, &email).await?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let token = new_link(&txn, now, &person.id, EmailLinkPurpose::Change, &email).await?;
    let hours = CHANGE_LIFETIME.num_hours();
    let confirm = mail::letters::email_change_requested(&ctx.config.base_url, &token, hours);
    mail::outbox::enqueue(ctx, &txn, now, Some(&person.id), &email, confirm).await?;
    let notice = mail::letters::email_changed(&ctx.config.base_url, &email, false);
    mail::outbox::enqueue(ctx, &txn, now, Some(&person.id), &person.email, notice).await?;
    let detail = serde_json::json!({"to": email});
    actor
        .audit(
            &txn,
            now,
            "account.email_change_requested",
            ("account", &person.id),
            detail,
        )
        .await?;
    txn.commit().await?;
    Ok(())
}

/// 409 `email_taken` when an account uses `email` (an address belongs to one person; also
/// asked before an invitation).
pub(in crate::domain::accounts) async fn taken<C: ConnectionTrait>(
    db: &C,
    email: &str,
) -> Result<(), AppError> {
    let found = account::Entity::find()
        .filter(account::Column::Email.eq(email.to_owned()))
        .one(db)
        .await?;
    if found.is_some() {
        return Err(
            AppError::conflict("an account already uses this e-mail").with_code("email_taken")
        );
    }
    Ok(())
}

fn invalid_link() -> AppError {
    AppError::invalid("this link is not valid any more; ask for a new one")
        .with_code("email_link_invalid")
}

/// Uses a mailed link: verifies the address, or moves the sign-in e-mail to the new one
/// (telling the old address). Returns what it confirmed. Unknown, used, expired or outdated
/// links are refused (400 `email_link_invalid`).
pub async fn confirm(ctx: &Ctx, token: &str) -> Result<EmailLinkPurpose, AppError> {
    if !token.starts_with(&format!("{TOKEN_PREFIX}_")) || token.len() > 200 {
        return Err(invalid_link());
    }
    let hash = crypto::sha256_hex(token);
    let now = ctx.now();
    let link = email_link::Entity::find()
        .filter(email_link::Column::TokenHash.eq(hash.clone()))
        .one(&ctx.db)
        .await?
        .filter(|r| crypto::constant_time_eq(r.token_hash.as_bytes(), hash.as_bytes()))
        .ok_or_else(invalid_link)?;
    let txn = db::begin(&ctx.db).await?;
    // Used once: of two uses at once only one moves `used_at`.
    let claimed = email_link::Entity::update_many()
        .col_expr(email_link::Column::UsedAt, Expr::value(Some(now)))
        .filter(email_link::Column::Id.eq(link.id.clone()))
        .filter(email_link::Column::UsedAt.is_null())
        .filter(email_link::Column::ExpiresAt.gt(now))
        .exec(&txn)
        .await?;
    if claimed.rows_affected != 1 {
        return Err(invalid_link());
    }
    let person = account::Entity::find_by_id(link.account_id.clone())
        .one(&txn)
        .await?
        .ok_or_else(invalid_link)?;
    let mut am: account::ActiveModel = person.clone().into();
    am.updated_at = Set(now);
    am.email_verified_at = Set(Some(now));
    match link.purpose {
        // A verification link is for the address it was sent to; one the account has since
        // moved away from proves nothing.
        EmailLinkPurpose::Verify if link.email != person.email => return Err(invalid_link()),
        EmailLinkPurpose::Verify => {}
        EmailLinkPurpose::Change => {
            taken(&txn, &link.email).await?;
            am.email = Set(link.email.clone());
        }
    }
    am.update(&txn)
        .await
        .map_err(|e| db::conflict_on_unique(e, "an account already uses this e-mail"))?;
    let action = match link.purpose {
        EmailLinkPurpose::Verify => "account.email_verified",
        EmailLinkPurpose::Change => "account.email_changed",
    };
    let detail = serde_json::json!({"email": link.email});
    audit::record(
        &txn,
        now,
        Some(&person.id),
        action,
        ("account", &person.id),
        detail,
    )
    .await?;
    if link.purpose == EmailLinkPurpose::Change {
        let notice = mail::letters::email_changed(&ctx.config.base_url, &link.email, true);
        mail::outbox::enqueue(ctx, &txn, now, Some(&person.id), &person.email, notice).await?;
    }
    txn.commit().await?;
    Ok(link.purpose)
}
