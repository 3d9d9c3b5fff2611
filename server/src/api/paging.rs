//! The query of every cursor-paged list: `cursor` (the previous page's `nextCursor`) and
//! `limit` (1 to 500, default 100). Lists answer `items` and `nextCursor` (null on the last
//! page); `domain::paging` does the work.

use app::domain::paging::Page;
use app::error::AppError;
use serde::Deserialize;

#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// The previous page's `nextCursor`; omit for the first page.
    pub cursor: Option<String>,
    /// Items per page: 1 to 500 (default 100).
    #[param(minimum = 1, maximum = 500)]
    pub limit: Option<u64>,
}

impl PageQuery {
    /// The checked page for ids with `prefix` (400 `fieldErrors.limit` or `.cursor`).
    pub fn page(&self, prefix: &str) -> Result<Page, AppError> {
        Page::parse(self.limit, self.cursor.as_deref(), prefix)
    }
}
