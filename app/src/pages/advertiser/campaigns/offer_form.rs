//! The campaign page's offer section: what users read (description, preview link,
//! creatives), when the campaign runs (schedule, UTC), how much it delivers (caps) and its
//! goals. Like every edit after the first submission, a change is a new revision that
//! needs review; fields left unchanged make none.

use leptos::prelude::*;

use super::super::action_error;
use super::field_error_at;
use super::new::GoalRowFields;
use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::model::campaign::{Campaign, CampaignStatus};
use crate::server_fns::campaigns::offer::{EditCampaignOffer, creatives_text};

/// Empty goal rows offered beyond the campaign's goals.
const SPARE_GOAL_ROWS: usize = 2;

/// A `datetime-local` value (UTC) of an optional instant.
fn local(t: Option<chrono::DateTime<chrono::Utc>>) -> String {
    t.map(|t| t.format("%Y-%m-%dT%H:%M").to_string())
        .unwrap_or_default()
}

/// An optional count as a field value.
fn count(v: Option<i64>) -> String {
    v.map(|n| n.to_string()).unwrap_or_default()
}

#[component]
pub fn OfferForm(c: Campaign, action: ServerAction<EditCampaignOffer>) -> impl IntoView {
    let error = action_error(action);
    let saved = move || action.value().get().is_some_and(|r| r.is_ok());
    let read_only = matches!(c.status, CampaignStatus::Ended | CampaignStatus::Archived);
    let cfg = c.config.clone();
    let err = move |f: &str| field_error_at(error, f.to_owned());
    let daily_budget = cfg
        .caps
        .daily_budget_micros
        .map(|m| {
            crate::model::money::format_micros(m)
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_owned()
        })
        .unwrap_or_default();
    let goals = cfg.goals.clone();
    let rows = goals.len() + SPARE_GOAL_ROWS;
    view! {
        <section class="card" id="offer">
            <h2>"Offer, schedule, caps and goals"</h2>
            <ErrorNotice error/>
            <Show when=saved>
                <div class="notice ok" role="status">"Offer details saved."</div>
            </Show>
            <ActionForm action attr:class="grid-2 offer-form">
                <CsrfField/>
                <input type="hidden" name="campaign_id" value=c.campaign_id.clone()/>
                <label class="span-2">"Description (what the user does and gets)"
                    <textarea name="description" rows="3" maxlength="2000">{cfg.description.clone().unwrap_or_default()}</textarea>
                    {err("description")}
                </label>
                <label>"Preview link (store or landing page)"
                    <input type="text" name="preview_url" inputmode="url" value=cfg.preview_url.clone().unwrap_or_default()/>
                    {err("previewUrl")}
                </label>
                <label>"Creatives (one per line: ICON, BANNER, SCREENSHOT or VIDEO, then an HTTPS URL)"
                    <textarea name="creatives" rows="3" placeholder="ICON https://cdn.example.com/icon.png">{creatives_text(&cfg.creatives)}</textarea>
                    {err("creatives")}
                </label>
                <fieldset class="grid-2 span-2">
                    <legend>"Schedule (UTC; empty: no bound)"</legend>
                    <label>"Starts"
                        <input type="datetime-local" name="start_at" value=local(cfg.schedule.start_at)/>
                        {err("schedule.startAt")}
                    </label>
                    <label>"Ends"
                        <input type="datetime-local" name="end_at" value=local(cfg.schedule.end_at)/>
                        {err("schedule.endAt")}
                    </label>
                </fieldset>
                <fieldset class="grid-2 span-2">
                    <legend>"Caps (empty: no cap)"</legend>
                    <label>"Conversions per day"
                        <input type="text" name="daily_conversions" inputmode="numeric" value=count(cfg.caps.daily_conversions)/>
                        {err("caps.dailyConversions")}
                    </label>
                    <label>"Conversions in all"
                        <input type="text" name="total_conversions" inputmode="numeric" value=count(cfg.caps.total_conversions)/>
                        {err("caps.totalConversions")}
                    </label>
                    <label>"Conversions per user and goal"
                        <input type="text" name="per_user" inputmode="numeric" placeholder="1" value=count(cfg.caps.per_user)/>
                        {err("caps.perUser")}
                    </label>
                    <label>"Spend per day (USD)"
                        <input type="text" name="daily_budget" inputmode="decimal" value=daily_budget/>
                        {err("caps.dailyBudgetMicros")}
                    </label>
                </fieldset>
                <fieldset class="span-2 goals">
                    <legend>"Goals (clear a row to remove the goal)"</legend>
                    {err("goals")}
                    {(0..rows).map(|i| match goals.get(i).cloned() {
                        Some(goal) => view! { <GoalRowFields i error goal/> }.into_any(),
                        None => view! { <GoalRowFields i error/> }.into_any(),
                    }).collect_view()}
                </fieldset>
                <div class="form-actions">
                    {if read_only {
                        view! { <button type="submit" disabled=true>"Save offer details"</button> }.into_any()
                    } else {
                        view! { <Submit action label="Save offer details"/> }.into_any()
                    }}
                </div>
            </ActionForm>
        </section>
    }
}
