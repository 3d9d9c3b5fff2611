//! Pure validation of small values, shared by the API, the forms and the browser.
//! Each function returns the normalised value or a short reason for `fieldErrors`.

/// A collector of `field → why` errors (the same shape as the API's `fieldErrors`).
pub type Errors = std::collections::BTreeMap<String, String>;

/// Lower-cases and checks an e-mail address (one `@`, a dotted domain, no spaces, ≤ 254).
pub fn email(raw: &str) -> Result<String, String> {
    let e = raw.trim().to_ascii_lowercase();
    let bad = || Err("must be a valid e-mail address".to_owned());
    if e.is_empty() || e.len() > 254 || e.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return bad();
    }
    let Some((local, domain)) = e.split_once('@') else {
        return bad();
    };
    if local.is_empty()
        || domain.contains('@')
        || !domain.contains('.')
        || domain.starts_with('.')
        || domain.ends_with('.')
        || domain.contains("..")
    {
        return bad();
    }
    Ok(e)
}

/// Password policy: 10 to 128 characters. Long passphrases beat composition rules.
pub fn password(raw: &str) -> Result<&str, String> {
    let n = raw.chars().count();
    if n < 10 {
        Err("must be at least 10 characters".to_owned())
    } else if n > 128 {
        Err("must be at most 128 characters".to_owned())
    } else {
        Ok(raw)
    }
}

/// A display name such as a company name: trimmed, 1 to `max` characters, no control characters.
pub fn display_name(raw: &str, max: usize) -> Result<String, String> {
    let s = raw.trim();
    if s.is_empty() {
        return Err("is required".to_owned());
    }
    if s.chars().count() > max {
        return Err(format!("must be at most {max} characters"));
    }
    if s.chars().any(char::is_control) {
        return Err("must not contain control characters".to_owned());
    }
    Ok(s.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn email_is_normalised_and_checked() {
        assert_eq!(
            email("  Ann@Example.COM ").as_deref(),
            Ok("ann@example.com")
        );
        for bad in [
            "",
            "ann",
            "ann@",
            "@example.com",
            "ann@example",
            "a b@example.com",
            "a@@b.com",
            "a@b..com",
        ] {
            assert!(email(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn password_length_bounds() {
        assert!(password("123456789").is_err());
        assert!(password("1234567890").is_ok());
        assert!(password(&"x".repeat(129)).is_err());
    }

    #[test]
    fn display_name_trims_and_bounds() {
        assert_eq!(display_name("  Acme  ", 10).as_deref(), Ok("Acme"));
        assert!(display_name("   ", 10).is_err());
        assert!(display_name("abcdefghijk", 10).is_err());
    }
}
