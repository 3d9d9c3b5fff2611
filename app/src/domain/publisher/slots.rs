//! Ad slots: creation within the placement type's matrix, readiness, merged PATCH with an
//! immutable revision per version, reward preview and SDK snippets.

use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use serde_json::{Value, json};

use super::{owned_placement, owned_slot};
use crate::domain::changes::Change;
use crate::domain::{Ctx, Principal, audit, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::publisher::rules::{convert, format_minor};
use crate::model::publisher::*;
use crate::model::validate;
use entity::{ad_slot, ad_slot_revision, placement};

/// Largest accepted `design` or `exposure` object, serialised.
const MAX_SECTION_BYTES: usize = 16 * 1024;
/// Longest accepted policy list.
const MAX_POLICY_ENTRIES: usize = 500;

/// The slot configuration being built from defaults, the stored row and the input.
struct Config {
    name: String,
    currency: Currency,
    design: Value,
    exposure: Value,
    policy: Policy,
    offer_delivery: OfferDelivery,
}

impl Config {
    fn defaults(name: String) -> Self {
        Config {
            name,
            currency: Currency {
                name: "Points".to_owned(),
                decimals: 0,
                rate_numerator_minor_units: 0,
                rate_denominator_usd_micros: 1_000_000,
                minimum_payout_minor_units: 0,
                rounding: Rounding::Down,
            },
            design: json!({}),
            exposure: json!({}),
            policy: Policy::default(),
            offer_delivery: OfferDelivery {
                sort: OfferSort::Payout,
                minimum_payout_micros: 0,
            },
        }
    }

    fn from_row(s: &ad_slot::Model) -> Self {
        Config {
            name: s.name.clone(),
            currency: currency_of(s),
            design: serde_json::from_str(&s.design).unwrap_or_else(|_| json!({})),
            exposure: serde_json::from_str(&s.exposure).unwrap_or_else(|_| json!({})),
            policy: serde_json::from_str(&s.policy).unwrap_or_default(),
            offer_delivery: serde_json::from_str(&s.offer_delivery).unwrap_or(OfferDelivery {
                sort: OfferSort::Payout,
                minimum_payout_micros: 0,
            }),
        }
    }

    /// Merges the named sections of `input` (fields inside a section too), collecting errors.
    fn merge(&mut self, input: &SlotInput, errs: &mut FieldErrors) {
        if let Some(n) = &input.name {
            if let Some(n) = errs.check("name", validate::display_name(n, 80)) {
                self.name = n;
            }
        }
        if let Some(c) = &input.currency {
            let cur = &mut self.currency;
            if let Some(n) = &c.name {
                if let Some(n) = errs.check("currency.name", validate::display_name(n, 32)) {
                    cur.name = n;
                }
            }
            if let Some(d) = c.decimals {
                if (0..=8).contains(&d) {
                    cur.decimals = d
                } else {
                    errs.add("currency.decimals", "must be between 0 and 8")
                }
            }
            if let Some(v) = c.rate_numerator_minor_units {
                if (0..=1_000_000_000_000).contains(&v) {
                    cur.rate_numerator_minor_units = v
                } else {
                    errs.add(
                        "currency.rateNumeratorMinorUnits",
                        "must be between 0 and 10^12",
                    )
                }
            }
            if let Some(v) = c.rate_denominator_usd_micros {
                if (1..=1_000_000_000_000).contains(&v) {
                    cur.rate_denominator_usd_micros = v
                } else {
                    errs.add(
                        "currency.rateDenominatorUsdMicros",
                        "must be between 1 and 10^12",
                    )
                }
            }
            if let Some(v) = c.minimum_payout_minor_units {
                if v >= 0 {
                    cur.minimum_payout_minor_units = v
                } else {
                    errs.add("currency.minimumPayoutMinorUnits", "must not be negative")
                }
            }
            if let Some(r) = c.rounding {
                cur.rounding = r;
            }
            // At most 1,000 minor units per USD micro (10^9 per USD): any payout then
            // converts without overflow, so settlement never fails on the rate.
            if i128::from(cur.rate_numerator_minor_units)
                > i128::from(cur.rate_denominator_usd_micros) * 1_000
            {
                errs.add(
                    "currency.rateNumeratorMinorUnits",
                    "must be at most 1,000 minor units per USD micro (10^9 per USD)",
                );
            }
        }
        for (field, value, slot) in [
            ("design", &input.design, &mut self.design),
            ("exposure", &input.exposure, &mut self.exposure),
        ] {
            if let Some(v) = value {
                match v {
                    Value::Object(incoming) if v.to_string().len() <= MAX_SECTION_BYTES => {
                        if let Value::Object(current) = slot {
                            for (k, val) in incoming {
                                current.insert(k.clone(), val.clone());
                            }
                        } else {
                            *slot = v.clone();
                        }
                    }
                    Value::Object(_) => errs.add(field, "must be at most 16 KiB"),
                    _ => errs.add(field, "must be an object"),
                }
            }
        }
        // The keys the hosted offerwall reads must be usable (model::wall_design).
        if input.design.is_some() {
            for (f, why) in crate::model::wall_design::WallDesign::check(&self.design) {
                errs.add(&f, why);
            }
        }
        if input.exposure.is_some() {
            for (f, why) in crate::model::wall_design::WallExposure::check(&self.exposure) {
                errs.add(&f, why);
            }
        }
        if let Some(p) = &input.policy {
            let pol = &mut self.policy;
            for (field, list, target) in [
                (
                    "policy.allowedCountries",
                    &p.allowed_countries,
                    &mut pol.allowed_countries,
                ),
                (
                    "policy.blockedCountries",
                    &p.blocked_countries,
                    &mut pol.blocked_countries,
                ),
            ] {
                if let Some(list) = list {
                    match countries(list) {
                        Ok(v) => *target = v,
                        Err(e) => errs.add(field, e),
                    }
                }
            }
            for (field, list, target) in [
                (
                    "policy.blockedCampaignIds",
                    &p.blocked_campaign_ids,
                    &mut pol.blocked_campaign_ids,
                ),
                (
                    "policy.excludedCampaignTaskTypes",
                    &p.excluded_campaign_task_types,
                    &mut pol.excluded_campaign_task_types,
                ),
                (
                    "policy.excludedCampaignCategories",
                    &p.excluded_campaign_categories,
                    &mut pol.excluded_campaign_categories,
                ),
            ] {
                if let Some(list) = list {
                    match strings(list) {
                        Ok(v) => *target = v,
                        Err(e) => errs.add(field, e),
                    }
                }
            }
        }
        if let Some(o) = &input.offer_delivery {
            if let Some(s) = o.sort {
                self.offer_delivery.sort = s;
            }
            if let Some(m) = o.minimum_payout_micros {
                if m >= 0 {
                    self.offer_delivery.minimum_payout_micros = m
                } else {
                    errs.add("offerDelivery.minimumPayoutMicros", "must not be negative")
                }
            }
        }
    }

    fn snapshot(&self) -> Value {
        json!({
            "name": self.name, "currency": self.currency, "design": self.design, "exposure": self.exposure,
            "policy": self.policy, "offerDelivery": self.offer_delivery,
        })
    }
}

fn countries(list: &[String]) -> Result<Vec<String>, String> {
    if list.len() > MAX_POLICY_ENTRIES {
        return Err(format!("at most {MAX_POLICY_ENTRIES} entries"));
    }
    let mut out: Vec<String> = Vec::new();
    for c in list {
        let up = c.trim().to_ascii_uppercase();
        if up.len() != 2 || !up.chars().all(|ch| ch.is_ascii_uppercase()) {
            return Err(format!("`{c}` is not a two-letter country code"));
        }
        if !out.contains(&up) {
            out.push(up);
        }
    }
    Ok(out)
}

fn strings(list: &[String]) -> Result<Vec<String>, String> {
    if list.len() > MAX_POLICY_ENTRIES {
        return Err(format!("at most {MAX_POLICY_ENTRIES} entries"));
    }
    let mut out: Vec<String> = Vec::new();
    for s in list {
        let t = s.trim();
        if t.is_empty() || t.len() > 64 {
            return Err("entries must be 1 to 64 characters".to_owned());
        }
        if !out.iter().any(|o| o == t) {
            out.push(t.to_owned());
        }
    }
    Ok(out)
}

/// Why a slot of `kind` on placement `p` with `currency` cannot deliver (empty: ready).
fn readiness(p: &placement::Model, kind: SlotType, currency: &Currency) -> Readiness {
    let mut reasons = Vec::new();
    if p.status != PlacementStatus::Verified.as_str() {
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
        }
        .as_str()
        .to_owned()),
        currency_name: Set(cfg.currency.name.clone()),
        currency_decimals: Set(cfg.currency.decimals),
        rate_numerator_minor_units: Set(cfg.currency.rate_numerator_minor_units),
        rate_denominator_usd_micros: Set(cfg.currency.rate_denominator_usd_micros),
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
    revision(&txn, &id, 1, &cfg, &actor.account_id, now).await?;
    audit::record(
        &txn,
        now,
        Some(&actor.account_id),
        "ad_slot.create",
        ("ad_slot", &id),
        json!({"type": kind.as_str()}),
    )
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
    let state = match SlotState::parse(&s.state) {
        Some(st @ (SlotState::Active | SlotState::Disabled)) => st,
        _ if readiness(&p, kind, &cfg.currency).ready => SlotState::Ready,
        _ => SlotState::Draft,
    };
    let mut am: ad_slot::ActiveModel = s.into();
    am.name = Set(cfg.name.clone());
    am.state = Set(state.as_str().to_owned());
    am.currency_name = Set(cfg.currency.name.clone());
    am.currency_decimals = Set(cfg.currency.decimals);
    am.rate_numerator_minor_units = Set(cfg.currency.rate_numerator_minor_units);
    am.rate_denominator_usd_micros = Set(cfg.currency.rate_denominator_usd_micros);
    am.minimum_payout_minor_units = Set(cfg.currency.minimum_payout_minor_units);
    am.rounding = Set(cfg.currency.rounding.as_str().to_owned());
    am.design = Set(cfg.design.to_string());
    am.exposure = Set(cfg.exposure.to_string());
    am.policy = Set(json!(cfg.policy).to_string());
    am.offer_delivery = Set(json!(cfg.offer_delivery).to_string());
    am.configuration_version = Set(version);
    am.updated_at = Set(now);
    let row = am.update(&txn).await?;
    revision(&txn, slot_id, version, &cfg, &actor.account_id, now).await?;
    audit::record(
        &txn,
        now,
        Some(&actor.account_id),
        "ad_slot.update",
        ("ad_slot", slot_id),
        json!({"version": version}),
    )
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
    let from = SlotState::parse(&s.state).unwrap_or(SlotState::Draft);
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
    am.state = Set(to.as_str().to_owned());
    am.updated_at = Set(now);
    let row = am.update(&txn).await?;
    audit::record(
        &txn,
        now,
        Some(&actor.account_id),
        "ad_slot.state",
        ("ad_slot", slot_id),
        json!({"from": from.as_str(), "to": to.as_str()}),
    )
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
        if s.state != state.as_str() {
            let mut am: ad_slot::ActiveModel = s.into();
            am.state = Set(state.as_str().to_owned());
            am.updated_at = Set(now);
            am.update(db).await?;
        }
    }
    Ok(())
}

/// Converts an amount with the slot's currency.
pub async fn reward_preview(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
    slot_id: &str,
    usd_micros: i64,
) -> Result<RewardPreview, AppError> {
    if usd_micros < 0 {
        return Err(AppError::field("usdMicros", "must not be negative"));
    }
    let (_, s) = owned_slot(&ctx.db, actor, placement_id, slot_id).await?;
    preview(&currency_of(&s), usd_micros)
}

/// The conversion itself (also used by delivery to price offers).
pub fn preview(c: &Currency, usd_micros: i64) -> Result<RewardPreview, AppError> {
    let minor = convert(
        usd_micros,
        c.rate_numerator_minor_units,
        c.rate_denominator_usd_micros,
        c.rounding,
    )
    .ok_or_else(|| AppError::field("usdMicros", "is too large to convert"))?;
    Ok(RewardPreview {
        usd_micros,
        minor_units: minor,
        currency: c.name.clone(),
        decimals: c.decimals,
        display: format_minor(minor, c.decimals),
        meets_minimum_payout: minor >= c.minimum_payout_minor_units,
    })
}

/// Credential-free integration snippets: the web SDK for web pages; for Android and iOS,
/// which have no native SDK yet, the REST integration (server-side session, offer list,
/// impression, launch) in the platform's own language.
pub async fn snippets(
    ctx: &Ctx,
    actor: &Principal,
    placement_id: &str,
    slot_id: &str,
) -> Result<Snippets, AppError> {
    let (p, s) = owned_slot(&ctx.db, actor, placement_id, slot_id).await?;
    let base = &ctx.config.base_url;
    let (pid, sid) = (&p.id, &s.id);
    let (version, identity) = (&p.minimum_sdk_version, &p.platform_identity);
    Ok(Snippets {
        placement_id: pid.clone(),
        ad_slot_id: sid.clone(),
        android: format!(
            "// There is no native Android SDK yet: integrate over REST ({base}/docs, tag \"sdk\").\n\
// 1. YOUR SERVER creates a session for the signed-in user (no credential ships in the app):\n\
//    POST {base}/sdk/v2/sessions  Content-Type: application/json\n\
//    {{\"placementId\": \"{pid}\", \"adSlotId\": \"{sid}\", \"externalUserId\": \"<your user id>\",\n\
//     \"platform\": \"android\", \"sdkVersion\": \"{version}\", \"packageBundleOrDomain\": \"{identity}\",\n\
//     \"environment\": \"production\", \"consent\": \"GRANTED\"}}\n\
//    -> {{\"token\", \"hostedOfferwallUrl\", \"expiresAt\"}} (15 minutes); hand the app token and URL.\n\
// 2. Simplest: open hostedOfferwallUrl in a Custom Tab or WebView. Or build a native list:\n\
fun offers(token: String): String {{\n\
    val c = java.net.URL(\"{base}/sdk/v2/ad-slots/{sid}/offers\").openConnection() as java.net.HttpURLConnection\n\
    c.setRequestProperty(\"Authorization\", \"Bearer $token\")\n\
    return c.inputStream.bufferedReader().use {{ it.readText() }} // {{\"items\": [offer, ...]}}\n\
}}\n\
// 3. When the user taps an offer (show its requirements first), with the same bearer token:\n\
//    POST {base}/sdk/v2/offers/{{offerId}}/impressions  Idempotency-Key: <uuid>  {{}} -> {{\"impressionId\"}}\n\
//    POST {base}/sdk/v2/offers/{{offerId}}/launch  Idempotency-Key: <uuid>  {{\"impressionId\"}} -> {{\"launchUrl\"}}\n\
//    and open launchUrl in the browser (it expires after five minutes)."
        ),
        ios: format!(
            "// There is no native iOS SDK yet: integrate over REST ({base}/docs, tag \"sdk\").\n\
// 1. YOUR SERVER creates a session for the signed-in user (no credential ships in the app):\n\
//    POST {base}/sdk/v2/sessions  Content-Type: application/json\n\
//    {{\"placementId\": \"{pid}\", \"adSlotId\": \"{sid}\", \"externalUserId\": \"<your user id>\",\n\
//     \"platform\": \"ios\", \"sdkVersion\": \"{version}\", \"packageBundleOrDomain\": \"{identity}\",\n\
//     \"environment\": \"production\", \"consent\": \"GRANTED\"}}\n\
//    -> {{\"token\", \"hostedOfferwallUrl\", \"expiresAt\"}} (15 minutes); hand the app token and URL.\n\
// 2. Simplest: open hostedOfferwallUrl in SFSafariViewController. Or build a native list:\n\
func offers(token: String) async throws -> Data {{\n\
    var req = URLRequest(url: URL(string: \"{base}/sdk/v2/ad-slots/{sid}/offers\")!)\n\
    req.setValue(\"Bearer \\(token)\", forHTTPHeaderField: \"Authorization\")\n\
    return try await URLSession.shared.data(for: req).0 // {{\"items\": [offer, ...]}}\n\
}}\n\
// 3. When the user taps an offer (show its requirements first), with the same bearer token:\n\
//    POST {base}/sdk/v2/offers/{{offerId}}/impressions  Idempotency-Key: <uuid>  {{}} -> {{\"impressionId\"}}\n\
//    POST {base}/sdk/v2/offers/{{offerId}}/launch  Idempotency-Key: <uuid>  {{\"impressionId\"}} -> {{\"launchUrl\"}}\n\
//    and open launchUrl with UIApplication.shared.open (it expires after five minutes)."
        ),
        web: format!(
            "<!-- Your backend creates the session for the signed-in user (POST {base}/sdk/v2/sessions,\n     platform \"web\", packageBundleOrDomain = your hostname) and gives this page its\n     hostedOfferwallUrl. Keep that URL out of logs: it carries the session token. -->\n<div id=\"offerwall\" style=\"height:640px\"></div>\n<script type=\"module\">\n  import {{ MarketplaceOffers }} from \"{base}/sdk/v2/offers.js\";\n  const session = await (await fetch(\"/your-backend/offerwall-session\")).json();\n  const wall = MarketplaceOffers.fromSession(session); // placement {pid}, slot {sid}\n  wall.on(\"reward-status\", (s) => console.log(\"earned\", s.earnedMinorUnits));\n  wall.on(\"close\", () => wall.close());\n  wall.mount(document.getElementById(\"offerwall\")); // or wall.open() for an overlay\n</script>"
        ),
        contains_credential: false,
    })
}

/// The currency of a stored slot.
pub fn currency_of(s: &ad_slot::Model) -> Currency {
    Currency {
        name: s.currency_name.clone(),
        decimals: s.currency_decimals,
        rate_numerator_minor_units: s.rate_numerator_minor_units,
        rate_denominator_usd_micros: s.rate_denominator_usd_micros,
        minimum_payout_minor_units: s.minimum_payout_minor_units,
        rounding: Rounding::parse(&s.rounding).unwrap_or(Rounding::Down),
    }
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
        state: SlotState::parse(&s.state).unwrap_or(SlotState::Draft),
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
