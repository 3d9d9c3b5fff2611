//! The e-mail card of `/account`: the sign-in address and whether it is confirmed (with a
//! button that sends the link again), and a form to change it after entering the password
//! (a link goes to the new address; the old one is told). Plain forms without JavaScript.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use crate::components::form::{CsrfField, ErrorNotice};
use crate::model::AccountView;
use crate::pages::publisher::action_error;
use crate::server_fns::email::{ChangeEmail, ResendVerification};

/// The card's actions, made in the page body (see `api_keys::KeysData`).
#[derive(Clone, Copy)]
pub struct EmailData {
    resend: ServerAction<ResendVerification>,
    change: ServerAction<ChangeEmail>,
}

impl EmailData {
    pub fn new() -> Self {
        EmailData {
            resend: ServerAction::<ResendVerification>::new(),
            change: ServerAction::<ChangeEmail>::new(),
        }
    }
}

#[component]
pub fn EmailCard(data: EmailData, user: AccountView) -> impl IntoView {
    let EmailData { resend, change } = data;
    let error = Signal::derive(move || action_error(resend).get().or(action_error(change).get()));
    let query = use_query_map();
    let said = move |what: &str| query.read().get("email").as_deref() == Some(what);
    // With JavaScript the action's answer says it; without, the address it returns to.
    let sent = move || resend.value().get().is_some_and(|r| r.is_ok()) || said("resent");
    let asked = move || change.value().get().is_some_and(|r| r.is_ok()) || said("sent");
    let confirmed = move || {
        query
            .read()
            .get("email")
            .filter(|e| e == "verified" || e == "changed")
    };
    view! {
        <section class="card narrow" id="email">
            <h2>"E-mail address"</h2>
            {move || confirmed().map(|e| view! { <p class="notice ok" role="status" id="email-confirmed">{crate::pages::email_notice(&e)}</p> })}
            <ErrorNotice error/>
            <p>{user.email.clone()}" · "
                {if user.email_verified {
                    view! { <span id="email-state">"confirmed"</span> }.into_any()
                } else {
                    view! { <strong id="email-state">"not confirmed yet"</strong> }.into_any()
                }}
            </p>
            {(!user.email_verified).then(|| view! {
                <p class="muted">"We mailed you a link when you registered. Inviting a team needs a confirmed address."</p>
                {move || sent().then(|| view! { <p class="notice ok" role="status">"A new link is on its way."</p> })}
                <ActionForm action=resend>
                    <CsrfField/>
                    <button type="submit">"Send the link again"</button>
                </ActionForm>
            })}
            <h3>"Change the address"</h3>
            {move || asked().then(|| view! { <p class="notice ok" role="status" id="email-change-sent">"We sent a link to the new address; your address changes once you use it. Your current address was told."</p> })}
            <ActionForm action=change>
                <CsrfField/>
                <label>"New e-mail"<input type="email" name="new_email" autocomplete="email" required/></label>
                <label>"Current password"<input type="password" name="current_password" autocomplete="current-password" required/></label>
                <button type="submit">"Send a link to the new address"</button>
            </ActionForm>
        </section>
    }
}
