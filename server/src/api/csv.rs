//! CSV answers of list and export routes: one shape for every download (the file name,
//! no caching, the next page's cursor in `X-Next-Cursor`), and the `format` parameter they
//! share.

use app::error::AppError;
use axum::http::header;
use axum::response::{IntoResponse, Response};

/// Whether `format` asks for CSV; `default_csv` says what an absent `format` means.
pub fn wants_csv(format: Option<&str>, default_csv: bool) -> Result<bool, AppError> {
    match format {
        None => Ok(default_csv),
        Some("csv") => Ok(true),
        Some("json") => Ok(false),
        Some(_) => Err(AppError::field("format", "must be json or csv")),
    }
}

/// `text` as a CSV download named `filename`, with the next page's cursor when there is one.
pub fn download(text: String, filename: &str, next_cursor: Option<&str>) -> Response {
    let mut res = (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{filename}\""),
            ),
            (header::CACHE_CONTROL, "private, no-store".to_owned()),
        ],
        text,
    )
        .into_response();
    if let Some(next) = next_cursor.and_then(|c| c.parse().ok()) {
        res.headers_mut().insert("x-next-cursor", next);
    }
    res
}

/// A list page that can also be answered as CSV.
pub trait CsvPage: serde::Serialize {
    fn to_csv_text(&self) -> String;
    fn next(&self) -> Option<&str>;
}

/// The page as JSON, or as a CSV download named `filename` when `csv`.
pub fn answer<T: CsvPage>(page: T, csv: bool, filename: &str) -> Response {
    if csv {
        download(page.to_csv_text(), filename, page.next())
    } else {
        crate::extract::AppJson(page).into_response()
    }
}

macro_rules! csv_page {
    ($($t:ty),+) => {$(
        impl CsvPage for $t {
            fn to_csv_text(&self) -> String {
                self.to_csv()
            }
            fn next(&self) -> Option<&str> {
                self.next_cursor.as_deref()
            }
        }
    )+};
}

csv_page!(
    app::model::billing::LedgerExport,
    app::model::campaign::conversions::ConversionList,
    app::model::campaign::reconciliation::ReconciliationLines
);
