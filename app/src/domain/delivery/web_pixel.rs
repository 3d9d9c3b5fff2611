//! Web pixel conversions (`GET /performance-marketing/v2/pixels/web/{campaignId}.gif`): the
//! advertiser's thank-you page loads the pixel with the click id its launch link gave it,
//! the `goal_id` reached and its own `transaction_id`.
//!
//! Trust level BROWSER (docs/postbacks.md, "Trust levels"): a browser cannot sign, so a
//! pixel proves only what the service can check itself, and everything it cannot is held.
//! The pixel is refused (no money moves) unless:
//! - the campaign's tracking setup turned it on, with the origins of the advertiser's pages
//!   (never on a Custom S2S campaign, whose advertiser chose signed reporting);
//! - the request names its page (`Origin`, else `Referer`) and the page is one of those
//!   origins;
//! - the click id is the *pixel click id* the launch link handed the advertiser's page
//!   (`<clickId>.<mac>`, made with the service key; the SDK's launch answer never carries
//!   it), so the link was followed in a browser, and the redirect recorded when;
//! - at least the campaign's minimum time passed since the link was followed.
//!
//! An accepted pixel is settled like every report (attribution by click, one conversion
//! per transaction, duplicates and conflicts), screened for fraud, and held for the
//! campaign's review window instead of paid: the advertiser can reject it meanwhile, and it
//! pays when the window ends unless its signals hold it for a decision. Unfilled macros are
//! refused; the provider-callback rate limit applies per address.

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

use crate::domain::Ctx;
use crate::domain::campaigns::tracking::pixel;
use crate::domain::campaigns::{config_of, public_web_campaign};
use crate::domain::conversions::inbox;
use crate::domain::conversions::postbacks::validate;
use crate::domain::conversions::reported::Trust;
use crate::error::AppError;
use crate::model::campaign::CampaignStatus;
use crate::model::delivery::{CallbackReceipt, ConversionEvent};
use entity::sdk_launch;

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
pub const SOURCE: &str = crate::domain::conversions::reported::WEB_PIXEL_SOURCE;

fn refused(code: &'static str, message: &str) -> AppError {
    AppError::forbidden(message.to_owned()).with_code(code)
}

/// Records one pixel conversion.
pub async fn record(
    ctx: &Ctx,
    campaign_id: &str,
    hit: PixelHit,
) -> Result<CallbackReceipt, AppError> {
    let m = public_web_campaign(ctx, campaign_id).await?;
    if m.status == CampaignStatus::Draft {
        return Err(AppError::not_found("campaign"));
    }
    if !pixel::takes_pixel(&m, &config_of(&m)?) {
        return Err(refused(
            "pixel_not_enabled",
            "this campaign does not take web pixel reports (its tracking setup did not turn the pixel on)",
        ));
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
    let settings = pixel::settings_of(&m);
    let Some(page) = hit.page.as_deref() else {
        return Err(refused(
            "pixel_page_required",
            "the pixel must be loaded by a page (the browser's Origin or Referer names it)",
        ));
    };
    if !pixel::origin_allowed(&settings, page) {
        return Err(refused(
            "pixel_origin_mismatch",
            "the page that loaded the pixel is not one of the campaign's allowed origins",
        ));
    }
    let mut reported = validate(&ConversionEvent {
        click_id: hit.click_id.clone(),
        transaction_id: hit.transaction_id,
        goal_id: hit.goal_id,
        status: Some("approved".to_owned()),
        occurred_at: Some(ctx.now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
    })?;
    let unverified = || {
        refused(
            "pixel_click_unverified",
            "the click id is not one the campaign's launch link handed a browser",
        )
    };
    let click = pixel::verified_click(&ctx.keys, hit.click_id.as_deref().unwrap_or_default())
        .ok_or_else(unverified)?;
    let launch = sdk_launch::Entity::find()
        .filter(sdk_launch::Column::ClickId.eq(click.clone()))
        .filter(sdk_launch::Column::CampaignId.eq(m.id.clone()))
        .one(&ctx.db)
        .await?
        .ok_or_else(unverified)?;
    let Some(opened) = launch.opened_at else {
        return Err(unverified());
    };
    if (ctx.now() - opened).num_seconds() < settings.min_seconds_after_click {
        return Err(refused(
            "pixel_too_early",
            "the pixel came sooner after the click than the campaign allows",
        ));
    }
    reported.click_id = click;
    reported.trust = Trust::Pixel;
    inbox::ingest(ctx, &m, SOURCE, reported).await
}
