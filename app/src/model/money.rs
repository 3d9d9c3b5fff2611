//! Money on the wire: integer micros (1 USD = 1,000,000) plus display strings. Parsing and
//! formatting are exact; no floating point anywhere.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize};

/// An amount of money in micros of its currency (1 USD = 1,000,000). The ledger, reserves,
/// settlement, payouts and every `*Micros` field of the wire model carry this type: it
/// travels as a JSON integer, adds and subtracts only with overflow checked, and shows
/// itself with six decimals (`Display`) or a currency's own decimals (`in_decimals`).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Micros(pub i64);

// Written by hand: a newtype's derived schema would be an object; on the wire it is the
// integer the specification documents.
#[cfg(feature = "ssr")]
impl utoipa::PartialSchema for Micros {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::Integer)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::Int64,
            )))
            .description(Some("Integer micros of the currency (1 unit = 1,000,000)"))
            .into()
    }
}
#[cfg(feature = "ssr")]
impl utoipa::ToSchema for Micros {}

impl Micros {
    pub const ZERO: Micros = Micros(0);
    /// Micros per whole unit of a currency.
    pub const PER_UNIT: i64 = 1_000_000;

    pub const fn get(self) -> i64 {
        self.0
    }

    pub fn checked_add(self, other: Micros) -> Option<Micros> {
        self.0.checked_add(other.0).map(Micros)
    }

    pub fn checked_sub(self, other: Micros) -> Option<Micros> {
        self.0.checked_sub(other.0).map(Micros)
    }

    /// `count` times the amount (a cost per complete times completes).
    pub fn checked_mul(self, count: i64) -> Option<Micros> {
        self.0.checked_mul(count).map(Micros)
    }

    /// The sum of `amounts`, or `None` when it would overflow.
    pub fn checked_sum(amounts: impl IntoIterator<Item = Micros>) -> Option<Micros> {
        amounts
            .into_iter()
            .try_fold(Micros::ZERO, |acc, m| acc.checked_add(m))
    }

    pub const fn is_negative(self) -> bool {
        self.0 < 0
    }

    /// The amount with `decimals` places (0 to 6), cut toward zero: `in_decimals(2)` of
    /// 1,234,567 micros is `"1.23"`, `in_decimals(0)` of 5,000,000 is `"5"`.
    pub fn in_decimals(self, decimals: u32) -> String {
        let decimals = decimals.min(6);
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let whole = abs / 1_000_000;
        if decimals == 0 {
            return format!("{sign}{whole}");
        }
        let frac = (abs % 1_000_000) / 10u64.pow(6 - decimals);
        format!("{sign}{whole}.{frac:0width$}", width = decimals as usize)
    }

    /// The amount as a person reads it, in `currency`'s own decimals with thousands grouped:
    /// `250.00 USD`, `1,234.50 USD`, `1,500 JPY`. Sub-unit precision beyond those decimals
    /// (a cost per impression, say) is kept rather than rounded away: `0.0015 USD`.
    pub fn money(self, currency: &str) -> String {
        format!("{} {currency}", self.amount_in(currency))
    }

    /// [`money`](Self::money) without the currency code: `1,234.50`.
    pub fn amount_in(self, currency: &str) -> String {
        let minor = currency_decimals(currency);
        let exact = format_micros(self.0);
        let (int, frac) = exact.split_once('.').unwrap_or((exact.as_str(), ""));
        let (sign, digits) = int.strip_prefix('-').map_or(("", int), |d| ("-", d));
        let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(c);
        }
        let frac = frac.trim_end_matches('0');
        let frac = if frac.len() < minor {
            format!("{frac:0<minor$}")
        } else {
            frac.to_owned()
        };
        let point = if frac.is_empty() { "" } else { "." };
        format!("{sign}{grouped}{point}{frac}")
    }
}

impl From<i64> for Micros {
    fn from(v: i64) -> Self {
        Micros(v)
    }
}

impl From<Micros> for i128 {
    fn from(m: Micros) -> Self {
        i128::from(m.0)
    }
}

impl From<Micros> for i64 {
    fn from(m: Micros) -> Self {
        m.0
    }
}

/// A total for display and reports; it stops at the largest amount rather than wrapping
/// (the ledger itself posts with `checked_add`, which refuses an overflow).
impl std::iter::Sum for Micros {
    fn sum<I: Iterator<Item = Micros>>(iter: I) -> Self {
        Micros(iter.fold(0i64, |acc, m| acc.saturating_add(m.0)))
    }
}

/// Adds into a running total for a report; like `Sum`, it stops at the largest amount.
impl std::ops::AddAssign for Micros {
    fn add_assign(&mut self, other: Micros) {
        self.0 = self.0.saturating_add(other.0);
    }
}

/// Whole micros as typed in a form (`"1500000"`); decimals go through `parse_decimal`.
impl std::str::FromStr for Micros {
    type Err = std::num::ParseIntError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.parse().map(Micros)
    }
}

/// Six decimals, exactly: `250000000` shows as `250.000000`.
impl fmt::Display for Micros {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_micros(self.0))
    }
}

/// The minor-unit decimals of an ISO 4217 currency (0 for the yen-like ones, else 2).
pub fn currency_decimals(currency: &str) -> usize {
    match currency {
        "JPY" | "KRW" | "VND" | "CLP" | "ISK" | "UGX" | "XAF" | "XOF" => 0,
        "BHD" | "KWD" | "OMR" | "JOD" | "TND" => 3,
        _ => 2,
    }
}

/// Micros as a decimal string with six places: `250000000` → `"250.000000"`.
pub fn format_micros(micros: impl Into<i64>) -> String {
    let micros: i64 = micros.into();
    let sign = if micros < 0 { "-" } else { "" };
    let abs = micros.unsigned_abs();
    format!("{sign}{}.{:06}", abs / 1_000_000, abs % 1_000_000)
}

/// Parses a decimal amount of whole units (`"250"`, `"12.5"`, `"0.000001"`) into micros.
/// At most six decimal places; no sign, exponent or separators.
pub fn parse_decimal(raw: &str) -> Result<i64, String> {
    let s = raw.trim();
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit());
    if !digits(int) || (s.contains('.') && !digits(frac)) {
        return Err("must be a decimal amount such as 250.00".to_owned());
    }
    if frac.len() > 6 {
        return Err("has more than six decimal places".to_owned());
    }
    let int: i64 = int.parse().map_err(|_| "is too large".to_owned())?;
    let frac: i64 = format!("{frac:0<6}")
        .parse()
        .map_err(|_| "is not a number".to_owned())?;
    int.checked_mul(1_000_000)
        .and_then(|v| v.checked_add(frac))
        .ok_or_else(|| "is too large".to_owned())
}

/// A request amount: a JSON integer is micros (CONTRACT.md section 7); a JSON string is a
/// decimal of whole units (`"250.00"`). A JSON number with a fraction is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ssr", schema(value_type = i64))]
pub struct Amount(pub i64);

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Int(i64),
            Text(String),
            Other(serde::de::IgnoredAny),
        }
        match Raw::deserialize(d)? {
            Raw::Int(v) => Ok(Amount(v)),
            Raw::Text(s) => parse_decimal(&s)
                .map(Amount)
                .map_err(serde::de::Error::custom),
            Raw::Other(_) => Err(serde::de::Error::custom(
                "must be integer micros or a decimal string; floating-point numbers are refused",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_parses_exactly() {
        assert_eq!(format_micros(250_000_000), "250.000000");
        assert_eq!(format_micros(1), "0.000001");
        assert_eq!(format_micros(-1_500_000), "-1.500000");
        assert_eq!(parse_decimal("250"), Ok(250_000_000));
        assert_eq!(parse_decimal("12.5"), Ok(12_500_000));
        assert_eq!(parse_decimal("0.000001"), Ok(1));
        for bad in ["", "-1", "1e6", "1.0000001", "1,5", ".5", "5.", "abc"] {
            assert!(parse_decimal(bad).is_err(), "{bad:?}");
        }
        assert!(parse_decimal("99999999999999999999").is_err());
    }

    #[test]
    fn micros_add_checked_and_show_in_a_currencys_decimals() {
        let m = Micros(1_234_567);
        assert_eq!(m.to_string(), "1.234567");
        assert_eq!(m.in_decimals(2), "1.23");
        assert_eq!(Micros(-1_500_000).in_decimals(0), "-1");
        assert_eq!(Micros(5_000_000).in_decimals(0), "5");
        assert_eq!(Micros(250_000_000).money("USD"), "250.00 USD");
        assert_eq!(Micros(1_234_500_000).money("USD"), "1,234.50 USD");
        assert_eq!(Micros(1_234_567_000_000).money("USD"), "1,234,567.00 USD");
        assert_eq!(Micros(1_500).money("USD"), "0.0015 USD");
        assert_eq!(Micros(-2_000_000).money("USD"), "-2.00 USD");
        assert_eq!(Micros(1_500_000_000).money("JPY"), "1,500 JPY");
        assert_eq!(Micros(i64::MAX).checked_add(Micros(1)), None);
        assert_eq!(Micros(3).checked_sub(Micros(5)), Some(Micros(-2)));
        assert_eq!(Micros::checked_sum([Micros(1), Micros(2)]), Some(Micros(3)));
        assert_eq!(Micros::checked_sum([Micros(i64::MAX), Micros(1)]), None);
        assert_eq!(serde_json::to_string(&m).ok().as_deref(), Some("1234567"));
        assert_eq!(serde_json::from_str::<Micros>("42").ok(), Some(Micros(42)));
    }

    #[test]
    fn amounts_accept_integers_and_decimal_strings_only() {
        let a: Amount = serde_json::from_str("250000000").unwrap_or(Amount(0));
        assert_eq!(a, Amount(250_000_000));
        let b: Amount = serde_json::from_str("\"250.5\"").unwrap_or(Amount(0));
        assert_eq!(b, Amount(250_500_000));
        assert!(serde_json::from_str::<Amount>("250.5").is_err());
    }
}
