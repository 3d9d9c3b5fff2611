//! The offer gallery: the live offers this publisher's users could see, filtered like
//! delivery (platform, country, blacklists). A GET form, so it works without JavaScript.

use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

use super::load_error;
use crate::components::loaded::loaded;
use crate::model::publisher::ops::GalleryOffer;
use crate::pages::MemberPage;
use crate::server_fns::publisher::gallery::offer_gallery_data;

#[component]
pub fn OfferGalleryPage() -> impl IntoView {
    // Created in the page body: RequireUser may render its children more than once.
    let query = use_query_map();
    let filter = move |k: &str| query.read().get(k).unwrap_or_default();
    let gallery = Resource::new(
        move || (filter("placementId"), filter("country"), filter("platform")),
        |(p, c, f)| offer_gallery_data(Some(p), Some(c), Some(f)),
    );
    view! {
        <MemberPage title="Offer gallery" back=("/publisher", "← Publisher")>
            <section class="card">
                <h1>"Offer gallery"</h1>
                <p class="muted">"Live offers your users can be shown now, after your blacklists. Payouts are the advertiser's gross amounts per conversion."</p>
                <Form method="get" action="/publisher/offers" attr:class="filters">
                    <input name="country" placeholder="Country (US)" aria-label="Country" maxlength="2" value=move || filter("country")/>
                    <select name="platform" aria-label="Platform">
                        <option value="">"All platforms"</option>
                        {["android", "ios", "web"].into_iter().map(|p| view! {
                            <option value=p selected=move || filter("platform") == p>{p}</option>
                        }).collect_view()}
                    </select>
                    <input name="placementId" placeholder="Placement id (optional)" aria-label="Placement" value=move || filter("placementId")/>
                    <button type="submit" class="secondary">"Filter"</button>
                </Form>
            </section>
            {loaded(gallery, load_error, move |value| match value {
                g if g.items.is_empty() => view! {
                    <section class="card" id="gallery"><p class="muted">"No live offer matches these filters."</p></section>
                }.into_any(),
                g => view! {
                    <section class="card" id="gallery">
                        <p class="muted">{format!("{} live {}", g.count, if g.count == 1 { "offer" } else { "offers" })}</p>
                        <ul class="gallery">
                            {g.items.into_iter().map(|o| view! { <OfferCard offer=o/> }).collect_view()}
                        </ul>
                    </section>
                }.into_any(),
            })}
        </MemberPage>
    }
}

#[component]
fn OfferCard(offer: GalleryOffer) -> impl IntoView {
    view! {
        <li class="offer" data-campaign=offer.campaign_id.clone()>
            <h3>{offer.name.clone()}</h3>
            <p>
                <span class="badge">{offer.category.clone()}</span>" "
                <span class="badge">{offer.task_type.clone()}</span>" "
                <span class="muted">{offer.platforms.join(", ")}" · "{offer.countries.join(", ")}</span>
            </p>
            {offer.description.clone().map(|d| view! { <p>{d}</p> })}
            <table>
                <tbody>
                    {offer.goals.into_iter().map(|g| view! {
                        <tr><td>{g.name}</td><td><code>{g.external_goal_id}</code></td><td class="num">{g.payout_micros.money("USD")}</td></tr>
                    }).collect_view()}
                </tbody>
            </table>
            <p class="num"><strong>{offer.total_payout_micros.money("USD")}</strong>" in total"</p>
        </li>
    }
}
