//! The ad slots of a placement and the form that creates one.

use leptos::prelude::*;

use super::super::{SlotStateBadge, action_error, reason_text};
use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::model::publisher::{AdSlot, Placement, Rounding};
use crate::server_fns::publisher::CreateSlot;

#[component]
pub(in crate::pages::publisher) fn SlotsSection(
    p: Placement,
    create: ServerAction<CreateSlot>,
) -> impl IntoView {
    let slots = p.ad_slots.clone().unwrap_or_default();
    let pid = p.placement_id.clone();
    view! {
        <section class="card" id="ad-slots">
            <h2>"Ad slots"</h2>
            {if slots.is_empty() {
                view! { <p class="muted">"No ad slot yet. Add one below to deliver offers."</p> }.into_any()
            } else {
                view! { <SlotTable pid=pid.clone() slots/> }.into_any()
            }}
            <h3>"New ad slot"</h3>
            <ErrorNotice error=action_error(create)/>
            <ActionForm action=create attr:class="grid-3">
                <CsrfField/>
                <input type="hidden" name="placement_id" value=pid/>
                <label>"Name"<input type="text" name="name" maxlength="80" required/></label>
                <label>"Type"
                    <select name="slot_type" required>
                        {p.capabilities.slot_types.iter().map(|t| view! {
                            <option value=t.as_str()>{t.as_str()}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>"Currency name"<input type="text" name="currency_name" value="Points" maxlength="32"/></label>
                <label>"Decimals"<input type="number" name="decimals" value="0" min="0" max="8"/></label>
                <label>"Rate: minor units"
                    <input type="number" name="rate_numerator" value="0" min="0"/>
                </label>
                <label>"per USD micros"
                    <input type="number" name="rate_denominator" value="1000000" min="1"/>
                    <small class="muted">"1000000 = one US dollar"</small>
                </label>
                <label>"Rounding"<RoundingSelect selected=Rounding::Down/></label>
                <div class="form-actions"><Submit action=create label="Add ad slot"/></div>
            </ActionForm>
        </section>
    }
}

#[component]
fn SlotTable(pid: String, slots: Vec<AdSlot>) -> impl IntoView {
    view! {
        <table class="slots">
            <thead>
                <tr><th>"Name"</th><th>"Type"</th><th>"State"</th><th>"Currency"</th><th>"Readiness"</th></tr>
            </thead>
            <tbody>
                {slots.into_iter().map(|s| {
                    let href = format!("/publisher/placements/{pid}/slots/{}", s.ad_slot_id);
                    let c = &s.currency;
                    let rate = format!(
                        "{} {} per {} USD ({})",
                        crate::model::publisher::rules::format_minor(c.rate_numerator_minor_units, c.decimals),
                        c.name,
                        usd_text(c.rate_denominator_usd_micros.get()),
                        c.rounding.as_str().to_ascii_lowercase()
                    );
                    view! {
                        <tr>
                            <td><a href=href>{s.name.clone()}</a><br/><code class="muted">{s.ad_slot_id.clone()}</code></td>
                            <td>{s.slot_type.as_str()}</td>
                            <td><SlotStateBadge state=s.state/></td>
                            <td>{rate}</td>
                            <td><Readiness reasons=s.readiness.reasons.clone()/></td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}

/// "ready", or the reasons why not.
#[component]
pub(in crate::pages::publisher) fn Readiness(reasons: Vec<String>) -> impl IntoView {
    if reasons.is_empty() {
        return view! { <span class="ok-text">"ready"</span> }.into_any();
    }
    view! {
        <ul class="reasons">
            {reasons.into_iter().map(|r| view! {
                <li><code>{r.clone()}</code>" "{reason_text(&r)}</li>
            }).collect_view()}
        </ul>
    }
    .into_any()
}

/// The rounding choices, with one selected.
#[component]
pub(in crate::pages::publisher) fn RoundingSelect(
    selected: Rounding,
    #[prop(optional)] on_change: Option<Callback<String>>,
) -> impl IntoView {
    view! {
        <select name="rounding" on:change=move |ev| {
            if let Some(cb) = on_change {
                cb.run(event_target_value(&ev));
            }
        }>
            {Rounding::ALL.iter().map(|r| view! {
                <option value=r.as_str() selected=*r == selected>{r.as_str()}</option>
            }).collect_view()}
        </select>
    }
}

/// USD micros as a short amount: `1000000` → `1`, `2500000` → `2.5`.
fn usd_text(micros: i64) -> String {
    let s = crate::model::money::format_micros(micros);
    s.trim_end_matches('0').trim_end_matches('.').to_owned()
}
