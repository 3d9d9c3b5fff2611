//! A member's side of notices (issue 54, part 6): reading the organisation's notices that
//! they show on the dashboard, marking them seen, and choosing per topic what they get by
//! e-mail and on the dashboard. Writing notices is the foundation room `notices`.

use std::collections::HashMap;

use sea_orm::sea_query::OnConflict;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, QuerySelect, Set};

use crate::domain::notices::MAX_BUDGET_ALERT_PERCENT;
use crate::domain::paging::Page;
use crate::domain::{Ctx, Principal, db};
use crate::error::AppError;
use crate::model::Role;
use crate::model::api_key::KeyArea;
use crate::model::notice::*;
use entity::{account, notice, notice_preference};

/// The topics of this organisation's side (administrators see every topic).
pub fn topics_of(role: Role) -> Vec<NoticeTopic> {
    NoticeTopic::ALL
        .iter()
        .copied()
        .filter(|t| match role {
            Role::Advertiser => t.for_advertisers(),
            Role::Publisher => t.for_publishers(),
            Role::Admin | Role::Superadmin => true,
        })
        .collect()
}

/// This person's choice for every topic of their side.
async fn choices(ctx: &Ctx, p: &Principal) -> Result<Vec<NoticePreference>, AppError> {
    let chosen: HashMap<NoticeTopic, notice_preference::Model> = notice_preference::Entity::find()
        .filter(notice_preference::Column::AccountId.eq(p.person_id.clone()))
        .all(&ctx.db)
        .await?
        .into_iter()
        .filter_map(|m| Some((NoticeTopic::parse(&m.topic)?, m)))
        .collect();
    Ok(topics_of(p.role)
        .into_iter()
        .map(|topic| match chosen.get(&topic) {
            Some(m) => NoticePreference {
                topic,
                email: m.email,
                dashboard: m.dashboard,
            },
            None => NoticePreference {
                topic,
                email: topic.mailed_by_default(p.team_role),
                dashboard: true,
            },
        })
        .collect())
}

/// The preferences page: this person's choices and, for advertisers, the alert share.
pub async fn preferences(ctx: &Ctx, p: &Principal) -> Result<NoticePreferences, AppError> {
    let budget_alert_percent = if p.role == Role::Advertiser {
        account::Entity::find_by_id(p.account_id.clone())
            .one(&ctx.db)
            .await?
            .map(|a| a.budget_alert_percent)
    } else {
        None
    };
    Ok(NoticePreferences {
        topics: choices(ctx, p).await?,
        budget_alert_percent,
    })
}

/// Changes the named topics' choices (and the advertiser's alert share: a billing change).
pub async fn update(
    ctx: &Ctx,
    p: &Principal,
    req: &NoticePreferencesUpdate,
) -> Result<NoticePreferences, AppError> {
    let mine = topics_of(p.role);
    if req.topics.len() > NoticeTopic::ALL.len() * 2 {
        return Err(AppError::field("topics", "names a topic at most once"));
    }
    if let Some(t) = req.topics.iter().find(|c| !mine.contains(&c.topic)) {
        return Err(AppError::field(
            "topics",
            format!("{} is not a topic of this account", t.topic),
        ));
    }
    if let Some(percent) = req.budget_alert_percent {
        if p.role != Role::Advertiser {
            return Err(AppError::field(
                "budgetAlertPercent",
                "only advertisers have campaign budgets",
            ));
        }
        if !(0..=MAX_BUDGET_ALERT_PERCENT).contains(&percent) {
            return Err(AppError::field(
                "budgetAlertPercent",
                format!("must be 0 (off) to {MAX_BUDGET_ALERT_PERCENT}"),
            ));
        }
        super::teams::require_write(p, KeyArea::Billing)?;
    }
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    for c in &req.topics {
        notice_preference::Entity::insert(notice_preference::ActiveModel {
            account_id: Set(p.person_id.clone()),
            topic: Set(c.topic.as_str().to_owned()),
            email: Set(c.email),
            dashboard: Set(c.dashboard),
            updated_at: Set(now),
        })
        .on_conflict(
            OnConflict::columns([
                notice_preference::Column::AccountId,
                notice_preference::Column::Topic,
            ])
            .update_columns([
                notice_preference::Column::Email,
                notice_preference::Column::Dashboard,
                notice_preference::Column::UpdatedAt,
            ])
            .to_owned(),
        )
        .exec_without_returning(&txn)
        .await?;
    }
    if let Some(percent) = req.budget_alert_percent {
        let org = account::Entity::find_by_id(p.account_id.clone())
            .one(&txn)
            .await?
            .ok_or_else(|| AppError::not_found("account"))?;
        let before = org.budget_alert_percent;
        let mut am: account::ActiveModel = org.into();
        am.budget_alert_percent = Set(percent);
        am.update(&txn).await?;
        let detail = serde_json::json!({"from": before, "to": percent});
        p.audit(
            &txn,
            now,
            "account.budget_alert",
            ("account", &p.account_id),
            detail,
        )
        .await?;
    }
    txn.commit().await?;
    preferences(ctx, p).await
}

/// The organisation's notices of the topics this person shows on the dashboard, newest
/// first, with how many of the newest 100 they have not seen.
pub async fn list(ctx: &Ctx, p: &Principal, page: &Page) -> Result<NoticeList, AppError> {
    let shown: Vec<NoticeTopic> = choices(ctx, p)
        .await?
        .into_iter()
        .filter(|c| c.dashboard)
        .map(|c| c.topic)
        .collect();
    if shown.is_empty() {
        return Ok(NoticeList::default());
    }
    let seen = seen_at(ctx, p).await?;
    let q = notice::Entity::find()
        .filter(notice::Column::AccountId.eq(p.account_id.clone()))
        .filter(notice::Column::Topic.is_in(shown.iter().map(|t| t.as_str())));
    let unread = match seen {
        Some(at) => q.clone().filter(notice::Column::CreatedAt.gt(at)),
        None => q.clone(),
    }
    .select_only()
    .column(notice::Column::Id)
    .limit(100)
    .into_tuple::<String>()
    .all(&ctx.db)
    .await?
    .len() as u64;
    let rows = page.select(q, notice::Column::Id).all(&ctx.db).await?;
    let (rows, next_cursor) = page.finish(rows, |n| &n.id);
    Ok(NoticeList {
        items: rows
            .into_iter()
            .map(|n| NoticeView {
                unread: seen.is_none_or(|at| n.created_at > at),
                notice_id: n.id,
                topic: n.topic,
                title: n.title,
                body: n.body,
                link: n.link,
                subject_type: n.subject_type,
                subject_id: n.subject_id,
                created_at: n.created_at,
            })
            .collect(),
        unread,
        next_cursor,
    })
}

/// How many notices this person has not seen (of the topics they show; at most 100): the
/// dashboard's badge.
pub async fn unread(ctx: &Ctx, p: &Principal) -> Result<u64, AppError> {
    Ok(list(ctx, p, &Page::parse(Some(1), None, "ntc")?)
        .await?
        .unread)
}

async fn seen_at(
    ctx: &Ctx,
    p: &Principal,
) -> Result<Option<chrono::DateTime<chrono::Utc>>, AppError> {
    Ok(account::Entity::find_by_id(p.person_id.clone())
        .one(&ctx.db)
        .await?
        .and_then(|a| a.notices_seen_at))
}

/// Marks every notice up to now as seen by this person.
pub async fn mark_seen(ctx: &Ctx, p: &Principal) -> Result<(), AppError> {
    account::Entity::update_many()
        .col_expr(
            account::Column::NoticesSeenAt,
            sea_orm::sea_query::Expr::value(Some(ctx.now())),
        )
        .filter(account::Column::Id.eq(p.person_id.clone()))
        .exec(&ctx.db)
        .await?;
    Ok(())
}
