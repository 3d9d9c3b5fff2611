//! `/advertiser/campaigns/new`: the create form in sections (basics, targeting, tracking
//! and budget, goals). Three goal rows; rows left empty are ignored. On success the server
//! opens the new campaign's page.

use leptos::prelude::*;
use leptos_meta::Title;

use super::super::action_error;
use super::{campaign_load_error, field_error_at};
use crate::components::form::{CsrfField, ErrorNotice};
use crate::components::loaded::loaded;
use crate::error::AppError;
use crate::model::AccountView;
use crate::model::campaign::{Goal, ProviderCapability};
use crate::pages::RequireUser;
use crate::server_fns::campaigns::{CreateOfferCampaign, goal_field, new_campaign_options};

const GOAL_ROWS: usize = 3;
const CATEGORIES: [&str; 8] = [
    "GAMES",
    "FINANCE",
    "SHOPPING",
    "ENTERTAINMENT",
    "EDUCATION",
    "HEALTH",
    "TRAVEL",
    "UTILITIES",
];
const TASK_TYPES: [&str; 6] = ["INSTALL", "SIGNUP", "PURCHASE", "LEVEL", "TRIAL", "SURVEY"];

#[derive(Clone, Copy)]
struct NewData {
    create: ServerAction<CreateOfferCampaign>,
    providers: Resource<Result<Vec<ProviderCapability>, AppError>>,
}

#[component]
pub fn NewCampaignPage() -> impl IntoView {
    let data = NewData {
        create: ServerAction::new(),
        providers: Resource::new(|| (), |_| new_campaign_options()),
    };
    view! {
        <Title text="New campaign"/>
        <RequireUser signed_in=move |_u: AccountView| view! { <NewCampaign data/> }/>
    }
}

#[component]
fn NewCampaign(data: NewData) -> impl IntoView {
    let NewData { create, providers } = data;
    view! {
        <p class="crumbs"><a href="/advertiser/campaigns" rel="external">"← Campaigns"</a></p>
        {loaded(providers, campaign_load_error, move |providers| view! { <CreateForm providers create/> }.into_any())}
    }
}

#[component]
fn CreateForm(
    providers: Vec<ProviderCapability>,
    create: ServerAction<CreateOfferCampaign>,
) -> impl IntoView {
    let error = action_error(create);
    let err = move |f: &str| field_error_at(error, f.to_owned());
    let list = |id: &'static str, items: &'static [&'static str]| {
        view! {
            <datalist id=id>
                {items.iter().map(|v| view! { <option value=*v></option> }).collect_view()}
            </datalist>
        }
    };
    view! {
        <section class="card" id="new-campaign">
            <h1>"New offer campaign"</h1>
            <p class="muted">"The campaign starts as a DRAFT: nothing is reserved or delivered until it is approved."</p>
            <ErrorNotice error/>
            <ActionForm action=create attr:class="campaign-form">
                <CsrfField/>
                <fieldset class="grid-2" id="basics">
                    <legend>"Basics"</legend>
                    <label class="span-2">"Name"
                        <input type="text" name="name" maxlength="120" required placeholder="Play to level 10"/>
                        {err("name")}
                    </label>
                    <label class="span-2">"Destination URL"
                        <input type="text" name="destination_url" required inputmode="url"
                            placeholder="https://advertiser.example/install?click={click_id}"/>
                        <small class="muted">"HTTPS, and it must contain the "<code>"{click_id}"</code>" macro: it is replaced with the click id you report back."</small>
                        {err("destinationUrl")}
                    </label>
                    <label>"Category"
                        <input type="text" name="category" list="categories" required placeholder="GAMES"/>
                        {err("category")}
                    </label>
                    {list("categories", &CATEGORIES)}
                    <label>"Task type"
                        <input type="text" name="task_type" list="task-types" required placeholder="INSTALL"/>
                        {err("taskType")}
                    </label>
                    {list("task-types", &TASK_TYPES)}
                </fieldset>
                <fieldset class="grid-2" id="targeting">
                    <legend>"Targeting"</legend>
                    <div class="platforms">
                        <span class="label">"Platforms"</span>
                        <label class="check"><input type="checkbox" name="android" value="on" checked/>"Android"</label>
                        <label class="check"><input type="checkbox" name="ios" value="on" checked/>"iOS"</label>
                        <label class="check"><input type="checkbox" name="web" value="on"/>"Web"</label>
                        {err("platforms")}
                    </div>
                    <label>"Countries (comma separated)"
                        <input type="text" name="countries" required placeholder="US, DE"/>
                        {err("countries")}
                    </label>
                    <p class="muted span-2">
                        "Device types, the lowest Android and iOS version and regions (such as US-CA) "
                        "are set on the campaign page once it is created."
                    </p>
                </fieldset>
                <fieldset class="grid-2" id="tracking-budget">
                    <legend>"Tracking and budget"</legend>
                    <label>"Tracking provider"
                        <select name="tracking_provider" required>
                            {providers.into_iter().map(|p| view! {
                                <option value=p.tracking_provider.clone()>
                                    {format!("{} ({})", p.name, p.tracking_provider)}
                                </option>
                            }).collect_view()}
                        </select>
                        {err("trackingProvider")}
                    </label>
                    <label>"Total budget (USD)"
                        <input type="text" name="budget" inputmode="decimal" required placeholder="500.00"/>
                        {err("budgetMicros")}
                    </label>
                </fieldset>
                <fieldset id="goals">
                    <legend>"Goals"</legend>
                    <p class="muted">
                        "At least one goal. The goal id is what your postbacks send as "<code>"goal_id"</code>
                        "; empty rows are ignored."
                    </p>
                    {err("goals")}
                    {(0..GOAL_ROWS).map(|i| view! { <GoalRowFields i error/> }).collect_view()}
                </fieldset>
                <div class="form-actions"><button type="submit">"Create campaign"</button></div>
            </ActionForm>
        </section>
    }
}

/// One goal row of a form; `goal` fills it in (the campaign page's offer form).
#[component]
pub(super) fn GoalRowFields(
    i: usize,
    error: Signal<Option<AppError>>,
    #[prop(optional)] goal: Option<Goal>,
) -> impl IntoView {
    let name = |f: &str| format!("goals[{i}][{f}]");
    let err = move |f: &str| field_error_at(error, goal_field(i, f));
    let filled = goal.map(|g| {
        let payout = crate::model::money::format_micros(g.payout_micros);
        let payout = payout
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_owned();
        (
            g.external_goal_id,
            g.name,
            payout,
            g.pending_minutes.to_string(),
        )
    });
    let (id_v, name_v, payout_v, pending_v) = filled.unwrap_or_default();
    view! {
        <div class="goal-row grid-4" data-row=i.to_string()>
            <label>"Goal id"
                <input type="text" name=name("external_goal_id") maxlength="64" value=id_v
                    placeholder=if i == 0 { "install" } else { "" }/>
                {err("externalGoalId")}
            </label>
            <label>"Name"
                <input type="text" name=name("name") maxlength="120" value=name_v
                    placeholder=if i == 0 { "Install" } else { "" }/>
                {err("name")}
            </label>
            <label>"Payout (USD)"
                <input type="text" name=name("payout") inputmode="decimal" value=payout_v
                    placeholder=if i == 0 { "1.50" } else { "" }/>
                {err("payoutMicros")}
            </label>
            <label>"Pending minutes"
                <input type="text" name=name("pending_minutes") inputmode="numeric" placeholder="0" value=pending_v/>
                {err("pendingMinutes")}
            </label>
        </div>
    }
}
