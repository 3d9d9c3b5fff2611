//! Advertiser billing wire types: profile, balance, fundings and their configuration.

use chrono::{DateTime, Utc};
pub use entity::values::FundingStatus;
use serde::{Deserialize, Serialize};

use super::money::Amount;
use crate::model::money::{Micros, format_micros};

wire_enum!(
    /// A monthly invoice: OPEN for the current month, ISSUED after it.
    InvoiceStatus { Open = "OPEN", Issued = "ISSUED" }
);

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

/// Whether a funding is a provider order still open (the payer may approve it).
pub fn is_open_order(method: &str, status: FundingStatus) -> bool {
    FundingMethod::parse(method) == Some(FundingMethod::PayProvider)
        && status == FundingStatus::Pending
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
    /// What the advertiser owes after a refund or chargeback took back more than the
    /// available balance held (0 normally): the next funding pays it first.
    pub debt_micros: Micros,
    pub debt: String,
}

/// A funding record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Funding {
    pub funding_id: String,
    pub advertiser_id: String,
    /// WIRE or PAYPROVIDER.
    #[cfg_attr(feature = "ssr", schema(value_type = FundingMethod))]
    pub method: String,
    /// AWAITING_REVIEW (wire), PENDING (provider order open), CREDITED, DECLINED.
    pub status: FundingStatus,
    pub amount_micros: Micros,
    pub amount: String,
    pub currency: String,
    pub external_reference: Option<String>,
    pub provider_order_id: Option<String>,
    /// How much of a credited funding went back to the payer (the provider's refunds and
    /// chargebacks); the funding stays CREDITED.
    pub returned_micros: Micros,
    pub returned: String,
    /// The signed checkout link of an open provider order (development provider).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkout_url: Option<String>,
    pub created_at: DateTime<Utc>,
    pub credited_at: Option<DateTime<Utc>>,
}

impl Funding {
    /// A provider order still open (the payer may approve it).
    pub fn is_open_order(&self) -> bool {
        is_open_order(&self.method, self.status)
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
    pub status: FundingStatus,
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
    /// Which payment provider the service is configured with: PayPal (Orders API v2), the
    /// development stand-in (checkout page served by this service) or none (wire only).
    ProviderCode { PayPal = "PAYPAL", Development = "DEVELOPMENT", Disabled = "NONE" }
);

/// What the service did with one of the payment provider's webhooks.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProviderEventReceipt {
    /// The provider's event type (`PAYMENT.CAPTURE.COMPLETED`, …).
    pub event_type: String,
    /// The funding the event is about, when it is one of this service's orders.
    pub funding_id: Option<String>,
    /// That funding's status after the event.
    pub funding_status: Option<FundingStatus>,
    /// The payout a payout item event is about, and its status after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payout_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payout_status: Option<entity::values::PayoutStatus>,
}

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
    #[cfg_attr(feature = "ssr", schema(value_type = InvoiceStatus))]
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

/// One ledger entry of an owner's accounts, as the ledger export lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LedgerLine {
    pub entry_id: String,
    pub at: DateTime<Utc>,
    /// What happened: funding_credit, reserve, release, campaign_spend, spend, refund,
    /// external_spend, external_refund, earnings_release, payout_hold, payout_paid,
    /// payout_return, …
    pub transaction_kind: String,
    /// The account moved: AVAILABLE, RESERVED, SPENT (advertiser); PUBLISHER_PENDING,
    /// PUBLISHER_AVAILABLE, PAYOUT_HELD (publisher).
    pub account: String,
    /// The campaign or payout the account is for (empty for the wallet and the available
    /// earnings).
    pub account_reference: String,
    /// The conversion, survey transaction, funding, release or payout behind the movement.
    pub reference: String,
    pub amount_micros: Micros,
}

/// A page of an owner's ledger entries in a date range, oldest first. The opening balance
/// (every entry before the range) comes with the first page, the closing balance with the
/// last: opening + the lines of every page = closing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct LedgerExport {
    pub owner_account_id: String,
    pub currency: String,
    /// The balance of the owner's accounts before `from` (first page only).
    pub opening_micros: Option<Micros>,
    pub lines: Vec<LedgerLine>,
    /// The balance at the end of the range (last page only).
    pub closing_micros: Option<Micros>,
    pub next_cursor: Option<String>,
}

/// The range and page of a ledger export.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::IntoParams))]
#[cfg_attr(feature = "ssr", into_params(parameter_in = Query))]
#[serde(rename_all = "camelCase")]
pub struct LedgerExportQuery {
    /// First day (UTC, inclusive); from the beginning when absent.
    pub from: Option<chrono::NaiveDate>,
    /// Last day (UTC, inclusive); until now when absent.
    pub to: Option<chrono::NaiveDate>,
    /// Lines per page: 1 to 10,000 (default 10,000).
    #[cfg_attr(feature = "ssr", param(minimum = 1, maximum = 10000))]
    pub limit: Option<u64>,
    /// The previous page's `nextCursor` (also in `X-Next-Cursor`).
    pub cursor: Option<String>,
    /// `csv` (default) or `json`.
    #[cfg_attr(feature = "ssr", param(value_type = Option<crate::model::report::ExportFormat>, inline))]
    pub format: Option<String>,
}

impl LedgerExport {
    /// The page as CSV (RFC 4180): the opening balance as the first line on the first page,
    /// the closing balance as the last line on the last page.
    pub fn to_csv(&self) -> String {
        use crate::model::delivery::csv_field;
        let mut out = String::from(
            "entry_id,at,transaction_kind,account,account_reference,reference,amount_micros,amount\r\n",
        );
        let summary = |out: &mut String, what: &str, m: Micros| {
            out.push_str(&format!(
                ",,{what},,,,{},{}\r\n",
                m.get(),
                format_micros(m.get())
            ));
        };
        if let Some(m) = self.opening_micros {
            summary(&mut out, "opening_balance", m);
        }
        for l in &self.lines {
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{}\r\n",
                l.entry_id,
                l.at.to_rfc3339(),
                l.transaction_kind,
                l.account,
                csv_field(&l.account_reference),
                csv_field(&l.reference),
                l.amount_micros.get(),
                format_micros(l.amount_micros.get()),
            ));
        }
        if let Some(m) = self.closing_micros {
            summary(&mut out, "closing_balance", m);
        }
        out
    }
}

/// One day of the platform's business (`GET /admin/v1/revenue`): what advertisers paid for
/// conversions and completes (net of reversals), the publishers' share and the platform's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RevenueDay {
    pub day: Option<chrono::NaiveDate>,
    /// Paid by advertisers (wallet or invoiced), net of the day's reversals.
    pub gross_micros: Micros,
    pub publisher_micros: Micros,
    pub platform_micros: Micros,
    pub conversions: u64,
    pub reversals: u64,
}

/// The platform's revenue by day, oldest first, with the range's totals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RevenueReport {
    pub currency: String,
    pub from: chrono::NaiveDate,
    pub to: chrono::NaiveDate,
    pub days: Vec<RevenueDay>,
    /// The sums of the days (`day` absent).
    pub totals: RevenueDay,
}
