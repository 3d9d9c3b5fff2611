//! The body of a reward callback, as the receiver gets it (docs/callbacks.md): one typed
//! value for the outbox and for the console's test event, so both send the same shape.

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Value, json};

use crate::model::publisher::RewardPreview;

/// The fields of one reward event.
pub struct RewardPayload<'a> {
    /// Also the `Idempotency-Key` of every attempt.
    pub event_id: &'a str,
    /// `reward.confirmed` or `reward.reversed`.
    pub event_type: &'a str,
    /// A test event from the console: never credited.
    pub test: bool,
    /// The conversion (its id), the same for a confirmation and its reversal.
    pub transaction_id: &'a str,
    pub placement_id: &'a str,
    pub ad_slot_id: Option<&'a str>,
    pub external_user_id: &'a str,
    pub campaign_id: &'a str,
    pub goal_id: &'a str,
    pub reward: &'a RewardPreview,
    pub occurred_at: DateTime<Utc>,
}

impl RewardPayload<'_> {
    /// The JSON body (camelCase, times in whole seconds).
    pub fn to_json(&self) -> Value {
        let r = self.reward;
        json!({
            "eventId": self.event_id,
            "eventType": self.event_type,
            "test": self.test,
            "transactionId": self.transaction_id,
            "placementId": self.placement_id,
            "adSlotId": self.ad_slot_id,
            "externalUserId": self.external_user_id,
            "campaignId": self.campaign_id,
            "goalId": self.goal_id,
            "reward": {"minorUnits": r.minor_units, "currency": r.currency, "decimals": r.decimals, "display": r.display},
            "payoutUsdMicros": r.usd_micros,
            "occurredAt": self.occurred_at.to_rfc3339_opts(SecondsFormat::Secs, true),
        })
    }
}
