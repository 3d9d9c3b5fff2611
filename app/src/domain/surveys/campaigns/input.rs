//! What an advertiser may write into a survey campaign: the checks of every input field and
//! the links' transaction macro. Creation and `PUT` share one validation, so a field is
//! accepted or refused the same way in both.

use sea_orm::Set;

use crate::error::{AppError, FieldErrors};
use crate::model::survey::campaign::*;
use entity::survey_campaign as survey;

/// The macro both survey links must carry.
pub const TRANSACTION_MACRO: &str = "{transaction_id}";
const DEVICES: [&str; 3] = ["desktop", "mobile", "tablet"];

fn link(raw: &str) -> Result<String, String> {
    let s = raw.trim();
    if !s.contains(TRANSACTION_MACRO) {
        return Err(format!("must contain the {TRANSACTION_MACRO} macro"));
    }
    let u = url::Url::parse(&s.replace(TRANSACTION_MACRO, "t"))
        .map_err(|_| "must be an absolute URL".to_owned())?;
    if u.scheme() != "https" || u.host_str().is_none() {
        return Err("must be an https URL".to_owned());
    }
    Ok(s.to_owned())
}

#[derive(serde::Serialize, serde::Deserialize, Default)]
pub(super) struct Metadata {
    pub(super) research_category: Option<String>,
    pub(super) research_industry: Option<String>,
    pub(super) campaign_manager: Option<String>,
    #[serde(default)]
    pub(super) tags: Vec<String>,
    /// Why an administrator sent the campaign back to DRAFT (cleared when it is submitted
    /// again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) rejection_reason: Option<String>,
}

/// Validates `input` over `a` (a new or existing row); `creating` makes the base fields required.
pub(super) fn apply(
    a: &mut survey::ActiveModel,
    input: &SurveyCampaignInput,
    creating: bool,
) -> Result<(), AppError> {
    let mut errs = FieldErrors::new();
    let required = |errs: &mut FieldErrors, f: &str, present: bool| {
        if creating && !present {
            errs.add(f, "is required");
        }
    };
    required(&mut errs, "name", input.name.is_some());
    required(
        &mut errs,
        "country_language_id",
        input.country_language_id.is_some(),
    );
    required(
        &mut errs,
        "survey_live_link",
        input.survey_live_link.is_some(),
    );
    required(
        &mut errs,
        "survey_test_link",
        input.survey_test_link.is_some(),
    );
    if let Some(n) = &input.name {
        let n = n.trim();
        if n.chars().count() < 4 || n.chars().count() > 200 {
            errs.add("name", "must be 4-200 characters");
        } else if n.chars().any(char::is_control) {
            errs.add("name", "must not contain control characters");
        } else if crate::model::validate::has_bidi_control(n) {
            errs.add("name", crate::model::validate::BIDI_REFUSED);
        }
        a.name = Set(n.to_owned());
    }
    if let Some(c) = &input.country_language_id {
        // Stored as the LANG-CC code whether the id or the code was sent.
        if let Some(l) = errs.check(
            "country_language_id",
            crate::domain::surveys::reference::resolve_active(c),
        ) {
            a.country_language_id = Set(l.code.to_owned());
        }
    }
    if let Some(cpi) = input.cpi {
        if cpi.0 <= 0 {
            errs.add("cpi", "must be positive");
        }
        a.cpi_micros = Set(Some(cpi.0));
    }
    // Whole numbers from 1 to `max`; the two numbers of the specification are hundredths.
    let mut positive =
        |f: &str, v: Option<i64>, max: i64, col: &mut sea_orm::ActiveValue<Option<i64>>| {
            if let Some(v) = v {
                if !(1..=max).contains(&v) {
                    errs.add(
                        f,
                        match f {
                            "length_of_interview" | "conversion" => {
                                format!("must be a number above 0 and at most {}", max / 100)
                            }
                            _ => format!("must be between 1 and {max}"),
                        },
                    );
                }
                *col = Set(Some(v));
            }
        };
    positive(
        "length_of_interview",
        input.length_of_interview.map(|h| h.0),
        24_000, // 240 minutes in hundredths
        &mut a.loi_hundredths,
    );
    positive(
        "conversion",
        input.conversion.map(|h| h.0),
        10_000, // 100 percent in hundredths
        &mut a.conversion_hundredths,
    );
    positive(
        "max_daily_completes",
        input.max_daily_completes,
        1_000_000,
        &mut a.max_daily_completes,
    );
    positive(
        "total_completes",
        input.total_completes,
        10_000_000,
        &mut a.total_completes,
    );
    if let Some(d) = input.start_date {
        a.start_date = Set(Some(d));
    }
    if let Some(d) = input.end_date {
        a.end_date = Set(Some(d));
    }
    if let (Some(Some(s)), Some(Some(e))) = (
        a.start_date.try_as_ref().cloned(),
        a.end_date.try_as_ref().cloned(),
    ) && e < s
    {
        errs.add("end_date", "must not be before start_date");
    }
    for (field, value, col) in [
        (
            "survey_live_link",
            &input.survey_live_link,
            &mut a.survey_live_link,
        ),
        (
            "survey_test_link",
            &input.survey_test_link,
            &mut a.survey_test_link,
        ),
    ] {
        if let Some(v) = value {
            if let Some(l) = errs.check(field, link(v)) {
                *col = Set(l);
            }
        }
    }
    if let Some(devices) = &input.supported_devices {
        let mut out: Vec<String> = Vec::new();
        for (i, d) in devices.iter().enumerate() {
            let d = d.trim().to_ascii_lowercase();
            if !DEVICES.contains(&d.as_str()) {
                errs.add(
                    &format!("supported_devices[{i}]"),
                    "must be desktop, mobile or tablet",
                );
            } else if !out.contains(&d) {
                out.push(d);
            }
        }
        a.supported_devices = Set(serde_json::to_string(&out).unwrap_or_else(|_| "[]".into()));
    }
    let mut meta = metadata_of(a);
    let text = |v: &Option<String>| {
        v.as_ref()
            .map(|s| s.trim().chars().take(200).collect::<String>())
    };
    if input.research_category.is_some() {
        meta.research_category = text(&input.research_category);
    }
    if input.research_industry.is_some() {
        meta.research_industry = text(&input.research_industry);
    }
    if input.campaign_manager.is_some() {
        meta.campaign_manager = text(&input.campaign_manager);
    }
    if let Some(tags) = &input.tags {
        meta.tags = tags
            .iter()
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .take(50)
            .collect();
    }
    a.metadata = Set(serde_json::to_string(&meta).unwrap_or_else(|_| "{}".into()));
    errs.finish()
}

/// The metadata a row holds now (set or unchanged), or none.
fn metadata_of(a: &survey::ActiveModel) -> Metadata {
    match &a.metadata {
        sea_orm::ActiveValue::Set(s) | sea_orm::ActiveValue::Unchanged(s) => {
            serde_json::from_str(s).unwrap_or_default()
        }
        sea_orm::ActiveValue::NotSet => Metadata::default(),
    }
}

/// Forgets an administrator's rejection reason (the campaign is submitted again).
pub(super) fn clear_rejection(a: &mut survey::ActiveModel) {
    let mut meta = metadata_of(a);
    if meta.rejection_reason.take().is_some() {
        a.metadata = Set(serde_json::to_string(&meta).unwrap_or_else(|_| "{}".into()));
    }
}
