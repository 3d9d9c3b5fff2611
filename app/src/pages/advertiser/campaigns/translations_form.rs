//! The campaign page's offerwall translations: the offer's title, description and goal
//! names in the languages the hosted wall speaks. Users of a language read these; a text
//! left empty shows as the advertiser wrote it above. Like every edit after the first
//! submission, a change is a new revision that needs review.

use leptos::prelude::*;

use super::super::action_error;
use super::field_error_at;
use crate::components::form::{CsrfField, ErrorNotice};
use crate::model::campaign::{Campaign, CampaignStatus};
use crate::model::language::Language;
use crate::server_fns::campaigns::translations::{EditCampaignTranslation, goal_names_text};

#[component]
pub fn TranslationsForm(
    c: Campaign,
    action: ServerAction<EditCampaignTranslation>,
) -> impl IntoView {
    let error = action_error(action);
    let saved = move || action.value().get().is_some_and(|r| r.is_ok());
    let read_only = matches!(c.status, CampaignStatus::Ended | CampaignStatus::Archived);
    let goal_ids: Vec<String> = c
        .config
        .goals
        .iter()
        .map(|g| format!("{}: …", g.external_goal_id))
        .collect();
    let rows = c
        .config
        .translations
        .iter()
        .map(|(tag, t)| {
            view! {
                <tr data-lang=tag.clone()>
                    <td><code>{tag.clone()}</code></td>
                    <td>{t.name.clone().unwrap_or_else(|| "(as given)".to_owned())}</td>
                    <td>{t.description.clone().unwrap_or_else(|| "(as given)".to_owned())}</td>
                    <td><pre>{goal_names_text(&t.goals)}</pre></td>
                </tr>
            }
        })
        .collect_view();
    let has_rows = !c.config.translations.is_empty();
    view! {
        <section class="card" id="translations">
            <h2>"Offerwall translations"</h2>
            <p class="muted">
                "The hosted offerwall speaks English, German, Spanish, French, Portuguese (Brazil), "
                "Japanese and Arabic. Users of a language read the texts you give here; a text left "
                "empty shows as written above. Saving a language with every text empty removes it."
            </p>
            <ErrorNotice error/>
            <Show when=saved>
                <div class="notice ok" role="status">"Translation saved."</div>
            </Show>
            <Show when=move || has_rows>
                <table class="table" id="translation-list">
                    <thead><tr><th>"Language"</th><th>"Title"</th><th>"Description"</th><th>"Goal names"</th></tr></thead>
                    <tbody>{rows.clone()}</tbody>
                </table>
            </Show>
            <ActionForm action attr:class="grid-2 translation-form">
                <CsrfField/>
                <input type="hidden" name="campaign_id" value=c.campaign_id.clone()/>
                <label>"Language"
                    <select name="lang">
                        {Language::ALL.iter().filter(|l| **l != Language::En).map(|l| view! {
                            <option value=l.as_str()>{l.as_str()}</option>
                        }).collect_view()}
                        <option value="en">"en"</option>
                    </select>
                    {field_error_at(error, "lang".to_owned())}
                </label>
                <label>"Title"
                    <input type="text" name="name" maxlength="120"/>
                    {field_error_at(error, "name".to_owned())}
                </label>
                <label class="span-2">"Description (what the user does and gets)"
                    <textarea name="description" rows="3" maxlength="2000"></textarea>
                    {field_error_at(error, "description".to_owned())}
                </label>
                <label class="span-2">"Goal names (one per line, goalId: name)"
                    <textarea name="goals" rows="3" placeholder=goal_ids.join("\n")></textarea>
                    {field_error_at(error, "goals".to_owned())}
                </label>
                <div class="form-actions">
                    <button type="submit" disabled=read_only>"Save translation"</button>
                </div>
            </ActionForm>
        </section>
    }
}
