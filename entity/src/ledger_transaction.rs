//! One business event in the ledger; its entries sum to zero. `dedupe_key` makes each event post at most once.
use crate::values::TransactionKind;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "ledger_transactions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub kind: TransactionKind,
    pub owner_account_id: String,
    pub reference_type: String,
    pub reference_id: String,
    pub dedupe_key: String,
    pub memo: Option<String>,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
