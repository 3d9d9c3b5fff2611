//! Publisher and advertiser home pages.

use leptos::prelude::*;
use leptos_meta::Title;

use super::RequireUser;
use super::publisher::{PlacementsData, PlacementsPanel};
use crate::model::{AccountStatus, AccountView};

/// The publisher's landing page: the integration steps and the placements.
#[component]
pub fn PublisherHome() -> impl IntoView {
    let data = PlacementsData::new();
    view! {
        <Title text="Publisher"/>
        <RequireUser signed_in=move |u: AccountView| view! {
            <section class="card">
                <h1>"Publisher dashboard"</h1>
                <p>"Signed in as "<strong>{u.email}</strong>" for "{u.company_name}"."</p>
                <ol class="steps">
                    <li>"Create a placement for your app, website or API integration."</li>
                    <li>"Add an ad slot with your currency and its exchange rate."</li>
                    <li>"Configure the signed reward callback and send a test."</li>
                    <li>"Request review."</li>
                    <li>"Go live once an administrator has verified and released the placement."</li>
                </ol>
                <p>
                    <a class="button secondary" href="/publisher/offers" rel="external">"Offer gallery"</a>" "
                    <a class="button secondary" href="/publisher/support" rel="external">"Support inbox"</a>" "
                    <a class="button secondary" href="/publisher/deliveries" rel="external">"Reward callbacks"</a>" "
                    <a class="button secondary" href="/publisher/reports" rel="external">"Offers report"</a>" "
                    <a class="button secondary" href="/publisher/surveys" rel="external">"Surveys"</a>
                </p>
            </section>
            <PlacementsPanel data base="/publisher"/>
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
                <section class="card" id="advertiser-billing">
                    <h2>"Billing"</h2>
                    <p class="muted">
                        "One balance funds all your survey and offer campaigns. Add funds by card or wire transfer; invoices are issued monthly."
                    </p>
                    <div class="actions">
                        <a class="button" href="/advertiser/billing" rel="external">"Billing and invoices"</a>
                        <a class="button secondary" href="/advertiser/billing/funding" rel="external">"Add funds"</a>
                    </div>
                </section>
                <section class="card" id="advertiser-campaigns">
                    <h2>"Offer campaigns"</h2>
                    <p class="muted">
                        "Rewarded offers with goals and a budget: create a campaign, set up conversion tracking, submit it for review."
                    </p>
                    <div class="actions">
                        <a class="button" href="/advertiser/campaigns" rel="external">"Offer campaigns"</a>
                        <a class="button secondary" href="/advertiser/campaigns/new" rel="external">"New campaign"</a>
                    </div>
                </section>
                <section class="card" id="advertiser-surveys">
                    <h2>"Survey campaigns"</h2>
                    <p class="muted">
                        "Surveys with quotas and qualifications, managed through the signed survey API: issue a key, pay from the wallet, edit targeting."
                    </p>
                    <div class="actions">
                        <a class="button" href="/advertiser/surveys" rel="external">"Survey campaigns"</a>
                    </div>
                </section>
            }
        }/>
    }
}
