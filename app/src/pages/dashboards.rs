//! Publisher and advertiser home pages.

use leptos::prelude::*;
use leptos_meta::Title;

use super::RequireUser;
use crate::model::{AccountStatus, AccountView};

#[component]
pub fn PublisherHome() -> impl IntoView {
    view! {
        <Title text="Publisher"/>
        <RequireUser signed_in=|u: AccountView| view! {
            <section class="card">
                <h1>"Publisher dashboard"</h1>
                <p>"Signed in as "<strong>{u.email}</strong>" for "{u.company_name}"."</p>
                <p class="muted">"Integration order: create a placement, add an ad slot, configure the signed reward callback, request review, then go live after release."</p>
            </section>
        }/>
    }
}

#[component]
pub fn AdvertiserHome() -> impl IntoView {
    view! {
        <Title text="Advertiser"/>
        <RequireUser signed_in=|u: AccountView| {
            let pending = u.status == AccountStatus::Pending;
            view! {
                <section class="card">
                    <h1>"Advertiser dashboard"</h1>
                    <p>"Signed in as "<strong>{u.email.clone()}</strong>" for "{u.company_name.clone()}"."</p>
                    <Show when=move || pending>
                        <div class="notice warn" role="status">
                            "Your account is awaiting review by an administrator. Funding, campaigns and API credentials open once it is approved."
                        </div>
                    </Show>
                </section>
            }
        }/>
    }
}
