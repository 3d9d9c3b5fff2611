//! Cursor paging for list routes: newest first by id (ids are UUIDv7, so id order is
//! creation order), at most `MAX_LIMIT` rows a page, and `nextCursor` naming the last row
//! returned when more exist. A cursor is an id, so a page never skips or repeats a row that
//! was created while a client pages.

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect, Select};

use crate::error::{AppError, FieldErrors};

/// Rows per page when the caller does not say.
pub const DEFAULT_LIMIT: u64 = 100;
/// Most rows a page may hold.
pub const MAX_LIMIT: u64 = 500;

/// One page request, checked.
#[derive(Debug, Clone)]
pub struct Page {
    limit: u64,
    after: Option<String>,
}

impl Default for Page {
    fn default() -> Self {
        Self {
            limit: DEFAULT_LIMIT,
            after: None,
        }
    }
}

impl Page {
    /// Checks `limit` (1 to 500) and `cursor` (an id with `prefix`, as `nextCursor` gave it).
    pub fn parse(limit: Option<u64>, cursor: Option<&str>, prefix: &str) -> Result<Self, AppError> {
        let mut errs = FieldErrors::new();
        let limit = limit.unwrap_or(DEFAULT_LIMIT);
        if !(1..=MAX_LIMIT).contains(&limit) {
            errs.add("limit", format!("must be 1 to {MAX_LIMIT}"));
        }
        let after = cursor.map(str::trim).filter(|c| !c.is_empty());
        if after.is_some_and(|c| {
            c.len() > 64
                || !c.starts_with(&format!("{prefix}_"))
                || !c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
        }) {
            errs.add("cursor", "must be the nextCursor of the previous page");
        }
        errs.finish()?;
        Ok(Self {
            limit,
            after: after.map(str::to_owned),
        })
    }

    /// Orders `q` newest first by `id`, starts after the cursor and reads one row more than
    /// the page holds (to know whether another page follows).
    pub fn select<E: EntityTrait>(&self, q: Select<E>, id: E::Column) -> Select<E> {
        let q = match &self.after {
            Some(a) => q.filter(id.lt(a.clone())),
            None => q,
        };
        q.order_by_desc(id).limit(self.limit + 1)
    }

    /// Like `select`, oldest first (review queues work from the oldest): starts after the
    /// cursor in creation order.
    pub fn select_oldest_first<E: EntityTrait>(&self, q: Select<E>, id: E::Column) -> Select<E> {
        let q = match &self.after {
            Some(a) => q.filter(id.gt(a.clone())),
            None => q,
        };
        q.order_by_asc(id).limit(self.limit + 1)
    }

    /// Rows per page.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The cursor the page starts after, as the caller gave it (`<prefix>_…`).
    pub fn after(&self) -> Option<&str> {
        self.after.as_deref()
    }

    /// Cuts the extra row off and gives the next cursor (the last id kept) when it existed.
    pub fn finish<T>(&self, mut rows: Vec<T>, id: impl Fn(&T) -> &str) -> (Vec<T>, Option<String>) {
        let more = rows.len() as u64 > self.limit;
        rows.truncate(self.limit as usize);
        let next = more
            .then(|| rows.last().map(|r| id(r).to_owned()))
            .flatten();
        (rows, next)
    }
}
