//! `/advertiser/campaigns`: the wallet and the offer campaigns with their money.

use leptos::prelude::*;
use leptos_meta::Title;

use super::super::BalanceCard;
use super::{CampaignBadge, campaign_load_error, when};
use crate::components::loaded::loaded;
use crate::error::AppError;
use crate::model::AccountView;
use crate::model::campaign::Campaign;
use crate::pages::RequireUser;
use crate::server_fns::campaigns::{CampaignsOverview, offer_campaigns};

#[component]
pub fn CampaignsPage() -> impl IntoView {
    // Created in the page body, before RequireUser (its content can render more than once).
    let query = leptos_router::hooks::use_query_map();
    let cursor = Memo::new(move |_| query.read().get("cursor"));
    let overview = Resource::new(move || cursor.get(), offer_campaigns);
    view! {
        <Title text="Offer campaigns"/>
        <RequireUser signed_in=move |_u: AccountView| view! { <CampaignsView overview/> }/>
    }
}

#[component]
fn CampaignsView(overview: Resource<Result<CampaignsOverview, AppError>>) -> impl IntoView {
    view! {
        <p class="crumbs"><a href="/advertiser" rel="external">"← Advertiser"</a></p>
        {loaded(overview, campaign_load_error, move |o| view! {
            {o.balance.map(|balance| view! { <BalanceCard balance funding_link=true/> })}
            <CampaignTable campaigns=o.campaigns.items
                older=o.campaigns.next_cursor.map(|c| format!("/advertiser/campaigns?cursor={c}"))/>
        }.into_any())}
    }
}

#[component]
fn CampaignTable(campaigns: Vec<Campaign>, older: Option<String>) -> impl IntoView {
    let empty = campaigns.is_empty();
    view! {
        <section class="card" id="campaigns">
            <div class="card-head">
                <h1>"Offer campaigns"</h1>
                <a class="button" href="/advertiser/campaigns/new" rel="external">"New campaign"</a>
            </div>
            <p class="muted">
                "A campaign reserves its unspent budget from the balance while it is LIVE; pausing or ending it releases the reserve."
            </p>
            {if empty {
                view! { <p class="muted">"No campaigns yet."</p> }.into_any()
            } else {
                view! {
                    <table class="campaigns">
                        <thead>
                            <tr>
                                <th>"Campaign"</th><th>"Status"</th><th>"Tracking"</th>
                                <th>"Budget (USD)"</th><th>"Reserved (USD)"</th><th>"Spent (USD)"</th><th>"Updated"</th>
                            </tr>
                        </thead>
                        <tbody>
                            {campaigns.into_iter().map(|c| view! { <CampaignRow c/> }).collect_view()}
                        </tbody>
                    </table>
                }.into_any()
            }}
            <crate::pages::OlderLink href=older/>
        </section>
    }
}

#[component]
fn CampaignRow(c: Campaign) -> impl IntoView {
    let href = format!("/advertiser/campaigns/{}", c.campaign_id);
    view! {
        <tr data-campaign=c.campaign_id.clone()>
            <td>
                <a href=href rel="external"><strong>{c.config.name.clone()}</strong></a><br/>
                <code class="muted">{c.campaign_id.clone()}</code>
            </td>
            <td><CampaignBadge status=c.status/></td>
            <td><code>{c.config.tracking_provider.clone()}</code></td>
            <td class="num budget">{c.config.budget_micros.amount_in("USD")}</td>
            <td class="num reserved">{c.reserved_micros.amount_in("USD")}</td>
            <td class="num spent">{c.spent_micros.amount_in("USD")}</td>
            <td>{when(c.updated_at)}</td>
        </tr>
    }
}
