//! One module per page.

mod account;
mod admin;
mod advertiser;
mod auth;
mod dashboards;
mod home;
mod publisher;

pub use account::{AccountPage, NoticesPage};
pub use admin::{AdminFraudPage, AdminHome, AdminMailPage, AdminPayoutsPage};
pub use advertiser::{BillingPage as AdvertiserBillingPage, FundingPage as AdvertiserFundingPage};
pub use advertiser::{
    CampaignDetailPage, CampaignReportPage, CampaignTrackingPage, CampaignsPage, NewCampaignPage,
};
pub use advertiser::{ConversionsPage, ReconciliationPage, SurveyDetailPage, SurveysPage};
pub use auth::{
    ConfirmEmailPage, ForgotPasswordPage, InvitationPage, RegisterPage, ResetPasswordPage,
    SignInPage, email_notice,
};
pub use dashboards::{AdvertiserHome, PublisherHome};
pub use home::{Home, NotFound};
pub use publisher::{
    BansPage, BlacklistPage, DeliveriesPage, DeliveryDetailPage, EarningsPage, OfferGalleryPage,
    OffersReportPage, PlacementDetailPage, PlacementsPage, PublisherFraudPage,
    PublisherSurveysPage, SlotEditorPage, SupportInboxPage,
};

use leptos::prelude::*;

use crate::components::session::{AuthContext, CsrfToken};
use crate::model::AccountView;

/// A dashboard page for any signed-in member: its title, the way back (`(href, label)`)
/// and the content, or a sign-in prompt.
#[component]
pub fn MemberPage(
    title: &'static str,
    back: (&'static str, &'static str),
    children: ChildrenFn,
) -> impl IntoView {
    view! {
        <leptos_meta::Title text=title/>
        <RequireUser signed_in=move |_u: AccountView| view! {
            <p class="crumbs"><a href=back.0 rel="external">{back.1}</a></p>
            {children()}
        }/>
    }
}

/// Renders `signed_in` with the current account, or a sign-in prompt.
#[component]
pub fn RequireUser<F, V>(signed_in: F) -> impl IntoView
where
    F: Fn(AccountView) -> V + Send + Sync + Clone + 'static,
    V: IntoView + 'static,
{
    let auth = expect_context::<AuthContext>();
    let csrf = use_context::<CsrfToken>();
    let path = leptos_router::hooks::use_location().pathname;
    view! {
        <Suspense fallback=|| view! { <p>"Loading…"</p> }>
            {
                let signed_in = signed_in.clone();
                move || {
                    let signed_in = signed_in.clone();
                    Suspend::new(async move {
                        let visitor = auth.session.await.ok();
                        if let (Some(CsrfToken(t)), Some(v)) = (csrf, visitor.as_ref()) {
                            t.set(Some((path.get_untracked(), v.csrf.clone())));
                        }
                        match visitor.and_then(|s| s.user) {
                            Some(u) => signed_in(u).into_any(),
                            None => view! {
                                <section class="card">
                                    <h1>"Sign in required"</h1>
                                    <p><a href="/sign-in">"Sign in"</a>" to open this page."</p>
                                </section>
                            }
                            .into_any(),
                        }
                    })
                }
            }
        </Suspense>
    }
}

/// An instant as the dashboards show it: `2026-11-27 09:30 UTC`.
pub(crate) fn when(t: chrono::DateTime<chrono::Utc>) -> String {
    t.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// The link to a list's next (older) page, when there is one. A full page load
/// (`rel="external"`), so it works the same without JavaScript.
#[component]
pub(crate) fn OlderLink(href: Option<String>) -> impl IntoView {
    href.map(
        |href| view! { <p><a class="button secondary" href=href rel="external">"Older →"</a></p> },
    )
}

/// `s` percent-encoded as a query-string value (for "Older →" links that keep a filter).
pub(crate) fn query_value(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
