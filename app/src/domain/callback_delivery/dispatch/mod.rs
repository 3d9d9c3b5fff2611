//! The delivery worker's bookkeeping: claiming due callbacks fairly under a lease
//! ([`claim`]), signing each attempt with a fresh timestamp and nonce, and recording
//! outcomes in batches with the retry schedule ([`record`]). Any number of `server`
//! processes can run the worker: a claim takes rows no live lease holds (PostgreSQL
//! `FOR UPDATE SKIP LOCKED`; SQLite's write lock), and an outcome is recorded only while
//! its lease is still held.

pub mod claim;
pub mod record;

use chrono::{DateTime, Utc};

pub use claim::{ClaimRequest, claim, release_orphans, renew};
pub use record::{Finished, park, record_batch};

use crate::domain::callback_delivery::setup::{KeySecrets, SignedDelivery, sign_delivery};
use crate::domain::crypto;
use entity::callback_delivery;

/// What signing a claimed delivery can use.
#[derive(Debug, Clone)]
pub enum KeyState {
    Ready(KeySecrets),
    /// The placement has no CURRENT key (no receiver was ever configured).
    Missing,
    /// The stored key could not be opened (a master-key problem): recorded as a failed
    /// attempt of this delivery only, so other deliveries go on.
    Unreadable,
}

/// A claimed delivery with what sending it needs.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub delivery: callback_delivery::Model,
    /// The placement's receiver (None: configured nowhere, the delivery is parked).
    pub url: Option<String>,
    pub key: KeyState,
}

/// How an attempt ended, as the sender observed it.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub started_at: DateTime<Utc>,
    pub latency_ms: i64,
    pub response_status: Option<u16>,
    /// `http_status`, `timeout`, `connect`, `tls`, `address_refused`, `redirect`,
    /// `signing_key`, `other`.
    pub error_class: Option<String>,
    pub error_message: Option<String>,
    /// The first KiB of the response body.
    pub response_excerpt: Option<String>,
    /// `Retry-After` in seconds (honoured on 429 and 503).
    pub retry_after: Option<i64>,
}

impl Outcome {
    /// Whether the receiver accepted the event (2xx).
    pub fn delivered(&self) -> bool {
        self.response_status
            .is_some_and(|s| (200..300).contains(&s))
    }

    /// The outcome of a delivery whose signing key could not be opened.
    pub fn unreadable_key(now: DateTime<Utc>) -> Self {
        Self {
            started_at: now,
            error_class: Some("signing_key".to_owned()),
            error_message: Some(
                "the callback signing key cannot be opened; rotate the callback key".to_owned(),
            ),
            ..Self::default()
        }
    }
}

/// The headers and body of one attempt.
pub struct Attempt {
    pub signed: SignedDelivery,
    pub key_id: String,
    pub nonce: String,
    pub timestamp: String,
}

impl Claimed {
    /// Whether the delivery waits for a receiver (no URL or no key): it is parked, not sent.
    pub fn waits_for_receiver(&self) -> bool {
        self.url.is_none() || matches!(self.key, KeyState::Missing)
    }

    /// Signs one attempt: the canonical body, a fresh timestamp and nonce, the CURRENT key.
    /// None when the key is not usable or the stored payload is not JSON.
    pub fn sign(&self, now: DateTime<Utc>) -> Option<Attempt> {
        let KeyState::Ready(key) = &self.key else {
            return None;
        };
        let payload: serde_json::Value = serde_json::from_str(&self.delivery.payload).ok()?;
        let nonce = hex::encode(crypto::random_bytes::<16>());
        let signed = sign_delivery(key, &payload, now, &nonce, &self.delivery.id);
        let timestamp = signed
            .headers
            .get("X-Service-Timestamp")
            .cloned()
            .unwrap_or_default();
        Some(Attempt {
            signed,
            key_id: key.id.clone(),
            nonce,
            timestamp,
        })
    }

    /// Whether the lease still covers a send that may take `budget` from `now`.
    pub fn lease_covers(&self, now: DateTime<Utc>, budget: chrono::Duration) -> bool {
        self.delivery
            .lease_until
            .is_some_and(|until| until > now + budget)
    }
}
