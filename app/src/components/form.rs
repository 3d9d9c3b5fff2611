//! Form helpers: the CSRF field every form carries and the display of a refusal.

use leptos::prelude::*;

use crate::components::session::{AuthContext, CsrfToken};
use crate::error::AppError;
use crate::model::OneTimeSecret;

/// Hidden synchronizer token: the one `RequireUser` read with the session, or, on the
/// pages for visitors who are not signed in, read from the session resource.
#[component]
pub fn CsrfField() -> impl IntoView {
    let here = leptos_router::hooks::use_location()
        .pathname
        .get_untracked();
    let known = use_context::<CsrfToken>()
        .and_then(|CsrfToken(t)| t.get_untracked())
        .filter(|(path, _)| *path == here)
        .map(|(_, token)| token);
    if let Some(token) = known {
        return view! { <input type="hidden" name="csrf" value=token/> }.into_any();
    }
    let auth = expect_context::<AuthContext>();
    view! {
        <Suspense fallback=|| ()>
            {move || Suspend::new(async move {
                let token = auth.session.await.map(|s| s.csrf).unwrap_or_default();
                view! { <input type="hidden" name="csrf" value=token/> }
            })}
        </Suspense>
    }
    .into_any()
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

/// A submit button that shows it is working and cannot be pressed again while its action
/// runs (with JavaScript; a plain form post is one navigation anyway).
#[component]
pub fn Submit<S>(
    action: ServerAction<S>,
    #[prop(into)] label: String,
    #[prop(optional, into)] class: Option<String>,
) -> impl IntoView
where
    S: leptos::server_fn::ServerFn<Error = AppError> + Clone + Send + Sync + 'static,
    S::Output: Clone + Send + Sync + 'static,
{
    let pending = action.pending();
    view! {
        <button type="submit" class=class disabled=move || pending.get()
            aria-busy=move || pending.get().then_some("true")>
            {move || if pending.get() { "Working…".to_owned() } else { label.clone() }}
        </button>
    }
}

/// The status `<select>` of a GET filter: `all` (value "") and `choices` (value, label),
/// with the one in `current` selected.
#[component]
pub fn StatusSelect(
    current: Memo<String>,
    all: &'static str,
    choices: Vec<(&'static str, &'static str)>,
) -> impl IntoView {
    view! {
        <select name="status" aria-label="Status">
            <option value="" selected=move || current.get().is_empty()>{all}</option>
            {choices.into_iter().map(|(v, l)| view! {
                <option value=v selected=move || current.get() == v>{l}</option>
            }).collect_view()}
        </select>
    }
}

/// A secret or token shown right after issuance, once.
#[component]
pub fn OnceSecret(secret: OneTimeSecret) -> impl IntoView {
    view! {
        <div class="notice secret" role="status">
            <strong>{secret.label}</strong>
            <p>"Copy it now: it will not be shown again."</p>
            <pre class="secret-value"><code>{secret.value}</code></pre>
        </div>
    }
}

/// The code of the account's second factor, asked again before an action that moves money
/// or grants access (a payout profile change, a payout request, an API key). Left empty by
/// accounts without one.
#[component]
pub fn SecondFactorField() -> impl IntoView {
    view! {
        <label class="second-factor">"Authentication code "
            <span class="muted">"(if you turned on a second factor)"</span>
            <input type="text" name="otp" autocomplete="one-time-code" inputmode="numeric" maxlength="20"/>
        </label>
    }
}
