//! Landing page and the not-found page.

use leptos::prelude::*;
use leptos_meta::Title;

#[component]
pub fn Home() -> impl IntoView {
    view! {
        <Title text=""/>
        <section class="hero">
            <h1>"Rewarded offers and surveys, with money you can audit."</h1>
            <p>
                "Publishers embed an offerwall or pull a static feed and receive signed reward callbacks. "
                "Advertisers fund one wallet and run offer and survey campaigns with goals, budgets and quotas."
            </p>
            <p class="actions">
                <a class="button" href="/register">"Create an account"</a>
                <a class="button secondary" href="/sign-in">"Sign in"</a>
            </p>
        </section>
    }
}

#[component]
pub fn NotFound() -> impl IntoView {
    #[cfg(feature = "ssr")]
    {
        if let Some(resp) = use_context::<leptos_axum::ResponseOptions>() {
            resp.set_status(http::StatusCode::NOT_FOUND);
        }
    }
    view! {
        <Title text="Not found"/>
        <section class="card">
            <h1>"Page not found"</h1>
            <p><a href="/">"Back to the start"</a></p>
        </section>
    }
}
