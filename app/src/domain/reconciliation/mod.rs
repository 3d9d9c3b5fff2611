//! Bulk reconciliation: an advertiser lists up to 10,000 transaction ids to approve or
//! reverse, with a reason. Creating it resolves and previews every line in the request
//! (read-only for money: a few queries per 500 lines) and answers what will change;
//! applying it queues it for the reconciliation worker, which works through the lines in
//! transactions of at most [`CHUNK`] lines of one campaign, under that campaign's lock, and
//! commits each line's result with the money it moved. So a reconciliation is idempotent
//! three ways: the same `Idempotency-Key` answers the same reconciliation; a second one
//! with the same ids finds every line ALREADY_IN_STATE; a worker that dies half way is
//! resumed (by its lease running out) at the first line without a result, and the ledger's
//! once-only keys stop any double posting.
//!
//! Why a worker and not the request: a reversal costs about ten statements, so 10,000 of
//! them outlast the request deadline, and on SQLite one request would hold the only write
//! lock for seconds while every postback waits.
//!
//! An offer line is applied as a report of its transaction (`settlement::apply`, with an
//! inbox receipt of source RECONCILIATION), so it follows every rule a postback does; a
//! survey complete is reversed as the signed survey API does (`surveys::entries::reversal`).
//! Both move money only inside the reconciliation window (`APP_RECONCILIATION_WINDOW_DAYS`,
//! 30 days after the conversion by default). This room sits above `conversions` and
//! `surveys` (it applies lines of both), so neither of them imports the other for it.

mod apply;
mod create;
mod offers;
mod surveys;
mod view;

pub use apply::{apply_next, queue};
pub use create::{create, create_from_text, lines_from_csv};
pub use view::{get, lines, list};

use crate::model::campaign::reconciliation::{LineState, ReconcileAction};
use entity::conversion;

use crate::domain::conversions::reported::Settlement;
use crate::domain::conversions::reversal::inside_window;

/// The id prefix of reconciliations.
pub const ID_PREFIX: &str = "rcn";
/// The audit subject of a reconciliation.
const SUBJECT: &str = "conversion_reconciliation";
/// Lines applied in one transaction: one campaign's lock is held for milliseconds.
const CHUNK: usize = 64;
/// The source of the inbox receipts of applied offer lines.
pub const SOURCE: &str = "RECONCILIATION";

/// Whether the campaign is a survey campaign (its conversions are survey completes).
fn is_survey_campaign(campaign_id: &str) -> bool {
    campaign_id
        .strip_prefix(crate::domain::surveys::campaigns::ID_PREFIX)
        .is_some_and(|rest| rest.starts_with('_'))
}

fn is_survey(c: &conversion::Model) -> bool {
    is_survey_campaign(&c.campaign_id)
}

/// What `action` would do to `c` now.
fn decide(
    action: ReconcileAction,
    c: &conversion::Model,
    now: chrono::DateTime<chrono::Utc>,
    window: chrono::Duration,
) -> LineState {
    use Settlement as S;
    let settled = c.settlement;
    let state = match (action, settled) {
        (ReconcileAction::Reverse, S::Reversed | S::Rejected) => LineState::AlreadyInState,
        (ReconcileAction::Reverse, S::Approved) => LineState::WillApply,
        // A survey complete is paid when reported; there is nothing pending to reject.
        (ReconcileAction::Reverse, S::Pending) if !is_survey(c) => LineState::WillApply,
        (ReconcileAction::Approve, S::Approved) => LineState::AlreadyInState,
        (ReconcileAction::Approve, S::Pending | S::NoBudget) if !is_survey(c) => {
            LineState::WillApply
        }
        // A held conversion is the advertiser's to decide: approving pays it, reversing
        // rejects it (nothing was paid).
        (_, S::Held) => LineState::WillApply,
        _ => LineState::NotAllowed,
    };
    if state == LineState::WillApply && !inside_window(c, now, window) {
        return LineState::OutsideWindow;
    }
    state
}

/// Records a line's result in `txn`, with the money it moved.
async fn record_result(
    txn: &sea_orm::DatabaseTransaction,
    now: chrono::DateTime<chrono::Utc>,
    l: &entity::reconciliation_line::Model,
    result: LineState,
) -> Result<(), crate::error::AppError> {
    use entity::reconciliation_line as line;
    use sea_orm::sea_query::Expr;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    line::Entity::update_many()
        .col_expr(line::Column::Result, Expr::value(Some(result.as_str())))
        .col_expr(line::Column::AppliedAt, Expr::value(Some(now)))
        .filter(line::Column::Id.eq(l.id.clone()))
        .exec(txn)
        .await?;
    Ok(())
}
