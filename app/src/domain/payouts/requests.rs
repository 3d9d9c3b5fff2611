//! A publisher's payouts: requesting one (also what a monthly run does for it), cancelling
//! it before approval, and reading them.

use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};

use super::{
    ID_PREFIX, PayoutStatus, SUBJECT, Transition, profile, seal_binding, transition, view,
};
use crate::domain::billing::{CURRENCY, ledger};
use crate::domain::earnings::terms;
use crate::domain::idempotency::IdempotencyKey;
use crate::domain::paging::Page;
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::AppError;
use crate::model::publisher::payouts::{Payout, PayoutList, PayoutRequestInput};
use entity::payout;

/// Who asked for a payout.
pub(super) struct Origin<'a> {
    pub requested_by: &'a str,
    pub run_id: Option<&'a str>,
    pub key: Option<&'a str>,
}

/// Why a payout could not be created.
pub(super) enum NotCreated {
    /// The same idempotency key (or the same run) created one before: that one.
    Replay(payout::Model),
    Refused(AppError),
}

impl From<AppError> for NotCreated {
    fn from(e: AppError) -> Self {
        NotCreated::Refused(e)
    }
}

impl From<sea_orm::DbErr> for NotCreated {
    fn from(e: sea_orm::DbErr) -> Self {
        NotCreated::Refused(e.into())
    }
}

/// Creates a REQUESTED payout of `amount` and holds the money, in one transaction.
pub(super) async fn create(
    ctx: &Ctx,
    now: DateTime<Utc>,
    publisher_id: &str,
    amount: i64,
    origin: Origin<'_>,
) -> Result<payout::Model, NotCreated> {
    let profile = profile::find(&ctx.db, publisher_id).await?.ok_or_else(|| {
        AppError::conflict("set the payout profile before requesting a payout")
            .with_code("payout_profile_incomplete")
    })?;
    let minimum = terms::of(&ctx.db, publisher_id, now)
        .await?
        .minimum_payout_micros;
    if amount < minimum.get() {
        return Err(AppError::conflict(format!(
            "a payout must be at least {} USD",
            minimum.in_decimals(2)
        ))
        .with_code("below_minimum_payout")
        .into());
    }
    let details = ctx.keys.open(
        &profile::seal_binding(publisher_id),
        &profile.details_sealed,
    )?;
    let id = new_id(ID_PREFIX);
    let row = payout::ActiveModel {
        id: Set(id.clone()),
        publisher_id: Set(publisher_id.to_owned()),
        run_id: Set(origin.run_id.map(str::to_owned)),
        status: Set(PayoutStatus::Requested),
        amount_micros: Set(amount),
        currency: Set(CURRENCY.to_owned()),
        legal_name: Set(profile.legal_name.clone()),
        country: Set(profile.country.clone()),
        method: Set(profile.method.clone()),
        details_sealed: Set(ctx.keys.seal(&seal_binding(&id), &details)?),
        details_hint: Set(profile.details_hint.clone()),
        idempotency_key: Set(origin.key.map(str::to_owned)),
        external_reference: Set(None),
        reason: Set(None),
        requested_by: Set(origin.requested_by.to_owned()),
        decided_by: Set(None),
        first_approved_by: Set(None),
        first_approved_at: Set(None),
        batch_id: Set(None),
        provider_item_id: Set(None),
        created_at: Set(now),
        approved_at: Set(None),
        paid_at: Set(None),
        closed_at: Set(None),
        updated_at: Set(now),
    };
    let txn = db::begin(&ctx.db).await?;
    if let Err(e) = payout::Entity::insert(row)
        .exec_without_returning(&txn)
        .await
    {
        txn.rollback().await?;
        if !db::is_unique_violation(&e) {
            return Err(NotCreated::Refused(e.into()));
        }
        return Err(match prior(&ctx.db, publisher_id, &origin).await? {
            Some(p) => NotCreated::Replay(p),
            None => NotCreated::Refused(open_refusal()),
        });
    }
    let legs = ledger::payout_hold_legs(publisher_id, &id, amount);
    let hold = format!("payout_hold:{id}");
    match ledger::post(
        &txn,
        now,
        ledger::TransactionKind::PayoutHold,
        publisher_id,
        (SUBJECT, &id),
        &hold,
        &legs,
    )
    .await
    {
        Ok(_) => {}
        Err(ledger::PostError::Insufficient) => {
            txn.rollback().await?;
            return Err(
                AppError::conflict("the available earnings do not cover the payout")
                    .with_code("insufficient_balance")
                    .into(),
            );
        }
        Err(e) => return Err(NotCreated::Refused(e.into())),
    }
    let detail = serde_json::json!({"amountMicros": amount, "runId": origin.run_id});
    crate::domain::audit::record(
        &txn,
        now,
        Some(origin.requested_by),
        "payout.requested",
        (SUBJECT, &id),
        detail,
    )
    .await?;
    txn.commit().await?;
    Ok(payout::Entity::find_by_id(id)
        .one(&ctx.db)
        .await?
        .ok_or_else(AppError::internal)?)
}

fn open_refusal() -> AppError {
    AppError::conflict("a payout is already open; wait until it is paid or cancel it")
        .with_code("payout_open")
}

/// The payout an earlier request with the same key, or the same run, created.
async fn prior<C: ConnectionTrait>(
    db: &C,
    publisher_id: &str,
    origin: &Origin<'_>,
) -> Result<Option<payout::Model>, AppError> {
    let q = payout::Entity::find().filter(payout::Column::PublisherId.eq(publisher_id.to_owned()));
    let q = match (origin.key, origin.run_id) {
        (Some(k), _) => q.filter(payout::Column::IdempotencyKey.eq(k.to_owned())),
        (None, Some(r)) => q.filter(payout::Column::RunId.eq(r.to_owned())),
        (None, None) => return Ok(None),
    };
    Ok(q.one(db).await?)
}

/// `POST /publisher/v2/payouts` (`Idempotency-Key` required): answers the payout and whether
/// it is new. A retry with the same key answers the first payout; with another amount, 409.
/// An account with a second factor confirms with a code (`second_factor`) first.
pub async fn request(
    ctx: &Ctx,
    actor: &Principal,
    key: IdempotencyKey,
    input: PayoutRequestInput,
    second_factor: Option<&str>,
) -> Result<(Payout, bool), AppError> {
    actor.require_publisher()?;
    crate::domain::accounts::second_factor::step_up(ctx, actor, second_factor).await?;
    let publisher = actor.account_id.clone();
    let origin = Origin {
        requested_by: &publisher,
        run_id: None,
        key: Some(key.as_str()),
    };
    let replay = |p: payout::Model| {
        if input
            .amount_micros
            .is_some_and(|a| a.get() != p.amount_micros)
        {
            return Err(
                AppError::conflict("this idempotency key was used for another payout")
                    .with_code("idempotency_key_reused"),
            );
        }
        Ok((view(&p), false))
    };
    if let Some(p) = prior(&ctx.db, &publisher, &origin).await? {
        return replay(p);
    }
    // Said first: "below the minimum" would mislead while the balance is held for it.
    let open = payout::Entity::find()
        .filter(payout::Column::PublisherId.eq(publisher.clone()))
        .filter(payout::Column::Status.is_in([
            PayoutStatus::Requested.as_str(),
            PayoutStatus::Approved.as_str(),
        ]))
        .one(&ctx.db)
        .await?;
    match open {
        // A copy of this request that won a race a moment ago: answered like a retry.
        Some(p) if p.idempotency_key.as_deref() == origin.key => return replay(p),
        Some(_) => return Err(open_refusal()),
        None => {}
    }
    let amount = match input.amount_micros {
        Some(a) if a.get() <= 0 => return Err(AppError::field("amountMicros", "must be positive")),
        Some(a) => a.get(),
        None => {
            ledger::account_balance(&ctx.db, &publisher, ledger::Kind::PublisherAvailable, "")
                .await?
        }
    };
    match create(ctx, ctx.now(), &publisher, amount, origin).await {
        Ok(p) => Ok((view(&p), true)),
        Err(NotCreated::Replay(p)) => replay(p),
        Err(NotCreated::Refused(e)) => Err(e),
    }
}

/// `POST /publisher/v2/payouts/{id}/cancel`: the publisher takes back a payout not yet
/// approved.
pub async fn cancel(ctx: &Ctx, actor: &Principal, id: &str) -> Result<Payout, AppError> {
    actor.require_publisher()?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let saved = transition(
        &txn,
        now,
        Some(actor),
        id,
        |p| Transition {
            from: &[PayoutStatus::Requested],
            to: PayoutStatus::Cancelled,
            posting: Some((
                ledger::TransactionKind::PayoutReturn,
                ledger::payout_return_legs(&p.publisher_id, &p.id, p.amount_micros, false),
            )),
            action: "payout.cancelled",
            detail: serde_json::json!({}),
        },
        |a| a.closed_at = Set(Some(now)),
    )
    .await?;
    txn.commit().await?;
    Ok(view(&saved))
}

/// `GET /publisher/v2/payouts`: the caller's payouts, newest first.
pub async fn list(ctx: &Ctx, actor: &Principal, page: Page) -> Result<PayoutList, AppError> {
    actor.require_publisher()?;
    let q = payout::Entity::find().filter(payout::Column::PublisherId.eq(actor.account_id.clone()));
    let rows = page.select(q, payout::Column::Id).all(&ctx.db).await?;
    let (rows, next_cursor) = page.finish(rows, |p| &p.id);
    Ok(PayoutList {
        items: rows.iter().map(view).collect(),
        next_cursor,
    })
}

/// `GET /publisher/v2/payouts/{id}` (administrators see every payout).
pub async fn get(ctx: &Ctx, actor: &Principal, id: &str) -> Result<Payout, AppError> {
    let p = payout::Entity::find_by_id(id.to_owned())
        .one(&ctx.db)
        .await?
        .ok_or_else(|| AppError::not_found("payout"))?;
    actor.require_owner(&p.publisher_id, "payout")?;
    Ok(view(&p))
}
