//! The signed reward callback of a placement: receiver URL, signing keys, rotation and a
//! signed test request.

use leptos::prelude::*;

use super::super::{CallbackTestView, action_error};
use super::actions::DetailActions;
use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::model::publisher::{CallbackTest, Placement};

#[component]
pub(in crate::pages::publisher) fn CallbackSection(
    p: Placement,
    actions: DetailActions,
    flashed_test: Option<CallbackTest>,
) -> impl IntoView {
    let cb = p.callback.clone();
    let pid = p.placement_id.clone();
    let configured = cb.configured;
    let has_next = cb.next_key_id.is_some();
    let key_id = cb.key_id.clone().unwrap_or_else(|| "none yet".to_owned());
    let next_key_id = cb.next_key_id.clone().unwrap_or_else(|| "none".to_owned());
    // The scripted answer wins over a flash left by an earlier plain post.
    let test = move || match actions.test.value().get() {
        Some(Ok(t)) => Some(t),
        _ => flashed_test.clone(),
    };
    let hidden =
        |id: &String| view! { <input type="hidden" name="placement_id" value=id.clone()/> };
    let (h0, h1, h2, h3, h4) = (
        hidden(&pid),
        hidden(&pid),
        hidden(&pid),
        hidden(&pid),
        hidden(&pid),
    );
    view! {
        <section class="card" id="callback">
            <h2>"Reward callback"</h2>
            <p class="muted">
                "Rewards are confirmed to your server with a signed HTTPS POST. Verify "
                <code>"X-Service-Signature"</code>" (HMAC-SHA256 of "<code>"timestamp.nonce.body"</code>
                ") with the secret of the key named in "<code>"X-Service-Key-Id"</code>"."
            </p>
            <ErrorNotice error=action_error(actions.configure)/>
            <ActionForm action=actions.configure attr:class="row">
                <CsrfField/>
                {h0}
                <label class="grow">"Receiver URL"
                    <input type="url" name="url" required placeholder="https://example.com/rewards"
                        value=cb.url.clone().unwrap_or_default()/>
                </label>
                <button type="submit">{if configured { "Update URL" } else { "Save callback URL" }}</button>
            </ActionForm>
            <dl class="facts">
                <dt>"Status"</dt><dd>{if configured { "ACTIVE" } else { "not configured" }}</dd>
                <dt>"Current key id"</dt><dd><code class="key-id">{key_id}</code></dd>
                <dt>"Next key id"</dt><dd><code class="next-key-id">{next_key_id}</code></dd>
            </dl>
            <ErrorNotice error=action_error(actions.rotate)/>
            <ErrorNotice error=action_error(actions.promote)/>
            <ErrorNotice error=action_error(actions.test)/>
            <ErrorNotice error=action_error(actions.remove_callback)/>
            {configured.then(|| {
                view! {
                <div class="actions">
                    <ActionForm action=actions.rotate attr:class="inline">
                        <CsrfField/>
                        {h1}
                        <Submit action=actions.rotate label="Rotate key" class="secondary"/>
                    </ActionForm>
                    {has_next.then(|| view! {
                        <ActionForm action=actions.promote attr:class="inline">
                            <CsrfField/>
                            {h2}
                            <Submit action=actions.promote label="Promote next key" class="secondary"/>
                        </ActionForm>
                    })}
                    <ActionForm action=actions.test attr:class="inline">
                        <CsrfField/>
                        {h3}
                        <Submit action=actions.test label="Send test" class="secondary"/>
                    </ActionForm>
                    // Unsent rewards wait for the next receiver; its keys are retired.
                    <ActionForm action=actions.remove_callback attr:class="inline">
                        <CsrfField/>
                        {h4}
                        <Submit action=actions.remove_callback label="Remove receiver" class="danger"/>
                    </ActionForm>
                </div>
                }
            })}
            {move || test().map(|test| view! { <CallbackTestView test/> })}
        </section>
    }
}
