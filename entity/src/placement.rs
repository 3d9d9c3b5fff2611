//! An app, site or API network of a publisher. Status: DRAFT, PENDING_REVIEW, VERIFIED, REJECTED.
use crate::values::PlacementStatus;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "placements")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub owner_account_id: String,
    pub r#type: String,
    pub name: String,
    pub platform_identity: String,
    pub platform: String,
    pub store_url: Option<String>,
    pub minimum_sdk_version: String,
    pub recommended_sdk_version: Option<String>,
    pub require_consent: bool,
    pub status: PlacementStatus,
    pub released: bool,
    pub released_at: Option<DateTimeUtc>,
    pub review_note: Option<String>,
    pub reviewed_at: Option<DateTimeUtc>,
    pub callback_url: Option<String>,
    pub privacy_settings: String,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub archived_at: Option<DateTimeUtc>,
    /// Delivery paused because too many of the placement's conversions were held or
    /// reversed (or by an administrator); offers are not shown until it is resumed.
    pub delivery_paused_at: Option<DateTimeUtc>,
    pub delivery_paused_reason: Option<String>,
    /// The last resumption: the held and reversed share counts conversions after it.
    pub delivery_resumed_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
