//! Sending the outbox's letters (`app::domain::mail`): through a mail server over SMTP, or
//! in development into the development mailbox, a folder of `.eml` files that the
//! administrators' Mail page also shows. Which one is `APP_MAIL_URL` ([`MailUrl`]).

pub mod setting;

use std::path::PathBuf;
use std::time::Duration;

use app::domain::mail::MailSetup;
use app::domain::mail::outbox::Outcome;
use app::model::mail::MailMode;
use entity::mail_outbox;
use lettre::message::header::ContentType;
use lettre::message::{Mailbox, Message};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};

use setting::{MailUrl, parse_mailbox};

/// The longest one SMTP exchange may take (connect, greeting, each command).
pub const SMTP_TIMEOUT: Duration = Duration::from_secs(20);

/// Where letters go.
pub enum Mailer {
    Smtp {
        transport: AsyncSmtpTransport<Tokio1Executor>,
        from: Mailbox,
    },
    /// The development mailbox: one `<mail id>.eml` file per letter.
    Folder { dir: PathBuf, from: Mailbox },
    /// Mail is off: letters stay in the outbox.
    Off,
}

impl Mailer {
    /// The transport `APP_MAIL_URL` names (`url`): an SMTP URL, `off`, or (unset, development)
    /// the development mailbox under `data_dir`. Production without a setting never gets here
    /// (`Settings::production_problems`).
    pub fn new(
        url: Option<&MailUrl>,
        from: &str,
        data_dir: &std::path::Path,
    ) -> anyhow::Result<Self> {
        let from: Mailbox = parse_mailbox(from).map_err(anyhow::Error::msg)?;
        Ok(match url {
            Some(MailUrl::Off) => Mailer::Off,
            Some(MailUrl::Smtp(url)) => Mailer::Smtp {
                transport: AsyncSmtpTransport::<Tokio1Executor>::from_url(url)?
                    .timeout(Some(SMTP_TIMEOUT))
                    .build(),
                from,
            },
            None => Mailer::Folder {
                dir: data_dir.join("mailbox"),
                from,
            },
        })
    }

    /// What the rules and the operators' page are told about this transport.
    pub fn setup(&self) -> MailSetup {
        match self {
            Mailer::Smtp { .. } => MailSetup {
                mode: MailMode::Smtp,
                mailbox_dir: None,
            },
            Mailer::Folder { dir, .. } => MailSetup {
                mode: MailMode::DevelopmentMailbox,
                mailbox_dir: Some(dir.display().to_string()),
            },
            Mailer::Off => MailSetup::default(),
        }
    }

    /// Hands one letter (with its opened `text`) over; the outcome says whether to retry.
    pub async fn send(&self, letter: &mail_outbox::Model, text: &str) -> Outcome {
        match self {
            Mailer::Off => Outcome::Retry("mail is off".to_owned()),
            Mailer::Smtp { transport, from } => {
                let message = match compose(from, letter, text) {
                    Ok(m) => m,
                    Err(why) => return Outcome::Refused(why),
                };
                match transport.send(message).await {
                    Ok(_) => Outcome::Sent,
                    // A 5xx answer is final (no such mailbox, refused sender); anything else
                    // (4xx, a connection that failed or timed out) may pass later.
                    Err(e) if e.is_permanent() => Outcome::Refused(e.to_string()),
                    Err(e) => Outcome::Retry(e.to_string()),
                }
            }
            Mailer::Folder { dir, from } => {
                let message = match compose(from, letter, text) {
                    Ok(m) => m,
                    Err(why) => return Outcome::Refused(why),
                };
                let path = dir.join(format!("{}.eml", letter.id));
                let written = async {
                    tokio::fs::create_dir_all(dir).await?;
                    tokio::fs::write(&path, message.formatted()).await
                };
                match written.await {
                    Ok(()) => Outcome::Sent,
                    Err(e) => Outcome::Retry(format!("writing {}: {e}", path.display())),
                }
            }
        }
    }
}

/// The message of a letter. Its `Message-ID` is the letter's id, so a mail server or reader
/// that sees a retried letter twice can tell it is one.
fn compose(from: &Mailbox, letter: &mail_outbox::Model, text: &str) -> Result<Message, String> {
    let to: Mailbox = letter
        .to_address
        .parse()
        .map_err(|e| format!("the address cannot be written to: {e}"))?;
    let domain = from.email.domain().to_owned();
    Message::builder()
        .from(from.clone())
        .to(to)
        .subject(letter.subject.clone())
        .message_id(Some(format!("<{}@{domain}>", letter.id)))
        .header(ContentType::TEXT_PLAIN)
        .body(text.to_owned())
        .map_err(|e| format!("the message cannot be built: {e}"))
}
