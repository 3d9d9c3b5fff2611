//! Teams (issue 54, part 3): an organisation's members and their roles. Each person signs in
//! with a row of `accounts` of their own (so passwords, sessions, the second factor and API
//! keys are theirs); a member's row names the organisation (`organisation_id`). What a role
//! may change is [`role_writes`]; every route and server function asks it through
//! [`require_write`] (API: by the route's area, `server::route_facts`; dashboard: by the server
//! function, `server_fns::roles`). Invitations are in [`invitations`].

pub mod invitations;

use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, ExprTrait, QueryFilter, QueryOrder, Set,
};

use crate::domain::{Ctx, Principal, db, mail};
use crate::error::AppError;
use crate::model::api_key::KeyArea;
use crate::model::team::{MemberList, MemberUpdate, MemberView, role_keeps_keys, role_writes};
use crate::model::{Role, TeamRole};
use entity::account;

/// People an organisation may hold, open invitations included.
pub const MAX_MEMBERS: usize = 50;

/// Refuses a person whose team role may not change things in `area` (`403
/// insufficient_role`). Reads are open to every role; routes outside the areas check in
/// their own rule.
pub fn require_write(p: &Principal, area: KeyArea) -> Result<(), AppError> {
    if role_writes(p.team_role, area) {
        Ok(())
    } else {
        Err(refusal(p, &format!("change {}", area.as_str())))
    }
}

/// Refuses a person who may not manage the team (owners and admins may).
pub fn require_manager(p: &Principal) -> Result<(), AppError> {
    if p.team_role.manages_team() {
        Ok(())
    } else {
        Err(refusal(p, "manage the team"))
    }
}

/// Refuses a person who may not issue or revoke API keys.
pub fn require_key_keeper(p: &Principal) -> Result<(), AppError> {
    if role_keeps_keys(p.team_role) {
        Ok(())
    } else {
        Err(refusal(p, "issue or revoke API keys"))
    }
}

/// The `403 insufficient_role` answer.
pub fn refusal(p: &Principal, what: &str) -> AppError {
    AppError::forbidden(format!(
        "your team role ({}) may not {what}; ask an owner or admin of your organisation",
        p.team_role.as_str()
    ))
    .with_code("insufficient_role")
}

/// Teams are for publishers and advertisers: administrators are made by operators.
fn require_organisation(p: &Principal) -> Result<(), AppError> {
    if p.role == Role::Publisher || p.role == Role::Advertiser {
        Ok(())
    } else {
        Err(AppError::conflict(
            "administrators have no team: operators create each administrator (`server user create`)",
        )
        .with_code("no_team"))
    }
}

/// The organisation's people: the registering row, then members by when they joined.
async fn people<C: sea_orm::ConnectionTrait>(
    db: &C,
    org_id: &str,
) -> Result<Vec<account::Model>, AppError> {
    let mut rows = account::Entity::find()
        .filter(
            account::Column::OrganisationId
                .eq(org_id.to_owned())
                .or(account::Column::Id.eq(org_id.to_owned())),
        )
        .order_by_asc(account::Column::CreatedAt)
        .order_by_asc(account::Column::Id)
        .all(db)
        .await?;
    rows.sort_by_key(|r| r.organisation_id.is_some());
    Ok(rows)
}

fn member_view(p: &Principal, r: &account::Model) -> MemberView {
    MemberView {
        member_id: r.id.clone(),
        email: r.email.clone(),
        role: r.team_role,
        registered: r.organisation_id.is_none(),
        you: r.id == p.person_id,
        joined_at: r.created_at,
    }
}

/// The team and its open invitations; every member may read it.
pub async fn list(ctx: &Ctx, actor: &Principal) -> Result<MemberList, AppError> {
    require_organisation(actor)?;
    let rows = people(&ctx.db, &actor.account_id).await?;
    Ok(MemberList {
        members: rows.iter().map(|r| member_view(actor, r)).collect(),
        invitations: invitations::open(ctx, &actor.account_id).await?,
    })
}

/// One member of the caller's organisation, or 404 (another organisation's people do not
/// exist for the caller).
async fn member<C: sea_orm::ConnectionTrait>(
    db: &C,
    actor: &Principal,
    member_id: &str,
) -> Result<account::Model, AppError> {
    account::Entity::find_by_id(member_id.to_owned())
        .one(db)
        .await?
        .filter(|r| {
            r.id == actor.account_id || r.organisation_id.as_deref() == Some(&actor.account_id)
        })
        .ok_or_else(|| AppError::not_found("member"))
}

/// Refuses a change that would leave the organisation without an owner.
fn keep_an_owner(rows: &[account::Model], changed: &str) -> Result<(), AppError> {
    let owners = rows
        .iter()
        .filter(|r| r.id != changed && r.team_role == TeamRole::Owner)
        .count();
    if owners == 0 {
        return Err(AppError::conflict(
            "the organisation's last owner cannot leave, be removed or give up the role; make another member owner first",
        )
        .with_code("last_owner"));
    }
    Ok(())
}

/// Only an owner makes, changes or removes an owner.
fn require_owner_for(actor: &Principal, role: TeamRole) -> Result<(), AppError> {
    if role == TeamRole::Owner && actor.team_role != TeamRole::Owner {
        return Err(refusal(actor, "make, change or remove an owner"));
    }
    Ok(())
}

/// Changes a member's role (owners and admins; only an owner touches an owner's role or
/// makes one; the last owner keeps the role). Takes effect on the member's next request.
pub async fn update(
    ctx: &Ctx,
    actor: &Principal,
    member_id: &str,
    req: &MemberUpdate,
) -> Result<MemberView, AppError> {
    require_organisation(actor)?;
    require_manager(actor)?;
    require_owner_for(actor, req.role)?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    lock_organisation(&txn, &actor.account_id).await?;
    let target = member(&txn, actor, member_id).await?;
    require_owner_for(actor, target.team_role)?;
    if target.team_role == TeamRole::Owner && req.role != TeamRole::Owner {
        keep_an_owner(&people(&txn, &actor.account_id).await?, &target.id)?;
    }
    let before = target.team_role;
    let mut am: account::ActiveModel = target.into();
    am.team_role = Set(req.role);
    am.updated_at = Set(now);
    let updated = am.update(&txn).await?;
    let detail = serde_json::json!({"email": updated.email, "from": before.as_str(), "to": req.role.as_str()});
    actor
        .audit(&txn, now, "member.role", ("account", &updated.id), detail)
        .await?;
    if before != req.role {
        let letter = mail::letters::team_changed(&ctx.config.base_url, Some(req.role));
        mail::outbox::enqueue(ctx, &txn, now, Some(&updated.id), &updated.email, letter).await?;
    }
    txn.commit().await?;
    Ok(member_view(actor, &updated))
}

/// Removes a member (owners and admins), or the caller leaves (any member). The person who
/// registered the organisation stays (the organisation is theirs), and so does the last
/// owner. The person's sign-ins, keys and second factor go with them, at once everywhere.
pub async fn remove(ctx: &Ctx, actor: &Principal, member_id: &str) -> Result<(), AppError> {
    require_organisation(actor)?;
    let leaving = member_id == actor.person_id;
    if !leaving {
        require_manager(actor)?;
    }
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    lock_organisation(&txn, &actor.account_id).await?;
    let target = member(&txn, actor, member_id).await?;
    if !leaving {
        require_owner_for(actor, target.team_role)?;
    }
    if target.organisation_id.is_none() {
        return Err(AppError::conflict(
            "the person who registered the organisation cannot leave or be removed",
        )
        .with_code("registered_member"));
    }
    if target.team_role == TeamRole::Owner {
        keep_an_owner(&people(&txn, &actor.account_id).await?, &target.id)?;
    }
    super::security::forget_person(&txn, &target.id).await?;
    account::Entity::delete_by_id(target.id.clone())
        .exec(&txn)
        .await?;
    let action = if leaving {
        "member.leave"
    } else {
        "member.remove"
    };
    let detail = serde_json::json!({"email": target.email, "role": target.team_role.as_str()});
    actor
        .audit(&txn, now, action, ("account", &target.id), detail)
        .await?;
    let letter = mail::letters::team_changed(&ctx.config.base_url, None);
    mail::outbox::enqueue(ctx, &txn, now, None, &target.email, letter).await?;
    txn.commit().await?;
    Ok(())
}

/// Locks the organisation's row, so two changes to its team take turns (the owner count and
/// the member limit hold on PostgreSQL; SQLite's immediate transactions already do).
async fn lock_organisation(
    txn: &sea_orm::DatabaseTransaction,
    org_id: &str,
) -> Result<(), AppError> {
    use sea_orm::QuerySelect;
    account::Entity::find_by_id(org_id.to_owned())
        .lock_exclusive()
        .one(txn)
        .await?
        .ok_or_else(|| AppError::not_found("account"))?;
    Ok(())
}
