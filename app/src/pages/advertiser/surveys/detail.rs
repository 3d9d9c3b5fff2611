//! `/advertiser/surveys/:id`: one survey campaign with its targeting editor — quotas with
//! their qualifications (from the market's profiling catalog) and custom screening questions
//! — and the responses CSV download. Targeting follows the status policy of docs/surveys.md:
//! a change while pending review withdraws the campaign to DRAFT.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use super::super::{load_error, successes};
use super::form::EditSurveyForm;
use super::targeting::{Editing, Questions, Quotas, TargetingActions};
use crate::components::form::ErrorNotice;
use crate::components::loaded::loaded;
use crate::error::AppError;
use crate::model::AccountView;
use crate::model::survey::campaign::SurveyStatus;
use crate::pages::RequireUser;
use crate::server_fns::surveys::campaign::{
    CloneSurveyCampaign, DeleteSurveyCampaign, EditSurveyCampaign, survey_markets,
};
use crate::server_fns::surveys::{SurveyEditorData, survey_detail};

#[derive(Clone, Copy)]
struct Actions {
    targeting: TargetingActions,
    edit: ServerAction<EditSurveyCampaign>,
    clone: ServerAction<CloneSurveyCampaign>,
    delete: ServerAction<DeleteSurveyCampaign>,
    markets: super::form::Markets,
}

#[component]
pub fn SurveyDetailPage() -> impl IntoView {
    let params = use_params_map();
    let id = move || params.read().get("id").unwrap_or_default();
    let actions = Actions {
        targeting: TargetingActions::new(),
        edit: ServerAction::new(),
        clone: ServerAction::new(),
        delete: ServerAction::new(),
        markets: Resource::new(|| (), |()| survey_markets()),
    };
    let targeting = actions.targeting.changes();
    let edited = successes(actions.edit);
    let detail = Resource::new(
        move || (id(), targeting.get(), edited.get()),
        |(id, ..)| survey_detail(id),
    );
    view! {
        <Title text="Survey campaign"/>
        <RequireUser signed_in=move |_u: AccountView| view! { <DetailView detail actions/> }/>
    }
}

#[component]
fn DetailView(
    detail: Resource<Result<SurveyEditorData, AppError>>,
    actions: Actions,
) -> impl IntoView {
    let error = actions.targeting.error();
    view! {
        <p class="crumbs"><a href="/advertiser/surveys" rel="external">"← Survey campaigns"</a></p>
        <ErrorNotice error/>
        {loaded(detail, load_error, move |d| view! { <Detail d actions/> }.into_any())}
    }
}

#[component]
fn Detail(d: SurveyEditorData, actions: Actions) -> impl IntoView {
    let c = d.campaign;
    let id = c._id.clone();
    let editing = match c.status {
        SurveyStatus::Draft | SurveyStatus::PendingApproval => Editing::All,
        SurveyStatus::Live | SurveyStatus::Paused => Editing::Sizes,
        SurveyStatus::Closed => Editing::Nothing,
    };
    let csv = format!("/advertiser/surveys/{id}/responses.csv");
    view! {
        <section class="card" id="survey">
            <h1>{c.name.clone()}</h1>
            <p><span class="badge">{c.status.as_str()}</span>" "<span class="muted">{c.payment_status.as_str()}" · revision "{c.revision}</span></p>
            {c.rejection_reason.clone().map(|r| view! {
                <div class="notice warn rejection" role="status">
                    <strong>"Sent back by the reviewer: "</strong>{r}
                    " Fix the campaign and submit it again."
                </div>
            })}
            <dl class="facts">
                <dt>"Market"</dt><dd>{c.country_language_id.clone()}</dd>
                <dt>"CPI"</dt><dd>{c.cpi_micros.map(|m| m.money("USD")).unwrap_or_else(|| "—".into())}</dd>
                <dt>"Completes"</dt><dd>{c.planned_completes.map(|n| n.to_string()).unwrap_or_else(|| "—".into())}" (at most "{c.max_daily_completes.map(|n| n.to_string()).unwrap_or_else(|| "∞".into())}" a day)"</dd>
                <dt>"Length"</dt><dd>{c.length_of_interview.map(|n| format!("{} minutes", serde_json::json!(n))).unwrap_or_default()}</dd>
                <dt>"Live link"</dt><dd><code>{c.survey_live_link.clone()}</code></dd>
            </dl>
        </section>
        {(editing != Editing::All).then(|| view! {
            <div class="notice" role="status">"Targeting is locked once a campaign is live: quota sizes can still change while it is live or paused, and cloning the campaign starts a new study with the same setup."</div>
        })}
        <EditSurveyForm c=c.clone() markets=actions.markets edit=actions.edit clone=actions.clone delete=actions.delete/>
        <Quotas campaign=id.clone() quotas=d.quotas catalog=d.catalog actions=actions.targeting editing/>
        <Questions campaign=id.clone() questions=d.questions actions=actions.targeting all={editing == Editing::All}/>
        <section class="card" id="responses">
            <h2>"Responses"</h2>
            <p class="muted">"Every respondent transaction with its status, timings, cost and profile, as CSV."</p>
            <form method="get" action=csv class="row">
                <label>"From"<input type="date" name="from"/></label>
                <label>"To"<input type="date" name="to"/></label>
                <button type="submit" class="secondary">"Download CSV"</button>
            </form>
        </section>
    }
}
