//! A mail of the outbox: written in the transaction of the event it tells of, sent by the mail worker (PENDING until the mail server took it, retried with backoff).
use crate::values::{MailStatus, MailTopic};
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "mail_outbox")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    /// The account the mail is for (none for an address outside every account).
    pub account_id: Option<String>,
    pub to_address: String,
    pub topic: MailTopic,
    pub subject: String,
    /// The text, sealed with the master key (bound to the row): a letter may carry a link
    /// that is a secret until it is used (a password reset).
    pub body_sealed: String,
    pub status: MailStatus,
    /// Sending attempts made so far.
    pub attempts: i32,
    /// When the worker may try (again).
    pub next_attempt_at: DateTimeUtc,
    /// The worker that holds the mail while it sends it, until `lease_until`.
    pub lease_owner: Option<String>,
    pub lease_until: Option<DateTimeUtc>,
    /// What the mail server (or the connection to it) answered on the last failed attempt.
    pub last_error: Option<String>,
    pub created_at: DateTimeUtc,
    pub sent_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
