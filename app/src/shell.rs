//! The HTML document and the route table of the dashboards.

use leptos::prelude::*;
use leptos_meta::{MetaTags, Stylesheet, Title, provide_meta_context};
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

use crate::components::layout::Layout;
use crate::pages;

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
                    <Route path=path!("/account") view=pages::AccountPage/>
                    <Route path=path!("/reset-password") view=pages::ResetPasswordPage/>
                    <Route path=path!("/invitation") view=pages::InvitationPage/>
                    <Route path=path!("/confirm-email") view=pages::ConfirmEmailPage/>
                    <Route path=path!("/publisher") view=pages::PublisherHome/>
                    <Route path=path!("/publisher/offers") view=pages::OfferGalleryPage/>
                    <Route path=path!("/publisher/support") view=pages::SupportInboxPage/>
                    <Route path=path!("/publisher/bans") view=pages::BansPage/>
                    <Route path=path!("/publisher/earnings") view=pages::EarningsPage/>
                    <Route path=path!("/publisher/blacklist") view=pages::BlacklistPage/>
                    <Route path=path!("/publisher/deliveries") view=pages::DeliveriesPage/>
                    <Route path=path!("/publisher/deliveries/:id") view=pages::DeliveryDetailPage/>
                    <Route path=path!("/publisher/reports") view=pages::OffersReportPage/>
                    <Route path=path!("/publisher/surveys") view=pages::PublisherSurveysPage/>
                    <Route path=path!("/publisher/placements") view=pages::PlacementsPage/>
                    <Route path=path!("/publisher/placements/:id") view=pages::PlacementDetailPage/>
                    <Route path=path!("/publisher/placements/:id/slots/:slot_id") view=pages::SlotEditorPage/>
                    <Route path=path!("/advertiser") view=pages::AdvertiserHome/>
                    <Route path=path!("/advertiser/billing") view=pages::AdvertiserBillingPage/>
                    <Route path=path!("/advertiser/billing/funding") view=pages::AdvertiserFundingPage/>
                    <Route path=path!("/advertiser/campaigns") view=pages::CampaignsPage/>
                    <Route path=path!("/advertiser/conversions") view=pages::ConversionsPage/>
                    <Route path=path!("/advertiser/reconciliations/:id") view=pages::ReconciliationPage/>
                    <Route path=path!("/advertiser/surveys") view=pages::SurveysPage/>
                    <Route path=path!("/advertiser/surveys/:id") view=pages::SurveyDetailPage/>
                    <Route path=path!("/advertiser/campaigns/new") view=pages::NewCampaignPage/>
                    <Route path=path!("/advertiser/campaigns/:id") view=pages::CampaignDetailPage/>
                    <Route path=path!("/advertiser/campaigns/:id/tracking") view=pages::CampaignTrackingPage/>
                    <Route path=path!("/advertiser/campaigns/:id/report") view=pages::CampaignReportPage/>
                    <Route path=path!("/admin") view=pages::AdminHome/>
                    <Route path=path!("/admin/payouts") view=pages::AdminPayoutsPage/>
                    <Route path=path!("/admin/fraud") view=pages::AdminFraudPage/>
                    <Route path=path!("/admin/mail") view=pages::AdminMailPage/>
                    <Route path=path!("/publisher/fraud") view=pages::PublisherFraudPage/>
                </Routes>
            </Layout>
        </Router>
    }
}
