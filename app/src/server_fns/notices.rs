//! `/account/notifications`: the organisation's notices as this person shows them, their
//! preferences, and the organisation's account webhooks (the secret of a new one shown once,
//! in a flash for a plain form post). The rules are in `domain::accounts::notices` and
//! `domain::callback_delivery::account_webhooks`; the role checks are theirs (every person
//! chooses their own preferences; webhooks need a role that keeps keys).

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::model::OneTimeSecret;
use crate::model::notice::{AccountWebhookList, NoticeList, NoticePreferences, NoticeTopic};

/// What the notifications page shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoticesData {
    pub notices: NoticeList,
    pub preferences: NoticePreferences,
    pub webhooks: AccountWebhookList,
    /// The topics a webhook may listen to (none: this person's role keeps no webhooks, and
    /// the form is not shown).
    pub webhook_topics: Vec<NoticeTopic>,
    /// A webhook just created by a plain form post, its secret to copy now.
    pub issued: Option<OneTimeSecret>,
}

#[cfg(feature = "ssr")]
const WEBHOOK_SCOPE: &str = "account-webhook";

#[server(prefix = "/fn", endpoint = "notices_page")]
pub async fn notices_page(cursor: Option<String>) -> Result<NoticesData, AppError> {
    super::web::run(async move {
        use crate::domain::accounts::notices;
        use crate::domain::callback_delivery::account_webhooks;
        use crate::domain::paging::Page;
        let (ctx, p) = super::web::own_reader().await?;
        let session = super::web::session().await?;
        let page = Page::parse(Some(50), cursor.as_deref(), "ntc")?;
        Ok(NoticesData {
            notices: notices::list(&ctx, &p, &page).await?,
            preferences: notices::preferences(&ctx, &p).await?,
            webhooks: account_webhooks::list(&ctx, &p).await?,
            webhook_topics: if crate::model::team::role_keeps_keys(p.team_role) {
                notices::topics_of(p.role)
            } else {
                Vec::new()
            },
            issued: super::flash::take_secret(&ctx, &session, WEBHOOK_SCOPE).await?,
        })
    })
    .await
}

#[server(prefix = "/fn", endpoint = "notices_seen")]
pub async fn notices_seen(csrf: String) -> Result<(), AppError> {
    super::web::run(async move {
        let (ctx, _, p) = super::web::own_writer(&csrf).await?;
        crate::domain::accounts::notices::mark_seen(&ctx, &p).await
    })
    .await
}

/// Saves every topic of the person's side: checked boxes are on, the others off. A box is
/// named `email[i]` or `dashboard[i]` (i its topic's place) with the topic as its value.
#[server(prefix = "/fn", endpoint = "notices_save_preferences")]
pub async fn notices_save_preferences(
    #[server(default)] email: Vec<String>,
    #[server(default)] dashboard: Vec<String>,
    budget_alert_percent: Option<String>,
    csrf: String,
) -> Result<(), AppError> {
    super::web::run(async move {
        use crate::domain::accounts::notices;
        use crate::model::notice::{NoticePreference, NoticePreferencesUpdate};
        let (ctx, _, p) = super::web::own_writer(&csrf).await?;
        let checked = |boxes: &[String]| -> Vec<NoticeTopic> {
            boxes.iter().filter_map(|t| NoticeTopic::parse(t)).collect()
        };
        let (email, dashboard) = (checked(&email), checked(&dashboard));
        let topics = notices::topics_of(p.role)
            .into_iter()
            .map(|topic| NoticePreference {
                topic,
                email: email.contains(&topic),
                dashboard: dashboard.contains(&topic),
            })
            .collect();
        let budget_alert_percent = match budget_alert_percent.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(v) => Some(v.parse::<i32>().map_err(|_| {
                AppError::field("budgetAlertPercent", "must be a whole number from 0 to 50")
            })?),
        };
        // Unchanged, the share is not sent: a member who may not change billing can still
        // save their own topics.
        let current = notices::preferences(&ctx, &p).await?.budget_alert_percent;
        let req = NoticePreferencesUpdate {
            topics,
            budget_alert_percent: budget_alert_percent.filter(|v| Some(*v) != current),
        };
        notices::update(&ctx, &p, &req).await.map(drop)
    })
    .await
}

#[server(prefix = "/fn", endpoint = "notices_create_webhook")]
pub async fn notices_create_webhook(
    url: String,
    description: Option<String>,
    #[server(default)] topic: Vec<String>,
    csrf: String,
) -> Result<OneTimeSecret, AppError> {
    super::web::run(async move {
        use crate::domain::callback_delivery::account_webhooks;
        use crate::model::notice::AccountWebhookCreate;
        let (ctx, session, p) = super::web::own_writer(&csrf).await?;
        let topics = topic
            .iter()
            .map(|t| {
                NoticeTopic::parse(t).ok_or_else(|| AppError::field("topics", "unknown topic"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let req = AccountWebhookCreate {
            url,
            topics,
            description,
        };
        let issued = account_webhooks::create(&ctx, &p, &req).await?;
        let label = format!("Signing secret of {}", issued.webhook.url);
        super::flash::put_secret(&ctx, &session, WEBHOOK_SCOPE, &label, &issued.secret).await?;
        Ok(OneTimeSecret {
            label,
            value: issued.secret,
        })
    })
    .await
}

/// Removes, tests or resumes a webhook (`what`: `remove`, `test`, `resume`).
#[server(prefix = "/fn", endpoint = "notices_webhook_action")]
pub async fn notices_webhook_action(
    webhook_id: String,
    what: String,
    csrf: String,
) -> Result<(), AppError> {
    super::web::run(async move {
        use crate::domain::callback_delivery::account_webhooks;
        let (ctx, _, p) = super::web::own_writer(&csrf).await?;
        // The role first: a refusal says why before any input is judged.
        crate::domain::accounts::teams::require_key_keeper(&p)?;
        match what.as_str() {
            "remove" => account_webhooks::remove(&ctx, &p, &webhook_id).await,
            "test" => account_webhooks::send_test(&ctx, &p, &webhook_id)
                .await
                .map(drop),
            "resume" => account_webhooks::resume(&ctx, &p, &webhook_id)
                .await
                .map(drop),
            _ => Err(AppError::field("what", "must be remove, test or resume")),
        }
    })
    .await
}
