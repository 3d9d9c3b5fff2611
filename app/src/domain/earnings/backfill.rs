//! The earnings of conversions paid before earnings were kept in the ledger (issue 34):
//! `server earnings-backfill`, run once after upgrading a deployment that settled
//! conversions with an older version. Those conversions are APPROVED with no
//! `earnings_state`: their advertiser spend is in the ledger, but not the publisher's share
//! nor the platform's revenue, so the publisher could never be paid for them.
//!
//! For each campaign the backfill posts what settlement posts today (`conversion_legs`
//! without the advertiser's side, which already moved): the spend's mirror
//! (SPEND_CLEARING, or EXTERNAL_RECEIVABLE for a survey campaign paid outside the wallet),
//! the publisher's share into its PENDING earnings and the rest into the platform's
//! revenue; and it marks the conversions PENDING, earned when they were last settled
//! (`updated_at`). The release worker then moves those past the publisher's hold to
//! AVAILABLE by the usual release postings, so a backfill needs no hold logic of its own.
//! Statements show the backfilled earnings on the day of the backfill (kind
//! `earnings_backfill`), since that is when the ledger learned of them.
//!
//! Safe to run again and beside the service: each chunk takes the campaign's settlement
//! lock and selects only conversions still without `earnings_state`. A wallet campaign is
//! backfilled only when its legacy payouts are exactly its spend not mirrored yet, so the
//! ledger stays balanced campaign by campaign; any other campaign is reported, not touched.

use std::collections::{BTreeMap, HashMap};

use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

use super::release::lock_any_campaign;
use crate::domain::billing::ledger::{self, Kind, Leg};
use crate::domain::{Ctx, db};
use crate::error::AppError;
use crate::model::campaign::conversions::Settlement;
use crate::model::publisher::earnings::EarningsState;
use crate::model::survey::campaign::PaymentStatus;
use entity::{conversion, ledger_account, offer_campaign, placement, survey_campaign};

/// Conversions backfilled per transaction (the campaign's settlement waits for one).
const CHUNK: u64 = 500;
/// The ledger transaction kind of a backfill posting.
pub const KIND: ledger::TransactionKind = ledger::TransactionKind::EarningsBackfill;

/// What a backfill did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Backfill {
    /// Conversions given their earnings.
    pub conversions: u64,
    /// Campaigns they belong to.
    pub campaigns: u64,
    /// Campaigns left as they were, with the reason.
    pub skipped: Vec<(String, &'static str)>,
}

/// How a campaign's completes and conversions were paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Funding {
    Wallet,
    External,
}

/// Paid conversions without earnings, attributed to a placement.
fn legacy() -> Condition {
    Condition::all()
        .add(conversion::Column::Settlement.eq(Settlement::Approved.as_str()))
        .add(conversion::Column::EarningsState.is_null())
        .add(conversion::Column::PlacementId.is_not_null())
}

/// Backfills every campaign with legacy conversions.
pub async fn run(ctx: &Ctx) -> Result<Backfill, AppError> {
    let campaigns: Vec<String> = conversion::Entity::find()
        .select_only()
        .column(conversion::Column::CampaignId)
        .distinct()
        .filter(legacy())
        .order_by_asc(conversion::Column::CampaignId)
        .into_tuple()
        .all(&ctx.db)
        .await?;
    let mut report = Backfill::default();
    for campaign in campaigns {
        match campaign_backfill(ctx, &campaign).await? {
            Ok(0) => {}
            Ok(n) => {
                report.conversions += n;
                report.campaigns += 1;
            }
            Err(why) => report.skipped.push((campaign, why)),
        }
    }
    Ok(report)
}

/// Backfills one campaign's legacy conversions; `Err(reason)` when it must be left alone.
async fn campaign_backfill(
    ctx: &Ctx,
    campaign_id: &str,
) -> Result<Result<u64, &'static str>, AppError> {
    let Some(funding) = funding(ctx, campaign_id).await? else {
        return Ok(Err("the campaign is unpaid or gone"));
    };
    if funding == Funding::Wallet
        && legacy_total(ctx, campaign_id).await? != unmirrored(ctx, campaign_id).await?
    {
        return Ok(Err(
            "its legacy payouts differ from its spend not mirrored yet",
        ));
    }
    let mut done = 0;
    let mut after = String::new();
    loop {
        let txn = db::begin(&ctx.db).await?;
        lock_any_campaign(&txn, campaign_id).await?;
        let rows = conversion::Entity::find()
            .filter(legacy())
            .filter(conversion::Column::CampaignId.eq(campaign_id.to_owned()))
            .filter(conversion::Column::Id.gt(after.clone()))
            .order_by_asc(conversion::Column::Id)
            .limit(CHUNK)
            .all(&txn)
            .await?;
        let Some(last) = rows.last() else {
            return Ok(Ok(done));
        };
        after = last.id.clone();
        let owners = owners(&txn, &rows).await?;
        // Per publisher: its conversions and its share of them.
        let mut per_publisher: BTreeMap<&str, (Vec<String>, i64)> = BTreeMap::new();
        let (mut payouts, mut shares) = (0i64, 0i64);
        for c in &rows {
            let Some(p) = c.placement_id.as_ref().and_then(|p| owners.get(p)) else {
                continue;
            };
            let e = per_publisher.entry(p.as_str()).or_default();
            e.0.push(c.id.clone());
            e.1 += c.publisher_earnings_micros;
            payouts += c.payout_micros;
            shares += c.publisher_earnings_micros;
        }
        if !per_publisher.is_empty() {
            let mirror = match funding {
                Funding::Wallet => Kind::SpendClearing,
                Funding::External => Kind::ExternalReceivable,
            };
            let mut legs = vec![Leg::new("", mirror, campaign_id, -payouts)];
            for (p, (_, share)) in &per_publisher {
                legs.push(Leg::new(p, Kind::PublisherPending, campaign_id, *share));
            }
            legs.push(Leg::new(
                "",
                Kind::PlatformRevenue,
                campaign_id,
                payouts - shares,
            ));
            let key = format!("{KIND}:{campaign_id}:{}", rows[0].id);
            ledger::post(
                &txn,
                ctx.now(),
                KIND,
                "",
                ("campaign", campaign_id),
                &key,
                &legs,
            )
            .await?;
            for (p, (ids, _)) in &per_publisher {
                done += ids.len() as u64;
                mark(&txn, p, ids).await?;
            }
        }
        txn.commit().await?;
    }
}

/// Marks conversions PENDING earnings of `publisher`, earned when they were last settled.
async fn mark(
    txn: &sea_orm::DatabaseTransaction,
    publisher: &str,
    ids: &[String],
) -> Result<(), AppError> {
    conversion::Entity::update_many()
        .col_expr(
            conversion::Column::PublisherId,
            Expr::value(Some(publisher.to_owned())),
        )
        .col_expr(
            conversion::Column::EarningsState,
            Expr::value(Some(EarningsState::Pending.as_str())),
        )
        .col_expr(
            conversion::Column::EarningsAt,
            Expr::col(conversion::Column::UpdatedAt).into(),
        )
        .filter(conversion::Column::Id.is_in(ids.iter().cloned()))
        .filter(conversion::Column::EarningsState.is_null())
        .exec(txn)
        .await?;
    Ok(())
}

/// The owners of the conversions' placements, by placement id.
async fn owners(
    txn: &sea_orm::DatabaseTransaction,
    rows: &[conversion::Model],
) -> Result<HashMap<String, String>, AppError> {
    let ids: Vec<String> = rows.iter().filter_map(|c| c.placement_id.clone()).collect();
    Ok(placement::Entity::find()
        .select_only()
        .column(placement::Column::Id)
        .column(placement::Column::OwnerAccountId)
        .filter(placement::Column::Id.is_in(ids))
        .into_tuple::<(String, String)>()
        .all(txn)
        .await?
        .into_iter()
        .collect())
}

/// How the campaign pays: an offer campaign from the wallet, a survey campaign as its
/// payment says; `None` for an unpaid survey campaign (it earns nothing) or no campaign.
async fn funding(ctx: &Ctx, campaign_id: &str) -> Result<Option<Funding>, AppError> {
    if offer_campaign::Entity::find_by_id(campaign_id.to_owned())
        .one(&ctx.db)
        .await?
        .is_some()
    {
        return Ok(Some(Funding::Wallet));
    }
    let survey = survey_campaign::Entity::find_by_id(campaign_id.to_owned())
        .one(&ctx.db)
        .await?;
    Ok(match survey.map(|s| s.payment_status) {
        Some(PaymentStatus::Wallet) => Some(Funding::Wallet),
        Some(PaymentStatus::External) => Some(Funding::External),
        Some(PaymentStatus::Unpaid) | None => None,
    })
}

/// The payouts of the campaign's legacy conversions.
async fn legacy_total(ctx: &Ctx, campaign_id: &str) -> Result<i64, AppError> {
    let total: Option<i64> = conversion::Entity::find()
        .select_only()
        .column_as(
            Expr::cust("CAST(COALESCE(SUM(payout_micros), 0) AS BIGINT)"),
            "total",
        )
        .filter(legacy())
        .filter(conversion::Column::CampaignId.eq(campaign_id.to_owned()))
        .into_tuple()
        .one(&ctx.db)
        .await?;
    Ok(total.unwrap_or(0))
}

/// The campaign's spend its SPEND_CLEARING does not mirror yet (SPENT + SPEND_CLEARING).
async fn unmirrored(ctx: &Ctx, campaign_id: &str) -> Result<i64, AppError> {
    let accounts = ledger_account::Entity::find()
        .filter(ledger_account::Column::ReferenceId.eq(campaign_id.to_owned()))
        .filter(
            ledger_account::Column::Kind
                .is_in([Kind::Spent.as_str(), Kind::SpendClearing.as_str()]),
        )
        .all(&ctx.db)
        .await?;
    Ok(accounts.iter().map(|a| a.balance_micros).sum())
}
