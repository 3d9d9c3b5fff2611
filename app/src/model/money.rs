//! Money on the wire: integer micros (1 USD = 1,000,000) plus display strings. Parsing and
//! formatting are exact; no floating point anywhere.

use serde::{Deserialize, Deserializer, Serialize};

/// Micros as a decimal string with six places: `250000000` → `"250.000000"`.
pub fn format_micros(micros: i64) -> String {
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
    fn amounts_accept_integers_and_decimal_strings_only() {
        let a: Amount = serde_json::from_str("250000000").unwrap_or(Amount(0));
        assert_eq!(a, Amount(250_000_000));
        let b: Amount = serde_json::from_str("\"250.5\"").unwrap_or(Amount(0));
        assert_eq!(b, Amount(250_500_000));
        assert!(serde_json::from_str::<Amount>("250.5").is_err());
    }
}
