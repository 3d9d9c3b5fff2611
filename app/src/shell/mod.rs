//! The HTML document and the route table of the dashboards. The pages a visitor sees
//! (sign-in, registration, recovery) are in the first download; every page behind a
//! sign-in is a lazy route (`lazy`), its code fetched when it is first shown.

use leptos::prelude::*;
use leptos_meta::{MetaTags, Stylesheet, Title, provide_meta_context};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::{Lazy, path};

use crate::components::layout::Layout;
use crate::pages;

mod lazy;

/// The full document rendered on the server; the frontend hydrates `<App/>` inside it.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <HydrationScripts options/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();

    view! {
        <Stylesheet id="app-css" href="/assets/app.css"/>
        <Title formatter=|t: String| if t.is_empty() { "Marketplace".to_owned() } else { format!("{t} · Marketplace") }/>
        <Router>
            <Layout>
                <Routes fallback=|| view! { <pages::NotFound/> }>
                    <Route path=path!("/") view=pages::Home/>
                    <Route path=path!("/sign-in") view=pages::SignInPage/>
                    <Route path=path!("/register") view=pages::RegisterPage/>
                    <Route path=path!("/forgot-password") view=pages::ForgotPasswordPage/>
                    <Route path=path!("/account") view={Lazy::<lazy::Account>::new()}/>
                    <Route path=path!("/account/notifications") view={Lazy::<lazy::Notices>::new()}/>
                    <Route path=path!("/reset-password") view=pages::ResetPasswordPage/>
                    <Route path=path!("/invitation") view=pages::InvitationPage/>
                    <Route path=path!("/confirm-email") view=pages::ConfirmEmailPage/>
                    <Route path=path!("/publisher") view={Lazy::<lazy::PublisherHome>::new()}/>
                    <Route path=path!("/publisher/offers") view={Lazy::<lazy::OfferGallery>::new()}/>
                    <Route path=path!("/publisher/support") view={Lazy::<lazy::SupportInbox>::new()}/>
                    <Route path=path!("/publisher/bans") view={Lazy::<lazy::Bans>::new()}/>
                    <Route path=path!("/publisher/earnings") view={Lazy::<lazy::Earnings>::new()}/>
                    <Route path=path!("/publisher/blacklist") view={Lazy::<lazy::Blacklist>::new()}/>
                    <Route path=path!("/publisher/deliveries") view={Lazy::<lazy::Deliveries>::new()}/>
                    <Route path=path!("/publisher/deliveries/:id") view={Lazy::<lazy::DeliveryDetail>::new()}/>
                    <Route path=path!("/publisher/reports") view={Lazy::<lazy::OffersReport>::new()}/>
                    <Route path=path!("/publisher/surveys") view={Lazy::<lazy::PublisherSurveys>::new()}/>
                    <Route path=path!("/publisher/placements") view={Lazy::<lazy::Placements>::new()}/>
                    <Route path=path!("/publisher/placements/:id") view={Lazy::<lazy::PlacementDetail>::new()}/>
                    <Route path=path!("/publisher/placements/:id/slots/:slot_id") view={Lazy::<lazy::SlotEditor>::new()}/>
                    <Route path=path!("/advertiser") view={Lazy::<lazy::AdvertiserHome>::new()}/>
                    <Route path=path!("/advertiser/billing") view={Lazy::<lazy::AdvertiserBilling>::new()}/>
                    <Route path=path!("/advertiser/billing/funding") view={Lazy::<lazy::AdvertiserFunding>::new()}/>
                    <Route path=path!("/advertiser/campaigns") view={Lazy::<lazy::Campaigns>::new()}/>
                    <Route path=path!("/advertiser/conversions") view={Lazy::<lazy::Conversions>::new()}/>
                    <Route path=path!("/advertiser/reconciliations/:id") view={Lazy::<lazy::Reconciliation>::new()}/>
                    <Route path=path!("/advertiser/surveys") view={Lazy::<lazy::Surveys>::new()}/>
                    <Route path=path!("/advertiser/surveys/:id") view={Lazy::<lazy::SurveyDetail>::new()}/>
                    <Route path=path!("/advertiser/campaigns/new") view={Lazy::<lazy::NewCampaign>::new()}/>
                    <Route path=path!("/advertiser/campaigns/:id") view={Lazy::<lazy::CampaignDetail>::new()}/>
                    <Route path=path!("/advertiser/campaigns/:id/tracking") view={Lazy::<lazy::CampaignTracking>::new()}/>
                    <Route path=path!("/advertiser/campaigns/:id/report") view={Lazy::<lazy::CampaignReport>::new()}/>
                    <Route path=path!("/admin") view={Lazy::<lazy::AdminHome>::new()}/>
                    <Route path=path!("/admin/payouts") view={Lazy::<lazy::AdminPayouts>::new()}/>
                    <Route path=path!("/admin/fraud") view={Lazy::<lazy::AdminFraud>::new()}/>
                    <Route path=path!("/admin/mail") view={Lazy::<lazy::AdminMail>::new()}/>
                    <Route path=path!("/publisher/fraud") view={Lazy::<lazy::PublisherFraud>::new()}/>
                </Routes>
            </Layout>
        </Router>
    }
}
