//! The administrator's section of survey campaigns awaiting approval (on the admin page):
//! approve the reviewed revision, reject back to DRAFT with a reason, or record a payment
//! made outside the wallet (an unpaid campaign cannot be approved).

use leptos::prelude::*;

use crate::components::form::{CsrfField, ErrorNotice};
use crate::components::loaded::{error_line, loaded};
use crate::error::AppError;
use crate::model::survey::campaign::{PaymentStatus, SurveyCampaign, SurveyCampaignList};
use crate::server_fns::admin::{ReviewSurveyCampaign, survey_review_queue};

/// The decision action and the queue it reloads. Created in the admin page body.
#[derive(Clone, Copy)]
pub struct SurveyQueue {
    decide: ServerAction<ReviewSurveyCampaign>,
    queue: Resource<Result<SurveyCampaignList, AppError>>,
}

impl SurveyQueue {
    pub fn new() -> Self {
        let decide = ServerAction::<ReviewSurveyCampaign>::new();
        SurveyQueue {
            decide,
            queue: Resource::new(move || decide.version().get(), |_| survey_review_queue()),
        }
    }
}

#[component]
pub fn SurveyReview(surveys: SurveyQueue) -> impl IntoView {
    let SurveyQueue { decide, queue } = surveys;
    let error = Signal::derive(move || decide.value().get().and_then(Result::err));
    let done = move || {
        decide.value().get().and_then(Result::ok).map(|message| {
            view! { <div class="notice ok" role="status">{message}</div> }
        })
    };
    view! {
        <section class="card" id="survey-review">
            <h1>"Survey campaigns awaiting approval"</h1>
            <p class="muted">
                "Approve a paid campaign to make it LIVE; one paid by invoice or contract is recorded as paid outside the wallet first. A rejection sends it back to the advertiser as a DRAFT with your reason."
            </p>
            {done}
            <ErrorNotice error/>
            {loaded(queue, error_line, move |value| match value {
                list if list.campaigns.is_empty() => view! { <p class="muted">"No survey campaign is waiting for approval."</p> }.into_any(),
                list => view! {
                    <table class="review survey-queue">
                        <thead><tr><th>"Campaign"</th><th>"Market"</th><th>"Payment"</th><th>"Cost"</th><th>"Decision"</th></tr></thead>
                        <tbody>
                            {list.campaigns.into_iter().map(|c| view! { <SurveyRow c decide/> }).collect_view()}
                        </tbody>
                    </table>
                }.into_any(),
            })}
        </section>
    }
}

#[component]
fn SurveyRow(c: SurveyCampaign, decide: ServerAction<ReviewSurveyCampaign>) -> impl IntoView {
    let unpaid = c.payment_status == PaymentStatus::Unpaid;
    let cpi = c
        .cpi_micros
        .map(|m| m.money("USD"))
        .unwrap_or_else(|| "—".to_owned());
    let id = c._id.clone();
    view! {
        <tr data-survey=c._id.clone()>
            <td>
                <strong>{c.name.clone()}</strong>" "<span class="muted">{format!("revision {}", c.revision)}</span><br/>
                <code class="muted">{c._id.clone()}</code><br/>
                <span class="muted">"Advertiser "<code>{c.advertiser_id.clone()}</code></span>
            </td>
            <td><code>{c.country_language_id.clone()}</code></td>
            <td><span class="badge">{c.payment_status.as_str()}</span></td>
            <td class="num">{format!("{cpi} × {}", c.planned_completes.unwrap_or(0))}<br/>{c.estimated_cost_micros.money("USD")}</td>
            <td>
                <ActionForm action=decide attr:class="review-form">
                    <CsrfField/>
                    <input type="hidden" name="campaign_id" value=id/>
                    <input type="hidden" name="revision" value=c.revision/>
                    <textarea name="reason" rows="2" maxlength="500" aria-label="Reason"
                        placeholder="Reason for the advertiser (required to reject)"></textarea>
                    <span class="actions">
                        {unpaid.then(|| view! {
                            <button type="submit" name="decision" value="PAID_EXTERNALLY" class="secondary">"Paid externally"</button>
                        })}
                        <button type="submit" name="decision" value="APPROVE" disabled=unpaid
                            title=if unpaid { "Unpaid: allocate from the wallet or record an external payment first" } else { "" }>"Approve"</button>
                        <button type="submit" name="decision" value="REJECT" class="danger">"Reject"</button>
                    </span>
                </ActionForm>
            </td>
        </tr>
    }
}
