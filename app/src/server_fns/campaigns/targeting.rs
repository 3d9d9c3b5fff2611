//! Device and region targeting of an offer campaign from the dashboard. The form sends one
//! checkbox per device type, a minimum OS version per platform and the regions as
//! comma-separated text; the rules live in `model::campaign::device_targeting`.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::campaign::*;

#[cfg(feature = "ssr")]
use crate::server_fns::campaigns::support;

/// Replaces the campaign's targeting (an unchanged form makes no revision).
#[server(prefix = "/fn", endpoint = "campaigns_targeting")]
#[allow(clippy::too_many_arguments)]
pub async fn edit_campaign_targeting(
    campaign_id: String,
    phone: Option<String>,
    tablet: Option<String>,
    desktop: Option<String>,
    tv: Option<String>,
    other: Option<String>,
    min_android: Option<String>,
    min_ios: Option<String>,
    regions: Option<String>,
    csrf: String,
) -> Result<Campaign, AppError> {
    crate::server_fns::web::run(async move {
        use crate::domain::campaigns::store;
        let (ctx, _, p) = support::writer(&csrf).await?;
        let device_types = [
            (phone, "phone"),
            (tablet, "tablet"),
            (desktop, "desktop"),
            (tv, "tv"),
            (other, "other"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.map(|_| name.to_owned()))
        .collect();
        let wanted = Targeting {
            device_types,
            min_os_version: MinOsVersion {
                android: support::text(min_android),
                ios: support::text(min_ios),
            },
            regions: support::list(regions),
        };
        let id = campaign_id.trim();
        let current = store::get(&ctx, &p, id).await?;
        if wanted == current.config.targeting {
            return Ok(current);
        }
        let patch = CampaignInput {
            targeting: Some(wanted),
            ..CampaignInput::default()
        };
        store::update(&ctx, &p, id, patch).await
    })
    .await
}
