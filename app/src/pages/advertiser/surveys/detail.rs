//! `/advertiser/surveys/:id`: one survey campaign with its targeting editor — quotas with
//! their qualifications (from the market's profiling catalog) and custom screening questions
//! — and the responses CSV download. Targeting follows the status policy of docs/surveys.md:
//! a change while pending review withdraws the campaign to DRAFT.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use super::super::{LoadError, action_error, successes};
use super::form::EditSurveyForm;
use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::error::AppError;
use crate::model::AccountView;
use crate::model::survey::targeting::{CustomQuestion, ProfilingQuestion, Quota};
use crate::pages::RequireUser;
use crate::server_fns::surveys::campaign::{
    CloneSurveyCampaign, DeleteSurveyCampaign, EditSurveyCampaign, survey_markets,
};
use crate::server_fns::surveys::{
    AddQualification, AddQuestion, AddQuota, DeleteQuota, SurveyEditorData, survey_detail,
};

#[derive(Clone, Copy)]
struct Actions {
    quota: ServerAction<AddQuota>,
    remove: ServerAction<DeleteQuota>,
    qualification: ServerAction<AddQualification>,
    question: ServerAction<AddQuestion>,
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
        quota: ServerAction::new(),
        remove: ServerAction::new(),
        qualification: ServerAction::new(),
        question: ServerAction::new(),
        edit: ServerAction::new(),
        clone: ServerAction::new(),
        delete: ServerAction::new(),
        markets: Resource::new(|| (), |()| survey_markets()),
    };
    let (a, b, c, d) = (
        successes(actions.quota),
        successes(actions.remove),
        successes(actions.qualification),
        successes(actions.question),
    );
    let e = successes(actions.edit);
    let detail = Resource::new(
        move || (id(), a.get(), b.get(), c.get(), d.get(), e.get()),
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
    let error = Signal::derive(move || {
        action_error(actions.quota)
            .get()
            .or(action_error(actions.remove).get())
            .or(action_error(actions.qualification).get())
            .or(action_error(actions.question).get())
    });
    view! {
        <p class="crumbs"><a href="/advertiser/surveys" rel="external">"← Survey campaigns"</a></p>
        <ErrorNotice error/>
        <Transition fallback=|| view! { <p>"Loading…"</p> }>
            {move || Suspend::new(async move {
                match detail.await {
                    Err(error) => view! { <LoadError error/> }.into_any(),
                    Ok(d) => view! { <Detail d actions/> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn Detail(d: SurveyEditorData, actions: Actions) -> impl IntoView {
    let c = d.campaign;
    let id = c._id.clone();
    let editable = matches!(
        c.status,
        crate::model::survey::campaign::SurveyStatus::Draft
            | crate::model::survey::campaign::SurveyStatus::PendingApproval
    );
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
        {(!editable).then(|| view! {
            <div class="notice" role="status">"Targeting is locked once a campaign is live: quota sizes can still change through the survey API, and cloning the campaign starts a new study with the same setup."</div>
        })}
        <EditSurveyForm c=c.clone() markets=actions.markets edit=actions.edit clone=actions.clone delete=actions.delete/>
        <Quotas campaign=id.clone() quotas=d.quotas catalog=d.catalog actions editable/>
        <Questions campaign=id.clone() questions=d.questions actions editable/>
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

#[component]
fn Quotas(
    campaign: String,
    quotas: Vec<Quota>,
    catalog: Vec<ProfilingQuestion>,
    actions: Actions,
    editable: bool,
) -> impl IntoView {
    let empty = quotas.is_empty();
    let rows = quotas
        .into_iter()
        .map(|q| {
            view! { <QuotaRow campaign=campaign.clone() q catalog=catalog.clone() actions editable/> }
                .into_any()
        })
        .collect_view();
    let c2 = campaign.clone();
    view! {
        <section class="card" id="quotas">
            <h2>"Quotas"</h2>
            <p class="muted">"A respondent qualifies for a quota when they pass all its qualifications; a campaign without quotas takes every respondent of its market."</p>
            {if empty {
                view! { <p class="muted">"No quotas: everyone in the market qualifies."</p> }.into_any()
            } else {
                view! {
                    <table>
                        <thead><tr><th>"Quota"</th><th class="num">"Completes"</th><th>"Qualifications"</th><th></th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                }.into_any()
            }}
            {editable.then(|| view! {
                <ActionForm action=actions.quota attr:class="row">
                    <CsrfField/><input type="hidden" name="campaign_id" value=c2/>
                    <label>"Name"<input name="name" required maxlength="120"/></label>
                    <label>"Respondents"<input name="num_respondents" inputmode="numeric" required/></label>
                    <Submit action=actions.quota label="Add quota"/>
                </ActionForm>
            })}
        </section>
    }
}

#[component]
fn QuotaRow(
    campaign: String,
    q: Quota,
    catalog: Vec<ProfilingQuestion>,
    actions: Actions,
    editable: bool,
) -> impl IntoView {
    let quals = q
        .qualifications
        .iter()
        .map(|x| {
            let what = if !x.answer_ids.is_empty() {
                x.answer_ids.join(", ")
            } else if !x.ranges.is_empty() {
                x.ranges
                    .iter()
                    .map(|r| format!("{}-{}", r.min, r.max))
                    .collect::<Vec<_>>()
                    .join(", ")
            } else {
                x.values.join(", ")
            };
            format!("{}: {what}", x.question_id)
        })
        .collect::<Vec<_>>()
        .join(" · ");
    let options = catalog
        .into_iter()
        .map(|c| {
            let hint = c
                .answers
                .iter()
                .map(|a| format!("{}={}", a.answer_id, a.answer_text))
                .collect::<Vec<_>>()
                .join(", ");
            let label = format!("{} ({})", c.question_id, c.question_type);
            view! { <option value=c.question_id.clone() title=hint>{label}</option> }
        })
        .collect_view();
    let (c1, c2, q1, q2) = (campaign.clone(), campaign, q._id.clone(), q._id.clone());
    view! {
        <tr data-quota=q._id.clone()>
            <td><strong>{q.name.clone()}</strong></td>
            <td class="num">{q.completes}" / "{q.num_respondents}</td>
            <td>
                <span>{if quals.is_empty() { "Anyone in the market".to_owned() } else { quals }}</span>
                {editable.then(|| view! {
                <ActionForm action=actions.qualification attr:class="row compact">
                    <CsrfField/>
                    <input type="hidden" name="campaign_id" value=c1/>
                    <input type="hidden" name="quota_id" value=q1/>
                    <select name="question_id" aria-label="Question">{options}</select>
                    <input name="criteria" required aria-label="Accepted answers" placeholder="answer ids (1, 2), ranges (18-34) or postal prefixes"/>
                    <Submit action=actions.qualification label="Add" class="secondary"/>
                </ActionForm>
                })}
            </td>
            <td>
                {editable.then(|| view! {
                <ActionForm action=actions.remove>
                    <CsrfField/>
                    <input type="hidden" name="campaign_id" value=c2/>
                    <input type="hidden" name="quota_id" value=q2/>
                    <Submit action=actions.remove label="Delete" class="danger"/>
                </ActionForm>
                })}
            </td>
        </tr>
    }
}

#[component]
fn Questions(
    campaign: String,
    questions: Vec<CustomQuestion>,
    actions: Actions,
    editable: bool,
) -> impl IntoView {
    let empty = questions.is_empty();
    let items = questions
        .into_iter()
        .map(|q| {
            let options = q
                .options
                .iter()
                .map(|o| format!("{}{}", o.value, if o.control_state == "cs_reject" { " (screens out)" } else { "" }))
                .collect::<Vec<_>>()
                .join(" · ");
            let kind = if q.question_type_id == 2 { "multi-punch" } else { "single-punch" };
            view! { <li><strong>{q.display_text.clone()}</strong>" "<span class="muted">{kind}</span><br/>{options}</li> }
        })
        .collect_view();
    view! {
        <section class="card" id="custom-questions">
            <h2>"Custom questions"</h2>
            {if empty {
                view! { <p class="muted">"No custom questions."</p> }.into_any()
            } else {
                view! { <ol>{items}</ol> }.into_any()
            }}
            {editable.then(|| view! {
                <ActionForm action=actions.question attr:class="stack">
                    <CsrfField/><input type="hidden" name="campaign_id" value=campaign/>
                    <label>"Question"<input name="display_text" required maxlength="1000"/></label>
                    <label class="check"><input type="checkbox" name="multi" value="1"/>"Several answers allowed"</label>
                    <label>"Options, one per line (start a line with ! to screen the respondent out)"
                        <textarea name="options" rows="4" required></textarea></label>
                    <div class="form-actions"><Submit action=actions.question label="Add question"/></div>
                </ActionForm>
            })}
        </section>
    }
}
