//! Reading and checking the survey fetch body field by field, so every problem is named in
//! `fieldErrors`: required fields, the locale, date of birth, gender, postal codes per
//! country, the IP address, `gps_id` and profiling answers checked against the catalog.

use std::collections::BTreeMap;
use std::net::IpAddr;

use chrono::NaiveDate;
use serde_json::Value;

use super::reference::{self, Locale};
use crate::model::survey::targeting::QuestionKind;

/// Why a fetch body was refused.
#[derive(Debug)]
pub enum Invalid {
    /// Missing or malformed fields (INVALID_PROFILE).
    Profile(BTreeMap<String, String>),
    /// A well-formed locale that is not active (COUNTRY_LANGUAGE_UNSUPPORTED).
    Locale(String),
}

/// A checked survey fetch body.
#[derive(Debug, Clone)]
pub struct Profile {
    pub user_id: String,
    pub app_id: String,
    pub ip: IpAddr,
    pub city: String,
    pub locale: Locale,
    pub date_of_birth: Option<NaiveDate>,
    /// "1" male, "2" female (the GENDER catalog ids).
    pub gender: Option<&'static str>,
    pub zip: Option<String>,
    pub gps_id: Option<String>,
    pub device: Option<String>,
    /// `(question id, answer ids, partner code)`; a later answer to a question replaces an
    /// earlier one.
    pub answers: Vec<(String, Vec<String>, String)>,
}

fn text(body: &Value, key: &str) -> Option<String> {
    body.get(key).and_then(|v| match v {
        Value::String(s) => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}

fn printable(s: &str) -> bool {
    !s.chars().any(char::is_control)
}

/// The postal code in its stored form, or why it is not one of the country's.
pub fn zip_for(country: &str, raw: &str) -> Result<String, String> {
    let z = raw.trim().to_ascii_uppercase();
    // Every format below is ASCII, and the checks slice by byte: a non-ASCII code is
    // refused here, before a slice could fall inside a character (a fuzzer found the panic).
    if !z.is_ascii() {
        return Err(format!("is not a postal code of {country}"));
    }
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let ok = match country {
        "US" => {
            digits(&z, 5)
                || (z.len() == 10 && digits(&z[..5], 5) && &z[5..6] == "-" && digits(&z[6..], 4))
        }
        // CEP: eight digits, with or without the hyphen; stored as NNNNN-NNN.
        "BR" => {
            let d: String = z.chars().filter(|c| *c != '-').collect();
            let hyphen_ok = !z.contains('-') || (z.len() == 9 && &z[5..6] == "-");
            if digits(&d, 8) && hyphen_ok {
                return Ok(format!("{}-{}", &d[..5], &d[5..]));
            }
            false
        }
        // Panama: the legacy numeric codes (4 digits, e.g. 0801) and the geolocated grid
        // code (NNNN-NN).
        "PA" => {
            digits(&z, 4)
                || (z.len() == 7 && digits(&z[..4], 4) && &z[4..5] == "-" && digits(&z[5..], 2))
        }
        "CA" => {
            let c: Vec<char> = z.chars().filter(|c| *c != ' ').collect();
            c.len() == 6
                && c.iter().enumerate().all(|(i, ch)| {
                    if i % 2 == 0 {
                        ch.is_ascii_alphabetic()
                    } else {
                        ch.is_ascii_digit()
                    }
                })
        }
        "GB" | "IE" => {
            (5..=8).contains(&z.len()) && z.chars().all(|c| c.is_ascii_alphanumeric() || c == ' ')
        }
        "DE" | "FR" | "ES" | "IT" | "MX" | "FI" | "TR" | "ID" => digits(&z, 5),
        "AU" | "AT" | "CH" | "BE" | "DK" | "NO" | "NZ" | "ZA" | "PH" => digits(&z, 4),
        "NL" => {
            let c: String = z.chars().filter(|c| *c != ' ').collect();
            c.len() == 6 && digits(&c[..4], 4) && c[4..].chars().all(|ch| ch.is_ascii_alphabetic())
        }
        "SE" => digits(&z.replace(' ', ""), 5),
        "PL" => z.len() == 6 && digits(&z[..2], 2) && &z[2..3] == "-" && digits(&z[3..], 3),
        "PT" => z.len() == 8 && digits(&z[..4], 4) && &z[4..5] == "-" && digits(&z[5..], 3),
        "JP" => z.len() == 8 && digits(&z[..3], 3) && &z[3..4] == "-" && digits(&z[4..], 4),
        "IN" | "CN" | "SG" | "CO" => digits(&z, 6),
        "KR" => digits(&z, 5),
        "CL" => digits(&z, 7),
        "AR" => digits(&z, 4) || (z.len() == 8 && z.chars().all(|c| c.is_ascii_alphanumeric())),
        _ => {
            (2..=10).contains(&z.len())
                && z.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '-')
        }
    };
    if ok {
        Ok(z)
    } else {
        Err(format!("is not a postal code of {country}"))
    }
}

fn profiling(body: &Value) -> Option<&Value> {
    [
        "PublisherProfiling",
        "publisherProfiling",
        "ProfilingResponses",
        "profilingResponses",
    ]
    .iter()
    .find_map(|k| body.get(*k).filter(|v| !v.is_null()))
}

/// Checks a fetch body as of `today` (for the age rule).
pub fn read(body: &Value, today: NaiveDate) -> Result<Profile, Invalid> {
    let mut errs: BTreeMap<String, String> = BTreeMap::new();
    macro_rules! add {
        ($f:expr, $why:expr) => {
            errs.entry(($f).to_owned())
                .or_insert_with(|| ($why).to_owned())
        };
    }
    if !body.is_object() {
        add!("body", "must be a JSON object");
        return Err(Invalid::Profile(errs));
    }
    let mut required = |key: &str, max: usize| -> String {
        match text(body, key) {
            Some(s) if !s.is_empty() && s.chars().count() <= max && printable(&s) => s,
            Some(_) => {
                add!(key, &format!("must be 1-{max} printable characters"));
                String::new()
            }
            None => {
                add!(key, "is required");
                String::new()
            }
        }
    };
    let user_id = required("UserId", 128);
    let app_id = required("AppId", 64);
    let ip_text = required("IpAddress", 64);
    let city = required("City", 100);
    let locale_text = required("CountryLanguageCode", 16);
    let ip = ip_text.parse::<IpAddr>().ok();
    if ip.is_none() && !ip_text.is_empty() {
        add!("IpAddress", "must be an IPv4 or IPv6 address");
    }
    let locale = if locale_text.is_empty() {
        None
    } else if !reference::well_formed_code(&locale_text) {
        add!(
            "CountryLanguageCode",
            "must have the LANG-CC form, for example en-US"
        );
        None
    } else {
        match reference::by_code(&locale_text).filter(|l| l.active) {
            Some(l) => Some(l),
            None if errs.is_empty() => return Err(Invalid::Locale(locale_text)),
            None => {
                add!("CountryLanguageCode", "is not an active locale");
                None
            }
        }
    };
    let date_of_birth = match text(body, "DateOfBirth").filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => match NaiveDate::parse_from_str(&s, "%Y-%m-%d") {
            Ok(d)
                if d <= today
                    && today
                        .years_since(d)
                        .is_some_and(|y| (13..=120).contains(&y)) =>
            {
                Some(d)
            }
            Ok(_) => {
                add!(
                    "DateOfBirth",
                    "must be a date of birth of someone 13 to 120 years old"
                );
                None
            }
            Err(_) => {
                add!("DateOfBirth", "must be YYYY-MM-DD");
                None
            }
        },
    };
    let gender = match text(body, "Gender").filter(|s| !s.is_empty()).as_deref() {
        None => None,
        Some("M" | "m") => Some("1"),
        Some("F" | "f") => Some("2"),
        Some(_) => {
            add!("Gender", "must be M or F");
            None
        }
    };
    let zip = match (text(body, "ZipCode").filter(|s| !s.is_empty()), &locale) {
        (Some(z), Some(l)) => match zip_for(l.country(), &z) {
            Ok(z) => Some(z),
            Err(why) => {
                add!("ZipCode", &why);
                None
            }
        },
        _ => None,
    };
    let gps_id = match text(body, "gps_id").filter(|s| !s.is_empty()) {
        Some(g) if g.len() <= 128 && printable(&g) => Some(g),
        Some(_) => {
            add!("gps_id", "must be 1-128 printable characters");
            None
        }
        None => None,
    };
    let device = match text(body, "Device")
        .filter(|s| !s.is_empty())
        .map(|s| s.to_ascii_lowercase())
    {
        Some(d) if matches!(d.as_str(), "desktop" | "mobile" | "tablet") => Some(d),
        Some(_) => {
            add!("Device", "must be desktop, mobile or tablet");
            None
        }
        None => None,
    };
    let mut answers: Vec<(String, Vec<String>, String)> = Vec::new();
    if let Some(p) = profiling(body) {
        match p.as_array() {
            None => {
                add!("PublisherProfiling", "must be a list");
            }
            Some(groups) if groups.len() > 20 => {
                add!("PublisherProfiling", "must have at most 20 entries");
            }
            Some(groups) => {
                for (gi, g) in groups.iter().enumerate() {
                    let partner = text(g, "partnerCode").unwrap_or_default();
                    if partner.is_empty() || partner.len() > 64 || !printable(&partner) {
                        add!(
                            &format!("PublisherProfiling[{gi}].partnerCode"),
                            "must be 1-64 characters"
                        );
                    }
                    if let Some(cl) = text(g, "countryLanguageCode")
                        && locale.is_some_and(|l| !l.code.eq_ignore_ascii_case(&cl))
                    {
                        add!(
                            &format!("PublisherProfiling[{gi}].countryLanguageCode"),
                            "must equal CountryLanguageCode"
                        );
                    }
                    let Some(responses) = g.get("responses").and_then(Value::as_array) else {
                        add!(
                            &format!("PublisherProfiling[{gi}].responses"),
                            "must be a list"
                        );
                        continue;
                    };
                    for (ri, r) in responses.iter().enumerate().take(100) {
                        let at = format!("PublisherProfiling[{gi}].responses[{ri}]");
                        let qid = text(r, "questionId").unwrap_or_default();
                        let Some(q) = reference::question(&qid).filter(|q| q.takes_answer_ids())
                        else {
                            add!(
                                &format!("{at}.questionId"),
                                "is not a question of the profiling catalog"
                            );
                            continue;
                        };
                        if locale.is_some_and(|l| !q.asked_in(l.country())) {
                            add!(&format!("{at}.questionId"), "is not asked in this locale");
                            continue;
                        }
                        let ids: Vec<String> = r
                            .get("answerIds")
                            .and_then(Value::as_array)
                            .map(|a| {
                                a.iter()
                                    .filter_map(|v| text(&serde_json::json!({"v": v}), "v"))
                                    .collect()
                            })
                            .unwrap_or_default();
                        if ids.is_empty() || (q.kind == QuestionKind::Single && ids.len() != 1) {
                            add!(
                                &format!("{at}.answerIds"),
                                if q.kind == QuestionKind::Single {
                                    "must hold exactly one answer id"
                                } else {
                                    "must hold at least one answer id"
                                }
                            );
                            continue;
                        }
                        if let Some(bad) = ids.iter().find(|a| !q.has_answer(a)) {
                            add!(
                                &format!("{at}.answerIds"),
                                &format!("{bad} is not an answer of {}", q.id)
                            );
                            continue;
                        }
                        answers.retain(|(id, _, _)| id != q.id);
                        answers.push((q.id.to_owned(), ids, partner.clone()));
                    }
                }
            }
        }
    }
    match (errs.is_empty(), ip, locale) {
        (true, Some(ip), Some(locale)) => Ok(Profile {
            user_id,
            app_id,
            ip,
            city,
            locale,
            date_of_birth,
            gender,
            zip,
            gps_id,
            device,
            answers,
        }),
        _ => Err(Invalid::Profile(errs)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn today() -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, 1).unwrap()
    }

    fn base() -> Value {
        json!({"UserId": "u1", "AppId": "plc_1", "IpAddress": "203.0.113.9", "City": "Austin", "CountryLanguageCode": "en-US"})
    }

    #[test]
    fn required_fields_and_locale_rules() {
        assert!(read(&base(), today()).is_ok());
        let mut b = base();
        b.as_object_mut().unwrap().remove("City");
        assert!(matches!(read(&b, today()), Err(Invalid::Profile(e)) if e.contains_key("City")));
        let mut b = base();
        b["CountryLanguageCode"] = json!("th-TH");
        assert!(matches!(read(&b, today()), Err(Invalid::Locale(_))));
        b["CountryLanguageCode"] = json!("english");
        assert!(
            matches!(read(&b, today()), Err(Invalid::Profile(e)) if e.contains_key("CountryLanguageCode"))
        );
        b["CountryLanguageCode"] = json!("en-US");
        b["IpAddress"] = json!("999.1.1.1");
        assert!(
            matches!(read(&b, today()), Err(Invalid::Profile(e)) if e.contains_key("IpAddress"))
        );
    }

    #[test]
    fn profile_fields() {
        let mut b = base();
        b["DateOfBirth"] = json!("1990-02-03");
        b["Gender"] = json!("F");
        b["ZipCode"] = json!("78701");
        b["publisherProfiling"] = json!([{"partnerCode": "p", "countryLanguageCode": "en-US", "responses": [{"questionId": "EDUCATION", "answerIds": ["5"]}]}]);
        let p = read(&b, today()).unwrap();
        assert_eq!(p.gender, Some("2"));
        assert_eq!(
            p.answers,
            vec![("EDUCATION".into(), vec!["5".into()], "p".into())]
        );
        b["DateOfBirth"] = json!("02/03/1990");
        b["Gender"] = json!("X");
        b["ZipCode"] = json!("ABCDE");
        b["ProfilingResponses"] = json!([{"partnerCode": "p", "responses": [{"questionId": "EDUCATION", "answerIds": ["99"]}]}]);
        b.as_object_mut().unwrap().remove("publisherProfiling");
        let Err(Invalid::Profile(e)) = read(&b, today()) else {
            panic!()
        };
        for f in [
            "DateOfBirth",
            "Gender",
            "ZipCode",
            "PublisherProfiling[0].responses[0].answerIds",
        ] {
            assert!(e.contains_key(f), "{f}: {e:?}");
        }
    }

    #[test]
    fn postal_codes_per_country() {
        assert_eq!(zip_for("BR", "01310100").unwrap(), "01310-100");
        assert_eq!(zip_for("BR", "01310-100").unwrap(), "01310-100");
        assert!(zip_for("BR", "0131-0100").is_err());
        assert!(zip_for("PA", "0801").is_ok() && zip_for("PA", "0801-01").is_ok());
        assert!(zip_for("PA", "ABCD").is_err());
        assert!(zip_for("US", "12345-6789").is_ok() && zip_for("US", "1234").is_err());
        assert!(zip_for("CA", "K1A 0B1").is_ok() && zip_for("CA", "12345").is_err());
        assert!(zip_for("DE", "10115").is_ok());
        // Multi-byte characters where the formats slice by byte are refused, not a panic.
        for country in ["US", "BR", "PA", "NL", "PL", "PT", "JP", "CA", "GB"] {
            assert!(
                zip_for(country, "\u{e1}\u{e0103}\u{ce}\u{d0}").is_err(),
                "{country}"
            );
            assert!(zip_for(country, "12345\u{e9}6789").is_err(), "{country}");
        }
    }
}
