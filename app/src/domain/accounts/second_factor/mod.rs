//! A second factor (issue 54, part 4): TOTP (RFC 6238: SHA-1, six digits, 30-second steps,
//! one step of drift either way) with ten single-use recovery codes. Enrolment shows a
//! secret (and its QR code) that only becomes the account's factor once a code from it is
//! confirmed. A code works once: the newest accepted time step is kept and only a later one
//! passes (a guarded update, so two requests racing with one code accept it once). Codes
//! tried per account are limited (`Policy::SecondFactor`).
//!
//! Where it is asked: at sign-in ([`at_sign_in`], 401), and again before the actions that
//! move money or grant access ([`step_up`], 403): a payout profile change, a payout request,
//! an API key.

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, Set,
};
use totp_rs::{Builder, Secret, Totp};

mod codes;

use crate::domain::{Ctx, Policy, Principal, crypto, db, mail, password};
use crate::error::AppError;
use crate::model::second_factor::{SecondFactorEnrolment as Enrolment, SecondFactorState};
use entity::{account, recovery_code, second_factor};

/// The issuer an authenticator app shows next to the code.
pub const ISSUER: &str = "Marketplace";
/// Recovery codes made at enrolment (and when renewed).
pub const RECOVERY_CODES: usize = 10;

/// What an account's sealed TOTP secrets are bound to (its row).
pub fn seal_binding(account_id: &str) -> String {
    format!("second_factors:{account_id}")
}

fn totp(secret: Vec<u8>, email: &str) -> Result<Totp, AppError> {
    Builder::new()
        .with_secret(Secret::from(secret))
        .with_issuer(Some(ISSUER))
        // `:` separates issuer and account in the link; an address never has one, but a
        // stray one must not make enrolment fail.
        .with_account_name(email.replace(':', ""))
        .build()
        .map_err(|e| {
            tracing::error!(error = %e, "TOTP could not be built");
            AppError::internal()
        })
}

fn enrolment(
    ctx: &Ctx,
    account_id: &str,
    email: &str,
    sealed: &str,
) -> Result<Enrolment, AppError> {
    let secret = Secret::try_from_base32(ctx.keys.open(&seal_binding(account_id), sealed)?)
        .map_err(|_| AppError::internal())?;
    let t = totp(secret.as_ref().to_vec(), email)?;
    let uri = t.to_url().map_err(|_| AppError::internal())?;
    let qr = qrcode::QrCode::new(uri.as_bytes()).map_err(|_| AppError::internal())?;
    let qr_svg = qr
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(200, 200)
        .build();
    Ok(Enrolment {
        secret: secret.to_base32(),
        uri,
        qr_svg,
    })
}

async fn row<C: ConnectionTrait>(
    db: &C,
    account_id: &str,
) -> Result<Option<second_factor::Model>, AppError> {
    Ok(second_factor::Entity::find_by_id(account_id.to_owned())
        .one(db)
        .await?)
}

/// Whether the service requires `p` to keep a second factor (administrators, where
/// `APP_ADMIN_SECOND_FACTOR` is on): the one rule behind [`admin_may_act`], [`disable`] and
/// the account card's "required".
pub fn required_of(ctx: &Ctx, p: &Principal) -> bool {
    p.role.is_admin() && ctx.config.admins_need_second_factor
}

/// Refuses an administrator who has no second factor while the service requires one of
/// administrators (`APP_ADMIN_SECOND_FACTOR`): 403 `admin_second_factor_required`. Checked
/// wherever an administrator acts; the account's own pages and `/auth/v1` stay open so the
/// factor can be turned on.
pub async fn admin_may_act(ctx: &Ctx, p: &Principal) -> Result<(), AppError> {
    if !required_of(ctx, p) || is_enabled(&ctx.db, &p.person_id).await? {
        return Ok(());
    }
    Err(AppError::forbidden(
        "administrators need a second factor: turn it on under Your account (/account) first",
    )
    .with_code("admin_second_factor_required"))
}

/// Whether the account has a confirmed second factor.
pub async fn is_enabled<C: ConnectionTrait>(db: &C, account_id: &str) -> Result<bool, AppError> {
    Ok(row(db, account_id)
        .await?
        .is_some_and(|r| r.enabled_at.is_some()))
}

/// The account's second factor as its owner sees it.
pub async fn state(ctx: &Ctx, actor: &Principal) -> Result<SecondFactorState, AppError> {
    let r = row(&ctx.db, &actor.person_id).await?;
    let pending = match r.as_ref().and_then(|r| r.pending_sealed.as_deref()) {
        Some(sealed) => Some(enrolment(ctx, &actor.person_id, &actor.email, sealed)?),
        None => None,
    };
    let left = recovery_code::Entity::find()
        .filter(recovery_code::Column::AccountId.eq(actor.person_id.clone()))
        .filter(recovery_code::Column::UsedAt.is_null())
        .count(&ctx.db)
        .await?;
    Ok(SecondFactorState {
        enabled: r.is_some_and(|r| r.enabled_at.is_some()),
        pending,
        recovery_codes_left: left,
    })
}

/// Starts (or restarts) an enrolment after the password (401 `invalid_credentials`): a new
/// secret, shown until confirmed. The password is asked so that a stolen session or token
/// cannot put a factor of its own on the account and lock its owner out. Refused (409
/// `second_factor_enabled`) while a factor is on: turn it off first.
pub async fn begin(
    ctx: &Ctx,
    actor: &Principal,
    password_plain: &str,
) -> Result<Enrolment, AppError> {
    check_password(ctx, actor, password_plain).await?;
    let now = ctx.now();
    let existing = row(&ctx.db, &actor.person_id).await?;
    if existing.as_ref().is_some_and(|r| r.enabled_at.is_some()) {
        return Err(
            AppError::conflict("a second factor is already on; turn it off first")
                .with_code("second_factor_enabled"),
        );
    }
    // 20 bytes (160 bits), the size RFC 4226 recommends for HMAC-SHA-1.
    let secret = Secret::from(crypto::random_bytes::<20>());
    let sealed = ctx
        .keys
        .seal(&seal_binding(&actor.person_id), &secret.to_base32())?;
    match existing {
        Some(r) => {
            let mut am: second_factor::ActiveModel = r.into();
            am.pending_sealed = Set(Some(sealed.clone()));
            am.updated_at = Set(now);
            am.update(&ctx.db).await?;
        }
        None => {
            second_factor::ActiveModel {
                account_id: Set(actor.person_id.clone()),
                secret_sealed: Set(None),
                pending_sealed: Set(Some(sealed.clone())),
                enabled_at: Set(None),
                last_step: Set(None),
                updated_at: Set(now),
            }
            .insert(&ctx.db)
            .await
            .map_err(db::race_on_unique)?;
        }
    }
    enrolment(ctx, &actor.person_id, &actor.email, &sealed)
}

/// Confirms an enrolment with a code from the new secret: the factor is on, and the ten
/// recovery codes are returned (only here). The owner is told by mail.
///
/// Not limited: guessing here gains nothing, since whoever may confirm may also start an
/// enrolment and read its secret.
pub async fn confirm(ctx: &Ctx, actor: &Principal, code: &str) -> Result<Vec<String>, AppError> {
    let r = row(&ctx.db, &actor.person_id).await?;
    let Some(sealed) = r.as_ref().and_then(|r| r.pending_sealed.clone()) else {
        return Err(AppError::conflict("start an enrolment first").with_code("no_enrolment"));
    };
    let now = ctx.now();
    let step = matching_step(ctx, &actor.person_id, &actor.email, &sealed, code)?
        .ok_or_else(wrong_code)?;
    let txn = db::begin(&ctx.db).await?;
    let done = second_factor::Entity::update_many()
        .col_expr(
            second_factor::Column::SecretSealed,
            Expr::value(Some(sealed.clone())),
        )
        .col_expr(
            second_factor::Column::PendingSealed,
            Expr::value(Option::<String>::None),
        )
        .col_expr(second_factor::Column::EnabledAt, Expr::value(Some(now)))
        .col_expr(second_factor::Column::LastStep, Expr::value(Some(step)))
        .col_expr(second_factor::Column::UpdatedAt, Expr::value(now))
        .filter(second_factor::Column::AccountId.eq(actor.person_id.clone()))
        .filter(second_factor::Column::PendingSealed.eq(sealed))
        .exec(&txn)
        .await?;
    if done.rows_affected != 1 {
        return Err(
            AppError::conflict("the enrolment changed; start again").with_code("no_enrolment")
        );
    }
    let codes = codes::replace(&txn, &actor.person_id, now).await?;
    let letter = mail::letters::second_factor_changed(&ctx.config.base_url, true);
    let subject = ("account", actor.person_id.as_str());
    super::audit_and_tell(
        ctx,
        &txn,
        actor,
        "second_factor.enable",
        subject,
        serde_json::json!({}),
        letter,
    )
    .await?;
    txn.commit().await?;
    Ok(codes)
}

/// Turns the factor off after the password and a code (or a recovery code). Administrators
/// cannot while the service requires it of them ([`required_of`]).
pub async fn disable(
    ctx: &Ctx,
    actor: &Principal,
    password_plain: &str,
    code: &str,
) -> Result<(), AppError> {
    if required_of(ctx, actor) {
        return Err(
            AppError::forbidden("administrators must keep a second factor").with_code("forbidden"),
        );
    }
    check_password(ctx, actor, password_plain).await?;
    if !verify(ctx, &actor.person_id, &actor.email, code).await? {
        return Err(wrong_code());
    }
    let txn = db::begin(&ctx.db).await?;
    second_factor::Entity::delete_by_id(actor.person_id.clone())
        .exec(&txn)
        .await?;
    recovery_code::Entity::delete_many()
        .filter(recovery_code::Column::AccountId.eq(actor.person_id.clone()))
        .exec(&txn)
        .await?;
    let letter = mail::letters::second_factor_changed(&ctx.config.base_url, false);
    let subject = ("account", actor.person_id.as_str());
    super::audit_and_tell(
        ctx,
        &txn,
        actor,
        "second_factor.disable",
        subject,
        serde_json::json!({}),
        letter,
    )
    .await?;
    txn.commit().await?;
    Ok(())
}

/// The account's current password, or 401 `invalid_credentials` (tries counted like
/// sign-ins, per account).
async fn check_password(
    ctx: &Ctx,
    actor: &Principal,
    password_plain: &str,
) -> Result<(), AppError> {
    let acc = super::get(ctx, &actor.person_id).await?;
    ctx.limits
        .check(Policy::SignIn, &format!("change|{}", actor.person_id))?;
    if password::verify(password_plain.to_owned(), Some(acc.password_hash)).await? {
        Ok(())
    } else {
        Err(AppError::unauthorized("the current password is incorrect")
            .with_code("invalid_credentials"))
    }
}

/// New recovery codes (the old ones stop working), after a code.
pub async fn renew_recovery_codes(
    ctx: &Ctx,
    actor: &Principal,
    code: &str,
) -> Result<Vec<String>, AppError> {
    if !is_enabled(&ctx.db, &actor.person_id).await? {
        return Err(
            AppError::conflict("the account has no second factor").with_code("no_second_factor")
        );
    }
    step_up(ctx, actor, Some(code)).await?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let codes = codes::replace(&txn, &actor.person_id, now).await?;
    actor
        .audit(
            &txn,
            now,
            "second_factor.recovery_codes",
            ("account", &actor.person_id),
            serde_json::json!({}),
        )
        .await?;
    txn.commit().await?;
    Ok(codes)
}

/// The sign-in check of an account with a factor: 401 `second_factor_required` without a
/// code, 401 `invalid_second_factor` with a wrong or used one. Accounts without pass.
pub async fn at_sign_in(
    ctx: &Ctx,
    acc: &account::Model,
    code: Option<&str>,
) -> Result<(), AppError> {
    if !is_enabled(&ctx.db, &acc.id).await? {
        return Ok(());
    }
    let Some(code) = code.map(str::trim).filter(|c| !c.is_empty()) else {
        return Err(AppError::unauthorized(
            "this account has a second factor: send the code of your authenticator app (or a recovery code) as `otp`",
        )
        .with_code("second_factor_required"));
    };
    if verify(ctx, &acc.id, &acc.email, code).await? {
        Ok(())
    } else {
        Err(
            AppError::unauthorized("the second-factor code is wrong or was used already")
                .with_code("invalid_second_factor"),
        )
    }
}

/// Asks an account with a factor for a code again before an action that moves money or
/// grants access: 403 `step_up_required` without a valid one. Accounts without pass.
pub async fn step_up(ctx: &Ctx, actor: &Principal, code: Option<&str>) -> Result<(), AppError> {
    if !is_enabled(&ctx.db, &actor.person_id).await? {
        return Ok(());
    }
    let ok = match code.map(str::trim).filter(|c| !c.is_empty()) {
        Some(code) => verify(ctx, &actor.person_id, &actor.email, code).await?,
        None => false,
    };
    if ok {
        Ok(())
    } else {
        Err(AppError::forbidden(
            "confirm with a current second-factor code (the `X-Second-Factor` header, or the form's code field)",
        )
        .with_code("step_up_required"))
    }
}

/// Checks a code of an account with a factor: six digits are a TOTP code (accepted once),
/// anything else a recovery code (used up). Limited per account.
async fn verify(ctx: &Ctx, account_id: &str, email: &str, code: &str) -> Result<bool, AppError> {
    ctx.limits.second_factor_allowed(account_id)?;
    let ok = code_matches(ctx, account_id, email, code.trim()).await?;
    if !ok {
        ctx.limits.second_factor_failed(account_id);
    }
    Ok(ok)
}

async fn code_matches(
    ctx: &Ctx,
    account_id: &str,
    email: &str,
    code: &str,
) -> Result<bool, AppError> {
    if code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit()) {
        let Some(r) = row(&ctx.db, account_id).await? else {
            return Ok(false);
        };
        let Some(sealed) = r.secret_sealed.as_deref() else {
            return Ok(false);
        };
        let Some(step) = matching_step(ctx, account_id, email, sealed, code)? else {
            return Ok(false);
        };
        let taken = second_factor::Entity::update_many()
            .col_expr(second_factor::Column::LastStep, Expr::value(Some(step)))
            .filter(second_factor::Column::AccountId.eq(account_id.to_owned()))
            .filter(
                Expr::col(second_factor::Column::LastStep)
                    .is_null()
                    .or(Expr::col(second_factor::Column::LastStep).lt(step)),
            )
            .exec(&ctx.db)
            .await?;
        return Ok(taken.rows_affected == 1);
    }
    codes::use_up(ctx, account_id, code).await
}

/// The time step a code matches under the sealed secret (this step or one either side).
fn matching_step(
    ctx: &Ctx,
    account_id: &str,
    email: &str,
    sealed: &str,
    code: &str,
) -> Result<Option<i64>, AppError> {
    let secret = Secret::try_from_base32(ctx.keys.open(&seal_binding(account_id), sealed)?)
        .map_err(|_| AppError::internal())?;
    let t = totp(secret.as_ref().to_vec(), email)?;
    let now = u64::try_from(ctx.now().timestamp()).unwrap_or(0);
    Ok(t.check(code.trim(), now)
        .and_then(|s| i64::try_from(s).ok()))
}

fn wrong_code() -> AppError {
    AppError::field(
        "code",
        "the code is wrong or was used already: use the newest one your app shows",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_6238_vector_passes_at_its_time_and_one_step_either_side_only() {
        // RFC 6238 appendix B: the SHA-1 secret "12345678901234567890" at T = 59 s gives
        // 94287082 (eight digits); its last six are the six-digit code.
        let t = totp(b"12345678901234567890".to_vec(), "a@b.example").unwrap();
        assert_eq!(t.check("287082", 59), Some(1));
        assert_eq!(t.check("287082", 59 + 30), Some(1));
        assert_eq!(t.check("287082", 59 + 61), None);
        assert_eq!(t.check("287083", 59), None);
    }
}
