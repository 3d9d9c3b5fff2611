//! Small helpers for the few aggregate queries written as SQL text (grouping by day or
//! month), so they read the same on SQLite and PostgreSQL.

use sea_orm::{DatabaseBackend, Statement};

/// The first `len` characters of a UTC timestamp column's RFC 3339 form: 7 gives `YYYY-MM`,
/// 10 gives `YYYY-MM-DD`.
pub fn prefix_of(backend: DatabaseBackend, column: &str, len: usize) -> String {
    match backend {
        DatabaseBackend::Postgres => {
            let format = if len <= 7 { "YYYY-MM" } else { "YYYY-MM-DD" };
            format!("to_char({column} AT TIME ZONE 'UTC', '{format}')")
        }
        // SQLite stores UTC timestamps as RFC 3339 text.
        _ => format!("substr({column}, 1, {len})"),
    }
}

/// The statement with `?` placeholders written as the backend wants them.
pub fn statement(backend: DatabaseBackend, sql: &str, values: Vec<sea_orm::Value>) -> Statement {
    let sql = match backend {
        DatabaseBackend::Postgres => {
            let mut n = 0;
            sql.chars()
                .map(|c| {
                    if c == '?' {
                        n += 1;
                        format!("${n}")
                    } else {
                        c.to_string()
                    }
                })
                .collect()
        }
        _ => sql.to_owned(),
    };
    Statement::from_sql_and_values(backend, sql, values)
}
