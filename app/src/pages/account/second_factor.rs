//! The second-factor card of `/account`: turn on a TOTP second factor (scan the QR code or
//! type the secret, then confirm a code; ten recovery codes are shown once), turn it off,
//! or make new recovery codes. Plain forms that work without JavaScript.

use leptos::prelude::*;

use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::components::loaded::{error_line, loaded};
use crate::error::AppError;
use crate::model::OneTimeSecret;
use crate::model::second_factor::SecondFactorEnrolment;
use crate::pages::advertiser::successes;
use crate::pages::publisher::action_error;
use crate::server_fns::second_factor::{
    ConfirmSecondFactor, DisableSecondFactor, FactorSummary, RenewRecoveryCodes, StartSecondFactor,
    second_factor_summary,
};

/// The card's actions and data, made in the page body (see `api_keys::KeysData`).
#[derive(Clone, Copy)]
pub struct FactorData {
    start: ServerAction<StartSecondFactor>,
    confirm: ServerAction<ConfirmSecondFactor>,
    disable: ServerAction<DisableSecondFactor>,
    renew: ServerAction<RenewRecoveryCodes>,
    summary: Resource<Result<FactorSummary, AppError>>,
}

impl FactorData {
    pub fn new() -> Self {
        let start = ServerAction::<StartSecondFactor>::new();
        let confirm = ServerAction::<ConfirmSecondFactor>::new();
        let disable = ServerAction::<DisableSecondFactor>::new();
        let renew = ServerAction::<RenewRecoveryCodes>::new();
        let done = (
            successes(start),
            successes(confirm),
            successes(disable),
            successes(renew),
        );
        let summary = Resource::new(
            move || (done.0.get(), done.1.get(), done.2.get(), done.3.get()),
            |_| second_factor_summary(),
        );
        FactorData {
            start,
            confirm,
            disable,
            renew,
            summary,
        }
    }
}

#[component]
pub fn SecondFactorCard(data: FactorData) -> impl IntoView {
    let FactorData {
        start,
        confirm,
        disable,
        renew,
        summary,
    } = data;
    let error = Signal::derive(move || {
        action_error(start)
            .get()
            .or(action_error(confirm).get())
            .or(action_error(disable).get())
            .or(action_error(renew).get())
    });
    let fresh = Signal::derive(move || {
        confirm
            .value()
            .get()
            .and_then(Result::ok)
            .or(renew.value().get().and_then(Result::ok))
    });
    view! {
        <section class="card" id="second-factor">
            <h2>"Second factor"</h2>
            <ErrorNotice error/>
            {loaded(summary, error_line, move |f| {
                let codes = fresh.get_untracked().or(f.codes.clone());
                let state = f.state.clone();
                view! {
                    {f.required.then(|| view! {
                        <p class="notice" role="status" id="second-factor-required">"Administrators of this service need a second factor before they can act as administrators."</p>
                    })}
                    {codes.map(|c| view! { <Codes codes=c/> })}
                    {if state.enabled {
                        view! { <Enabled left=state.recovery_codes_left disable renew/> }.into_any()
                    } else {
                        view! { <Off pending=state.pending start confirm/> }.into_any()
                    }}
                }.into_any()
            })}
        </section>
    }
}

#[component]
fn Codes(codes: OneTimeSecret) -> impl IntoView {
    view! {
        <div class="notice secret" role="status" id="recovery-codes">
            <strong>{codes.label}</strong>
            <p>"Each code signs you in once if you lose your phone. Keep them somewhere safe: they are not shown again."</p>
            <pre class="secret-value"><code>{codes.value}</code></pre>
        </div>
    }
}

#[component]
fn Off(
    pending: Option<SecondFactorEnrolment>,
    start: ServerAction<StartSecondFactor>,
    confirm: ServerAction<ConfirmSecondFactor>,
) -> impl IntoView {
    let Some(e) = pending else {
        return view! {
            <p id="second-factor-state" data-state="off">"Off. With a second factor, signing in, changing payout details, requesting payouts and creating API keys also ask for a code from an authenticator app on your phone."</p>
            <ActionForm action=start attr:id="start-second-factor">
                <CsrfField/>
                <label>"Current password"<input type="password" name="current_password" autocomplete="current-password" required/></label>
                <Submit action=start label="Turn on a second factor"/>
            </ActionForm>
        }
        .into_any();
    };
    view! {
        <p id="second-factor-state" data-state="pending">"Scan the code with an authenticator app (or type the key), then enter the six digits it shows."</p>
        <div class="qr" inner_html=e.qr_svg></div>
        <p>"Key: "<code id="second-factor-secret">{e.secret}</code></p>
        <ActionForm action=confirm attr:id="confirm-second-factor">
            <CsrfField/>
            <label>"Code from the app"<input name="code" autocomplete="one-time-code" inputmode="numeric" maxlength="6" required/></label>
            <Submit action=confirm label="Confirm and turn on"/>
        </ActionForm>
    }
    .into_any()
}

#[component]
fn Enabled(
    left: u64,
    disable: ServerAction<DisableSecondFactor>,
    renew: ServerAction<RenewRecoveryCodes>,
) -> impl IntoView {
    view! {
        <p id="second-factor-state" data-state="on">{format!("On. {left} recovery codes left.")}</p>
        <ActionForm action=renew attr:id="renew-recovery-codes" attr:class="row">
            <CsrfField/>
            <label>"Code from the app"<input name="code" autocomplete="one-time-code" maxlength="20" required/></label>
            <Submit action=renew label="New recovery codes"/>
        </ActionForm>
        <ActionForm action=disable attr:id="disable-second-factor" attr:class="row">
            <CsrfField/>
            <label>"Current password"<input type="password" name="current_password" autocomplete="current-password" required/></label>
            <label>"Code from the app (or a recovery code)"<input name="code" autocomplete="one-time-code" maxlength="20" required/></label>
            <button type="submit" class="danger">"Turn off"</button>
        </ActionForm>
    }
}
