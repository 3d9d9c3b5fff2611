//! The offer campaign lifecycle and its money. Going LIVE reserves the unspent budget from
//! the shared wallet (refused when available money is short); PAUSED, ENDED and ARCHIVED
//! return the unused reserve; conversions are paid from the reserve. Every move is one
//! transaction: a guarded status update, the ledger posting and the audit record.

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DatabaseTransaction, EntityTrait, IntoActiveModel, Set};

use super::providers::{TrackingKind, kind_of};
use super::store::SUBJECT;
use super::{live_config, locked_campaign, spent_for, tracking, view};
use crate::domain::billing::ledger::{self, PostError};
use crate::domain::changes::Change;
use crate::domain::notices::{self, Notice};
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::AppError;
use crate::model::NoticeTopic;
use crate::model::campaign::rules::advertiser_moves;
use crate::model::campaign::*;
use crate::model::money::format_micros;
use entity::offer_campaign;

fn refuse_move(from: CampaignStatus, to: CampaignStatus) -> AppError {
    let allowed: Vec<&str> = advertiser_moves(from).iter().map(|s| s.as_str()).collect();
    AppError::conflict(format!(
        "a {} campaign cannot move to {}; allowed: {}",
        from.as_str(),
        to.as_str(),
        if allowed.is_empty() {
            "none".to_owned()
        } else {
            allowed.join(", ")
        }
    ))
    .with_code("invalid_transition")
}

/// Moves the campaign's reserve to `target` micros: reserves the difference from available
/// money, or releases the excess.
pub(super) async fn set_reserve(
    txn: &DatabaseTransaction,
    now: DateTime<Utc>,
    m: &offer_campaign::Model,
    target: i64,
) -> Result<(), AppError> {
    let current = ledger::reserved_for(txn, &m.advertiser_id, &m.id).await?;
    let delta = target - current;
    if delta == 0 {
        return Ok(());
    }
    let (kind, legs) = if delta > 0 {
        (
            ledger::TransactionKind::CampaignReserve,
            ledger::reserve_legs(&m.advertiser_id, &m.id, delta),
        )
    } else {
        (
            ledger::TransactionKind::CampaignRelease,
            ledger::release_legs(&m.advertiser_id, &m.id, -delta),
        )
    };
    let key = format!("{kind}:{}:{}", m.id, new_id("mv"));
    match ledger::post(
        txn,
        now,
        kind,
        &m.advertiser_id,
        (SUBJECT, &m.id),
        &key,
        &legs,
    )
    .await
    {
        Ok(_) => Ok(()),
        Err(PostError::Insufficient) => {
            let available = ledger::balance(txn, &m.advertiser_id)
                .await?
                .available_micros
                .get();
            Err(AppError::conflict(format!(
                "the available balance ({} USD) does not cover the campaign's unspent budget ({} USD); fund {} USD more",
                format_micros(available),
                format_micros(delta),
                format_micros(delta - available)
            ))
            .with_code("insufficient_balance"))
        }
        Err(other) => Err(other.into()),
    }
}

/// The reserve a delivering campaign holds: its live budget minus what it has spent.
async fn live_target(
    txn: &DatabaseTransaction,
    m: &offer_campaign::Model,
) -> Result<i64, AppError> {
    let budget = live_config(txn, m).await?.budget_micros.get();
    Ok((budget - spent_for(txn, m).await?).max(0))
}

/// Writes the change only if nobody moved or edited the campaign meanwhile (the guard that
/// keeps two concurrent transitions from both moving money on PostgreSQL).
pub(super) async fn save(
    txn: &DatabaseTransaction,
    m: offer_campaign::Model,
    edit: impl FnOnce(&mut offer_campaign::ActiveModel),
    now: DateTime<Utc>,
) -> Result<offer_campaign::Model, AppError> {
    use sea_orm::{ColumnTrait, QueryFilter};
    let (id, status, revision) = (m.id.clone(), m.status.clone(), m.revision);
    let mut a = m.into_active_model();
    edit(&mut a);
    a.updated_at = Set(now);
    let updated = offer_campaign::Entity::update_many()
        .set(a)
        .filter(offer_campaign::Column::Id.eq(id.clone()))
        .filter(offer_campaign::Column::Status.eq(status))
        .filter(offer_campaign::Column::Revision.eq(revision))
        .exec(txn)
        .await?;
    if updated.rows_affected != 1 {
        return Err(AppError::conflict(
            "the campaign changed meanwhile; reload and retry",
        ));
    }
    offer_campaign::Entity::find_by_id(id)
        .one(txn)
        .await?
        .ok_or_else(AppError::internal)
}

/// The advertiser's transition route (docs/decisions.md has the full table).
pub async fn transition(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    req: TransitionRequest,
) -> Result<Campaign, AppError> {
    use CampaignStatus::*;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked_campaign(&txn, actor, id).await?;
    let from = m.status;
    let to = req.to;
    if !advertiser_moves(from).contains(&to) {
        return Err(refuse_move(from, to));
    }
    if to == InReview {
        let r = super::readiness::compute(ctx, &txn, &m).await?;
        if !r.ready_to_submit {
            let why: Vec<String> = r
                .reasons
                .iter()
                .filter(|r| r.blocks == crate::model::campaign::ReadinessBlock::Submit)
                .map(|r| r.message.clone())
                .collect();
            return Err(AppError::conflict(format!(
                "the campaign cannot be submitted: {}",
                why.join("; ")
            ))
            .with_code("campaign_not_ready"));
        }
    }
    match to {
        Live => set_reserve(&txn, now, &m, live_target(&txn, &m).await?).await?,
        Paused | Ended | Archived => set_reserve(&txn, now, &m, 0).await?,
        _ => {}
    }
    let m = save(
        &txn,
        m,
        |a| {
            a.status = Set(to);
            match to {
                InReview => {
                    a.submitted_at = Set(Some(now));
                    a.rejection_reason = Set(None);
                }
                Ended => a.ended_at = Set(Some(now)),
                _ => {}
            }
        },
        now,
    )
    .await?;
    let detail =
        serde_json::json!({"from": from.as_str(), "to": to.as_str(), "reason": req.reason});
    actor
        .audit(&txn, now, "campaign.transition", (SUBJECT, &m.id), detail)
        .await?;
    let v = view(&txn, &m).await?;
    ctx.commit_and_announce(txn, [Change::Offers]).await?;
    Ok(v)
}

/// Measurement-partner campaigns need a token and a live-test verification of the revision
/// that is about to deliver.
async fn check_mmp<C: ConnectionTrait>(db: &C, m: &offer_campaign::Model) -> Result<(), AppError> {
    if kind_of(&m.tracking_provider) != TrackingKind::Mmp {
        return Ok(());
    }
    if !tracking::has_active(db, &m.id, TrackingKind::Mmp).await? {
        return Err(AppError::conflict(
            "a measurement-partner campaign needs its campaign token before approval",
        )
        .with_code("mmp_credential_missing"));
    }
    if m.mmp_verified_revision != Some(m.revision) {
        return Err(AppError::conflict(
            "an administrator must verify a live test of the current revision before launch",
        )
        .with_code("mmp_verification_required"));
    }
    Ok(())
}

/// Administrator approval (CONTRACT section 3): an IN_REVIEW campaign goes LIVE with its
/// budget reserved; a LIVE or PAUSED campaign with a pending revision has that revision
/// promoted (and a LIVE one's reserve adjusted to the new budget).
///
/// `reviewed` is the revision the administrator looked at; a newer one saved since is a 409
/// `revision_changed` (the dashboard always sends it; API callers should).
pub async fn approve(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    reviewed: Option<i64>,
) -> Result<Campaign, AppError> {
    use CampaignStatus::*;
    actor.require_admin()?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked_campaign(&txn, actor, id).await?;
    if let Some(r) = reviewed.filter(|r| *r != m.revision) {
        return Err(AppError::conflict(format!(
            "revision {r} was reviewed, but the campaign is at revision {} now; review it again",
            m.revision
        ))
        .with_code("revision_changed"));
    }
    let from = m.status;
    let promotes = matches!(from, Live | Paused) && m.live_revision.is_some_and(|l| l < m.revision);
    if from != InReview && !promotes {
        return Err(AppError::conflict(format!(
            "only IN_REVIEW campaigns (or live ones with a pending revision) can be approved; this one is {}",
            from.as_str()
        ))
        .with_code("invalid_transition"));
    }
    super::providers::check_selectable(ctx, &m.tracking_provider)
        .map_err(|e| AppError::conflict(e).with_code("provider_not_selectable"))?;
    check_mmp(&txn, &m).await?;
    let to = if from == Paused { Paused } else { Live };
    let promoted = offer_campaign::Model {
        live_revision: Some(m.revision),
        ..m.clone()
    };
    if to == Live {
        set_reserve(&txn, now, &m, live_target(&txn, &promoted).await?).await?;
    }
    let revision = m.revision;
    let m = save(
        &txn,
        m,
        |a| {
            a.status = Set(to);
            a.live_revision = Set(Some(revision));
            a.approved_at = Set(Some(now));
            a.rejection_reason = Set(None);
        },
        now,
    )
    .await?;
    let detail =
        serde_json::json!({"from": from.as_str(), "to": to.as_str(), "revision": revision});
    actor
        .audit(&txn, now, "campaign.approved", (SUBJECT, &m.id), detail)
        .await?;
    let told = Notice::new(
        NoticeTopic::CampaignApproved,
        format!("Campaign “{}” is approved", m.name),
        format!(
            "An administrator approved campaign “{}” (revision {revision}); it is now {}.",
            m.name,
            to.as_str()
        ),
    )
    .about("campaign", &m.id, format!("/advertiser/campaigns/{}", m.id));
    notices::tell(ctx, &txn, now, &m.advertiser_id, told).await?;
    let v = view(&txn, &m).await?;
    ctx.commit_and_announce(txn, [Change::Offers]).await?;
    Ok(v)
}

/// Administrator rejection of an IN_REVIEW campaign, with the reason the advertiser sees.
pub async fn reject(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    req: RejectCampaignRequest,
) -> Result<Campaign, AppError> {
    actor.require_admin()?;
    let reason = req.reason.trim().to_owned();
    if !(3..=1000).contains(&reason.chars().count()) {
        return Err(AppError::field("reason", "must be 3-1000 characters"));
    }
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked_campaign(&txn, actor, id).await?;
    let from = m.status;
    if from != CampaignStatus::InReview {
        return Err(AppError::conflict(format!(
            "only IN_REVIEW campaigns can be rejected; this one is {}",
            from.as_str()
        ))
        .with_code("invalid_transition"));
    }
    let m = save(
        &txn,
        m,
        |a| {
            a.status = Set(CampaignStatus::Rejected);
            a.rejection_reason = Set(Some(reason.clone()));
        },
        now,
    )
    .await?;
    let detail = serde_json::json!({"reason": reason});
    actor
        .audit(&txn, now, "campaign.rejected", (SUBJECT, &m.id), detail)
        .await?;
    let told = Notice::new(
        NoticeTopic::CampaignRejected,
        format!("Campaign “{}” was rejected", m.name),
        format!(
            "An administrator rejected campaign “{}”: {reason}\n\nChange what the reason names \
             and submit it again.",
            m.name
        ),
    )
    .about("campaign", &m.id, format!("/advertiser/campaigns/{}", m.id));
    notices::tell(ctx, &txn, now, &m.advertiser_id, told).await?;
    let v = view(&txn, &m).await?;
    ctx.commit_and_announce(txn, [Change::Offers]).await?;
    Ok(v)
}

/// Administrator live-test verification of a measurement-partner campaign's newest revision.
pub async fn verify_mmp(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    req: VerificationRequest,
) -> Result<Campaign, AppError> {
    actor.require_admin()?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked_campaign(&txn, actor, id).await?;
    if kind_of(&m.tracking_provider) != TrackingKind::Mmp {
        return Err(AppError::conflict(
            "only measurement-partner campaigns are live-test verified",
        )
        .with_code("not_mmp_campaign"));
    }
    if matches!(m.status, CampaignStatus::Ended | CampaignStatus::Archived) {
        return Err(AppError::conflict("the campaign has ended").with_code("invalid_transition"));
    }
    if !tracking::has_active(&txn, &m.id, TrackingKind::Mmp).await? {
        return Err(
            AppError::conflict("the campaign has no campaign token to test with")
                .with_code("mmp_credential_missing"),
        );
    }
    let (revision, by) = (m.revision, actor.account_id.clone());
    let m = save(
        &txn,
        m,
        |a| {
            a.mmp_verified_revision = Set(Some(revision));
            a.mmp_verified_at = Set(Some(now));
            a.mmp_verified_by = Set(Some(by));
        },
        now,
    )
    .await?;
    let detail = serde_json::json!({"revision": revision, "note": req.note});
    actor
        .audit(&txn, now, "campaign.mmp_verified", (SUBJECT, &m.id), detail)
        .await?;
    let v = view(&txn, &m).await?;
    ctx.commit_and_announce(txn, [Change::Offers]).await?;
    Ok(v)
}

/// Administrator review queue: IN_REVIEW campaigns and live ones with a pending revision,
/// oldest first, a page at a time. Chosen in SQL: with thousands of live campaigns the
/// queue is a handful.
pub async fn review_queue(
    ctx: &Ctx,
    actor: &Principal,
    page: &crate::domain::paging::Page,
) -> Result<CampaignList, AppError> {
    use offer_campaign::Column as C;
    use sea_orm::sea_query::{Condition, Expr, ExprTrait};
    use sea_orm::{ColumnTrait, QueryFilter};
    actor.require_admin()?;
    let changed_while_running = Condition::all()
        .add(C::Status.is_in([
            CampaignStatus::Live.as_str(),
            CampaignStatus::Paused.as_str(),
        ]))
        .add(C::LiveRevision.is_not_null())
        .add(Expr::col(C::LiveRevision).lt(Expr::col(C::Revision)));
    let q = offer_campaign::Entity::find().filter(
        Condition::any()
            .add(C::Status.eq(CampaignStatus::InReview.as_str()))
            .add(changed_while_running),
    );
    let rows = page.select_oldest_first(q, C::Id).all(&ctx.db).await?;
    let (rows, next_cursor) = page.finish(rows, |m| &m.id);
    let mut items = Vec::new();
    for m in &rows {
        items.push(view(&ctx.db, m).await?);
    }
    Ok(CampaignList {
        count: items.len(),
        items,
        next_cursor,
    })
}

/// The posting that pays one conversion from the campaign's reserve, exactly once per
/// `dedupe_key`; the postback settlement writes it in its transaction (refused with
/// `insufficient_balance` when the reserve cannot cover it). With `earning`, the
/// publisher's share and the platform's revenue move in the same posting.
pub fn conversion_spend(
    m: &offer_campaign::Model,
    micros: i64,
    dedupe_key: &str,
    earning: Option<&ledger::Earning<'_>>,
) -> Result<ledger::Posting, AppError> {
    if micros <= 0 {
        return Err(AppError::invalid("a conversion payout must be positive"));
    }
    Ok(ledger::Posting {
        kind: ledger::TransactionKind::CampaignSpend,
        owner: m.advertiser_id.clone(),
        reference: (SUBJECT.to_owned(), m.id.clone()),
        dedupe_key: dedupe_key.to_owned(),
        legs: ledger::conversion_legs(
            ledger::PaidFrom::Reserve,
            &m.advertiser_id,
            &m.id,
            micros,
            earning,
        ),
    })
}
