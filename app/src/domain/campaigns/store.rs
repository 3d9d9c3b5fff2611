//! Creating, listing, reading and editing offer campaigns; clones, revisions and the audit
//! trail. Edits before the first submission rewrite the draft revision; every edit after
//! it is a new immutable revision, and a live campaign keeps delivering its approved one.

use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, IntoActiveModel,
    QueryFilter, Set,
};

use super::{assets, config_of, locked_campaign, owned_campaign, providers, view};
use crate::domain::billing::acting_advertiser;
use crate::domain::changes::Change;
use crate::domain::paging::Page;
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::AppError;
use crate::model::Role;
use crate::model::campaign::rules::merge;
use crate::model::campaign::*;
use entity::{audit_event, offer_campaign, offer_campaign_revision};

/// Subject type of campaign audit records.
pub const SUBJECT: &str = "offer_campaign";

/// Validates a configuration against the service: provider selectable, uploaded creatives
/// owned by the advertiser.
async fn check_config<C: ConnectionTrait>(
    ctx: &Ctx,
    db: &C,
    advertiser: &str,
    config: &CampaignConfig,
    provider_changed: bool,
) -> Result<(), AppError> {
    if provider_changed {
        providers::check_selectable(ctx, &config.tracking_provider)
            .map_err(|e| AppError::field("trackingProvider", e))?;
    }
    for (i, c) in config.creatives.iter().enumerate() {
        if let Some(id) = &c.creative_id
            && !assets::exists(db, advertiser, id).await?
        {
            return Err(AppError::field(
                &format!("creatives[{i}].creativeId"),
                "no such uploaded creative",
            ));
        }
    }
    Ok(())
}

fn json(config: &CampaignConfig) -> String {
    serde_json::to_string(config).unwrap_or_default()
}

async fn insert_revision<C: ConnectionTrait>(
    db: &C,
    campaign: &str,
    revision: i64,
    config: &CampaignConfig,
    actor: &Principal,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), AppError> {
    offer_campaign_revision::ActiveModel {
        id: Set(new_id("crv")),
        campaign_id: Set(campaign.to_owned()),
        revision: Set(revision),
        config: Set(json(config)),
        created_by: Set(Some(actor.person_id.clone())),
        created_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(())
}

async fn insert_campaign<C: ConnectionTrait>(
    db: &C,
    actor: &Principal,
    advertiser: &str,
    config: &CampaignConfig,
    cloned_from: Option<String>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<offer_campaign::Model, AppError> {
    let id = new_id("cmp");
    let m = offer_campaign::ActiveModel {
        id: Set(id.clone()),
        advertiser_id: Set(advertiser.to_owned()),
        status: Set(CampaignStatus::Draft),
        name: Set(config.name.clone()),
        tracking_provider: Set(config.tracking_provider.clone()),
        budget_micros: Set(config.budget_micros.get()),
        config: Set(json(config)),
        revision: Set(1),
        live_revision: Set(None),
        rejection_reason: Set(None),
        mmp_verified_revision: Set(None),
        mmp_verified_at: Set(None),
        mmp_verified_by: Set(None),
        ip_allowlist: Set("[]".to_owned()),
        cloned_from: Set(cloned_from.clone()),
        created_at: Set(now),
        updated_at: Set(now),
        submitted_at: Set(None),
        approved_at: Set(None),
        ended_at: Set(None),
        web_pixel: Set("{}".to_owned()),
        fraud_rules: Set("{}".to_owned()),
    }
    .insert(db)
    .await?;
    insert_revision(db, &id, 1, config, actor, now).await?;
    let audited =
        serde_json::json!({"name": config.name, "clonedFrom": cloned_from, "revision": 1});
    actor
        .audit(
            db,
            now,
            if cloned_from.is_some() {
                "campaign.cloned"
            } else {
                "campaign.created"
            },
            (SUBJECT, &id),
            audited,
        )
        .await?;
    Ok(m)
}

/// Creates a DRAFT campaign (revision 1). Administrators name the advertiser.
pub async fn create(
    ctx: &Ctx,
    actor: &Principal,
    input: CampaignInput,
) -> Result<Campaign, AppError> {
    let advertiser = acting_advertiser(ctx, actor, input.advertiser_id.as_deref()).await?;
    let config = merge(None, &input).map_err(AppError::fields)?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    check_config(ctx, &txn, &advertiser, &config, true).await?;
    let m = insert_campaign(&txn, actor, &advertiser, &config, None, now).await?;
    let v = view(&txn, &m).await?;
    txn.commit().await?;
    Ok(v)
}

/// List filters.
#[derive(Debug, Default, Clone)]
pub struct ListQuery {
    pub status: Option<String>,
    /// Name fragment or exact campaign id.
    pub q: Option<String>,
    /// Administrators: one advertiser only.
    pub advertiser_id: Option<String>,
    /// Which page (default: the first 100).
    pub page: crate::domain::paging::Page,
}

/// Campaigns newest first, one page at a time; archived ones only when asked for by status.
pub async fn list(ctx: &Ctx, actor: &Principal, q: ListQuery) -> Result<CampaignList, AppError> {
    actor.require_approved_advertiser()?;
    let mut find = offer_campaign::Entity::find();
    if actor.role.is_admin() {
        if let Some(a) = q.advertiser_id.filter(|a| !a.is_empty()) {
            find = find.filter(offer_campaign::Column::AdvertiserId.eq(a));
        }
    } else {
        find = find.filter(offer_campaign::Column::AdvertiserId.eq(actor.account_id.clone()));
    }
    match q.status.as_deref().filter(|s| !s.is_empty()) {
        Some(s) => {
            let st = CampaignStatus::parse(&s.to_ascii_uppercase())
                .ok_or_else(|| AppError::field("status", "is not a campaign status"))?;
            find = find.filter(offer_campaign::Column::Status.eq(st.as_str()));
        }
        None => {
            find =
                find.filter(offer_campaign::Column::Status.ne(CampaignStatus::Archived.as_str()));
        }
    }
    if let Some(text) = q.q.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()) {
        find = find.filter(
            Condition::any()
                .add(offer_campaign::Column::Id.eq(text.clone()))
                .add(offer_campaign::Column::Name.contains(text)),
        );
    }
    let rows = q
        .page
        .select(find, offer_campaign::Column::Id)
        .all(&ctx.db)
        .await?;
    let (rows, next_cursor) = q.page.finish(rows, |r| &r.id);
    let mut items = Vec::with_capacity(rows.len());
    for m in &rows {
        items.push(view(&ctx.db, m).await?);
    }
    Ok(CampaignList {
        count: items.len(),
        items,
        next_cursor,
    })
}

/// One campaign.
pub async fn get(ctx: &Ctx, actor: &Principal, id: &str) -> Result<Campaign, AppError> {
    let m = owned_campaign(&ctx.db, actor, id).await?;
    view(&ctx.db, &m).await
}

/// Applies a PATCH. ENDED and ARCHIVED campaigns are read-only; the tracking provider can
/// change only in DRAFT.
pub async fn update(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    patch: CampaignInput,
) -> Result<Campaign, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked_campaign(&txn, actor, id).await?;
    let status = m.status;
    if matches!(status, CampaignStatus::Ended | CampaignStatus::Archived) {
        return Err(
            AppError::conflict(format!("a {} campaign cannot be edited", status.as_str()))
                .with_code("campaign_not_editable"),
        );
    }
    let current = config_of(&m)?;
    let next = merge(Some(&current), &patch).map_err(AppError::fields)?;
    let provider_changed = next.tracking_provider != current.tracking_provider;
    if provider_changed && status != CampaignStatus::Draft {
        return Err(AppError::field(
            "trackingProvider",
            "can change only while the campaign is DRAFT",
        ));
    }
    check_config(ctx, &txn, &m.advertiser_id, &next, provider_changed).await?;
    if next == current {
        let v = view(&txn, &m).await?;
        ctx.commit_and_announce(txn, [Change::Offers]).await?;
        return Ok(v);
    }
    // Never submitted: the draft revision is rewritten. Otherwise a new revision is kept.
    let revision = if m.submitted_at.is_none() && status == CampaignStatus::Draft {
        offer_campaign_revision::Entity::update_many()
            .col_expr(
                offer_campaign_revision::Column::Config,
                Expr::value(json(&next)),
            )
            .filter(offer_campaign_revision::Column::CampaignId.eq(m.id.clone()))
            .filter(offer_campaign_revision::Column::Revision.eq(m.revision))
            .exec(&txn)
            .await?;
        m.revision
    } else {
        insert_revision(&txn, &m.id, m.revision + 1, &next, actor, now).await?;
        m.revision + 1
    };
    let mut a = m.clone().into_active_model();
    // An edit of a campaign under review withdraws it: what the administrator reviews
    // must be what goes live, so it is submitted again.
    let withdrawn = status == CampaignStatus::InReview;
    if withdrawn {
        a.status = Set(CampaignStatus::Draft);
    }
    a.name = Set(next.name.clone());
    a.tracking_provider = Set(next.tracking_provider.clone());
    a.budget_micros = Set(next.budget_micros.get());
    a.config = Set(json(&next));
    a.revision = Set(revision);
    a.updated_at = Set(now);
    let m = a.update(&txn).await?;
    let changed = changed_fields(&current, &next);
    actor.audit(&txn, now, "campaign.updated", (SUBJECT, &m.id), serde_json::json!({"fields": changed, "revision": revision, "withdrawnFromReview": withdrawn}))
    .await?;
    let v = view(&txn, &m).await?;
    ctx.commit_and_announce(txn, [Change::Offers]).await?;
    Ok(v)
}

/// The configuration fields whose values differ (for the audit trail).
fn changed_fields(before: &CampaignConfig, after: &CampaignConfig) -> Vec<String> {
    let (a, b) = (serde_json::to_value(before), serde_json::to_value(after));
    match (a, b) {
        (Ok(serde_json::Value::Object(a)), Ok(serde_json::Value::Object(b))) => b
            .iter()
            .filter(|(k, v)| a.get(*k) != Some(*v))
            .map(|(k, _)| k.clone())
            .collect(),
        _ => Vec::new(),
    }
}

/// Copies the newest configuration into a new DRAFT campaign (no credentials, no money).
pub async fn clone(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    req: CloneRequest,
) -> Result<Campaign, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked_campaign(&txn, actor, id).await?;
    let mut config = config_of(&m)?;
    let name = req
        .name
        .unwrap_or_else(|| format!("Copy of {}", config.name));
    config = merge(
        Some(&config),
        &CampaignInput {
            name: Some(name),
            ..Default::default()
        },
    )
    .map_err(AppError::fields)?;
    // The provider may have been switched off since; a clone must be selectable again.
    check_config(ctx, &txn, &m.advertiser_id, &config, true).await?;
    let copy = insert_campaign(
        &txn,
        actor,
        &m.advertiser_id,
        &config,
        Some(m.id.clone()),
        now,
    )
    .await?;
    let v = view(&txn, &copy).await?;
    txn.commit().await?;
    Ok(v)
}

/// The campaign's revisions, newest first, a page at a time (ids are creation-ordered, as
/// revision numbers are).
pub async fn revisions(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    page: &Page,
) -> Result<RevisionList, AppError> {
    let m = owned_campaign(&ctx.db, actor, id).await?;
    let q = offer_campaign_revision::Entity::find()
        .filter(offer_campaign_revision::Column::CampaignId.eq(m.id.clone()));
    let rows = page
        .select(q, offer_campaign_revision::Column::Id)
        .all(&ctx.db)
        .await?;
    let (rows, next_cursor) = page.finish(rows, |r| &r.id);
    let mut items = Vec::with_capacity(rows.len());
    for r in rows {
        items.push(CampaignRevision {
            revision: r.revision,
            created_at: r.created_at,
            created_by: r.created_by,
            live: m.live_revision == Some(r.revision),
            config: super::parse_config(&r.config)?,
        });
    }
    Ok(RevisionList { items, next_cursor })
}

/// The campaign's audit trail, newest first, a page at a time.
pub async fn audit_trail(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    page: &Page,
) -> Result<AuditList, AppError> {
    let m = owned_campaign(&ctx.db, actor, id).await?;
    let q = audit_event::Entity::find()
        .filter(audit_event::Column::SubjectType.eq(SUBJECT))
        .filter(audit_event::Column::SubjectId.eq(m.id.clone()));
    let rows = page.select(q, audit_event::Column::Id).all(&ctx.db).await?;
    let (rows, next_cursor) = page.finish(rows, |r| &r.id);
    // One query for the people behind the rows.
    let mut ids: Vec<String> = rows
        .iter()
        .filter_map(|r| r.actor_account_id.clone())
        .collect();
    ids.sort();
    ids.dedup();
    let people: std::collections::HashMap<String, String> = entity::account::Entity::find()
        .filter(entity::account::Column::Id.is_in(ids))
        .all(&ctx.db)
        .await?
        .into_iter()
        .map(|a| {
            let shown = if a.role == Role::Admin && !actor.role.is_admin() {
                "Marketplace review".to_owned()
            } else {
                a.email
            };
            (a.id, shown)
        })
        .collect();
    Ok(AuditList {
        next_cursor,
        items: rows
            .into_iter()
            .map(|r| AuditEntry {
                action: r.action,
                actor: r
                    .actor_account_id
                    .as_ref()
                    .and_then(|id| people.get(id).cloned()),
                actor_account_id: r.actor_account_id,
                at: r.created_at,
                detail: serde_json::from_str(&r.detail).unwrap_or(serde_json::Value::Null),
            })
            .collect(),
    })
}
