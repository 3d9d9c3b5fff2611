//! The "Send payouts" card of `/admin/payouts`: approved payouts leave in batches, by PayPal
//! Payouts (payment-service accounts) or as an ISO 20022 `pain.001` file for the platform's
//! bank (bank transfers), which is downloaded, uploaded at the bank and confirmed here with
//! the bank's reference. Plain forms, so the card works without JavaScript.

use leptos::prelude::*;

use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::model::publisher::payout_batches::{PayoutBatch, PayoutBatchStatus, PayoutRail};
use crate::pages::publisher::action_error;
use crate::pages::when;
use crate::server_fns::payout_batches::{
    ConfirmPayoutBatch, RefreshPayoutBatch, SendPayoutBatch, payout_batches,
};

#[component]
pub fn PayoutBatchesCard() -> impl IntoView {
    let send = ServerAction::<SendPayoutBatch>::new();
    let confirm = ServerAction::<ConfirmPayoutBatch>::new();
    let refresh = ServerAction::<RefreshPayoutBatch>::new();
    let batches = Resource::new(
        move || {
            (
                send.version().get(),
                confirm.version().get(),
                refresh.version().get(),
            )
        },
        |_| payout_batches(),
    );
    // A refused file download comes back here with its reason.
    let query = leptos_router::hooks::use_query_map();
    let refused = move || query.read().get("batch_error");
    view! {
        <section class="card" id="payout-batches">
            <h2>"Send payouts"</h2>
            {move || refused().map(|e| view! { <p class="notice error" role="alert">{e}</p> })}
            <p class="muted">"Approved payouts leave in batches: payment-service accounts through PayPal Payouts, bank transfers as a pain.001 file you upload at the bank. A batch opens every payee's details, so it asks for your authentication code."</p>
            <ErrorNotice error=action_error(send)/>
            <ErrorNotice error=action_error(confirm)/>
            <ErrorNotice error=action_error(refresh)/>
            <div class="grid-2">
                <SendForm send rail=PayoutRail::PayPal label="Send approved PayPal payouts"/>
                <SendForm send rail=PayoutRail::BankFile label="Create a bank file"/>
            </div>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    batches.await.ok().filter(|l| !l.items.is_empty()).map(|l| view! {
                        <div class="table-scroll">
                            <table id="payout-batch-list">
                                <thead><tr><th>"Created"</th><th>"Batch"</th><th>"Rail"</th><th>"Payouts"</th><th>"Total"</th><th>"Status"</th><th>"Next"</th></tr></thead>
                                <tbody>
                                    {l.items.into_iter().map(|b| view! { <BatchRow b confirm refresh/> }).collect_view()}
                                </tbody>
                            </table>
                        </div>
                    })
                })}
            </Transition>
        </section>
    }
}

#[component]
fn SendForm(
    send: ServerAction<SendPayoutBatch>,
    rail: PayoutRail,
    label: &'static str,
) -> impl IntoView {
    view! {
        <ActionForm action=send attr:class="inline">
            <CsrfField/>
            <input type="hidden" name="rail" value=rail.as_str()/>
            <input name="otp" autocomplete="one-time-code" inputmode="numeric" maxlength="20" placeholder="Code" aria-label="Authentication code"/>
            <Submit action=send label/>
        </ActionForm>
    }
}

#[component]
fn BatchRow(
    b: PayoutBatch,
    confirm: ServerAction<ConfirmPayoutBatch>,
    refresh: ServerAction<RefreshPayoutBatch>,
) -> impl IntoView {
    let rail = match b.rail {
        PayoutRail::PayPal => "PayPal",
        PayoutRail::BankFile => "Bank file",
    };
    let status = match (&b.error, b.status) {
        (Some(e), PayoutBatchStatus::Refused | PayoutBatchStatus::Submitting) => {
            format!("{} ({e})", b.status.as_str())
        }
        _ => b.status.as_str().to_owned(),
    };
    let id = b.batch_id.clone();
    let next = match (b.rail, b.status) {
        (PayoutRail::BankFile, PayoutBatchStatus::Sent) => view! {
            <form method="post" action=format!("/admin/payout-batches/{id}/file") class="inline">
                <CsrfField/>
                <input name="otp" autocomplete="one-time-code" inputmode="numeric" maxlength="20" placeholder="Code" aria-label="Authentication code"/>
                <button type="submit" class="secondary">"Download pain.001"</button>
            </form>
            <ActionForm action=confirm attr:class="stack">
                <CsrfField/>
                <input type="hidden" name="batch_id" value=id.clone()/>
                <input name="reference" required maxlength="140" placeholder="Bank's reference" aria-label="Bank's reference"/>
                <textarea name="failed" rows="2" placeholder="Refused transfers, one per line: payout id: reason" aria-label="Refused transfers"></textarea>
                <Submit action=confirm label="Confirm the bank took it" class="secondary"/>
            </ActionForm>
        }.into_any(),
        (PayoutRail::PayPal, PayoutBatchStatus::Submitting | PayoutBatchStatus::Sent) => view! {
            <ActionForm action=refresh attr:class="inline">
                <CsrfField/>
                <input type="hidden" name="batch_id" value=id.clone()/>
                <Submit action=refresh label="Ask PayPal now" class="secondary"/>
            </ActionForm>
        }.into_any(),
        _ => view! { <span class="muted">{b.reference.clone().unwrap_or_default()}</span> }.into_any(),
    };
    view! {
        <tr data-batch=b.batch_id.clone()>
            <td>{when(b.created_at)}</td>
            <td><code>{b.batch_id.clone()}</code></td>
            <td>{rail}</td>
            <td class="num">{b.payout_count}</td>
            <td class="num">{b.total_micros.money(&b.currency)}</td>
            <td>{status}</td>
            <td>{next}</td>
        </tr>
    }
}
