//! The tracking-provider catalogue: Custom S2S, the six certified measurement partners, the
//! older DIRECT and the MANAGED integration. A provider is selectable only when it is both
//! certified and enabled; measurement partners are enabled by `APP_FEATURE_MMP_MANUAL`.

use crate::domain::Ctx;
use crate::model::campaign::rules::CLICK_MACRO;
use crate::model::campaign::{Platform, ProviderCapabilities, ProviderCapability};

/// Version of the capabilities contract, bumped when an item's meaning changes.
pub const CONTRACT_VERSION: &str = "2026-11-01";

/// Certified measurement partners: (code, display name).
pub const MMP_PARTNERS: [(&str, &str); 6] = [
    ("APPSFLYER", "AppsFlyer"),
    ("ADJUST", "Adjust"),
    ("BRANCH", "Branch"),
    ("SINGULAR", "Singular"),
    ("KOCHAVA", "Kochava"),
    ("AIRBRIDGE", "Airbridge"),
];

/// Listed but not certified yet: visible, never selectable.
const UNCERTIFIED_PARTNERS: [(&str, &str); 1] = [("TENJIN", "Tenjin")];

pub use crate::model::campaign::tracking::{TrackingKind, kind_of};

/// The `callbackAuthentication` of a provider kind.
pub fn authentication(kind: TrackingKind) -> &'static str {
    match kind {
        TrackingKind::CustomS2s => "HMAC_SHA256",
        TrackingKind::Mmp => "CAMPAIGN_TOKEN",
        TrackingKind::Direct => "DIRECT_TOKEN",
        TrackingKind::Managed => "MANAGED_TOKEN",
    }
}

/// The measurement-partner code of an `MMP:<code>` provider.
pub fn mmp_code(tracking_provider: &str) -> Option<&str> {
    tracking_provider.strip_prefix("MMP:")
}

fn item(
    kind: TrackingKind,
    code: &str,
    name: &str,
    enabled: bool,
    certified: bool,
) -> ProviderCapability {
    let (platforms, path, legacy) = match kind {
        TrackingKind::CustomS2s => (
            Platform::ALL.to_vec(),
            "/performance-marketing/v2/postbacks/custom-s2s/{campaignId}".to_owned(),
            false,
        ),
        TrackingKind::Mmp => (
            vec![Platform::Android, Platform::Ios],
            format!(
                "/performance-marketing/v2/postbacks/mmp/{{campaignId}}/{}",
                code.to_ascii_lowercase()
            ),
            false,
        ),
        TrackingKind::Direct => (
            Platform::ALL.to_vec(),
            "/performance-marketing/v2/postbacks/direct".to_owned(),
            true,
        ),
        TrackingKind::Managed => (
            Platform::ALL.to_vec(),
            "/performance-marketing/v2/postbacks/managed".to_owned(),
            false,
        ),
    };
    let credential_fields = match kind {
        TrackingKind::CustomS2s => vec!["keyId", "secret"],
        TrackingKind::Mmp | TrackingKind::Direct | TrackingKind::Managed => vec!["token"],
    };
    ProviderCapability {
        code: code.to_owned(),
        kind,
        name: name.to_owned(),
        tracking_provider: match kind {
            TrackingKind::Mmp => format!("MMP:{code}"),
            _ => code.to_owned(),
        },
        enabled,
        certified,
        selectable: enabled && certified,
        platforms,
        events: vec![
            "pending".into(),
            "approved".into(),
            "rejected".into(),
            "reversed".into(),
        ],
        required_macros: vec![CLICK_MACRO.to_owned()],
        callback_authentication: authentication(kind).to_owned(),
        credential_fields: credential_fields.into_iter().map(str::to_owned).collect(),
        callback_path: path,
        legacy,
    }
}

/// Every provider, selectable or not.
pub fn catalogue(ctx: &Ctx) -> ProviderCapabilities {
    let mmp = ctx.config.mmp_manual_enabled;
    let mut items = vec![item(
        TrackingKind::CustomS2s,
        "CUSTOM_S2S",
        "Custom server-to-server",
        true,
        true,
    )];
    items.extend(
        MMP_PARTNERS
            .iter()
            .map(|(code, name)| item(TrackingKind::Mmp, code, name, mmp, true)),
    );
    items.extend(
        UNCERTIFIED_PARTNERS
            .iter()
            .map(|(code, name)| item(TrackingKind::Mmp, code, name, mmp, false)),
    );
    items.push(item(
        TrackingKind::Direct,
        "DIRECT",
        "Direct token (older)",
        true,
        true,
    ));
    items.push(item(
        TrackingKind::Managed,
        "MANAGED",
        "Managed integration",
        true,
        true,
    ));
    ProviderCapabilities {
        contract_version: CONTRACT_VERSION.to_owned(),
        items,
    }
}

/// Refuses a provider that is unknown, uncertified or disabled.
pub fn check_selectable(ctx: &Ctx, tracking_provider: &str) -> Result<(), String> {
    match catalogue(ctx)
        .items
        .into_iter()
        .find(|p| p.tracking_provider == tracking_provider)
    {
        Some(p) if p.selectable => Ok(()),
        Some(p) if !p.certified => Err(format!("{} is not certified yet", p.name)),
        Some(p) => Err(format!("{} is not enabled on this service", p.name)),
        None => Err(format!("{tracking_provider} is not a known provider")),
    }
}
