//! Recovery codes of a second factor: ten single-use codes (`xxxxx-xxxxx`), of which only
//! the SHA-256 is kept, used up by a guarded update (two requests with one code: one wins).

use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};

use crate::domain::{Ctx, crypto, db, ids::new_id};
use crate::error::AppError;
use entity::recovery_code;

use super::RECOVERY_CODES;

/// Uses up `code` if it is one of the account's unused recovery codes, and audits it, in one
/// transaction (a failed audit leaves the code usable).
pub(super) async fn use_up(ctx: &Ctx, account_id: &str, code: &str) -> Result<bool, AppError> {
    let txn = db::begin(&ctx.db).await?;
    let used = recovery_code::Entity::update_many()
        .col_expr(recovery_code::Column::UsedAt, Expr::value(Some(ctx.now())))
        .filter(recovery_code::Column::AccountId.eq(account_id.to_owned()))
        .filter(recovery_code::Column::CodeHash.eq(recovery_hash(code)))
        .filter(recovery_code::Column::UsedAt.is_null())
        .exec(&txn)
        .await?;
    if used.rows_affected != 1 {
        return Ok(false);
    }
    crate::domain::audit::record(
        &txn,
        ctx.now(),
        Some(account_id),
        "second_factor.recovery_code_used",
        ("account", account_id),
        serde_json::json!({}),
    )
    .await?;
    txn.commit().await?;
    Ok(true)
}

/// A recovery code's stored form: SHA-256 of its letters and digits, lower case (the dash
/// and spaces a person types are ignored).
fn recovery_hash(code: &str) -> String {
    let plain: String = code
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    crypto::sha256_hex(&plain)
}

/// Replaces the account's recovery codes with ten new ones (`xxxxx-xxxxx`, base32 letters
/// and digits without look-alikes), returned only here.
pub(super) async fn replace<C: ConnectionTrait>(
    db: &C,
    account_id: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Vec<String>, AppError> {
    const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
    recovery_code::Entity::delete_many()
        .filter(recovery_code::Column::AccountId.eq(account_id.to_owned()))
        .exec(db)
        .await?;
    let mut codes = Vec::with_capacity(RECOVERY_CODES);
    for _ in 0..RECOVERY_CODES {
        let bytes = crypto::random_bytes::<10>();
        let chars: String = bytes
            .iter()
            .map(|b| char::from(ALPHABET[usize::from(*b) % ALPHABET.len()]))
            .collect();
        let code = format!("{}-{}", &chars[..5], &chars[5..]);
        recovery_code::ActiveModel {
            id: Set(new_id("rc")),
            account_id: Set(account_id.to_owned()),
            code_hash: Set(recovery_hash(&code)),
            created_at: Set(now),
            used_at: Set(None),
        }
        .insert(db)
        .await?;
        codes.push(code);
    }
    Ok(codes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovery_codes_ignore_dashes_spaces_and_case() {
        assert_eq!(recovery_hash("abcde-fghjk"), recovery_hash(" ABCDE fghjk "));
        assert_ne!(recovery_hash("abcde-fghjk"), recovery_hash("abcde-fghjm"));
    }
}
