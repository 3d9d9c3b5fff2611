//! Mail to people (issue 54, part 1). A rule that must tell someone writes a letter into the
//! outbox in its own transaction ([`outbox::enqueue`]): a change that rolls back sends
//! nothing, and a mail server that is down delays the mail without failing or slowing the
//! request. The server's mail worker claims due letters with a lease, hands them to the
//! mail server (or the development mailbox) and records the answer; a refused attempt is
//! retried with backoff until [`outbox::MAX_ATTEMPTS`], then the letter is FAILED and
//! stays on the operators' page ([`console`]).
//!
//! A foundation room: it knows tables and the clock, never the rules that use it.

pub mod console;
pub mod letters;
pub mod outbox;

use crate::model::mail::MailMode;

/// Where mail goes, as the rules and the operators' page see it (the transport itself is
/// the server's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MailSetup {
    pub mode: MailMode,
    /// The development mailbox's folder (DEVELOPMENT_MAILBOX only).
    pub mailbox_dir: Option<String>,
}

impl Default for MailSetup {
    fn default() -> Self {
        Self {
            mode: MailMode::Off,
            mailbox_dir: None,
        }
    }
}
