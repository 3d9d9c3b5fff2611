//! Publisher blacklists: campaigns, advertisers, categories, task types or destination
//! domains that must never be delivered on the publisher's placements (all of them, or one).
//! Delivery and the static feed consult [`excluded`].

use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};

use super::owned_placement;
use crate::domain::changes::Change;
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::publisher::ops::*;
use entity::blacklist;

fn normalise(kind: BlacklistKind, raw: &str) -> Result<String, String> {
    let v = raw.trim();
    if v.is_empty() || v.len() > 128 {
        return Err("must be 1 to 128 characters".to_owned());
    }
    Ok(match kind {
        BlacklistKind::Category | BlacklistKind::TaskType => v.to_ascii_uppercase(),
        BlacklistKind::Domain => crate::model::publisher::rules::normalize_identity(
            crate::model::publisher::PlacementType::Website,
            v,
        )?,
        BlacklistKind::Campaign | BlacklistKind::Advertiser => v.to_owned(),
    })
}

/// Adds an entry; the same entry twice is a conflict.
pub async fn create(
    ctx: &Ctx,
    actor: &Principal,
    input: CreateBlacklist,
) -> Result<Blacklist, AppError> {
    actor.require_publisher()?;
    let mut errs = FieldErrors::new();
    let value = errs.check("value", normalise(input.kind, &input.value));
    let reason = input
        .reason
        .map(|r| r.trim().to_owned())
        .filter(|r| !r.is_empty());
    if reason.as_ref().is_some_and(|r| r.chars().count() > 500) {
        errs.add("reason", "must be at most 500 characters");
    }
    errs.finish()?;
    let Some(value) = value else {
        return Err(AppError::invalid("invalid blacklist entry"));
    };
    let txn = crate::domain::db::begin(&ctx.db).await?;
    if let Some(pid) = &input.placement_id {
        owned_placement(&txn, actor, pid)
            .await
            .map_err(|_| AppError::field("placementId", "no such placement"))?;
    }
    let now = ctx.now();
    let id = new_id("bl");
    let row = blacklist::ActiveModel {
        id: Set(id.clone()),
        owner_account_id: Set(actor.account_id.clone()),
        placement_id: Set(input.placement_id.clone()),
        kind: Set(input.kind),
        value: Set(value),
        reason: Set(reason),
        created_at: Set(now),
    }
    .insert(&txn)
    .await
    .map_err(|e| db::conflict_on_unique(e, "this entry is already on the blacklist"))?;
    // NULL placement ids never collide in a unique index, so check the all-placements case here.
    let dupes = blacklist::Entity::find()
        .filter(blacklist::Column::OwnerAccountId.eq(actor.account_id.clone()))
        .filter(blacklist::Column::Kind.eq(row.kind.clone()))
        .filter(blacklist::Column::Value.eq(row.value.clone()))
        .all(&txn)
        .await?;
    if dupes
        .iter()
        .filter(|d| d.placement_id == row.placement_id)
        .count()
        > 1
    {
        return Err(AppError::conflict("this entry is already on the blacklist"));
    }
    let detail = serde_json::json!({"kind": row.kind, "value": row.value});
    actor
        .audit(&txn, now, "blacklist.create", ("blacklist", &id), detail)
        .await?;
    ctx.commit_and_announce(txn, [Change::DeliveryConfig])
        .await?;
    Ok(view(&row))
}

/// The actor's entries, optionally for one placement (entries for all placements included).
pub async fn list(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: Option<&str>,
    page: &crate::domain::paging::Page,
) -> Result<BlacklistList, AppError> {
    actor.require_publisher()?;
    let mut q = blacklist::Entity::find()
        .filter(blacklist::Column::OwnerAccountId.eq(actor.account_id.clone()));
    if let Some(p) = placement_id {
        q = q.filter(
            sea_orm::Condition::any()
                .add(blacklist::Column::PlacementId.is_null())
                .add(blacklist::Column::PlacementId.eq(p.to_owned())),
        );
    }
    let rows = page.select(q, blacklist::Column::Id).all(&ctx.db).await?;
    let (rows, next_cursor) = page.finish(rows, |r| &r.id);
    let items: Vec<Blacklist> = rows.iter().map(view).collect();
    Ok(BlacklistList {
        count: items.len(),
        items,
        next_cursor,
    })
}

/// Removes an entry.
pub async fn delete(ctx: &Ctx, actor: &Principal, id: &str) -> Result<(), AppError> {
    actor.require_publisher()?;
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let row = blacklist::Entity::find_by_id(id.to_owned())
        .one(&txn)
        .await?
        .ok_or_else(|| AppError::not_found("blacklist entry"))?;
    actor.require_owner(&row.owner_account_id, "blacklist entry")?;
    blacklist::Entity::delete_by_id(id.to_owned())
        .exec(&txn)
        .await?;
    let detail = serde_json::json!({"kind": row.kind, "value": row.value});
    actor
        .audit(
            &txn,
            ctx.now(),
            "blacklist.delete",
            ("blacklist", id),
            detail,
        )
        .await?;
    ctx.commit_and_announce(txn, [Change::DeliveryConfig])
        .await?;
    Ok(())
}

/// What a candidate offer is, for the exclusion check.
pub struct Candidate<'a> {
    pub campaign_id: &'a str,
    pub advertiser_id: &'a str,
    pub category: &'a str,
    pub task_type: &'a str,
    pub destination_host: &'a str,
}

/// The blacklist entries that apply to one placement of `owner` (account-wide entries and
/// that placement's own; an empty `placement_id` means account-wide only). Load once per
/// request, then test candidates with [`excludes`].
pub async fn rules_for<C: ConnectionTrait>(
    db: &C,
    owner: &str,
    placement_id: &str,
) -> Result<Vec<blacklist::Model>, AppError> {
    Ok(blacklist::Entity::find()
        .filter(blacklist::Column::OwnerAccountId.eq(owner.to_owned()))
        .all(db)
        .await?
        .into_iter()
        .filter(|r| r.placement_id.as_deref().is_none_or(|p| p == placement_id))
        .collect())
}

/// Whether any of `rules` excludes the candidate.
pub fn excludes(rules: &[blacklist::Model], c: &Candidate<'_>) -> bool {
    rules.iter().any(|r| match r.kind {
        BlacklistKind::Campaign => r.value == c.campaign_id,
        BlacklistKind::Advertiser => r.value == c.advertiser_id,
        BlacklistKind::Category => r.value.eq_ignore_ascii_case(c.category),
        BlacklistKind::TaskType => r.value.eq_ignore_ascii_case(c.task_type),
        BlacklistKind::Domain => {
            let host = c.destination_host.to_ascii_lowercase();
            host == r.value || host.ends_with(&format!(".{}", r.value))
        }
    })
}

fn view(r: &blacklist::Model) -> Blacklist {
    Blacklist {
        blacklist_id: r.id.clone(),
        kind: r.kind,
        value: r.value.clone(),
        placement_id: r.placement_id.clone(),
        reason: r.reason.clone(),
        created_at: r.created_at,
    }
}
