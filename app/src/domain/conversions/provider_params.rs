//! From the parameters of a token-authenticated callback to the canonical conversion event:
//! a measurement partner's own names are mapped with [`PARTNER_PARAMS`] (the one table, in
//! `model::postbacks`), partner event kinds become `approved` or `rejected`, and Unix
//! seconds, Unix milliseconds or `YYYY-MM-DD HH:MM:SS` (UTC) timestamps become RFC 3339.

use chrono::{DateTime, NaiveDateTime, SecondsFormat, Utc};

use crate::domain::campaigns::tracking::CONVERSION_STATUSES;
use crate::model::delivery::ConversionEvent;
use crate::model::postbacks::PartnerParams;

/// Flattens a JSON object into name/value pairs: strings as they are, numbers and booleans
/// as text, nested values as their JSON text, nulls left out.
pub fn pairs_from_json(obj: &serde_json::Map<String, serde_json::Value>) -> Vec<(String, String)> {
    obj.iter()
        .filter_map(|(k, v)| {
            let v = match v {
                serde_json::Value::Null => return None,
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            Some((k.clone(), v))
        })
        .collect()
}

/// The canonical event of a callback. With a partner, every canonical field is read from
/// its canonical name first, then from the partner's names in table order; without one
/// (direct, managed), from the canonical names only. Empty values count as absent.
pub fn canonical_event(
    partner: Option<&PartnerParams>,
    params: &[(String, String)],
) -> ConversionEvent {
    let pick = |field: &str| -> Option<String> {
        let names = match partner {
            Some(p) => p.names(field),
            None => vec![],
        };
        std::iter::once(field)
            .chain(names.into_iter().filter(|n| *n != field))
            .find_map(|name| {
                params
                    .iter()
                    .find(|(k, v)| k == name && !v.trim().is_empty())
                    .map(|(_, v)| v.clone())
            })
    };
    ConversionEvent {
        click_id: pick("click_id"),
        transaction_id: pick("transaction_id"),
        goal_id: pick("goal_id"),
        status: pick("status").map(|s| match partner {
            Some(p) => status_word(p, &s),
            None => s,
        }),
        occurred_at: pick("occurred_at").map(|t| normalise_time(&t)),
    }
}

/// A partner's status or event kind as a canonical status; an unknown word is returned as
/// sent, so validation names it.
pub fn status_word(partner: &PartnerParams, raw: &str) -> String {
    let w = raw.trim().to_ascii_lowercase().replace(['-', ' '], "_");
    if CONVERSION_STATUSES.contains(&w.as_str()) {
        w
    } else if partner.approved_words.contains(&w.as_str()) {
        "approved".to_owned()
    } else if partner.rejected_words.contains(&w.as_str()) {
        "rejected".to_owned()
    } else {
        raw.to_owned()
    }
}

/// Unix seconds (up to 11 digits), Unix milliseconds (12 to 14 digits) and
/// `YYYY-MM-DD HH:MM:SS[.fff]` (UTC) become RFC 3339 UTC; anything else is returned as sent
/// (an RFC 3339 value stays byte-identical, so exact retries keep matching).
pub fn normalise_time(raw: &str) -> String {
    let t = raw.trim();
    if !t.is_empty() && t.len() <= 14 && t.bytes().all(|b| b.is_ascii_digit()) {
        let Ok(n) = t.parse::<i64>() else {
            return raw.to_owned();
        };
        let parsed = if t.len() <= 11 {
            DateTime::<Utc>::from_timestamp(n, 0)
                .map(|d| d.to_rfc3339_opts(SecondsFormat::Secs, true))
        } else {
            DateTime::<Utc>::from_timestamp_millis(n)
                .map(|d| d.to_rfc3339_opts(SecondsFormat::Millis, true))
        };
        return parsed.unwrap_or_else(|| raw.to_owned());
    }
    if t.len() >= 19
        && t.as_bytes().get(10) == Some(&b' ')
        && let Ok(d) = NaiveDateTime::parse_from_str(t, "%Y-%m-%d %H:%M:%S%.f")
    {
        return d.and_utc().to_rfc3339_opts(SecondsFormat::AutoSi, true);
    }
    raw.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::postbacks::{PARTNER_PARAMS, partner_params};

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn appsflyer_names_and_event_kinds_map_to_the_canonical_event() {
        let af = partner_params("APPSFLYER");
        let ev = canonical_event(
            af,
            &pairs(&[
                ("clickid", "clk_1"),
                ("event_id", "evt-9"),
                ("event_name", "install"),
                ("event_type", "install"),
                ("event_time", "2026-03-02 09:05:00.123"),
                ("idfa", "ignored"),
            ]),
        );
        assert_eq!(ev.click_id.as_deref(), Some("clk_1"));
        assert_eq!(ev.transaction_id.as_deref(), Some("evt-9"));
        assert_eq!(ev.goal_id.as_deref(), Some("install"));
        assert_eq!(ev.status.as_deref(), Some("approved"));
        assert_eq!(ev.occurred_at.as_deref(), Some("2026-03-02T09:05:00.123Z"));
        let rejected = canonical_event(af, &pairs(&[("event_type", "Rejected-Install")]));
        assert_eq!(rejected.status.as_deref(), Some("rejected"));
    }

    #[test]
    fn canonical_names_win_and_are_accepted_for_every_partner() {
        for p in &PARTNER_PARAMS {
            let ev = canonical_event(
                Some(p),
                &pairs(&[
                    ("click_id", "clk_a"),
                    (p.click_id[0], "clk_b"),
                    ("status", "pending"),
                    (p.status[0], "install"),
                ]),
            );
            assert_eq!(ev.click_id.as_deref(), Some("clk_a"), "{}", p.code);
            assert_eq!(ev.status.as_deref(), Some("pending"), "{}", p.code);
        }
        // Without a partner only the canonical names count.
        let ev = canonical_event(None, &pairs(&[("clickid", "x"), ("status", "approved")]));
        assert_eq!(
            (ev.click_id, ev.status.as_deref()),
            (None, Some("approved"))
        );
    }

    #[test]
    fn timestamps_are_normalised() {
        assert_eq!(normalise_time("1772442300"), "2026-03-02T09:05:00Z");
        assert_eq!(normalise_time("1772442300123"), "2026-03-02T09:05:00.123Z");
        assert_eq!(
            normalise_time("2026-03-02 09:05:00"),
            "2026-03-02T09:05:00Z"
        );
        assert_eq!(
            normalise_time("2026-03-02T09:05:00Z"),
            "2026-03-02T09:05:00Z"
        );
        assert_eq!(normalise_time("999999999999999"), "999999999999999");
        assert_eq!(normalise_time("yesterday"), "yesterday");
        let adjust = partner_params("adjust");
        let ev = canonical_event(
            adjust,
            &pairs(&[("created_at", "1772442300"), ("activity_kind", "event")]),
        );
        assert_eq!(ev.occurred_at.as_deref(), Some("2026-03-02T09:05:00Z"));
        assert_eq!(ev.status.as_deref(), Some("approved"));
    }
}
