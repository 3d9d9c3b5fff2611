//! The page frame: a header with role-aware navigation and the sign-out button.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_location;

use crate::components::session::{AuthContext, CsrfToken};
use crate::model::{AccountView, Role};
use crate::server_fns::auth::{SignOut, session_info};

#[component]
pub fn Layout(children: Children) -> impl IntoView {
    let location = use_location();
    // The pages read `session`; the navigation reads a resource of its own, so no resource
    // is read in two boundaries (on the server both answer from the preloaded visitor).
    let session = Resource::new(move || location.pathname.get(), |_| session_info());
    let nav_session = Resource::new(move || location.pathname.get(), |_| session_info());
    provide_context(AuthContext { session });
    provide_context(CsrfToken(RwSignal::new(None)));
    view! {
        <header class="topbar">
            <a class="brand" href="/">"Marketplace"</a>
            <Suspense fallback=|| ()>
                {move || Suspend::new(async move {
                    let s = nav_session.await.ok();
                    let csrf = s.as_ref().map(|s| s.csrf.clone()).unwrap_or_default();
                    let user = s.and_then(|s| s.user);
                    view! { <Nav user csrf/> }
                })}
            </Suspense>
        </header>
        <main class="content">{children()}</main>
        <footer class="footer">
            <a href="/docs">"API reference"</a>
            " · "
            <a href="/openapi.json">"OpenAPI"</a>
        </footer>
    }
}

#[component]
fn Nav(user: Option<AccountView>, csrf: String) -> impl IntoView {
    let sign_out = ServerAction::<SignOut>::new();
    match user {
        None => view! {
            <nav class="nav">
                <A href="/sign-in">"Sign in"</A>
                <A href="/register">"Create account"</A>
            </nav>
        }
        .into_any(),
        Some(u) => {
            let links: Vec<(&str, &str)> = match u.role {
                Role::Publisher => vec![("/publisher", "Publisher")],
                Role::Advertiser => vec![("/advertiser", "Advertiser")],
                Role::Admin | Role::Superadmin => vec![
                    ("/admin", "Admin"),
                    ("/publisher", "Publisher"),
                    ("/advertiser", "Advertiser"),
                ],
            };
            view! {
                <nav class="nav">
                    {links.into_iter().map(|(href, label)| view! { <A href=href>{label}</A> }).collect_view()}
                    <a href="/account/notifications" id="nav-notifications">"Notifications"</a>
                    <a class="who" href="/account" title=u.role.as_str()>{u.email.clone()}</a>
                    <ActionForm action=sign_out attr:class="inline">
                        <input type="hidden" name="csrf" value=csrf.clone()/>
                        <button type="submit" class="link">"Sign out"</button>
                    </ActionForm>
                </nav>
            }
            .into_any()
        }
    }
}
