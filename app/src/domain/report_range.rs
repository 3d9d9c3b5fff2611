//! The date range of a daily report, checked once for every report: defaults (the last 30
//! days up to today), order, length, and dates the databases and chrono can both represent,
//! so no input reaches an overflowing date addition or an out-of-range timestamp.

use chrono::{Duration, NaiveDate};

use crate::error::AppError;

/// Earliest and latest dates a report may name.
fn bounds() -> (NaiveDate, NaiveDate) {
    (
        NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or(NaiveDate::MIN),
        NaiveDate::from_ymd_opt(9999, 12, 30).unwrap_or(NaiveDate::MAX),
    )
}

/// A day named by a filter, refused (400 on `field`) outside the dates both databases and
/// chrono represent, so no later date addition overflows.
pub fn check_day(field: &str, day: Option<NaiveDate>) -> Result<Option<NaiveDate>, AppError> {
    let (min, max) = bounds();
    match day {
        Some(d) if d < min || d > max => Err(AppError::field(
            field,
            "must be between 1970-01-01 and 9999-12-30",
        )),
        d => Ok(d),
    }
}

/// `(from, to)` inclusive: `to` defaults to `today`, `from` to 29 days before `to`; at most
/// `max_days` days.
pub fn resolve(
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
    today: NaiveDate,
    max_days: i64,
) -> Result<(NaiveDate, NaiveDate), AppError> {
    let (min, max) = bounds();
    let outside = |d: &NaiveDate| *d < min || *d > max;
    let to = to.unwrap_or(today);
    if outside(&to) {
        return Err(AppError::field(
            "to",
            "must be between 1970-01-01 and 9999-12-30",
        ));
    }
    let from = match from {
        Some(f) if outside(&f) => {
            return Err(AppError::field(
                "from",
                "must be between 1970-01-01 and 9999-12-30",
            ));
        }
        Some(f) => f,
        None => (to - Duration::days(29)).max(min),
    };
    if from > to {
        return Err(AppError::field("from", "must not be after to"));
    }
    if (to - from).num_days() >= max_days {
        return Err(AppError::field(
            "to",
            format!("the range is at most {max_days} days"),
        ));
    }
    Ok((from, to))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap_or_default()
    }

    #[test]
    fn defaults_to_the_last_thirty_days() {
        let r = resolve(None, None, d(2026, 3, 31), 366).ok();
        assert_eq!(r, Some((d(2026, 3, 2), d(2026, 3, 31))));
    }

    const OUTSIDE: &str = "must be between 1970-01-01 and 9999-12-30";

    /// The field errors of a refused range (none when the range was accepted).
    fn refusal(r: Result<(NaiveDate, NaiveDate), AppError>) -> Vec<(String, String)> {
        r.err()
            .map(|e| e.field_errors.into_iter().collect())
            .unwrap_or_default()
    }

    fn only(field: &str, why: &str) -> Vec<(String, String)> {
        vec![(field.to_owned(), why.to_owned())]
    }

    #[test]
    fn extreme_dates_are_refused_not_overflowed() {
        assert_eq!(
            refusal(resolve(None, Some(NaiveDate::MAX), d(2026, 1, 1), 366)),
            only("to", OUTSIDE)
        );
        assert_eq!(
            refusal(resolve(None, Some(NaiveDate::MIN), d(2026, 1, 1), 366)),
            only("to", OUTSIDE)
        );
        assert_eq!(
            refusal(resolve(
                Some(NaiveDate::MIN),
                Some(d(2026, 1, 1)),
                d(2026, 1, 1),
                366
            )),
            only("from", OUTSIDE)
        );
        assert_eq!(
            refusal(resolve(
                Some(d(2026, 2, 1)),
                Some(d(2026, 1, 1)),
                d(2026, 1, 1),
                366
            )),
            only("from", "must not be after to")
        );
        assert_eq!(
            refusal(resolve(
                Some(d(2024, 1, 1)),
                Some(d(2026, 1, 1)),
                d(2026, 1, 1),
                366
            )),
            only("to", "the range is at most 366 days")
        );
        assert_eq!(
            resolve(None, Some(d(1970, 1, 5)), d(2026, 1, 1), 366).ok(),
            Some((d(1970, 1, 1), d(1970, 1, 5)))
        );
    }
}
