//! The slot page's hosted offerwall section (OFFERWALL slots): the wall's look and contents,
//! and a button that opens it for a test user. The fields are documented in docs/web-sdk.md.

use leptos::prelude::*;

use super::super::action_error;
use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::model::publisher::AdSlot;
use crate::model::wall_design::{WallDesign, WallExposure};
use crate::server_fns::publisher::wall::SaveWallSettings;

#[component]
pub fn WallSection(ad_slot: AdSlot, verified: bool) -> impl IntoView {
    let save = ServerAction::<SaveWallSettings>::new();
    let error = action_error(save);
    let saved = move || save.value().get().is_some_and(|r| r.is_ok());
    let d = WallDesign::read(&ad_slot.design);
    let e = WallExposure::read(&ad_slot.exposure);
    let field = move |name: &'static str| {
        move || {
            error.get().and_then(|e| {
                e.field_errors
                    .get(name)
                    .map(|why| view! { <small class="field-error">{why.clone()}</small> })
            })
        }
    };
    let (pid, sid) = (ad_slot.placement_id.clone(), ad_slot.ad_slot_id.clone());
    let (preview_pid, preview_sid) = (pid.clone(), sid.clone());
    view! {
        <section class="card" id="hosted-wall">
            <h2>"Hosted offerwall"</h2>
            <p class="muted">
                "The page a session's hostedOfferwallUrl opens: in a web view, or from the web SDK. "
                "Empty fields use the defaults (your slot name as the title, a blue accent)."
            </p>
            <ErrorNotice error/>
            <Show when=saved>
                <div class="notice ok" role="status">"Saved as a new configuration version."</div>
            </Show>
            <ActionForm action=save attr:class="grid-2 wall-form">
                <CsrfField/>
                <input type="hidden" name="placement_id" value=pid/>
                <input type="hidden" name="slot_id" value=sid/>
                <label>"Title"
                    <input type="text" name="title" maxlength="60" placeholder=ad_slot.name.clone() value=d.title.unwrap_or_default()/>
                    {field("design.title")}
                </label>
                <label>"Accent colour"
                    <input type="text" name="accent_color" placeholder="#1A73E8" value=d.accent_color.unwrap_or_default()/>
                    {field("design.accentColor")}
                </label>
                <label class="span-2">"Logo URL (https)"
                    <input type="url" name="logo_url" placeholder="https://cdn.example.com/logo.png" value=d.logo_url.unwrap_or_default()/>
                    {field("design.logoUrl")}
                </label>
                <label>"Offers per page"
                    <input type="number" name="max_offers" min="1" max="100" value=e.max_offers/>
                    {field("exposure.maxOffers")}
                </label>
                <fieldset>
                    <legend>"Show"</legend>
                    <label class="check"><input type="checkbox" name="dark_mode" checked=d.dark_mode/>"Dark mode"</label>
                    <label class="check"><input type="checkbox" name="show_reward_status" checked=e.show_reward_status/>"My rewards tab"</label>
                    <label class="check"><input type="checkbox" name="show_support" checked=e.show_support/>"Help tab"</label>
                </fieldset>
                <div class="form-actions span-2"><Submit action=save label="Save wall settings"/></div>
            </ActionForm>
            // A plain form on purpose: the answer redirects to the wall, a page outside the
            // dashboard's router, so the browser must load it rather than the client router.
            <form method="post" action="/fn/publisher_wall_preview" class="inline wall-preview">
                <CsrfField/>
                <input type="hidden" name="placement_id" value=preview_pid/>
                <input type="hidden" name="slot_id" value=preview_sid/>
                <button type="submit" class="secondary" disabled=!verified>"Open the wall as a test user"</button>
                <small class="muted">
                    {if verified {
                        "A development session for the user dashboard-preview; offers you launch from it are real clicks."
                    } else {
                        "Available once the placement is verified."
                    }}
                </small>
            </form>
        </section>
    }
}
