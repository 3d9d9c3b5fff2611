//! `/publisher/fraud`: the publisher's side of fraud review (issue 51): each placement's
//! held and reversed shares against the limit that pauses delivery, whether delivery is
//! paused and why, and the held conversions with the reasons they were held (so the
//! publisher can find the users behind them). Read only; plain links, no JavaScript needed.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::load_error;
use crate::components::fraud::{PlacementRates, Reasons};
use crate::components::loaded::loaded;
use crate::model::fraud::{HeldConversion, PlacementFraudStats};
use crate::pages::MemberPage;
use crate::pages::{OlderLink, when};
use crate::server_fns::fraud::{fraud_summary, held_conversions};

#[component]
pub fn PublisherFraudPage() -> impl IntoView {
    let query = use_query_map();
    let cursor = Memo::new(move |_| query.read().get("cursor"));
    let overview = Resource::new(|| (), |()| fraud_summary());
    let held = Resource::new(move || cursor.get(), |c| held_conversions(None, None, c));
    view! {
        <MemberPage title="Fraud and holds" back=("/publisher", "← Publisher")>
            <section class="card" id="fraud-rates">
                <h1>"Fraud and holds"</h1>
                <p class="muted">"A conversion whose click looks like fraud (far too fast, many users on one address or device, a hosting address, goals out of order) is held: no reward callback is sent and nothing is earned until the advertiser or an administrator decides it. A placement with too many held or reversed conversions is paused until an administrator resumes it."</p>
                {loaded(overview, load_error, move |o| view! { <PlacementRates overview=o actions=|_: &PlacementFraudStats| ()/> }.into_any())}
            </section>
            <section class="card" id="held">
                <h2>"Held conversions"</h2>
                {loaded(held, load_error, move |value| match value {
                    l if l.items.is_empty() => view! { <p class="muted">"None of your conversions is held."</p> }.into_any(),
                    l => {
                        let older = l.next_cursor.clone().map(|c| format!("/publisher/fraud?cursor={c}"));
                        view! { <HeldRows items=l.items/><OlderLink href=older/> }.into_any()
                    }
                })}
            </section>
        </MemberPage>
    }
}

#[component]
fn HeldRows(items: Vec<HeldConversion>) -> impl IntoView {
    view! {
        <table>
            <thead><tr><th>"Held"</th><th>"Placement"</th><th>"User"</th><th>"Campaign and goal"</th><th>"Why"</th></tr></thead>
            <tbody>
                {items.into_iter().map(|c| view! {
                    <tr data-conversion=c.conversion_id.clone()>
                        <td>{c.held_at.map(when).unwrap_or_default()}</td>
                        <td><code>{c.placement_id.clone().unwrap_or_default()}</code></td>
                        <td>{c.external_user_id.clone().unwrap_or_default()}</td>
                        <td><code>{c.campaign_id.clone()}</code><br/>{c.goal_id.clone()}</td>
                        <td><Reasons score=c.fraud_score reasons=c.reasons.clone()/></td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}
