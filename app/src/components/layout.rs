//! The page frame: a header with role-aware navigation and the sign-out button.

use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_location;

use crate::components::form::CsrfField;
use crate::model::{AccountView, Role};
use crate::server_fns::auth::{SignOut, session_info};
use crate::shell::AuthContext;

#[component]
pub fn Layout(children: Children) -> impl IntoView {
    let location = use_location();
    let session = Resource::new(move || location.pathname.get(), |_| session_info());
    let auth = AuthContext { session };
    provide_context(auth);
    view! {
        <header class="topbar">
            <a class="brand" href="/">"Marketplace"</a>
            <Suspense fallback=|| ()>
                {move || Suspend::new(async move {
                    let user = auth.session.await.ok().and_then(|s| s.user);
                    view! { <Nav user/> }
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
fn Nav(user: Option<AccountView>) -> impl IntoView {
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
                    <span class="who" title=u.role.as_str()>{u.email.clone()}</span>
                    <ActionForm action=sign_out attr:class="inline">
                        <CsrfField/>
                        <button type="submit" class="link">"Sign out"</button>
                    </ActionForm>
                </nav>
            }
            .into_any()
        }
    }
}
