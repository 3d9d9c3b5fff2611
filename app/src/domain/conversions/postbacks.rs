//! Conversion callbacks from advertisers. Custom S2S: HMAC-SHA256 over the six values
//! (timestamp, click_id, transaction_id, goal_id, status, occurred_at) with the campaign's
//! active key, a timestamp within five minutes, and the campaign's IP allowlist. An
//! accepted report goes into the inbox and is settled in the same transaction.

use std::net::IpAddr;

use sea_orm::EntityTrait;

use super::inbox;
use super::reported::{Reported, ReportedStatus, Trust, parse_occurred_at};
use crate::domain::campaigns::providers::{TrackingKind, kind_of};
use crate::domain::campaigns::tracking::pixel::report_click;
use crate::domain::campaigns::tracking::{MAX_SKEW_SECONDS, allowlisted, s2s_secret};
use crate::domain::{Ctx, crypto};
use crate::error::{AppError, FieldErrors};
use crate::model::campaign::CampaignStatus;
use crate::model::campaign::rules::s2s_message;
use crate::model::delivery::{CallbackReceipt, ConversionEvent};
use entity::offer_campaign;

/// The signing headers of a Custom S2S callback.
#[derive(Debug, Clone, Default)]
pub struct S2sHeaders {
    pub key_id: Option<String>,
    pub timestamp: Option<String>,
    pub signature: Option<String>,
}

/// Checks the five canonical fields.
pub fn validate(ev: &ConversionEvent) -> Result<Reported, AppError> {
    let mut errs = FieldErrors::new();
    let mut field = |name: &str, v: &Option<String>, max: usize| -> String {
        let v = v.as_deref().unwrap_or_default().to_owned();
        if v.trim().is_empty() || v.len() > max {
            errs.add(name, format!("is required, at most {max} characters"));
        }
        v
    };
    let click_id = field("click_id", &ev.click_id, 128);
    let transaction_id = field("transaction_id", &ev.transaction_id, 200);
    let goal_id = field("goal_id", &ev.goal_id, 64);
    let status = field("status", &ev.status, 16);
    let occurred_at_raw = field("occurred_at", &ev.occurred_at, 64);
    let parsed = ReportedStatus::parse(&status);
    if !status.is_empty() && parsed.is_none() {
        errs.add("status", "must be pending, approved, rejected or reversed");
    }
    let occurred_at = parse_occurred_at(&occurred_at_raw);
    if occurred_at.is_none() && !occurred_at_raw.is_empty() {
        errs.add(
            "occurred_at",
            "must be an ISO 8601 date-time, e.g. 2026-11-21T10:00:00Z",
        );
    }
    errs.finish()?;
    Ok(Reported {
        // A pixel campaign's click id (`<click>.<mac>`, what its launch link gave the page)
        // stands for its click.
        click_id: report_click(&click_id).to_owned(),
        transaction_id,
        goal_id,
        // Refused above unless it parsed.
        status: parsed.unwrap_or(ReportedStatus::Pending),
        occurred_at_raw,
        occurred_at: occurred_at.unwrap_or_default(),
        trust: Trust::Reported,
        received_at: None,
    })
}

fn invalid_signature(why: &str) -> AppError {
    AppError::unauthorized(why.to_owned()).with_code("invalid_signature")
}

/// `POST|GET /performance-marketing/v2/postbacks/custom-s2s/{campaignId}`.
pub async fn custom_s2s(
    ctx: &Ctx,
    campaign_id: &str,
    headers: S2sHeaders,
    ev: ConversionEvent,
    source: IpAddr,
) -> Result<CallbackReceipt, AppError> {
    let m = offer_campaign::Entity::find_by_id(campaign_id.to_owned())
        .one(&ctx.db)
        .await?
        .filter(|m| {
            kind_of(&m.tracking_provider) == TrackingKind::CustomS2s
                && m.status != CampaignStatus::Draft
        })
        .ok_or_else(|| AppError::not_found("campaign"))?;
    let (Some(key_id), Some(timestamp), Some(signature)) =
        (headers.key_id, headers.timestamp, headers.signature)
    else {
        return Err(AppError::unauthorized(
            "X-Service-Key-Id, X-Service-Timestamp and X-Service-Signature are required",
        ));
    };
    let reported = validate(&ev)?;
    let ts: i64 = timestamp
        .trim()
        .parse()
        .map_err(|_| invalid_signature("X-Service-Timestamp must be Unix seconds"))?;
    if ctx
        .now()
        .timestamp()
        .checked_sub(ts)
        .is_none_or(|d| d.abs() > MAX_SKEW_SECONDS)
    {
        return Err(AppError::unauthorized(
            "X-Service-Timestamp is more than five minutes from the server clock",
        )
        .with_code("stale_timestamp"));
    }
    let secret = s2s_secret(ctx, &m.id, key_id.trim())
        .await?
        .ok_or_else(|| invalid_signature("unknown or retired key id"))?;
    let message = s2s_message(
        timestamp.trim(),
        &reported.click_id,
        &reported.transaction_id,
        &reported.goal_id,
        reported.status.as_str(),
        &reported.occurred_at_raw,
    );
    let expected = crypto::hmac_sha256_hex(secret.as_bytes(), message.as_bytes());
    if !crypto::constant_time_eq(
        expected.as_bytes(),
        signature.trim().to_ascii_lowercase().as_bytes(),
    ) {
        return Err(invalid_signature("the signature does not match"));
    }
    if !allowlisted(&m, source) {
        return Err(AppError::forbidden(
            "this source address is not on the campaign's IP allowlist",
        )
        .with_code("ip_not_allowed"));
    }
    inbox::ingest(ctx, &m, "CUSTOM_S2S", reported).await
}
