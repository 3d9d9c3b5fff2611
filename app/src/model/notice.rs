//! Notices, notification preferences and account webhooks (issue 54, part 6), as the JSON
//! API and the dashboard see them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use entity::values::NoticeTopic;

/// Notices one page shows at most (newest first).
pub const NOTICE_PAGE_SIZE: u64 = 50;

/// One notice of the organisation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct NoticeView {
    pub notice_id: String,
    pub topic: NoticeTopic,
    pub title: String,
    pub body: String,
    /// The dashboard path where the reader acts.
    pub link: String,
    /// What it is about (`campaign`, `placement`, `payout`, `funding`, `account`).
    pub subject_type: Option<String>,
    pub subject_id: Option<String>,
    pub created_at: DateTime<Utc>,
    /// Newer than what this person marked as seen.
    pub unread: bool,
}

/// `GET /auth/v1/notifications`: the topics this person shows on the dashboard, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct NoticeList {
    pub items: Vec<NoticeView>,
    /// Unread notices among the newest 100.
    pub unread: u64,
    pub next_cursor: Option<String>,
}

/// One topic's choice: by e-mail, on the dashboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct NoticePreference {
    pub topic: NoticeTopic,
    pub email: bool,
    pub dashboard: bool,
}

/// `GET /auth/v1/notification-preferences`: this person's choices for every topic of the
/// organisation's side (a topic they never chose shows their role's default).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct NoticePreferences {
    pub topics: Vec<NoticePreference>,
    /// Advertisers: the share of a campaign's budget (0-50 %, 0 off) below which the
    /// organisation is told, once per crossing.
    pub budget_alert_percent: Option<i32>,
}

/// `PUT /auth/v1/notification-preferences`: the topics named change, the others stay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct NoticePreferencesUpdate {
    #[serde(default)]
    pub topics: Vec<NoticePreference>,
    /// Advertisers only; changing it needs a role that may change billing.
    #[serde(default)]
    pub budget_alert_percent: Option<i32>,
}

wire_enum!(
    /// Whether an account webhook is sent to: PAUSED after a day of failed deliveries, until
    /// resumed.
    WebhookStatus { Active = "ACTIVE", Paused = "PAUSED" }
);

/// An organisation's endpoint for account events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccountWebhook {
    pub webhook_id: String,
    pub url: String,
    /// The topics it gets (every topic when created without a list).
    pub topics: Vec<NoticeTopic>,
    pub description: String,
    pub status: WebhookStatus,
    /// The first failed attempt since the last success.
    pub failing_since: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
}

/// `GET /auth/v1/webhooks`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccountWebhookList {
    pub items: Vec<AccountWebhook>,
}

/// `POST /auth/v1/webhooks`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccountWebhookCreate {
    /// An HTTPS URL on a public address.
    pub url: String,
    /// Topics to get; empty or absent: every topic.
    #[serde(default)]
    pub topics: Vec<NoticeTopic>,
    /// What it is for (at most 200 characters).
    #[serde(default)]
    pub description: Option<String>,
}

/// The answer to `POST /auth/v1/webhooks`: the signing secret, shown this once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccountWebhookIssued {
    pub webhook: AccountWebhook,
    /// The Standard Webhooks secret (`whsec_…`) that verifies `webhook-signature`.
    pub secret: String,
}

/// One delivery to an account webhook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccountWebhookDelivery {
    /// Also the `webhook-id` header of every attempt.
    pub message_id: String,
    /// The event's `type` (a topic, or `webhook.test`).
    pub event_type: String,
    /// PENDING, DELIVERED or FAILED.
    pub status: String,
    pub attempts: i32,
    pub last_response_status: Option<i32>,
    pub last_error: Option<String>,
    pub next_attempt_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
}

/// `GET /auth/v1/webhooks/{webhookId}/deliveries`: the newest 100.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccountWebhookDeliveries {
    pub items: Vec<AccountWebhookDelivery>,
}

/// The event an account webhook receives (Standard Webhooks: `webhook-id`,
/// `webhook-timestamp` and `webhook-signature` headers over this body).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccountEvent {
    /// The message id, equal to the `webhook-id` header (the same on every retry).
    pub id: String,
    /// A topic (`campaign.approved`, …) or `webhook.test`.
    #[serde(rename = "type")]
    pub event_type: String,
    pub timestamp: DateTime<Utc>,
    pub data: AccountEventData,
}

/// What an account event tells: the notice as the dashboard shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccountEventData {
    pub notice_id: String,
    pub title: String,
    pub body: String,
    pub link: String,
    pub subject_type: Option<String>,
    pub subject_id: Option<String>,
}
