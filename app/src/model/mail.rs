//! The mail outbox as operators see it (issue 54, part 1): where mail goes, how much waits,
//! and each mail's state. Shared by the server functions and the browser.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use entity::values::{MailStatus, MailTopic};

/// Mails one page of the outbox shows at most (newest first).
pub const MAIL_PAGE_SIZE: u64 = 100;

wire_enum!(
    /// Where the service sends mail (`APP_MAIL_URL`). SMTP: a mail server. DEVELOPMENT_MAILBOX:
    /// nothing leaves the machine; each mail is written as a `.eml` file under the data
    /// folder and shown in full on the administrators' Mail page. OFF: mail is kept in the
    /// outbox and not sent.
    MailMode { Smtp = "SMTP", DevelopmentMailbox = "DEVELOPMENT_MAILBOX", Off = "OFF" }
);

/// One mail of the outbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MailView {
    pub mail_id: String,
    pub to: String,
    pub topic: MailTopic,
    pub subject: String,
    pub status: MailStatus,
    pub attempts: i32,
    pub next_attempt_at: DateTime<Utc>,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
    /// The text, shown only in the development mailbox (in production it stays in the
    /// outbox: it may carry what only its reader should see).
    pub body: Option<String>,
}

/// The operators' view of the outbox.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MailOutbox {
    pub mode: MailMode,
    /// The development mailbox's folder (DEVELOPMENT_MAILBOX only).
    pub mailbox_dir: Option<String>,
    pub pending: u64,
    pub failed: u64,
    pub sent: u64,
    /// The newest mails, newest first.
    pub items: Vec<MailView>,
}

/// `GET /admin/v1/mail`: which letters to list.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::IntoParams))]
#[cfg_attr(feature = "ssr", into_params(parameter_in = Query))]
#[serde(rename_all = "camelCase")]
pub struct MailQuery {
    /// PENDING, SENT or FAILED; all when absent.
    pub status: Option<MailStatus>,
}
