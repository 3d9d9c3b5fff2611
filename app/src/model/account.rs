//! Accounts, roles and the sign-in wire types of CONTRACT.md section 2.

use chrono::{DateTime, Utc};
pub use entity::values::{AccountStatus, EmailLinkPurpose, Role, TeamRole};
use serde::{Deserialize, Serialize};

wire_enum!(
    /// The kind of an issued token (always a bearer token).
    TokenType { Bearer = "Bearer" }
);

/// An account as shown to its owner and to administrators.
/// A secret to copy now; it is not shown again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OneTimeSecret {
    pub label: String,
    pub value: String,
}

/// What every page needs to know about the visitor.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Visitor {
    pub user: Option<AccountView>,
    /// Synchronizer token that every form posts back.
    pub csrf: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccountView {
    pub account_id: String,
    pub email: String,
    pub role: Role,
    pub status: AccountStatus,
    pub company_name: String,
    pub created_at: DateTime<Utc>,
    /// What the signed-in person may do in the organisation (OWNER for the person who
    /// registered it, and in administrators' lists).
    #[serde(default = "owner")]
    pub team_role: TeamRole,
    /// Whether the signed-in person's address was shown to work (a mailed link was used).
    #[serde(default = "verified")]
    pub email_verified: bool,
}

fn owner() -> TeamRole {
    TeamRole::Owner
}

fn verified() -> bool {
    true
}

/// `POST /auth/v1/email`: change the sign-in e-mail (a link goes to the new address).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EmailChangeRequest {
    pub new_email: String,
    /// The person's current password.
    pub current_password: String,
}

/// `POST /auth/v1/email/confirm`: the token of a mailed e-mail link.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EmailLinkConfirm {
    /// The `token` of the link (`mkt_email_…`).
    pub token: String,
}

/// What a used e-mail link confirmed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct EmailLinkConfirmed {
    /// VERIFY (the address works) or CHANGE (the sign-in e-mail is now the link's address).
    pub purpose: EmailLinkPurpose,
}

/// A page of accounts: `{items, count, nextCursor}` (`count` is the page's length).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccountList {
    pub items: Vec<AccountView>,
    pub count: usize,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// `POST /auth/v1/accounts`: self-service registration of publishers and advertisers.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RegisterRequest {
    pub email: String,
    pub password: String,
    /// PUBLISHER or ADVERTISER.
    pub role: Role,
    pub company_name: String,
}

/// `201` answer of registration.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RegisterResponse {
    pub account_id: String,
    pub role: Role,
    pub status: AccountStatus,
}

/// `POST /auth/v1/tokens`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct TokenRequest {
    pub email: String,
    pub password: String,
    /// The second factor: the six-digit code of the authenticator app, or a recovery code.
    /// Required when the account has turned a second factor on (401
    /// `second_factor_required` without it, `invalid_second_factor` when wrong or used).
    #[serde(default)]
    pub otp: Option<String>,
}

/// The account summary inside a token response.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TokenAccount {
    pub account_id: String,
    pub email: String,
    pub role: Role,
    pub status: AccountStatus,
}

/// `201` answer of token issuance; the token is shown only here.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct TokenResponse {
    pub token: String,
    /// Always `Bearer`.
    #[cfg_attr(feature = "ssr", schema(value_type = TokenType))]
    pub token_type: String,
    pub expires_at: DateTime<Utc>,
    pub account: TokenAccount,
}

/// `POST /auth/v1/password-resets`: ask for a link to choose a new password.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PasswordResetRequest {
    pub email: String,
}

/// `202` answer of a reset request: the same whether or not an account uses the address.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PasswordResetAccepted {
    pub message: String,
}

/// What every reset request is told.
pub const PASSWORD_RESET_SENT: &str = "If an account uses this address, a link to choose a new password is on its way. It works once, for 30 minutes.";

/// `POST /auth/v1/password-resets/confirm`: the token of the link and the new password.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct NewPasswordRequest {
    pub token: String,
    pub new_password: String,
}

/// `POST /auth/v1/password`: the current password and the new one.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PasswordChangeRequest {
    pub current_password: String,
    pub new_password: String,
}
