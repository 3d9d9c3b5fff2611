//! Device and region targeting of offer campaigns, and the device parameters an SDK offer
//! list may carry. A value the request does not send never excludes an offer: a campaign for
//! iOS 16 and later is still listed when the SDK sends no `osVersion` (less precise, never an
//! empty wall because a client is terse). Exactness where money is does not depend on these
//! hints: they narrow who sees an offer, caps and budget are enforced at launch.

use std::cmp::Ordering;
use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::model::validate::Errors;

wire_enum!(
    /// Where an offer runs.
    Platform { Android = "android", Ios = "ios", Web = "web" }
);

/// Device types an offer list may name and a campaign may target.
pub const DEVICE_TYPES: [&str; 5] = ["phone", "tablet", "desktop", "tv", "other"];
/// Browser families an offer list may name.
pub const BROWSERS: [&str; 8] = [
    "chrome", "safari", "firefox", "edge", "samsung", "opera", "webview", "other",
];
/// Most regions one campaign may list.
pub const MAX_REGIONS: usize = 200;

/// Lowest OS version per platform (web has no OS version to target).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MinOsVersion {
    /// Dotted numbers, e.g. "10" or "13.1".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub android: Option<String>,
    /// Dotted numbers, e.g. "16.4".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ios: Option<String>,
}

/// Who a campaign is for beyond platform and country. Empty lists mean "every".
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Targeting {
    /// phone, tablet, desktop, tv or other; empty targets every device type.
    #[serde(
        default,
        deserialize_with = "crate::model::validate::required_list_at_most::<_, _, 1000>"
    )]
    pub device_types: Vec<String>,
    #[serde(default)]
    pub min_os_version: MinOsVersion,
    /// ISO 3166-2 subdivisions such as "US-CA". A country with listed regions is targeted in
    /// those regions only; the campaign's other countries stay whole.
    #[serde(
        default,
        deserialize_with = "crate::model::validate::required_list_at_most::<_, _, 1000>"
    )]
    pub regions: Vec<String>,
}

impl Targeting {
    pub fn is_empty(&self) -> bool {
        *self == Targeting::default()
    }

    /// Whether the device may see the offer (unknown values admit).
    pub fn admits(&self, platform: Platform, country: Option<&str>, d: &Device) -> bool {
        if let Some(t) = d.device_type.as_deref()
            && !self.device_types.is_empty()
            && !self.device_types.iter().any(|x| x == t)
        {
            return false;
        }
        let min = match platform {
            Platform::Android => self.min_os_version.android.as_deref(),
            Platform::Ios => self.min_os_version.ios.as_deref(),
            Platform::Web => None,
        };
        if let (Some(min), Some(have)) = (min.and_then(|m| Version::parse(m).ok()), &d.os_version)
            && have < &min
        {
            return false;
        }
        if let (Some(country), Some(region)) = (country, d.region.as_deref()) {
            let prefix = format!("{country}-");
            let mut listed = self
                .regions
                .iter()
                .filter(|r| r.starts_with(&prefix))
                .peekable();
            if listed.peek().is_some() && !listed.any(|r| r == region) {
                return false;
            }
        }
        true
    }
}

/// A dotted numeric version, compared part by part with missing parts as zero (16 = 16.0).
#[derive(Debug, Clone)]
pub struct Version(Vec<u32>);

impl PartialEq for Version {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Version {}

impl Version {
    /// One to four dot-separated numbers of at most six digits each.
    pub fn parse(raw: &str) -> Result<Version, String> {
        let parts: Vec<&str> = raw.trim().split('.').collect();
        let ok = (1..=4).contains(&parts.len())
            && parts
                .iter()
                .all(|p| (1..=6).contains(&p.len()) && p.chars().all(|c| c.is_ascii_digit()));
        if !ok {
            return Err("must be a dotted numeric version such as 16 or 13.4.1".to_owned());
        }
        Ok(Version(
            parts.iter().filter_map(|p| p.parse().ok()).collect(),
        ))
    }

    fn part(&self, i: usize) -> u32 {
        self.0.get(i).copied().unwrap_or(0)
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> Ordering {
        (0..self.0.len().max(other.0.len()))
            .map(|i| self.part(i).cmp(&other.part(i)))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    }
}

/// A region code within `country`: "CA" or "US-CA" become "US-CA".
pub fn region(raw: &str, country: &str) -> Result<String, String> {
    let s = raw.trim().to_ascii_uppercase();
    let sub = match s.split_once('-') {
        Some((c, sub)) if c == country => sub.to_owned(),
        Some(_) => return Err(format!("must be a region of {country}")),
        None => s,
    };
    if (1..=3).contains(&sub.len()) && sub.chars().all(|c| c.is_ascii_alphanumeric()) {
        Ok(format!("{country}-{sub}"))
    } else {
        Err("must be an ISO 3166-2 subdivision code such as CA or US-CA".to_owned())
    }
}

/// The device an offer list request describes, validated.
#[derive(Debug, Clone, Default)]
pub struct Device {
    pub device_type: Option<String>,
    pub os_version: Option<Version>,
    /// "US-CA" form.
    pub region: Option<String>,
    pub manufacturer: Option<String>,
    pub browser: Option<String>,
    pub browser_version: Option<Version>,
}

/// Raw query values of an offer list, as sent.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeviceParams<'a> {
    pub state_code: Option<&'a str>,
    pub device_type: Option<&'a str>,
    pub device_manufacturer: Option<&'a str>,
    pub os_version: Option<&'a str>,
    pub browser: Option<&'a str>,
    pub browser_version: Option<&'a str>,
}

/// Checks the device parameters against each other and the session (`platform`, and the
/// request's `country`, which a state code needs). Field names are the query's.
pub fn device(
    q: DeviceParams<'_>,
    platform: &str,
    country: Option<&str>,
    errs: &mut Errors,
) -> Device {
    let mut fail = |field: &str, why: String| {
        errs.entry(field.to_owned()).or_insert(why);
    };
    let mut d = Device::default();
    if let Some(t) = given(q.device_type) {
        let t = t.to_ascii_lowercase();
        if !DEVICE_TYPES.contains(&t.as_str()) {
            fail(
                "deviceType",
                "must be phone, tablet, desktop, tv or other".into(),
            );
        } else if t == "desktop" && platform != "web" {
            fail("deviceType", "does not match the session's platform".into());
        } else {
            d.device_type = Some(t);
        }
    }
    if let Some(s) = given(q.state_code) {
        match country {
            None => fail("stateCode", "needs country".into()),
            Some(c) => match region(s, c) {
                Ok(r) => d.region = Some(r),
                Err(e) => fail("stateCode", e),
            },
        }
    }
    if let Some(m) = given(q.device_manufacturer) {
        let ok = m.chars().count() <= 64
            && m.chars()
                .all(|c| c.is_alphanumeric() || " .-_&()+".contains(c));
        if ok {
            d.manufacturer = Some(m.to_owned());
        } else {
            fail(
                "deviceManufacturer",
                "must be at most 64 letters, digits, spaces or . - _ & ( ) +".into(),
            );
        }
    }
    if let Some(v) = given(q.os_version) {
        match Version::parse(v) {
            Ok(v) => d.os_version = Some(v),
            Err(e) => fail("osVersion", e),
        }
    }
    if let Some(b) = given(q.browser) {
        let b = b.to_ascii_lowercase();
        if BROWSERS.contains(&b.as_str()) {
            d.browser = Some(b);
        } else {
            fail("browser", format!("must be one of {}", BROWSERS.join(", ")));
        }
    }
    if let Some(v) = given(q.browser_version) {
        if given(q.browser).is_none() {
            fail("browserVersion", "needs browser".into());
        } else {
            match Version::parse(v) {
                Ok(v) => d.browser_version = Some(v),
                Err(e) => fail("browserVersion", e),
            }
        }
    }
    d
}

/// A sent, non-blank query value.
fn given(v: Option<&str>) -> Option<&str> {
    v.map(str::trim).filter(|v| !v.is_empty())
}

/// Validates and normalises a campaign's targeting against its platforms and countries.
pub fn validate(
    t: &Targeting,
    platforms: &[Platform],
    countries: &[String],
    errs: &mut Errors,
) -> Targeting {
    let mut out = Targeting::default();
    let mut types = BTreeSet::new();
    for raw in &t.device_types {
        let d = raw.trim().to_ascii_lowercase();
        if DEVICE_TYPES.contains(&d.as_str()) {
            types.insert(d);
        } else {
            errs.insert(
                "targeting.deviceTypes".into(),
                format!("'{raw}' is not one of phone, tablet, desktop, tv or other"),
            );
        }
    }
    if types.len() == 1 && types.contains("desktop") && !platforms.contains(&Platform::Web) {
        errs.insert(
            "targeting.deviceTypes".into(),
            "desktop devices need the web platform".into(),
        );
    }
    out.device_types = types.into_iter().collect();
    for (field, platform, value, slot) in [
        (
            "targeting.minOsVersion.android",
            Platform::Android,
            &t.min_os_version.android,
            &mut out.min_os_version.android,
        ),
        (
            "targeting.minOsVersion.ios",
            Platform::Ios,
            &t.min_os_version.ios,
            &mut out.min_os_version.ios,
        ),
    ] {
        let Some(v) = value.as_deref().map(str::trim).filter(|v| !v.is_empty()) else {
            continue;
        };
        if !platforms.contains(&platform) {
            errs.insert(
                field.into(),
                format!("the campaign does not run on {}", platform.as_str()),
            );
        } else if let Err(e) = Version::parse(v) {
            errs.insert(field.into(), e);
        } else {
            *slot = Some(v.to_owned());
        }
    }
    if t.regions.len() > MAX_REGIONS {
        errs.insert(
            "targeting.regions".into(),
            format!("must list at most {MAX_REGIONS} regions"),
        );
    }
    let mut regions = BTreeSet::new();
    for raw in &t.regions {
        let r = raw.trim().to_ascii_uppercase();
        let country = r
            .split_once('-')
            .map(|(c, _)| c.to_owned())
            .unwrap_or_default();
        if !countries.contains(&country) {
            errs.insert(
                "targeting.regions".into(),
                format!("'{raw}' must be COUNTRY-REGION with a country the campaign targets"),
            );
            continue;
        }
        match region(&r, &country) {
            Ok(r) => {
                regions.insert(r);
            }
            Err(e) => {
                errs.insert("targeting.regions".into(), format!("'{raw}': {e}"));
            }
        }
    }
    out.regions = regions.into_iter().collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Version {
        Version::parse(s).unwrap()
    }

    #[test]
    fn versions_compare_numerically_with_missing_parts_as_zero() {
        assert_eq!(v("16"), v("16.0.0"));
        assert!(v("9") < v("10"));
        assert!(v("13.4.1") > v("13.4"));
        assert!(Version::parse("13.x").is_err());
        assert!(Version::parse("1.2.3.4.5").is_err());
        assert!(Version::parse("").is_err());
    }

    #[test]
    fn unknown_request_values_admit_and_known_ones_filter() {
        let t = Targeting {
            device_types: vec!["phone".into()],
            min_os_version: MinOsVersion {
                ios: Some("16".into()),
                android: None,
            },
            regions: vec!["US-CA".into()],
        };
        let any = Device::default();
        assert!(t.admits(Platform::Ios, Some("US"), &any));
        let old = Device {
            os_version: Some(v("15.7")),
            ..Device::default()
        };
        assert!(!t.admits(Platform::Ios, Some("US"), &old));
        assert!(t.admits(Platform::Android, Some("US"), &old));
        let tablet = Device {
            device_type: Some("tablet".into()),
            ..Device::default()
        };
        assert!(!t.admits(Platform::Ios, None, &tablet));
        let ny = Device {
            region: Some("US-NY".into()),
            ..Device::default()
        };
        assert!(!t.admits(Platform::Ios, Some("US"), &ny));
        let on = Device {
            region: Some("CA-ON".into()),
            ..Device::default()
        };
        assert!(
            t.admits(Platform::Ios, Some("CA"), &on),
            "Canada has no regions listed"
        );
    }

    #[test]
    fn campaign_targeting_names_bad_fields() {
        let mut errs = Errors::new();
        let t = Targeting {
            device_types: vec!["Phone".into(), "fridge".into()],
            min_os_version: MinOsVersion {
                android: Some("ten".into()),
                ios: Some("16".into()),
            },
            regions: vec!["de-by".into(), "US-CA".into()],
        };
        let out = validate(&t, &[Platform::Android], &["US".into()], &mut errs);
        assert!(errs.contains_key("targeting.deviceTypes"));
        assert!(errs.contains_key("targeting.minOsVersion.android"));
        assert!(errs.contains_key("targeting.minOsVersion.ios"));
        assert!(errs.contains_key("targeting.regions"));
        assert_eq!(out.device_types, vec!["phone"]);
        assert_eq!(out.regions, vec!["US-CA"]);
    }

    #[test]
    fn query_values_are_checked_against_each_other() {
        let mut errs = Errors::new();
        let q = DeviceParams {
            state_code: Some("CA"),
            browser_version: Some("120"),
            ..DeviceParams::default()
        };
        device(q, "web", None, &mut errs);
        assert!(errs.contains_key("stateCode"));
        assert!(errs.contains_key("browserVersion"));
        let mut errs = Errors::new();
        let q = DeviceParams {
            state_code: Some("ca"),
            browser: Some("Chrome"),
            browser_version: Some("120.0.6099"),
            os_version: Some("14"),
            device_manufacturer: Some("Samsung"),
            ..DeviceParams::default()
        };
        let d = device(q, "android", Some("US"), &mut errs);
        assert!(errs.is_empty(), "{errs:?}");
        assert_eq!(d.region.as_deref(), Some("US-CA"));
        assert_eq!(d.browser.as_deref(), Some("chrome"));
    }
}
