//! The mail worker: sends the outbox's due letters (`app::domain::mail::outbox`) through the
//! process's [`Mailer`](crate::mail::Mailer). Each claim holds its letters for a lease longer
//! than a batch can take, so a process that stops mid-batch leaves them to another worker
//! when the lease ends; a letter is sent at least once (its `Message-ID` is its id).

use std::time::Duration;

use app::domain::mail::outbox::{self, Outcome};
use app::model::mail::MailStatus;

use crate::mail::Mailer;
use crate::state::AppState;

/// Letters one claim takes.
const BATCH: u64 = 20;
/// How long a claim holds its letters: a batch of sends, each bounded by the SMTP timeout.
const LEASE: chrono::Duration = chrono::Duration::minutes(10);
/// How often the worker looks for due letters.
pub const TICK: Duration = Duration::from_secs(2);

/// Sends due letters until none is left; returns how many were sent.
pub async fn run_once(state: &AppState) -> anyhow::Result<usize> {
    if matches!(*state.mailer, Mailer::Off) {
        return Ok(0);
    }
    let owner = format!("mail-{}", std::process::id());
    let mut sent = 0;
    loop {
        let letters = outbox::claim(&state.ctx, &owner, BATCH, LEASE).await?;
        if letters.is_empty() {
            return Ok(sent);
        }
        for letter in &letters {
            let outcome = match outbox::text_of(&state.ctx, letter) {
                Ok(text) => state.mailer.send(letter, &text).await,
                // Sealed under a key this process no longer has (dropped after a rotation
                // without `server reseal`): no later attempt can open it either.
                Err(_) => Outcome::Refused(
                    "the letter cannot be opened with the configured keys".to_owned(),
                ),
            };
            if let Outcome::Retry(why) | Outcome::Refused(why) = &outcome {
                // The reason names the server's answer, never the letter's text.
                tracing::warn!(mail = %letter.id, attempt = letter.attempts + 1, error = %why, "mail not sent");
            }
            match outbox::settle(&state.ctx, letter, outcome).await? {
                MailStatus::Sent => sent += 1,
                MailStatus::Failed => {
                    tracing::error!(mail = %letter.id, "mail failed for good; see the Mail page")
                }
                MailStatus::Pending => {}
            }
        }
    }
}

/// Runs forever on a two-second tick.
pub async fn run(state: AppState) {
    let mut tick = tokio::time::interval(TICK);
    loop {
        tick.tick().await;
        if let Err(e) = run_once(&state).await {
            tracing::warn!(error = %e, "mail round failed; retried on the next tick");
        }
    }
}
