//! An offer's texts in one language of the hosted offerwall, from the dashboard. The form
//! edits one language at a time; the other languages are kept. Empty texts remove the
//! language's version of that text (users then read the original).

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::campaign::*;

#[cfg(feature = "ssr")]
use crate::server_fns::campaigns::support;

/// Goal names typed one per line as `goalId: name` (or `goalId = name`).
pub fn goal_names_from_text(
    raw: &str,
) -> Result<std::collections::BTreeMap<String, String>, String> {
    let mut out = std::collections::BTreeMap::new();
    for line in raw.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let Some((id, name)) = line.split_once([':', '=']) else {
            return Err(format!("write each line as goalId: name (\"{line}\")"));
        };
        out.insert(id.trim().to_owned(), name.trim().to_owned());
    }
    Ok(out)
}

/// Goal names as the form shows them.
pub fn goal_names_text(goals: &std::collections::BTreeMap<String, String>) -> String {
    goals
        .iter()
        .map(|(id, n)| format!("{id}: {n}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Replaces the campaign's texts in `lang` (an unchanged form makes no revision).
#[server(prefix = "/fn", endpoint = "campaigns_translation")]
pub async fn edit_campaign_translation(
    campaign_id: String,
    lang: String,
    name: Option<String>,
    description: Option<String>,
    goals: Option<String>,
    csrf: String,
) -> Result<Campaign, AppError> {
    crate::server_fns::web::run(async move {
        use crate::domain::campaigns::store;
        let (ctx, _, p) = support::writer(&csrf).await?;
        let goals = goal_names_from_text(&goals.unwrap_or_default())
            .map_err(|e| AppError::field("goals", e))?;
        let id = campaign_id.trim();
        let current = store::get(&ctx, &p, id).await?;
        let mut wanted = current.config.translations.clone();
        let lang = lang.trim().to_owned();
        wanted.insert(
            lang.clone(),
            translations::OfferTranslation {
                name: support::text(name),
                description: support::text(description),
                goals,
            },
        );
        // What the rules keep (blank texts dropped) decides whether anything changed.
        let mut errs = crate::model::validate::Errors::new();
        let kept = translations::validate(&wanted, &current.config.goals, &mut errs);
        if !errs.is_empty() {
            // The form has one language: name the fields it shows.
            let prefix = format!("translations.{lang}.");
            let mut fields = std::collections::BTreeMap::new();
            for (k, v) in errs {
                let field = k.strip_prefix(&prefix).unwrap_or("lang");
                let field = if field.starts_with("goals") {
                    "goals"
                } else {
                    field
                };
                fields.insert(field.to_owned(), v);
            }
            return Err(AppError::fields(fields));
        }
        if kept == current.config.translations {
            return Ok(current);
        }
        let patch = CampaignInput {
            translations: Some(kept),
            ..CampaignInput::default()
        };
        store::update(&ctx, &p, id, patch).await
    })
    .await
}
