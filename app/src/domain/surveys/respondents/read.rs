//! What the survey fetch reads from the database about a respondent it has not met in the
//! last 10 s, in one statement (one round trip, the same SQL text every time so both
//! databases keep it prepared): the stored row, answers, entered surveys and fetch times of
//! the last hour, the respondents seen at the address in the last hour and those sharing
//! the `gps_id`. One statement rather than six because each round trip, not the reading,
//! was the cost (BENCHMARKS.md, "Survey fetch at delivery speed").

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, Value};

use super::{Known, OTHERS_KEPT, RECENT_KEPT};
use crate::domain::sql;
use crate::error::AppError;

/// Everything one read returns.
#[derive(Debug, Default)]
pub struct Read {
    /// The stored respondent, when there is one (fetch times oldest first).
    pub respondent: Option<Known>,
    /// Respondents seen at the address since the window's start, with their last fetch.
    pub at_address: Vec<(String, DateTime<Utc>)>,
    /// Respondents with the `gps_id`.
    pub on_device: HashSet<String>,
}

/// `kind, a, b, c, e, d (date), t (timestamp)` rows: `r` the respondent, `a` an answer, `e` an
/// entered campaign, `f` a fetch time, `i` a respondent at the address, `g` one on the device.
fn sql() -> String {
    let respondent =
        "SELECT id FROM survey_respondents WHERE placement_id = ? AND external_user_id = ?";
    format!(
        "SELECT 'r' AS kind, r.id AS a, r.gender AS b, r.zip_code AS c, r.gps_id AS e, \
           r.date_of_birth AS d, CAST(NULL AS TIMESTAMP WITH TIME ZONE) AS t \
         FROM survey_respondents r WHERE r.placement_id = ? AND r.external_user_id = ? \
         UNION ALL SELECT 'a', x.question_id, x.answer_ids, NULL, NULL, NULL, NULL \
         FROM survey_respondent_answers x WHERE x.respondent_id IN ({respondent}) \
         UNION ALL SELECT 'e', n.campaign_id, NULL, NULL, NULL, NULL, NULL \
         FROM survey_entries n WHERE n.respondent_id IN ({respondent}) \
         UNION ALL SELECT 'f', NULL, NULL, NULL, NULL, NULL, f.created_at FROM \
           (SELECT created_at FROM survey_fetches WHERE respondent_id IN ({respondent}) \
            AND created_at >= ? ORDER BY created_at DESC LIMIT {RECENT_KEPT}) f \
         UNION ALL SELECT 'i', i.respondent_id, NULL, NULL, NULL, NULL, i.last FROM \
           (SELECT respondent_id, MAX(created_at) AS last FROM survey_fetches \
            WHERE ip = ? AND created_at >= ? GROUP BY respondent_id LIMIT {OTHERS_KEPT}) i \
         UNION ALL SELECT 'g', g.id, NULL, NULL, NULL, NULL, NULL FROM \
           (SELECT id FROM survey_respondents WHERE gps_id = ? LIMIT {OTHERS_KEPT}) g"
    )
}

/// Reads what the fetch needs about `user` of `placement_id` at `ip` with `gps_id`, looking
/// back to `since`.
pub async fn read<C: ConnectionTrait>(
    db: &C,
    placement_id: &str,
    user: &str,
    ip: &str,
    gps_id: Option<&str>,
    since: DateTime<Utc>,
) -> Result<Read, AppError> {
    let who = || [Value::from(placement_id), Value::from(user)];
    let mut values: Vec<Value> = Vec::with_capacity(12);
    for _ in 0..4 {
        values.extend(who());
    }
    values.push(Value::from(since));
    values.extend([
        Value::from(ip),
        Value::from(since),
        Value::from(gps_id.map(str::to_owned)),
    ]);
    let rows = db
        .query_all_raw(sql::statement(db.get_database_backend(), &sql(), values))
        .await?;
    let mut out = Read::default();
    let mut r = Known::default();
    let mut found = false;
    for row in rows {
        let kind: String = row.try_get("", "kind")?;
        let a = || row.try_get::<Option<String>>("", "a");
        let t = || row.try_get::<Option<DateTime<Utc>>>("", "t");
        match kind.as_str() {
            "r" => {
                found = true;
                r.id = a()?.unwrap_or_default();
                r.gender = row.try_get("", "b")?;
                r.zip = row.try_get("", "c")?;
                r.gps_id = row.try_get("", "e")?;
                r.date_of_birth = row.try_get("", "d")?;
            }
            "a" => {
                let ids: Option<String> = row.try_get("", "b")?;
                let ids = serde_json::from_str(ids.as_deref().unwrap_or("[]")).unwrap_or_default();
                r.answers.insert(a()?.unwrap_or_default(), ids);
            }
            "e" => {
                r.entered.insert(a()?.unwrap_or_default());
            }
            // Newest first from the database; kept oldest first.
            "f" => r.recent.extend(t()?),
            "i" => {
                if let (Some(id), Some(at)) = (a()?, t()?) {
                    out.at_address.push((id, at));
                }
            }
            _ => {
                out.on_device.extend(a()?);
            }
        }
    }
    if found {
        r.recent.make_contiguous().reverse();
        out.respondent = Some(r);
    }
    Ok(out)
}
