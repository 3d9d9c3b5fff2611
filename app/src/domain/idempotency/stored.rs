//! Stored answers for the dashboard API's creating requests (issue 35, part 4). A POST that
//! carries an `Idempotency-Key` is recorded per account and key before it runs; its answer
//! is stored when it ends, and a retry within [`KEPT`] gets the same status and body again
//! without running twice. The same key with another method, path or body is refused
//! (409 `idempotency_key_reused`, as on the SDK routes), a retry while the first is still running is told to wait
//! (409 `idempotency_in_progress` with `Retry-After`), and an answer that says nothing
//! happened (any refusal: a 4xx, a 5xx) is not kept, so the retry runs again: a request
//! refused with 403 `account_pending` succeeds when retried after the approval.
//!
//! Answers are stored sealed with the service key (`Keys::seal`, bound to their row): the
//! answer of a creating request may carry a secret shown once, and a retry by the same
//! account is the one reader it may be shown to again. They live 24 hours, so `server
//! reseal` leaves them; a rotated key stays readable as a previous key meanwhile.
//!
//! The first request and its answer are two writes. A request its deadline gave up on still
//! runs to its end and keeps its answer (the server runs it on a task of its own), so only a
//! process that stops between the handler's commit and the stored answer leaves the key in
//! progress. Its lock lapses after [`LOCK`] (longer than any request's deadline) and a retry
//! then runs again; the creating routes this guards make drafts and keys, whose money paths
//! have their own keys.

use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

use super::IdempotencyKey;
use crate::domain::db::is_unique_violation;
use crate::domain::{Ctx, ids::new_id};
use crate::error::AppError;
use entity::idempotent_request as row;

/// How long an answer is given again.
pub const KEPT: Duration = Duration::hours(24);
/// How long a request counts as running (the longest request deadline is 30 s).
pub const LOCK: Duration = Duration::seconds(60);

/// A stored answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredAnswer {
    pub status: u16,
    pub content_type: Option<String>,
    pub body: String,
}

/// What to do with a request that carries a key.
#[derive(Debug)]
pub enum Begun {
    /// Run it, then [`finish`] (or [`forget`]) this record.
    Run(String),
    /// Answer this again.
    Replay(StoredAnswer),
}

/// Records the request (`hash` of its method, path and body) before it runs, or finds the
/// answer of an earlier one with the same key.
pub async fn begin(
    ctx: &Ctx,
    account_id: &str,
    key: &IdempotencyKey,
    hash: &str,
) -> Result<Begun, AppError> {
    let now = ctx.now();
    for _ in 0..3 {
        let id = new_id("idr");
        let inserted = row::ActiveModel {
            id: Set(id.clone()),
            account_id: Set(account_id.to_owned()),
            idempotency_key: Set(key.as_str().to_owned()),
            request_hash: Set(hash.to_owned()),
            status_code: Set(None),
            content_type: Set(None),
            response: Set(None),
            created_at: Set(now),
            locked_until: Set(Some(now + LOCK)),
        }
        .insert(&ctx.db)
        .await;
        let e = match inserted {
            Ok(_) => return Ok(Begun::Run(id)),
            Err(e) if is_unique_violation(&e) => e,
            Err(e) => return Err(e.into()),
        };
        let Some(prior) = find(ctx, account_id, key).await? else {
            // Swept meanwhile: try again.
            tracing::debug!(error = %e, "an idempotency record vanished between insert and read");
            continue;
        };
        if let Some(answer) = decide(ctx, &prior, hash, now)? {
            return Ok(Begun::Replay(answer));
        }
        // Expired or abandoned: take it over, once, by its exact state.
        if take_over(ctx, &prior, hash, now).await? {
            return Ok(Begun::Run(prior.id));
        }
    }
    Err(in_progress())
}

/// The stored answer of `prior`, a refusal, or `None` when it may be run again (expired,
/// or abandoned by a process that stopped).
fn decide(
    ctx: &Ctx,
    prior: &row::Model,
    hash: &str,
    now: DateTime<Utc>,
) -> Result<Option<StoredAnswer>, AppError> {
    if prior.created_at + KEPT <= now {
        return Ok(None);
    }
    if prior.request_hash != hash {
        return Err(AppError::conflict(
            "this Idempotency-Key was used for another request (method, path or body); use a new key",
        )
        .with_code("idempotency_key_reused"));
    }
    match (prior.status_code, &prior.response) {
        (Some(status), Some(sealed)) => Ok(Some(StoredAnswer {
            status: u16::try_from(status).unwrap_or(500),
            content_type: prior.content_type.clone(),
            body: ctx.keys.open(&seal_binding(&prior.id), sealed)?,
        })),
        _ if prior.locked_until.is_some_and(|t| t > now) => Err(in_progress()),
        _ => Ok(None),
    }
}

fn in_progress() -> AppError {
    let mut e =
        AppError::conflict("a request with this Idempotency-Key is still running; retry shortly")
            .with_code("idempotency_in_progress");
    e.retry_after = Some(1);
    e
}

async fn find(
    ctx: &Ctx,
    account_id: &str,
    key: &IdempotencyKey,
) -> Result<Option<row::Model>, AppError> {
    Ok(row::Entity::find()
        .filter(row::Column::AccountId.eq(account_id.to_owned()))
        .filter(row::Column::IdempotencyKey.eq(key.as_str().to_owned()))
        .one(&ctx.db)
        .await?)
}

/// Restarts an expired or abandoned record for this request, if nobody else did first.
async fn take_over(
    ctx: &Ctx,
    prior: &row::Model,
    hash: &str,
    now: DateTime<Utc>,
) -> Result<bool, AppError> {
    let done = row::Entity::update_many()
        .col_expr(row::Column::RequestHash, Expr::value(hash.to_owned()))
        .col_expr(row::Column::StatusCode, Expr::value(Option::<i32>::None))
        .col_expr(
            row::Column::ContentType,
            Expr::value(Option::<String>::None),
        )
        .col_expr(row::Column::Response, Expr::value(Option::<String>::None))
        .col_expr(row::Column::CreatedAt, Expr::value(now))
        .col_expr(row::Column::LockedUntil, Expr::value(Some(now + LOCK)))
        .filter(row::Column::Id.eq(prior.id.clone()))
        .filter(row::Column::CreatedAt.eq(prior.created_at))
        .exec(&ctx.db)
        .await?;
    Ok(done.rows_affected == 1)
}

/// Whether an answer with `status` is given again to a retry: only one that says the
/// request happened (2xx, 3xx). A refusal changed nothing, so the retry runs again and
/// gets what is true then.
fn keeps(status: u16) -> bool {
    status < 400
}

/// Stores the answer of a request begun with [`begin`]; an answer that says nothing
/// happened ([`keeps`]) is forgotten instead, so a retry runs again.
pub async fn finish(ctx: &Ctx, id: &str, answer: StoredAnswer) -> Result<(), AppError> {
    if !keeps(answer.status) {
        return forget(ctx, id).await;
    }
    // Sealed: a creating answer may carry a secret shown once (a key, a callback secret).
    let sealed = ctx.keys.seal(&seal_binding(id), &answer.body)?;
    row::Entity::update_many()
        .col_expr(
            row::Column::StatusCode,
            Expr::value(i32::from(answer.status)),
        )
        .col_expr(row::Column::ContentType, Expr::value(answer.content_type))
        .col_expr(row::Column::Response, Expr::value(sealed))
        .col_expr(
            row::Column::LockedUntil,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
        .filter(row::Column::Id.eq(id.to_owned()))
        .exec(&ctx.db)
        .await?;
    Ok(())
}

/// What a stored answer is sealed to (its row), so it opens nowhere else.
fn seal_binding(id: &str) -> String {
    format!("idempotent_requests:{id}")
}

/// Drops the record of a request whose answer is not kept.
pub async fn forget(ctx: &Ctx, id: &str) -> Result<(), AppError> {
    row::Entity::delete_by_id(id.to_owned())
        .exec(&ctx.db)
        .await?;
    Ok(())
}

/// Deletes answers older than [`KEPT`] (the sweep worker); returns how many.
pub async fn sweep(ctx: &Ctx) -> Result<u64, AppError> {
    let done = row::Entity::delete_many()
        .filter(row::Column::CreatedAt.lt(ctx.now() - KEPT))
        .exec(&ctx.db)
        .await?;
    Ok(done.rows_affected)
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_answers_that_say_something_happened_are_kept() {
        for kept in [200, 201, 202, 204, 303] {
            assert!(super::keeps(kept), "{kept}");
        }
        for refused in [400, 401, 403, 404, 409, 422, 429, 500, 503] {
            assert!(!super::keeps(refused), "{refused}");
        }
    }
}
