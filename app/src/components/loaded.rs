//! A page part drawn from a resource: "Loading…" until it arrives, the value once it has,
//! the refusal when the server function answered one. One place for the pattern every
//! dashboard page repeats.

use leptos::prelude::*;

use crate::error::AppError;

/// Draws `resource` with `ok` once it has loaded, or with `failed` when it answered an
/// error. The previous drawing stays while a newer answer loads (a `Transition`), so a
/// form's refresh does not flash "Loading…".
pub fn loaded<T, Ser, F>(
    resource: Resource<Result<T, AppError>, Ser>,
    failed: fn(AppError) -> AnyView,
    ok: F,
) -> impl IntoView
where
    T: Clone + Send + Sync + 'static,
    Ser: Send + Sync + 'static,
    F: Fn(T) -> AnyView + Clone + Send + Sync + 'static,
{
    view! {
        <Transition fallback=|| view! { <p>"Loading…"</p> }>
            {move || {
                let ok = ok.clone();
                Suspend::new(async move {
                    match resource.await {
                        Err(error) => failed(error),
                        Ok(value) => ok(value),
                    }
                })
            }}
        </Transition>
    }
}

/// The refusal as one line of text, for a part of a page.
pub fn error_line(error: AppError) -> AnyView {
    view! { <p class="error">{error.message}</p> }.into_any()
}

/// A page whose data was refused (an account still pending, a missing record, …): what
/// happened, what the pending account waits for, and the way back.
#[component]
pub fn Refusal(
    error: AppError,
    title: &'static str,
    /// Shown when the account is not approved yet.
    pending: &'static str,
    back: (&'static str, &'static str),
) -> impl IntoView {
    let waiting = error.code == "account_pending";
    view! {
        <section class="card">
            <h1>{title}</h1>
            <p class="error">{error.message}</p>
            {waiting.then(|| view! { <p class="muted">{pending}</p> })}
            <p><a href=back.0 rel="external">{back.1}</a></p>
        </section>
    }
}
