//! A placement's signed-user-identity setting: the secret its server signs users with
//! (sealed) and whether sessions must carry the signature to read a user's history.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "placement_user_identities")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub placement_id: String,
    pub secret_sealed: Option<String>,
    pub required: bool,
    pub issued_at: Option<DateTimeUtc>,
    pub updated_at: DateTimeUtc,
    /// The secret before the last rotation (sealed), accepted until `previous_until` so
    /// the publisher's servers can switch without refusing their users.
    pub previous_secret_sealed: Option<String>,
    pub previous_issued_at: Option<DateTimeUtc>,
    pub previous_until: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
