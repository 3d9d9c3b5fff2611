//! Placements: create, list, read, edit, request review, archive.

use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, Set,
};

use super::{commit_placement, owned_placement, slots};
use crate::domain::{Ctx, Principal, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::publisher::rules::{normalize_identity, sdk_version, store_url};
use crate::model::publisher::*;
use crate::model::validate;
use entity::values::CallbackKeyState;
use entity::{ad_slot, callback_key, placement, sdk_session};

/// The default minimum SDK version of a placement.
pub const DEFAULT_MIN_SDK: &str = "2.0.0";

/// Creates a DRAFT placement.
pub async fn create(
    ctx: &Ctx,
    actor: &Principal,
    input: CreatePlacement,
) -> Result<Placement, AppError> {
    actor.require_publisher()?;
    let mut errs = FieldErrors::new();
    let kind = input.placement_type;
    if kind.is_none() {
        errs.add(
            "type",
            "is required (ANDROID_APP, IOS_APP, WEBSITE or API_NETWORK)",
        );
    }
    let name = errs.check(
        "name",
        validate::display_name(input.name.as_deref().unwrap_or_default(), 120),
    );
    let identity = match (kind, input.platform_identity.as_deref()) {
        (Some(k), Some(raw)) => errs.check("platformIdentity", normalize_identity(k, raw)),
        (_, None) => {
            errs.add("platformIdentity", "is required");
            None
        }
        _ => None,
    };
    let is_app = matches!(
        kind,
        Some(PlacementType::AndroidApp | PlacementType::IosApp)
    );
    let store = match input.store_url.as_deref().filter(|s| !s.trim().is_empty()) {
        Some(raw) => errs.check("storeUrl", store_url(raw)),
        None if is_app => {
            errs.add(
                "storeUrl",
                "is required for app placements (public HTTPS store URL)",
            );
            None
        }
        None => None,
    };
    let (min, rec) = versions(
        &mut errs,
        input.minimum_sdk_version.as_deref(),
        input.recommended_sdk_version.as_deref(),
    );
    errs.finish()?;
    let (Some(kind), Some(name), Some(identity)) = (kind, name, identity) else {
        return Err(AppError::invalid("invalid placement"));
    };
    let now = ctx.now();
    let id = new_id("plc");
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let row = placement::ActiveModel {
        id: Set(id.clone()),
        owner_account_id: Set(actor.account_id.clone()),
        r#type: Set(kind.as_str().to_owned()),
        name: Set(name),
        platform_identity: Set(identity),
        platform: Set(kind.platform().to_owned()),
        store_url: Set(store),
        minimum_sdk_version: Set(min.unwrap_or_else(|| DEFAULT_MIN_SDK.to_owned())),
        recommended_sdk_version: Set(rec),
        require_consent: Set(input.require_consent.unwrap_or(false)),
        status: Set(PlacementStatus::Draft),
        released: Set(false),
        released_at: Set(None),
        review_note: Set(None),
        reviewed_at: Set(None),
        callback_url: Set(None),
        privacy_settings: Set("{}".to_owned()),
        created_at: Set(now),
        updated_at: Set(now),
        archived_at: Set(None),
        delivery_paused_at: Set(None),
        delivery_paused_reason: Set(None),
        delivery_resumed_at: Set(None),
    }
    .insert(&txn)
    .await?;
    let detail = serde_json::json!({"type": kind.as_str()});
    commit_placement(ctx, txn, (actor, now), "placement.create", &id, detail).await?;
    Ok(view(ctx, &row, &[], None))
}

/// Validates the SDK version pair; the recommended version may not be below the minimum.
fn versions(
    errs: &mut FieldErrors,
    min: Option<&str>,
    rec: Option<&str>,
) -> (Option<String>, Option<String>) {
    let min_v = min.and_then(|m| errs.check("minimumSdkVersion", sdk_version(m)));
    let rec_v = rec.and_then(|r| errs.check("recommendedSdkVersion", sdk_version(r)));
    let floor = min_v
        .clone()
        .or_else(|| semver::Version::parse(DEFAULT_MIN_SDK).ok());
    if let (Some(r), Some(f)) = (&rec_v, &floor) {
        if r < f {
            errs.add(
                "recommendedSdkVersion",
                "must not be below minimumSdkVersion",
            );
        }
    }
    (min_v.map(|v| v.to_string()), rec_v.map(|v| v.to_string()))
}

/// The actor's non-archived placements, newest first, filtered by `search` (name contains,
/// case-insensitive; exact placement id; or exact identity) and `status`, one `page` at a
/// time. Administrators see every placement.
pub async fn list(
    ctx: &Ctx,
    actor: &Principal,
    search: Option<&str>,
    status: Option<&str>,
    page: &crate::domain::paging::Page,
) -> Result<PlacementList, AppError> {
    use sea_orm::sea_query::{Expr, ExprTrait, Func};
    actor.require_publisher()?;
    let status = match status.filter(|s| !s.is_empty()) {
        Some(s) => Some(PlacementStatus::parse(s).ok_or_else(|| {
            AppError::field(
                "status",
                "must be DRAFT, PENDING_REVIEW, VERIFIED or REJECTED",
            )
        })?),
        None => None,
    };
    let mut q = placement::Entity::find().filter(placement::Column::ArchivedAt.is_null());
    if !actor.role.is_admin() {
        q = q.filter(placement::Column::OwnerAccountId.eq(actor.account_id.clone()));
    }
    if let Some(s) = status {
        q = q.filter(placement::Column::Status.eq(s.as_str()));
    }
    if let Some(n) = search
        .map(|s| s.trim().to_lowercase())
        .filter(|s| !s.is_empty())
    {
        let lower = |c: placement::Column| Expr::expr(Func::lower(Expr::col(c)));
        let backend = ctx.db.get_database_backend();
        q = q.filter(
            sea_orm::Condition::any()
                .add(crate::domain::sql::contains_ignoring_case(
                    backend,
                    placement::Column::Name,
                    &n,
                ))
                .add(ExprTrait::eq(lower(placement::Column::Id), n.clone()))
                .add(ExprTrait::eq(lower(placement::Column::PlatformIdentity), n)),
        );
    }
    let rows = page.select(q, placement::Column::Id).all(&ctx.db).await?;
    let (rows, next_cursor) = page.finish(rows, |r| &r.id);
    let mut list = list_of(ctx, &rows).await?;
    list.next_cursor = next_cursor;
    Ok(list)
}

/// The list view of placement rows, with their callback key summaries loaded in one query.
pub(crate) async fn list_of(
    ctx: &Ctx,
    rows: &[placement::Model],
) -> Result<PlacementList, AppError> {
    let keys = keys_for(ctx, rows.iter().map(|p| p.id.clone()).collect()).await?;
    let items: Vec<Placement> = rows.iter().map(|p| view(ctx, p, &keys, None)).collect();
    Ok(PlacementList {
        count: items.len(),
        items,
        next_cursor: None,
    })
}

/// One placement with its non-archived slots.
pub async fn get(ctx: &Ctx, actor: &Principal, id: &str) -> Result<Placement, AppError> {
    let p = owned_placement(&ctx.db, actor, id).await?;
    let keys = keys_for(ctx, vec![p.id.clone()]).await?;
    let slot_rows = ad_slot::Entity::find()
        .filter(ad_slot::Column::PlacementId.eq(p.id.clone()))
        .filter(ad_slot::Column::ArchivedAt.is_null())
        .order_by_asc(ad_slot::Column::CreatedAt)
        .all(&ctx.db)
        .await?;
    let slots = slot_rows.iter().map(|s| slots::view(s, &p)).collect();
    Ok(view(ctx, &p, &keys, Some(slots)))
}

/// Edits the mutable fields; `type` and `platformIdentity` are refused.
pub async fn patch(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    input: PatchPlacement,
) -> Result<Placement, AppError> {
    let mut errs = FieldErrors::new();
    if input.placement_type.is_some() {
        errs.add("type", "cannot be changed after creation");
    }
    if input.platform_identity.is_some() {
        errs.add("platformIdentity", "cannot be changed after creation");
    }
    let name = input
        .name
        .as_deref()
        .and_then(|n| errs.check("name", validate::display_name(n, 120)));
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let p = owned_placement(&txn, actor, id).await?;
    let kind = PlacementType::parse(&p.r#type).unwrap_or(PlacementType::Website);
    let is_app = matches!(kind, PlacementType::AndroidApp | PlacementType::IosApp);
    let store = match &input.store_url {
        None => None,
        Some(Some(raw)) if !raw.trim().is_empty() => {
            errs.check("storeUrl", store_url(raw)).map(Some)
        }
        Some(_) if is_app => {
            errs.add("storeUrl", "is required for app placements");
            None
        }
        Some(_) => Some(None),
    };
    let min_in = input
        .minimum_sdk_version
        .as_deref()
        .or(Some(p.minimum_sdk_version.as_str()));
    let rec_in = match &input.recommended_sdk_version {
        None => p.recommended_sdk_version.as_deref(),
        Some(v) => v.as_deref(),
    };
    let (min, rec) = versions(&mut errs, min_in, rec_in);
    errs.finish()?;
    let now = ctx.now();
    let mut am: placement::ActiveModel = p.clone().into();
    if let Some(n) = name {
        am.name = Set(n);
    }
    if let Some(s) = store {
        am.store_url = Set(s);
    }
    if let Some(m) = min {
        am.minimum_sdk_version = Set(m);
    }
    am.recommended_sdk_version = Set(rec);
    if let Some(c) = input.require_consent {
        am.require_consent = Set(c);
    }
    am.updated_at = Set(now);
    am.update(&txn).await?;
    let detail = serde_json::json!({});
    commit_placement(ctx, txn, (actor, now), "placement.update", id, detail).await?;
    get(ctx, actor, id).await
}

/// DRAFT or REJECTED → PENDING_REVIEW.
pub async fn request_review(ctx: &Ctx, actor: &Principal, id: &str) -> Result<Placement, AppError> {
    let now = ctx.now();
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let p = owned_placement(&txn, actor, id).await?;
    if !matches!(p.status, PlacementStatus::Draft | PlacementStatus::Rejected) {
        return Err(AppError::conflict(format!(
            "only DRAFT or REJECTED placements can request review; this one is {}",
            p.status
        )));
    }
    let mut am: placement::ActiveModel = p.into();
    am.status = Set(PlacementStatus::PendingReview);
    am.updated_at = Set(now);
    am.update(&txn).await?;
    let detail = serde_json::json!({});
    commit_placement(
        ctx,
        txn,
        (actor, now),
        "placement.request_review",
        id,
        detail,
    )
    .await?;
    get(ctx, actor, id).await
}

/// Archives a placement that has no obligations: not released, no ACTIVE or DISABLED slot,
/// no configured callback (and, once delivery exists, no historical SDK session). History is kept.
pub async fn delete(ctx: &Ctx, actor: &Principal, id: &str) -> Result<(), AppError> {
    let now = ctx.now();
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let p = owned_placement(&txn, actor, id).await?;
    let mut obligations = Vec::new();
    if p.released {
        obligations.push("it is released to production");
    }
    if p.callback_url.is_some() {
        obligations.push("a reward callback is configured");
    }
    let live_slots = ad_slot::Entity::find()
        .filter(ad_slot::Column::PlacementId.eq(p.id.clone()))
        .filter(ad_slot::Column::ArchivedAt.is_null())
        .filter(
            ad_slot::Column::State
                .is_in([SlotState::Active.as_str(), SlotState::Disabled.as_str()]),
        )
        .one(&txn)
        .await?;
    if live_slots.is_some() {
        obligations.push("it has an active or disabled ad slot");
    }
    if has_sessions(&txn, &p.id).await? {
        obligations.push("it has SDK session history");
    }
    if !obligations.is_empty() {
        return Err(AppError::conflict(format!(
            "the placement cannot be deleted: {}",
            obligations.join("; ")
        )));
    }
    let mut am: placement::ActiveModel = p.into();
    am.archived_at = Set(Some(now));
    am.updated_at = Set(now);
    am.update(&txn).await?;
    let detail = serde_json::json!({});
    commit_placement(ctx, txn, (actor, now), "placement.archive", id, detail).await?;
    Ok(())
}

/// Callback keys of the given placements (CURRENT and NEXT), for the safe summary.
pub(crate) async fn keys_for(
    ctx: &Ctx,
    ids: Vec<String>,
) -> Result<Vec<callback_key::Model>, AppError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    Ok(callback_key::Entity::find()
        .filter(callback_key::Column::PlacementId.is_in(ids))
        .filter(callback_key::Column::State.is_in(["CURRENT", "NEXT"]))
        .all(&ctx.db)
        .await?)
}

/// The console view of a placement. Never contains a secret. Its privacy settings and
/// capabilities come from the same rules the checks use (session creation, survey fetch).
pub fn view(
    ctx: &Ctx,
    p: &placement::Model,
    keys: &[callback_key::Model],
    slots: Option<Vec<AdSlot>>,
) -> Placement {
    let kind = PlacementType::parse(&p.r#type).unwrap_or(PlacementType::Website);
    let status = p.status;
    let key = |state: CallbackKeyState| {
        keys.iter()
            .find(|k| k.placement_id == p.id && k.state == state)
            .map(|k| k.id.clone())
    };
    let consent = accepted_consents(p.require_consent);
    Placement {
        placement_id: p.id.clone(),
        placement_type: kind,
        name: p.name.clone(),
        platform_identity: p.platform_identity.clone(),
        platform: p.platform.clone(),
        store_url: p.store_url.clone(),
        minimum_sdk_version: p.minimum_sdk_version.clone(),
        recommended_sdk_version: p.recommended_sdk_version.clone(),
        require_consent: p.require_consent,
        status,
        released: p.released,
        review_note: p.review_note.clone(),
        privacy_settings: PrivacySettings {
            require_consent: p.require_consent,
            consent_values_accepted: consent.iter().map(|c| (*c).to_owned()).collect(),
        },
        capabilities: Capabilities {
            slot_types: kind.allowed_slots().to_vec(),
            sdk_sessions: status == PlacementStatus::Verified,
            production_delivery: status == PlacementStatus::Verified && p.released,
            survey_fetch: serves_survey_fetch(ctx.config.environment, p),
        },
        callback: CallbackSummary {
            configured: p.callback_url.is_some(),
            url: p.callback_url.clone(),
            key_id: key(CallbackKeyState::Current),
            next_key_id: key(CallbackKeyState::Next),
        },
        created_at: p.created_at,
        updated_at: p.updated_at,
        ad_slots: slots,
    }
}

/// Whether survey fetch serves a placement's app key: any placement outside production (so a
/// publisher can integrate before review), only released ones in production. The
/// placement's `capabilities.surveyFetch` shows this same rule; `surveys::fetch` applies it.
pub fn serves_survey_fetch(environment: crate::domain::Environment, p: &placement::Model) -> bool {
    environment != crate::domain::Environment::Production || p.released
}

/// Every consent value an SDK session may name.
pub const CONSENTS: [&str; 4] = ["GRANTED", "DENIED", "UNKNOWN", "NOT_REQUIRED"];

/// The consent values a session may be created with: only GRANTED when the placement
/// requires consent (the placement's `privacySettings` shows this same list).
pub fn accepted_consents(require_consent: bool) -> &'static [&'static str] {
    if require_consent {
        &CONSENTS[..1]
    } else {
        &CONSENTS
    }
}

/// Whether any SDK session was ever created for the placement (a placement that served
/// none may be deleted).
async fn has_sessions<C: ConnectionTrait>(db: &C, placement_id: &str) -> Result<bool, AppError> {
    Ok(sdk_session::Entity::find()
        .filter(sdk_session::Column::PlacementId.eq(placement_id.to_owned()))
        .count(db)
        .await?
        > 0)
}
