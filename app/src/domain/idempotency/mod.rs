//! One idempotency rule for every write a client may retry: the format of the key, and
//! the insert that answers a retry with the first result. Only a unique-key violation is
//! a replay; any other failed insert (a foreign key, a lost connection) keeps its cause,
//! which the conversion into `AppError` logs.

pub mod stored;

use std::future::Future;

use sea_orm::{
    ActiveModelBehavior, ActiveModelTrait, ConnectionTrait, EntityTrait, IntoActiveModel,
};

use super::db::is_unique_violation;
use crate::error::AppError;

/// The rule in words, as the API reference and every refusal state it.
pub const RULE: &str = "8 to 120 letters, digits, colons, underscores or dashes";

/// A validated `Idempotency-Key` (the specification's rule for payment orders, used for
/// every key so a client learns one format): 8 to 120 of `[A-Za-z0-9:_-]`, trimmed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// Checks a key; `None` (a missing header) is refused like a malformed one.
    pub fn parse(raw: Option<&str>) -> Result<Self, String> {
        let k = raw.map(str::trim).unwrap_or_default();
        let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, ':' | '_' | '-');
        if (8..=120).contains(&k.len()) && k.chars().all(allowed) {
            Ok(Self(k.to_owned()))
        } else {
            Err(format!("must be {RULE}"))
        }
    }

    /// Checks the `Idempotency-Key` header: a refusal names the header as the field.
    pub fn from_header(raw: Option<&str>) -> Result<Self, AppError> {
        Self::parse(raw).map_err(|_| {
            AppError::field(
                "Idempotency-Key",
                format!("the Idempotency-Key header is required: {RULE}"),
            )
        })
    }

    /// A key the service derives from its own ids (the hosted wall's taps, the benchmark's
    /// seeding), never from a caller's input, so it is not checked.
    pub fn derived(key: String) -> Self {
        Self(key)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// What an idempotent insert did.
#[derive(Debug)]
pub enum Written<M> {
    /// The row is new.
    New(M),
    /// A request with the same key got there first: its row.
    Replay(M),
}

/// Inserts `row`; when the insert violates a unique index, `prior` reads the row that won
/// (a retry with the same key, possibly concurrent) and the answer is a replay. Any other
/// failure is returned with its cause (and logged by `From<DbErr>`), never looked up.
pub async fn insert_or_replay<A, C, F, Fut>(
    db: &C,
    row: A,
    prior: F,
) -> Result<Written<<A::Entity as EntityTrait>::Model>, AppError>
where
    A: ActiveModelTrait + ActiveModelBehavior + Send,
    <A::Entity as EntityTrait>::Model: IntoActiveModel<A>,
    C: ConnectionTrait,
    F: FnOnce() -> Fut,
    Fut: Future<Output = Result<Option<<A::Entity as EntityTrait>::Model>, AppError>>,
{
    match row.insert(db).await {
        Ok(m) => Ok(Written::New(m)),
        Err(e) if is_unique_violation(&e) => match prior().await? {
            Some(m) => Ok(Written::Replay(m)),
            // The index that refused is not the key's (or the winner vanished): keep the cause.
            None => Err(e.into()),
        },
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_rule_for_every_key() {
        assert!(IdempotencyKey::parse(None).is_err());
        assert!(IdempotencyKey::parse(Some("short")).is_err());
        assert!(IdempotencyKey::parse(Some("has space in it")).is_err());
        assert!(IdempotencyKey::parse(Some("dots.are.not.allowed")).is_err());
        assert!(IdempotencyKey::parse(Some(&"a".repeat(121))).is_err());
        assert!(IdempotencyKey::parse(Some(&"a".repeat(120))).is_ok());
        let k = IdempotencyKey::parse(Some("  fixture:0001_a-b ")).expect("valid");
        assert_eq!(k.as_str(), "fixture:0001_a-b");
        let refusal = IdempotencyKey::from_header(Some("short")).expect_err("refused");
        assert_eq!(refusal.status, 400);
    }
}
