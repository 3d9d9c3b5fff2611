//! Wire types of the token-authenticated conversion callbacks (measurement partner, direct,
//! managed) and of the sandbox, and the one table that says which parameter names each
//! certified measurement partner uses for the five canonical fields. The table lives here,
//! not in `domain`, so the tracking page (compiled to wasm) shows the same names the
//! endpoint accepts.

pub use entity::values::ReportedStatus;
use serde::{Deserialize, Serialize};

/// A conversion event reported by an advertiser or its partner.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema, utoipa::IntoParams))]
#[cfg_attr(feature = "ssr", into_params(parameter_in = Query))]
pub struct ConversionEvent {
    pub click_id: Option<String>,
    pub transaction_id: Option<String>,
    pub goal_id: Option<String>,
    /// pending, approved, rejected or reversed.
    #[cfg_attr(feature = "ssr", schema(value_type = Option<ReportedStatus>))]
    #[cfg_attr(feature = "ssr", param(value_type = Option<ReportedStatus>, inline))]
    pub status: Option<String>,
    /// ISO 8601 UTC.
    pub occurred_at: Option<String>,
}

/// Callback receipt: 200 means authenticated and durably in the processing inbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CallbackReceipt {
    pub accepted: bool,
    pub duplicate: bool,
    pub receipt_id: String,
}

/// Header that carries a campaign, direct or managed token (preferred over the parameter:
/// it stays out of URL logs).
pub const TOKEN_HEADER: &str = "X-Service-Token";
/// Query or body parameter that may carry the token instead of the header.
pub const TOKEN_PARAM: &str = "token";

/// The parameter names and status vocabulary of one certified measurement partner.
///
/// For every canonical field the canonical name itself (`click_id`, `transaction_id`,
/// `goal_id`, `status`, `occurred_at`) is always accepted and wins; otherwise the first of
/// the partner's names present (in the order listed) is used. The status value (from
/// `status` or the partner's event-kind parameter) is lowercased with `-` and spaces turned
/// into `_`, then looked up in `approved_words` and `rejected_words`; the canonical
/// `pending`, `approved`, `rejected` and `reversed` are always accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartnerParams {
    /// Partner code as in `MMP:<CODE>`.
    pub code: &'static str,
    pub click_id: &'static [&'static str],
    pub transaction_id: &'static [&'static str],
    pub goal_id: &'static [&'static str],
    /// The partner's event-kind parameter standing in for `status`.
    pub status: &'static [&'static str],
    /// Unix seconds, Unix milliseconds, `YYYY-MM-DD HH:MM:SS[.fff]` (UTC) or RFC 3339.
    pub occurred_at: &'static [&'static str],
    /// Event kinds reported only for attributed, accepted conversions: `approved`.
    pub approved_words: &'static [&'static str],
    /// Event kinds of conversions the partner blocked or rejected: `rejected`.
    pub rejected_words: &'static [&'static str],
}

/// The six certified partners (same codes as `providers::MMP_PARTNERS`).
pub const PARTNER_PARAMS: [PartnerParams; 6] = [
    PartnerParams {
        code: "APPSFLYER",
        click_id: &["clickid"],
        transaction_id: &["event_id"],
        goal_id: &["event_name"],
        status: &["event_type"],
        occurred_at: &["event_time", "install_unix_ts"],
        approved_words: &[
            "install",
            "in_app_event",
            "event",
            "re_engagement",
            "re_attribution",
        ],
        rejected_words: &[
            "rejected_install",
            "rejected_in_app_event",
            "blocked_install",
            "blocked_in_app_event",
        ],
    },
    PartnerParams {
        code: "ADJUST",
        click_id: &["label"],
        transaction_id: &["deduplication_id"],
        goal_id: &["event_name", "event"],
        status: &["activity_kind"],
        occurred_at: &["created_at", "installed_at"],
        approved_words: &["install", "event", "reattribution", "reinstall"],
        rejected_words: &["rejected_install", "rejected_reattribution"],
    },
    PartnerParams {
        code: "BRANCH",
        click_id: &["tilde_click_id", "~click_id"],
        transaction_id: &["event_id"],
        goal_id: &["event_name", "name"],
        status: &["event_type"],
        occurred_at: &["event_timestamp", "timestamp"],
        approved_words: &["install", "reinstall", "open", "event", "commerce_event"],
        rejected_words: &["fraud", "blocked_install"],
    },
    PartnerParams {
        code: "SINGULAR",
        click_id: &["partner_click_id"],
        transaction_id: &["event_id"],
        goal_id: &["event_name"],
        status: &["event_type"],
        occurred_at: &["event_utc_timestamp", "install_utc_timestamp"],
        approved_words: &["install", "event", "reengagement"],
        rejected_words: &["rejected_install", "fraud_rejected"],
    },
    PartnerParams {
        code: "KOCHAVA",
        click_id: &["network_click_id"],
        transaction_id: &["kochava_event_id", "event_id"],
        goal_id: &["event_name"],
        status: &["event_type"],
        occurred_at: &["event_time", "install_time"],
        approved_words: &["install", "event", "reengagement"],
        rejected_words: &["rejected_install", "fraud"],
    },
    PartnerParams {
        code: "AIRBRIDGE",
        click_id: &["ab_click_id"],
        transaction_id: &["event_id"],
        goal_id: &["event_category", "event_name"],
        status: &["event_type"],
        occurred_at: &["event_timestamp"],
        approved_words: &["install", "event", "deeplink_open"],
        rejected_words: &["rejected_install", "fraud"],
    },
];

/// The table row of a partner code (`APPSFLYER`, case-insensitive).
pub fn partner_params(code: &str) -> Option<&'static PartnerParams> {
    PARTNER_PARAMS
        .iter()
        .find(|p| p.code.eq_ignore_ascii_case(code))
}

impl PartnerParams {
    /// Accepted names of one canonical field: the canonical name first, then the partner's.
    pub fn names(&self, field: &str) -> Vec<&'static str> {
        let partner: &[&'static str] = match field {
            "click_id" => self.click_id,
            "transaction_id" => self.transaction_id,
            "goal_id" => self.goal_id,
            "status" => self.status,
            "occurred_at" => self.occurred_at,
            _ => &[],
        };
        crate::model::campaign::rules::CONVERSION_FIELDS
            .iter()
            .copied()
            .filter(|c| *c == field)
            .chain(partner.iter().copied())
            .collect()
    }

    /// One line per field for people: `click_id or clickid; …`.
    pub fn summary(&self) -> String {
        crate::model::campaign::rules::CONVERSION_FIELDS
            .iter()
            .map(|f| self.names(f).join(" or "))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// A Markdown table of [`PARTNER_PARAMS`] (API reference).
pub fn partner_table_markdown() -> String {
    let mut out = String::from(
        "| provider | click_id | transaction_id | goal_id | status | occurred_at | → approved | → rejected |\n|---|---|---|---|---|---|---|---|\n",
    );
    let list = |v: &[&str]| {
        v.iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for p in &PARTNER_PARAMS {
        out.push_str(&format!(
            "| `{}` | {} | {} | {} | {} | {} | {} | {} |\n",
            p.code.to_ascii_lowercase(),
            list(p.click_id),
            list(p.transaction_id),
            list(p.goal_id),
            list(p.status),
            list(p.occurred_at),
            list(p.approved_words),
            list(p.rejected_words),
        ));
    }
    out
}

/// The fields of a token-authenticated callback (documentation shape: the route reads the
/// query string or a JSON or form body, and a partner's own parameter names as well).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema, utoipa::IntoParams))]
#[cfg_attr(feature = "ssr", into_params(parameter_in = Query))]
pub struct TokenConversion {
    /// The campaign, direct or managed token (or send the `X-Service-Token` header).
    pub token: Option<String>,
    /// Exact id received through the `{click_id}` destination macro.
    pub click_id: Option<String>,
    /// Stable id of the conversion; unchanged on retry and later state changes.
    pub transaction_id: Option<String>,
    /// External goal id of the campaign milestone.
    pub goal_id: Option<String>,
    /// pending, approved, rejected or reversed (or a partner event kind).
    pub status: Option<String>,
    /// ISO 8601 UTC; Unix seconds or milliseconds are normalised to RFC 3339.
    pub occurred_at: Option<String>,
}

/// `POST /performance-marketing/v2/sandbox/callbacks`: a provider callback fixture.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SandboxFixture {
    /// `CUSTOM_S2S`, `DIRECT`, `MANAGED` or `MMP:<CODE>` (one of the six certified partners).
    pub provider: Option<String>,
    /// Optional campaign id the fixture is about (recorded, not looked up).
    pub campaign_id: Option<String>,
    /// The callback's fields: the canonical five, or a partner's own names for `MMP:<CODE>`.
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub event: Option<serde_json::Value>,
    /// Headers the real callback would carry (string values), e.g. the signing headers.
    #[cfg_attr(feature = "ssr", schema(value_type = Option<Object>))]
    pub headers: Option<serde_json::Value>,
    /// Must be on this service's own base address when given.
    pub callback_url: Option<String>,
    /// Must be on this service's own base address when given.
    pub destination_url: Option<String>,
}

/// The sandbox's answer: 202 for a new fixture, 200 with `duplicate: true` for a replay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SandboxReceipt {
    /// Always true: nothing was paid, ledgered or sent.
    pub sandbox: bool,
    pub duplicate: bool,
    pub event_id: String,
    /// `CUSTOM_S2S`, `DIRECT`, `MANAGED` or `MMP:<CODE>`.
    pub provider: String,
    /// The canonical event the real route would have accepted (after the partner mapping).
    pub normalized: NormalizedEvent,
}

/// The five canonical fields after mapping and normalisation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct NormalizedEvent {
    pub click_id: String,
    pub transaction_id: String,
    pub goal_id: String,
    pub status: String,
    pub occurred_at: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_partner_keeps_the_canonical_names_first() {
        for p in &PARTNER_PARAMS {
            for f in crate::model::campaign::rules::CONVERSION_FIELDS {
                assert_eq!(p.names(f).first().copied(), Some(f), "{}", p.code);
            }
        }
        assert_eq!(
            partner_params("appsflyer").map(|p| p.names("click_id")),
            Some(vec!["click_id", "clickid"])
        );
        assert!(partner_params("tenjin").is_none());
        assert!(partner_table_markdown().contains("| `adjust` | `label` |"));
    }
}
