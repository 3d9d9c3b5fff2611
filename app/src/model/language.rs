//! The languages the hosted offerwall speaks, and how one is chosen for a user: the
//! session's `lang` first, then the browser's `Accept-Language`, then English. A tag is
//! matched on its primary language (`de-AT` is German, `pt` and `pt-PT` get Brazilian
//! Portuguese, the one Portuguese the wall has), so a publisher may pass what its app
//! knows without mapping it first.

wire_enum!(
    /// A language of the hosted offerwall (BCP 47 tag as sent and shown).
    Language {
        En = "en",
        De = "de",
        Es = "es",
        Fr = "fr",
        PtBr = "pt-BR",
        Ja = "ja",
        Ar = "ar",
    }
);

impl Language {
    /// The language for a BCP 47 tag, matched on its primary subtag; `None` for a tag
    /// the wall does not speak (or that is not a tag).
    pub fn from_tag(tag: &str) -> Option<Language> {
        let tag = tag.trim();
        if !Language::is_tag(tag) {
            return None;
        }
        let primary = tag.split(['-', '_']).next()?.to_ascii_lowercase();
        Some(match primary.as_str() {
            "en" => Language::En,
            "de" => Language::De,
            "es" => Language::Es,
            "fr" => Language::Fr,
            "pt" => Language::PtBr,
            "ja" => Language::Ja,
            "ar" => Language::Ar,
            _ => return None,
        })
    }

    /// Whether `tag` is a well-formed language tag at all (a session's `lang` that is
    /// well formed but not spoken falls back instead of being refused).
    pub fn is_tag(tag: &str) -> bool {
        let tag = tag.trim();
        let mut parts = tag.split(['-', '_']);
        let primary_ok = parts.next().is_some_and(|p| {
            (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphabetic())
        });
        primary_ok
            && tag.len() <= 35
            && parts
                .all(|p| (1..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
    }

    /// The best spoken language of an `Accept-Language` header value: the highest `q`
    /// first, the header's order among equals; `q=0` means "not this one".
    pub fn negotiate(accept_language: &str) -> Option<Language> {
        let mut best: Option<(u16, Language)> = None;
        for item in accept_language.split(',').take(32) {
            let mut parts = item.split(';');
            let tag = parts.next().unwrap_or_default().trim();
            let q = parts
                .find_map(|p| p.trim().strip_prefix("q="))
                .map_or(Some(1000), quality);
            let (Some(q), Some(lang)) = (q, Language::from_tag(tag)) else {
                continue;
            };
            if q > 0 && best.is_none_or(|(b, _)| q > b) {
                best = Some((q, lang));
            }
        }
        best.map(|(_, l)| l)
    }

    /// The language for a session's `lang` (if any) and the browser's `Accept-Language`.
    pub fn choose(session: Option<&str>, accept_language: Option<&str>) -> Language {
        session
            .and_then(Language::from_tag)
            .or_else(|| accept_language.and_then(Language::negotiate))
            .unwrap_or(Language::En)
    }

    /// Written right to left.
    pub fn rtl(self) -> bool {
        self == Language::Ar
    }
}

/// A `q` value in thousandths (`0.8` is 800); `None` when unreadable.
fn quality(v: &str) -> Option<u16> {
    let v = v.trim();
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if frac.len() > 3 || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let whole: u16 = match int {
        "0" => 0,
        "1" => 1000,
        _ => return None,
    };
    let thousandths: u16 = format!("{frac:0<3}").parse().ok()?;
    let q = whole + thousandths;
    (q <= 1000).then_some(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_match_on_their_primary_language() {
        assert_eq!(Language::from_tag("de-AT"), Some(Language::De));
        assert_eq!(Language::from_tag("pt"), Some(Language::PtBr));
        assert_eq!(Language::from_tag("pt_PT"), Some(Language::PtBr));
        assert_eq!(Language::from_tag("AR"), Some(Language::Ar));
        assert_eq!(Language::from_tag("nl-NL"), None);
        assert_eq!(Language::from_tag("de AT"), None);
        assert!(Language::is_tag("nl-NL"));
        assert!(!Language::is_tag("<script>"));
        assert!(!Language::is_tag("x"));
    }

    #[test]
    fn accept_language_takes_the_highest_quality_spoken_language() {
        let n = Language::negotiate;
        assert_eq!(n("nl-NL,nl;q=0.9,de;q=0.8,en;q=0.7"), Some(Language::De));
        assert_eq!(n("fr;q=0.5, ja;q=0.9"), Some(Language::Ja));
        assert_eq!(n("ar, en"), Some(Language::Ar));
        assert_eq!(n("de;q=0, es;q=0.1"), Some(Language::Es));
        assert_eq!(n("de;q=2, es;q=0.1"), Some(Language::Es));
        assert_eq!(n("nl, *"), None);
        assert_eq!(n(""), None);
    }

    #[test]
    fn the_session_language_wins_over_the_browser() {
        assert_eq!(Language::choose(Some("ja"), Some("de")), Language::Ja);
        assert_eq!(Language::choose(Some("nl"), Some("de")), Language::De);
        assert_eq!(Language::choose(None, Some("nl")), Language::En);
        assert_eq!(Language::choose(None, None), Language::En);
    }
}
