//! Accounts: registration, operator creation, sign-in checks and advertiser approval; the
//! sign-in address (verifying and changing it) in [`email`];
//! recovery (password reset by e-mail) in [`recovery`], changing the password and signing
//! out everywhere in [`security`], API keys for the dashboard API in [`api_keys`], the second
//! factor (TOTP and recovery codes) in [`second_factor`], members and their roles in
//! [`teams`].

pub mod api_keys;
pub mod email;
pub mod notices;
pub mod recovery;
pub mod second_factor;
pub mod security;
pub mod sessions;
pub mod teams;

use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

use crate::domain::notices::Notice;
use crate::domain::paging::Page;
use crate::domain::{Ctx, Principal, audit, db, ids::new_id, mail, password};
use crate::error::{AppError, FieldErrors};
use crate::model::account::AccountList;
use crate::model::{
    AccountStatus, AccountView, NoticeTopic, RegisterRequest, Role, TeamRole, validate,
};
use entity::account;

/// Self-service registration: publishers start ACTIVE, advertisers PENDING.
pub async fn register(ctx: &Ctx, req: RegisterRequest) -> Result<AccountView, AppError> {
    let mut errs = FieldErrors::new();
    let email = errs.check("email", validate::email(&req.email));
    let pw = errs.check(
        "password",
        validate::password(&req.password).map(str::to_owned),
    );
    let company = errs.check(
        "companyName",
        validate::display_name(&req.company_name, 120),
    );
    if !matches!(req.role, Role::Publisher | Role::Advertiser) {
        errs.add("role", "must be PUBLISHER or ADVERTISER");
    }
    errs.finish()?;
    let (Some(email), Some(pw), Some(company)) = (email, pw, company) else {
        return Err(AppError::invalid("invalid registration"));
    };
    let status = if req.role == Role::Advertiser {
        AccountStatus::Pending
    } else {
        AccountStatus::Active
    };
    insert(ctx, email, pw, req.role, status, company, None).await
}

/// Operator creation (`server user create`): any role, always ACTIVE.
pub async fn create_active(
    ctx: &Ctx,
    email: &str,
    password: &str,
    role: Role,
    company_name: &str,
) -> Result<AccountView, AppError> {
    let mut errs = FieldErrors::new();
    let email = errs.check("email", validate::email(email));
    let pw = errs.check("password", validate::password(password).map(str::to_owned));
    let company = errs.check("companyName", validate::display_name(company_name, 120));
    errs.finish()?;
    let (Some(email), Some(pw), Some(company)) = (email, pw, company) else {
        return Err(AppError::invalid("invalid account"));
    };
    insert(
        ctx,
        email,
        pw,
        role,
        AccountStatus::Active,
        company,
        Some("operator"),
    )
    .await
}

async fn insert(
    ctx: &Ctx,
    email: String,
    pw: String,
    role: Role,
    status: AccountStatus,
    company: String,
    approved_by: Option<&str>,
) -> Result<AccountView, AppError> {
    let hash = password::hash(pw).await?;
    let now = ctx.now();
    let id = new_id("acc");
    let approved = status == AccountStatus::Active && role == Role::Advertiser;
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let model = account::ActiveModel {
        id: Set(id.clone()),
        email: Set(email),
        password_hash: Set(hash),
        role: Set(role),
        status: Set(status),
        company_name: Set(company),
        created_at: Set(now),
        updated_at: Set(now),
        approved_at: Set(approved.then_some(now)),
        approved_by: Set(approved.then(|| approved_by.unwrap_or_default().to_owned())),
        session_generation: Set(0),
        organisation_id: Set(None),
        team_role: Set(TeamRole::Owner),
        // An operator vouches for the address it types; a registration proves it by mail.
        email_verified_at: Set(approved_by.map(|_| now)),
        notices_seen_at: Set(None),
        budget_alert_percent: Set(crate::domain::notices::DEFAULT_BUDGET_ALERT_PERCENT),
    }
    .insert(&txn)
    .await
    .map_err(|e| db::conflict_on_unique(e, "an account with this e-mail already exists"))?;
    if model.email_verified_at.is_none() {
        email::send_verification(ctx, &txn, &model.id, &model.email).await?;
    }
    audit::record(
        &txn,
        now,
        None,
        "account.create",
        ("account", &id),
        serde_json::json!({"role": role.as_str()}),
    )
    .await?;
    txn.commit().await?;
    Ok(view(&model))
}

/// The account whose e-mail and password match, or `401` (same answer for both failures).
/// `client` is the caller's rate-limit bucket (`rate_limit::client_bucket`).
///
/// Account protection without a lockout anyone can trigger (docs/decisions.md, "Sign-in
/// protection"): one address gets a budget of failed attempts whatever e-mails it tries (no
/// free Argon2 work; successes are not counted, so an office behind one address signs in), each address and account pair a smaller one (429 with `Retry-After`);
/// failures from many addresses against one account slow every attempt on it down (a pause
/// before the check, recorded in the audit log) but never refuse its correct password.
pub async fn authenticate(
    ctx: &Ctx,
    email: &str,
    password_plain: &str,
    client: &str,
) -> Result<account::Model, AppError> {
    use crate::domain::Policy;
    let email = email.trim().to_ascii_lowercase();
    // An address is refused once its failures spent their budget; successes cost nothing.
    ctx.limits.sign_in_address_allowed(client)?;
    ctx.limits
        .check(Policy::SignIn, &format!("{client}|{email}"))?;
    let refused = || {
        AppError::unauthorized("e-mail or password is incorrect").with_code("invalid_credentials")
    };
    let slowed = ctx.limits.is_slowed(&email);
    if slowed {
        tokio::time::sleep(crate::domain::rate_limit::SLOWDOWN).await;
    }
    let found = account::Entity::find()
        .filter(account::Column::Email.eq(email.clone()))
        .one(&ctx.db)
        .await?;
    let ok = password::verify(
        password_plain.to_owned(),
        found.as_ref().map(|a| a.password_hash.clone()),
    )
    .await?;
    if !ok {
        ctx.limits.sign_in_address_failed(client);
    }
    // Counted while not slowed: the slowdown starts (and is audited) once per spent budget.
    if !ok && !slowed && ctx.limits.sign_in_failed(&email) {
        if let Some(a) = &found {
            tracing::warn!(account = %a.id, "sign-ins slowed down after repeated failures");
            crate::domain::audit::record(
                &ctx.db,
                ctx.now(),
                None,
                "account.sign_in_slowed",
                ("account", &a.id),
                serde_json::json!({"minutes": crate::domain::rate_limit::ACCOUNT_LOCK.as_secs() / 60}),
            )
            .await?;
        }
    }
    match found {
        Some(a) if ok => {
            if a.status == AccountStatus::Disabled {
                Err(AppError::forbidden("this account is disabled"))
            } else {
                Ok(a)
            }
        }
        _ => Err(refused()),
    }
}

/// Loads an account by id.
pub async fn get(ctx: &Ctx, account_id: &str) -> Result<account::Model, AppError> {
    account::Entity::find_by_id(account_id.to_owned())
        .one(&ctx.db)
        .await?
        .ok_or_else(|| AppError::not_found("account"))
}

/// Administrator approval of a PENDING advertiser.
pub async fn approve_advertiser(
    ctx: &Ctx,
    actor: &Principal,
    account_id: &str,
) -> Result<AccountView, AppError> {
    actor.require_admin()?;
    let now = ctx.now();
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let acc = account::Entity::find_by_id(account_id.to_owned())
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("account"))?;
    if acc.role != Role::Advertiser {
        return Err(AppError::conflict("only advertiser accounts are approved"));
    }
    if acc.status != AccountStatus::Pending {
        return Err(AppError::conflict(format!(
            "the account is {}, not PENDING",
            acc.status
        )));
    }
    let mut am: account::ActiveModel = acc.into();
    am.status = Set(AccountStatus::Active);
    am.approved_at = Set(Some(now));
    am.approved_by = Set(Some(actor.account_id.clone()));
    am.updated_at = Set(now);
    let updated = am.update(&txn).await?;
    let detail = serde_json::json!({});
    actor
        .audit(
            &txn,
            now,
            "advertiser.approve",
            ("account", account_id),
            detail,
        )
        .await?;
    let told = Notice::new(
        NoticeTopic::AdvertiserApproved,
        "Your advertiser account is approved",
        format!(
            "Hello {},\n\nyour advertiser account is approved. You can now fund your wallet \
             and launch campaigns.",
            updated.company_name
        ),
    )
    .about("account", account_id, "/advertiser");
    crate::domain::notices::tell(ctx, &txn, now, account_id, told).await?;
    txn.commit().await?;
    Ok(view(&updated))
}

/// Advertisers awaiting approval, oldest first (the administrator's queue).
pub async fn pending_advertisers(
    ctx: &Ctx,
    actor: &Principal,
    page: &Page,
) -> Result<AccountList, AppError> {
    actor.require_admin()?;
    let q = account::Entity::find()
        .filter(account::Column::Role.eq(Role::Advertiser.as_str()))
        .filter(account::Column::Status.eq(AccountStatus::Pending.as_str()));
    let rows = page
        .select_oldest_first(q, account::Column::Id)
        .all(&ctx.db)
        .await?;
    let (rows, next_cursor) = page.finish(rows, |a| &a.id);
    Ok(AccountList {
        count: rows.len(),
        items: rows.iter().map(view).collect(),
        next_cursor,
    })
}

/// The principal for an organisation's own row (the person who registered it, acting for it);
/// for any person's row use [`principal_of`].
pub fn principal(a: &account::Model) -> Principal {
    Principal {
        account_id: a.id.clone(),
        email: a.email.clone(),
        role: a.role,
        status: a.status,
        person_id: a.id.clone(),
        team_role: a.team_role,
    }
}

/// The principal for a person's row, read fresh on every request: a member acts for its
/// organisation, whose role and status count (a disabled organisation disables its members).
pub async fn principal_of(ctx: &Ctx, person: &account::Model) -> Result<Principal, AppError> {
    let Some(org_id) = &person.organisation_id else {
        return Ok(principal(person));
    };
    let org = get(ctx, org_id).await?;
    let status = if person.status == AccountStatus::Disabled {
        AccountStatus::Disabled
    } else {
        org.status
    };
    Ok(Principal {
        account_id: org.id,
        email: person.email.clone(),
        role: org.role,
        status,
        person_id: person.id.clone(),
        team_role: person.team_role,
    })
}

/// The signed-in person's view of their account (`/auth/v1/me`): the organisation, with the
/// person's own e-mail, its verification and team role.
pub async fn me(ctx: &Ctx, p: &Principal) -> Result<AccountView, AppError> {
    let person = get(ctx, &p.person_id).await?;
    let org = if p.is_member() {
        get(ctx, &p.account_id).await?
    } else {
        person.clone()
    };
    Ok(AccountView {
        email: person.email.clone(),
        team_role: person.team_role,
        email_verified: person.email_verified_at.is_some(),
        status: p.status,
        ..view(&org)
    })
}

/// The view of an account.
pub fn view(a: &account::Model) -> AccountView {
    AccountView {
        account_id: a.id.clone(),
        email: a.email.clone(),
        role: a.role,
        status: a.status,
        company_name: a.company_name.clone(),
        created_at: a.created_at,
        team_role: a.team_role,
        email_verified: a.email_verified_at.is_some(),
    }
}

/// Records that the signed-in owner did `action` to `subject` and tells them by `letter`, both
/// inside `txn` with the change itself: a security change nobody is told of could be an
/// attacker's (a new key, a factor turned off).
pub(crate) async fn audit_and_tell<C: sea_orm::ConnectionTrait>(
    ctx: &Ctx,
    txn: &C,
    actor: &Principal,
    action: &str,
    subject: (&str, &str),
    detail: serde_json::Value,
    letter: mail::outbox::Letter,
) -> Result<(), AppError> {
    let now = ctx.now();
    actor.audit(txn, now, action, subject, detail).await?;
    mail::outbox::enqueue(ctx, txn, now, Some(&actor.person_id), &actor.email, letter).await?;
    Ok(())
}
