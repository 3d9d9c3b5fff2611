//! Numbers and dates as each language writes them (CLDR's defaults for the language):
//! grouping and decimal marks, Arabic-Indic digits in Arabic, day-month order. Amounts stay
//! exact: they are formatted from minor units, never through floats.

use app::model::language::Language;
use chrono::{DateTime, Datelike, Timelike, Utc};

/// Group mark, decimal mark, and whether 4-digit numbers are grouped.
fn marks(lang: Language) -> (&'static str, &'static str, bool) {
    match lang {
        Language::En | Language::Ja => (",", ".", true),
        Language::De | Language::PtBr => (".", ",", true),
        // Spanish groups from five digits (2.000 is written 2000).
        Language::Es => (".", ",", false),
        Language::Fr => ("\u{202f}", ",", true),
        Language::Ar => ("\u{066c}", "\u{066b}", true),
    }
}

/// Arabic-Indic digits in Arabic, ASCII digits elsewhere.
fn digits(lang: Language, s: &str) -> String {
    if lang != Language::Ar {
        return s.to_owned();
    }
    s.chars()
        .map(|c| match c.to_digit(10) {
            Some(d) => char::from_u32(0x0660 + d).unwrap_or(c),
            None => c,
        })
        .collect()
}

/// An amount of `decimals`-place minor units, e.g. 123456 with 2 decimals: `1,234.56`
/// (en), `1.234,56` (de), `١٬٢٣٤٫٥٦` (ar).
pub fn number(lang: Language, minor_units: i64, decimals: i32) -> String {
    let (group, decimal, group_four) = marks(lang);
    let d = usize::try_from(decimals).unwrap_or(0);
    let padded = format!("{:0>width$}", minor_units.unsigned_abs(), width = d + 1);
    let (int, frac) = padded.split_at(padded.len() - d);
    let grouped = if int.len() > 4 || (group_four && int.len() == 4) {
        let mut out = String::new();
        for (i, c) in int.chars().enumerate() {
            if i > 0 && (int.len() - i) % 3 == 0 {
                out.push_str(group);
            }
            out.push(c);
        }
        out
    } else {
        int.to_owned()
    };
    let sign = if minor_units < 0 { "-" } else { "" };
    let text = if d == 0 {
        format!("{sign}{grouped}")
    } else {
        format!("{sign}{grouped}{decimal}{frac}")
    };
    digits(lang, &text)
}

/// A moment, in UTC (the wall does not know the user's zone and says so).
pub fn datetime(lang: Language, t: &DateTime<Utc>, months: Option<&[&str; 12]>) -> String {
    let (y, m, d, hh, mm) = (t.year(), t.month(), t.day(), t.hour(), t.minute());
    let text = match (lang, months) {
        (_, Some(names)) => format!("{} {d}, {y}, {hh:02}:{mm:02} UTC", names[(m - 1) as usize]),
        (Language::De, _) => format!("{d:02}.{m:02}.{y}, {hh:02}:{mm:02} UTC"),
        (Language::Ja, _) => format!("{y}/{m:02}/{d:02} {hh:02}:{mm:02} UTC"),
        (Language::Ar, _) => format!("{d}/{m}/{y}، {hh:02}:{mm:02} UTC"),
        (Language::Fr, _) => format!("{d:02}/{m:02}/{y} {hh:02}:{mm:02} UTC"),
        _ => format!("{d:02}/{m:02}/{y}, {hh:02}:{mm:02} UTC"),
    };
    digits(lang, &text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn amounts_use_the_languages_marks_and_digits() {
        assert_eq!(number(Language::En, 123_456, 2), "1,234.56");
        assert_eq!(number(Language::De, 123_456, 2), "1.234,56");
        assert_eq!(number(Language::Es, 123_456, 2), "1234,56");
        assert_eq!(number(Language::Es, 1_234_567, 0), "1.234.567");
        assert_eq!(number(Language::Fr, 1_234_567, 2), "12\u{202f}345,67");
        assert_eq!(number(Language::Ar, 56, 0), "٥٦");
        assert_eq!(number(Language::Ar, 150, 2), "١٫٥٠");
        assert_eq!(number(Language::Ja, -5, 2), "-0.05");
        assert_eq!(number(Language::PtBr, 0, 0), "0");
    }

    #[test]
    fn dates_follow_the_languages_order() {
        let t = Utc.with_ymd_and_hms(2026, 3, 7, 9, 5, 0).unwrap();
        let months = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        assert_eq!(
            datetime(Language::En, &t, Some(&months)),
            "Mar 7, 2026, 09:05 UTC"
        );
        assert_eq!(datetime(Language::De, &t, None), "07.03.2026, 09:05 UTC");
        assert_eq!(datetime(Language::Ja, &t, None), "2026/03/07 09:05 UTC");
        assert_eq!(datetime(Language::PtBr, &t, None), "07/03/2026, 09:05 UTC");
        assert_eq!(datetime(Language::Ar, &t, None), "٧/٣/٢٠٢٦، ٠٩:٠٥ UTC");
    }
}
