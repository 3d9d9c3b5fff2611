//! A survey API signature used in a timestamped mode, kept until its timestamp window has
//! passed so the same signed request works once.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "survey_signature_uses")]
pub struct Model {
    /// The `enc` digest, lower-case hex.
    #[sea_orm(primary_key, auto_increment = false)]
    pub digest: String,
    pub expires_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
