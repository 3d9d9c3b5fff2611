//! One transaction id of a bulk reconciliation: what the preview found and, once applied,
//! what happened (committed with the money it moved).
use crate::values::LineState;
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "reconciliation_lines")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub batch_id: String,
    /// 1-based position in the request.
    pub line_no: i32,
    pub transaction_id: String,
    /// As given, or the conversion's campaign once resolved.
    pub campaign_id: Option<String>,
    pub conversion_id: Option<String>,
    /// WILL_APPLY, ALREADY_IN_STATE, UNKNOWN, AMBIGUOUS, OUTSIDE_WINDOW, NOT_ALLOWED or
    /// DUPLICATE_LINE.
    pub preview: LineState,
    /// Set when applied: APPLIED, NO_BUDGET, CAP_REACHED or a preview value.
    pub result: Option<LineState>,
    /// The conversion's payout when the line was previewed.
    pub payout_micros: i64,
    pub applied_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
