//! The pages behind a sign-in as lazily loaded routes (issue 56): each dashboard's code
//! (the account page, the publisher's, the advertiser's, the administrator's pages) is a
//! wasm chunk of its own, which the browser fetches when one of its pages is first shown,
//! and which the server names in a `<link rel=preload>` when it renders such a page. A
//! visitor to the sign-in page downloads only what a visitor can use.
//!
//! One split point per dashboard, not per page: `wasm-split` gives every set of split
//! points that shares code a chunk of its own, so 31 page-level points made 891 chunks and
//! a page needed up to 329 requests; four areas make a few.
//!
//! On the server a lazy route renders like any other; in the browser build
//! (`scripts/build-frontend.sh`, with `wasm-split`) `#[lazy]` marks the split point.

use leptos::lazy;
use leptos::prelude::*;
use leptos_router::LazyRoute;

use crate::pages;

/// For one dashboard: an enum of its pages, one `#[lazy]` function that renders any of them
/// (the split point), and one route type per page whose view awaits that function.
///
/// `$preload` is the loader `#[lazy]` generates in the browser build (`__preload_<area>`):
/// the router awaits a route's `preload` before it hydrates the page, so the chunk must be
/// loaded there (a view still loading when hydration reaches it would not match the HTML).
macro_rules! lazy_area {
    ($area:ident, $preload:ident, $pages:ident { $($route:ident => $page:path),* $(,)? }) => {
        #[derive(Clone, Copy)]
        enum $pages { $($route),* }

        #[lazy]
        fn $area(page: $pages) -> AnyView {
            match page {
                $($pages::$route => $page().into_any()),*
            }
        }

        $(
            #[doc = concat!("The lazily loaded `", stringify!($page), "`.")]
            pub struct $route;

            impl LazyRoute for $route {
                fn data() -> Self {
                    Self
                }

                async fn view(_this: Self) -> AnyView {
                    $area($pages::$route).await
                }

                async fn preload() {
                    #[cfg(feature = "hydrate")]
                    $preload().await;
                }
            }
        )*
    };
}

lazy_area!(account_area, __preload_account_area, AccountPages {
    Account => pages::AccountPage,
    Notices => pages::NoticesPage,
});

lazy_area!(publisher_area, __preload_publisher_area, PublisherPages {
    PublisherHome => pages::PublisherHome,
    OfferGallery => pages::OfferGalleryPage,
    SupportInbox => pages::SupportInboxPage,
    Bans => pages::BansPage,
    Earnings => pages::EarningsPage,
    Blacklist => pages::BlacklistPage,
    Deliveries => pages::DeliveriesPage,
    DeliveryDetail => pages::DeliveryDetailPage,
    OffersReport => pages::OffersReportPage,
    PublisherSurveys => pages::PublisherSurveysPage,
    Placements => pages::PlacementsPage,
    PlacementDetail => pages::PlacementDetailPage,
    SlotEditor => pages::SlotEditorPage,
    PublisherFraud => pages::PublisherFraudPage,
});

lazy_area!(advertiser_area, __preload_advertiser_area, AdvertiserPages {
    AdvertiserHome => pages::AdvertiserHome,
    AdvertiserBilling => pages::AdvertiserBillingPage,
    AdvertiserFunding => pages::AdvertiserFundingPage,
    Campaigns => pages::CampaignsPage,
    Conversions => pages::ConversionsPage,
    Reconciliation => pages::ReconciliationPage,
    Surveys => pages::SurveysPage,
    SurveyDetail => pages::SurveyDetailPage,
    NewCampaign => pages::NewCampaignPage,
    CampaignDetail => pages::CampaignDetailPage,
    CampaignTracking => pages::CampaignTrackingPage,
    CampaignReport => pages::CampaignReportPage,
});

lazy_area!(admin_area, __preload_admin_area, AdminPages {
    AdminHome => pages::AdminHome,
    AdminPayouts => pages::AdminPayoutsPage,
    AdminFraud => pages::AdminFraudPage,
    AdminMail => pages::AdminMailPage,
});
