//! One attempt to send a reward callback: when, to where, signed with which key, and what
//! the receiver answered (status, latency, error class, the first KiB of the body).
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "callback_delivery_attempts")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub delivery_id: String,
    pub attempt: i32,
    pub url: String,
    pub key_id: Option<String>,
    pub nonce: String,
    pub signed_timestamp: String,
    pub started_at: DateTimeUtc,
    pub latency_ms: i64,
    pub response_status: Option<i32>,
    pub error_class: Option<String>,
    pub error_message: Option<String>,
    pub response_excerpt: Option<String>,
    pub replay: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::callback_delivery::Entity",
        from = "Column::DeliveryId",
        to = "super::callback_delivery::Column::Id"
    )]
    Delivery,
}

impl Related<super::callback_delivery::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Delivery.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
