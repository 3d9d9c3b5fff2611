//! `/admin/fraud`: the fraud review queue (issue 51). Placements with held conversions or a
//! paused delivery (pause and resume with a note), the held conversions by reason, and the
//! held conversions themselves, oldest first, with their reasons and a bulk decision: a
//! plain form (`POST /admin/fraud/decide`, one checkbox per conversion), so the queue works
//! without JavaScript.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

use super::RequireUser;
use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::components::fraud::{PlacementRates, Reasons};
use crate::components::loaded::{error_line, loaded};
use crate::model::AccountView;
use crate::model::fraud::{FraudSignal, HeldConversion, PlacementFraudStats};
use crate::pages::publisher::action_error;
use crate::pages::{OlderLink, query_value, when};
use crate::server_fns::fraud::{SetDelivery, fraud_summary, held_conversions};

#[component]
pub fn AdminFraudPage() -> impl IntoView {
    let query = use_query_map();
    let get = move |k: &'static str| Memo::new(move |_| query.read().get(k).unwrap_or_default());
    let (placement, signal, done) = (get("placement"), get("signal"), get("decided"));
    let cursor = Memo::new(move |_| query.read().get("cursor"));
    let delivery = ServerAction::<SetDelivery>::new();
    let summary = Resource::new(move || delivery.version().get(), |_| fraud_summary());
    let some = |s: String| Some(s).filter(|s| !s.is_empty());
    let held = Resource::new(
        move || (placement.get(), signal.get(), cursor.get()),
        move |(p, s, c)| held_conversions(some(p), some(s), c),
    );
    view! {
        <Title text="Fraud review"/>
        <RequireUser signed_in=move |u: AccountView| {
            if !u.role.is_admin() {
                return view! { <section class="card"><h1>"Administrators only"</h1></section> }.into_any();
            }
            view! {
                <p class="crumbs"><a href="/admin" rel="external">"← Admin"</a></p>
                <section class="card" id="fraud-placements">
                    <h1>"Fraud review"</h1>
                    <ErrorNotice error=action_error(delivery)/>
                    {loaded(summary, error_line, move |value| match value {
                        o if o.placements.is_empty() => view! { <p class="muted">"No placement has held conversions or a paused delivery."</p> }.into_any(),
                        o => {
                            let by_signal = o.held_by_signal.clone();
                            view! {
                                <p class="signals" id="held-by-signal">
                                    {by_signal.into_iter().map(|c| view! {
                                        <a class="badge" href=format!("/admin/fraud?signal={}", c.signal.as_str()) rel="external">{format!("{} · {}", c.signal.label(), c.count)}</a>" "
                                    }).collect_view()}
                                </p>
                                <PlacementRates overview=o actions=move |p: &PlacementFraudStats| view! { <DeliveryControl p=p.clone() delivery/> }/>
                            }.into_any()
                        }
                    })}
                </section>
                <section class="card" id="held">
                    <h2>"Held conversions"</h2>
                    <p class="muted">"Nothing is paid and the publisher is not told while a conversion is held. Approving pays it (caps and the campaign's budget are checked then) and sends the reward callback; rejecting closes it. Each conversion is decided once."</p>
                    {move || (!done.get().is_empty()).then(|| view! { <p class="notice ok" role="status" data-decided>{format!("Decided: {}", done.get())}</p> })}
                    <Form method="get" action="/admin/fraud" attr:class="filters">
                        <input name="placement" placeholder="Placement id" aria-label="Placement id" value=move || placement.get()/>
                        <select name="signal" aria-label="Reason">
                            <option value="" selected=move || signal.get().is_empty()>"Every reason"</option>
                            {FraudSignal::ALL.iter().map(|s| {
                                let chosen = move || FraudSignal::parse(&signal.get()) == Some(*s);
                                view! { <option value=s.as_str() selected=chosen>{s.label()}</option> }
                            }).collect_view()}
                        </select>
                        <button type="submit" class="secondary">"Show"</button>
                    </Form>
                    {loaded(held, error_line, move |value| match value {
                        l if l.items.is_empty() => view! { <p class="muted">"Nothing is held."</p> }.into_any(),
                        l => {
                            let older = l.next_cursor.clone().map(|c| format!(
                                "/admin/fraud?placement={}&signal={}&cursor={c}",
                                query_value(&placement.get_untracked()),
                                query_value(&signal.get_untracked())
                            ));
                            view! { <HeldTable items=l.items/><OlderLink href=older/> }.into_any()
                        }
                    })}
                </section>
            }.into_any()
        }/>
    }
}

/// Pause or resume one placement's delivery, with a note.
#[component]
fn DeliveryControl(p: PlacementFraudStats, delivery: ServerAction<SetDelivery>) -> impl IntoView {
    let (action, label) = if p.paused_at.is_some() {
        ("resume", "Resume delivery")
    } else {
        ("pause", "Pause delivery")
    };
    view! {
        <ActionForm action=delivery attr:class="inline">
            <CsrfField/>
            <input type="hidden" name="placement_id" value=p.placement_id/>
            <input type="hidden" name="action" value=action/>
            <input name="note" required maxlength="500" placeholder="Note" aria-label="Note"/>
            <Submit action=delivery label class="secondary"/>
        </ActionForm>
    }
}

/// The held conversions with a checkbox each and the bulk decision.
#[component]
fn HeldTable(items: Vec<HeldConversion>) -> impl IntoView {
    view! {
        <form method="post" action="/admin/fraud/decide" id="hold-decisions">
            <CsrfField/>
            <table>
                <thead><tr><th>"Decide"</th><th>"Held"</th><th>"Placement and user"</th><th>"Campaign and goal"</th><th>"Payout"</th><th>"Why"</th></tr></thead>
                <tbody>
                    {items.into_iter().map(|c| {
                        let label = format!("Select {}", c.conversion_id);
                        view! {
                            <tr data-conversion=c.conversion_id.clone()>
                                <td><input type="checkbox" name="conversion_id" value=c.conversion_id.clone() aria-label=label/></td>
                                <td>{c.held_at.map(when).unwrap_or_default()}{c.held_until.map(|u| view! { <br/><span class="muted">{format!("pays {} unless rejected", when(u))}</span> })}</td>
                                <td><code>{c.placement_id.clone().unwrap_or_default()}</code><br/>{c.external_user_id.clone().unwrap_or_default()}</td>
                                <td><code>{c.campaign_id.clone()}</code><br/>{c.goal_id.clone()}</td>
                                <td>{c.payout_micros.money("USD")}</td>
                                <td><Reasons score=c.fraud_score reasons=c.reasons.clone()/></td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
            <div class="row">
                <label class="grow">"Note (kept with the decision)"<input name="note" maxlength="500" placeholder="Click farm on one address"/></label>
                <button type="submit" name="decision" value="APPROVE">"Approve selected"</button>
                <button type="submit" name="decision" value="REJECT" class="danger">"Reject selected"</button>
            </div>
        </form>
    }
}
