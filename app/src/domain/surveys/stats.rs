//! A publisher's survey traffic by day (fetches, entries, paid completes and earnings) over
//! the last `days` days: three grouped queries, whatever the volume.

use std::collections::BTreeMap;

use sea_orm::FromQueryResult;

use crate::domain::sql::{prefix_of, statement};
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::money::Micros;
use crate::model::money::format_micros;
use crate::model::survey::fetch::{SurveyDay, SurveyStats};

#[derive(Debug, FromQueryResult)]
struct DayRow {
    day: String,
    n: i64,
    micros: i64,
}

/// `days` (1-92) days up to today for the publisher's placements.
pub async fn by_day(ctx: &Ctx, actor: &Principal, days: i64) -> Result<SurveyStats, AppError> {
    actor.require_publisher()?;
    let today = ctx.now().date_naive();
    let from = today - chrono::Duration::days(days.clamp(1, 92) - 1);
    let backend = ctx.db.get_database_backend();
    let owner = actor.account_id.clone();
    let from_text = from.to_string();
    let run = |table: &str, alias: &str, extra: &str, micros: &str| {
        let day = prefix_of(backend, &format!("{alias}.created_at"), 10);
        format!(
            "SELECT {day} AS day, CAST(COUNT(*) AS BIGINT) AS n, CAST({micros} AS BIGINT) AS micros \
             FROM {table} {alias} JOIN placements p ON p.id = {alias}.placement_id \
             WHERE p.owner_account_id = ? AND {day} >= ? {extra} GROUP BY {day}"
        )
    };
    let mut out: BTreeMap<String, SurveyDay> = BTreeMap::new();
    let queries = [
        run("survey_fetches", "f", "", "0"),
        run("survey_entries", "e", "AND e.test = ?", "0"),
        run(
            "conversions",
            "c",
            "AND c.goal_id = 'survey_complete' AND c.settlement = 'APPROVED'",
            "COALESCE(SUM(c.publisher_earnings_micros), 0)",
        ),
    ];
    for (i, sql) in queries.iter().enumerate() {
        let mut values: Vec<sea_orm::Value> = vec![owner.clone().into(), from_text.clone().into()];
        if i == 1 {
            values.push(false.into());
        }
        for r in DayRow::find_by_statement(statement(backend, sql, values))
            .all(&ctx.db)
            .await?
        {
            let d = out.entry(r.day.clone()).or_insert_with(|| SurveyDay {
                date: r.day.clone(),
                fetches: 0,
                entries: 0,
                completes: 0,
                earnings_micros: Micros(0),
                earnings: String::new(),
            });
            match i {
                0 => d.fetches = r.n,
                1 => d.entries = r.n,
                _ => {
                    d.completes = r.n;
                    d.earnings_micros = Micros(r.micros);
                }
            }
        }
    }
    let mut days: Vec<SurveyDay> = out
        .into_values()
        .map(|mut d| {
            d.earnings = format_micros(d.earnings_micros);
            d
        })
        .collect();
    days.reverse();
    let sum = |f: fn(&SurveyDay) -> i64| days.iter().map(f).sum::<i64>();
    let earnings_micros = sum(|d| d.earnings_micros.get());
    Ok(SurveyStats {
        from: from_text,
        to: today.to_string(),
        fetches: sum(|d| d.fetches),
        entries: sum(|d| d.entries),
        completes: sum(|d| d.completes),
        earnings_micros: Micros(earnings_micros),
        earnings: format_micros(earnings_micros),
        days,
    })
}
