//! A mailed link that verifies an address or confirms a change of the sign-in e-mail: only
//! the SHA-256 of its token is kept; it works once, until `expires_at`.
use crate::values::EmailLinkPurpose;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "email_links")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    /// The person whose address it is.
    pub account_id: String,
    pub purpose: EmailLinkPurpose,
    /// The address the link was sent to (lower-cased): the account's own for VERIFY, the new
    /// one for CHANGE.
    pub email: String,
    /// Lower-case hex SHA-256 of the token in the link.
    #[sea_orm(unique)]
    pub token_hash: String,
    pub created_at: DateTimeUtc,
    pub expires_at: DateTimeUtc,
    /// When the link was used, or made useless by a newer one.
    pub used_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
