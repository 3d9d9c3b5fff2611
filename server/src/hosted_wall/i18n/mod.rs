//! The hosted offerwall's words and formats in each language it speaks
//! (`app::model::language::Language`). Every text a user reads on the wall comes from
//! here; advertiser texts come from the campaign (as given, or its translation). A new
//! language is one catalogue file and one arm in `texts`.

mod catalog;
mod format;

pub use format::{datetime, number};

use app::model::language::Language;

/// A template's `{name}` placeholders filled in.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    values.iter().fold(template.to_owned(), |s, (k, v)| {
        s.replace(&format!("{{{k}}}"), v)
    })
}

/// What a page says in one language. Templates name their placeholders (`{n}`, `{h}`,
/// `{steps}`).
pub struct Texts {
    /// The wall's title when the slot's design sets none.
    pub brand: &'static str,
    pub offers: &'static str,
    pub my_rewards: &'static str,
    pub help: &'static str,
    pub close: &'static str,
    /// Refusals: (title, text).
    pub expired: (&'static str, &'static str),
    pub revoked: (&'static str, &'static str),
    pub banned: (&'static str, &'static str),
    pub rate_limited: (&'static str, &'static str),
    pub unavailable: (&'static str, &'static str),
    pub failed: (&'static str, &'static str),
    pub not_available: &'static str,
    /// Reward states: EARNED, PENDING, REVERSED, REJECTED, COMPLETED.
    pub earned: &'static str,
    pub pending: &'static str,
    pub reversed: &'static str,
    pub rejected: &'static str,
    pub completed: &'static str,
    pub no_fill: (&'static str, &'static str),
    /// `{n}` steps, singular and plural.
    pub step_one: &'static str,
    pub steps: &'static str,
    pub more_offers: &'static str,
    pub total: &'static str,
    pub what_to_do: &'static str,
    pub rewards: &'static str,
    pub before_you_start: &'static str,
    /// `{h}` hours to complete a goal; `{n}` minutes until it is confirmed.
    pub complete_within: &'static str,
    pub confirmed_within: &'static str,
    /// The requirements when the advertiser gave none: `{steps}` is the goal names.
    pub complete_steps: &'static str,
    pub disclaimer: &'static str,
    /// The disclaimer when a goal is confirmed later: `{n}` minutes at most.
    pub disclaimer_pending: &'static str,
    pub done: &'static str,
    pub start_offer: &'static str,
    pub problem: &'static str,
    pub no_rewards: &'static str,
    pub offer: &'static str,
    pub status: &'static str,
    pub updated: &'static str,
    pub rewards_note: &'static str,
    /// Support reasons in `html::REASONS` order.
    pub reasons: [&'static str; 4],
    /// Support case states: OPEN, IN_PROGRESS, RESOLVED, REJECTED.
    pub case_states: [&'static str; 4],
    pub no_particular_offer: &'static str,
    pub case_sent: &'static str,
    pub reply: &'static str,
    pub your_requests: &'static str,
    pub what_happened: &'static str,
    pub details: &'static str,
    pub details_hint: &'static str,
    pub send: &'static str,
    pub message_length: &'static str,
    /// Offer categories by their upper-case token; others are shown as given.
    pub categories: &'static [(&'static str, &'static str)],
    /// Short month names, for languages that write them (English); `None` writes numbers.
    pub months: Option<[&'static str; 12]>,
}

/// The catalogue of a language.
pub fn texts(lang: Language) -> &'static Texts {
    match lang {
        Language::En => &catalog::EN,
        Language::De => &catalog::DE,
        Language::Es => &catalog::ES,
        Language::Fr => &catalog::FR,
        Language::PtBr => &catalog::PT_BR,
        Language::Ja => &catalog::JA,
        Language::Ar => &catalog::AR,
    }
}

impl Texts {
    /// A reward or offer state as the user reads it.
    pub fn state(&self, status: &str) -> Option<&'static str> {
        Some(match status {
            "EARNED" => self.earned,
            "PENDING" => self.pending,
            "REVERSED" => self.reversed,
            "REJECTED" => self.rejected,
            "COMPLETED" => self.completed,
            _ => return None,
        })
    }

    /// An offer category as the user reads it.
    pub fn category(&self, token: &str) -> String {
        self.categories
            .iter()
            .find(|(k, _)| *k == token)
            .map(|(_, v)| (*v).to_owned())
            .unwrap_or_else(|| token.to_lowercase().replace('_', " "))
    }

    /// "`n` steps" with the language's singular.
    pub fn step_count(&self, n: usize) -> String {
        let t = if n == 1 { self.step_one } else { self.steps };
        fill(t, &[("n", &n.to_string())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every catalogue fills the same placeholders as English, so no language shows a
    /// raw `{n}` or drops a number.
    #[test]
    fn every_language_keeps_the_placeholders() {
        let en = texts(Language::En);
        for lang in Language::ALL {
            let t = texts(*lang);
            for (a, b) in [
                (t.step_one, en.step_one),
                (t.steps, en.steps),
                (t.complete_within, en.complete_within),
                (t.confirmed_within, en.confirmed_within),
                (t.complete_steps, en.complete_steps),
                (t.disclaimer_pending, en.disclaimer_pending),
            ] {
                for p in ["{n}", "{h}", "{steps}"] {
                    assert_eq!(a.contains(p), b.contains(p), "{lang:?}: {a}");
                }
            }
        }
    }

    /// The pages put catalogue texts into HTML and attributes as they are, so none may hold
    /// a character HTML would read as markup.
    #[test]
    fn no_text_needs_escaping() {
        for lang in Language::ALL {
            let t = texts(*lang);
            let mut all = vec![
                t.brand,
                t.offers,
                t.my_rewards,
                t.help,
                t.close,
                t.not_available,
                t.earned,
                t.pending,
                t.reversed,
                t.rejected,
                t.completed,
                t.step_one,
                t.steps,
                t.more_offers,
                t.total,
                t.what_to_do,
                t.rewards,
                t.before_you_start,
                t.complete_within,
                t.confirmed_within,
                t.complete_steps,
                t.disclaimer,
                t.disclaimer_pending,
                t.done,
                t.start_offer,
                t.problem,
                t.no_rewards,
                t.offer,
                t.status,
                t.updated,
                t.rewards_note,
                t.no_particular_offer,
                t.case_sent,
                t.reply,
                t.your_requests,
                t.what_happened,
                t.details,
                t.details_hint,
                t.send,
                t.message_length,
            ];
            for (a, b) in [
                t.expired,
                t.revoked,
                t.banned,
                t.rate_limited,
                t.unavailable,
                t.failed,
                t.no_fill,
            ] {
                all.extend([a, b]);
            }
            all.extend(t.reasons);
            all.extend(t.case_states);
            for text in all {
                assert!(!text.contains(['<', '>', '&', '"']), "{lang:?}: {text}");
            }
        }
    }
}
