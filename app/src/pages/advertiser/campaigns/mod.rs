//! Offer campaigns: the list, the create form, one campaign (lifecycle, edit, revisions,
//! audit), its tracking setup and its report; the administrator's review section. Every form
//! is a plain HTML form that also works without JavaScript.

mod detail;
mod list;
mod new;
mod offer_form;
mod report;
mod review;
mod targeting_form;
mod tracking;
mod translations_form;

pub use detail::CampaignDetailPage;
pub use list::CampaignsPage;
pub use new::NewCampaignPage;
pub use report::CampaignReportPage;
pub use review::{CampaignQueue, CampaignReview};
pub use tracking::CampaignTrackingPage;

use leptos::prelude::*;

use crate::components::loaded::Refusal;
use crate::error::AppError;
use crate::model::campaign::CampaignStatus;

/// Coloured lifecycle status of a campaign.
#[component]
fn CampaignBadge(status: CampaignStatus) -> impl IntoView {
    let class = format!("badge campaign-{}", status.as_str().to_ascii_lowercase());
    view! { <span class=class data-status=status.as_str()>{status.as_str()}</span> }
}

/// The refusal's message for one exact field (`goals[1].payoutMicros`).
fn field_error_at(error: Signal<Option<AppError>>, field: String) -> impl IntoView {
    field_error_in(error, field, false)
}

/// The refusal's message for a field or, with `entries`, one of its entries (`entries`
/// also matches `entries[2]`).
fn field_error_in(error: Signal<Option<AppError>>, field: String, entries: bool) -> impl IntoView {
    move || {
        error.get().and_then(|e| {
            e.field_errors
                .iter()
                .find(|(f, _)| {
                    *f == &field
                        || (entries
                            && f.strip_prefix(field.as_str())
                                .is_some_and(|rest| rest.starts_with('[')))
                })
                .map(|(_, why)| view! { <small class="field-error">{why.clone()}</small> })
        })
    }
}

/// A refusal while loading a campaign page.
fn campaign_load_error(error: AppError) -> AnyView {
    view! {
        <Refusal
            error
            title="Offer campaigns are not available"
            pending="Campaigns open once an administrator has approved the account."
            back=("/advertiser/campaigns", "Back to the campaigns")
        />
    }
    .into_any()
}

/// What the button of an advertiser move says.
fn move_label(from: CampaignStatus, to: CampaignStatus) -> &'static str {
    use CampaignStatus::*;
    match (from, to) {
        (_, InReview) => "Submit for review",
        (InReview, Draft) => "Withdraw",
        (_, Draft) => "Back to draft",
        (_, Paused) => "Pause",
        (Paused, Live) => "Resume",
        (_, Live) => "Go live",
        (_, Ended) => "End",
        (_, Archived) => "Archive",
        (_, Rejected) => "Reject",
    }
}

use crate::pages::when;
