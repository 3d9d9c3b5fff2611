//! Advertiser billing (`/performance-marketing/v2/billing`): profile, balance, fundings.
//! `advertiserId` (query or body) is honoured for administrators only.

pub mod checkout;
pub mod provider_webhook;

use app::domain::billing::{acting_advertiser, funding, invoices, ledger, profile};
use app::domain::surveys::allocations;
use app::error::AppError;
use app::model::billing::*;
use app::model::survey::campaign::{Allocation, AllocationList};
use axum::extract::State;
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::api::ErrorBody;
use crate::extract::{AppJson, AppPath, AppQuery, Authenticated, OptionalJson};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_profile, put_profile))
        .routes(routes!(balance))
        .routes(routes!(fundings))
        .routes(routes!(invoice_list))
        .routes(routes!(ledger_export))
        .routes(routes!(wire_config))
        .routes(routes!(payprovider_config))
        .routes(routes!(wire_funding))
        .routes(routes!(open_order))
        .routes(routes!(capture))
        .routes(routes!(allocate))
        .routes(routes!(allocation_list))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct Select {
    /// The advertiser to act for (administrators only).
    advertiser_id: Option<String>,
}

/// [`Select`] with a page: `limit` 1 to 500 (default 100) and the previous page's `nextCursor`.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
struct PagedSelect {
    /// The advertiser to act for (administrators only).
    advertiser_id: Option<String>,
    /// Rows per page, 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    limit: Option<u64>,
    /// The `nextCursor` of the previous page.
    cursor: Option<String>,
}

/// The billing profile.
#[utoipa::path(get, path = "/billing/profile", tag = "billing", security(("dashboardBearer" = [])), params(Select),
    responses((status = 200, body = BillingProfile), (status = 403, body = ErrorBody)))]
async fn get_profile(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<Select>,
) -> Result<AppJson<BillingProfile>, AppError> {
    profile::get(&s.ctx, &p, q.advertiser_id.as_deref())
        .await
        .map(AppJson)
}

/// Replace the billing profile (accountType, legalName and country are required).
#[utoipa::path(put, path = "/billing/profile", tag = "billing", security(("dashboardBearer" = [])), params(Select), request_body = BillingProfileInput,
    responses((status = 200, body = BillingProfile), (status = 400, body = ErrorBody)))]
async fn put_profile(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<Select>,
    AppJson(b): AppJson<BillingProfileInput>,
) -> Result<AppJson<BillingProfile>, AppError> {
    profile::put(&s.ctx, &p, q.advertiser_id.as_deref(), b)
        .await
        .map(AppJson)
}

/// The shared wallet: available, reserved and spent, in micros and as decimal strings.
#[utoipa::path(get, path = "/billing/balance", tag = "billing", security(("dashboardBearer" = [])), params(Select),
    responses((status = 200, body = Balance), (status = 403, body = ErrorBody)))]
async fn balance(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<Select>,
) -> Result<AppJson<Balance>, AppError> {
    let adv = acting_advertiser(&s.ctx, &p, q.advertiser_id.as_deref()).await?;
    ledger::balance(&s.ctx.db, &adv).await.map(AppJson)
}

/// Funding transactions, newest first, 100 a page by default (`nextCursor` for the next).
#[utoipa::path(get, path = "/billing/funding", tag = "billing", security(("dashboardBearer" = [])), params(PagedSelect),
    responses((status = 200, body = FundingList), (status = 400, body = ErrorBody)))]
async fn fundings(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<PagedSelect>,
) -> Result<AppJson<FundingList>, AppError> {
    let page = app::domain::paging::Page::parse(q.limit, q.cursor.as_deref(), funding::ID_PREFIX)?;
    funding::list(&s.ctx, &p, q.advertiser_id.as_deref(), &page)
        .await
        .map(AppJson)
}

/// Wire instructions and the configured minimum and maximum.
#[utoipa::path(get, path = "/billing/wire/config", tag = "billing", security(("dashboardBearer" = [])), responses((status = 200, body = WireConfig)))]
async fn wire_config(Authenticated(p): Authenticated) -> Result<AppJson<WireConfig>, AppError> {
    p.require_approved_advertiser()?;
    Ok(AppJson(funding::wire_config()))
}

/// Checkout client configuration of the payment provider.
#[utoipa::path(get, path = "/billing/payprovider/config", tag = "billing", security(("dashboardBearer" = [])), responses((status = 200, body = PayProviderConfig)))]
async fn payprovider_config(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
) -> Result<AppJson<PayProviderConfig>, AppError> {
    p.require_approved_advertiser()?;
    Ok(AppJson(funding::payprovider_config(&s.ctx)))
}

/// Announce a wire transfer: 201 AWAITING_REVIEW, no balance change until an administrator
/// credits it. `amount` is integer micros (or a decimal string of USD). Repeating the same
/// request returns the same record; reusing `externalReference` with another amount or
/// currency is 409.
#[utoipa::path(post, path = "/billing/funding/wire", tag = "billing", security(("dashboardBearer" = [])), request_body = WireFundingRequest,
    responses((status = 201, body = Funding), (status = 400, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn wire_funding(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(b): AppJson<WireFundingRequest>,
) -> Result<(StatusCode, AppJson<Funding>), AppError> {
    Ok((
        StatusCode::CREATED,
        AppJson(funding::request_wire(&s.ctx, &p, b).await?),
    ))
}

/// Open a payment-provider order (PENDING funding). The same `idempotencyKey` with the same
/// body returns the same order; with another body it is 409.
#[utoipa::path(post, path = "/billing/funding/payprovider/order", tag = "billing", security(("dashboardBearer" = [])), request_body = PayOrderRequest,
    responses((status = 201, body = PayOrder), (status = 400, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn open_order(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppJson(b): AppJson<PayOrderRequest>,
) -> Result<(StatusCode, AppJson<PayOrder>), AppError> {
    Ok((
        StatusCode::CREATED,
        AppJson(funding::open_order(&s.ctx, &p, b).await?),
    ))
}

/// Capture an approved order: credits the wallet only when the provider reports COMPLETED
/// with the exact amount and currency. Capturing again returns the credited funding.
#[utoipa::path(post, path = "/billing/funding/payprovider/{orderId}/capture", tag = "billing", security(("dashboardBearer" = [])),
    params(("orderId" = String, Path), Select),
    responses((status = 200, body = Funding), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn capture(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(order): AppPath<String>,
    AppQuery(q): AppQuery<Select>,
) -> Result<AppJson<Funding>, AppError> {
    funding::capture(&s.ctx, &p, &order, q.advertiser_id.as_deref())
        .await
        .map(AppJson)
}

/// Every entry of the caller's wallet accounts (available, reserved and spent per campaign)
/// in a date range, oldest first, as CSV (default) or JSON: the balance before the range
/// first, then the entries, then the balance at its end (opening + lines = closing, to the
/// micro; the lines of one account add up to that balance). Up to 10,000 lines a page; the
/// next page's cursor in `X-Next-Cursor`.
#[utoipa::path(get, path = "/billing/ledger/export", tag = "billing", security(("dashboardBearer" = [])), params(Select, LedgerExportQuery),
    responses((status = 200, description = "The export: CSV (format=csv, the default) or JSON (format=json)", content((String = "text/csv"), (LedgerExport = "application/json"))),
        (status = 400, body = ErrorBody), (status = 403, body = ErrorBody)))]
async fn ledger_export(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(a): AppQuery<Select>,
    AppQuery(q): AppQuery<LedgerExportQuery>,
) -> Result<axum::response::Response, AppError> {
    let csv = crate::api::csv::wants_csv(q.format.as_deref(), true)?;
    let e = app::domain::billing::ledger_export(&s.ctx, &p, a.advertiser_id.as_deref(), &q).await?;
    Ok(crate::api::csv::answer(e, csv, "wallet-ledger.csv"))
}

/// The dashboard's download of the wallet ledger (`/advertiser/billing/ledger.csv`, the
/// cookie session): the same export as the API, one page of up to 10,000 lines.
pub async fn browser_ledger_csv(
    State(s): State<AppState>,
    session: tower_sessions::Session,
    AppQuery(q): AppQuery<LedgerExportQuery>,
) -> Result<axum::response::Response, AppError> {
    let p = app::auth::require_principal(&s.ctx, &session).await?;
    let e = app::domain::billing::ledger_export(&s.ctx, &p, None, &q).await?;
    Ok(crate::api::csv::download(
        e.to_csv(),
        "wallet-ledger.csv",
        e.next_cursor.as_deref(),
    ))
}

/// Up to 100 newest monthly invoices, built from the ledger (credited fundings and spend per
/// campaign); the current month is OPEN, earlier months ISSUED.
#[utoipa::path(get, path = "/billing/invoices", tag = "billing", security(("dashboardBearer" = [])), params(Select),
    responses((status = 200, body = InvoiceList)))]
async fn invoice_list(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<Select>,
) -> Result<AppJson<InvoiceList>, AppError> {
    invoices::list(&s.ctx, &p, q.advertiser_id.as_deref())
        .await
        .map(AppJson)
}

/// Pay a survey campaign from the wallet: its estimated cost (cpi × the quotas' num_respondents,
/// or × total_completes when set; docs/surveys.md) is
/// reserved. Owner only (administrators may name `advertiserId`); DRAFT or PENDINGAPPROVAL;
/// idempotent per campaign (a repeat is 200 with the first allocation). 409:
/// `insufficient_balance`, `campaign_not_eligible`, `estimated_cost_not_positive`,
/// `paid_outside_wallet`.
#[utoipa::path(post, path = "/billing/survey-campaigns/{campaignId}/allocate", tag = "billing", security(("dashboardBearer" = [])),
    params(("campaignId" = String, Path), Select), request_body(content = AdvertiserSelector, description = "optional"),
    responses((status = 201, body = Allocation), (status = 200, body = Allocation, description = "already allocated"), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
async fn allocate(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppPath(campaign): AppPath<String>,
    AppQuery(q): AppQuery<Select>,
    OptionalJson(b): OptionalJson<AdvertiserSelector>,
) -> Result<(StatusCode, AppJson<Allocation>), AppError> {
    let selected = q.advertiser_id.or(b.advertiser_id);
    let (a, created) = allocations::allocate(&s.ctx, &p, &campaign, selected.as_deref()).await?;
    Ok(crate::extract::created_or_ok(a, created))
}

/// Survey campaign allocations, newest first, 100 a page by default (`nextCursor` for the next).
#[utoipa::path(get, path = "/billing/allocations", tag = "billing", security(("dashboardBearer" = [])), params(PagedSelect),
    responses((status = 200, body = AllocationList), (status = 400, body = ErrorBody)))]
async fn allocation_list(
    State(s): State<AppState>,
    Authenticated(p): Authenticated,
    AppQuery(q): AppQuery<PagedSelect>,
) -> Result<AppJson<AllocationList>, AppError> {
    let page =
        app::domain::paging::Page::parse(q.limit, q.cursor.as_deref(), allocations::ID_PREFIX)?;
    allocations::list(&s.ctx, &p, q.advertiser_id.as_deref(), &page)
        .await
        .map(AppJson)
}
