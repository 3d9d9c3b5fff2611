//! The "where you are signed in" card of `/account`: the account's browsers (device,
//! address, when) and dashboard tokens, each with a button that signs it out at once.

use leptos::prelude::*;

use crate::components::form::{CsrfField, ErrorNotice};
use crate::components::loaded::{error_line, loaded};
use crate::error::AppError;
use crate::model::signed_in::SignedInList;
use crate::pages::advertiser::successes;
use crate::pages::publisher::action_error;
use crate::server_fns::auth::{SignOutSession, signed_in_list};

/// The card's action and data, made in the page body (see `api_keys::KeysData`).
#[derive(Clone, Copy)]
pub struct SessionsData {
    sign_out: ServerAction<SignOutSession>,
    list: Resource<Result<SignedInList, AppError>>,
}

impl SessionsData {
    pub fn new() -> Self {
        let sign_out = ServerAction::<SignOutSession>::new();
        let done = successes(sign_out);
        let list = Resource::new(move || done.get(), |_| signed_in_list());
        SessionsData { sign_out, list }
    }
}

fn when(t: Option<chrono::DateTime<chrono::Utc>>) -> String {
    t.map_or_else(
        || "—".to_owned(),
        |t| t.format("%Y-%m-%d %H:%M UTC").to_string(),
    )
}

#[component]
pub fn SessionsCard(data: SessionsData) -> impl IntoView {
    let SessionsData { sign_out, list } = data;
    let button = move |id: String| {
        view! {
            <ActionForm action=sign_out>
                <CsrfField/>
                <input type="hidden" name="session_id" value=id/>
                <button type="submit" class="danger">"Sign out"</button>
            </ActionForm>
        }
    };
    view! {
        <section class="card" id="sessions">
            <h2>"Where you are signed in"</h2>
            <ErrorNotice error=action_error(sign_out)/>
            {loaded(list, error_line, move |l| {
                let browsers = l.browsers.into_iter().map(|b| view! {
                    <tr data-session=b.id.clone()>
                        <td>{if b.device.is_empty() { "unknown browser".to_owned() } else { b.device.clone() }}</td>
                        <td>{b.address.clone()}</td>
                        <td>{when(b.signed_in_at)}</td>
                        <td>{if b.current { view! { <strong>"this browser"</strong> }.into_any() } else { button(b.id.clone()).into_any() }}</td>
                    </tr>
                }).collect_view();
                let tokens = l.tokens.into_iter().map(|t| view! {
                    <tr data-session=t.id.clone()>
                        <td>"API token"</td>
                        <td><code>{t.id.clone()}</code></td>
                        <td>{when(Some(t.created_at))}" (expires "{when(Some(t.expires_at))}")"</td>
                        <td>{button(t.id.clone())}</td>
                    </tr>
                }).collect_view();
                view! {
                    <table class="sessions">
                        <thead><tr><th>"Browser or token"</th><th>"From"</th><th>"Signed in"</th><th></th></tr></thead>
                        <tbody>{browsers}{tokens}</tbody>
                    </table>
                }.into_any()
            })}
        </section>
    }
}
