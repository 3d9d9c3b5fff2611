//! A survey campaign created through the signed survey API; metadata and device lists are
//! JSON text.
use crate::values::{PaymentStatus, SurveyStatus};
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "survey_campaigns")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub advertiser_id: String,
    pub name: String,
    pub status: SurveyStatus,
    pub payment_status: PaymentStatus,
    pub country_language_id: String,
    pub cpi_micros: Option<i64>,
    /// Expected minutes × 100 (the API's `length_of_interview`, a number).
    pub loi_hundredths: Option<i64>,
    /// Expected completion percent × 100 (the API's `conversion`, a number).
    pub conversion_hundredths: Option<i64>,
    pub start_date: Option<Date>,
    pub end_date: Option<Date>,
    pub survey_live_link: String,
    pub survey_test_link: String,
    pub max_daily_completes: Option<i64>,
    pub total_completes: Option<i64>,
    #[sea_orm(column_type = "Text")]
    pub supported_devices: String,
    #[sea_orm(column_type = "Text")]
    pub metadata: String,
    /// Incremented by every edit; an approval may name the revision it reviewed.
    pub revision: i64,
    /// When the campaign closed; open entries stay payable for a grace period after it.
    pub closed_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
