//! Ad slots: creation within the placement type's matrix, readiness, merged PATCH with an
//! immutable revision per version, reward preview and SDK snippets.

mod config;
mod currency;
mod snippets;

use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, Set,
};
use serde_json::{Value, json};

use super::{owned_placement, owned_slot};
use crate::domain::changes::Change;
use crate::domain::{Ctx, Principal, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::publisher::*;
use entity::{ad_slot, ad_slot_revision, placement};

use config::Config;
pub use currency::{currency_of, preview, reward_preview};
pub use snippets::snippets;

/// Why a slot of `kind` on placement `p` with `currency` cannot deliver (empty: ready).
fn readiness(p: &placement::Model, kind: SlotType, currency: &Currency) -> Readiness {
    let mut reasons = Vec::new();
    if p.status != PlacementStatus::Verified {
        reasons.push("placement_not_verified".to_owned());
    }
    let ptype = PlacementType::parse(&p.r#type).unwrap_or(PlacementType::Website);
    if !ptype.allowed_slots().contains(&kind) {
        reasons.push("slot_type_not_allowed".to_owned());
    }
    if currency.rate_numerator_minor_units <= 0 {
        reasons.push("currency_rate_zero".to_owned());
    }
    Readiness {
        ready: reasons.is_empty(),
        reasons,
    }
}

/// Ad slots one placement may hold, retired ones included.
pub const MAX_SLOTS: u64 = 100;

/// Creates a slot (state READY when ready, DRAFT otherwise) and its first revision.
pub async fn create(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
    input: SlotInput,
) -> Result<AdSlot, AppError> {
    let mut errs = FieldErrors::new();
    let kind = match &input.slot_type {
        Some(Value::String(s)) => SlotType::parse(s).or_else(|| {
            errs.add("type", "must be OFFERWALL, OFFER_API or STATIC_API");
            None
        }),
        Some(_) => {
            errs.add("type", "must be OFFERWALL, OFFER_API or STATIC_API");
            None
        }
        None => {
            errs.add("type", "is required");
            None
        }
    };
    if input.name.is_none() {
        errs.add("name", "is required");
    }
    let mut cfg = Config::defaults(String::new());
    cfg.merge(&input, &mut errs);
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let p = owned_placement(&txn, actor, placement_id).await?;
    let ptype = PlacementType::parse(&p.r#type).unwrap_or(PlacementType::Website);
    if let Some(k) = kind {
        if !ptype.allowed_slots().contains(&k) {
            let allowed: Vec<&str> = ptype.allowed_slots().iter().map(|s| s.as_str()).collect();
            errs.add(
                "type",
                format!("{} placements allow {}", ptype.as_str(), allowed.join(", ")),
            );
        }
    }
    errs.finish()?;
    let Some(kind) = kind else {
        return Err(AppError::invalid("invalid slot"));
    };
    // A bound, so the slot list (and the placement that embeds it) is answered whole.
    let held = ad_slot::Entity::find()
        .filter(ad_slot::Column::PlacementId.eq(p.id.clone()))
        .count(&txn)
        .await?;
    if held >= MAX_SLOTS {
        return Err(
            AppError::conflict(format!("a placement holds at most {MAX_SLOTS} ad slots"))
                .with_code("limit_reached"),
        );
    }
    let now = ctx.now();
    let ready = readiness(&p, kind, &cfg.currency);
    let id = new_id("slot");
    let row = ad_slot::ActiveModel {
        id: Set(id.clone()),
        placement_id: Set(p.id.clone()),
        name: Set(cfg.name.clone()),
        r#type: Set(kind.as_str().to_owned()),
        state: Set(if ready.ready {
            SlotState::Ready
        } else {
            SlotState::Draft
        }),
        currency_name: Set(cfg.currency.name.clone()),
        currency_decimals: Set(cfg.currency.decimals),
        rate_numerator_minor_units: Set(cfg.currency.rate_numerator_minor_units),
        rate_denominator_usd_micros: Set(cfg.currency.rate_denominator_usd_micros.get()),
        minimum_payout_minor_units: Set(cfg.currency.minimum_payout_minor_units),
        rounding: Set(cfg.currency.rounding.as_str().to_owned()),
        design: Set(cfg.design.to_string()),
        exposure: Set(cfg.exposure.to_string()),
        policy: Set(json!(cfg.policy).to_string()),
        offer_delivery: Set(json!(cfg.offer_delivery).to_string()),
        configuration_version: Set(1),
        created_at: Set(now),
        updated_at: Set(now),
        archived_at: Set(None),
    }
    .insert(&txn)
    .await?;
    revision(&txn, &id, 1, &cfg, &actor.person_id, now).await?;
    let detail = json!({"type": kind.as_str()});
    actor
        .audit(&txn, now, "ad_slot.create", ("ad_slot", &id), detail)
        .await?;
    ctx.commit_and_announce(txn, [Change::DeliveryConfig])
        .await?;
    Ok(view(&row, &p))
}

async fn revision<C: ConnectionTrait>(
    db: &C,
    slot_id: &str,
    version: i32,
    cfg: &Config,
    actor: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), AppError> {
    ad_slot_revision::ActiveModel {
        id: Set(new_id("rev")),
        ad_slot_id: Set(slot_id.to_owned()),
        version: Set(version),
        configuration: Set(cfg.snapshot().to_string()),
        actor_account_id: Set(Some(actor.to_owned())),
        created_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(())
}

/// Merges the named sections, bumps `configurationVersion`, stores a revision and
/// recomputes the state of a non-active slot.
pub async fn patch(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
    slot_id: &str,
    input: SlotInput,
) -> Result<AdSlot, AppError> {
    let mut errs = FieldErrors::new();
    if input.slot_type.is_some() {
        errs.add("type", "cannot be changed; create a new slot instead");
    }
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let (p, s) = owned_slot(&txn, actor, placement_id, slot_id).await?;
    let mut cfg = Config::from_row(&s);
    cfg.merge(&input, &mut errs);
    errs.finish()?;
    let kind = SlotType::parse(&s.r#type).unwrap_or(SlotType::Offerwall);
    let now = ctx.now();
    let version = s.configuration_version + 1;
    let state = match s.state {
        st @ (SlotState::Active | SlotState::Disabled) => st,
        _ if readiness(&p, kind, &cfg.currency).ready => SlotState::Ready,
        _ => SlotState::Draft,
    };
    let mut am: ad_slot::ActiveModel = s.into();
    am.name = Set(cfg.name.clone());
    am.state = Set(state);
    am.currency_name = Set(cfg.currency.name.clone());
    am.currency_decimals = Set(cfg.currency.decimals);
    am.rate_numerator_minor_units = Set(cfg.currency.rate_numerator_minor_units);
    am.rate_denominator_usd_micros = Set(cfg.currency.rate_denominator_usd_micros.get());
    am.minimum_payout_minor_units = Set(cfg.currency.minimum_payout_minor_units);
    am.rounding = Set(cfg.currency.rounding.as_str().to_owned());
    am.design = Set(cfg.design.to_string());
    am.exposure = Set(cfg.exposure.to_string());
    am.policy = Set(json!(cfg.policy).to_string());
    am.offer_delivery = Set(json!(cfg.offer_delivery).to_string());
    am.configuration_version = Set(version);
    am.updated_at = Set(now);
    let row = am.update(&txn).await?;
    revision(&txn, slot_id, version, &cfg, &actor.person_id, now).await?;
    let detail = json!({"version": version});
    actor
        .audit(&txn, now, "ad_slot.update", ("ad_slot", slot_id), detail)
        .await?;
    ctx.commit_and_announce(txn, [Change::DeliveryConfig])
        .await?;
    Ok(view(&row, &p))
}

/// Moves a slot between READY, ACTIVE and DISABLED. Activation needs a ready slot on a
/// released placement; disabling stops delivery and keeps the configuration.
pub async fn set_state(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
    slot_id: &str,
    to: SlotState,
) -> Result<AdSlot, AppError> {
    let txn = crate::domain::db::begin(&ctx.db).await?;
    let (p, s) = owned_slot(&txn, actor, placement_id, slot_id).await?;
    let from = s.state;
    let kind = SlotType::parse(&s.r#type).unwrap_or(SlotType::Offerwall);
    let ready = readiness(&p, kind, &currency_of(&s));
    let allowed = match to {
        SlotState::Active => {
            matches!(from, SlotState::Ready | SlotState::Disabled) && ready.ready && p.released
        }
        SlotState::Disabled => matches!(from, SlotState::Ready | SlotState::Active),
        _ => false,
    };
    if !allowed {
        let why = if to == SlotState::Active && !p.released {
            "; the placement must be released first"
        } else {
            ""
        };
        return Err(AppError::conflict(format!(
            "a {} slot cannot become {}{why}",
            from.as_str(),
            to.as_str()
        )));
    }
    let now = ctx.now();
    let mut am: ad_slot::ActiveModel = s.into();
    am.state = Set(to);
    am.updated_at = Set(now);
    let row = am.update(&txn).await?;
    let detail = json!({"from": from.as_str(), "to": to.as_str()});
    actor
        .audit(&txn, now, "ad_slot.state", ("ad_slot", slot_id), detail)
        .await?;
    ctx.commit_and_announce(txn, [Change::DeliveryConfig])
        .await?;
    Ok(view(&row, &p))
}

/// Recomputes DRAFT/READY of a placement's non-active slots after its review decision.
pub async fn refresh_readiness<C: ConnectionTrait>(
    db: &C,
    p: &placement::Model,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<(), AppError> {
    let rows = ad_slot::Entity::find()
        .filter(ad_slot::Column::PlacementId.eq(p.id.clone()))
        .filter(ad_slot::Column::ArchivedAt.is_null())
        .filter(
            ad_slot::Column::State.is_in([SlotState::Draft.as_str(), SlotState::Ready.as_str()]),
        )
        .all(db)
        .await?;
    for s in rows {
        let kind = SlotType::parse(&s.r#type).unwrap_or(SlotType::Offerwall);
        let state = if readiness(p, kind, &currency_of(&s)).ready {
            SlotState::Ready
        } else {
            SlotState::Draft
        };
        if s.state != state {
            let mut am: ad_slot::ActiveModel = s.into();
            am.state = Set(state);
            am.updated_at = Set(now);
            am.update(db).await?;
        }
    }
    Ok(())
}

/// The console view of a slot, with readiness computed now.
pub fn view(s: &ad_slot::Model, p: &placement::Model) -> AdSlot {
    let cfg = Config::from_row(s);
    let kind = SlotType::parse(&s.r#type).unwrap_or(SlotType::Offerwall);
    AdSlot {
        ad_slot_id: s.id.clone(),
        placement_id: s.placement_id.clone(),
        name: s.name.clone(),
        slot_type: kind,
        state: s.state,
        readiness: readiness(p, kind, &cfg.currency),
        currency: cfg.currency,
        design: cfg.design,
        exposure: cfg.exposure,
        policy: cfg.policy,
        offer_delivery: cfg.offer_delivery,
        configuration_version: s.configuration_version,
        created_at: s.created_at,
        updated_at: s.updated_at,
    }
}
