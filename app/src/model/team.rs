//! Teams (issue 54, part 3): what each team role may change, and the wire types of
//! `/auth/v1/members` and `/auth/v1/invitations`.
//!
//! Every member reads everything of the organisation; writes go by area. The table is here,
//! below the domain and the pages, so the API, the server functions and the dashboard (which
//! hides what a role may not do) read the same one.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::api_key::KeyArea;
pub use entity::values::TeamRole;

/// Whether `role` may change things in `area` (reading is open to every role).
pub fn role_writes(role: TeamRole, area: KeyArea) -> bool {
    match role {
        TeamRole::Owner | TeamRole::Admin => true,
        TeamRole::Finance => matches!(
            area,
            KeyArea::Billing | KeyArea::Earnings | KeyArea::Support
        ),
        TeamRole::Developer => matches!(
            area,
            KeyArea::Placements
                | KeyArea::Callbacks
                | KeyArea::Tracking
                | KeyArea::Conversions
                | KeyArea::Support
        ),
        TeamRole::Viewer => false,
    }
}

/// Whether `role` may issue and revoke its own API keys.
pub fn role_keeps_keys(role: TeamRole) -> bool {
    matches!(
        role,
        TeamRole::Owner | TeamRole::Admin | TeamRole::Developer
    )
}

/// A person of the organisation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MemberView {
    /// The person's id (`acc_…`); the person who registered the organisation has the
    /// organisation's own id.
    pub member_id: String,
    pub email: String,
    pub role: TeamRole,
    /// Whether this is the person who registered the organisation (who cannot leave or be
    /// removed: the organisation is theirs).
    pub registered: bool,
    /// Whether this is the caller.
    pub you: bool,
    pub joined_at: DateTime<Utc>,
}

/// An invitation not yet accepted (never its link).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct InvitationView {
    pub invitation_id: String,
    pub email: String,
    pub role: TeamRole,
    /// The member who invited.
    pub invited_by: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// `GET /auth/v1/members`: the team and its open invitations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MemberList {
    pub members: Vec<MemberView>,
    /// Open invitations (neither accepted, revoked nor expired), newest first.
    pub invitations: Vec<InvitationView>,
}

/// `POST /auth/v1/members/invitations`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct InvitationCreate {
    /// Where the invitation goes; no account may use the address yet.
    pub email: String,
    /// OWNER (owners only), ADMIN, FINANCE, DEVELOPER or VIEWER.
    pub role: TeamRole,
}

/// `PATCH /auth/v1/members/{memberId}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MemberUpdate {
    pub role: TeamRole,
}

/// `POST /auth/v1/invitations/accept`: the link's token and the new member's password.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct InvitationAccept {
    /// The `token` of the invitation link (`mkt_inv_…`).
    pub token: String,
    /// The new member's password (at least 10 characters).
    pub password: String,
}

/// What an invitation link offers, shown before it is accepted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct InvitationOffer {
    pub company_name: String,
    pub email: String,
    pub role: TeamRole,
    pub expires_at: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_owners_and_admins_write_everywhere_and_viewers_nowhere() {
        for area in KeyArea::ALL {
            assert!(role_writes(TeamRole::Owner, *area));
            assert!(role_writes(TeamRole::Admin, *area));
            assert!(!role_writes(TeamRole::Viewer, *area));
        }
        assert!(role_writes(TeamRole::Finance, KeyArea::Billing));
        assert!(role_writes(TeamRole::Finance, KeyArea::Earnings));
        assert!(!role_writes(TeamRole::Finance, KeyArea::Placements));
        assert!(!role_writes(TeamRole::Finance, KeyArea::Campaigns));
        assert!(role_writes(TeamRole::Developer, KeyArea::Callbacks));
        assert!(role_writes(TeamRole::Developer, KeyArea::Tracking));
        assert!(!role_writes(TeamRole::Developer, KeyArea::Billing));
        assert!(!role_writes(TeamRole::Developer, KeyArea::Earnings));
        assert!(!role_keeps_keys(TeamRole::Finance));
        assert!(!role_keeps_keys(TeamRole::Viewer));
        assert!(role_keeps_keys(TeamRole::Developer));
    }
}
