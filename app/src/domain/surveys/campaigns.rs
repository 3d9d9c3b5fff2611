//! Survey campaigns of the signed survey API. A created campaign is a DRAFT: creation does
//! not fund, approve or launch it. Paying (wallet allocation or an administrator-recorded
//! external payment) and administrator approval make it LIVE.

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, IntoActiveModel, QueryFilter,
    QueryOrder, QuerySelect, Set,
};

use super::cost;
use crate::domain::changes::Change;
use crate::domain::{Ctx, Principal, audit, db, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::money::format_micros;
use crate::model::survey::campaign::*;
use entity::survey_campaign as survey;

/// Subject type of survey campaign audit records.
pub const SUBJECT: &str = "survey_campaign";
/// The macro both survey links must carry.
pub const TRANSACTION_MACRO: &str = "{transaction_id}";
const DEVICES: [&str; 3] = ["desktop", "mobile", "tablet"];

fn link(raw: &str) -> Result<String, String> {
    let s = raw.trim();
    if !s.contains(TRANSACTION_MACRO) {
        return Err(format!("must contain the {TRANSACTION_MACRO} macro"));
    }
    let u = url::Url::parse(&s.replace(TRANSACTION_MACRO, "t"))
        .map_err(|_| "must be an absolute URL".to_owned())?;
    if u.scheme() != "https" || u.host_str().is_none() {
        return Err("must be an https URL".to_owned());
    }
    Ok(s.to_owned())
}

fn status_of(m: &survey::Model) -> SurveyStatus {
    SurveyStatus::parse(&m.status).unwrap_or(SurveyStatus::Draft)
}

fn payment_of(m: &survey::Model) -> PaymentStatus {
    PaymentStatus::parse(&m.payment_status).unwrap_or(PaymentStatus::Unpaid)
}

#[derive(serde::Serialize, serde::Deserialize, Default)]
struct Metadata {
    research_category: Option<String>,
    research_industry: Option<String>,
    campaign_manager: Option<String>,
    #[serde(default)]
    tags: Vec<String>,
}

/// Where the test link sends testers back to (opaque to advertisers).
pub fn test_redirect_url(ctx: &Ctx, id: &str) -> String {
    format!(
        "{}/api/v1/campaigns/{id}/test-redirect?transaction_id={TRANSACTION_MACRO}",
        ctx.config.base_url
    )
}

/// The survey API views of campaigns, their quota totals read in one query.
pub async fn views<C: ConnectionTrait>(
    ctx: &Ctx,
    db: &C,
    rows: &[survey::Model],
) -> Result<Vec<SurveyCampaign>, AppError> {
    let ids: Vec<String> = rows.iter().map(|m| m.id.clone()).collect();
    let totals = cost::quota_totals(db, &ids).await?;
    Ok(rows
        .iter()
        .map(|m| view(ctx, m, totals.get(&m.id).copied().unwrap_or(0)))
        .collect())
}

/// The survey API view of one campaign.
pub async fn view_of<C: ConnectionTrait>(
    ctx: &Ctx,
    db: &C,
    m: &survey::Model,
) -> Result<SurveyCampaign, AppError> {
    Ok(view(ctx, m, cost::quota_total(db, &m.id).await?))
}

fn view(ctx: &Ctx, m: &survey::Model, quota_total: i64) -> SurveyCampaign {
    let meta: Metadata = serde_json::from_str(&m.metadata).unwrap_or_default();
    let cost = cost::estimated_cost(m, quota_total);
    SurveyCampaign {
        _id: m.id.clone(),
        advertiser_id: m.advertiser_id.clone(),
        name: m.name.clone(),
        status: status_of(m),
        payment_status: payment_of(m),
        country_language_id: m.country_language_id.clone(),
        cpi_micros: m.cpi_micros,
        cpi: m.cpi_micros.map(format_micros),
        length_of_interview: m.loi_hundredths.map(Hundredths),
        conversion: m.conversion_hundredths.map(Hundredths),
        start_date: m.start_date,
        end_date: m.end_date,
        survey_live_link: m.survey_live_link.clone(),
        survey_test_link: m.survey_test_link.clone(),
        max_daily_completes: m.max_daily_completes,
        total_completes: m.total_completes,
        planned_completes: cost::planned_completes(m, quota_total),
        revision: m.revision,
        estimated_cost_micros: cost,
        estimated_cost: format_micros(cost),
        supported_devices: serde_json::from_str(&m.supported_devices).unwrap_or_default(),
        research_category: meta.research_category,
        research_industry: meta.research_industry,
        campaign_manager: meta.campaign_manager,
        tags: meta.tags,
        test_redirect_url: test_redirect_url(ctx, &m.id),
        created_at: m.created_at,
        updated_at: m.updated_at,
    }
}

/// Validates `input` over `a` (a new or existing row); `creating` makes the base fields required.
fn apply(
    a: &mut survey::ActiveModel,
    input: &SurveyCampaignInput,
    creating: bool,
) -> Result<(), AppError> {
    let mut errs = FieldErrors::new();
    let required = |errs: &mut FieldErrors, f: &str, present: bool| {
        if creating && !present {
            errs.add(f, "is required");
        }
    };
    required(&mut errs, "name", input.name.is_some());
    required(
        &mut errs,
        "country_language_id",
        input.country_language_id.is_some(),
    );
    required(
        &mut errs,
        "survey_live_link",
        input.survey_live_link.is_some(),
    );
    required(
        &mut errs,
        "survey_test_link",
        input.survey_test_link.is_some(),
    );
    if let Some(n) = &input.name {
        let n = n.trim();
        if n.chars().count() < 4 || n.chars().count() > 200 {
            errs.add("name", "must be 4-200 characters");
        } else if n.chars().any(char::is_control) {
            errs.add("name", "must not contain control characters");
        }
        a.name = Set(n.to_owned());
    }
    if let Some(c) = &input.country_language_id {
        // Stored as the LANG-CC code whether the id or the code was sent.
        if let Some(l) = errs.check("country_language_id", super::reference::resolve_active(c)) {
            a.country_language_id = Set(l.code.to_owned());
        }
    }
    if let Some(cpi) = input.cpi {
        if cpi.0 <= 0 {
            errs.add("cpi", "must be positive");
        }
        a.cpi_micros = Set(Some(cpi.0));
    }
    // Whole numbers from 1 to `max`; the two numbers of the specification are hundredths.
    let mut positive =
        |f: &str, v: Option<i64>, max: i64, col: &mut sea_orm::ActiveValue<Option<i64>>| {
            if let Some(v) = v {
                if !(1..=max).contains(&v) {
                    errs.add(
                        f,
                        match f {
                            "length_of_interview" | "conversion" => {
                                format!("must be a number above 0 and at most {}", max / 100)
                            }
                            _ => format!("must be between 1 and {max}"),
                        },
                    );
                }
                *col = Set(Some(v));
            }
        };
    positive(
        "length_of_interview",
        input.length_of_interview.map(|h| h.0),
        24_000, // 240 minutes in hundredths
        &mut a.loi_hundredths,
    );
    positive(
        "conversion",
        input.conversion.map(|h| h.0),
        10_000, // 100 percent in hundredths
        &mut a.conversion_hundredths,
    );
    positive(
        "max_daily_completes",
        input.max_daily_completes,
        1_000_000,
        &mut a.max_daily_completes,
    );
    positive(
        "total_completes",
        input.total_completes,
        10_000_000,
        &mut a.total_completes,
    );
    if let Some(d) = input.start_date {
        a.start_date = Set(Some(d));
    }
    if let Some(d) = input.end_date {
        a.end_date = Set(Some(d));
    }
    if let (Some(Some(s)), Some(Some(e))) = (
        a.start_date.try_as_ref().cloned(),
        a.end_date.try_as_ref().cloned(),
    ) && e < s
    {
        errs.add("end_date", "must not be before start_date");
    }
    for (field, value, col) in [
        (
            "survey_live_link",
            &input.survey_live_link,
            &mut a.survey_live_link,
        ),
        (
            "survey_test_link",
            &input.survey_test_link,
            &mut a.survey_test_link,
        ),
    ] {
        if let Some(v) = value {
            if let Some(l) = errs.check(field, link(v)) {
                *col = Set(l);
            }
        }
    }
    if let Some(devices) = &input.supported_devices {
        let mut out: Vec<String> = Vec::new();
        for (i, d) in devices.iter().enumerate() {
            let d = d.trim().to_ascii_lowercase();
            if !DEVICES.contains(&d.as_str()) {
                errs.add(
                    &format!("supported_devices[{i}]"),
                    "must be desktop, mobile or tablet",
                );
            } else if !out.contains(&d) {
                out.push(d);
            }
        }
        a.supported_devices = Set(serde_json::to_string(&out).unwrap_or_else(|_| "[]".into()));
    }
    let mut meta: Metadata = match &a.metadata {
        sea_orm::ActiveValue::Set(s) | sea_orm::ActiveValue::Unchanged(s) => {
            serde_json::from_str(s).unwrap_or_default()
        }
        sea_orm::ActiveValue::NotSet => Metadata::default(),
    };
    let text = |v: &Option<String>| {
        v.as_ref()
            .map(|s| s.trim().chars().take(200).collect::<String>())
    };
    if input.research_category.is_some() {
        meta.research_category = text(&input.research_category);
    }
    if input.research_industry.is_some() {
        meta.research_industry = text(&input.research_industry);
    }
    if input.campaign_manager.is_some() {
        meta.campaign_manager = text(&input.campaign_manager);
    }
    if let Some(tags) = &input.tags {
        meta.tags = tags
            .iter()
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .take(50)
            .collect();
    }
    a.metadata = Set(serde_json::to_string(&meta).unwrap_or_else(|_| "{}".into()));
    errs.finish()
}

/// `POST /create`: a DRAFT campaign of the calling advertiser.
pub async fn create(
    ctx: &Ctx,
    actor: &Principal,
    input: SurveyCampaignInput,
) -> Result<SurveyCreated, AppError> {
    actor.require_approved_advertiser()?;
    let now = ctx.now();
    let id = new_id("svc");
    let mut a = survey::ActiveModel {
        id: Set(id.clone()),
        advertiser_id: Set(actor.account_id.clone()),
        status: Set(SurveyStatus::Draft.as_str().to_owned()),
        payment_status: Set(PaymentStatus::Unpaid.as_str().to_owned()),
        cpi_micros: Set(None),
        loi_hundredths: Set(None),
        closed_at: Set(None),
        conversion_hundredths: Set(None),
        start_date: Set(None),
        end_date: Set(None),
        max_daily_completes: Set(None),
        total_completes: Set(None),
        revision: Set(1),
        supported_devices: Set("[]".to_owned()),
        metadata: Set("{}".to_owned()),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    };
    apply(&mut a, &input, true)?;
    let txn = db::begin(&ctx.db).await?;
    let m = a.insert(&txn).await?;
    audit::record(
        &txn,
        now,
        Some(&actor.account_id),
        "survey_campaign.created",
        (SUBJECT, &id),
        serde_json::json!({"name": m.name}),
    )
    .await?;
    ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    Ok(SurveyCreated {
        message: "Campaign created as a draft".to_owned(),
        campaign: CampaignRef {
            _id: m.id.clone(),
            name: m.name.clone(),
        },
        creator: CreatorRef {
            _id: actor.account_id.clone(),
            test_redirect_url: test_redirect_url(ctx, &m.id),
        },
    })
}

/// A campaign the actor owns (administrators: any); others are "not found".
pub async fn owned<C: ConnectionTrait>(
    db: &C,
    actor: &Principal,
    id: &str,
) -> Result<survey::Model, AppError> {
    actor.require_approved_advertiser()?;
    let m = survey::Entity::find_by_id(id.to_owned())
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("survey campaign"))?;
    actor.require_owner(&m.advertiser_id, "survey campaign")?;
    Ok(m)
}

/// [`owned`] for a write: the row stays locked until `txn` ends (PostgreSQL; SQLite writers
/// are serialised anyway), so two payments, two status changes or a payment and an edit of
/// one campaign run one after the other.
pub async fn locked(
    txn: &sea_orm::DatabaseTransaction,
    actor: &Principal,
    id: &str,
) -> Result<survey::Model, AppError> {
    actor.require_approved_advertiser()?;
    let m = survey::Entity::find_by_id(id.to_owned())
        .lock_exclusive()
        .one(txn)
        .await?
        .ok_or_else(|| AppError::not_found("survey campaign"))?;
    actor.require_owner(&m.advertiser_id, "survey campaign")?;
    Ok(m)
}

/// `GET /getcampaigns`: the caller's campaigns, newest first (up to 500).
pub async fn list(ctx: &Ctx, actor: &Principal) -> Result<SurveyCampaignList, AppError> {
    actor.require_approved_advertiser()?;
    let rows = survey::Entity::find()
        .filter(survey::Column::AdvertiserId.eq(actor.account_id.clone()))
        .order_by_desc(survey::Column::CreatedAt)
        .order_by_desc(survey::Column::Id)
        .limit(500)
        .all(&ctx.db)
        .await?;
    let campaigns = views(ctx, &ctx.db, &rows).await?;
    Ok(SurveyCampaignList {
        count: campaigns.len(),
        campaigns,
    })
}

/// `GET /{campaignId}`.
pub async fn get(ctx: &Ctx, actor: &Principal, id: &str) -> Result<SurveyCampaign, AppError> {
    view_of(ctx, &ctx.db, &owned(&ctx.db, actor, id).await?).await
}

/// Status moves an advertiser may make through `PUT` (`status`).
fn advertiser_move(from: SurveyStatus, to: SurveyStatus) -> bool {
    use SurveyStatus::*;
    from == to
        || matches!(
            (from, to),
            (Draft, PendingApproval)
                | (PendingApproval, Draft)
                | (Live, Paused)
                | (Paused, Live)
                | (Live | Paused, Closed)
        )
}

/// `PUT /{campaignId}`: drafts and pending campaigns change freely (cost fields are frozen
/// once the wallet paid them); live, paused and closed ones only change status.
pub async fn update(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    input: SurveyCampaignInput,
) -> Result<SurveyCampaign, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked(&txn, actor, id).await?;
    let from = status_of(&m);
    let requested = input.status;
    let to = requested.unwrap_or(from);
    if !advertiser_move(from, to) {
        return Err(AppError::conflict(format!(
            "a {} survey campaign cannot move to {}",
            from.as_str(),
            to.as_str()
        ))
        .with_code("invalid_transition"));
    }
    let edits = SurveyCampaignInput {
        status: None,
        ..input
    };
    let edits_fields = serde_json::to_value(&edits)
        .ok()
        .and_then(|v| v.as_object().map(|o| o.values().any(|v| !v.is_null())))
        .unwrap_or(false);
    if edits_fields && !matches!(from, SurveyStatus::Draft | SurveyStatus::PendingApproval) {
        return Err(AppError::conflict(format!(
            "a {} survey campaign can only change status",
            from.as_str()
        ))
        .with_code("campaign_not_editable"));
    }
    // What was paid for stays what is delivered: the price and the number of completes are
    // fixed once money was committed (wallet reservation or an external payment).
    let cost_changes = edits.cpi.is_some_and(|c| Some(c.0) != m.cpi_micros)
        || edits
            .total_completes
            .is_some_and(|t| Some(t) != m.total_completes);
    if payment_of(&m) != PaymentStatus::Unpaid && cost_changes {
        return Err(AppError::conflict(
            "cpi and total_completes are fixed once the campaign is paid",
        )
        .with_code("campaign_not_editable"));
    }
    // An edit of a campaign awaiting approval withdraws it to DRAFT unless the same request
    // resubmits it; either way its revision moves on, so an approval that names the revision
    // the administrator reviewed cannot approve content nobody looked at.
    let to = if edits_fields && from == SurveyStatus::PendingApproval {
        requested
            .filter(|s| *s == SurveyStatus::PendingApproval)
            .unwrap_or(SurveyStatus::Draft)
    } else {
        to
    };
    let mut a = m.clone().into_active_model();
    apply(&mut a, &edits, false)?;
    if edits_fields {
        a.revision = Set(m.revision + 1);
    }
    a.status = Set(to.as_str().to_owned());
    a.updated_at = Set(now);
    let closing = to == SurveyStatus::Closed && from != SurveyStatus::Closed;
    if closing {
        a.closed_at = Set(Some(now));
    }
    let updated = a.update(&txn).await?;
    if closing {
        super::grace::hold_on_close(&txn, now, &updated).await?;
    }
    audit::record(
        &txn,
        now,
        Some(&actor.account_id),
        "survey_campaign.updated",
        (SUBJECT, &m.id),
        serde_json::json!({"from": from.as_str(), "to": to.as_str()}),
    )
    .await?;
    let out = view_of(ctx, &txn, &updated).await?;
    ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    Ok(out)
}

/// `DELETE /{campaignId}`: only unpaid drafts and pending campaigns.
pub async fn delete(ctx: &Ctx, actor: &Principal, id: &str) -> Result<SurveyMessage, AppError> {
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked(&txn, actor, id).await?;
    if !matches!(
        status_of(&m),
        SurveyStatus::Draft | SurveyStatus::PendingApproval
    ) || payment_of(&m) != PaymentStatus::Unpaid
    {
        return Err(AppError::conflict(
            "only unpaid draft or pending campaigns can be deleted; close it instead",
        )
        .with_code("campaign_not_deletable"));
    }
    survey::Entity::delete_by_id(m.id.clone())
        .exec(&txn)
        .await?;
    audit::record(
        &txn,
        now,
        Some(&actor.account_id),
        "survey_campaign.deleted",
        (SUBJECT, &m.id),
        serde_json::json!({"name": m.name}),
    )
    .await?;
    ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    Ok(SurveyMessage {
        message: "Campaign deleted".to_owned(),
    })
}

/// Administrator approval (CONTRACT section 3): a paid DRAFT or PENDINGAPPROVAL campaign goes LIVE.
/// `reviewed` is the revision the administrator looked at: a newer one is 409 `revision_changed`.
pub async fn approve(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
    reviewed: Option<i64>,
) -> Result<SurveyCampaign, AppError> {
    actor.require_admin()?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked(&txn, actor, id).await?;
    if let Some(r) = reviewed.filter(|r| *r != m.revision) {
        return Err(AppError::conflict(format!(
            "revision {r} was reviewed, but the campaign is at revision {} now; review it again",
            m.revision
        ))
        .with_code("revision_changed"));
    }
    if !matches!(
        status_of(&m),
        SurveyStatus::Draft | SurveyStatus::PendingApproval
    ) {
        return Err(AppError::conflict(format!(
            "a {} survey campaign cannot be approved",
            m.status
        ))
        .with_code("invalid_transition"));
    }
    if payment_of(&m) == PaymentStatus::Unpaid {
        return Err(AppError::conflict(
            "the campaign is not funded: allocate wallet balance or record an external payment",
        )
        .with_code("campaign_not_funded"));
    }
    let mut a = m.clone().into_active_model();
    a.status = Set(SurveyStatus::Live.as_str().to_owned());
    a.updated_at = Set(now);
    let m = a.update(&txn).await?;
    audit::record(
        &txn,
        now,
        Some(&actor.account_id),
        "survey_campaign.approved",
        (SUBJECT, &m.id),
        serde_json::json!({"payment": m.payment_status, "revision": m.revision}),
    )
    .await?;
    let out = view_of(ctx, &txn, &m).await?;
    ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    Ok(out)
}

/// Administrator: the campaign was paid outside the wallet (an invoice, a contract), so the
/// wallet never charges it.
pub async fn record_external_payment(
    ctx: &Ctx,
    actor: &Principal,
    id: &str,
) -> Result<SurveyCampaign, AppError> {
    actor.require_admin()?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let m = locked(&txn, actor, id).await?;
    match payment_of(&m) {
        PaymentStatus::External => {
            let out = view_of(ctx, &txn, &m).await?;
            ctx.commit_and_announce(txn, [Change::Surveys]).await?;
            return Ok(out);
        }
        PaymentStatus::Wallet => {
            return Err(AppError::conflict("the wallet already paid this campaign")
                .with_code("already_paid"));
        }
        PaymentStatus::Unpaid => {}
    }
    let mut a = m.clone().into_active_model();
    a.payment_status = Set(PaymentStatus::External.as_str().to_owned());
    a.updated_at = Set(now);
    let m = a.update(&txn).await?;
    audit::record(
        &txn,
        now,
        Some(&actor.account_id),
        "survey_campaign.paid_externally",
        (SUBJECT, &m.id),
        serde_json::json!({}),
    )
    .await?;
    let out = view_of(ctx, &txn, &m).await?;
    ctx.commit_and_announce(txn, [Change::Surveys]).await?;
    Ok(out)
}

/// Marks a campaign paid by the wallet (inside the allocation's transaction).
pub(crate) async fn mark_wallet_paid<C: ConnectionTrait>(
    db: &C,
    m: &survey::Model,
    now: DateTime<Utc>,
) -> Result<(), AppError> {
    use sea_orm::sea_query::Expr;
    let n = survey::Entity::update_many()
        .col_expr(
            survey::Column::PaymentStatus,
            Expr::value(PaymentStatus::Wallet.as_str()),
        )
        .col_expr(survey::Column::UpdatedAt, Expr::value(now))
        .filter(survey::Column::Id.eq(m.id.clone()))
        .filter(survey::Column::PaymentStatus.eq(PaymentStatus::Unpaid.as_str()))
        .exec(db)
        .await?
        .rows_affected;
    if n == 1 {
        Ok(())
    } else {
        Err(
            AppError::conflict("the campaign's payment changed meanwhile")
                .with_code("already_paid"),
        )
    }
}

/// Status and payment helpers for the allocation rules.
pub fn eligibility(m: &survey::Model) -> (SurveyStatus, PaymentStatus) {
    (status_of(m), payment_of(m))
}
