//! Wire types of the reward-callback deliveries console: the delivery log, one delivery with
//! its attempts, replays and the per-placement delivery health.

pub use entity::values::DeliveryStatus;
use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

wire_enum!(
    /// The events a reward callback carries.
    CallbackEvent { Confirmed = "reward.confirmed", Reversed = "reward.reversed" }
);

/// `GET /publisher/v2/callback-deliveries` filters; newest first.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::IntoParams))]
#[cfg_attr(feature = "ssr", into_params(parameter_in = Query))]
#[serde(rename_all = "camelCase")]
pub struct DeliveryListQuery {
    /// HELD, WAITING_RECEIVER, PENDING, DELIVERED, FAILED or CANCELLED.
    #[cfg_attr(feature = "ssr", param(value_type = Option<DeliveryStatus>, inline))]
    pub status: Option<String>,
    pub placement_id: Option<String>,
    /// Created at or after (RFC 3339).
    pub from: Option<DateTime<Utc>>,
    /// Created before (RFC 3339).
    pub to: Option<DateTime<Utc>>,
    pub external_user_id: Option<String>,
    /// The `transactionId` of the callback payload.
    pub transaction_id: Option<String>,
    /// The previous page's `nextCursor`.
    pub cursor: Option<String>,
    /// 1 to 100 (default 50).
    #[cfg_attr(feature = "ssr", param(minimum = 1, maximum = 100))]
    pub limit: Option<u64>,
}

/// One reward callback in the log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeliverySummary {
    pub delivery_id: String,
    /// Also the `eventId` of the payload and the `Idempotency-Key` of every attempt.
    pub event_id: String,
    /// `reward.confirmed` or `reward.reversed`.
    #[cfg_attr(feature = "ssr", schema(value_type = CallbackEvent))]
    pub event_type: String,
    pub status: DeliveryStatus,
    pub placement_id: String,
    pub transaction_id: String,
    pub external_user_id: Option<String>,
    pub campaign_id: Option<String>,
    /// Attempts made so far (the detail read lists them under `attempts`).
    pub attempt_count: i32,
    pub replays: i32,
    /// When the next attempt is due (HELD: when the hold ends).
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub last_response_status: Option<i32>,
    pub last_error: Option<String>,
    /// A reversal is not sent before this confirmation is delivered.
    pub waits_for: Option<String>,
    pub created_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
    pub failed_at: Option<DateTime<Utc>>,
}

/// A page of the delivery log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeliveryList {
    pub items: Vec<DeliverySummary>,
    pub count: usize,
    pub next_cursor: Option<String>,
}

/// One attempt to send a callback.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeliveryAttempt {
    pub attempt: i32,
    pub started_at: DateTime<Utc>,
    pub url: String,
    pub key_id: Option<String>,
    pub nonce: String,
    pub timestamp: String,
    pub latency_ms: i64,
    /// The receiver's HTTP status, when it answered.
    pub response_status: Option<i32>,
    /// `http_status`, `timeout`, `connect`, `tls`, `address_refused`, `redirect` or `other`.
    pub error_class: Option<String>,
    pub error_message: Option<String>,
    /// The first KiB of the response body.
    pub response_excerpt: Option<String>,
    /// Sent by a replay rather than the retry schedule.
    pub replay: bool,
}

/// One delivery with its payload, the headers every attempt carries and its attempts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeliveryDetail {
    #[serde(flatten)]
    pub summary: DeliverySummary,
    #[cfg_attr(feature = "ssr", schema(value_type = Object))]
    pub payload: serde_json::Value,
    /// The exact (canonical JSON) body that is signed and sent.
    pub body: String,
    /// Headers of every attempt; `X-Service-Timestamp`, `X-Service-Nonce` and
    /// `X-Service-Signature` are fresh per attempt (see `attempts`).
    pub headers: BTreeMap<String, String>,
    pub attempts: Vec<DeliveryAttempt>,
}

/// Delivery health of one placement over the last 24 hours.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeliveryHealth {
    pub placement_id: String,
    /// Attempts in the last 24 hours.
    pub attempts_24h: u64,
    pub successful_attempts_24h: u64,
    /// Successful attempts in percent (absent without attempts).
    pub success_rate_percent: Option<u64>,
    pub last_failure_at: Option<DateTime<Utc>>,
    pub last_failure: Option<String>,
    pub next_retry_at: Option<DateTime<Utc>>,
    /// Rewards kept until a callback receiver is configured.
    pub waiting_for_receiver: u64,
    /// Rewards in their pending hold.
    pub held: u64,
    pub failed: u64,
    /// Deliveries due now and not yet sent.
    pub due: u64,
    /// Since when every attempt to this receiver has failed (absent after a success).
    pub failing_since: Option<DateTime<Utc>>,
    /// Set when delivery to the receiver was paused after 24 hours of failures: nothing is
    /// sent until the publisher resumes it (`POST …/callback/resume`).
    pub paused_at: Option<DateTime<Utc>>,
}

/// A placement whose receiver is paused (the deliveries console lists them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PausedReceiver {
    pub placement_id: String,
    pub placement_name: String,
    pub paused_at: DateTime<Utc>,
}

/// `POST /publisher/v2/placements/{placementId}/callback/resume`: delivery resumed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReceiverResumed {
    pub placement_id: String,
    /// Pending deliveries of the placement, all due now.
    pub pending: u64,
}

/// `DELETE /publisher/v2/placements/{placementId}/callback`: the receiver is removed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct CallbackRemoved {
    pub placement_id: String,
    /// Unsent reward callbacks now kept as WAITING_RECEIVER: they go out when a receiver is
    /// configured again (with a new signing key).
    pub waiting: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dashboard pages send these through server functions; they must round-trip.
    #[test]
    fn detail_round_trips_through_json() {
        let now = chrono::Utc::now();
        let d = DeliveryDetail {
            summary: DeliverySummary {
                delivery_id: "dlv_1".into(),
                event_id: "dlv_1".into(),
                event_type: "reward.confirmed".into(),
                status: DeliveryStatus::Failed,
                placement_id: "plc_1".into(),
                transaction_id: "cnv_1".into(),
                external_user_id: Some("u".into()),
                campaign_id: None,
                attempt_count: 10,
                replays: 0,
                next_attempt_at: None,
                last_response_status: Some(500),
                last_error: None,
                waits_for: None,
                created_at: now,
                delivered_at: None,
                failed_at: Some(now),
            },
            payload: serde_json::json!({"a": 1}),
            body: "{}".into(),
            headers: BTreeMap::new(),
            attempts: vec![],
        };
        let text = serde_json::to_string(&d).unwrap_or_default();
        let back: Result<DeliveryDetail, _> = serde_json::from_str(&text);
        assert_eq!(back.ok(), Some(d), "{text}");
    }
}
