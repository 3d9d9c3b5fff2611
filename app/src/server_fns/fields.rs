//! Reading form fields: what every server function's plain HTML form sends is text, and an
//! empty field means "not given". A value that does not parse becomes a field error, so the
//! page shows it beside the field.

use crate::error::FieldErrors;

/// Trimmed text; empty means "not given".
pub fn text(v: Option<String>) -> Option<String> {
    v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())
}

/// An optional whole number (`1 000` and `1_000` read as 1000).
pub fn number<T: std::str::FromStr>(
    errs: &mut FieldErrors,
    field: &str,
    v: Option<String>,
) -> Option<T> {
    let raw = text(v)?.replace(['_', ' '], "");
    let parsed = raw.parse::<T>();
    errs.check(
        field,
        parsed.map_err(|_| "must be a whole number".to_owned()),
    )
}

/// An optional choice from a select, read by `parse`.
pub fn choice<T>(
    errs: &mut FieldErrors,
    field: &str,
    v: Option<String>,
    parse: fn(&str) -> Option<T>,
    expected: &str,
) -> Option<T> {
    let raw = text(v)?;
    errs.check(
        field,
        parse(&raw).ok_or_else(|| format!("must be one of {expected}")),
    )
}

/// A decimal USD amount in micros (`"12.50"`, `"$12.50"`).
pub fn usd(raw: &str) -> Result<i64, String> {
    let raw = raw.trim().trim_start_matches('$').trim();
    if raw.is_empty() {
        return Err("is required".to_owned());
    }
    crate::model::money::parse_decimal(raw)
}
