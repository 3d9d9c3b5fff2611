//! A ledger account: an advertiser's AVAILABLE, RESERVED (per campaign) or SPENT money, or a platform account. Balance is the sum of its entries, kept in the same transaction.
use crate::values::LedgerAccountKind;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "ledger_accounts")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub owner_account_id: String,
    pub kind: LedgerAccountKind,
    pub reference_id: String,
    pub balance_micros: i64,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
