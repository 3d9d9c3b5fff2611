//! `POST /admin/v1/fraud/decisions` and `POST /performance-marketing/v2/conversions/decisions`:
//! approve (pay) or reject held conversions, one campaign's at a time under its lock. An
//! administrator decides any; an advertiser only its own (anything else is NOT_FOUND, so
//! another advertiser's ids reveal nothing).

use std::collections::{BTreeMap, HashMap};

use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};

use super::Held;
use crate::domain::conversions::reported::{Outcome, ReportedStatus, Settlement, Trust};
use crate::domain::{Ctx, Principal};
use crate::error::{AppError, FieldErrors};
use crate::model::Role;
use crate::model::fraud::{
    DecisionOutcome, DecisionResult, DecisionResults, HoldDecision, HoldDecisionInput,
    MAX_DECISION_IDS,
};
use entity::conversion;

/// The inbox source of decided conversions.
pub const SOURCE: &str = "FRAUD_REVIEW";

fn result_of(outcome: Outcome) -> DecisionResult {
    match outcome {
        Outcome::Settled(Settlement::Approved) => DecisionResult::Approved,
        Outcome::Settled(Settlement::Rejected) => DecisionResult::Rejected,
        Outcome::Settled(Settlement::NoBudget) => DecisionResult::NoBudget,
        Outcome::Settled(Settlement::CapReached) => DecisionResult::CapReached,
        _ => DecisionResult::NotHeld,
    }
}

/// Checks the input: 1 to 500 distinct ids, a decision, a note of at most 500 characters.
fn parse(
    input: HoldDecisionInput,
) -> Result<(Vec<String>, HoldDecision, Option<String>), AppError> {
    let mut errs = FieldErrors::new();
    let mut ids: Vec<String> = Vec::new();
    if input.conversion_ids.is_empty() || input.conversion_ids.len() > MAX_DECISION_IDS {
        errs.add(
            "conversionIds",
            format!("name 1 to {MAX_DECISION_IDS} conversions"),
        );
    }
    for id in input.conversion_ids.iter().take(MAX_DECISION_IDS) {
        let id = id.trim();
        if id.is_empty() || id.len() > 64 {
            errs.add("conversionIds", "each id is 1 to 64 characters");
            break;
        }
        if !ids.iter().any(|i| i == id) {
            ids.push(id.to_owned());
        }
    }
    let note = input
        .note
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_owned);
    if note.as_ref().is_some_and(|n| n.chars().count() > 500) {
        errs.add("note", "must be at most 500 characters");
    }
    if input.decision.is_none() {
        errs.add("decision", "must be APPROVE or REJECT");
    }
    errs.finish()?;
    Ok((ids, input.decision.unwrap_or(HoldDecision::Reject), note))
}

/// Approves or rejects held conversions; the results follow the ids' order.
pub async fn decide(
    ctx: &Ctx,
    actor: &Principal,
    input: HoldDecisionInput,
) -> Result<DecisionResults, AppError> {
    match actor.role {
        Role::Admin | Role::Superadmin => {}
        Role::Advertiser => actor.require_approved_advertiser()?,
        Role::Publisher => return Err(AppError::forbidden("advertiser or administrator required")),
    }
    let (ids, decision, note) = parse(input)?;
    let owners: Vec<(String, String, String)> = conversion::Entity::find()
        .select_only()
        .column(conversion::Column::Id)
        .column(conversion::Column::CampaignId)
        .column(conversion::Column::AdvertiserId)
        .filter(conversion::Column::Id.is_in(ids.iter().cloned()))
        .into_tuple()
        .all(&ctx.db)
        .await?;
    let mut by_campaign: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (id, campaign, advertiser) in owners {
        if actor.role.is_admin() || advertiser == actor.account_id {
            by_campaign.entry(campaign).or_default().push(id);
        }
    }
    let mut results: HashMap<String, DecisionResult> = HashMap::new();
    let (status, verb) = match decision {
        HoldDecision::Approve => (ReportedStatus::Approved, "approve"),
        HoldDecision::Reject => (ReportedStatus::Rejected, "reject"),
    };
    for (campaign_id, group) in by_campaign {
        for id in &group {
            results.insert(id.clone(), DecisionResult::NotHeld);
        }
        let now = ctx.now();
        let Some((mut held, rows)) = Held::open(ctx, &campaign_id, &group).await? else {
            continue;
        };
        for c in &rows {
            let outcome = held.settle(now, c, status, Trust::Vouched, SOURCE).await?;
            let result = result_of(outcome);
            conversion::Entity::update_many()
                .col_expr(
                    conversion::Column::DecidedBy,
                    Expr::value(Some(actor.person_id.clone())),
                )
                .col_expr(conversion::Column::DecidedAt, Expr::value(Some(now)))
                .col_expr(conversion::Column::DecisionNote, Expr::value(note.clone()))
                .filter(conversion::Column::Id.eq(c.id.clone()))
                .exec(&held.txn)
                .await?;
            let detail = serde_json::json!({
                "decision": verb,
                "result": result.as_str(),
                "note": note,
                "fraudScore": c.fraud_score,
                "campaignId": c.campaign_id,
                "placementId": c.placement_id,
            });
            actor
                .audit(
                    &held.txn,
                    now,
                    "conversion.hold_decided",
                    ("conversion", &c.id),
                    detail,
                )
                .await?;
            if let Some(p) = &c.placement_id {
                ctx.fraud.watch.touched(p);
            }
            results.insert(c.id.clone(), result);
        }
        held.close(ctx, now).await?;
    }
    let items: Vec<DecisionOutcome> = ids
        .into_iter()
        .map(|id| DecisionOutcome {
            result: results
                .get(&id)
                .copied()
                .unwrap_or(DecisionResult::NotFound),
            conversion_id: id,
        })
        .collect();
    Ok(DecisionResults {
        approved_count: items
            .iter()
            .filter(|i| i.result == DecisionResult::Approved)
            .count(),
        rejected_count: items
            .iter()
            .filter(|i| i.result == DecisionResult::Rejected)
            .count(),
        items,
    })
}
