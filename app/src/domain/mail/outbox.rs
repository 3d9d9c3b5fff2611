//! The outbox's rows: written with the event, claimed by the worker with a lease, settled
//! as sent, retried or failed.

use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect, Set,
};

use crate::domain::Ctx;
use crate::domain::ids::new_id;
use crate::error::AppError;
use crate::model::mail::{MailStatus, MailTopic};
use entity::{account, mail_outbox};

/// Attempts before a letter is FAILED (with the backoff below, about eight hours of a
/// mail server that refuses or cannot be reached).
pub const MAX_ATTEMPTS: i32 = 12;
/// The wait after the first refused attempt; it doubles per attempt up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::minutes(1);
pub const MAX_BACKOFF: Duration = Duration::hours(1);
/// Letters are kept this long after they were written, whatever became of them.
pub const RETENTION: Duration = Duration::days(30);
/// The longest stored reason of a refused attempt.
const MAX_ERROR_CHARS: usize = 500;

/// What a rule wants someone to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Letter {
    pub topic: MailTopic,
    pub subject: String,
    pub body: String,
}

/// What a letter's sealed text is bound to.
pub fn seal_binding(mail_id: &str) -> String {
    format!("mail_outbox:{mail_id}")
}

/// The text of a letter (opened with the master key).
pub fn text_of(ctx: &Ctx, letter: &mail_outbox::Model) -> Result<String, AppError> {
    ctx.keys
        .open(&seal_binding(&letter.id), &letter.body_sealed)
}

/// Writes `letter` for `to` in the caller's transaction (`db`); returns the mail id.
pub async fn enqueue<C: ConnectionTrait>(
    ctx: &Ctx,
    db: &C,
    now: DateTime<Utc>,
    account_id: Option<&str>,
    to: &str,
    letter: Letter,
) -> Result<String, AppError> {
    let id = new_id("mail");
    let body_sealed = ctx.keys.seal(&seal_binding(&id), &letter.body)?;
    mail_outbox::ActiveModel {
        id: Set(id.clone()),
        account_id: Set(account_id.map(str::to_owned)),
        to_address: Set(to.to_owned()),
        topic: Set(letter.topic),
        subject: Set(letter.subject),
        body_sealed: Set(body_sealed),
        status: Set(MailStatus::Pending),
        attempts: Set(0),
        next_attempt_at: Set(now),
        lease_owner: Set(None),
        lease_until: Set(None),
        last_error: Set(None),
        created_at: Set(now),
        sent_at: Set(None),
    }
    .insert(db)
    .await?;
    Ok(id)
}

/// Writes `letter` for an account, to its sign-in address, in the caller's transaction.
pub async fn to_account<C: ConnectionTrait>(
    ctx: &Ctx,
    db: &C,
    now: DateTime<Utc>,
    account_id: &str,
    letter: Letter,
) -> Result<String, AppError> {
    let email = account::Entity::find_by_id(account_id.to_owned())
        .select_only()
        .column(account::Column::Email)
        .into_tuple::<String>()
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("account"))?;
    enqueue(ctx, db, now, Some(account_id), &email, letter).await
}

/// Claims up to `limit` due letters for `owner` until `now + lease`, oldest due first. A
/// letter is due when it is PENDING, its time has come and no live lease holds it; the
/// claim is one guarded update, so two workers never both take a letter.
pub async fn claim(
    ctx: &Ctx,
    owner: &str,
    limit: u64,
    lease: Duration,
) -> Result<Vec<mail_outbox::Model>, AppError> {
    let now = ctx.now();
    let free = || {
        Condition::all()
            .add(mail_outbox::Column::Status.eq(MailStatus::Pending))
            .add(mail_outbox::Column::NextAttemptAt.lte(now))
            .add(
                Condition::any()
                    .add(mail_outbox::Column::LeaseUntil.is_null())
                    .add(mail_outbox::Column::LeaseUntil.lt(now)),
            )
    };
    let ids: Vec<String> = mail_outbox::Entity::find()
        .filter(free())
        .order_by_asc(mail_outbox::Column::NextAttemptAt)
        .limit(limit)
        .select_only()
        .column(mail_outbox::Column::Id)
        .into_tuple()
        .all(&ctx.db)
        .await?;
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    // A token of this claim alone, so the read below returns only what this update took.
    let token = format!("{owner}:{}", new_id("claim"));
    mail_outbox::Entity::update_many()
        .col_expr(
            mail_outbox::Column::LeaseOwner,
            Expr::value(Some(token.clone())),
        )
        .col_expr(
            mail_outbox::Column::LeaseUntil,
            Expr::value(Some(now + lease)),
        )
        .filter(mail_outbox::Column::Id.is_in(ids))
        .filter(free())
        .exec(&ctx.db)
        .await?;
    Ok(mail_outbox::Entity::find()
        .filter(mail_outbox::Column::LeaseOwner.eq(token))
        .order_by_asc(mail_outbox::Column::NextAttemptAt)
        .all(&ctx.db)
        .await?)
}

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The mail server took the letter.
    Sent,
    /// Refused or unreachable for now: tried again after the backoff.
    Retry(String),
    /// Refused for good (a 5xx answer, an address that cannot be written): FAILED at once.
    Refused(String),
}

/// Records the outcome of an attempt on a letter this claim holds (a letter whose lease
/// passed to another worker is left to it).
pub async fn settle(
    ctx: &Ctx,
    letter: &mail_outbox::Model,
    outcome: Outcome,
) -> Result<MailStatus, AppError> {
    let now = ctx.now();
    let attempts = letter.attempts.saturating_add(1);
    let mut update = mail_outbox::Entity::update_many()
        .col_expr(mail_outbox::Column::Attempts, Expr::value(attempts))
        .col_expr(mail_outbox::Column::LeaseOwner, Expr::value(None::<String>))
        .col_expr(
            mail_outbox::Column::LeaseUntil,
            Expr::value(None::<DateTime<Utc>>),
        );
    let status = match outcome {
        Outcome::Sent => {
            update = update
                .col_expr(mail_outbox::Column::SentAt, Expr::value(Some(now)))
                .col_expr(mail_outbox::Column::LastError, Expr::value(None::<String>));
            MailStatus::Sent
        }
        Outcome::Retry(why) if attempts < MAX_ATTEMPTS => {
            update = update
                .col_expr(
                    mail_outbox::Column::LastError,
                    Expr::value(Some(clip(&why))),
                )
                .col_expr(
                    mail_outbox::Column::NextAttemptAt,
                    Expr::value(now + backoff(attempts)),
                );
            MailStatus::Pending
        }
        Outcome::Retry(why) | Outcome::Refused(why) => {
            update = update.col_expr(
                mail_outbox::Column::LastError,
                Expr::value(Some(clip(&why))),
            );
            MailStatus::Failed
        }
    };
    update
        .col_expr(mail_outbox::Column::Status, Expr::value(status))
        .filter(mail_outbox::Column::Id.eq(letter.id.clone()))
        .filter(mail_outbox::Column::LeaseOwner.eq(letter.lease_owner.clone()))
        .exec(&ctx.db)
        .await?;
    Ok(status)
}

/// The wait before attempt `attempts + 1`: one minute, doubling, at most an hour.
pub fn backoff(attempts: i32) -> Duration {
    let doublings = u32::try_from(attempts.saturating_sub(1).clamp(0, 16)).unwrap_or(0);
    (FIRST_BACKOFF * 2i32.pow(doublings)).min(MAX_BACKOFF)
}

fn clip(why: &str) -> String {
    why.chars().take(MAX_ERROR_CHARS).collect()
}

/// Deletes letters older than [`RETENTION`]; returns how many.
pub async fn sweep(ctx: &Ctx) -> Result<u64, AppError> {
    let cutoff = ctx.now() - RETENTION;
    Ok(mail_outbox::Entity::delete_many()
        .filter(mail_outbox::Column::CreatedAt.lt(cutoff))
        .exec(&ctx.db)
        .await?
        .rows_affected)
}
