//! The Custom S2S signing rules the postback check enforces (clock skew, statuses) and the
//! test route that checks a sample against them. Kept apart because it is the only place
//! that computes a signature for a caller, with the rules that keep it no signing oracle.

use std::collections::BTreeMap;

use chrono::DateTime;

use super::credentials::{active, open_secret, postback_url, require_kind};
use crate::domain::campaigns::providers::TrackingKind;
use crate::domain::campaigns::{config_of, owned_campaign};
use crate::domain::{Ctx, Principal, crypto};
use crate::error::AppError;
use crate::model::campaign::rules::s2s_message;
use crate::model::campaign::*;

/// Largest accepted distance between a Custom S2S timestamp and the server clock.
pub const MAX_SKEW_SECONDS: i64 = 300;
/// Conversion statuses a reporter may send.
pub const CONVERSION_STATUSES: [&str; 4] = ["pending", "approved", "rejected", "reversed"];

/// `custom-s2s/test`: checks a sample conversion locally against the active key. Nothing is
/// delivered and nothing is written.
pub async fn test_s2s(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    req: S2sTestRequest,
) -> Result<S2sTestResult, AppError> {
    let m = owned_campaign(&ctx.db, actor, id).await?;
    require_kind(&m, TrackingKind::CustomS2s)?;
    let cred = active(&ctx.db, &m.id, TrackingKind::CustomS2s)
        .await?
        .ok_or_else(|| {
            AppError::conflict("create a Custom S2S key first").with_code("credential_missing")
        })?;
    let secret = open_secret(ctx, &cred)?;
    let config = config_of(&m)?;
    let now = ctx.now();
    // The route signs only its own sample: values the caller chose are checked against the
    // caller's signature, never signed for it (the route is no signing oracle).
    let caller_values = [
        &req.click_id,
        &req.transaction_id,
        &req.goal_id,
        &req.status,
        &req.occurred_at,
        &req.timestamp,
    ]
    .iter()
    .any(|v| v.is_some());
    let click = req.click_id.unwrap_or_else(|| "clk_sample".to_owned());
    let txn_id = req
        .transaction_id
        .unwrap_or_else(|| "txn_sample_1".to_owned());
    let goal = req.goal_id.unwrap_or_else(|| {
        config
            .goals
            .first()
            .map(|g| g.external_goal_id.clone())
            .unwrap_or_default()
    });
    let status = req.status.unwrap_or_else(|| "approved".to_owned());
    let occurred = req
        .occurred_at
        .unwrap_or_else(|| now.to_rfc3339_opts(chrono::SecondsFormat::Secs, true));
    let timestamp = req.timestamp.unwrap_or_else(|| now.timestamp().to_string());
    let message = s2s_message(&timestamp, &click, &txn_id, &goal, &status, &occurred);
    let expected = crypto::hmac_sha256_hex(secret.as_bytes(), message.as_bytes());
    let mut checks = Vec::new();
    let mut check = |name: &str, ok: bool, message: String| {
        checks.push(TestCheck {
            name: name.to_owned(),
            ok,
            message,
        })
    };
    check(
        "click_id",
        !click.trim().is_empty(),
        "the click id received through {click_id}".to_owned(),
    );
    check(
        "transaction_id",
        !txn_id.trim().is_empty() && txn_id.len() <= 200,
        "a stable id of the conversion, 1-200 characters".to_owned(),
    );
    check(
        "goal_id",
        config.goals.iter().any(|g| g.external_goal_id == goal),
        format!(
            "one of the campaign's goals: {}",
            config
                .goals
                .iter()
                .map(|g| g.external_goal_id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );
    check(
        "status",
        CONVERSION_STATUSES.contains(&status.as_str()),
        "pending, approved, rejected or reversed".to_owned(),
    );
    check(
        "occurred_at",
        DateTime::parse_from_rfc3339(&occurred).is_ok(),
        "an ISO 8601 date-time, UTC".to_owned(),
    );
    let skew_ok = timestamp.parse::<i64>().is_ok_and(|t| {
        now.timestamp()
            .checked_sub(t)
            .and_then(i64::checked_abs)
            .is_some_and(|d| d <= MAX_SKEW_SECONDS)
    });
    check(
        "timestamp",
        skew_ok,
        format!("Unix seconds within {MAX_SKEW_SECONDS} seconds of the server clock"),
    );
    let signature = match req.signature {
        None if caller_values => {
            check(
                "signature",
                false,
                "send the signature you computed for your own values; only the built-in sample is signed here"
                    .to_owned(),
            );
            String::new()
        }
        Some(sig) => {
            let ok = crypto::constant_time_eq(
                sig.trim().to_ascii_lowercase().as_bytes(),
                expected.as_bytes(),
            );
            check(
                "signature",
                ok,
                "HMAC-SHA256 of the newline-joined message with the active key".to_owned(),
            );
            sig
        }
        None => expected,
    };
    let valid = checks.iter().all(|c| c.ok);
    let mut headers = BTreeMap::new();
    headers.insert("Content-Type".to_owned(), "application/json".to_owned());
    headers.insert("X-Service-Key-Id".to_owned(), cred.key_id.clone());
    headers.insert("X-Service-Timestamp".to_owned(), timestamp);
    headers.insert("X-Service-Signature".to_owned(), signature);
    Ok(S2sTestResult {
        valid,
        checks,
        delivered_externally: false,
        accounting_writes: 0,
        signed_message: message,
        request: SampleRequest {
            method: "POST".to_owned(),
            url: postback_url(ctx, &m),
            headers,
            body: serde_json::json!({
                "click_id": click, "transaction_id": txn_id, "goal_id": goal,
                "status": status, "occurred_at": occurred,
            }),
        },
    })
}
