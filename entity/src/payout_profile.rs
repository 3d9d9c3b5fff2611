//! Where a publisher is paid: legal name, country, method and the payment details (sealed,
//! binding `payout_profiles:<account_id>`; only a hint such as "IBAN ••••4321" is shown).
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "payout_profiles")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub account_id: String,
    pub legal_name: String,
    /// ISO 3166-1 alpha-2.
    pub country: String,
    /// BANK_TRANSFER or PAYMENT_SERVICE.
    pub method: String,
    pub details_sealed: String,
    pub details_hint: String,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
