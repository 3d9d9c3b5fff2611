//! Survey lines: a paid complete reversed as the signed survey API reverses it, under the
//! survey campaign's lock, with the line's result in the same transaction.

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};

use super::record_result;
use crate::domain::surveys::entries::reversal::{
    CompleteReversal, NotReversible, reverse_complete, reversible,
};
use crate::domain::{Ctx, db};
use crate::error::AppError;
use crate::model::campaign::reconciliation::LineState;
use entity::{
    conversion, reconciliation_batch as batch, reconciliation_line as line,
    survey_campaign as survey, survey_entry as entry,
};

/// Reverses the completes of `lines` (all of survey campaign `campaign_id`) in one
/// transaction. Only reversals reach here: a complete is approved when it is reported.
pub(super) async fn apply_chunk(
    ctx: &Ctx,
    b: &batch::Model,
    campaign_id: &str,
    lines: &[line::Model],
) -> Result<(), AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = survey::Entity::find_by_id(campaign_id.to_owned())
        .lock_exclusive()
        .one(&txn)
        .await?
        .filter(|m| m.advertiser_id == b.advertiser_id);
    let conversion_ids: Vec<String> = lines
        .iter()
        .filter_map(|l| l.conversion_id.clone())
        .collect();
    let conversions = conversion::Entity::find()
        .filter(conversion::Column::Id.is_in(conversion_ids))
        .all(&txn)
        .await?;
    let entries = entry::Entity::find()
        .filter(entry::Column::Id.is_in(conversions.iter().map(|c| c.transaction_id.clone())))
        .filter(entry::Column::CampaignId.eq(campaign_id.to_owned()))
        .all(&txn)
        .await?;
    for l in lines {
        let c = conversions
            .iter()
            .find(|c| Some(&c.id) == l.conversion_id.as_ref());
        let e = c.and_then(|c| entries.iter().find(|e| e.id == c.transaction_id));
        let (Some(m), Some(e)) = (&m, e) else {
            record_result(&txn, now, l, LineState::Unknown).await?;
            continue;
        };
        let result = match reversible(&txn, now, ctx.config.reconciliation_window, m, e).await? {
            Err(NotReversible::NotPaid) => LineState::NotAllowed,
            Err(NotReversible::OutsideWindow) => LineState::OutsideWindow,
            Ok(c) => match reverse_complete(&txn, now, m, &c).await? {
                CompleteReversal::Reversed => LineState::Applied,
                CompleteReversal::AlreadyReversed => LineState::AlreadyInState,
            },
        };
        record_result(&txn, now, l, result).await?;
    }
    txn.commit().await?;
    ctx.deliveries.announce();
    Ok(())
}
