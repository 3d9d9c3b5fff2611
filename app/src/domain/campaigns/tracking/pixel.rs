//! The web pixel as a tracking method the advertiser chooses (issue 51). A browser cannot
//! sign, so the pixel is off until the advertiser turns it on with the origins of the pages
//! that may load it, and a Custom S2S campaign (whose advertiser chose signed reporting)
//! never takes it. On a pixel campaign the launch link hands the advertiser's page a
//! *pixel click id* (`<clickId>.<mac>`) in place of `{click_id}`: the SDK's launch answer
//! never contains it, so a user who only has the SDK's click id cannot report a conversion;
//! the redirect that reveals it records that the link was followed, when and from where.

use sea_orm::{ActiveModelTrait, IntoActiveModel, Set};
use serde::{Deserialize, Serialize};

use super::credentials::require_open;
use crate::domain::campaigns::providers::{TrackingKind, kind_of};
use crate::domain::campaigns::store::SUBJECT;
use crate::domain::campaigns::{config_of, locked_campaign, owned_campaign};
use crate::domain::{Ctx, Keys, Principal, db};
use crate::error::{AppError, FieldErrors};
use crate::model::campaign::tracking::{TrustLevel, WebPixel, WebPixelSettingsInput};
use crate::model::campaign::{CampaignConfig, Platform};
use entity::offer_campaign;

/// A pixel sooner than this after the launch link was followed is refused, by default.
pub const DEFAULT_MIN_SECONDS_AFTER_CLICK: i64 = 20;
/// How long pixel conversions are held before they pay, by default.
pub const DEFAULT_REVIEW_HOURS: i64 = 72;
/// Hex characters of the pixel click id's MAC (128 bits).
const MAC_LEN: usize = 32;
const MAX_ORIGINS: usize = 10;

/// The settings as stored (`offer_campaigns.web_pixel`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    #[serde(default)]
    enabled: bool,
    #[serde(default)]
    allowed_origins: Vec<String>,
    min_seconds_after_click: Option<i64>,
    review_hours: Option<i64>,
}

/// A campaign's pixel settings in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PixelSettings {
    pub enabled: bool,
    pub allowed_origins: Vec<String>,
    pub min_seconds_after_click: i64,
    pub review_hours: i64,
}

/// The campaign's pixel settings (defaults where none are stored).
pub fn settings_of(m: &offer_campaign::Model) -> PixelSettings {
    let s: Stored = serde_json::from_str(&m.web_pixel).unwrap_or_default();
    PixelSettings {
        enabled: s.enabled,
        allowed_origins: s.allowed_origins,
        min_seconds_after_click: s
            .min_seconds_after_click
            .unwrap_or(DEFAULT_MIN_SECONDS_AFTER_CLICK),
        review_hours: s.review_hours.unwrap_or(DEFAULT_REVIEW_HOURS),
    }
}

/// Whether the campaign could take a pixel: it runs on the web and does not report by
/// signed Custom S2S.
fn supported(m: &offer_campaign::Model, config: &CampaignConfig) -> bool {
    config.platforms.contains(&Platform::Web)
        && kind_of(&m.tracking_provider) != TrackingKind::CustomS2s
}

/// Whether the campaign takes pixel reports now (supported, turned on, with origins).
pub fn takes_pixel(m: &offer_campaign::Model, config: &CampaignConfig) -> bool {
    let s = settings_of(m);
    supported(m, config) && s.enabled && !s.allowed_origins.is_empty()
}

/// The origin (`scheme://host[:port]`, lower case) of a page address or origin.
pub fn origin_of(page: &str) -> Option<String> {
    let u = url::Url::parse(page.trim()).ok()?;
    if !matches!(u.scheme(), "https" | "http") {
        return None;
    }
    let origin = u.origin();
    origin
        .is_tuple()
        .then(|| origin.ascii_serialization().to_ascii_lowercase())
}

/// Whether a page (`Origin` or `Referer`) is one the advertiser allowed.
pub fn origin_allowed(settings: &PixelSettings, page: &str) -> bool {
    origin_of(page).is_some_and(|o| settings.allowed_origins.iter().any(|a| *a == o))
}

fn pixel_message(click_id: &str) -> String {
    format!("pixel-click:{click_id}")
}

/// The click id a pixel campaign's launch link gives the advertiser's page.
pub fn pixel_click_id(keys: &Keys, click_id: &str) -> String {
    let mac = keys.sign(&pixel_message(click_id));
    format!("{click_id}.{}", &mac[..MAC_LEN])
}

/// The click behind a pixel click id, when its MAC is right (checked in constant time).
pub fn verified_click(keys: &Keys, pixel_click: &str) -> Option<String> {
    let (click, mac) = pixel_click.rsplit_once('.')?;
    let expected = keys.sign(&pixel_message(click));
    crate::domain::crypto::constant_time_eq(expected[..MAC_LEN].as_bytes(), mac.as_bytes())
        .then(|| click.to_owned())
}

/// The click id a report names: a pixel click id stands for its click (measurement
/// partners of a pixel campaign receive it through the `{click_id}` macro too; their
/// reports are authenticated by the campaign's token, so the MAC is not needed there).
pub fn report_click(click_id: &str) -> &str {
    match click_id.rsplit_once('.') {
        Some((click, mac)) if mac.len() == MAC_LEN => click,
        _ => click_id,
    }
}

/// The campaign's pixel as its tracking setup shows it.
pub fn view(ctx: &Ctx, m: &offer_campaign::Model, config: &CampaignConfig) -> WebPixel {
    let s = settings_of(m);
    let url = format!(
        "{}/performance-marketing/v2/pixels/web/{}.gif?click_id={{click_id}}&goal_id={}&transaction_id={{transaction_id}}",
        ctx.config.base_url,
        m.id,
        config
            .goals
            .first()
            .map(|g| g.external_goal_id.as_str())
            .unwrap_or("install")
    );
    WebPixel {
        supported: supported(m, config),
        enabled: s.enabled,
        allowed_origins: s.allowed_origins,
        min_seconds_after_click: s.min_seconds_after_click,
        review_hours: s.review_hours,
        trust_level: TrustLevel::Browser,
        html_snippet: format!(
            r#"<img src="{url}" width="1" height="1" alt="" style="display:none" referrerpolicy="origin">"#
        ),
        pixel_url: url,
    }
}

/// `GET tracking/web-pixels`.
pub async fn get(ctx: &Ctx, actor: &Principal, id: &str) -> Result<WebPixel, AppError> {
    let m = owned_campaign(&ctx.db, actor, id).await?;
    Ok(view(ctx, &m, &config_of(&m)?))
}

/// `PUT tracking/web-pixel`: turns the pixel on or off and sets its limits.
pub async fn set(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    input: WebPixelSettingsInput,
) -> Result<WebPixel, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked_campaign(&txn, actor, id).await?;
    require_open(&m)?;
    let config = config_of(&m)?;
    let old = settings_of(&m);
    let mut errs = FieldErrors::new();
    let enabled = input.enabled.unwrap_or(old.enabled);
    let mut origins = old.allowed_origins.clone();
    if let Some(raw) = &input.allowed_origins {
        origins.clear();
        if raw.len() > MAX_ORIGINS {
            errs.add("allowedOrigins", format!("at most {MAX_ORIGINS} origins"));
        }
        for (i, o) in raw.iter().take(MAX_ORIGINS).enumerate() {
            match origin_of(o) {
                Some(o) if !origins.contains(&o) => origins.push(o),
                Some(_) => {}
                None => errs.add(
                    &format!("allowedOrigins[{i}]"),
                    "must be an https:// or http:// origin such as https://shop.example",
                ),
            }
        }
    }
    if enabled && origins.is_empty() {
        errs.add(
            "allowedOrigins",
            "name at least one origin of the pages that load the pixel",
        );
    }
    let min_seconds = input
        .min_seconds_after_click
        .unwrap_or(old.min_seconds_after_click);
    if !(0..=86_400).contains(&min_seconds) {
        errs.add("minSecondsAfterClick", "must be 0 to 86400");
    }
    let review_hours = input.review_hours.unwrap_or(old.review_hours);
    if !(1..=720).contains(&review_hours) {
        errs.add("reviewHours", "must be 1 to 720");
    }
    errs.finish()?;
    if enabled && !supported(&m, &config) {
        return Err(AppError::conflict(
            "the web pixel needs a web campaign that does not report by signed Custom S2S",
        )
        .with_code("pixel_not_supported"));
    }
    let stored = Stored {
        enabled,
        allowed_origins: origins,
        min_seconds_after_click: Some(min_seconds),
        review_hours: Some(review_hours),
    };
    let json = serde_json::to_string(&stored).map_err(|_| AppError::internal())?;
    let mut a = m.into_active_model();
    a.web_pixel = Set(json.clone());
    a.updated_at = Set(now);
    let m = a.update(&txn).await?;
    let detail = serde_json::from_str(&json).unwrap_or_default();
    actor
        .audit(&txn, now, "campaign.web_pixel", (SUBJECT, &m.id), detail)
        .await?;
    txn.commit().await?;
    Ok(view(ctx, &m, &config))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(origins: &[&str]) -> PixelSettings {
        PixelSettings {
            enabled: true,
            allowed_origins: origins.iter().map(|o| (*o).to_owned()).collect(),
            min_seconds_after_click: 20,
            review_hours: 72,
        }
    }

    #[test]
    fn only_allowed_origins_pass() {
        let s = settings(&["https://shop.example"]);
        assert!(origin_allowed(&s, "https://shop.example/thanks?o=1"));
        assert!(origin_allowed(&s, "https://SHOP.example"));
        assert!(!origin_allowed(&s, "http://shop.example/"));
        assert!(!origin_allowed(&s, "https://shop.example.evil.example/"));
        assert!(!origin_allowed(&s, "https://checkout.shop.example/"));
        assert!(!origin_allowed(&s, "null"));
    }

    #[test]
    fn a_pixel_click_id_needs_the_service_key() {
        let keys = Keys::from_master(&[3u8; 32]);
        let token = pixel_click_id(&keys, "clk_1");
        assert_eq!(verified_click(&keys, &token).as_deref(), Some("clk_1"));
        assert_eq!(report_click(&token), "clk_1");
        assert_eq!(verified_click(&keys, "clk_1"), None);
        let forged = format!(
            "clk_2.{}",
            token.rsplit_once('.').map(|t| t.1).unwrap_or("")
        );
        assert_eq!(verified_click(&keys, &forged), None);
        let other = Keys::from_master(&[4u8; 32]);
        assert_eq!(verified_click(&other, &token), None);
        assert_eq!(report_click("clk_plain"), "clk_plain");
    }
}
