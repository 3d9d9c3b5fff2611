//! The body of an account webhook's event, in the Standard Webhooks shape: `type`,
//! `timestamp` and the event's `data` (the notice as the dashboard shows it). The OpenAPI
//! document's `webhooks` section describes it (`AccountEvent`).

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Value, json};

use super::Notice;

/// The event of notice `notice_id` (or a test event), delivered as message `message_id`.
pub fn body(
    message_id: &str,
    event_type: &str,
    at: DateTime<Utc>,
    notice_id: &str,
    n: &Notice,
) -> Value {
    json!({
        "id": message_id,
        "type": event_type,
        "timestamp": at.to_rfc3339_opts(SecondsFormat::Secs, true),
        "data": {
            "noticeId": notice_id,
            "title": n.title,
            "body": n.body,
            "link": n.link,
            "subjectType": n.subject.as_ref().map(|s| s.0),
            "subjectId": n.subject.as_ref().map(|s| s.1.clone()),
        }
    })
}
