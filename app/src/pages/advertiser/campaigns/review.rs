//! The administrator's section of offer campaigns awaiting review (on the admin page):
//! approve, reject with a reason, and verify the live test of measurement-partner campaigns.

use leptos::prelude::*;

use super::CampaignBadge;
use crate::components::form::{CsrfField, ErrorNotice};
use crate::components::loaded::{error_line, loaded};
use crate::error::AppError;
use crate::server_fns::campaigns::admin::{
    CampaignReviewItem, ReviewOfferCampaign, campaign_review_queue,
};

/// The review action and the queue it reloads. Created in the admin page body.
#[derive(Clone, Copy)]
pub struct CampaignQueue {
    decide: ServerAction<ReviewOfferCampaign>,
    queue: Resource<Result<Vec<CampaignReviewItem>, AppError>>,
}

impl CampaignQueue {
    pub fn new() -> Self {
        let decide = ServerAction::<ReviewOfferCampaign>::new();
        CampaignQueue {
            decide,
            queue: Resource::new(move || decide.version().get(), |_| campaign_review_queue()),
        }
    }
}

impl Default for CampaignQueue {
    fn default() -> Self {
        Self::new()
    }
}

#[component]
pub fn CampaignReview(campaigns: CampaignQueue) -> impl IntoView {
    let CampaignQueue { decide, queue } = campaigns;
    let error = Signal::derive(move || decide.value().get().and_then(Result::err));
    let done = move || {
        decide.value().get().and_then(Result::ok).map(|c| {
            view! {
                <div class="notice ok" role="status">
                    {format!("{} is now {}.", c.config.name, c.status.as_str())}
                </div>
            }
        })
    };
    view! {
        <section class="card" id="campaign-review">
            <h1>"Offer campaigns awaiting review"</h1>
            <p class="muted">
                "Approving reserves the campaign's unspent budget from the advertiser's balance and makes it LIVE."
            </p>
            {done}
            <ErrorNotice error/>
            {loaded(queue, error_line, move |value| match value {
                list if list.is_empty() => view! { <p class="muted">"No campaign is waiting for review."</p> }.into_any(),
                list => view! {
                    <table class="review campaign-queue">
                        <thead><tr><th>"Campaign"</th><th>"Advertiser"</th><th>"Tracking"</th><th>"Budget"</th><th>"Decision"</th></tr></thead>
                        <tbody>
                            {list.into_iter().map(|item| view! { <ReviewRow item decide/> }).collect_view()}
                        </tbody>
                    </table>
                }.into_any(),
            })}
        </section>
    }
}

#[component]
fn ReviewRow(item: CampaignReviewItem, decide: ServerAction<ReviewOfferCampaign>) -> impl IntoView {
    let c = item.campaign;
    let mmp = c.config.tracking_provider.starts_with("MMP:");
    let id = c.campaign_id.clone();
    let pending = c
        .pending_revision
        .then(|| format!("revision {} awaits approval", c.revision));
    let changes = item.changes;
    let first_review = !c.pending_revision;
    let destination = c.config.destination_url.clone();
    view! {
        <tr data-campaign=c.campaign_id.clone()>
            <td>
                <strong>{c.config.name.clone()}</strong>" "<CampaignBadge status=c.status/><br/>
                <code class="muted">{c.campaign_id.clone()}</code>
                {pending.map(|p| view! { <br/><span class="muted">{p}</span> })}
                <ReviewChanges first_review destination changes/>
            </td>
            <td><strong>{item.company_name}</strong><br/><span class="muted">{item.email}</span></td>
            <td><code>{c.config.tracking_provider.clone()}</code></td>
            <td class="num">{c.config.budget_micros.money("USD")}</td>
            <td>
                <ActionForm action=decide attr:class="review-form">
                    <CsrfField/>
                    <input type="hidden" name="campaign_id" value=id/>
                    <input type="hidden" name="revision" value=c.revision.to_string()/>
                    <textarea name="reason" rows="2" maxlength="1000" aria-label="Reason"
                        placeholder="Reason (required to reject)"></textarea>
                    <span class="actions">
                        <button type="submit" name="decision" value="APPROVE">"Approve"</button>
                        <button type="submit" name="decision" value="REJECT" class="danger">"Reject"</button>
                        {mmp.then(|| view! {
                            <button type="submit" name="decision" value="VERIFY" class="secondary">"Verify live test"</button>
                        })}
                    </span>
                </ActionForm>
            </td>
        </tr>
    }
}

/// What the administrator is approving: a first review names the destination, a pending
/// revision lists every field that differs from the live one. Erased to `AnyView` so the
/// row's view type stays shallow enough for the wasm build.
#[component]
fn ReviewChanges(
    first_review: bool,
    destination: String,
    changes: Vec<crate::model::campaign::RevisionChange>,
) -> impl IntoView {
    if first_review {
        return view! {
            <p class="muted review-new">"New campaign (first review). Destination: "<code>{destination}</code></p>
        }
        .into_any();
    }
    if changes.is_empty() {
        return ().into_any();
    }
    let rows = changes
        .into_iter()
        .map(|ch| {
            view! {
                <tr>
                    <td><code>{ch.field}</code></td>
                    <td><del>{ch.live.unwrap_or_else(|| "—".to_owned())}</del></td>
                    <td><ins>{ch.pending.unwrap_or_else(|| "—".to_owned())}</ins></td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="review-diff">
            <caption>"Changes against the live revision"</caption>
            <thead><tr><th>"Field"</th><th>"Live"</th><th>"Pending"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
    .into_any()
}
