//! An offer's texts in other languages. The hosted offerwall shows the advertiser's texts
//! as given; a campaign may add, per language the wall speaks, its own title, description
//! and goal names, which the wall shows to users of that language instead. Every text is
//! optional: a language missing a text falls back to the advertiser's original, never to
//! another language. Translations are part of the campaign's revision, so a change to a
//! live campaign is reviewed like any other text.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Goal;
use crate::model::language::Language;
use crate::model::validate::Errors;

/// One language's texts (keyed by its tag in `translations`: de, es, fr, pt-BR, ja, ar, en).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OfferTranslation {
    /// The offer's title (3-120 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What the user must do (at most 2,000 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Goal names by `externalGoalId` (1-120 characters each).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub goals: BTreeMap<String, String>,
}

/// Translations by language tag.
pub type Translations = BTreeMap<String, OfferTranslation>;

use crate::model::validate::{BIDI_REFUSED, has_bidi_control};

fn text(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// Checks translations against the campaign's goals; blank texts are dropped, so sending
/// `""` removes one.
pub fn validate(raw: &Translations, goals: &[Goal], errs: &mut Errors) -> Translations {
    let mut out = Translations::new();
    for (tag, t) in raw {
        let Some(lang) = Language::parse(tag) else {
            let spoken: Vec<&str> = Language::ALL.iter().map(|l| l.as_str()).collect();
            errs.insert(
                format!("translations.{tag}"),
                format!("must be one of {}", spoken.join(", ")),
            );
            continue;
        };
        let at = |f: &str| format!("translations.{}.{f}", lang.as_str());
        let name = text(&t.name).map(str::to_owned);
        if name
            .as_ref()
            .is_some_and(|n| !(3..=120).contains(&n.chars().count()))
        {
            errs.insert(at("name"), "must be 3-120 characters".into());
        } else if name.as_deref().is_some_and(has_bidi_control) {
            errs.insert(at("name"), BIDI_REFUSED.into());
        }
        let description = text(&t.description).map(str::to_owned);
        if description
            .as_ref()
            .is_some_and(|d| d.chars().count() > 2000)
        {
            errs.insert(at("description"), "must be at most 2000 characters".into());
        } else if description.as_deref().is_some_and(has_bidi_control) {
            errs.insert(at("description"), BIDI_REFUSED.into());
        }
        let mut goal_names = BTreeMap::new();
        for (id, n) in &t.goals {
            let n = n.trim();
            if !goals.iter().any(|g| &g.external_goal_id == id) {
                errs.insert(
                    at(&format!("goals.{id}")),
                    "is not a goal of this campaign".into(),
                );
            } else if n.chars().count() > 120 {
                errs.insert(
                    at(&format!("goals.{id}")),
                    "must be 1-120 characters".into(),
                );
            } else if has_bidi_control(n) {
                errs.insert(at(&format!("goals.{id}")), BIDI_REFUSED.into());
            } else if !n.is_empty() {
                goal_names.insert(id.clone(), n.to_owned());
            }
        }
        let t = OfferTranslation {
            name,
            description,
            goals: goal_names,
        };
        if t != OfferTranslation::default() {
            out.insert(lang.as_str().to_owned(), t);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::money::Micros;

    fn goal(id: &str) -> Goal {
        Goal {
            external_goal_id: id.into(),
            name: "Install".into(),
            payout_micros: Micros(1),
            payout: "0.000001".into(),
            pending_minutes: 0,
        }
    }

    #[test]
    fn unknown_languages_and_goals_are_refused_blank_texts_dropped() {
        let mut raw = Translations::new();
        raw.insert("nl".into(), OfferTranslation::default());
        raw.insert(
            "de".into(),
            OfferTranslation {
                name: Some(" Drachenreich ".into()),
                description: Some("  ".into()),
                goals: [
                    ("install".into(), "Installieren".into()),
                    ("nope".into(), "x".into()),
                ]
                .into(),
            },
        );
        raw.insert(
            "ja".into(),
            OfferTranslation {
                name: Some(" ".into()),
                ..Default::default()
            },
        );
        let mut errs = Errors::new();
        let out = validate(&raw, &[goal("install")], &mut errs);
        assert!(errs.contains_key("translations.nl"), "{errs:?}");
        assert!(errs.contains_key("translations.de.goals.nope"), "{errs:?}");
        assert_eq!(errs.len(), 2);
        let de = &out["de"];
        assert_eq!(de.name.as_deref(), Some("Drachenreich"));
        assert_eq!(de.description, None);
        assert_eq!(de.goals["install"], "Installieren");
        assert!(
            !out.contains_key("ja"),
            "a language with only blank texts is dropped"
        );
    }
}
