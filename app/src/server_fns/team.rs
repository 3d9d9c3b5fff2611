//! The `/account` page's team card (list, invite, change a role, remove, leave, revoke an
//! invitation) and the `/invitation` page (what a link offers; accepting it). The rules are
//! in `domain::accounts::teams`.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::model::TeamRole;
use crate::model::team::{InvitationOffer, MemberList};

/// What the team card shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TeamSummary {
    pub list: MemberList,
    /// The caller's own role (what the card offers follows it).
    pub role: TeamRole,
}

/// The caller's team, or `None` for an administrator (operators have no team).
#[server(prefix = "/fn", endpoint = "team_card")]
pub async fn team_card() -> Result<Option<TeamSummary>, AppError> {
    super::web::run(async move {
        let (ctx, p) = super::web::own_reader().await?;
        if p.role.is_admin() {
            return Ok(None);
        }
        let list = crate::domain::accounts::teams::list(&ctx, &p).await?;
        Ok(Some(TeamSummary {
            list,
            role: p.team_role,
        }))
    })
    .await
}

/// Invites an address with a role (and the inviter's second-factor code when they have one).
#[server(prefix = "/fn", endpoint = "invite_member")]
pub async fn invite_member(
    email: String,
    role: String,
    otp: Option<String>,
    csrf: String,
) -> Result<(), AppError> {
    super::web::run(async move {
        use crate::model::team::InvitationCreate;
        let (ctx, _, p) = super::web::writer(&csrf).await?;
        let role =
            TeamRole::parse(role.trim()).ok_or_else(|| AppError::field("role", "choose a role"))?;
        let req = InvitationCreate { email, role };
        crate::domain::accounts::teams::invitations::invite(&ctx, &p, &req, otp.as_deref()).await?;
        Ok(())
    })
    .await
}

/// Revokes an open invitation.
#[server(prefix = "/fn", endpoint = "revoke_invitation")]
pub async fn revoke_invitation(invitation_id: String, csrf: String) -> Result<(), AppError> {
    super::web::write(&csrf, |ctx, p| async move {
        crate::domain::accounts::teams::invitations::revoke(&ctx, &p, invitation_id.trim()).await
    })
    .await
}

/// Changes a member's role.
#[server(prefix = "/fn", endpoint = "update_member")]
pub async fn update_member(member_id: String, role: String, csrf: String) -> Result<(), AppError> {
    super::web::write(&csrf, |ctx, p| async move {
        use crate::model::team::MemberUpdate;
        let role =
            TeamRole::parse(role.trim()).ok_or_else(|| AppError::field("role", "choose a role"))?;
        crate::domain::accounts::teams::update(&ctx, &p, member_id.trim(), &MemberUpdate { role })
            .await?;
        Ok(())
    })
    .await
}

/// Removes a member (owners and admins).
#[server(prefix = "/fn", endpoint = "remove_member")]
pub async fn remove_member(member_id: String, csrf: String) -> Result<(), AppError> {
    super::web::write(&csrf, |ctx, p| async move {
        crate::domain::accounts::teams::remove(&ctx, &p, member_id.trim()).await
    })
    .await
}

/// Leaves the team (any member but the one who registered the organisation); signs out.
#[server(prefix = "/fn", endpoint = "leave_team")]
pub async fn leave_team(csrf: String) -> Result<(), AppError> {
    super::web::run(async move {
        let (ctx, session, p) = super::web::own_writer(&csrf).await?;
        crate::domain::accounts::teams::remove(&ctx, &p, &p.person_id).await?;
        super::web::sign_out(&session).await?;
        leptos_axum::redirect("/sign-in");
        Ok(())
    })
    .await
}

/// What an invitation link offers (the `/invitation` page).
#[server(prefix = "/fn", endpoint = "invitation_details")]
pub async fn invitation_details(token: String) -> Result<InvitationOffer, AppError> {
    super::web::run(async move {
        let ctx = super::web::ctx()?;
        crate::domain::accounts::teams::invitations::offer(&ctx, token.trim()).await
    })
    .await
}

/// Accepts an invitation with the new member's password, signs them in and opens their home.
#[server(prefix = "/fn", endpoint = "accept_invitation")]
pub async fn accept_invitation(
    token: String,
    password: String,
    csrf: String,
) -> Result<(), AppError> {
    super::web::run(async move {
        use super::web;
        use crate::domain::Policy;
        use crate::model::team::InvitationAccept;
        let (ctx, session) = web::visitor_form(&csrf, Policy::Register).await?;
        let req = InvitationAccept {
            token: token.trim().to_owned(),
            password,
        };
        let person = crate::domain::accounts::teams::invitations::accept(&ctx, &req).await?;
        web::sign_in(&ctx, &session, &person.id, person.session_generation).await?;
        leptos_axum::redirect(person.role.home_path());
        Ok(())
    })
    .await
}
