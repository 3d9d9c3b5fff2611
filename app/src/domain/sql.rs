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

/// `column` contains `text`, ignoring case in every script. PostgreSQL's `lower()` folds
/// every letter; SQLite's `lower()` and `LIKE` fold ASCII only, so there the search is a
/// `GLOB` whose letters are classes of both cases (`Ölmühle` → `*[öÖ][lL]…*`), with the
/// pattern characters `*`, `?` and `[` as literal classes.
pub fn contains_ignoring_case(
    backend: DatabaseBackend,
    column: impl sea_orm::sea_query::IntoColumnRef,
    text: &str,
) -> sea_orm::sea_query::SimpleExpr {
    use sea_orm::sea_query::{BinOper, Expr, ExprTrait, Func, LikeExpr};
    match backend {
        DatabaseBackend::Postgres | DatabaseBackend::MySql => {
            let escaped = text
                .to_lowercase()
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_");
            Expr::expr(Func::lower(Expr::col(column)))
                .like(LikeExpr::new(format!("%{escaped}%")).escape('\\'))
        }
        _ => Expr::col(column).binary(
            BinOper::Custom("GLOB"),
            Expr::val(format!("*{}*", glob_any_case(text))),
        ),
    }
}

/// `text` as a GLOB pattern matching it in any case.
fn glob_any_case(text: &str) -> String {
    let single = |mut it: std::iter::Peekable<std::vec::IntoIter<char>>| {
        let c = it.next();
        if it.peek().is_some() { None } else { c }
    };
    let mut out = String::new();
    for c in text.chars() {
        let lower = single(c.to_lowercase().collect::<Vec<_>>().into_iter().peekable());
        let upper = single(c.to_uppercase().collect::<Vec<_>>().into_iter().peekable());
        let mut class: Vec<char> = vec![c];
        class.extend(lower.filter(|l| *l != c));
        class.extend(upper.filter(|u| *u != c && Some(*u) != lower));
        match class.as_slice() {
            ['*' | '?' | '['] => out.extend(['[', c, ']']),
            [one] => out.push(*one),
            // `]` has no case, so a class never holds it.
            many => {
                out.push('[');
                out.extend(many.iter());
                out.push(']');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::glob_any_case;

    #[test]
    fn every_letter_matches_both_cases_and_wildcards_are_literal() {
        assert_eq!(glob_any_case("Öl"), "[Öö][lL]");
        assert_eq!(glob_any_case("a*b?"), "[aA][*][bB][?]");
        assert_eq!(glob_any_case("[x]"), "[[][xX]]");
        assert_eq!(glob_any_case("42 ü"), "42 [üÜ]");
    }
}
