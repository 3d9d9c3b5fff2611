//! Sign-in and registration forms. Plain HTML forms that work without JavaScript and are
//! enhanced by hydration.

use leptos::prelude::*;
use leptos_meta::Title;

use leptos_router::hooks::use_query_map;

use crate::components::form::{CsrfField, ErrorNotice};
use crate::model::account::PASSWORD_RESET_SENT;
use crate::server_fns::auth::{Register, RequestPasswordReset, ResetPassword, SignIn};

#[component]
pub fn SignInPage() -> impl IntoView {
    let action = ServerAction::<SignIn>::new();
    let error = Signal::derive(move || action.value().get().and_then(Result::err));
    let query = use_query_map();
    let reset = move || query.read().get("reset").is_some();
    let email = move || query.read().get("email");
    view! {
        <Title text="Sign in"/>
        <section class="card narrow">
            <h1>"Sign in"</h1>
            {move || reset().then(|| view! { <p class="notice ok" role="status" id="password-changed">"Your password was changed. Sign in with the new one."</p> })}
            {move || email().map(|e| view! { <p class="notice ok" role="status" id="email-confirmed">{email_notice(&e)}</p> })}
            <ErrorNotice error/>
            <ActionForm action>
                <CsrfField/>
                <label>"E-mail"<input type="email" name="email" autocomplete="username" required/></label>
                <label>"Password"<input type="password" name="password" autocomplete="current-password" required/></label>
                <label>"Authentication code "<span class="muted">"(only if you turned on a second factor: six digits from your app, or a recovery code)"</span>
                    <input type="text" name="otp" autocomplete="one-time-code" inputmode="numeric" maxlength="20"/>
                </label>
                <button type="submit">"Sign in"</button>
            </ActionForm>
            <p class="muted"><a href="/forgot-password">"Forgot your password?"</a>" · No account yet? "<a href="/register">"Create one"</a></p>
        </section>
    }
}

/// `/forgot-password`: asks for a reset link. The page says the same whatever the address.
#[component]
pub fn ForgotPasswordPage() -> impl IntoView {
    let action = ServerAction::<RequestPasswordReset>::new();
    let error = Signal::derive(move || action.value().get().and_then(Result::err));
    let query = use_query_map();
    let sent = move || query.read().get("sent").is_some();
    view! {
        <Title text="Forgot your password"/>
        <section class="card narrow">
            <h1>"Choose a new password"</h1>
            {move || sent().then(|| view! { <p class="notice ok" role="status" id="reset-sent">{PASSWORD_RESET_SENT}</p> })}
            <ErrorNotice error/>
            <ActionForm action>
                <CsrfField/>
                <label>"E-mail of your account"<input type="email" name="email" autocomplete="username" required/></label>
                <button type="submit">"Send me a link"</button>
            </ActionForm>
            <p class="muted"><a href="/sign-in">"Back to sign-in"</a></p>
        </section>
    }
}

/// `/reset-password?token=…`: the page a reset letter links to.
#[component]
pub fn ResetPasswordPage() -> impl IntoView {
    let action = ServerAction::<ResetPassword>::new();
    let error = Signal::derive(move || action.value().get().and_then(Result::err));
    let query = use_query_map();
    let token = move || query.read().get("token").unwrap_or_default();
    view! {
        <Title text="New password"/>
        <section class="card narrow">
            <h1>"Choose a new password"</h1>
            <ErrorNotice error/>
            <ActionForm action>
                <CsrfField/>
                <input type="hidden" name="token" value=token/>
                <label>"New password (at least 10 characters)"
                    <input type="password" name="new_password" autocomplete="new-password" minlength="10" required/>
                </label>
                <button type="submit">"Set the new password"</button>
            </ActionForm>
            <p class="muted">"Every browser and API token signed in to the account is signed out."</p>
        </section>
    }
}

#[component]
pub fn RegisterPage() -> impl IntoView {
    let action = ServerAction::<Register>::new();
    let error = Signal::derive(move || action.value().get().and_then(Result::err));
    view! {
        <Title text="Create account"/>
        <section class="card narrow">
            <h1>"Create an account"</h1>
            <ErrorNotice error/>
            <ActionForm action>
                <CsrfField/>
                <label>"Company"<input type="text" name="company_name" autocomplete="organization" required/></label>
                <label>"E-mail"<input type="email" name="email" autocomplete="username" required/></label>
                <label>"Password (at least 10 characters)"
                    <input type="password" name="password" autocomplete="new-password" minlength="10" required/>
                </label>
                <fieldset>
                    <legend>"I am"</legend>
                    <label class="radio"><input type="radio" name="role" value="PUBLISHER" checked/>"a publisher (apps and websites)"</label>
                    <label class="radio"><input type="radio" name="role" value="ADVERTISER"/>"an advertiser (reviewed before funding)"</label>
                </fieldset>
                <button type="submit">"Create account"</button>
            </ActionForm>
        </section>
    }
}

/// `/invitation?token=…`: what the link offers (organisation, address, role) and a form to
/// choose the new member's password; accepting signs them in.
#[component]
pub fn InvitationPage() -> impl IntoView {
    use crate::components::loaded::loaded;
    use crate::server_fns::team::{AcceptInvitation, invitation_details};
    let action = ServerAction::<AcceptInvitation>::new();
    let error = Signal::derive(move || action.value().get().and_then(Result::err));
    let query = use_query_map();
    let token = move || query.read().get("token").unwrap_or_default();
    let offer = Resource::new(token, invitation_details);
    let refused = |e: crate::error::AppError| {
        view! {
            <p class="notice error" role="alert" id="invitation-invalid">{e.to_string()}</p>
        }
        .into_any()
    };
    view! {
        <Title text="Join a team"/>
        <section class="card narrow">
            <h1>"Join a team"</h1>
            {loaded(offer, refused, move |o| view! {
                <p id="invitation-offer">{o.company_name.clone()}" invites "<strong>{o.email.clone()}</strong>" with the role "<strong>{o.role.as_str()}</strong>"."</p>
                <ErrorNotice error/>
                <ActionForm action>
                    <CsrfField/>
                    <input type="hidden" name="token" value=token/>
                    <label>"Choose your password (at least 10 characters)"
                        <input type="password" name="password" autocomplete="new-password" minlength="10" required/>
                    </label>
                    <button type="submit">"Join"</button>
                </ActionForm>
                <p class="muted">"You sign in with "{o.email.clone()}" and this password; the link works once, until "{o.expires_at.format("%Y-%m-%d %H:%M UTC").to_string()}"."</p>
            }.into_any())}
        </section>
    }
}

/// What a used e-mail link did, for the page it returns to.
pub fn email_notice(what: &str) -> &'static str {
    if what == "changed" {
        "Your sign-in e-mail is changed: sign in with the new address."
    } else {
        "Your e-mail address is confirmed."
    }
}

/// `/confirm-email?token=…`: the page an e-mail link opens. A button uses the link (opening
/// a page must not: mail scanners open links on their own).
#[component]
pub fn ConfirmEmailPage() -> impl IntoView {
    use crate::server_fns::email::ConfirmEmail;
    let action = ServerAction::<ConfirmEmail>::new();
    let error = Signal::derive(move || action.value().get().and_then(Result::err));
    let query = use_query_map();
    let token = move || query.read().get("token").unwrap_or_default();
    view! {
        <Title text="Confirm your e-mail"/>
        <section class="card narrow">
            <h1>"Confirm your e-mail address"</h1>
            <ErrorNotice error/>
            <ActionForm action>
                <CsrfField/>
                <input type="hidden" name="token" value=token/>
                <button type="submit">"Confirm"</button>
            </ActionForm>
        </section>
    }
}
