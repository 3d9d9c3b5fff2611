//! What an administrator reviews: the fields a pending revision changes against the revision
//! that is live (destination, payouts, targeting …), so a swapped `destinationUrl` is seen,
//! not hidden among unchanged settings. A campaign that never went live has no diff: all of
//! it is new.

use sea_orm::ConnectionTrait;
use serde_json::Value;

use super::{live_config, owned_campaign};
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::campaign::RevisionChange;
use entity::offer_campaign;

/// The changes of the campaign's newest revision against its live one (empty when it has
/// never been live or nothing differs).
pub async fn pending_changes<C: ConnectionTrait>(
    db: &C,
    m: &offer_campaign::Model,
) -> Result<Vec<RevisionChange>, AppError> {
    if m.live_revision.is_none_or(|l| l >= m.revision) {
        return Ok(Vec::new());
    }
    let live = serde_json::to_value(live_config(db, m).await?).unwrap_or_default();
    let pending: Value = serde_json::from_str(&m.config).unwrap_or_default();
    Ok(diff(&live, &pending))
}

/// `GET /admin/v1/offer-campaigns/{id}/changes` (administrators only).
pub async fn changes(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
) -> Result<Vec<RevisionChange>, AppError> {
    actor.require_admin()?;
    let m = owned_campaign(&ctx.db, actor, id).await?;
    pending_changes(&ctx.db, &m).await
}

/// Field-by-field differences of two JSON documents, with dotted paths (`goals[0].payout`).
pub fn diff(live: &Value, pending: &Value) -> Vec<RevisionChange> {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    flatten("", live, &mut a);
    flatten("", pending, &mut b);
    let live: std::collections::BTreeMap<_, _> = a.into_iter().collect();
    let pending: std::collections::BTreeMap<_, _> = b.into_iter().collect();
    let fields: std::collections::BTreeSet<&String> = live.keys().chain(pending.keys()).collect();
    fields
        .into_iter()
        .filter(|f| live.get(*f) != pending.get(*f))
        .map(|f| RevisionChange {
            field: f.clone(),
            live: live.get(f).cloned(),
            pending: pending.get(f).cloned(),
        })
        .collect()
}

fn flatten(path: &str, v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(o) => {
            for (k, v) in o {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                flatten(&p, v, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                flatten(&format!("{path}[{i}]"), v, out);
            }
        }
        Value::Null => {}
        Value::String(s) => out.push((path.to_owned(), s.clone())),
        other => out.push((path.to_owned(), other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_changed_added_and_removed_fields() {
        let live = serde_json::json!({"destinationUrl": "https://a.example/x", "goals": [{"payout": 1}], "name": "N"});
        let pending = serde_json::json!({"destinationUrl": "https://evil.example/x", "goals": [{"payout": 1}, {"payout": 2}], "name": "N"});
        let d = diff(&live, &pending);
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(d[0].field, "destinationUrl");
        assert_eq!(d[0].live.as_deref(), Some("https://a.example/x"));
        assert_eq!(d[0].pending.as_deref(), Some("https://evil.example/x"));
        assert_eq!(d[1].field, "goals[1].payout");
        assert_eq!(d[1].live, None);
    }
}
