//! Job rows taken under a lease (a payout run, a reconciliation being applied): a worker
//! takes a row by moving it to its working status with itself as owner and a time until
//! which it holds it, renews that time as it goes, and a row whose time has passed may be
//! taken over by another worker (the first one stopped). Taking is one conditional UPDATE,
//! so of two workers racing for one row exactly one gets it, on either database.

use chrono::{DateTime, Duration, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter};

use crate::error::AppError;

/// The columns of a leased job table, and how long a take or a renewal holds a row.
pub struct Lease<E: EntityTrait> {
    pub id: E::Column,
    pub status: E::Column,
    pub owner: E::Column,
    pub until: E::Column,
    pub length: Duration,
}

impl<E: EntityTrait> Lease<E> {
    /// Takes row `id` for `owner` if it is still in status `from` and nobody holds it (no
    /// lease, or one that ended before `now`), moving it to status `to`. Whether this caller
    /// got it.
    pub async fn take<C: ConnectionTrait>(
        &self,
        db: &C,
        id: &str,
        from: &str,
        to: &str,
        owner: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, AppError> {
        let taken = E::update_many()
            .col_expr(self.status, Expr::value(to.to_owned()))
            .col_expr(self.owner, Expr::value(Some(owner.to_owned())))
            .col_expr(self.until, Expr::value(Some(now + self.length)))
            .filter(self.id.eq(id.to_owned()))
            .filter(self.status.eq(from.to_owned()))
            .filter(
                Condition::any()
                    .add(self.until.is_null())
                    .add(self.until.lt(now)),
            )
            .exec(db)
            .await?
            .rows_affected;
        Ok(taken == 1)
    }

    /// Extends `owner`'s hold on row `id` from `now`; false when it no longer holds it (it
    /// was taken over), and the caller must stop.
    pub async fn renew<C: ConnectionTrait>(
        &self,
        db: &C,
        id: &str,
        owner: &str,
        now: DateTime<Utc>,
    ) -> Result<bool, AppError> {
        let renewed = E::update_many()
            .col_expr(self.until, Expr::value(Some(now + self.length)))
            .filter(self.id.eq(id.to_owned()))
            .filter(self.owner.eq(owner.to_owned()))
            .exec(db)
            .await?
            .rows_affected;
        Ok(renewed == 1)
    }

    /// Whether a row with this lease end may be taken at `now`.
    pub fn lapsed(&self, until: Option<DateTime<Utc>>, now: DateTime<Utc>) -> bool {
        until.is_none_or(|t| t < now)
    }
}
