//! The end of web pixel review windows: a held pixel conversion whose window ended (and
//! that nobody rejected) is screened again without the window and paid, unless its score
//! holds it for a decision. Run by the fraud worker every minute and by `run_once`.

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

use super::Held;
use crate::domain::Ctx;
use crate::domain::conversions::reported::{ReportedStatus, Settlement, Trust};
use crate::error::AppError;
use entity::conversion;

/// The inbox source of conversions whose review window ended.
pub const SOURCE: &str = "PIXEL_REVIEW";
/// Conversions taken per round at most.
const CHUNK: u64 = 500;

/// Settles held conversions whose review window has ended; returns how many it took.
pub async fn release_reviewed(ctx: &Ctx) -> Result<usize, AppError> {
    let now = ctx.now();
    let due: Vec<(String, String)> = conversion::Entity::find()
        .select_only()
        .column(conversion::Column::Id)
        .column(conversion::Column::CampaignId)
        .filter(conversion::Column::Settlement.eq(Settlement::Held.as_str()))
        .filter(conversion::Column::HeldUntil.lte(now))
        .order_by_asc(conversion::Column::HeldUntil)
        .limit(CHUNK)
        .into_tuple()
        .all(&ctx.db)
        .await?;
    for (campaign_id, ids) in crate::domain::ids::grouped(&due) {
        let Some((mut held, rows)) = Held::open(ctx, &campaign_id, &ids).await? else {
            continue;
        };
        for c in rows
            .iter()
            .filter(|c| c.held_until.is_some_and(|u| u <= now))
        {
            held.settle(now, c, ReportedStatus::Approved, Trust::ReviewEnded, SOURCE)
                .await?;
        }
        held.close(ctx, now).await?;
    }
    Ok(due.len())
}
