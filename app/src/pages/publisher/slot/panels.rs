//! Pieces of the slot page: the reward preview (live when scripted, a GET form otherwise),
//! state changes, the static feed key form and the SDK snippets.

use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::use_location;

use super::super::action_error;
use crate::components::form::{CsrfField, ErrorNotice};
use crate::error::AppError;
use crate::model::money::Micros;
use crate::model::publisher::rules::{convert, format_minor};
use crate::model::publisher::{AdSlot, Currency, RewardPreview, Rounding, SlotState, Snippets};
use crate::server_fns::publisher::{ArchiveSlot, IssueStaticKey, SetSlotState, usd_to_micros};

/// The currency fields as typed in the form, for the preview computed in the browser.
#[derive(Clone, Copy)]
pub(in crate::pages::publisher) struct LiveCurrency {
    pub name: RwSignal<String>,
    pub decimals: RwSignal<String>,
    pub numerator: RwSignal<String>,
    pub denominator: RwSignal<String>,
    pub minimum: RwSignal<String>,
    pub rounding: RwSignal<String>,
    pub usd: RwSignal<String>,
    /// Set by the first edit: from then on the preview follows the form, not the server.
    pub touched: RwSignal<bool>,
}

impl LiveCurrency {
    pub fn new(c: &Currency, usd: String) -> Self {
        LiveCurrency {
            name: RwSignal::new(c.name.clone()),
            decimals: RwSignal::new(c.decimals.to_string()),
            numerator: RwSignal::new(c.rate_numerator_minor_units.to_string()),
            denominator: RwSignal::new(c.rate_denominator_usd_micros.get().to_string()),
            minimum: RwSignal::new(c.minimum_payout_minor_units.to_string()),
            rounding: RwSignal::new(c.rounding.as_str().to_owned()),
            usd: RwSignal::new(usd),
            touched: RwSignal::new(false),
        }
    }

    /// An input handler that copies the field's text into `field`.
    pub fn bind(self, field: RwSignal<String>) -> impl Fn(leptos::ev::Event) + 'static {
        move |ev| {
            field.set(event_target_value(&ev));
            self.touched.set(true);
        }
    }

    /// `(amount, currency, meets minimum)` or why the numbers cannot be converted.
    fn compute(&self) -> Result<(String, String, bool), &'static str> {
        let usd =
            usd_to_micros(&self.usd.get()).ok_or("Enter a payout in dollars, such as 1.50.")?;
        let int = |s: RwSignal<String>| s.get().trim().parse::<i64>().ok();
        let bad = "Enter whole numbers for the rate, decimals (0 to 8) and minimum payout.";
        let decimals = int(self.decimals)
            .filter(|d| (0..=8).contains(d))
            .ok_or(bad)?;
        let minimum = int(self.minimum).filter(|m| *m >= 0).ok_or(bad)?;
        let rounding = Rounding::parse(&self.rounding.get()).unwrap_or(Rounding::Down);
        let minor = convert(
            Micros(usd),
            int(self.numerator).ok_or(bad)?,
            int(self.denominator).ok_or(bad)?,
            rounding,
        )
        .ok_or("The rate cannot convert this amount (the denominator must be positive).")?;
        let decimals = i32::try_from(decimals).unwrap_or(0);
        Ok((
            format_minor(minor, decimals),
            self.name.get(),
            minor >= minimum,
        ))
    }
}

#[component]
fn PreviewResult(
    amount: String,
    currency: String,
    meets: bool,
    note: &'static str,
) -> impl IntoView {
    view! {
        <p class="preview-result">
            <strong class="amount">{amount}</strong>" "{currency}
        </p>
        <p class=if meets { "ok-text" } else { "error" }>
            {if meets { "Meets the minimum payout." } else { "Below the minimum payout: not paid out yet." }}
        </p>
        <p class="muted">{note}</p>
    }
}

#[component]
pub(in crate::pages::publisher) fn PreviewPanel(
    live: LiveCurrency,
    server: Result<RewardPreview, AppError>,
) -> impl IntoView {
    let path = use_location().pathname.get_untracked();
    let shown = move || {
        if live.touched.get() {
            return match live.compute() {
                Ok((amount, currency, meets)) => view! {
                    <PreviewResult amount currency meets note="Live, from the form (not saved yet)."/>
                }
                .into_any(),
                Err(why) => view! { <p class="error">{why}</p> }.into_any(),
            };
        }
        match server.clone() {
            Ok(p) => view! {
                <PreviewResult amount=p.display currency=p.currency meets=p.meets_minimum_payout
                    note="With the saved configuration."/>
            }
            .into_any(),
            Err(e) => view! { <p class="error">{e.message}</p> }.into_any(),
        }
    };
    view! {
        <section class="card preview">
            <h2>"Reward preview"</h2>
            <Form method="get" action=path attr:class="row">
                <label class="grow">"Offer payout (USD)"
                    <input type="text" name="usd" inputmode="decimal" value=live.usd.get_untracked()
                        on:input=live.bind(live.usd)/>
                </label>
                <button type="submit" class="secondary">"Preview"</button>
            </Form>
            {shown}
        </section>
    }
}

#[component]
pub(in crate::pages::publisher) fn StateForm(
    ad_slot: AdSlot,
    action: ServerAction<SetSlotState>,
) -> impl IntoView {
    let slot = ad_slot;
    let slot_for_archive = slot.clone();
    let can_activate = matches!(slot.state, SlotState::Ready | SlotState::Disabled);
    let can_disable = matches!(slot.state, SlotState::Ready | SlotState::Active);
    view! {
        <ErrorNotice error=action_error(action)/>
        <ActionForm action attr:class="actions">
            <CsrfField/>
            <input type="hidden" name="placement_id" value=slot.placement_id/>
            <input type="hidden" name="slot_id" value=slot.ad_slot_id/>
            {can_activate.then(|| view! { <button type="submit" name="state" value="ACTIVE">"Activate"</button> })}
            {can_disable.then(|| view! { <button type="submit" name="state" value="DISABLED" class="secondary">"Disable"</button> })}
            {(!can_activate && !can_disable).then(|| view! {
                <span class="muted">"The slot can be activated once it is ready and the placement is released."</span>
            })}
        </ActionForm>
        <ArchiveForm ad_slot=slot_for_archive/>
    }
}

/// Archiving a slot that is not active (an active one is disabled first).
#[component]
fn ArchiveForm(ad_slot: AdSlot) -> impl IntoView {
    let action = ServerAction::<ArchiveSlot>::new();
    let active = ad_slot.state == SlotState::Active;
    view! {
        <ErrorNotice error=action_error(action)/>
        {(!active).then(|| view! {
            <ActionForm action attr:class="actions">
                <CsrfField/>
                <input type="hidden" name="placement_id" value=ad_slot.placement_id.clone()/>
                <input type="hidden" name="slot_id" value=ad_slot.ad_slot_id.clone()/>
                <button type="submit" class="danger">"Archive slot"</button>
                <span class="muted">"It leaves delivery and lists; its static keys stop working. History is kept."</span>
            </ActionForm>
        })}
    }
}

#[component]
pub(in crate::pages::publisher) fn StaticKeyForm(
    ad_slot: AdSlot,
    action: ServerAction<IssueStaticKey>,
) -> impl IntoView {
    let slot = ad_slot;
    view! {
        <section class="card">
            <h2>"Static feed key"</h2>
            <p class="muted">
                "A key for pulling this slot's static offer feed. Issuing a new key deactivates the previous one. Keys expire within a year."
            </p>
            <ErrorNotice error=action_error(action)/>
            <ActionForm action attr:class="row">
                <CsrfField/>
                <input type="hidden" name="placement_id" value=slot.placement_id/>
                <input type="hidden" name="slot_id" value=slot.ad_slot_id/>
                <label>"Expires on"<input type="date" name="expires_on" required/></label>
                <label class="grow">"Reason"<input type="text" name="reason" minlength="3" maxlength="200" required
                    placeholder="Partner feed for example.com"/></label>
                <button type="submit">"Issue static key"</button>
            </ActionForm>
        </section>
    }
}

#[component]
pub(in crate::pages::publisher) fn SnippetsPanel(
    snippets: Result<Snippets, AppError>,
) -> impl IntoView {
    match snippets {
        Err(e) => view! { <section class="card"><p class="error">{e.message}</p></section> }.into_any(),
        Ok(s) => view! {
            <section class="card">
                <h2>"SDK snippets"</h2>
                <p class="muted">"These snippets contain no credential; they are safe to commit."</p>
                <h3>"Android"</h3><pre class="snippet-android">{s.android}</pre>
                <h3>"iOS"</h3><pre class="snippet-ios">{s.ios}</pre>
                <h3>"Web"</h3><pre class="snippet-web">{s.web}</pre>
            </section>
        }
        .into_any(),
    }
}
