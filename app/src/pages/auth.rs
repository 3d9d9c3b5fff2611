//! Sign-in and registration forms. Plain HTML forms that work without JavaScript and are
//! enhanced by hydration.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::components::form::{CsrfField, ErrorNotice};
use crate::server_fns::auth::{Register, SignIn};

#[component]
pub fn SignInPage() -> impl IntoView {
    let action = ServerAction::<SignIn>::new();
    let error = Signal::derive(move || action.value().get().and_then(Result::err));
    view! {
        <Title text="Sign in"/>
        <section class="card narrow">
            <h1>"Sign in"</h1>
            <ErrorNotice error/>
            <ActionForm action>
                <CsrfField/>
                <label>"E-mail"<input type="email" name="email" autocomplete="username" required/></label>
                <label>"Password"<input type="password" name="password" autocomplete="current-password" required/></label>
                <button type="submit">"Sign in"</button>
            </ActionForm>
            <p class="muted">"No account yet? "<a href="/register">"Create one"</a></p>
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
