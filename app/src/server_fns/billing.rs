//! The advertiser wallet from the dashboard: balance, billing profile, invoices, wire and
//! payment-provider funding. Form posts arrive form-urlencoded, so amounts come in as
//! decimal USD text and lists as comma-separated text; they are parsed here into the
//! model's input types and every rule stays in `domain::billing`.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::model::billing::*;

/// What the billing page shows: the wallet, the profile, the invoices and the provider
/// payments that still wait for their capture.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BillingSummary {
    pub balance: Balance,
    pub profile: BillingProfile,
    pub invoices: Vec<Invoice>,
    pub allocations: Vec<crate::model::survey::campaign::Allocation>,
    /// The cursor of the next (older) page of allocations.
    pub allocations_next: Option<String>,
    pub awaiting_capture: Vec<Funding>,
}

/// What the funding page shows. `order_key` is a fresh idempotency key for the next
/// payment-provider order: a form submitted twice opens one order, not two.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FundingSummary {
    pub balance: Balance,
    pub profile_complete: bool,
    pub wire: WireConfig,
    pub payprovider: PayProviderConfig,
    pub fundings: Vec<Funding>,
    /// The cursor of the next (older) page of the funding history.
    pub fundings_next: Option<String>,
    pub order_key: String,
}

/// A wire funding awaiting review, with the advertiser it came from.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WireReview {
    pub funding: Funding,
    pub company_name: String,
    pub email: String,
}

/// Provider fundings whose order is open: the payer may have approved them already.
pub fn awaiting_capture(fundings: &[Funding]) -> Vec<Funding> {
    fundings
        .iter()
        .filter(|f| f.is_open_order())
        .filter(|f| f.provider_order_id.is_some())
        .cloned()
        .collect()
}

#[cfg(feature = "ssr")]
mod support {
    use crate::error::AppError;

    pub use super::super::web::{plain_form_post, reader, writer};
    pub use crate::server_fns::fields::text;

    /// A decimal USD amount from a form field, in micros.
    pub fn amount(raw: &str) -> Result<crate::model::money::Amount, AppError> {
        crate::server_fns::fields::usd(raw)
            .map(crate::model::money::Amount)
            .map_err(|why| AppError::field("amount", why))
    }
}

/// Balance, profile, invoices, a page of survey allocations (50, after `cursor`) and the
/// provider payments awaiting capture.
#[server(prefix = "/fn", endpoint = "billing_overview")]
pub async fn billing_overview(cursor: Option<String>) -> Result<BillingSummary, AppError> {
    super::web::run(async move {
        use crate::domain::billing::{acting_advertiser, funding, invoices, ledger, profile};
        use crate::domain::paging::Page;
        use crate::domain::surveys::allocations;
        let (ctx, p) = support::reader().await?;
        let adv = acting_advertiser(&ctx, &p, None).await?;
        let balance = ledger::balance(&ctx.db, &adv).await?;
        let profile = profile::get(&ctx, &p, None).await?;
        let invoices = invoices::list(&ctx, &p, None).await?.items;
        let page = Page::parse(Some(50), cursor.as_deref(), allocations::ID_PREFIX)?;
        let allocations = allocations::list(&ctx, &p, None, &page).await?;
        // An open order is minutes old: the newest page of fundings holds every one that
        // can still be captured.
        let fundings = funding::list(&ctx, &p, None, &Page::default()).await?.items;
        Ok(BillingSummary {
            balance,
            profile,
            invoices,
            allocations: allocations.items,
            allocations_next: allocations.next_cursor,
            awaiting_capture: awaiting_capture(&fundings),
        })
    })
    .await
}

/// Replaces the billing profile. `billing_emails` is comma-separated.
#[server(prefix = "/fn", endpoint = "billing_save_profile")]
#[allow(clippy::too_many_arguments)]
pub async fn save_billing_profile(
    account_type: Option<String>,
    legal_name: Option<String>,
    country: Option<String>,
    tax_id: Option<String>,
    address_line1: Option<String>,
    city: Option<String>,
    postal_code: Option<String>,
    billing_emails: Option<String>,
    csrf: String,
) -> Result<BillingProfile, AppError> {
    super::web::run(async move {
        use support::text;
        let (ctx, _, p) = support::writer(&csrf).await?;
        // A form select: text until parsed; the profile's rules stay in the domain.
        let account_type = text(account_type)
            .map(|t| {
                AccountType::parse(&t)
                    .ok_or_else(|| AppError::field("accountType", "must be BUSINESS or INDIVIDUAL"))
            })
            .transpose()?;
        let input = BillingProfileInput {
            account_type,
            legal_name,
            country,
            tax_id,
            address_line1,
            city,
            postal_code,
            billing_emails: billing_emails
                .unwrap_or_default()
                .split(',')
                .map(|e| e.trim().to_owned())
                .filter(|e| !e.is_empty())
                .collect(),
        };
        crate::domain::billing::profile::put(&ctx, &p, None, input).await
    })
    .await
}

/// Balance, wire instructions, provider configuration and a page of the funding history
/// (50, after `cursor`).
#[server(prefix = "/fn", endpoint = "billing_funding_overview")]
pub async fn funding_overview(cursor: Option<String>) -> Result<FundingSummary, AppError> {
    super::web::run(async move {
        use crate::domain::billing::{acting_advertiser, funding, ledger, profile};
        use crate::domain::paging::Page;
        let (ctx, p) = support::reader().await?;
        let adv = acting_advertiser(&ctx, &p, None).await?;
        let page = Page::parse(Some(50), cursor.as_deref(), funding::ID_PREFIX)?;
        let fundings = funding::list(&ctx, &p, None, &page).await?;
        Ok(FundingSummary {
            balance: ledger::balance(&ctx.db, &adv).await?,
            profile_complete: profile::get(&ctx, &p, None).await?.complete,
            wire: funding::wire_config(),
            payprovider: funding::payprovider_config(&ctx),
            fundings: fundings.items,
            fundings_next: fundings.next_cursor,
            order_key: crate::domain::crypto::random_token("dash"),
        })
    })
    .await
}

/// Announces a wire transfer (AWAITING_REVIEW until an administrator credits it).
/// `amount` is decimal USD.
#[server(prefix = "/fn", endpoint = "billing_request_wire")]
pub async fn request_wire_funding(
    amount: String,
    external_reference: String,
    csrf: String,
) -> Result<Funding, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let req = WireFundingRequest {
            amount: support::amount(&amount)?,
            currency: crate::domain::billing::CURRENCY.to_owned(),
            external_reference,
            advertiser_id: None,
        };
        crate::domain::billing::funding::request_wire(&ctx, &p, req).await
    })
    .await
}

/// Opens a payment-provider order and sends the payer to the provider's checkout: a plain
/// form post is redirected there; a scripted page navigates to `approveUrl` itself.
/// `idempotency_key` comes from the page (one per rendered form); empty means a new one.
#[server(prefix = "/fn", endpoint = "billing_open_order")]
pub async fn open_payment_order(
    amount: String,
    idempotency_key: Option<String>,
    csrf: String,
) -> Result<PayOrder, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let key = support::text(idempotency_key)
            .unwrap_or_else(|| crate::domain::crypto::random_token("dash"));
        let req = PayOrderRequest {
            amount: support::amount(&amount)?,
            currency: crate::domain::billing::CURRENCY.to_owned(),
            idempotency_key: key,
            advertiser_id: None,
        };
        let order = crate::domain::billing::funding::open_order(&ctx, &p, req).await?;
        if support::plain_form_post() {
            leptos_axum::redirect(&order.approve_url);
        }
        Ok(order)
    })
    .await
}

/// Captures an approved provider order and credits the wallet (idempotent).
#[server(prefix = "/fn", endpoint = "billing_capture")]
pub async fn capture_payment(order_id: String, csrf: String) -> Result<Funding, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        crate::domain::billing::funding::capture(&ctx, &p, order_id.trim(), None).await
    })
    .await
}

// ---- administrator review ---------------------------------------------------------------

/// Wire fundings awaiting review, oldest first, with their advertiser.
#[server(prefix = "/fn", endpoint = "admin_funding_queue")]
pub async fn funding_review_queue() -> Result<Vec<WireReview>, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        let page = crate::domain::paging::Page::default();
        let queue = crate::domain::billing::funding::review_queue(&ctx, &p, &page).await?;
        let mut out = Vec::with_capacity(queue.items.len());
        for f in queue.items {
            let (company_name, email) =
                match crate::domain::accounts::get(&ctx, &f.advertiser_id).await {
                    Ok(a) => (a.company_name, a.email),
                    Err(_) => (String::new(), String::new()),
                };
            out.push(WireReview {
                funding: f,
                company_name,
                email,
            });
        }
        Ok(out)
    })
    .await
}

/// The wire arrived: credit it.
#[server(prefix = "/fn", endpoint = "admin_approve_funding")]
pub async fn approve_wire_funding(funding_id: String, csrf: String) -> Result<Funding, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        crate::domain::billing::funding::approve_wire(&ctx, &p, funding_id.trim()).await
    })
    .await
}
