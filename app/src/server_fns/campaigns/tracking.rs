//! The tracking setup of an offer campaign from the dashboard: endpoint and credential
//! metadata, issuing and rotating the Custom S2S key or the campaign token, the local S2S
//! test, the IP allowlist.
//!
//! Secrets and tokens are shown once. A script caller gets them in the answer; a plain form
//! post is redirected back by Leptos and would lose it, so the secret is sealed into the
//! session as a flash the tracking page reads (and removes) while it renders.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::model::OneTimeSecret;
use crate::model::campaign::*;

#[cfg(feature = "ssr")]
use crate::server_fns::campaigns::support;

/// What the tracking page shows.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TrackingOverview {
    pub campaign: Campaign,
    pub setup: TrackingSetup,
    pub fraud_rules: crate::model::fraud::FraudRules,
}

/// What a plain form post left for the tracking page it returns to.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CampaignFlash {
    pub secret: Option<OneTimeSecret>,
    pub test: Option<S2sTestResult>,
}

/// How an issued credential is labelled where it is shown once.
pub fn secret_of(issued: &CredentialIssued) -> Option<OneTimeSecret> {
    let what = match issued.kind.as_str() {
        "CUSTOM_S2S" => "Custom S2S signing secret",
        "MMP" => "Measurement-partner campaign token",
        "DIRECT" => "Direct postback token",
        "MANAGED" => "Managed integration token",
        _ => "Campaign credential",
    };
    issued
        .secret
        .clone()
        .or_else(|| issued.token.clone())
        .map(|value| OneTimeSecret {
            label: format!("{what} (key {})", issued.key_id),
            value,
        })
}

/// The campaign and its tracking setup (no secrets).
#[server(prefix = "/fn", endpoint = "campaigns_tracking")]
pub async fn tracking_page_data(campaign_id: String) -> Result<TrackingOverview, AppError> {
    crate::server_fns::web::run(async move {
        use crate::domain::campaigns::{store, tracking};
        let (ctx, p) = support::reader().await?;
        let id = campaign_id.trim();
        Ok(TrackingOverview {
            campaign: store::get(&ctx, &p, id).await?,
            setup: tracking::setup(&ctx, &p, id).await?,
            fraud_rules: crate::domain::campaigns::fraud_rules::get(&ctx, &p, id).await?,
        })
    })
    .await
}

/// The flash a plain form post left for this campaign's tracking page.
#[server(prefix = "/fn", endpoint = "campaigns_take_flash")]
pub async fn take_campaign_flash(campaign_id: String) -> Result<CampaignFlash, AppError> {
    crate::server_fns::web::run(async move {
        let ctx = crate::server_fns::web::ctx()?;
        let session = crate::server_fns::web::session().await?;
        let scope = campaign_id.trim();
        Ok(CampaignFlash {
            secret: crate::server_fns::flash::take_secret(&ctx, &session, scope).await?,
            test: crate::server_fns::flash::take(&session, support::S2S_TEST, scope).await?,
        })
    })
    .await
}

/// Creates or rotates a credential. `kind`: CUSTOM_S2S (`op` create or rotate), MMP (create
/// or rotate), DIRECT or MANAGED (create). The domain refuses a kind that is not the
/// campaign's provider.
#[server(prefix = "/fn", endpoint = "campaigns_issue_credential")]
pub async fn issue_tracking_secret(
    campaign_id: String,
    kind: String,
    op: Option<String>,
    csrf: String,
) -> Result<CredentialIssued, AppError> {
    crate::server_fns::web::run(async move {
        use crate::domain::campaigns::providers::TrackingKind;
        use crate::domain::campaigns::tracking;
        let (ctx, session, p) = support::writer(&csrf).await?;
        let id = campaign_id.trim();
        let rotate = op.as_deref().map(str::trim) == Some("rotate");
        let issued = match (kind.trim(), rotate) {
            ("CUSTOM_S2S", false) => tracking::create_s2s(&ctx, &p, id).await?,
            ("CUSTOM_S2S", true) => tracking::rotate_s2s(&ctx, &p, id).await?,
            ("MMP", false) => tracking::token(&ctx, &p, id, TrackingKind::Mmp).await?,
            ("MMP", true) => tracking::rotate_mmp(&ctx, &p, id).await?,
            ("DIRECT", false) => tracking::token(&ctx, &p, id, TrackingKind::Direct).await?,
            ("MANAGED", false) => tracking::token(&ctx, &p, id, TrackingKind::Managed).await?,
            _ => {
                return Err(AppError::field(
                    "kind",
                    "must be CUSTOM_S2S or MMP (create or rotate), DIRECT or MANAGED (create)",
                ));
            }
        };
        if let Some(s) = secret_of(&issued) {
            crate::server_fns::flash::put_secret(&ctx, &session, id, &s.label, &s.value).await?;
        }
        Ok(issued)
    })
    .await
}

/// Checks a sample conversion locally against the active Custom S2S key: nothing is
/// delivered and nothing is accounted.
#[server(prefix = "/fn", endpoint = "campaigns_s2s_test")]
pub async fn run_tracking_test(
    campaign_id: String,
    csrf: String,
) -> Result<S2sTestResult, AppError> {
    crate::server_fns::web::run(async move {
        let (ctx, session, p) = support::writer(&csrf).await?;
        let id = campaign_id.trim();
        let result =
            crate::domain::campaigns::tracking::test_s2s(&ctx, &p, id, S2sTestRequest::default())
                .await?;
        crate::server_fns::flash::put(&session, support::S2S_TEST, id, &result).await?;
        Ok(result)
    })
    .await
}

/// Replaces the IP allowlist (comma or newline separated; empty allows any source).
#[server(prefix = "/fn", endpoint = "campaigns_ip_allowlist")]
pub async fn save_ip_allowlist(
    campaign_id: String,
    entries: Option<String>,
    csrf: String,
) -> Result<IpAllowlist, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let req = IpAllowlist {
            entries: support::list(entries),
        };
        crate::domain::campaigns::tracking::set_allowlist(&ctx, &p, campaign_id.trim(), req).await
    })
    .await
}

/// Turns the web pixel on or off and sets its limits (origins comma or newline separated;
/// the numbers as text, empty keeps the current value).
#[server(prefix = "/fn", endpoint = "campaigns_web_pixel")]
pub async fn save_web_pixel(
    campaign_id: String,
    enabled: Option<String>,
    origins: Option<String>,
    min_seconds: Option<String>,
    review_hours: Option<String>,
    csrf: String,
) -> Result<WebPixel, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let mut errs = crate::error::FieldErrors::new();
        let req = WebPixelSettingsInput {
            enabled: Some(enabled.is_some()),
            allowed_origins: Some(support::list(origins)),
            min_seconds_after_click: support::number::<i64>(
                &mut errs,
                "minSecondsAfterClick",
                min_seconds,
            ),
            review_hours: support::number::<i64>(&mut errs, "reviewHours", review_hours),
        };
        errs.finish()?;
        crate::domain::campaigns::tracking::pixel::set(&ctx, &p, campaign_id.trim(), req).await
    })
    .await
}

/// Sets the campaign's fraud rules (empty fields return to the defaults).
#[server(prefix = "/fn", endpoint = "campaigns_fraud_rules")]
pub async fn save_fraud_rules(
    campaign_id: String,
    hold_score: Option<String>,
    min_seconds: Option<String>,
    csrf: String,
) -> Result<crate::model::fraud::FraudRules, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        let mut errs = crate::error::FieldErrors::new();
        let hold_score = support::number::<i64>(&mut errs, "holdScore", hold_score);
        let min_seconds = support::number::<i64>(&mut errs, "minSecondsToConvert", min_seconds);
        errs.finish()?;
        let req = crate::model::fraud::FraudRulesInput {
            hold_score: hold_score.map(|s| i32::try_from(s).unwrap_or(i32::MAX)),
            min_seconds_to_convert: min_seconds,
        };
        crate::domain::campaigns::fraud_rules::put(&ctx, &p, campaign_id.trim(), req).await
    })
    .await
}

/// A shell command that posts the sample conversion of a local test, as the advertiser's
/// server would send it.
pub fn curl_command(test: &S2sTestResult) -> String {
    let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let mut lines = vec![format!(
        "curl -X {} {}",
        test.request.method,
        quote(&test.request.url)
    )];
    for (k, v) in &test.request.headers {
        lines.push(format!("  -H {}", quote(&format!("{k}: {v}"))));
    }
    lines.push(format!(
        "  --data {}",
        quote(&test.request.body.to_string())
    ));
    lines.join(" \\\n")
}
