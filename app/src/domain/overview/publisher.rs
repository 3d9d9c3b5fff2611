//! A publisher's home page: earnings, conversions and reversals of its placements by day,
//! and failed callbacks, paused receivers, placements to fix and open support cases.

use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QuerySelect};

use super::{Side, days};
use crate::domain::callback_delivery::outbox;
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::callback_delivery::DeliveryStatus;
use crate::model::overview::{Overview, plural};
use crate::model::publisher::PlacementStatus;
use crate::model::publisher::ops::SupportStatus;
use entity::{callback_delivery, callback_receiver, placement, support_case};

/// The signed-in publisher's figures (an administrator sees its own, i.e. none).
pub async fn overview(ctx: &Ctx, actor: &Principal) -> Result<Overview, AppError> {
    actor.require_publisher()?;
    let owner = actor.account_id.clone();
    let placements: Vec<(String, String)> = placement::Entity::find()
        .select_only()
        .column(placement::Column::Id)
        .column(placement::Column::Status)
        .filter(placement::Column::OwnerAccountId.eq(owner.clone()))
        .into_tuple()
        .all(&ctx.db)
        .await?;
    let ids: Vec<String> = placements.iter().map(|(id, _)| id.clone()).collect();
    let mut o = Overview {
        currency: "USD".to_owned(),
        days: days(&ctx.db, Side::Placements(&ids), ctx.now().date_naive()).await?,
        ..Overview::default()
    }
    .with_totals();
    let failed = callback_delivery::Entity::find()
        .filter(callback_delivery::Column::OwnerAccountId.eq(owner.clone()))
        .filter(callback_delivery::Column::Status.eq(DeliveryStatus::Failed.as_str()))
        .filter(callback_delivery::Column::Id.starts_with(outbox::ID_PREFIX))
        .count(&ctx.db)
        .await?;
    o.attend(
        "failed_callbacks",
        failed as i64,
        |n| {
            format!(
                "{} failed for good: fix your receiver, then replay",
                plural(n, "reward callback", "reward callbacks")
            )
        },
        "/publisher/deliveries?status=FAILED",
    );
    let paused = callback_receiver::Entity::find()
        .filter(callback_receiver::Column::PlacementId.is_in(ids.clone()))
        .filter(callback_receiver::Column::PausedAt.is_not_null())
        .count(&ctx.db)
        .await?;
    o.attend(
        "paused_receivers",
        paused as i64,
        |n| {
            format!(
                "{} paused after a day of failures",
                plural(n, "callback receiver is", "callback receivers are")
            )
        },
        "/publisher/deliveries",
    );
    let with = |s: PlacementStatus| {
        placements
            .iter()
            .filter(|(_, st)| PlacementStatus::parse(st) == Some(s))
            .count() as i64
    };
    o.attend(
        "rejected_placements",
        with(PlacementStatus::Rejected),
        |n| {
            format!(
                "{} rejected in review: see the reason and resubmit",
                plural(n, "placement was", "placements were")
            )
        },
        "/publisher/placements?status=REJECTED",
    );
    o.attend(
        "placements_in_review",
        with(PlacementStatus::PendingReview),
        |n| {
            format!(
                "{} awaiting review by an administrator",
                plural(n, "placement is", "placements are")
            )
        },
        "/publisher/placements?status=PENDING_REVIEW",
    );
    let open_cases = support_case::Entity::find()
        .filter(support_case::Column::PlacementId.is_in(ids))
        .filter(support_case::Column::Status.eq(SupportStatus::Open.as_str()))
        .count(&ctx.db)
        .await?;
    o.attend(
        "open_support_cases",
        open_cases as i64,
        |n| {
            format!(
                "{} from your users waiting for an answer",
                plural(n, "support case", "support cases")
            )
        },
        "/publisher/support?status=OPEN",
    );
    Ok(o)
}
