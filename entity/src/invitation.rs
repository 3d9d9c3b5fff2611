//! An invitation to join an organisation: only the SHA-256 of the link's token is kept; it
//! works once, until `expires_at`, unless revoked.
use crate::values::TeamRole;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "invitations")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    /// The organisation (its registering row in `accounts`).
    pub account_id: String,
    /// Lower-cased.
    pub email: String,
    pub team_role: TeamRole,
    /// Lower-case hex SHA-256 of the token in the link.
    #[sea_orm(unique)]
    pub token_hash: String,
    /// The person who invited.
    pub invited_by: String,
    pub created_at: DateTimeUtc,
    pub expires_at: DateTimeUtc,
    pub accepted_at: Option<DateTimeUtc>,
    pub revoked_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
