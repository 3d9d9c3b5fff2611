//! Signed user identity of a placement: the secret the publisher's server signs users with,
//! and whether only signed users' sessions read their support and reward history.

use leptos::prelude::*;

use super::super::action_error;
use super::actions::DetailActions;
use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::error::AppError;
use crate::model::user_identity::UserIdentitySettings;

#[component]
pub(in crate::pages::publisher) fn UserIdentitySection(
    placement_id: String,
    settings: Result<UserIdentitySettings, AppError>,
    actions: DetailActions,
) -> impl IntoView {
    let s = settings.unwrap_or(UserIdentitySettings {
        placement_id: placement_id.clone(),
        required: false,
        secret_issued_at: None,
    });
    let issued = s
        .secret_issued_at
        .map(|t| format!("issued {}", t.format("%Y-%m-%d %H:%M UTC")))
        .unwrap_or_else(|| "none yet".to_owned());
    let has_secret = s.secret_issued_at.is_some();
    let (pid, pid2) = (placement_id.clone(), placement_id);
    view! {
        <section class="card" id="user-identity">
            <h2>"Signed user identity"</h2>
            <p class="muted">
                "Anyone can open an SDK session for any user id. To keep a user's support cases, your replies and "
                "their reward history private, let your server sign the user id: "
                <code>"hex(HMAC-SHA256(secret, \"v1:{placementId}:{externalUserId}:{expiresAt}\"))"</code>
                ", passed as "<code>"userSignature"</code>" with "<code>"userSignatureExpiresAt"</code>
                " (Unix seconds) when the session is created. See the web SDK guide."
            </p>
            <dl class="facts">
                <dt>"Secret"</dt><dd class="user-identity-secret">{issued}</dd>
                <dt>"Signed users required"</dt><dd class="user-identity-required">{if s.required { "yes" } else { "no" }}</dd>
            </dl>
            <ErrorNotice error=action_error(actions.user_secret)/>
            <ErrorNotice error=action_error(actions.user_required)/>
            <div class="actions">
                <ActionForm action=actions.user_secret attr:class="inline">
                    <CsrfField/>
                    <input type="hidden" name="placement_id" value=pid/>
                    <button type="submit" class="secondary">
                        {if has_secret { "Rotate secret" } else { "Issue secret" }}
                    </button>
                </ActionForm>
                <ActionForm action=actions.user_required attr:class="inline">
                    <CsrfField/>
                    <input type="hidden" name="placement_id" value=pid2/>
                    <label class="check">
                        <input type="checkbox" name="required" checked=s.required/>
                        "Show history only to signed users"
                    </label>
                    <Submit action=actions.user_required label="Save" class="secondary"/>
                </ActionForm>
            </div>
        </section>
    }
}
