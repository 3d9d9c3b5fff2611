//! The survey marketplace's reference data: country-language locales and the profiling
//! catalog. The same constants seed the database tables (migration m0012), so lookups here
//! need no query and ids agree everywhere.

use entity::survey_reference::{ANSWERS, LOCALES, QUESTIONS};

use crate::model::survey::targeting::*;

/// A locale from the reference table.
#[derive(Debug, Clone, Copy)]
pub struct Locale {
    pub id: i32,
    pub code: &'static str,
    pub language: &'static str,
    pub country_name: &'static str,
    pub active: bool,
}

impl Locale {
    /// The ISO country part of the code (`US` of `en-US`).
    pub fn country(&self) -> &'static str {
        self.code
            .split_once('-')
            .map(|(_, c)| c)
            .unwrap_or_default()
    }
}

fn locale(row: &(i32, &'static str, &'static str, &'static str, bool)) -> Locale {
    Locale {
        id: row.0,
        code: row.1,
        language: row.2,
        country_name: row.3,
        active: row.4,
    }
}

/// Whether `s` has the LANG-CC form: two or three lowercase-insensitive letters, a hyphen,
/// two letters.
pub fn well_formed_code(s: &str) -> bool {
    let Some((lang, cc)) = s.split_once('-') else {
        return false;
    };
    (2..=3).contains(&lang.len())
        && lang.bytes().all(|b| b.is_ascii_alphabetic())
        && cc.len() == 2
        && cc.bytes().all(|b| b.is_ascii_alphabetic())
}

/// The locale of a LANG-CC code (case-insensitive), active or not.
pub fn by_code(code: &str) -> Option<Locale> {
    LOCALES
        .iter()
        .find(|l| l.1.eq_ignore_ascii_case(code))
        .map(locale)
}

/// Resolves what a campaign names as its market — the stable id (`"1"`) or the LANG-CC code —
/// to an active locale.
pub fn resolve_active(input: &str) -> Result<Locale, String> {
    let s = input.trim();
    let found = match s.parse::<i32>() {
        Ok(id) => LOCALES.iter().find(|l| l.0 == id).map(locale),
        Err(_) => by_code(s),
    };
    match found {
        Some(l) if l.active => Ok(l),
        Some(l) => Err(format!("{} is not an active locale", l.code)),
        None => Err("must be an active locale id or LANG-CC code (see listcountrylanguage)".into()),
    }
}

/// `POST /listcountrylanguage`.
pub fn country_languages(q: &CountryLanguageQuery) -> CountryLanguageList {
    let all = q.include_inactive.unwrap_or(false);
    let items: Vec<CountryLanguage> = LOCALES
        .iter()
        .map(locale)
        .filter(|l| all || l.active)
        .map(|l| CountryLanguage {
            id: l.id,
            code: l.code.to_owned(),
            language: l.language.to_owned(),
            country_code: l.country().to_owned(),
            country_name: l.country_name.to_owned(),
            active: l.active,
        })
        .collect();
    CountryLanguageList {
        count: items.len(),
        country_languages: items,
    }
}

/// A catalog question: `(id, text, kind, countries)`.
#[derive(Debug, Clone, Copy)]
pub struct Question {
    pub id: &'static str,
    pub text: &'static str,
    pub kind: QuestionKind,
    countries: &'static str,
}

impl Question {
    /// Whether the question is asked in `country` (an empty list: everywhere).
    pub fn asked_in(&self, country: &str) -> bool {
        self.countries.is_empty() || self.countries.split(',').any(|c| c == country)
    }

    /// Whether `answer` is one of its answer ids.
    pub fn has_answer(&self, answer: &str) -> bool {
        ANSWERS.iter().any(|a| a.0 == self.id && a.1 == answer)
    }

    /// Whether respondents answer it with answer ids (SINGLE or MULTI).
    pub fn takes_answer_ids(&self) -> bool {
        matches!(self.kind, QuestionKind::Single | QuestionKind::Multi)
    }
}

/// The catalog question with this id.
pub fn question(id: &str) -> Option<Question> {
    QUESTIONS.iter().find(|q| q.0 == id).map(|q| Question {
        id: q.0,
        text: q.1,
        // The catalog's kinds are checked by the `catalog_kinds_parse` test.
        kind: QuestionKind::parse(q.2).unwrap_or(QuestionKind::Text),
        countries: q.3,
    })
}

fn view(q: Question) -> ProfilingQuestion {
    ProfilingQuestion {
        question_id: q.id.to_owned(),
        question_text: q.text.to_owned(),
        question_type: q.kind.as_str().to_owned(),
        answers: ANSWERS
            .iter()
            .filter(|a| a.0 == q.id)
            .map(|a| ProfilingAnswer {
                answer_id: a.1.to_owned(),
                answer_text: a.2.to_owned(),
            })
            .collect(),
    }
}

/// `POST /getProfilingQuestionsForTargeting`: the questions asked in a locale's country.
pub fn profiling_questions(q: &ProfilingQuery) -> Result<ProfilingQuestionList, String> {
    let locale = match q.country_language_id.as_deref().filter(|s| !s.is_empty()) {
        Some(s) => Some(resolve_active(s)?),
        None => None,
    };
    let questions = QUESTIONS
        .iter()
        .filter_map(|q| question(q.0))
        .filter(|q| locale.is_none_or(|l| q.asked_in(l.country())))
        .map(view)
        .collect();
    Ok(ProfilingQuestionList {
        country_language_id: locale.map(|l| l.code.to_owned()),
        questions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locale_ids_codes_and_activity() {
        assert_eq!(resolve_active("en-US").unwrap().id, 1);
        assert_eq!(resolve_active("EN-us").unwrap().code, "en-US");
        assert_eq!(resolve_active("11").unwrap().code, "pt-BR");
        assert!(resolve_active("th-TH").is_err(), "inactive");
        assert!(resolve_active("xx-XX").is_err());
        assert!(
            well_formed_code("th-TH") && !well_formed_code("english") && !well_formed_code("en_US")
        );
        let active = LOCALES.iter().filter(|l| l.4).count();
        assert!(active >= 30, "at least 30 active markets, got {active}");
        let mut ids: Vec<i32> = LOCALES.iter().map(|l| l.0).collect();
        ids.dedup();
        assert_eq!(ids.len(), LOCALES.len(), "locale ids are unique");
    }

    #[test]
    fn catalog_kinds_parse() {
        for q in QUESTIONS {
            assert!(
                QuestionKind::parse(q.2).is_some(),
                "{} has kind {}",
                q.0,
                q.2
            );
        }
    }

    #[test]
    fn catalog_per_country() {
        let asks = |list: &ProfilingQuestionList, id: &str| {
            list.questions.iter().any(|q| q.question_id == id)
        };
        let us = profiling_questions(&ProfilingQuery {
            country_language_id: Some("en-US".into()),
        })
        .unwrap();
        assert!(asks(&us, "ETHNICITY"));
        let de = profiling_questions(&ProfilingQuery {
            country_language_id: Some("de-DE".into()),
        })
        .unwrap();
        assert!(!asks(&de, "ETHNICITY"));
        assert!(question("GENDER").unwrap().has_answer("2"));
        assert!(!question("GENDER").unwrap().has_answer("9"));
    }
}
