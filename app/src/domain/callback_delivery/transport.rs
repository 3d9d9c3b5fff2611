//! The HTTP client of reward callbacks as the domain sees it. The server crate implements it
//! (`callback_sender::Sender`: HTTPS only, checked addresses, no redirects, bounded time);
//! the domain uses it for the dashboard's "Send test", which must go out through exactly
//! the same rules as real callbacks.

use async_trait::async_trait;

use super::dispatch::{Attempt, Outcome};
use crate::domain::Ctx;

/// Sends one signed attempt to a receiver and reports what happened (never an error:
/// failures are outcomes to show or record).
#[async_trait]
pub trait Transport: Send + Sync {
    async fn send(&self, ctx: &Ctx, url: &str, attempt: &Attempt) -> Outcome;
}

/// A process that sends nothing (command-line tools): every send is refused.
pub struct NoTransport;

#[async_trait]
impl Transport for NoTransport {
    async fn send(&self, ctx: &Ctx, _url: &str, _attempt: &Attempt) -> Outcome {
        Outcome {
            started_at: ctx.now(),
            error_class: Some("other".to_owned()),
            error_message: Some("this process does not send callbacks".to_owned()),
            ..Outcome::default()
        }
    }
}
