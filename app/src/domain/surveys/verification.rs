//! The check a medium-risk respondent answers before a survey opens.
//!
//! It is not a CAPTCHA; it makes the cheap automation of survey entries (a script that reads
//! "What is 3 + 4?" and posts 7) cost real work. The question is one of several kinds with
//! varied wording, numbers are written in words, and the kind, the words and their order all
//! come from the link, so a page needs no state and a reload shows the same question. Wrong
//! answers are rate-limited per respondent (`Policy::SurveyVerify`), so guessing through the
//! few possible answers does not pay either.

use crate::domain::crypto::sha256_hex;

/// A question and what it accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// The question as shown (plain text; the page escapes it).
    pub prompt: String,
    /// A hint for the input (`numeric` for number answers).
    pub numeric: bool,
    answers: Vec<String>,
}

impl Challenge {
    /// Whether `given` answers the question (case, spaces and quotes do not matter; numbers
    /// may be given in digits or in words).
    pub fn accepts(&self, given: &str) -> bool {
        let g = normalise(given);
        !g.is_empty() && self.answers.iter().any(|a| *a == g)
    }
}

const NUMBERS: [&str; 13] = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve",
];
const ANIMALS: [&str; 8] = [
    "horse", "rabbit", "tiger", "sheep", "eagle", "otter", "camel", "zebra",
];
const THINGS: [&str; 12] = [
    "table", "window", "pencil", "bottle", "carpet", "basket", "ladder", "candle", "mirror",
    "bucket", "jacket", "wallet",
];
const ORDINALS: [&str; 4] = ["first", "second", "third", "fourth"];
const SENTENCES: [&str; 4] = [
    "green apples grow on tall trees",
    "the quiet river runs past our house",
    "warm bread smells good every morning",
    "small boats sail across the lake",
];

fn normalise(s: &str) -> String {
    s.trim()
        .trim_matches(|c: char| c == '"' || c == '\'' || c == '.')
        .trim()
        .to_lowercase()
}

/// The question of the link `token`.
pub fn challenge(token: &str) -> Challenge {
    let h = sha256_hex(token);
    let byte = |i: usize| usize::from_str_radix(&h[2 * i..2 * i + 2], 16).unwrap_or(0);
    let number = |n: usize| Challenge {
        prompt: String::new(),
        numeric: true,
        answers: vec![
            n.to_string(),
            NUMBERS.get(n).copied().unwrap_or("").to_owned(),
        ],
    };
    match byte(0) % 4 {
        0 => {
            let (a, b) = (byte(1) % 6 + 1, byte(2) % 6 + 1);
            let wording = [
                format!(
                    "What is {} plus {}? Answer with a number.",
                    NUMBERS[a], NUMBERS[b]
                ),
                format!("Add {} and {}. What do you get?", NUMBERS[a], NUMBERS[b]),
                format!(
                    "If you have {} apples and get {} more, how many apples do you have?",
                    NUMBERS[a], NUMBERS[b]
                ),
            ];
            Challenge {
                prompt: wording[byte(3) % wording.len()].clone(),
                ..number(a + b)
            }
        }
        1 => {
            let word = THINGS[byte(1) % THINGS.len()];
            Challenge {
                prompt: format!("How many letters are in the word \"{word}\"?"),
                ..number(word.len())
            }
        }
        2 => {
            let animal = ANIMALS[byte(1) % ANIMALS.len()];
            let mut list = vec![
                THINGS[byte(2) % THINGS.len()],
                THINGS[(byte(2) + 5) % THINGS.len()],
                animal,
            ];
            list.rotate_left(byte(3) % 3);
            Challenge {
                prompt: format!("Which of these is an animal: {}?", list.join(", ")),
                numeric: false,
                answers: vec![animal.to_owned()],
            }
        }
        _ => {
            let sentence = SENTENCES[byte(1) % SENTENCES.len()];
            let nth = byte(2) % ORDINALS.len();
            let word = sentence.split(' ').nth(nth).unwrap_or_default();
            Challenge {
                prompt: format!(
                    "Type the {} word of this sentence: \"{sentence}\"",
                    ORDINALS[nth]
                ),
                numeric: false,
                answers: vec![word.to_owned()],
            }
        }
    }
}

/// The accepted answer of `token`'s question (tests answer the page as a person would).
pub fn answer_of(token: &str) -> String {
    challenge(token)
        .answers
        .first()
        .cloned()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_appears_and_accepts_only_its_answer() {
        let mut prompts = std::collections::HashSet::new();
        for i in 0..200 {
            let token = format!("link-{i}");
            let c = challenge(&token);
            let first = c.prompt.split(' ').next().unwrap_or_default().to_owned();
            prompts.insert(first);
            let right = answer_of(&token);
            assert!(c.accepts(&right), "{c:?}");
            assert!(
                c.accepts(&format!("  \"{}\" ", right.to_uppercase())),
                "{c:?}"
            );
            assert!(
                !c.accepts("999") && !c.accepts("") && !c.accepts("banana"),
                "{c:?}"
            );
            assert_eq!(challenge(&token), c, "the same link asks the same question");
        }
        // Four kinds and several wordings: a script cannot read one fixed pattern.
        assert!(prompts.len() >= 5, "{prompts:?}");
    }

    #[test]
    fn numbers_are_accepted_in_digits_and_words() {
        let c = Challenge {
            prompt: String::new(),
            numeric: true,
            answers: vec!["7".to_owned(), "seven".to_owned()],
        };
        assert!(c.accepts("7") && c.accepts("Seven") && !c.accepts("6"));
    }
}
