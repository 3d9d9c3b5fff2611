//! Form helpers: the CSRF field every form carries and the display of a refusal.

use leptos::prelude::*;

use crate::error::AppError;
use crate::shell::AuthContext;

/// Hidden synchronizer token, read from the session resource.
#[component]
pub fn CsrfField() -> impl IntoView {
    let auth = expect_context::<AuthContext>();
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                let token = auth.session.await.map(|s| s.csrf).unwrap_or_default();
                view! { <input type="hidden" name="csrf" value=token/> }
            })}
        </Suspense>
    }
}

/// Shows the last refusal of an action, with its field errors.
#[component]
pub fn ErrorNotice(#[prop(into)] error: Signal<Option<AppError>>) -> impl IntoView {
    move || {
        error.get().map(|e| {
            let fields = e.field_errors.clone();
            view! {
                <div class="notice error" role="alert">
                    <strong>{e.message.clone()}</strong>
                    <ul>
                        {fields.into_iter().map(|(f, w)| view! { <li><code>{f}</code>" "{w}</li> }).collect_view()}
                    </ul>
                </div>
            }
        })
    }
}
