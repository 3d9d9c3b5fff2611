//! A conversion of one advertiser transaction, with its settlement and the publisher's earnings.
use crate::values::{EarningsState, ReportedStatus, Settlement};
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "conversions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub campaign_id: String,
    pub advertiser_id: String,
    pub transaction_id: String,
    pub click_id: String,
    pub goal_id: String,
    pub status: ReportedStatus,
    pub settlement: Settlement,
    pub placement_id: Option<String>,
    pub ad_slot_id: Option<String>,
    pub session_id: Option<String>,
    pub external_user_id: Option<String>,
    pub payout_micros: i64,
    pub publisher_earnings_micros: i64,
    pub reward_minor_units: i64,
    pub occurred_at: DateTimeUtc,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    /// When the publisher credit of an approved conversion becomes final (end of the goal's
    /// pending hold); the reward callback is sent then.
    pub credit_at: Option<DateTimeUtc>,
    /// The publisher account whose earnings the conversion made (set when paid).
    pub publisher_id: Option<String>,
    /// PENDING (in the hold), AVAILABLE (released) or REVERSED; none for conversions paid
    /// before earnings were kept in the ledger, whose reversal moves only the advertiser.
    pub earnings_state: Option<EarningsState>,
    /// When the earnings were made (the hold counts from here).
    pub earnings_at: Option<DateTimeUtc>,
    /// When a paid conversion was reversed.
    pub reversed_at: Option<DateTimeUtc>,
    /// The fraud score (0 to 100) at settlement: the sum of the points of its reasons.
    pub fraud_score: i32,
    /// The fraud reasons as JSON (`[{signal, points, detail}]`); none when nothing was found.
    pub fraud_reasons: Option<String>,
    /// When the conversion was held (settlement HELD) instead of paid.
    pub held_at: Option<DateTimeUtc>,
    /// A held web-pixel conversion pays by itself at this time unless it was rejected or its
    /// signals hold it (then none: a person decides).
    pub held_until: Option<DateTimeUtc>,
    /// The address the click came from (the launch link's browser, else the SDK's launch).
    pub click_ip: Option<String>,
    /// Its network (`/24` for IPv4, `/48` for IPv6), for the shared-range signal.
    pub click_network: Option<String>,
    /// The device id the SDK session reported, when it did.
    pub device_id: Option<String>,
    /// Seconds from the click to the report's arrival.
    pub seconds_to_convert: Option<i64>,
    /// Who approved or rejected a held conversion, when, and why.
    pub decided_by: Option<String>,
    pub decided_at: Option<DateTimeUtc>,
    pub decision_note: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
