//! Pure offer campaign rules shared by the API and the forms: field validation, merging a
//! PATCH into a configuration, and the Custom S2S signed message.

use std::collections::BTreeSet;

use super::*;
use crate::model::money::Micros;
use crate::model::publisher::rules::store_url;

pub use super::parts::{MAX_BUDGET_MICROS, MAX_PENDING_MINUTES};
use super::parts::{caps, creatives, goals};

/// The macro every destination URL must carry.
pub const CLICK_MACRO: &str = "{click_id}";
/// Parameters every conversion report carries.
pub const CONVERSION_FIELDS: [&str; 5] = [
    "click_id",
    "transaction_id",
    "goal_id",
    "status",
    "occurred_at",
];

pub use crate::model::validate::Errors;

/// An HTTPS destination URL with the `{click_id}` macro. The text is kept exactly as sent
/// (the macro would otherwise be percent-encoded).
pub fn destination_url(raw: &str) -> Result<String, String> {
    let s = raw.trim();
    if s.len() > 2048 {
        return Err("must be at most 2048 characters".to_owned());
    }
    // It ends up in a Location header: a CR or LF there would break every redirect.
    if s.chars().any(char::is_control) {
        return Err("must not contain control characters".to_owned());
    }
    if !s.contains(CLICK_MACRO) {
        return Err(format!("must contain the {CLICK_MACRO} macro"));
    }
    let sample = s.replace(CLICK_MACRO, "sample");
    let u = url::Url::parse(&sample).map_err(|_| "must be an absolute URL".to_owned())?;
    if u.scheme() != "https" {
        return Err("must use https".to_owned());
    }
    if u.host_str().is_none_or(|h| !h.contains('.')) {
        return Err("must name a public host".to_owned());
    }
    if !u.username().is_empty() || u.password().is_some() {
        return Err("must not contain credentials".to_owned());
    }
    Ok(s.to_owned())
}

/// An upper-case vocabulary token such as GAMES or INSTALL.
fn token(raw: &str) -> Result<String, String> {
    let s = raw.trim().to_ascii_uppercase();
    let ok = (2..=40).contains(&s.len())
        && s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ok {
        Ok(s)
    } else {
        Err("must be 2-40 letters, digits or underscores, starting with a letter".to_owned())
    }
}

fn countries(raw: &[String]) -> Result<Vec<String>, String> {
    if raw.is_empty() {
        return Err("must name at least one country".to_owned());
    }
    let mut out = BTreeSet::new();
    for c in raw {
        let c = c.trim().to_ascii_uppercase();
        if c.len() != 2 || !c.chars().all(|ch| ch.is_ascii_alphabetic()) {
            return Err(format!("'{c}' is not a two-letter country code"));
        }
        out.insert(c);
    }
    Ok(out.into_iter().collect())
}

fn platforms(raw: &[Platform]) -> Result<Vec<Platform>, String> {
    if raw.is_empty() {
        return Err("must name at least one platform".to_owned());
    }
    let mut out: Vec<Platform> = Platform::ALL
        .iter()
        .copied()
        .filter(|p| raw.contains(p))
        .collect();
    out.dedup();
    Ok(out)
}

/// Applies `patch` over `base` (None for a create) and validates the result. The provider
/// is checked for shape only; whether it is selectable is the domain's call.
pub fn merge(
    base: Option<&CampaignConfig>,
    patch: &CampaignInput,
) -> Result<CampaignConfig, Errors> {
    let mut errs = Errors::new();
    let need = |errs: &mut Errors, field: &str| {
        errs.insert(field.into(), "is required".into());
    };
    macro_rules! field {
        ($name:ident, $wire:literal, $check:expr, $default:expr) => {
            match (&patch.$name, base) {
                (Some(v), _) => match $check(v) {
                    Ok(v) => v,
                    Err(e) => {
                        errs.insert($wire.into(), e);
                        $default
                    }
                },
                (None, Some(b)) => b.$name.clone(),
                (None, None) => {
                    need(&mut errs, $wire);
                    $default
                }
            }
        };
    }
    let name = field!(
        name,
        "name",
        |v: &String| {
            let n = v.trim();
            if !(3..=120).contains(&n.chars().count()) {
                Err("must be 3-120 characters".to_owned())
            } else if crate::model::validate::has_bidi_control(n) {
                Err(crate::model::validate::BIDI_REFUSED.to_owned())
            } else {
                Ok(n.to_owned())
            }
        },
        String::new()
    );
    let destination_url = field!(
        destination_url,
        "destinationUrl",
        |v: &String| destination_url(v),
        String::new()
    );
    let platforms = field!(
        platforms,
        "platforms",
        |v: &Vec<Platform>| platforms(v),
        vec![]
    );
    let countries = field!(
        countries,
        "countries",
        |v: &Vec<String>| countries(v),
        vec![]
    );
    let category = field!(category, "category", |v: &String| token(v), String::new());
    let task_type = field!(task_type, "taskType", |v: &String| token(v), String::new());
    let tracking_provider = field!(
        tracking_provider,
        "trackingProvider",
        |v: &String| normalize_provider(v),
        String::new()
    );
    let budget_micros = field!(
        budget_micros,
        "budgetMicros",
        |v: &Micros| {
            if v.get() > 0 && v.get() <= MAX_BUDGET_MICROS {
                Ok(*v)
            } else {
                Err("must be a positive amount of micros up to 10,000,000 USD".to_owned())
            }
        },
        Micros::ZERO
    );
    let goals = match (&patch.goals, base) {
        (Some(g), _) => goals(g, &mut errs),
        (None, Some(b)) => b.goals.clone(),
        (None, None) => {
            need(&mut errs, "goals");
            vec![]
        }
    };
    let schedule = patch
        .schedule
        .clone()
        .or_else(|| base.map(|b| b.schedule.clone()))
        .unwrap_or_default();
    if let (Some(s), Some(e)) = (schedule.start_at, schedule.end_at)
        && e <= s
    {
        errs.insert("schedule.endAt".into(), "must be after startAt".into());
    }
    let caps_v = patch
        .caps
        .clone()
        .or_else(|| base.map(|b| b.caps.clone()))
        .unwrap_or_default();
    caps(&caps_v, &mut errs);
    let creatives_v = patch
        .creatives
        .clone()
        .or_else(|| base.map(|b| b.creatives.clone()))
        .unwrap_or_default();
    creatives(&creatives_v, &mut errs);
    let description = match (&patch.description, base) {
        (Some(d), _) => {
            let d = d.trim();
            if d.chars().count() > 2000 {
                errs.insert(
                    "description".into(),
                    "must be at most 2000 characters".into(),
                );
            } else if crate::model::validate::has_bidi_control(d) {
                errs.insert(
                    "description".into(),
                    crate::model::validate::BIDI_REFUSED.into(),
                );
            }
            (!d.is_empty()).then(|| d.to_owned())
        }
        (None, b) => b.and_then(|b| b.description.clone()),
    };
    let preview_url = match (&patch.preview_url, base) {
        (Some(u), _) if u.trim().is_empty() => None,
        (Some(u), _) => match store_url(u) {
            Ok(u) => Some(u),
            Err(e) => {
                errs.insert("previewUrl".into(), e);
                None
            }
        },
        (None, b) => b.and_then(|b| b.preview_url.clone()),
    };
    let targeting = crate::model::campaign::device_targeting::validate(
        patch
            .targeting
            .as_ref()
            .or(base.map(|b| &b.targeting))
            .unwrap_or(&Targeting::default()),
        &platforms,
        &countries,
        &mut errs,
    );
    let translations = super::translations::validate(
        patch
            .translations
            .as_ref()
            .or(base.map(|b| &b.translations))
            .unwrap_or(&Default::default()),
        &goals,
        &mut errs,
    );
    if let Some(max) = goals.iter().map(|g| g.payout_micros).max()
        && budget_micros > Micros::ZERO
        && max > budget_micros
    {
        errs.insert(
            "budgetMicros".into(),
            "must cover at least one conversion of the largest goal payout".into(),
        );
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    Ok(CampaignConfig {
        name,
        destination_url,
        platforms,
        countries,
        category,
        task_type,
        tracking_provider,
        budget_micros,
        goals,
        schedule,
        caps: caps_v,
        creatives: creatives_v,
        description,
        preview_url,
        targeting,
        translations,
    })
}

/// `CUSTOM_S2S`, `DIRECT`, `MANAGED` or `MMP:<CODE>` (code upper-cased).
pub fn normalize_provider(raw: &str) -> Result<String, String> {
    let s = raw.trim();
    let upper = s.to_ascii_uppercase();
    match upper.as_str() {
        "CUSTOM_S2S" | "DIRECT" | "MANAGED" => Ok(upper),
        _ => match upper.strip_prefix("MMP:") {
            Some(code)
                if !code.is_empty()
                    && code.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                Ok(upper)
            }
            _ => Err("must be CUSTOM_S2S, DIRECT, MANAGED or MMP:<providerCode>".to_owned()),
        },
    }
}

/// The Custom S2S signed message: timestamp, click_id, transaction_id, goal_id, status and
/// occurred_at joined by newlines.
pub fn s2s_message(
    timestamp: &str,
    click_id: &str,
    transaction_id: &str,
    goal_id: &str,
    status: &str,
    occurred_at: &str,
) -> String {
    [
        timestamp,
        click_id,
        transaction_id,
        goal_id,
        status,
        occurred_at,
    ]
    .join("\n")
}

/// Which statuses a campaign may move to from `from` through the advertiser's transition
/// route (approval and rejection are administrator routes).
pub fn advertiser_moves(from: CampaignStatus) -> &'static [CampaignStatus] {
    use CampaignStatus::*;
    match from {
        Draft => &[InReview, Archived],
        InReview => &[Draft],
        Rejected => &[Draft, InReview, Archived],
        Live => &[Paused, Ended, Archived],
        Paused => &[Live, Ended, Archived],
        Ended => &[Archived],
        Archived => &[],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> CampaignInput {
        CampaignInput {
            name: Some("Play to level 10".into()),
            destination_url: Some("https://advertiser.example/install?click={click_id}".into()),
            platforms: Some(vec![Platform::Web, Platform::Android]),
            countries: Some(vec!["us".into(), "DE".into(), "US".into()]),
            category: Some("games".into()),
            task_type: Some("INSTALL".into()),
            tracking_provider: Some("mmp:appsflyer".into()),
            budget_micros: Some(Micros(500_000_000)),
            goals: Some(vec![GoalInput {
                external_goal_id: "install".into(),
                name: "Install".into(),
                payout_micros: Micros(1_500_000),
                pending_minutes: None,
            }]),
            ..Default::default()
        }
    }

    #[test]
    fn create_normalises_fields() {
        let c = merge(None, &input()).expect("valid");
        assert_eq!(c.countries, vec!["DE", "US"]);
        assert_eq!(c.platforms, vec![Platform::Android, Platform::Web]);
        assert_eq!(c.category, "GAMES");
        assert_eq!(c.tracking_provider, "MMP:APPSFLYER");
        assert_eq!(
            c.destination_url,
            "https://advertiser.example/install?click={click_id}"
        );
        assert_eq!(c.goals[0].payout, "1.500000");
    }

    #[test]
    fn refusals_name_their_fields() {
        let mut i = input();
        i.destination_url = Some("https://advertiser.example/install".into());
        let first = i.goals.as_ref().unwrap()[0].clone();
        i.goals.as_mut().unwrap().push(first);
        i.budget_micros = Some(Micros(0));
        let e = merge(None, &i).unwrap_err();
        assert!(e["destinationUrl"].contains("{click_id}"));
        assert!(e.contains_key("goals[1].externalGoalId"));
        assert!(e.contains_key("budgetMicros"));
        i.destination_url = Some("http://advertiser.example/?c={click_id}".into());
        assert!(merge(None, &i).unwrap_err()["destinationUrl"].contains("https"));
        let e = merge(None, &CampaignInput::default()).unwrap_err();
        assert!(
            e.contains_key("name") && e.contains_key("goals") && e.contains_key("trackingProvider")
        );
    }

    #[test]
    fn patch_keeps_unnamed_fields() {
        let base = merge(None, &input()).unwrap();
        let p = CampaignInput {
            name: Some("Renamed".into()),
            ..Default::default()
        };
        let c = merge(Some(&base), &p).unwrap();
        assert_eq!(c.name, "Renamed");
        assert_eq!(c.goals, base.goals);
        assert_eq!(c.budget_micros, base.budget_micros);
    }

    #[test]
    fn provider_shapes() {
        assert_eq!(normalize_provider("custom_s2s").unwrap(), "CUSTOM_S2S");
        assert!(normalize_provider("MMP:").is_err());
        assert!(normalize_provider("FACEBOOK").is_err());
    }
}
