//! Finding and copying survey campaigns: `searchcampaigns` (filters combine with AND, newest
//! first, cursor paged) and `clonecampaigns` (a new DRAFT with the same settings, quotas,
//! qualifications and custom questions; never its payment, status or completes).

use chrono::{NaiveTime, TimeZone, Utc};
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};

use super::campaigns::{SUBJECT, owned, views};
use super::{questions, quotas, reference};
use crate::domain::paging::Page;
use crate::domain::{Ctx, Principal, db, ids::new_id};
use crate::error::{AppError, FieldErrors};
use crate::model::survey::campaign::*;
use crate::model::survey::targeting::*;
use crate::model::validate;
use entity::{survey_campaign as survey, survey_quota as quota};

/// `POST /searchcampaigns`.
pub async fn search(
    ctx: &Ctx,
    actor: &Principal,
    q: SurveySearch,
) -> Result<SurveySearchPage, AppError> {
    actor.require_approved_advertiser()?;
    let page = Page::parse(
        Some(q.limit.unwrap_or(50)),
        q.cursor.as_deref(),
        super::campaigns::ID_PREFIX,
    )?;
    let mut errs = FieldErrors::new();
    let locale = q
        .country_language_id
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .and_then(|s| errs.check("country_language_id", reference::resolve_active(s)));
    if let (Some(f), Some(t)) = (q.created_from, q.created_to)
        && t < f
    {
        errs.add("created_to", "must not be before created_from");
    }
    if let Some(n) = q.name.as_deref().filter(|n| !n.trim().is_empty()) {
        errs.check("name", validate::display_name(n, 200));
    }
    errs.finish()?;
    let mut s =
        survey::Entity::find().filter(survey::Column::AdvertiserId.eq(actor.account_id.clone()));
    if let Some(st) = q.status.as_ref().filter(|v| !v.is_empty()) {
        s = s.filter(survey::Column::Status.is_in(st.iter().map(|x| x.as_str())));
    }
    if let Some(n) = q.name.as_deref().map(str::trim).filter(|n| !n.is_empty()) {
        // Wildcards in the search text are literal characters; case is ignored in every
        // script, on SQLite too.
        s = s.filter(crate::domain::sql::contains_ignoring_case(
            ctx.db.get_database_backend(),
            survey::Column::Name,
            n,
        ));
    }
    if let Some(l) = locale {
        s = s.filter(survey::Column::CountryLanguageId.eq(l.code));
    }
    if let Some(f) = q.created_from {
        s = s.filter(
            survey::Column::CreatedAt.gte(Utc.from_utc_datetime(&f.and_time(NaiveTime::MIN))),
        );
    }
    if let Some(t) = q.created_to.and_then(|t| t.succ_opt()) {
        s = s.filter(
            survey::Column::CreatedAt.lt(Utc.from_utc_datetime(&t.and_time(NaiveTime::MIN))),
        );
    }
    let rows = page.select(s, survey::Column::Id).all(&ctx.db).await?;
    let (rows, next_cursor) = page.finish(rows, |m| &m.id);
    let campaigns = views(ctx, &ctx.db, &rows).await?;
    Ok(SurveySearchPage {
        count: campaigns.len(),
        campaigns,
        next_cursor,
    })
}

/// `POST /clonecampaigns` `{campaignId, name?}` → 201 like `create`.
pub async fn clone(
    ctx: &Ctx,
    actor: &Principal,
    input: SurveyCloneInput,
) -> Result<SurveyCreated, AppError> {
    let Some(source_id) = input.campaign_id.filter(|s| !s.is_empty()) else {
        return Err(AppError::field("campaignId", "is required"));
    };
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    let src = owned(&txn, actor, &source_id).await?;
    let name = match input.name.map(|n| n.trim().to_owned()) {
        Some(n) if (4..=200).contains(&n.chars().count()) && !n.chars().any(char::is_control) => n,
        Some(_) => {
            return Err(AppError::field(
                "name",
                "must be 4-200 characters without control characters",
            ));
        }
        None => format!("Copy of {}", src.name).chars().take(200).collect(),
    };
    // A copy of a campaign whose locale was retired must pick an active one first, but it
    // can still be made (as a draft it cannot be approved until it does).
    let id = new_id(super::campaigns::ID_PREFIX);
    let row = survey::ActiveModel {
        id: Set(id.clone()),
        advertiser_id: Set(src.advertiser_id.clone()),
        name: Set(name),
        status: Set(SurveyStatus::Draft),
        payment_status: Set(PaymentStatus::Unpaid),
        country_language_id: Set(src.country_language_id.clone()),
        cpi_micros: Set(src.cpi_micros),
        loi_hundredths: Set(src.loi_hundredths),
        conversion_hundredths: Set(src.conversion_hundredths),
        start_date: Set(src.start_date),
        end_date: Set(src.end_date),
        survey_live_link: Set(src.survey_live_link.clone()),
        survey_test_link: Set(src.survey_test_link.clone()),
        max_daily_completes: Set(src.max_daily_completes),
        total_completes: Set(src.total_completes),
        supported_devices: Set(src.supported_devices.clone()),
        metadata: Set(src.metadata.clone()),
        revision: Set(1),
        closed_at: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await?;
    for q in quota::Entity::find()
        .filter(quota::Column::CampaignId.eq(src.id.clone()))
        .all(&txn)
        .await?
    {
        let name = q.name.clone();
        quotas::copy_quota(&txn, now, &q, &id, name).await?;
    }
    questions::copy_all(&txn, now, &src.id, &id).await?;
    let detail = serde_json::json!({"from": src.id});
    actor
        .audit(&txn, now, "survey_campaign.cloned", (SUBJECT, &id), detail)
        .await?;
    txn.commit().await?;
    Ok(SurveyCreated {
        message: "Campaign cloned as a draft".to_owned(),
        campaign: CampaignRef {
            _id: row.id.clone(),
            name: row.name.clone(),
        },
        creator: CreatorRef {
            _id: actor.account_id.clone(),
            test_redirect_url: super::campaigns::test_redirect_url(ctx, &row.id),
        },
    })
}
