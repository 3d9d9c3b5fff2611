//! An account's second factor (TOTP, RFC 6238). The secrets are sealed with the service key
//! (the server recomputes codes with them); `last_step` is the newest time step accepted, so
//! a code works once.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "second_factors")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub account_id: String,
    /// The confirmed secret, sealed; `None` while only an enrolment is pending.
    pub secret_sealed: Option<String>,
    /// A secret being enrolled (shown as a QR code, not yet confirmed by a code), sealed.
    pub pending_sealed: Option<String>,
    pub enabled_at: Option<DateTimeUtc>,
    pub last_step: Option<i64>,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
