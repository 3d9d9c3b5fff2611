//! The fields of an ad slot's `design` and `exposure` objects that the hosted offerwall
//! reads. The objects stay open (other keys are kept for the publisher's own SDK UI);
//! these keys are checked when a slot is saved and read leniently when the wall renders.
//!
//! design:   accentColor "#RRGGBB", title (≤ 60 chars), logoUrl (https, ≤ 500 chars),
//!           darkMode (boolean)
//! exposure: maxOffers (1–100, default 20), showRewardStatus (default true),
//!           showSupport (default true)

use serde_json::Value;

/// How the hosted wall looks.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WallDesign {
    pub accent_color: Option<String>,
    pub title: Option<String>,
    pub logo_url: Option<String>,
    pub dark_mode: bool,
}

/// What the hosted wall shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WallExposure {
    pub max_offers: u32,
    pub show_reward_status: bool,
    pub show_support: bool,
}

impl Default for WallExposure {
    fn default() -> Self {
        Self {
            max_offers: 20,
            show_reward_status: true,
            show_support: true,
        }
    }
}

fn is_hex_colour(s: &str) -> bool {
    s.len() == 7 && s.starts_with('#') && s[1..].chars().all(|c| c.is_ascii_hexdigit())
}

fn is_logo_url(s: &str) -> bool {
    s.len() <= 500 && s.starts_with("https://") && s.len() > 8 && !s.contains(['"', '<', '>', ' '])
}

impl WallDesign {
    /// The valid fields of a stored design (invalid ones are ignored).
    pub fn read(v: &Value) -> Self {
        Self {
            accent_color: v["accentColor"]
                .as_str()
                .filter(|s| is_hex_colour(s))
                .map(str::to_owned),
            title: v["title"]
                .as_str()
                .map(str::trim)
                .filter(|s| !s.is_empty() && s.chars().count() <= 60)
                .map(str::to_owned),
            logo_url: v["logoUrl"]
                .as_str()
                .filter(|s| is_logo_url(s))
                .map(str::to_owned),
            dark_mode: v["darkMode"].as_bool().unwrap_or(false),
        }
    }

    /// Problems with the known fields, as (`design.field`, why).
    pub fn check(v: &Value) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut bad = |f: &str, why: &str| out.push((format!("design.{f}"), why.to_owned()));
        match &v["accentColor"] {
            Value::Null => {}
            Value::String(s) if is_hex_colour(s) => {}
            _ => bad("accentColor", "must be a colour like #1A73E8"),
        }
        match &v["title"] {
            Value::Null => {}
            Value::String(s) if s.trim().chars().count() <= 60 => {}
            _ => bad("title", "must be text of at most 60 characters"),
        }
        match &v["logoUrl"] {
            Value::Null => {}
            Value::String(s) if is_logo_url(s) => {}
            _ => bad("logoUrl", "must be an https URL of at most 500 characters"),
        }
        if !matches!(v["darkMode"], Value::Null | Value::Bool(_)) {
            bad("darkMode", "must be true or false");
        }
        out
    }
}

impl WallExposure {
    /// The valid fields of a stored exposure (defaults for the rest).
    pub fn read(v: &Value) -> Self {
        let d = Self::default();
        Self {
            max_offers: v["maxOffers"]
                .as_u64()
                .filter(|n| (1..=100).contains(n))
                .map_or(d.max_offers, |n| n as u32),
            show_reward_status: v["showRewardStatus"]
                .as_bool()
                .unwrap_or(d.show_reward_status),
            show_support: v["showSupport"].as_bool().unwrap_or(d.show_support),
        }
    }

    /// Problems with the known fields, as (`exposure.field`, why).
    pub fn check(v: &Value) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let ok_max = match &v["maxOffers"] {
            Value::Null => true,
            n => n.as_u64().is_some_and(|n| (1..=100).contains(&n)),
        };
        if !ok_max {
            out.push(("exposure.maxOffers".into(), "must be 1 to 100".into()));
        }
        for f in ["showRewardStatus", "showSupport"] {
            if !matches!(v[f], Value::Null | Value::Bool(_)) {
                out.push((format!("exposure.{f}"), "must be true or false".into()));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn design_fields_are_checked_and_read() {
        let good = json!({"accentColor": "#1a73E8", "title": "Earn Gems", "logoUrl": "https://cdn.example.com/l.png", "darkMode": true, "other": 1});
        assert!(WallDesign::check(&good).is_empty());
        let d = WallDesign::read(&good);
        assert_eq!(d.accent_color.as_deref(), Some("#1a73E8"));
        assert!(d.dark_mode);
        let bad =
            json!({"accentColor": "red", "logoUrl": "http://x.example/l.png", "darkMode": "yes"});
        let fields: Vec<String> = WallDesign::check(&bad)
            .into_iter()
            .map(|(f, _)| f)
            .collect();
        assert_eq!(
            fields,
            ["design.accentColor", "design.logoUrl", "design.darkMode"]
        );
        assert_eq!(WallDesign::read(&bad), WallDesign::default());
    }

    #[test]
    fn exposure_defaults_and_bounds() {
        assert_eq!(WallExposure::read(&json!({})), WallExposure::default());
        assert_eq!(WallExposure::read(&json!({"maxOffers": 5})).max_offers, 5);
        assert_eq!(WallExposure::check(&json!({"maxOffers": 0})).len(), 1);
        assert_eq!(WallExposure::check(&json!({"showSupport": 1})).len(), 1);
    }
}
