//! An advertiser's offer campaign. `config` is the newest revision's JSON configuration;
//! `live_revision` is the approved revision that delivers.
use crate::values::CampaignStatus;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "offer_campaigns")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub advertiser_id: String,
    pub status: CampaignStatus,
    pub name: String,
    pub tracking_provider: String,
    pub budget_micros: i64,
    #[sea_orm(column_type = "Text")]
    pub config: String,
    pub revision: i64,
    pub live_revision: Option<i64>,
    pub rejection_reason: Option<String>,
    pub mmp_verified_revision: Option<i64>,
    pub mmp_verified_at: Option<DateTimeUtc>,
    pub mmp_verified_by: Option<String>,
    #[sea_orm(column_type = "Text")]
    pub ip_allowlist: String,
    pub cloned_from: Option<String>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub submitted_at: Option<DateTimeUtc>,
    pub approved_at: Option<DateTimeUtc>,
    pub ended_at: Option<DateTimeUtc>,
    /// The web pixel settings as JSON (`{enabled, allowedOrigins, minSecondsAfterClick,
    /// reviewHours}`); `{}` until the advertiser turns the pixel on.
    #[sea_orm(column_type = "Text")]
    pub web_pixel: String,
    /// The fraud rules as JSON (`{holdScore, minSecondsToConvert}`); `{}` keeps the defaults.
    #[sea_orm(column_type = "Text")]
    pub fraud_rules: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
