//! Fundings. Wire: the advertiser announces a transfer (AWAITING_REVIEW, no money yet); an
//! administrator who sees it arrive credits it exactly once. Payment provider: see
//! [`orders`].

mod orders;
mod provider_events;
mod returns;

use orders::approve_link;
pub use orders::{capture, checkout_url, open_order};
pub use provider_events::receive as receive_provider_event;
pub use returns::{owed_under_lock, pay_debt_from_wallet};

use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};

use super::{
    CURRENCY, FUNDING_MAXIMUM_MICROS, PAYPROVIDER_MINIMUM_MICROS, WIRE_MINIMUM_MICROS,
    acting_advertiser, check_currency, ledger, profile,
};
use crate::domain::notices::{self, Notice};
use crate::domain::paging::Page;
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::NoticeTopic;
use crate::model::billing::*;
use crate::model::money::Micros;
use crate::model::money::format_micros;
use entity::funding;

/// A new funding row; the caller sets the method-specific reference.
fn new_funding(
    id: &str,
    advertiser: &str,
    method: &str,
    status: FundingStatus,
    micros: i64,
    currency: String,
    now: chrono::DateTime<chrono::Utc>,
) -> funding::ActiveModel {
    funding::ActiveModel {
        id: Set(id.to_owned()),
        advertiser_id: Set(advertiser.to_owned()),
        method: Set(method.to_owned()),
        status: Set(status),
        amount_micros: Set(micros),
        currency: Set(currency),
        external_reference: Set(None),
        idempotency_key: Set(None),
        provider_order_id: Set(None),
        provider_capture_id: Set(None),
        returned_micros: Set(0),
        reviewed_by: Set(None),
        ledger_transaction_id: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
        credited_at: Set(None),
    }
}

fn check_amount(errs: &mut FieldErrors, micros: i64, minimum: i64) {
    if micros <= 0 {
        errs.add("amount", "must be positive");
    } else if micros > FUNDING_MAXIMUM_MICROS {
        errs.add(
            "amount",
            format!(
                "must be at most {}",
                Micros(FUNDING_MAXIMUM_MICROS).money(CURRENCY)
            ),
        );
    } else if micros < minimum {
        errs.add(
            "amount",
            format!("must be at least {}", Micros(minimum).money(CURRENCY)),
        );
    }
}

/// Records an announced wire transfer. Repeating the same request returns the same record;
/// reusing the reference with another amount or currency is refused.
pub async fn request_wire(
    ctx: &Ctx,
    actor: &Principal,
    req: WireFundingRequest,
) -> Result<Funding, AppError> {
    let adv = acting_advertiser(ctx, actor, req.advertiser_id.as_deref()).await?;
    let mut errs = FieldErrors::new();
    check_amount(&mut errs, req.amount.0, WIRE_MINIMUM_MICROS);
    let currency = errs.check("currency", check_currency(&req.currency));
    let reference = req.external_reference.trim().to_owned();
    let n = reference.chars().count();
    if !(3..=120).contains(&n) || reference.chars().any(char::is_control) {
        errs.add("externalReference", "must be 3 to 120 characters");
    }
    errs.finish()?;
    let currency = currency.unwrap_or_else(|| CURRENCY.to_owned());
    profile::require_complete(&ctx.db, &adv).await?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let existing = funding::Entity::find()
        .filter(funding::Column::AdvertiserId.eq(adv.clone()))
        .filter(funding::Column::ExternalReference.eq(reference.clone()))
        .one(&txn)
        .await?;
    if let Some(f) = existing {
        if f.amount_micros == req.amount.0 && f.currency == currency {
            return Ok(view(ctx, &f));
        }
        return Err(AppError::conflict(
            "this external reference was already used with another amount or currency",
        )
        .with_code("reference_reused"));
    }
    let id = new_id(ID_PREFIX);
    let mut row = new_funding(
        &id,
        &adv,
        "WIRE",
        FundingStatus::AwaitingReview,
        req.amount.0,
        currency,
        now,
    );
    row.external_reference = Set(Some(reference));
    let row = row
        .insert(&txn)
        .await
        .map_err(|e| db::conflict_on_unique(e, "this external reference is already in use"))?;
    let detail = serde_json::json!({"amountMicros": row.amount_micros});
    actor
        .audit(&txn, now, "funding.wire_request", ("funding", &id), detail)
        .await?;
    txn.commit().await?;
    Ok(view(ctx, &row))
}

/// Credits a funding to the wallet, exactly once: the status moves to CREDITED by a guarded
/// update and the ledger posting carries the funding id as its dedupe key, in one transaction
/// with the mail that tells the advertiser.
async fn credit<C: ConnectionTrait>(
    ctx: &Ctx,
    db: &C,
    f: &funding::Model,
    from_status: FundingStatus,
    reviewer: Option<&str>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<bool, AppError> {
    let claimed = funding::Entity::update_many()
        .col_expr(
            funding::Column::Status,
            Expr::value(FundingStatus::Credited),
        )
        .col_expr(funding::Column::CreditedAt, Expr::value(Some(now)))
        .col_expr(funding::Column::UpdatedAt, Expr::value(now))
        .col_expr(
            funding::Column::ReviewedBy,
            Expr::value(reviewer.map(str::to_owned)),
        )
        .filter(funding::Column::Id.eq(f.id.clone()))
        .filter(funding::Column::Status.eq(from_status))
        .exec(db)
        .await?;
    if claimed.rows_affected == 0 {
        return Ok(false);
    }
    // What a refund or chargeback left owed is paid first, under the advertiser's lock so
    // two fundings at once never both pay the same debt.
    let owed = returns::owed_under_lock(db, &f.advertiser_id).await?;
    let paying = owed.min(f.amount_micros);
    let tx = ledger::post(
        db,
        now,
        ledger::TransactionKind::FundingCredit,
        &f.advertiser_id,
        ("funding", &f.id),
        &format!("funding_credit:{}", f.id),
        &ledger::funding_paying_owed_legs(&f.advertiser_id, f.amount_micros, paying),
    )
    .await?;
    funding::Entity::update_many()
        .col_expr(funding::Column::LedgerTransactionId, Expr::value(Some(tx)))
        .filter(funding::Column::Id.eq(f.id.clone()))
        .exec(db)
        .await?;
    let amount = format_micros(f.amount_micros);
    let body = if paying > 0 {
        format!(
            "Your funding {} of {amount} USD was credited: {} USD paid what was owed after a \
             refund or chargeback and {} USD reached your wallet.",
            f.id,
            format_micros(paying),
            format_micros(f.amount_micros - paying)
        )
    } else {
        format!(
            "Your funding {} of {amount} USD was credited to your wallet and can be spent now.",
            f.id
        )
    };
    let told = Notice::new(
        NoticeTopic::FundingCredited,
        format!("{amount} USD credited to your wallet"),
        body,
    )
    .about("funding", &f.id, "/advertiser/billing");
    notices::tell(ctx, db, now, &f.advertiser_id, told).await?;
    Ok(true)
}

/// Administrator: the wire arrived; credit it.
pub async fn approve_wire(
    ctx: &Ctx,
    actor: &Principal,
    funding_id: &str,
) -> Result<Funding, AppError> {
    actor.require_admin()?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let f = funding::Entity::find_by_id(funding_id.to_owned())
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("funding"))?;
    if FundingMethod::parse(&f.method) != Some(FundingMethod::Wire)
        || !credit(
            ctx,
            &txn,
            &f,
            FundingStatus::AwaitingReview,
            Some(&actor.person_id),
            now,
        )
        .await?
    {
        return Err(AppError::conflict(format!(
            "only AWAITING_REVIEW wire fundings are credited; this one is {}",
            f.status
        )));
    }
    let detail = serde_json::json!({"amountMicros": f.amount_micros});
    actor
        .audit(
            &txn,
            now,
            "funding.approve",
            ("funding", funding_id),
            detail,
        )
        .await?;
    txn.commit().await?;
    load_view(ctx, funding_id).await
}

/// The prefix of funding ids, which the list's cursors are.
pub const ID_PREFIX: &str = "fnd";

/// One page of the advertiser's fundings, newest first.
pub async fn list(
    ctx: &Ctx,
    actor: &Principal,
    selected: Option<&str>,
    page: &Page,
) -> Result<FundingList, AppError> {
    let adv = acting_advertiser(ctx, actor, selected).await?;
    let q = funding::Entity::find().filter(funding::Column::AdvertiserId.eq(adv));
    let rows = page.select(q, funding::Column::Id).all(&ctx.db).await?;
    let (rows, next_cursor) = page.finish(rows, |f| &f.id);
    Ok(FundingList {
        items: rows.iter().map(|f| view(ctx, f)).collect(),
        next_cursor,
    })
}

/// Administrator: wire fundings awaiting review, oldest first.
pub async fn review_queue(
    ctx: &Ctx,
    actor: &Principal,
    page: &Page,
) -> Result<FundingList, AppError> {
    actor.require_admin()?;
    let q =
        funding::Entity::find().filter(funding::Column::Status.eq(FundingStatus::AwaitingReview));
    let rows = page
        .select_oldest_first(q, funding::Column::Id)
        .all(&ctx.db)
        .await?;
    let (rows, next_cursor) = page.finish(rows, |f| &f.id);
    Ok(FundingList {
        items: rows.iter().map(|f| view(ctx, f)).collect(),
        next_cursor,
    })
}

/// Wire instructions and limits.
pub fn wire_config() -> WireConfig {
    WireConfig {
        currency: CURRENCY.to_owned(),
        minimum_micros: Micros(WIRE_MINIMUM_MICROS),
        minimum: format_micros(WIRE_MINIMUM_MICROS),
        maximum_micros: Micros(FUNDING_MAXIMUM_MICROS),
        maximum: format_micros(FUNDING_MAXIMUM_MICROS),
        beneficiary: "Marketplace Payments Ltd".to_owned(),
        bank_name: "Example Commercial Bank".to_owned(),
        iban: "GB00EXAM00000000000000".to_owned(),
        bic: "EXAMGB2L".to_owned(),
        reference_instructions: "Announce the transfer with POST /billing/funding/wire using the same externalReference you put on the bank transfer; it is credited once the transfer arrives.".to_owned(),
    }
}

/// Checkout client configuration.
pub fn payprovider_config(ctx: &Ctx) -> PayProviderConfig {
    let client = ctx.payments.checkout_client();
    PayProviderConfig {
        provider: ctx.payments.code(),
        client_id: (client.as_ref())
            .map_or_else(|| "dev-client".to_owned(), |c| c.client_id.clone()),
        currency: CURRENCY.to_owned(),
        minimum_micros: Micros(PAYPROVIDER_MINIMUM_MICROS),
        minimum: format_micros(PAYPROVIDER_MINIMUM_MICROS),
        maximum_micros: Micros(FUNDING_MAXIMUM_MICROS),
        maximum: format_micros(FUNDING_MAXIMUM_MICROS),
        environment: (client.and_then(|c| c.environment))
            .unwrap_or_else(|| ctx.config.environment.as_str().to_owned()),
    }
}

async fn load_view(ctx: &Ctx, id: &str) -> Result<Funding, AppError> {
    funding::Entity::find_by_id(id.to_owned())
        .one(&ctx.db)
        .await?
        .map(|f| view(ctx, &f))
        .ok_or_else(|| AppError::not_found("funding"))
}

fn view(ctx: &Ctx, f: &funding::Model) -> Funding {
    let open_order = is_open_order(&f.method, f.status)
        .then_some(f.provider_order_id.as_deref())
        .flatten();
    Funding {
        checkout_url: open_order.map(|o| approve_link(ctx, o)),
        funding_id: f.id.clone(),
        advertiser_id: f.advertiser_id.clone(),
        method: f.method.clone(),
        status: f.status,
        amount_micros: Micros(f.amount_micros),
        amount: format_micros(f.amount_micros),
        currency: f.currency.clone(),
        external_reference: f.external_reference.clone(),
        provider_order_id: f.provider_order_id.clone(),
        returned_micros: Micros(f.returned_micros),
        returned: format_micros(f.returned_micros),
        created_at: f.created_at,
        credited_at: f.credited_at,
    }
}
