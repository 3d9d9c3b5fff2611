//! Pure publisher rules shared by the API, the forms and the browser: identity
//! normalisation, store URLs, SDK versions and reward conversion.

use super::{PlacementType, Rounding};
use crate::model::money::Micros;

/// Normalises a placement's platform identity:
/// - ANDROID_APP: an application id (`com.example.app`): dot-separated segments of letters,
///   digits and underscores, each starting with a letter, at least two segments; case kept.
/// - IOS_APP: a bundle id (`com.example.App`): dot-separated segments of letters, digits and
///   hyphens, at least two; case kept.
/// - WEBSITE and API_NETWORK: a hostname: scheme, credentials, port, path, query and a
///   trailing dot are removed and the host is lower-cased (`https://Shop.Example.com:8443/a`
///   becomes `shop.example.com`). IP addresses and single-label names are refused.
pub fn normalize_identity(kind: PlacementType, raw: &str) -> Result<String, String> {
    let s = raw.trim();
    if s.is_empty() {
        return Err("is required".to_owned());
    }
    if s.len() > 255 {
        return Err("must be at most 255 characters".to_owned());
    }
    match kind {
        PlacementType::AndroidApp => {
            let ok = s.split('.').count() >= 2
                && s.split('.').all(|seg| {
                    seg.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                        && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
            if ok {
                Ok(s.to_owned())
            } else {
                Err("must be an Android application id such as com.example.app".to_owned())
            }
        }
        PlacementType::IosApp => {
            let ok = s.split('.').count() >= 2
                && s.split('.').all(|seg| {
                    !seg.is_empty() && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                });
            if ok {
                Ok(s.to_owned())
            } else {
                Err("must be an iOS bundle id such as com.example.App".to_owned())
            }
        }
        PlacementType::Website | PlacementType::ApiNetwork => hostname(s),
    }
}

fn hostname(s: &str) -> Result<String, String> {
    let bad = || Err("must be a domain name such as example.com".to_owned());
    let with_scheme = if s.contains("://") {
        s.to_owned()
    } else {
        format!("https://{s}")
    };
    let Ok(u) = url::Url::parse(&with_scheme) else {
        return bad();
    };
    let Some(url::Host::Domain(host)) = u.host() else {
        return bad();
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let labels_ok = host.split('.').count() >= 2
        && host.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        });
    // The last label of a real domain is never all digits (that would be an IPv4 literal).
    if !labels_ok
        || host
            .rsplit('.')
            .next()
            .is_some_and(|tld| tld.chars().all(|c| c.is_ascii_digit()))
    {
        return bad();
    }
    Ok(host)
}

/// A public HTTPS store URL (apps): `https`, a real domain, no credentials.
pub fn store_url(raw: &str) -> Result<String, String> {
    let u = url::Url::parse(raw.trim()).map_err(|_| "must be an absolute URL".to_owned())?;
    if u.scheme() != "https" {
        return Err("must use https".to_owned());
    }
    if !u.username().is_empty() || u.password().is_some() {
        return Err("must not contain credentials".to_owned());
    }
    match u.host() {
        Some(url::Host::Domain(h)) => {
            hostname(h).map_err(|_| "must be a public store address".to_owned())?
        }
        _ => return Err("must be a public store address".to_owned()),
    };
    Ok(u.to_string())
}

/// A semantic version such as `2.1.0`.
pub fn sdk_version(raw: &str) -> Result<semver::Version, String> {
    semver::Version::parse(raw.trim())
        .map_err(|_| "must be a semantic version such as 2.0.0".to_owned())
}

/// Converts USD micros to minor units: `usd_micros × numerator ÷ denominator`, rounded as
/// asked, in exact 128-bit integer arithmetic. `None` when the denominator is not positive,
/// an input is negative, or the result does not fit in `i64`.
pub fn convert(
    usd_micros: Micros,
    numerator: i64,
    denominator: i64,
    rounding: Rounding,
) -> Option<i64> {
    if denominator <= 0 || numerator < 0 || usd_micros < Micros(0) {
        return None;
    }
    let product = i128::from(usd_micros) * i128::from(numerator);
    let d = i128::from(denominator);
    let (q, r) = (product / d, product % d);
    let rounded = match rounding {
        Rounding::Down => q,
        Rounding::Up => q + i128::from(r > 0),
        // Half rounds up (amounts are never negative).
        Rounding::Nearest => q + i128::from(2 * r >= d),
    };
    i64::try_from(rounded).ok()
}

/// `minor_units` as a decimal string with `decimals` places (`1250`, 2 → `"12.50"`).
pub fn format_minor(minor_units: i64, decimals: i32) -> String {
    let d = usize::try_from(decimals).unwrap_or(0);
    if d == 0 {
        return minor_units.to_string();
    }
    let neg = minor_units < 0;
    let digits = minor_units.unsigned_abs().to_string();
    let padded = format!("{digits:0>width$}", width = d + 1);
    let (int, frac) = padded.split_at(padded.len() - d);
    format!("{}{int}.{frac}", if neg { "-" } else { "" })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn identities_are_normalised() {
        use PlacementType::*;
        assert_eq!(
            normalize_identity(Website, "https://Shop.Example.com:8443/path?q=1").as_deref(),
            Ok("shop.example.com")
        );
        assert_eq!(
            normalize_identity(Website, " example.org. ").as_deref(),
            Ok("example.org")
        );
        assert_eq!(
            normalize_identity(ApiNetwork, "API.partner.io").as_deref(),
            Ok("api.partner.io")
        );
        for bad in [
            "localhost",
            "127.0.0.1",
            "http://[::1]/",
            "exa mple.com",
            "-bad.com",
            "",
        ] {
            assert!(normalize_identity(Website, bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            normalize_identity(AndroidApp, " com.pixel.quest ").as_deref(),
            Ok("com.pixel.quest")
        );
        for bad in [
            "pixelquest",
            "com.1pixel.quest",
            "com..quest",
            "com.pixel-quest",
        ] {
            assert!(normalize_identity(AndroidApp, bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            normalize_identity(IosApp, "com.Pixel.Quest-Lite").as_deref(),
            Ok("com.Pixel.Quest-Lite")
        );
        assert!(normalize_identity(IosApp, "nodots").is_err());
    }

    #[test]
    fn store_urls_must_be_public_https() {
        assert!(store_url("https://play.google.com/store/apps/details?id=com.pixel.quest").is_ok());
        for bad in [
            "http://play.google.com/x",
            "https://127.0.0.1/x",
            "https://user:pw@apps.apple.com/x",
            "apps.apple.com",
        ] {
            assert!(store_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rounding_edges() {
        // 1 USD at 100 coins per USD.
        assert_eq!(
            convert(Micros(1_000_000), 100, 1_000_000, Rounding::Down),
            Some(100)
        );
        // 0.015 USD at 100/USD = 1.5 coins.
        assert_eq!(
            convert(Micros(15_000), 100, 1_000_000, Rounding::Down),
            Some(1)
        );
        assert_eq!(
            convert(Micros(15_000), 100, 1_000_000, Rounding::Nearest),
            Some(2)
        );
        assert_eq!(
            convert(Micros(15_000), 100, 1_000_000, Rounding::Up),
            Some(2)
        );
        // 0.014999 USD: just under half.
        assert_eq!(
            convert(Micros(14_999), 100, 1_000_000, Rounding::Nearest),
            Some(1)
        );
        // Exact results never move.
        assert_eq!(
            convert(Micros(20_000), 100, 1_000_000, Rounding::Up),
            Some(2)
        );
        assert_eq!(convert(Micros(0), 100, 1_000_000, Rounding::Up), Some(0));
        assert_eq!(convert(Micros(1), 1, 0, Rounding::Down), None);
        assert_eq!(convert(Micros(i64::MAX), i64::MAX, 1, Rounding::Down), None);
        // A huge but representable product is still exact.
        assert_eq!(
            convert(Micros(i64::MAX), 2, 2, Rounding::Down),
            Some(i64::MAX)
        );
    }

    #[test]
    fn formats_minor_units() {
        assert_eq!(format_minor(1250, 2), "12.50");
        assert_eq!(format_minor(5, 3), "0.005");
        assert_eq!(format_minor(42, 0), "42");
    }

    proptest! {
        #[test]
        fn down_le_nearest_le_up_and_within_one(usd in 0i64..=10_000_000_000, num in 0i64..=1_000_000, den in 1i64..=10_000_000) {
            let d = convert(Micros(usd), num, den, Rounding::Down).unwrap_or(-1);
            let n = convert(Micros(usd), num, den, Rounding::Nearest).unwrap_or(-1);
            let u = convert(Micros(usd), num, den, Rounding::Up).unwrap_or(-1);
            prop_assert!(d <= n && n <= u && u - d <= 1);
            // DOWN is the floor: d·den ≤ usd·num < (d+1)·den.
            let exact = i128::from(usd) * i128::from(num);
            prop_assert!(i128::from(d) * i128::from(den) <= exact);
            prop_assert!(exact < (i128::from(d) + 1) * i128::from(den));
            // UP differs from DOWN exactly when there is a remainder.
            prop_assert_eq!(u != d, exact % i128::from(den) != 0);
            // NEAREST is never more than half a unit away.
            prop_assert!((i128::from(n) * i128::from(den) * 2 - exact * 2).abs() <= i128::from(den));
        }
    }
}
