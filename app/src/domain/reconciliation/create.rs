//! Creating a reconciliation: the lines checked, resolved against the advertiser's
//! conversions (one query per 500 distinct transaction ids) and previewed; stored with the
//! preview in one transaction. Nothing about money changes here.

use std::collections::{HashMap, HashSet};

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, Set};

use super::{ID_PREFIX, SUBJECT, decide, view};
use crate::domain::billing::acting_advertiser;
use crate::domain::idempotency::IdempotencyKey;
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::campaign::reconciliation::{
    LineState, MAX_LINES, ReconcileAction, Reconciliation, ReconciliationInput,
    ReconciliationLineInput, ReconciliationStatus,
};
use entity::{conversion, reconciliation_batch as batch, reconciliation_line as line};

/// Transaction ids resolved per query, and lines written per statement.
const PER_STATEMENT: usize = 500;

/// A checked line: its transaction id and the campaign it names.
#[derive(Debug)]
struct Line {
    transaction_id: String,
    campaign_id: Option<String>,
}

/// `POST /performance-marketing/v2/conversions/reconciliations`: answers the preview (and
/// whether the reconciliation is new). With `apply: true` it is queued at once.
pub async fn create(
    ctx: &Ctx,
    actor: &Principal,
    key: IdempotencyKey,
    input: ReconciliationInput,
) -> Result<(Reconciliation, bool), AppError> {
    let advertiser = acting_advertiser(ctx, actor, None).await?;
    let (action, reason, lines) = check(input.action, input.reason, input.lines)?;
    if let Some(prior) = prior(ctx, &advertiser, &key).await? {
        return replay(ctx, prior, action, &lines).await;
    }
    let now = ctx.now();
    let conversions = resolve(ctx, &advertiser, &lines).await?;
    let id = new_id(ID_PREFIX);
    let window = ctx.config.reconciliation_window;
    let mut seen = HashSet::new();
    let rows: Vec<line::ActiveModel> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let fresh = seen.insert((l.transaction_id.clone(), l.campaign_id.clone()));
            let found: Vec<&conversion::Model> = conversions
                .get(&l.transaction_id)
                .map(|cs| {
                    cs.iter()
                        .filter(|c| l.campaign_id.as_ref().is_none_or(|k| *k == c.campaign_id))
                        .collect()
                })
                .unwrap_or_default();
            let (state, c) = match found.as_slice() {
                _ if !fresh => (LineState::DuplicateLine, None),
                [] => (LineState::Unknown, None),
                [c] => (decide(action, c, now, window), Some(*c)),
                _ => (LineState::Ambiguous, None),
            };
            line::ActiveModel {
                id: Set(new_id("rcl")),
                batch_id: Set(id.clone()),
                line_no: Set(i32::try_from(i + 1).unwrap_or(i32::MAX)),
                transaction_id: Set(l.transaction_id.clone()),
                campaign_id: Set(c.map(|c| c.campaign_id.clone()).or(l.campaign_id.clone())),
                conversion_id: Set(c.map(|c| c.id.clone())),
                preview: Set(state),
                result: Set(None),
                payout_micros: Set(c.map(|c| c.payout_micros).unwrap_or(0)),
                applied_at: Set(None),
            }
        })
        .collect();
    let txn = db::begin(&ctx.db).await?;
    let row = batch::ActiveModel {
        id: Set(id.clone()),
        advertiser_id: Set(advertiser.clone()),
        idempotency_key: Set(key.as_str().to_owned()),
        action: Set(action.as_str().to_owned()),
        reason: Set(reason.clone()),
        status: Set(ReconciliationStatus::Previewed),
        line_count: Set(i32::try_from(lines.len()).unwrap_or(i32::MAX)),
        created_by: Set(actor.person_id.clone()),
        created_at: Set(now),
        queued_at: Set(None),
        finished_at: Set(None),
        lease_owner: Set(None),
        lease_until: Set(None),
    };
    if let Err(e) = batch::Entity::insert(row)
        .exec_without_returning(&txn)
        .await
    {
        txn.rollback().await?;
        if !db::is_unique_violation(&e) {
            return Err(e.into());
        }
        // The same key won a race: that reconciliation is the answer.
        let prior = prior(ctx, &advertiser, &key)
            .await?
            .ok_or_else(AppError::internal)?;
        return replay(ctx, prior, action, &lines).await;
    }
    let mut rows = rows;
    while !rows.is_empty() {
        let rest = rows.split_off(rows.len().min(PER_STATEMENT));
        line::Entity::insert_many(rows)
            .exec_without_returning(&txn)
            .await?;
        rows = rest;
    }
    let detail = serde_json::json!({
        "reconciliationId": id, "action": action.as_str(), "lines": lines.len(), "reason": reason,
    });
    actor
        .audit(
            &txn,
            now,
            "conversion_reconciliation.created",
            (SUBJECT, &id),
            detail,
        )
        .await?;
    if input.apply == Some(true) {
        super::apply::queue_in(&txn, now, &id).await?;
    }
    txn.commit().await?;
    Ok((view::one(ctx, &id).await?, true))
}

/// The same key's reconciliation, unless the request differs (409): another action, or
/// other lines (the transaction ids in their order, and each campaign a line named).
async fn replay(
    ctx: &Ctx,
    prior: batch::Model,
    action: ReconcileAction,
    lines: &[Line],
) -> Result<(Reconciliation, bool), AppError> {
    use sea_orm::{QueryOrder, QuerySelect};
    let reused = || {
        AppError::conflict("this idempotency key was used for another reconciliation")
            .with_code("idempotency_key_reused")
    };
    if ReconcileAction::parse(&prior.action) != Some(action)
        || usize::try_from(prior.line_count).ok() != Some(lines.len())
    {
        return Err(reused());
    }
    let stored: Vec<(String, Option<String>)> = line::Entity::find()
        .select_only()
        .column(line::Column::TransactionId)
        .column(line::Column::CampaignId)
        .filter(line::Column::BatchId.eq(prior.id.clone()))
        .order_by_asc(line::Column::LineNo)
        .into_tuple()
        .all(&ctx.db)
        .await?;
    let same = stored.len() == lines.len()
        && stored.iter().zip(lines).all(|((tx, campaign), l)| {
            *tx == l.transaction_id
                && l.campaign_id
                    .as_ref()
                    .is_none_or(|k| Some(k) == campaign.as_ref())
        });
    if !same {
        return Err(reused());
    }
    Ok((view::one(ctx, &prior.id).await?, false))
}

async fn prior(
    ctx: &Ctx,
    advertiser: &str,
    key: &IdempotencyKey,
) -> Result<Option<batch::Model>, AppError> {
    Ok(batch::Entity::find()
        .filter(batch::Column::AdvertiserId.eq(advertiser.to_owned()))
        .filter(batch::Column::IdempotencyKey.eq(key.as_str().to_owned()))
        .one(&ctx.db)
        .await?)
}

/// The action, the reason and the lines, or every field error at once.
fn check(
    action: Option<String>,
    reason: Option<String>,
    lines: Option<Vec<ReconciliationLineInput>>,
) -> Result<(ReconcileAction, String, Vec<Line>), AppError> {
    let mut errs = FieldErrors::new();
    let action = action
        .as_deref()
        .map(|a| a.trim().to_ascii_lowercase())
        .and_then(|a| ReconcileAction::parse(&a));
    if action.is_none() {
        errs.add("action", "must be approve or reverse");
    }
    let reason = reason.map(|r| r.trim().to_owned()).unwrap_or_default();
    if reason.is_empty() || reason.chars().count() > 500 || reason.contains('\0') {
        errs.add("reason", "must be 1 to 500 characters");
    }
    let mut lines = lines.unwrap_or_default();
    if lines.is_empty() || lines.len() > MAX_LINES {
        errs.add("lines", format!("must hold 1 to {MAX_LINES} lines"));
        // Too many lines: their own problems are beside the point.
        lines.clear();
    }
    let mut checked = Vec::with_capacity(lines.len());
    for (i, l) in lines.into_iter().enumerate() {
        let tx = l
            .transaction_id
            .as_deref()
            .map(str::trim)
            .unwrap_or_default();
        if tx.is_empty() || tx.len() > 200 || tx.chars().any(char::is_control) {
            errs.add(
                &format!("lines[{i}].transactionId"),
                "must be 1 to 200 characters, none of them control characters",
            );
        }
        let campaign = l
            .campaign_id
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty());
        if campaign.is_some_and(|c| c.len() > 64 || c.chars().any(char::is_control)) {
            errs.add(
                &format!("lines[{i}].campaignId"),
                "must be at most 64 characters",
            );
        }
        checked.push(Line {
            transaction_id: tx.to_owned(),
            campaign_id: campaign.map(str::to_owned),
        });
    }
    errs.finish()?;
    Ok((action.ok_or_else(AppError::internal)?, reason, checked))
}

/// The advertiser's conversions with the listed transaction ids, by transaction id.
async fn resolve(
    ctx: &Ctx,
    advertiser: &str,
    lines: &[Line],
) -> Result<HashMap<String, Vec<conversion::Model>>, AppError> {
    let ids: Vec<String> = lines
        .iter()
        .map(|l| l.transaction_id.clone())
        .collect::<HashSet<_>>()
        .into_iter()
        .collect();
    let mut found: HashMap<String, Vec<conversion::Model>> = HashMap::new();
    for chunk in ids.chunks(PER_STATEMENT) {
        let rows = conversion::Entity::find()
            .filter(conversion::Column::AdvertiserId.eq(advertiser.to_owned()))
            .filter(conversion::Column::TransactionId.is_in(chunk.to_vec()))
            .all(&ctx.db)
            .await?;
        for c in rows {
            found.entry(c.transaction_id.clone()).or_default().push(c);
        }
    }
    Ok(found)
}

/// A reconciliation made by hand on the dashboard, from pasted or uploaded CSV text. Its
/// idempotency key is the request's content of the day (`origin` tells the paste form from
/// the file upload), so a form sent twice makes one reconciliation.
pub async fn create_from_text(
    ctx: &Ctx,
    actor: &Principal,
    origin: &str,
    action: Option<String>,
    reason: Option<String>,
    text: &str,
) -> Result<Reconciliation, AppError> {
    let day = ctx.now().date_naive();
    let digest = crate::domain::crypto::sha256_hex(&format!(
        "{day}\n{}\n{}\n{text}",
        action.as_deref().unwrap_or_default(),
        reason.as_deref().unwrap_or_default()
    ));
    let key = IdempotencyKey::derived(format!("{origin}:{}", &digest[..40]));
    let input = ReconciliationInput {
        action,
        reason,
        lines: Some(lines_from_csv(text)),
        apply: None,
    };
    Ok(create(ctx, actor, key, input).await?.0)
}

/// Lines of a CSV upload: `transaction_id[,campaign_id]` per line (RFC 4180 fields: a
/// field in double quotes may hold commas and doubled quotes); a leading UTF-8 byte-order
/// mark (spreadsheets write one), a header line naming `transaction_id` and empty lines are
/// skipped. At most one line more than [`MAX_LINES`] is read, enough to refuse the upload
/// without holding a million lines.
pub fn lines_from_csv(text: &str) -> Vec<ReconciliationLineInput> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
        .filter(|(i, l)| !(*i == 0 && l.to_ascii_lowercase().starts_with("transaction_id")))
        .map(|(_, l)| {
            let mut fields = csv_fields(l)
                .into_iter()
                .map(|f| Some(f).filter(|f| !f.is_empty()));
            ReconciliationLineInput {
                transaction_id: fields.next().flatten(),
                campaign_id: fields.next().flatten(),
            }
        })
        .take(MAX_LINES + 1)
        .collect()
}

/// The fields of one CSV line, trimmed.
fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(ch) = chars.next() {
        match (ch, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', true) => quoted = false,
            ('"', false) if field.trim().is_empty() => {
                field.clear();
                quoted = true;
            }
            (',', false) => fields.push(std::mem::take(&mut field).trim().to_owned()),
            _ => field.push(ch),
        }
    }
    fields.push(field.trim().to_owned());
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_lines_skip_the_header_and_blank_lines() {
        let lines =
            lines_from_csv("transaction_id,campaign_id\r\ntx-1\r\n\r\n\"tx,\"\"2\",cmp_1\n");
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].transaction_id.as_deref(), Some("tx-1"));
        assert_eq!(lines[0].campaign_id, None);
        assert_eq!(lines[1].transaction_id.as_deref(), Some("tx,\"2"));
        assert_eq!(lines[1].campaign_id.as_deref(), Some("cmp_1"));
    }

    #[test]
    fn a_byte_order_mark_does_not_hide_the_header() {
        let lines = lines_from_csv("\u{feff}transaction_id\ntx-1\n");
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].transaction_id.as_deref(), Some("tx-1"));
    }

    #[test]
    fn a_huge_upload_is_refused_with_one_problem() {
        let csv = ",\n".repeat(MAX_LINES * 5);
        let lines = lines_from_csv(&csv);
        assert_eq!(lines.len(), MAX_LINES + 1);
        let e = check(Some("approve".into()), Some("why".into()), Some(lines)).unwrap_err();
        assert_eq!(
            e.field_errors.len(),
            1,
            "{:?}",
            e.field_errors.keys().take(3)
        );
        assert!(e.field_errors.contains_key("lines"));
    }

    #[test]
    fn many_bad_lines_answer_with_the_first_hundred() {
        let lines = vec![ReconciliationLineInput::default(); MAX_LINES];
        let e = check(Some("approve".into()), Some("why".into()), Some(lines)).unwrap_err();
        assert_eq!(e.field_errors.len(), crate::error::MAX_FIELD_ERRORS);
        assert!(e.body().to_string().len() < 16 * 1024);
    }
}
