//! The organisation's team (`/auth/v1/members`, docs/accounts.md "Teams"): list, invite (a
//! second-factor code first when the inviter has one), revoke an invitation, change a role,
//! remove a member or leave; and accepting an invitation (`/auth/v1/invitations/accept`).

use app::domain::Policy;
use app::domain::accounts::{self, teams};
use app::domain::rate_limit::client_bucket;
use app::error::AppError;
use app::model::AccountView;
use app::model::team::{
    InvitationAccept, InvitationCreate, InvitationView, MemberList, MemberUpdate, MemberView,
};
use axum::Extension;
use axum::extract::State;
use axum::http::StatusCode;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::extract::{AppJson, AppPath, Authenticated, ClientIp, SecondFactor};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_members))
        .routes(routes!(invite_member))
        .routes(routes!(revoke_invitation))
        .routes(routes!(update_member, remove_member))
        .routes(routes!(accept_invitation))
}

/// The organisation's people (with their team roles; the caller marked `you`) and its open
/// invitations. Every member may read it.
#[utoipa::path(get, path = "/members", tag = "auth", security(("dashboardBearer" = [])),
    responses((status = 200, body = MemberList), (status = 401, body = crate::api::ErrorBody), (status = 403, body = crate::api::ErrorBody), (status = 409, body = crate::api::ErrorBody)))]
async fn list_members(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
) -> Result<AppJson<MemberList>, AppError> {
    Ok(AppJson(teams::list(&state.ctx, &p).await?))
}

/// Invite a person by e-mail with a team role (owners and admins; only an owner invites an
/// owner: 403 `insufficient_role`). The letter's link works once, for 7 days; a newer
/// invitation of the same address replaces the older one. 409 `email_taken` when an account
/// already uses the address, `team_full` past 50 people and open invitations, `no_team` for
/// administrators.
#[utoipa::path(post, path = "/members/invitations", tag = "auth", security(("dashboardBearer" = [])), request_body = InvitationCreate, params(("X-Second-Factor" = Option<String>, Header, description = "A current code of the inviter's second factor; required when they have one (403 `step_up_required` without it)")),
    responses((status = 201, body = InvitationView), (status = 400, body = crate::api::ErrorBody), (status = 401, body = crate::api::ErrorBody), (status = 403, body = crate::api::ErrorBody), (status = 409, body = crate::api::ErrorBody)))]
async fn invite_member(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
    SecondFactor(code): SecondFactor,
    AppJson(req): AppJson<InvitationCreate>,
) -> Result<(StatusCode, AppJson<InvitationView>), AppError> {
    let v = teams::invitations::invite(&state.ctx, &p, &req, code.as_deref()).await?;
    Ok((StatusCode::CREATED, AppJson(v)))
}

/// Revoke an open invitation: its link stops working. Revoking it again is a no-op.
#[utoipa::path(delete, path = "/members/invitations/{invitationId}", tag = "auth", security(("dashboardBearer" = [])),
    params(("invitationId" = String, Path, description = "The invitation's id (`inv_…`)")),
    responses((status = 204, description = "Revoked"), (status = 401, body = crate::api::ErrorBody), (status = 403, body = crate::api::ErrorBody), (status = 404, body = crate::api::ErrorBody), (status = 409, body = crate::api::ErrorBody)))]
async fn revoke_invitation(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<StatusCode, AppError> {
    teams::invitations::revoke(&state.ctx, &p, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Change a member's team role (owners and admins; only an owner changes an owner's role or
/// makes an owner). The organisation keeps at least one owner (409 `last_owner`). It holds
/// from the member's next request.
#[utoipa::path(patch, path = "/members/{memberId}", tag = "auth", security(("dashboardBearer" = [])), request_body = MemberUpdate,
    params(("memberId" = String, Path, description = "The person's id (`acc_…`)")),
    responses((status = 200, body = MemberView), (status = 400, body = crate::api::ErrorBody), (status = 401, body = crate::api::ErrorBody), (status = 403, body = crate::api::ErrorBody), (status = 404, body = crate::api::ErrorBody), (status = 409, body = crate::api::ErrorBody)))]
async fn update_member(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
    AppJson(req): AppJson<MemberUpdate>,
) -> Result<AppJson<MemberView>, AppError> {
    Ok(AppJson(teams::update(&state.ctx, &p, &id, &req).await?))
}

/// Remove a member (owners and admins), or leave (your own id, any role). Their sign-ins,
/// tokens, API keys and second factor stop at once, in every process. The person who
/// registered the organisation cannot leave or be removed (409 `registered_member`), nor
/// the last owner (409 `last_owner`).
#[utoipa::path(delete, path = "/members/{memberId}", tag = "auth", security(("dashboardBearer" = [])),
    params(("memberId" = String, Path, description = "The person's id (`acc_…`)")),
    responses((status = 204, description = "Removed"), (status = 401, body = crate::api::ErrorBody), (status = 403, body = crate::api::ErrorBody), (status = 404, body = crate::api::ErrorBody), (status = 409, body = crate::api::ErrorBody)))]
async fn remove_member(
    State(state): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(id): AppPath<String>,
) -> Result<StatusCode, AppError> {
    teams::remove(&state.ctx, &p, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Accept an invitation with the token of its link, choosing the new member's password
/// (400 `invitation_invalid` when the link is unknown, used, revoked or expired; a refused
/// password leaves it usable; 409 `email_taken` when the address has registered an account
/// of its own meanwhile, and the invitation stays open). Then sign in at `/auth/v1/tokens`
/// like anyone else.
#[utoipa::path(post, path = "/invitations/accept", tag = "auth", request_body = InvitationAccept,
    responses((status = 201, body = AccountView), (status = 400, body = crate::api::ErrorBody), (status = 409, body = crate::api::ErrorBody), (status = 429, body = crate::api::ErrorBody)))]
async fn accept_invitation(
    State(state): State<AppState>,
    Extension(ClientIp(ip)): Extension<ClientIp>,
    AppJson(req): AppJson<InvitationAccept>,
) -> Result<(StatusCode, AppJson<AccountView>), AppError> {
    state
        .ctx
        .limits
        .check(Policy::Register, &client_bucket(ip))?;
    let person = teams::invitations::accept(&state.ctx, &req).await?;
    let p = accounts::principal_of(&state.ctx, &person).await?;
    Ok((
        StatusCode::CREATED,
        AppJson(accounts::me(&state.ctx, &p).await?),
    ))
}
