//! Survey campaigns of the signed survey API. A created campaign is a DRAFT: creation does
//! not fund, approve or launch it. Paying (wallet allocation or an administrator-recorded
//! external payment) and administrator approval make it LIVE.

mod input;
pub mod review;
mod view;

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, QueryFilter,
    QuerySelect, Set,
};

use crate::domain::changes::Change;
use crate::domain::paging::Page;
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::AppError;
use crate::model::survey::campaign::*;
use entity::survey_campaign as survey;

pub use input::TRANSACTION_MACRO;
use input::apply;
pub use view::{eligibility, test_redirect_url, view_of, views};

pub use super::SUBJECT;

/// The id prefix of survey campaigns (offer campaigns use `cmp`).
pub const ID_PREFIX: &str = "svc";
/// Campaigns `getcampaigns` answers at once (the largest page).
const LIST_PAGE: u64 = crate::domain::paging::MAX_LIMIT;

/// `POST /create`: a DRAFT campaign of the calling advertiser.
pub async fn create(
    ctx: &Ctx,
    actor: &Principal,
    input: SurveyCampaignInput,
) -> Result<SurveyCreated, AppError> {
    actor.require_approved_advertiser()?;
    let now = ctx.now();
    let id = new_id(ID_PREFIX);
    let mut a = survey::ActiveModel {
        id: Set(id.clone()),
        advertiser_id: Set(actor.account_id.clone()),
        status: Set(SurveyStatus::Draft),
        payment_status: Set(PaymentStatus::Unpaid),
        cpi_micros: Set(None),
        loi_hundredths: Set(None),
        closed_at: Set(None),
        conversion_hundredths: Set(None),
        start_date: Set(None),
        end_date: Set(None),
        max_daily_completes: Set(None),
        total_completes: Set(None),
        revision: Set(1),
        supported_devices: Set("[]".to_owned()),
        metadata: Set("{}".to_owned()),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    };
    apply(&mut a, &input, true)?;
    let txn = db::begin(&ctx.db).await?;
    let m = a.insert(&txn).await?;
    let detail = serde_json::json!({"name": m.name});
    actor
        .audit(&txn, now, "survey_campaign.created", (SUBJECT, &id), detail)
        .await?;
    ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    Ok(SurveyCreated {
        message: "Campaign created as a draft".to_owned(),
        campaign: CampaignRef {
            _id: m.id.clone(),
            name: m.name.clone(),
        },
        creator: CreatorRef {
            _id: actor.account_id.clone(),
            test_redirect_url: test_redirect_url(ctx, &m.id),
        },
    })
}

/// A campaign the actor owns (administrators: any); others are "not found".
pub async fn owned<C: ConnectionTrait>(
    db: &C,
    actor: &Principal,
    id: &str,
) -> Result<survey::Model, AppError> {
    actor.require_approved_advertiser()?;
    let m = survey::Entity::find_by_id(id.to_owned())
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("survey campaign"))?;
    actor.require_owner(&m.advertiser_id, "survey campaign")?;
    Ok(m)
}

/// [`owned`] for a write: the row stays locked until `txn` ends (PostgreSQL; SQLite writers
/// are serialised anyway), so two payments, two status changes or a payment and an edit of
/// one campaign run one after the other.
pub async fn locked(
    txn: &sea_orm::DatabaseTransaction,
    actor: &Principal,
    id: &str,
) -> Result<survey::Model, AppError> {
    actor.require_approved_advertiser()?;
    let m = survey::Entity::find_by_id(id.to_owned())
        .lock_exclusive()
        .one(txn)
        .await?
        .ok_or_else(|| AppError::not_found("survey campaign"))?;
    actor.require_owner(&m.advertiser_id, "survey campaign")?;
    Ok(m)
}

/// `GET /getcampaigns`: the caller's 500 newest campaigns; `next_cursor` continues with
/// `searchcampaigns` (same order: newest first by id) when there are more.
pub async fn list(ctx: &Ctx, actor: &Principal) -> Result<SurveyCampaignList, AppError> {
    actor.require_approved_advertiser()?;
    let page = Page::parse(Some(LIST_PAGE), None, ID_PREFIX)?;
    let q =
        survey::Entity::find().filter(survey::Column::AdvertiserId.eq(actor.account_id.clone()));
    let rows = page.select(q, survey::Column::Id).all(&ctx.db).await?;
    let (rows, next_cursor) = page.finish(rows, |m| &m.id);
    list_of(ctx, &rows, next_cursor).await
}

/// One page of campaigns as the list answer.
pub(super) async fn list_of(
    ctx: &Ctx,
    rows: &[survey::Model],
    next_cursor: Option<String>,
) -> Result<SurveyCampaignList, AppError> {
    let campaigns = views(ctx, &ctx.db, rows).await?;
    Ok(SurveyCampaignList {
        next_cursor,
        count: campaigns.len(),
        campaigns,
    })
}

/// `GET /{campaignId}`.
pub async fn get(ctx: &Ctx, actor: &Principal, id: &str) -> Result<SurveyCampaign, AppError> {
    view_of(ctx, &ctx.db, &owned(&ctx.db, actor, id).await?).await
}

/// Status moves an advertiser may make through `PUT` (`status`).
fn advertiser_move(from: SurveyStatus, to: SurveyStatus) -> bool {
    use SurveyStatus::*;
    from == to
        || matches!(
            (from, to),
            (Draft, PendingApproval)
                | (PendingApproval, Draft)
                | (Live, Paused)
                | (Paused, Live)
                | (Live | Paused, Closed)
        )
}

/// `PUT /{campaignId}`: drafts and pending campaigns change freely (cost fields are frozen
/// once the wallet paid them); live, paused and closed ones only change status.
pub async fn update(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    input: SurveyCampaignInput,
) -> Result<SurveyCampaign, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked(&txn, actor, id).await?;
    let from = m.status;
    let requested = input.status;
    let to = requested.unwrap_or(from);
    if !advertiser_move(from, to) {
        return Err(AppError::conflict(format!(
            "a {} survey campaign cannot move to {}",
            from.as_str(),
            to.as_str()
        ))
        .with_code("invalid_transition"));
    }
    let edits = SurveyCampaignInput {
        status: None,
        ..input
    };
    let edits_fields = serde_json::to_value(&edits)
        .ok()
        .and_then(|v| v.as_object().map(|o| o.values().any(|v| !v.is_null())))
        .unwrap_or(false);
    if edits_fields && !matches!(from, SurveyStatus::Draft | SurveyStatus::PendingApproval) {
        return Err(AppError::conflict(format!(
            "a {} survey campaign can only change status",
            from.as_str()
        ))
        .with_code("campaign_not_editable"));
    }
    // What was paid for stays what is delivered: the price and the number of completes are
    // fixed once money was committed (wallet reservation or an external payment).
    let cost_changes = edits.cpi.is_some_and(|c| Some(c.0) != m.cpi_micros)
        || edits
            .total_completes
            .is_some_and(|t| Some(t) != m.total_completes);
    if m.payment_status != PaymentStatus::Unpaid && cost_changes {
        return Err(AppError::conflict(
            "cpi and total_completes are fixed once the campaign is paid",
        )
        .with_code("campaign_not_editable"));
    }
    // An edit of a campaign awaiting approval withdraws it to DRAFT unless the same request
    // resubmits it; either way its revision moves on, so an approval that names the revision
    // the administrator reviewed cannot approve content nobody looked at.
    let to = if edits_fields && from == SurveyStatus::PendingApproval {
        requested
            .filter(|s| *s == SurveyStatus::PendingApproval)
            .unwrap_or(SurveyStatus::Draft)
    } else {
        to
    };
    let mut a = m.clone().into_active_model();
    apply(&mut a, &edits, false)?;
    if to == SurveyStatus::PendingApproval && from != to {
        input::clear_rejection(&mut a);
    }
    if edits_fields {
        a.revision = Set(m.revision + 1);
    }
    a.status = Set(to);
    a.updated_at = Set(now);
    let closing = to == SurveyStatus::Closed && from != SurveyStatus::Closed;
    if closing {
        a.closed_at = Set(Some(now));
    }
    let updated = a.update(&txn).await?;
    if closing {
        super::grace::hold_on_close(&txn, now, &updated).await?;
    }
    let detail = serde_json::json!({"from": from.as_str(), "to": to.as_str()});
    actor
        .audit(
            &txn,
            now,
            "survey_campaign.updated",
            (SUBJECT, &m.id),
            detail,
        )
        .await?;
    let out = view_of(ctx, &txn, &updated).await?;
    ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    Ok(out)
}

/// `DELETE /{campaignId}`: only unpaid drafts and pending campaigns.
pub async fn delete(ctx: &Ctx, actor: &Principal, id: &str) -> Result<SurveyMessage, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked(&txn, actor, id).await?;
    if !matches!(
        m.status,
        SurveyStatus::Draft | SurveyStatus::PendingApproval
    ) || m.payment_status != PaymentStatus::Unpaid
    {
        return Err(AppError::conflict(
            "only unpaid draft or pending campaigns can be deleted; close it instead",
        )
        .with_code("campaign_not_deletable"));
    }
    survey::Entity::delete_by_id(m.id.clone())
        .exec(&txn)
        .await?;
    let detail = serde_json::json!({"name": m.name});
    actor
        .audit(
            &txn,
            now,
            "survey_campaign.deleted",
            (SUBJECT, &m.id),
            detail,
        )
        .await?;
    ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    Ok(SurveyMessage {
        message: "Campaign deleted".to_owned(),
    })
}

/// Marks a campaign paid by the wallet (inside the allocation's transaction).
pub(crate) async fn mark_wallet_paid<C: ConnectionTrait>(
    db: &C,
    m: &survey::Model,
    now: DateTime<Utc>,
) -> Result<(), AppError> {
    use sea_orm::sea_query::Expr;
    let n = survey::Entity::update_many()
        .col_expr(
            survey::Column::PaymentStatus,
            Expr::value(PaymentStatus::Wallet.as_str()),
        )
        .col_expr(survey::Column::UpdatedAt, Expr::value(now))
        .filter(survey::Column::Id.eq(m.id.clone()))
        .filter(survey::Column::PaymentStatus.eq(PaymentStatus::Unpaid.as_str()))
        .exec(db)
        .await?
        .rows_affected;
    if n == 1 {
        Ok(())
    } else {
        Err(
            AppError::conflict("the campaign's payment changed meanwhile")
                .with_code("already_paid"),
        )
    }
}
