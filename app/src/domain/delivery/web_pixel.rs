//! Web pixel conversions (`GET /performance-marketing/v2/pixels/web/{campaignId}.gif`): the
//! advertiser's thank-you page loads the pixel with the click's `click_id`, the `goal_id`
//! reached and its own `transaction_id`, and the conversion is settled with the same rules
//! as every other report (attribution by click, one conversion per click and goal, a repeat
//! of the same transaction is a duplicate, a different one a conflict).
//!
//! Trust level (docs/decisions.md, "Web pixel"): a browser cannot sign, so a pixel proves
//! less than a Custom S2S report. What limits it: the `click_id` must be a real click of
//! this campaign (random, never shown to other users); only web campaigns take pixels; the
//! report is always `approved` now (a pixel cannot send pending, rejected or reversed
//! states; reversals need Custom S2S); when the browser names the page (`Origin` or
//! `Referer`) its host must be the campaign's destination host or share it as a subdomain;
//! unfilled macros are refused; and the provider-callback rate limit applies per address.
//! Advertisers who need tamper-proof reporting use Custom S2S.

use crate::domain::Ctx;
use crate::domain::campaigns::{config_of, public_web_campaign, status_of};
use crate::domain::conversions::inbox;
use crate::domain::conversions::postbacks::validate;
use crate::error::AppError;
use crate::model::campaign::CampaignStatus;
use crate::model::delivery::{CallbackReceipt, ConversionEvent};

/// What the pixel request carries.
#[derive(Debug, Clone, Default)]
pub struct PixelHit {
    pub click_id: Option<String>,
    pub goal_id: Option<String>,
    pub transaction_id: Option<String>,
    /// The page that loaded the pixel (`Origin`, else `Referer`), when the browser sends it.
    pub page: Option<String>,
}

/// The settlement source recorded on pixel conversions.
pub const SOURCE: &str = "WEB_PIXEL";

/// Records one pixel conversion.
pub async fn record(
    ctx: &Ctx,
    campaign_id: &str,
    hit: PixelHit,
) -> Result<CallbackReceipt, AppError> {
    let m = public_web_campaign(ctx, campaign_id).await?;
    if status_of(&m) == CampaignStatus::Draft {
        return Err(AppError::not_found("campaign"));
    }
    for (name, v) in [
        ("click_id", &hit.click_id),
        ("goal_id", &hit.goal_id),
        ("transaction_id", &hit.transaction_id),
    ] {
        if v.as_deref()
            .is_some_and(|v| v.contains('{') || v.contains('}'))
        {
            return Err(AppError::field(name, "fill the macro with the real value"));
        }
    }
    if let Some(page) = hit.page.as_deref() {
        let destination = config_of(&m)?.destination_url;
        if !same_site(page, &destination) {
            return Err(AppError::forbidden(
                "the page that loaded the pixel is not on the campaign's destination site",
            )
            .with_code("pixel_origin_mismatch"));
        }
    }
    let reported = validate(&ConversionEvent {
        click_id: hit.click_id,
        transaction_id: hit.transaction_id,
        goal_id: hit.goal_id,
        status: Some("approved".to_owned()),
        occurred_at: Some(ctx.now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
    })?;
    inbox::ingest(ctx, &m, SOURCE, reported).await
}

/// Whether `page` is on the destination's site: the same host (ignoring `www.`) or one a
/// subdomain of the other.
fn same_site(page: &str, destination: &str) -> bool {
    let host = |u: &str| {
        url::Url::parse(&u.replace("{click_id}", "x"))
            .ok()
            .and_then(|u| {
                u.host_str()
                    .map(|h| h.trim_start_matches("www.").to_ascii_lowercase())
            })
    };
    match (host(page), host(destination)) {
        (Some(p), Some(d)) => {
            p == d || p.ends_with(&format!(".{d}")) || d.ends_with(&format!(".{p}"))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::same_site;

    #[test]
    fn pages_on_the_destination_site_only() {
        let d = "https://shop.example/install?click={click_id}";
        assert!(same_site("https://shop.example/thanks", d));
        assert!(same_site("https://www.shop.example", d));
        assert!(same_site("https://checkout.shop.example/done", d));
        assert!(!same_site("https://evil.example/", d));
        assert!(!same_site("https://shop.example.evil.example/", d));
        assert!(!same_site("not a url", d));
    }
}
