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

/// Whether `s` holds a bidirectional embedding, override or isolate (U+202A-U+202E,
/// U+2066-U+2069). In a name shown to end users they reorder what is read ("Trojan
/// Source"): an offer named `Free \u{202E}seman` shows as something else. The marks
/// (U+200E, U+200F, U+061C) are left alone: right-to-left writing needs them and they
/// reorder nothing by themselves.
pub fn has_bidi_control(s: &str) -> bool {
    s.chars()
        .any(|c| matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'))
}

/// The refusal for [`has_bidi_control`], for `fieldErrors`.
pub const BIDI_REFUSED: &str = "must not contain bidirectional control characters";

/// A display name such as a company name: trimmed, 1 to `max` characters, no control
/// characters, no bidirectional controls ([`has_bidi_control`]).
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
    if has_bidi_control(s) {
        return Err(BIDI_REFUSED.to_owned());
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

/// Deserializes an optional list of at most `N` items and fails as soon as item `N + 1`
/// arrives, so what a request makes the server hold stays bounded whatever its length (a
/// 4 MiB body of `{},` would otherwise become a million structs before any limit is checked).
/// Use with `#[serde(default, deserialize_with = "list_at_most::<_, _, N>")]`.
pub fn list_at_most<'de, D, T, const N: usize>(d: D) -> Result<Option<Vec<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    d.deserialize_option(bounded::Optional::<T, N>(std::marker::PhantomData))
}

/// [`list_at_most`] for a list that must be present.
pub fn required_list_at_most<'de, D, T, const N: usize>(d: D) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    d.deserialize_seq(bounded::List::<T, N>(std::marker::PhantomData))
}

mod bounded {
    use serde::de::{Deserialize, Deserializer, Error, SeqAccess, Visitor};
    use std::fmt;
    use std::marker::PhantomData;

    pub struct List<T, const N: usize>(pub PhantomData<T>);

    impl<'de, T: Deserialize<'de>, const N: usize> Visitor<'de> for List<T, N> {
        type Value = Vec<T>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "a list of at most {N} items")
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(N).min(1024));
            while let Some(item) = seq.next_element()? {
                if out.len() == N {
                    return Err(A::Error::invalid_length(N + 1, &self));
                }
                out.push(item);
            }
            Ok(out)
        }
    }

    pub struct Optional<T, const N: usize>(pub PhantomData<T>);

    impl<'de, T: Deserialize<'de>, const N: usize> Visitor<'de> for Optional<T, N> {
        type Value = Option<Vec<T>>;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "null or a list of at most {N} items")
        }

        fn visit_none<E: Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_unit<E: Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }

        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_seq(List::<T, N>(PhantomData)).map(Some)
        }
    }
}

#[cfg(test)]
mod bounded_list_tests {
    use super::list_at_most;

    #[derive(serde::Deserialize, Debug)]
    struct Input {
        #[serde(default, deserialize_with = "list_at_most::<_, _, 3>")]
        items: Option<Vec<u8>>,
    }

    #[test]
    fn a_list_longer_than_its_bound_is_refused_while_it_is_read() {
        let ok: Input = serde_json::from_str(r#"{"items":[1,2,3]}"#).unwrap();
        assert_eq!(ok.items, Some(vec![1, 2, 3]));
        let none: Input = serde_json::from_str(r#"{"items":null}"#).unwrap();
        assert_eq!(none.items, None);
        let absent: Input = serde_json::from_str("{}").unwrap();
        assert_eq!(absent.items, None);
        let err = serde_json::from_str::<Input>(r#"{"items":[1,2,3,4]}"#).unwrap_err();
        assert!(err.to_string().contains("at most 3 items"), "{err}");
    }
}

#[cfg(test)]
mod bidi_tests {
    use super::*;

    #[test]
    fn names_with_bidirectional_overrides_are_refused() {
        for bad in ["Free \u{202E}seman", "a\u{2066}b\u{2069}", "\u{202A}x"] {
            assert_eq!(
                display_name(bad, 80),
                Err(BIDI_REFUSED.to_owned()),
                "{bad:?}"
            );
        }
        // Right-to-left text and its marks are names like any other.
        assert!(display_name("שלום \u{200F}עולם", 80).is_ok());
        assert!(display_name("مرحبا", 80).is_ok());
    }
}
