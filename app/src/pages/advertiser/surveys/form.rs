//! The survey campaign's own fields as a form: created on the list page, edited on the
//! campaign's page while it is a DRAFT or awaiting approval (cost fields stay fixed once
//! paid, as the survey API enforces), cloned and deleted there.

use leptos::prelude::*;

use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::error::AppError;
use crate::model::survey::campaign::{PaymentStatus, SurveyCampaign, SurveyStatus};
use crate::server_fns::surveys::campaign::{
    CloneSurveyCampaign, CreateSurveyCampaign, DeleteSurveyCampaign, EditSurveyCampaign,
};

pub type Markets = Resource<Result<Vec<(String, String)>, AppError>>;

/// A decimal without trailing zeros: `1.500000` → `1.5`, `2.000000` → `2`.
fn trimmed(s: String) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    } else {
        s
    }
}

/// The inputs, filled from `c` when editing.
#[component]
fn Fields(c: Option<SurveyCampaign>, markets: Markets) -> impl IntoView {
    let v = |f: fn(&SurveyCampaign) -> Option<String>| c.as_ref().and_then(f).unwrap_or_default();
    let market = v(|c| Some(c.country_language_id.clone()));
    let devices = c
        .as_ref()
        .map(|c| c.supported_devices.clone())
        .unwrap_or_else(|| {
            vec![
                "desktop".to_owned(),
                "mobile".to_owned(),
                "tablet".to_owned(),
            ]
        });
    let on = move |d: &str| devices.iter().any(|x| x == d);
    view! {
        <label class="span-2">"Name"
            <input type="text" name="name" required minlength="4" maxlength="200" value=v(|c| Some(c.name.clone()))/>
        </label>
        <label>"Market"
            <Suspense fallback=|| view! { <select name="country_language_id"></select> }>
                {move || {
                    let market = market.clone();
                    Suspend::new(async move {
                        let list = markets.await.unwrap_or_default();
                        view! {
                            <select name="country_language_id" required>
                                {list.into_iter().map(|(code, label)| {
                                    let selected = code == market;
                                    view! { <option value=code.clone() selected=selected>{format!("{code} · {label}")}</option> }
                                }).collect_view()}
                            </select>
                        }
                    })
                }}
            </Suspense>
        </label>
        <label>"Cost per complete (USD)"
            <input type="text" name="cpi" inputmode="decimal" placeholder="2.00" value=v(|c| c.cpi_micros.map(|m| trimmed(m.to_string())))/>
        </label>
        <label>"Length of interview (minutes)"
            <input type="text" name="length_of_interview" inputmode="decimal" placeholder="10" value=v(|c| c.length_of_interview.map(|n| trimmed(serde_json::json!(n).to_string())))/>
        </label>
        <label>"Expected conversion (%)"
            <input type="text" name="conversion" inputmode="decimal" placeholder="50" value=v(|c| c.conversion.map(|n| trimmed(serde_json::json!(n).to_string())))/>
        </label>
        <label>"Starts"
            <input type="date" name="start_date" value=v(|c| c.start_date.map(|d| d.to_string()))/>
        </label>
        <label>"Ends"
            <input type="date" name="end_date" value=v(|c| c.end_date.map(|d| d.to_string()))/>
        </label>
        <label>"Completes in all (empty: the quotas' total)"
            <input type="text" name="total_completes" inputmode="numeric" value=v(|c| c.total_completes.map(|n| n.to_string()))/>
        </label>
        <label>"Completes per day at most"
            <input type="text" name="max_daily_completes" inputmode="numeric" value=v(|c| c.max_daily_completes.map(|n| n.to_string()))/>
        </label>
        <label class="span-2">"Live link (with "<code>"{transaction_id}"</code>")"
            <input type="text" name="survey_live_link" inputmode="url" required placeholder="https://survey.example/s?tid={transaction_id}" value=v(|c| Some(c.survey_live_link.clone()))/>
        </label>
        <label class="span-2">"Test link (with "<code>"{transaction_id}"</code>")"
            <input type="text" name="survey_test_link" inputmode="url" required value=v(|c| Some(c.survey_test_link.clone()))/>
        </label>
        <fieldset class="span-2">
            <legend>"Devices"</legend>
            {["desktop", "mobile", "tablet"].into_iter().map(|d| view! {
                <label class="check"><input type="checkbox" name=d checked=on(d)/>{d}</label>
            }).collect_view()}
        </fieldset>
    }
}

/// The list page's "New survey campaign" card.
#[component]
pub fn NewSurveyForm(
    create: ServerAction<CreateSurveyCampaign>,
    markets: Markets,
) -> impl IntoView {
    let error = Signal::derive(move || create.value().get().and_then(Result::err));
    view! {
        <section class="card" id="new-survey">
            <h2>"New survey campaign"</h2>
            <p class="muted">"Created as a DRAFT: add quotas and questions on its page, pay it from the wallet, then submit it for review."</p>
            <ErrorNotice error/>
            <ActionForm action=create attr:class="grid-2 survey-form">
                <CsrfField/>
                <Fields c=None markets/>
                <div class="form-actions"><Submit action=create label="Create survey campaign"/></div>
            </ActionForm>
        </section>
    }
}

/// The campaign page's settings, clone and delete.
#[component]
pub fn EditSurveyForm(
    c: SurveyCampaign,
    markets: Markets,
    edit: ServerAction<EditSurveyCampaign>,
    clone: ServerAction<CloneSurveyCampaign>,
    delete: ServerAction<DeleteSurveyCampaign>,
) -> impl IntoView {
    let error = Signal::derive(move || {
        edit.value()
            .get()
            .and_then(Result::err)
            .or(clone.value().get().and_then(Result::err))
            .or(delete.value().get().and_then(Result::err))
    });
    let editable = matches!(
        c.status,
        SurveyStatus::Draft | SurveyStatus::PendingApproval
    );
    let deletable = editable && c.payment_status == PaymentStatus::Unpaid;
    let (id, clone_id, delete_id) = (c._id.clone(), c._id.clone(), c._id.clone());
    let copy_name = format!("Copy of {}", c.name);
    let saved = move || edit.value().get().is_some_and(|r| r.is_ok());
    view! {
        <section class="card" id="survey-settings">
            <h2>"Settings"</h2>
            <ErrorNotice error/>
            <Show when=saved>
                <div class="notice ok" role="status">"Saved."</div>
            </Show>
            {if editable {
                view! {
                    <ActionForm action=edit attr:class="grid-2 survey-form">
                        <CsrfField/>
                        <input type="hidden" name="campaign_id" value=id.clone()/>
                        <Fields c=Some(c.clone()) markets/>
                        <div class="form-actions"><Submit action=edit label="Save settings"/></div>
                    </ActionForm>
                }.into_any()
            } else {
                view! { <p class="muted">"A live, paused or closed campaign only changes status; clone it to start a new study with the same setup."</p> }.into_any()
            }}
            <div class="actions">
                <ActionForm action=clone attr:class="row">
                    <CsrfField/>
                    <input type="hidden" name="campaign_id" value=clone_id/>
                    <label class="grow">"Name of the copy"<input type="text" name="name" value=copy_name maxlength="200"/></label>
                    <Submit action=clone label="Clone campaign" class="secondary"/>
                </ActionForm>
                {deletable.then(|| view! {
                    <ActionForm action=delete attr:class="inline">
                        <CsrfField/>
                        <input type="hidden" name="campaign_id" value=delete_id.clone()/>
                        <Submit action=delete label="Delete campaign" class="danger"/>
                    </ActionForm>
                })}
            </div>
        </section>
    }
}
