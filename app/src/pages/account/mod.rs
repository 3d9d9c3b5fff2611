//! `/account`: the signed-in person's own security (issue 54, part 2): changing the password
//! after entering the current one, and signing out everywhere. Plain forms that work without
//! JavaScript. API keys for the dashboard API in [`api_keys`], the second factor in
//! [`second_factor`], the browsers and tokens signed in in [`sessions`], the organisation's
//! team in [`team`].

mod api_keys;
mod email;
mod notices;
mod second_factor;
mod sessions;
mod team;

pub use notices::NoticesPage;

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::components::form::{CsrfField, ErrorNotice};
use crate::model::AccountView;
use crate::pages::RequireUser;
use crate::server_fns::auth::{ChangePassword, SignOutEverywhere};

#[component]
pub fn AccountPage() -> impl IntoView {
    let change = ServerAction::<ChangePassword>::new();
    let everywhere = ServerAction::<SignOutEverywhere>::new();
    let change_error = Signal::derive(move || change.value().get().and_then(Result::err));
    let everywhere_error = Signal::derive(move || everywhere.value().get().and_then(Result::err));
    let keys = api_keys::KeysData::new();
    let factor = second_factor::FactorData::new();
    let signed_in = sessions::SessionsData::new();
    let team = team::TeamData::new();
    let email = email::EmailData::new();
    let query = use_query_map();
    let changed = move || query.read().get("changed").is_some();
    view! {
        <Title text="Your account"/>
        <RequireUser signed_in=move |u: AccountView| view! {
            <section class="card narrow" id="password">
                <h1>"Your account"</h1>
                <p>{u.email.clone()}" · "{u.role.as_str()}" · "{u.company_name.clone()}" · team role "<span id="team-role">{u.team_role.as_str()}</span></p>
                <p><a href="/account/notifications" id="notifications-link">"Notifications, what you are told and account webhooks →"</a></p>
                {move || changed().then(|| view! { <p class="notice ok" role="status" id="password-changed">"Your password was changed. Every other browser and token was signed out."</p> })}
                <h2>"Change the password"</h2>
                <ErrorNotice error=change_error/>
                <ActionForm action=change>
                    <CsrfField/>
                    <label>"Current password"<input type="password" name="current_password" autocomplete="current-password" required/></label>
                    <label>"New password (at least 10 characters)"
                        <input type="password" name="new_password" autocomplete="new-password" minlength="10" required/>
                    </label>
                    <button type="submit">"Change the password"</button>
                </ActionForm>
            </section>
            <email::EmailCard data=email user=u.clone()/>
            <second_factor::SecondFactorCard data=factor/>
            <api_keys::ApiKeysCard data=keys/>
            <sessions::SessionsCard data=signed_in/>
            <team::TeamCard data=team/>
            <section class="card narrow" id="everywhere">
                <h2>"Sign out everywhere"</h2>
                <p class="muted">"Signs out every browser, this one too, and revokes every dashboard token of the account, in every process at once. API keys keep working: revoke them above. Use it when a device is lost or a password may have leaked."</p>
                <ErrorNotice error=everywhere_error/>
                <ActionForm action=everywhere>
                    <CsrfField/>
                    <button type="submit" class="danger">"Sign out everywhere"</button>
                </ActionForm>
            </section>
        }/>
    }
}
