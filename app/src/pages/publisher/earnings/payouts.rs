//! The payout half of the earnings page: the profile form, the request form and the list of
//! payouts with "Cancel" while a payout awaits approval.

use leptos::prelude::*;

use super::super::{action_error, load_error};
use super::USD;
use crate::components::form::{CsrfField, ErrorNotice, SecondFactorField, Submit};
use crate::error::AppError;
use crate::model::publisher::payouts::{
    Payout, PayoutList, PayoutMethod, PayoutProfile, PayoutStatus,
};
use crate::pages::{OlderLink, when};
use crate::server_fns::earnings::{CancelPayout, RequestPayout, SavePayoutProfile};

/// The page's payout actions (created in the page body).
#[derive(Clone, Copy)]
pub(super) struct Actions {
    pub save: ServerAction<SavePayoutProfile>,
    pub request: ServerAction<RequestPayout>,
    pub cancel: ServerAction<CancelPayout>,
}

#[component]
pub(super) fn PayoutForms(
    actions: Actions,
    profile: Resource<Result<Option<PayoutProfile>, AppError>>,
) -> impl IntoView {
    view! {
        <section class="card" id="payout-profile">
            <h2>"Payout profile"</h2>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    let current = profile.await.ok().flatten();
                    let summary = current.as_ref().map(|p| format!(
                        "Paid to {} ({}) by {}: {}",
                        p.legal_name, p.country,
                        if p.method == PayoutMethod::BankTransfer { "bank transfer" } else { "payment service" },
                        p.details_hint,
                    )).unwrap_or_else(|| "Set where you are paid before requesting a payout.".to_owned());
                    let name = current.as_ref().map(|p| p.legal_name.clone()).unwrap_or_default();
                    let country = current.as_ref().map(|p| p.country.clone()).unwrap_or_default();
                    view! {
                        <p class="muted" data-profile>{summary}</p>
                        <ErrorNotice error=action_error(actions.save)/>
                        <ActionForm action=actions.save attr:class="grid-3">
                            <CsrfField/>
                            <label>"Legal name" <input name="legal_name" required maxlength="200" value=name/></label>
                            <label>"Country (ISO code, e.g. DE)" <input name="country" required maxlength="2" value=country/></label>
                            <label>"Method"
                                <select name="method">
                                    <option value="BANK_TRANSFER">"Bank transfer (IBAN)"</option>
                                    <option value="PAYMENT_SERVICE">"Payment service account"</option>
                                </select>
                            </label>
                            <label class="span-2">"IBAN or payment-service account (stored encrypted, shown only as a hint)"
                                <input name="details" required maxlength="200" autocomplete="off"/>
                            </label>
                            <SecondFactorField/>
                            <Submit action=actions.save label="Save profile"/>
                        </ActionForm>
                    }
                })}
            </Transition>
        </section>
        <section class="card" id="request-payout">
            <h2>"Request a payout"</h2>
            <ErrorNotice error=action_error(actions.request)/>
            <ActionForm action=actions.request attr:class="grid-3">
                <CsrfField/>
                <label>"Amount in USD (empty: everything available)"
                    <input name="amount" inputmode="decimal" placeholder="50.00"/>
                </label>
                <SecondFactorField/>
                <Submit action=actions.request label="Request payout"/>
            </ActionForm>
        </section>
    }
}

#[component]
pub(super) fn PayoutTable(
    actions: Actions,
    payouts: Resource<Result<PayoutList, AppError>>,
) -> impl IntoView {
    view! {
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                match payouts.await {
                    Err(error) => load_error(error),
                    Ok(list) if list.items.is_empty() => view! {
                        <section class="card" id="payouts"><h2>"Payouts"</h2><p class="muted">"No payouts yet."</p></section>
                    }.into_any(),
                    Ok(list) => {
                        let older = list.next_cursor.clone().map(|c| format!("/publisher/earnings?payouts={c}#payouts"));
                        view! {
                            <section class="card" id="payouts">
                                <h2>"Payouts"</h2>
                                <ErrorNotice error=action_error(actions.cancel)/>
                                <table>
                                    <thead><tr><th>"Requested"</th><th>"Amount"</th><th>"To"</th><th>"Status"</th><th>"Reference or reason"</th><th></th></tr></thead>
                                    <tbody>{list.items.into_iter().map(|p| view! { <PayoutRow p cancel=actions.cancel/> }).collect_view()}</tbody>
                                </table>
                                <OlderLink href=older/>
                            </section>
                        }.into_any()
                    }
                }
            })}
        </Transition>
    }
}

#[component]
fn PayoutRow(p: Payout, cancel: ServerAction<CancelPayout>) -> impl IntoView {
    let note = p
        .external_reference
        .clone()
        .or_else(|| p.reason.clone())
        .unwrap_or_default();
    let open = p.status == PayoutStatus::Requested;
    let id = p.id.clone();
    view! {
        <tr data-payout=p.id.clone()>
            <td>{when(p.created_at)}</td>
            <td>{p.amount_micros.money(USD)}</td>
            <td>{p.details_hint.clone()}</td>
            <td><span class="badge">{p.status.as_str()}</span></td>
            <td>{note}</td>
            <td>
                {open.then(|| view! {
                    <ActionForm action=cancel attr:class="inline">
                        <CsrfField/>
                        <input type="hidden" name="payout_id" value=id.clone()/>
                        <Submit action=cancel label="Cancel" class="secondary"/>
                    </ActionForm>
                })}
            </td>
        </tr>
    }
}
