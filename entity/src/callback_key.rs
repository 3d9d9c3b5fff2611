//! A reward-callback signing key (CURRENT, NEXT or RETIRED); the secret is sealed.
use crate::values::CallbackKeyState;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "callback_keys")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub placement_id: String,
    pub state: CallbackKeyState,
    pub secret_ciphertext: String,
    pub created_at: DateTimeUtc,
    pub promoted_at: Option<DateTimeUtc>,
    pub retired_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
