//! Reading reconciliations: one with its preview and results by state (two aggregate
//! queries), the advertiser's list (the same two for the whole page), and the lines in
//! request order.

use std::collections::HashMap;

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

use super::ID_PREFIX;
use crate::domain::billing::acting_advertiser;
use crate::domain::paging::Page;
use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::campaign::reconciliation::{
    LineState, LineTally, ReconcileAction, Reconciliation, ReconciliationLine,
    ReconciliationLineQuery, ReconciliationLines, ReconciliationList,
};
use crate::model::money::Micros;
use entity::{reconciliation_batch as batch, reconciliation_line as line};

/// Most lines a page of lines holds (a whole reconciliation at most).
const MAX_LINES_PAGE: u64 = 10_000;

/// `GET …/reconciliations/{id}`.
pub async fn get(ctx: &Ctx, actor: &Principal, id: &str) -> Result<Reconciliation, AppError> {
    let advertiser = acting_advertiser(ctx, actor, None).await?;
    let b = owned(ctx, &advertiser, id).await?;
    view(ctx, b).await
}

/// `GET …/reconciliations`: the caller's reconciliations, newest first.
pub async fn list(
    ctx: &Ctx,
    actor: &Principal,
    limit: Option<u64>,
    cursor: Option<&str>,
) -> Result<ReconciliationList, AppError> {
    let advertiser = acting_advertiser(ctx, actor, None).await?;
    let page = Page::parse(Some(limit.unwrap_or(20)), cursor, ID_PREFIX)?;
    let sel = batch::Entity::find().filter(batch::Column::AdvertiserId.eq(advertiser));
    let rows = page.select(sel, batch::Column::Id).all(&ctx.db).await?;
    let (rows, next_cursor) = page.finish(rows, |b| &b.id);
    let ids: Vec<String> = rows.iter().map(|b| b.id.clone()).collect();
    let mut preview = tallies(ctx, &ids, line::Column::Preview).await?;
    let mut results = tallies(ctx, &ids, line::Column::Result).await?;
    let items = rows
        .into_iter()
        .map(|b| {
            let p = preview.remove(&b.id).unwrap_or_default();
            let r = results.remove(&b.id).unwrap_or_default();
            assemble(b, p, r)
        })
        .collect();
    Ok(ReconciliationList { items, next_cursor })
}

/// `GET …/reconciliations/{id}/lines`: lines in request order, optionally of one state;
/// the cursor is the last line number of the previous page.
pub async fn lines(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    q: &ReconciliationLineQuery,
) -> Result<ReconciliationLines, AppError> {
    let advertiser = acting_advertiser(ctx, actor, None).await?;
    owned(ctx, &advertiser, id).await?;
    let limit = q.limit.unwrap_or(1_000);
    if !(1..=MAX_LINES_PAGE).contains(&limit) {
        return Err(AppError::field(
            "limit",
            format!("must be 1 to {MAX_LINES_PAGE}"),
        ));
    }
    let after = match q.cursor.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        Some(c) => c.parse::<i32>().map_err(|_| {
            AppError::field("cursor", "must be the nextCursor of the previous page")
        })?,
        None => 0,
    };
    let mut sel = line::Entity::find()
        .filter(line::Column::BatchId.eq(id.to_owned()))
        .filter(line::Column::LineNo.gt(after));
    if let Some(state) = q.state.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        let state = LineState::parse(&state.to_ascii_uppercase())
            .ok_or_else(|| AppError::field("state", "is not a line state"))?;
        // A line's result once applied, else its preview.
        sel = sel.filter(
            sea_orm::Condition::any()
                .add(line::Column::Result.eq(state.as_str()))
                .add(
                    sea_orm::Condition::all()
                        .add(line::Column::Result.is_null())
                        .add(line::Column::Preview.eq(state.as_str())),
                ),
        );
    }
    let mut rows = sel
        .order_by_asc(line::Column::LineNo)
        .limit(limit + 1)
        .all(&ctx.db)
        .await?;
    let more = rows.len() as u64 > limit;
    rows.truncate(limit as usize);
    let next_cursor = more
        .then(|| rows.last().map(|l| l.line_no.to_string()))
        .flatten();
    Ok(ReconciliationLines {
        items: rows.into_iter().map(line_view).collect(),
        next_cursor,
    })
}

/// The advertiser's reconciliation `id` (404 for anyone else's).
pub(super) async fn owned(ctx: &Ctx, advertiser: &str, id: &str) -> Result<batch::Model, AppError> {
    batch::Entity::find_by_id(id.to_owned())
        .one(&ctx.db)
        .await?
        .filter(|b| b.advertiser_id == advertiser)
        .ok_or_else(|| AppError::not_found("reconciliation"))
}

/// Reconciliation `id` as it stands.
pub(super) async fn one(ctx: &Ctx, id: &str) -> Result<Reconciliation, AppError> {
    let b = batch::Entity::find_by_id(id.to_owned())
        .one(&ctx.db)
        .await?
        .ok_or_else(|| AppError::not_found("reconciliation"))?;
    view(ctx, b).await
}

async fn view(ctx: &Ctx, b: batch::Model) -> Result<Reconciliation, AppError> {
    let ids = [b.id.clone()];
    let preview = tallies(ctx, &ids, line::Column::Preview).await?;
    let results = tallies(ctx, &ids, line::Column::Result).await?;
    let (p, r) = (preview.into_values().next(), results.into_values().next());
    Ok(assemble(b, p.unwrap_or_default(), r.unwrap_or_default()))
}

/// The lines of the reconciliations `ids` by the state in `column` (preview or result), in
/// one aggregate query for all of them.
async fn tallies(
    ctx: &Ctx,
    ids: &[String],
    column: line::Column,
) -> Result<HashMap<String, Vec<LineTally>>, AppError> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows: Vec<(String, Option<String>, i64, i64)> = line::Entity::find()
        .select_only()
        .column(line::Column::BatchId)
        .column(column)
        .column_as(line::Column::Id.count(), "n")
        .column_as(
            sea_orm::sea_query::Expr::cust("CAST(COALESCE(SUM(payout_micros), 0) AS BIGINT)"),
            "payout",
        )
        .filter(line::Column::BatchId.is_in(ids.iter().cloned()))
        .group_by(line::Column::BatchId)
        .group_by(column)
        .into_tuple()
        .all(&ctx.db)
        .await?;
    let mut out: HashMap<String, Vec<LineTally>> = HashMap::new();
    for (batch_id, state, n, payout) in rows {
        let Some(state) = state.as_deref().and_then(LineState::parse) else {
            continue;
        };
        out.entry(batch_id).or_default().push(LineTally {
            state,
            lines: u64::try_from(n).unwrap_or(0),
            payout_micros: Micros(payout),
        });
    }
    for t in out.values_mut() {
        t.sort_by_key(|t| LineState::ALL.iter().position(|s| *s == t.state));
    }
    Ok(out)
}

/// A reconciliation from its row and its tallies.
fn assemble(b: batch::Model, preview: Vec<LineTally>, results: Vec<LineTally>) -> Reconciliation {
    let line_count = u64::try_from(b.line_count).unwrap_or(0);
    let done: u64 = results.iter().map(|t| t.lines).sum();
    Reconciliation {
        reconciliation_id: b.id,
        action: ReconcileAction::parse(&b.action).unwrap_or(ReconcileAction::Reverse),
        reason: b.reason,
        status: b.status,
        line_count,
        preview,
        results,
        lines_left: line_count.saturating_sub(done),
        created_at: b.created_at,
        queued_at: b.queued_at,
        finished_at: b.finished_at,
    }
}

fn line_view(l: line::Model) -> ReconciliationLine {
    ReconciliationLine {
        line_no: u32::try_from(l.line_no).unwrap_or(0),
        transaction_id: l.transaction_id,
        campaign_id: l.campaign_id,
        conversion_id: l.conversion_id,
        preview: l.preview,
        result: l.result,
        payout_micros: Micros(l.payout_micros),
        applied_at: l.applied_at,
    }
}
