//! Invitations to a team: an owner or admin invites an address with a role; the letter's link
//! works once, for [`INVITATION_LIFETIME`], unless revoked or replaced by a newer invitation of
//! the same address. Only the SHA-256 of the link's token is kept. Accepting it creates the
//! person's own sign-in (their password) as a member of the organisation.

use chrono::Duration;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Set,
};

use super::{
    MAX_MEMBERS, lock_organisation, people, require_manager, require_organisation,
    require_owner_for,
};
use crate::domain::{Ctx, Principal, audit, crypto, db, ids::new_id, mail, password};
use crate::error::{AppError, FieldErrors};
use crate::model::team::{InvitationAccept, InvitationCreate, InvitationOffer, InvitationView};
use crate::model::{AccountStatus, validate};
use entity::{account, invitation};

/// How long an invitation link works.
pub const INVITATION_LIFETIME: Duration = Duration::days(7);
/// The prefix of invitation tokens (recognisable in a leak).
pub const TOKEN_PREFIX: &str = "mkt_inv";

fn view(r: &invitation::Model) -> InvitationView {
    InvitationView {
        invitation_id: r.id.clone(),
        email: r.email.clone(),
        role: r.team_role,
        invited_by: r.invited_by.clone(),
        created_at: r.created_at,
        expires_at: r.expires_at,
    }
}

/// The organisation's open invitations, newest first.
pub(super) async fn open(ctx: &Ctx, org_id: &str) -> Result<Vec<InvitationView>, AppError> {
    let rows = invitation::Entity::find()
        .filter(invitation::Column::AccountId.eq(org_id.to_owned()))
        .filter(invitation::Column::AcceptedAt.is_null())
        .filter(invitation::Column::RevokedAt.is_null())
        .filter(invitation::Column::ExpiresAt.gt(ctx.now()))
        .order_by_desc(invitation::Column::CreatedAt)
        .limit(MAX_MEMBERS as u64)
        .all(&ctx.db)
        .await?;
    Ok(rows.iter().map(view).collect())
}

/// Invites `req.email` with `req.role` (owners and admins; only an owner invites an owner).
/// Adding a member grants access, so a person with a second factor confirms with a code. A
/// newer invitation of the same address replaces the older one.
pub async fn invite(
    ctx: &Ctx,
    actor: &Principal,
    req: &InvitationCreate,
    second_factor: Option<&str>,
) -> Result<InvitationView, AppError> {
    require_organisation(actor)?;
    require_manager(actor)?;
    require_owner_for(actor, req.role)?;
    let mut errs = FieldErrors::new();
    let email = errs.check("email", validate::email(&req.email));
    errs.finish()?;
    let Some(email) = email else {
        return Err(AppError::invalid("invalid e-mail"));
    };
    // Invitations are mail the service sends for the inviter: a throwaway registration whose
    // address nobody confirmed may not send any.
    let inviter = crate::domain::accounts::get(ctx, &actor.person_id).await?;
    if inviter.email_verified_at.is_none() {
        return Err(AppError::forbidden(
            "confirm your e-mail address first (the link we mailed you, or send it again on your account page)",
        )
        .with_code("email_unverified"));
    }
    crate::domain::accounts::second_factor::step_up(ctx, actor, second_factor).await?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    lock_organisation(&txn, &actor.account_id).await?;
    crate::domain::accounts::email::taken(&txn, &email).await?;
    invitation::Entity::update_many()
        .col_expr(invitation::Column::RevokedAt, Expr::value(Some(now)))
        .filter(invitation::Column::AccountId.eq(actor.account_id.clone()))
        .filter(invitation::Column::Email.eq(email.clone()))
        .filter(invitation::Column::AcceptedAt.is_null())
        .filter(invitation::Column::RevokedAt.is_null())
        .exec(&txn)
        .await?;
    let pending = invitation::Entity::find()
        .filter(invitation::Column::AccountId.eq(actor.account_id.clone()))
        .filter(invitation::Column::AcceptedAt.is_null())
        .filter(invitation::Column::RevokedAt.is_null())
        .filter(invitation::Column::ExpiresAt.gt(now))
        .all(&txn)
        .await?
        .len();
    if people(&txn, &actor.account_id).await?.len() + pending >= MAX_MEMBERS {
        return Err(AppError::conflict(format!(
            "an organisation may hold {MAX_MEMBERS} people and open invitations"
        ))
        .with_code("team_full"));
    }
    let token = crypto::random_token(TOKEN_PREFIX);
    let row = invitation::ActiveModel {
        id: Set(new_id("inv")),
        account_id: Set(actor.account_id.clone()),
        email: Set(email.clone()),
        team_role: Set(req.role),
        token_hash: Set(crypto::sha256_hex(&token)),
        invited_by: Set(actor.email.clone()),
        created_at: Set(now),
        expires_at: Set(now + INVITATION_LIFETIME),
        accepted_at: Set(None),
        revoked_at: Set(None),
    }
    .insert(&txn)
    .await?;
    let org = crate::domain::accounts::get(ctx, &actor.account_id).await?;
    let letter = mail::letters::team_invitation(
        &ctx.config.base_url,
        &token,
        &org.company_name,
        &actor.email,
        req.role,
        INVITATION_LIFETIME.num_days(),
    );
    mail::outbox::enqueue(ctx, &txn, now, None, &email, letter).await?;
    let detail = serde_json::json!({"email": email, "role": req.role.as_str()});
    actor
        .audit(&txn, now, "member.invite", ("invitation", &row.id), detail)
        .await?;
    txn.commit().await?;
    Ok(view(&row))
}

/// Revokes an open invitation of the caller's organisation (owners and admins).
pub async fn revoke(ctx: &Ctx, actor: &Principal, invitation_id: &str) -> Result<(), AppError> {
    require_organisation(actor)?;
    require_manager(actor)?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let row = invitation::Entity::find_by_id(invitation_id.to_owned())
        .one(&txn)
        .await?
        .filter(|r| r.account_id == actor.account_id)
        .ok_or_else(|| AppError::not_found("invitation"))?;
    require_owner_for(actor, row.team_role)?;
    if row.accepted_at.is_some() || row.revoked_at.is_some() {
        return Ok(());
    }
    let mut am: invitation::ActiveModel = row.into();
    am.revoked_at = Set(Some(now));
    let row = am.update(&txn).await?;
    let detail = serde_json::json!({"email": row.email});
    actor
        .audit(
            &txn,
            now,
            "member.invitation_revoke",
            ("invitation", &row.id),
            detail,
        )
        .await?;
    txn.commit().await?;
    Ok(())
}

fn invalid_link() -> AppError {
    AppError::invalid("this invitation is not valid any more; ask for a new one")
        .with_code("invitation_invalid")
}

/// The open invitation a token names, with its organisation, or 400 `invitation_invalid`.
async fn find(ctx: &Ctx, token: &str) -> Result<(invitation::Model, account::Model), AppError> {
    if !token.starts_with(&format!("{TOKEN_PREFIX}_")) || token.len() > 200 {
        return Err(invalid_link());
    }
    let hash = crypto::sha256_hex(token);
    let row = invitation::Entity::find()
        .filter(invitation::Column::TokenHash.eq(hash.clone()))
        .one(&ctx.db)
        .await?
        .filter(|r| crypto::constant_time_eq(r.token_hash.as_bytes(), hash.as_bytes()))
        .filter(|r| r.accepted_at.is_none() && r.revoked_at.is_none() && r.expires_at > ctx.now())
        .ok_or_else(invalid_link)?;
    let org = crate::domain::accounts::get(ctx, &row.account_id)
        .await
        .ok()
        .filter(|o| o.status != AccountStatus::Disabled)
        .ok_or_else(invalid_link)?;
    Ok((row, org))
}

/// What a link offers (the page shows it before asking for a password).
pub async fn offer(ctx: &Ctx, token: &str) -> Result<InvitationOffer, AppError> {
    let (row, org) = find(ctx, token).await?;
    Ok(InvitationOffer {
        company_name: org.company_name,
        email: row.email,
        role: row.team_role,
        expires_at: row.expires_at,
    })
}

/// Accepts an invitation: creates the person's sign-in with `req.password` as a member of the
/// organisation, and uses the link up. Returns the new person's row (the page signs them in).
/// A password the rules refuse leaves the link usable.
pub async fn accept(ctx: &Ctx, req: &InvitationAccept) -> Result<account::Model, AppError> {
    let mut errs = FieldErrors::new();
    let pw = errs.check(
        "password",
        validate::password(&req.password).map(str::to_owned),
    );
    errs.finish()?;
    let Some(pw) = pw else {
        return Err(AppError::invalid("invalid password"));
    };
    let (row, org) = find(ctx, &req.token).await?;
    let hashed = password::hash(pw).await?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    // Used once: of two uses at once only one moves `accepted_at`.
    let claimed = invitation::Entity::update_many()
        .col_expr(invitation::Column::AcceptedAt, Expr::value(Some(now)))
        .filter(invitation::Column::Id.eq(row.id.clone()))
        .filter(invitation::Column::AcceptedAt.is_null())
        .filter(invitation::Column::RevokedAt.is_null())
        .filter(invitation::Column::ExpiresAt.gt(now))
        .exec(&txn)
        .await?;
    if claimed.rows_affected != 1 {
        return Err(invalid_link());
    }
    // The address registered on its own since the invitation (the claim rolls back with
    // this answer, so the invitation stays open for the owner to revoke).
    crate::domain::accounts::email::taken(&txn, &row.email).await?;
    let id = new_id("acc");
    let person = account::ActiveModel {
        id: Set(id.clone()),
        email: Set(row.email.clone()),
        password_hash: Set(hashed),
        role: Set(org.role),
        status: Set(AccountStatus::Active),
        company_name: Set(org.company_name.clone()),
        created_at: Set(now),
        updated_at: Set(now),
        approved_at: Set(None),
        approved_by: Set(None),
        session_generation: Set(0),
        organisation_id: Set(Some(org.id.clone())),
        team_role: Set(row.team_role),
        // The link came to this address.
        email_verified_at: Set(Some(now)),
        notices_seen_at: Set(None),
        budget_alert_percent: Set(crate::domain::notices::DEFAULT_BUDGET_ALERT_PERCENT),
    }
    .insert(&txn)
    .await
    .map_err(|e| {
        // A registration of the address at the same moment: the index decides; same answer.
        if db::is_unique_violation(&e) {
            AppError::conflict("an account already uses this e-mail").with_code("email_taken")
        } else {
            e.into()
        }
    })?;
    let detail = serde_json::json!({"email": person.email, "role": row.team_role.as_str(), "invitation": row.id});
    audit::record(
        &txn,
        now,
        Some(&id),
        "member.join",
        ("account", &org.id),
        detail,
    )
    .await?;
    txn.commit().await?;
    Ok(person)
}
