//! The publisher console: placements, their ad slots, reward callback and keys. Every form
//! is a plain HTML form that also works without JavaScript.

mod blocking;
mod deliveries;
mod earnings;
mod fraud;
mod gallery;
mod placement;
mod placements;
mod reports;
mod slot;
mod support;
mod surveys;

pub use blocking::{BansPage, BlacklistPage};
pub use deliveries::{DeliveriesPage, DeliveryDetailPage};
pub use earnings::EarningsPage;
pub use fraud::PublisherFraudPage;
pub use gallery::OfferGalleryPage;
pub use placement::PlacementDetailPage;
pub use placements::{PlacementsData, PlacementsPage, PlacementsPanel};
pub use reports::OffersReportPage;
pub use slot::SlotEditorPage;
pub use support::SupportInboxPage;
pub use surveys::PublisherSurveysPage;

use leptos::prelude::*;

use crate::components::loaded::Refusal;
use crate::error::AppError;
use crate::model::OneTimeSecret;
use crate::model::publisher::{CallbackTest, PlacementStatus, SlotState};

/// Coloured review status of a placement.
#[component]
fn StatusBadge(status: PlacementStatus) -> impl IntoView {
    let class = format!("badge status-{}", status.as_str().to_ascii_lowercase());
    view! { <span class=class>{status.as_str()}</span> }
}

/// Coloured state of an ad slot.
#[component]
fn SlotStateBadge(state: SlotState) -> impl IntoView {
    let class = format!("badge slot-{}", state.as_str().to_ascii_lowercase());
    view! { <span class=class>{state.as_str()}</span> }
}

/// Released to production, or not yet.
#[component]
fn ReleasedBadge(released: bool) -> impl IntoView {
    if released {
        view! { <span class="badge released">"RELEASED"</span> }.into_any()
    } else {
        view! { <span class="badge unreleased">"not released"</span> }.into_any()
    }
}

/// A human sentence for a slot readiness reason code.
fn reason_text(code: &str) -> &'static str {
    match code {
        "placement_not_verified" => "the placement is not verified yet",
        "currency_rate_zero" => "the currency rate is zero",
        "slot_type_not_allowed" => "this slot type is not allowed on the placement",
        _ => "not ready",
    }
}

/// The secrets of this page: from the actions when scripted, else the session flash.
#[component]
fn SecretBoxes(
    #[prop(into)] scripted: Signal<Vec<OneTimeSecret>>,
    flashed: Option<OneTimeSecret>,
) -> impl IntoView {
    move || {
        let mut all = flashed.clone().into_iter().collect::<Vec<_>>();
        all.extend(scripted.get());
        all.into_iter()
            .map(|secret| view! { <crate::components::form::OnceSecret secret/> })
            .collect_view()
    }
}

/// A test event: the receiver's answer when it was sent, and the signed request as text.
#[component]
fn CallbackTestView(test: CallbackTest) -> impl IntoView {
    let headers = test
        .headers
        .iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join("\n");
    let request = format!("{} {}\n{headers}\n\n{}", test.method, test.url, test.body);
    let answer = test.answer.map(|a| {
        let (class, verdict) = if a.accepted {
            ("notice ok", "Your receiver accepted the test event")
        } else {
            ("notice error", "Your receiver did not accept the test event")
        };
        let status = match (a.response_status, &a.error_class) {
            (Some(s), _) => format!("HTTP {s}"),
            (None, Some(c)) => c.clone(),
            (None, None) => "no answer".to_owned(),
        };
        view! {
            <div class=format!("{class} callback-answer") role="status" data-accepted=a.accepted.to_string()>
                <strong>{verdict}</strong>
                <p>{format!("{status} in {} ms", a.latency_ms)}
                    {a.error_message.map(|m| format!(" — {m}"))}</p>
                {a.response_excerpt.map(|b| view! { <pre class="answer-body">{b}</pre> })}
            </div>
        }
    });
    let sent = if test.delivered_externally {
        "Test event sent to your receiver, signed with the current key. It says \"test\": true and is never credited."
    } else {
        "Test request, signed with the current key. Nothing was sent and nothing was accounted."
    };
    view! {
        <div class="callback-test">
            {answer}
            <p class="muted">{sent}</p>
            <pre class="http">{request}</pre>
            <p class="muted">"Signed string (" <code>"timestamp.nonce.body"</code> "):"</p>
            <pre>{test.signed_string}</pre>
        </div>
    }
}

/// The last refusal of an action, for [`ErrorNotice`](crate::components::form::ErrorNotice).
pub(in crate::pages) fn action_error<S>(action: ServerAction<S>) -> Signal<Option<AppError>>
where
    S: leptos::server_fn::ServerFn<Error = AppError> + Clone + Send + Sync + 'static,
    S::Output: Clone + Send + Sync + 'static,
{
    Signal::derive(move || action.value().get().and_then(Result::err))
}

/// A refusal while loading the page's data.
fn load_error(error: AppError) -> AnyView {
    view! {
        <Refusal
            error
            title="Could not load this page"
            pending="It opens once an administrator has approved the account."
            back=("/publisher/placements", "Back to the placements")
        />
    }
    .into_any()
}
