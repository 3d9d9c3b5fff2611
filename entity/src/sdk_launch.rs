//! A launch (click): the signed, five-minute redirect to the advertiser with its click id.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "sdk_launches")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub click_id: String,
    pub session_id: String,
    pub impression_id: String,
    pub placement_id: String,
    pub ad_slot_id: String,
    pub campaign_id: String,
    pub campaign_revision: i64,
    pub external_user_id: String,
    pub idempotency_key: String,
    pub trace_id: String,
    pub destination_url: String,
    pub created_at: DateTimeUtc,
    pub expires_at: DateTimeUtc,
    pub opened_at: Option<DateTimeUtc>,
    /// The address of the SDK's launch request.
    pub client_ip: Option<String>,
    /// The address of the browser that first followed the launch link.
    pub opened_ip: Option<String>,
    /// The device id the session reported, when it did.
    pub device_id: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
