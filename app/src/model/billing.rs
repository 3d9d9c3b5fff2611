//! Advertiser billing wire types: profile, balance, fundings and their configuration.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::money::Amount;
use crate::model::money::Micros;

/// BUSINESS or INDIVIDUAL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AccountType {
    Business,
    Individual,
}

impl AccountType {
    pub fn as_str(self) -> &'static str {
        match self {
            AccountType::Business => "BUSINESS",
            AccountType::Individual => "INDIVIDUAL",
        }
    }

    /// Either spelling of case (form fields arrive as typed).
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_uppercase().as_str() {
            "BUSINESS" => Some(AccountType::Business),
            "INDIVIDUAL" => Some(AccountType::Individual),
            _ => None,
        }
    }
}

wire_enum!(
    /// How a funding arrives.
    FundingMethod { Wire = "WIRE", PayProvider = "PAYPROVIDER" }
);
wire_enum!(
    /// Where a funding stands: a wire awaits the administrator's review, a provider order
    /// is open (PENDING) until captured; both end CREDITED or DECLINED.
    FundingStatus {
        AwaitingReview = "AWAITING_REVIEW", Pending = "PENDING", Credited = "CREDITED",
        Declined = "DECLINED"
    }
);

/// Whether a funding is a provider order still open (the payer may approve it).
pub fn is_open_order(method: &str, status: &str) -> bool {
    FundingMethod::parse(method) == Some(FundingMethod::PayProvider)
        && FundingStatus::parse(status) == Some(FundingStatus::Pending)
}

/// The billing profile; `complete` says whether funding is possible (legal name and country).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct BillingProfile {
    pub advertiser_id: String,
    pub account_type: Option<AccountType>,
    pub legal_name: Option<String>,
    pub country: Option<String>,
    pub tax_id: Option<String>,
    pub address_line1: Option<String>,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    pub billing_emails: Vec<String>,
    pub complete: bool,
    pub updated_at: Option<DateTime<Utc>>,
}

/// `PUT /billing/profile`: the whole profile.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct BillingProfileInput {
    pub account_type: Option<AccountType>,
    pub legal_name: Option<String>,
    pub country: Option<String>,
    pub tax_id: Option<String>,
    pub address_line1: Option<String>,
    pub city: Option<String>,
    pub postal_code: Option<String>,
    #[serde(default)]
    pub billing_emails: Vec<String>,
}

/// The shared wallet: micros and display strings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Balance {
    pub advertiser_id: String,
    pub currency: String,
    pub available_micros: Micros,
    pub available: String,
    pub reserved_micros: Micros,
    pub reserved: String,
    pub spent_micros: Micros,
    pub spent: String,
}

/// A funding record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Funding {
    pub funding_id: String,
    pub advertiser_id: String,
    /// WIRE or PAYPROVIDER.
    pub method: String,
    /// AWAITING_REVIEW (wire), PENDING (provider order open), CREDITED, DECLINED.
    pub status: String,
    pub amount_micros: Micros,
    pub amount: String,
    pub currency: String,
    pub external_reference: Option<String>,
    pub provider_order_id: Option<String>,
    /// The signed checkout link of an open provider order (development provider).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkout_url: Option<String>,
    pub created_at: DateTime<Utc>,
    pub credited_at: Option<DateTime<Utc>>,
}

impl Funding {
    /// A provider order still open (the payer may approve it).
    pub fn is_open_order(&self) -> bool {
        is_open_order(&self.method, &self.status)
    }
}

/// `{items}` of fundings, newest first (100 a page unless `limit` says otherwise).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct FundingList {
    pub items: Vec<Funding>,
    /// Pass as `cursor` for the next (older) page; null on the last page.
    #[serde(default, rename = "nextCursor")]
    pub next_cursor: Option<String>,
}

/// `POST /billing/funding/wire`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WireFundingRequest {
    pub amount: Amount,
    pub currency: String,
    pub external_reference: String,
    #[serde(default)]
    pub advertiser_id: Option<String>,
}

/// `POST /billing/funding/payprovider/order`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PayOrderRequest {
    pub amount: Amount,
    pub currency: String,
    pub idempotency_key: String,
    #[serde(default)]
    pub advertiser_id: Option<String>,
}

/// The provider order created for a funding.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PayOrder {
    pub order_id: String,
    pub funding_id: String,
    pub status: String,
    /// Where the payer approves the order (the development provider's checkout page).
    pub approve_url: String,
}

/// Optional body of capture: which advertiser (administrators only).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AdvertiserSelector {
    #[serde(default)]
    pub advertiser_id: Option<String>,
}

/// Wire instructions and limits.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct WireConfig {
    pub currency: String,
    pub minimum_micros: Micros,
    pub minimum: String,
    pub maximum_micros: Micros,
    pub maximum: String,
    pub beneficiary: String,
    pub bank_name: String,
    pub iban: String,
    pub bic: String,
    pub reference_instructions: String,
}

wire_enum!(
    /// Which payment provider the service is configured with: the development stand-in
    /// (checkout page served by this service) or none (wire transfers only).
    ProviderCode { Development = "DEVELOPMENT", Disabled = "NONE" }
);

/// Checkout client configuration of the payment provider.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct PayProviderConfig {
    pub provider: ProviderCode,
    pub client_id: String,
    pub currency: String,
    pub minimum_micros: Micros,
    pub minimum: String,
    pub maximum_micros: Micros,
    pub maximum: String,
    pub environment: String,
}

wire_enum!(
    /// What an invoice line is: a credited funding, or a month's spend on one campaign.
    InvoiceLineKind { Funding = "FUNDING", Spend = "SPEND" }
);

/// One line of an invoice: a credited funding, or a month's spend on one campaign.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct InvoiceLine {
    pub kind: InvoiceLineKind,
    pub description: String,
    /// The funding id or campaign id.
    pub reference: String,
    pub amount_micros: Micros,
    pub amount: String,
}

/// A monthly statement built from the ledger. The current month is OPEN; past months ISSUED.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Invoice {
    pub invoice_id: String,
    pub advertiser_id: String,
    /// `YYYY-MM`.
    pub period: String,
    pub status: String,
    pub currency: String,
    pub funded_micros: Micros,
    pub funded: String,
    pub spent_micros: Micros,
    pub spent: String,
    pub lines: Vec<InvoiceLine>,
}

/// `{items}` of invoices (up to 100 newest).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct InvoiceList {
    pub items: Vec<Invoice>,
}
