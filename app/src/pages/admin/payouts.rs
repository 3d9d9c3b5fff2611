//! `/admin/payouts`: publisher payouts by status, each with the decisions its status allows
//! (approve, reject with a reason, mark paid with the bank's reference, fail with a reason),
//! the monthly run, and the platform's revenue of the last 30 days; an open payout's full
//! payment details are opened with the administrator's second-factor code (audited). Plain
//! forms, so the page works without JavaScript.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

use super::RequireUser;
use crate::components::form::{CsrfField, ErrorNotice, StatusSelect, Submit};
use crate::model::AccountView;
use crate::model::publisher::payouts::{Payout, PayoutStatus};
use crate::pages::publisher::action_error;
use crate::pages::{OlderLink, when};
use crate::server_fns::earnings::{
    DecidePayout, OpenPayoutDetails, StartPayoutRun, opened_payout_details, payout_queue,
    payout_runs, platform_revenue,
};

const STATUSES: [(&str, &str); 6] = [
    ("APPROVED", "Approved, to pay"),
    ("SENDING", "Sending (in a batch)"),
    ("PAID", "Paid"),
    ("REJECTED", "Rejected"),
    ("FAILED", "Failed"),
    ("CANCELLED", "Cancelled"),
];

#[component]
pub fn AdminPayoutsPage() -> impl IntoView {
    let query = use_query_map();
    let status = Memo::new(move |_| query.read().get("status").unwrap_or_default());
    let cursor = Memo::new(move |_| query.read().get("cursor"));
    let decide = ServerAction::<DecidePayout>::new();
    let run = ServerAction::<StartPayoutRun>::new();
    let open = ServerAction::<OpenPayoutDetails>::new();
    // A plain form post finds the details it opened in a one-time flash.
    let opened = Resource::new(move || open.version().get(), |_| opened_payout_details());
    let list = Resource::new(
        move || {
            (
                status.get(),
                cursor.get(),
                decide.version().get(),
                run.version().get(),
            )
        },
        |(s, c, _, _)| payout_queue(Some(s), c),
    );
    let report = Resource::new(|| (), |()| platform_revenue());
    let runs = Resource::new(move || run.version().get(), |_| payout_runs());
    view! {
        <Title text="Payouts"/>
        <RequireUser signed_in=move |u: AccountView| {
            if !u.role.is_admin() {
                return view! { <section class="card"><h1>"Administrators only"</h1></section> }.into_any();
            }
            view! {
                <p class="crumbs"><a href="/admin" rel="external">"← Admin"</a></p>
                <section class="card" id="payout-run">
                    <h1>"Publisher payouts"</h1>
                    <p class="muted">"The monthly run creates one payout of the whole available balance for every publisher with a payout profile, no open payout and at least its minimum. It runs in the background: it starts within seconds and the list below shows where it stands (reload to follow it). Running it again for the same month creates only what is missing."</p>
                    <ErrorNotice error=action_error(run)/>
                    {move || run.value().get().and_then(Result::ok).map(|r| view! {
                        <p class="notice" data-run>{format!("Run {}: {}.", r.period, r.status.label())}</p>
                    })}
                    <Transition fallback=|| ()>
                        {move || Suspend::new(async move {
                            runs.await.ok().filter(|l| !l.items.is_empty()).map(|l| view! {
                                <table id="payout-runs">
                                    <thead><tr><th>"Month"</th><th>"Status"</th><th>"Payouts created"</th><th>"Publishers skipped"</th><th>"Finished"</th></tr></thead>
                                    <tbody>
                                        {l.items.into_iter().map(|r| view! {
                                            <tr data-run-period=r.period.clone()>
                                                <td>{r.period.clone()}</td>
                                                <td>{r.status.label()}</td>
                                                <td>{r.created_count}</td>
                                                <td>{r.skipped_count}</td>
                                                <td>{r.finished_at.map(when).unwrap_or_default()}</td>
                                            </tr>
                                        }).collect_view()}
                                    </tbody>
                                </table>
                            })
                        })}
                    </Transition>
                    <ActionForm action=run attr:class="grid-3">
                        <CsrfField/>
                        <label>"Month (YYYY-MM)" <input name="period" required pattern="[0-9]{4}-[0-9]{2}" placeholder="2026-11"/></label>
                        <Submit action=run label="Run payouts"/>
                    </ActionForm>
                </section>
                <super::payout_batches::PayoutBatchesCard/>
                <section class="card">
                    <Form method="get" action="/admin/payouts" attr:class="filters">
                        <StatusSelect current=status all="Requested, to approve" choices=STATUSES.to_vec()/>
                        <button type="submit" class="secondary">"Show"</button>
                    </Form>
                    <ErrorNotice error=action_error(decide)/>
                    <ErrorNotice error=action_error(open)/>
                    <Transition fallback=|| ()>
                        {move || Suspend::new(async move {
                            let flashed = opened.await.ok().flatten();
                            open.value().get().and_then(Result::ok).or(flashed).map(|d| view! {
                                <div class="notice secret" role="status" id="payout-details">
                                    <strong>{d.label}</strong>
                                    <pre class="secret-value"><code>{d.value}</code></pre>
                                    <p class="muted">"Your opening of these details is in the audit trail."</p>
                                </div>
                            })
                        })}
                    </Transition>
                </section>
                <Transition fallback=|| view! { <p>"Loading…"</p> }>
                    {move || Suspend::new(async move {
                        match list.await {
                            Err(e) => view! { <section class="card"><p class="error">{e.message}</p></section> }.into_any(),
                            Ok(l) if l.items.is_empty() => view! { <section class="card" id="payouts"><p class="muted">"No payout in this status."</p></section> }.into_any(),
                            Ok(l) => {
                                let older = l.next_cursor.clone().map(|c| format!("/admin/payouts?status={}&cursor={c}", status.get_untracked()));
                                view! {
                                    <section class="card" id="payouts">
                                        <table>
                                            <thead><tr><th>"Requested"</th><th>"Publisher"</th><th>"Amount"</th><th>"To"</th><th>"Status"</th><th>"Reference or reason"</th><th>"Decide"</th></tr></thead>
                                            <tbody>{l.items.into_iter().map(|p| view! { <PayoutRow p decide open/> }).collect_view()}</tbody>
                                        </table>
                                        <OlderLink href=older/>
                                    </section>
                                }.into_any()
                            }
                        }
                    })}
                </Transition>
                <super::revenue::PlatformRevenue report/>
            }.into_any()
        }/>
    }
}

/// One decision form: a button, with a text field when the decision needs a note.
#[component]
fn Decision(
    id: String,
    decision: &'static str,
    label: &'static str,
    #[prop(optional)] note: Option<&'static str>,
    decide: ServerAction<DecidePayout>,
) -> impl IntoView {
    view! {
        <ActionForm action=decide attr:class="inline">
            <CsrfField/>
            <input type="hidden" name="payout_id" value=id/>
            <input type="hidden" name="decision" value=decision/>
            {note.map(|placeholder| view! { <input name="note" required maxlength="500" placeholder=placeholder aria-label=placeholder/> })}
            <Submit action=decide label class="secondary"/>
        </ActionForm>
    }
}

/// Opens a payout's full payment details, with the administrator's second-factor code.
#[component]
fn DetailsForm(id: String, open: ServerAction<OpenPayoutDetails>) -> impl IntoView {
    view! {
        <ActionForm action=open attr:class="inline details-form">
            <CsrfField/>
            <input type="hidden" name="payout_id" value=id/>
            <input name="otp" autocomplete="one-time-code" inputmode="numeric" maxlength="20" placeholder="Code" aria-label="Authentication code"/>
            <Submit action=open label="Payment details" class="secondary"/>
        </ActionForm>
    }
}

#[component]
fn PayoutRow(
    p: Payout,
    decide: ServerAction<DecidePayout>,
    open: ServerAction<OpenPayoutDetails>,
) -> impl IntoView {
    let note = p
        .external_reference
        .clone()
        .or_else(|| p.reason.clone())
        .unwrap_or_default();
    let id = p.id.clone();
    let decisions = match p.status {
        // A large payout's first approval is in: another administrator gives the second.
        PayoutStatus::Requested if p.first_approved_by.is_some() => view! {
            <span class="badge" data-first-approval>"1 of 2 approvals"</span>
            <Decision id=id.clone() decision="approve" label="Second approval" decide/>
            <Decision id=id.clone() decision="reject" label="Reject" note="Reason" decide/>
        }
        .into_any(),
        PayoutStatus::Requested => view! {
            <Decision id=id.clone() decision="approve" label="Approve" decide/>
            <Decision id=id.clone() decision="reject" label="Reject" note="Reason" decide/>
        }
        .into_any(),
        PayoutStatus::Approved => view! {
            <Decision id=id.clone() decision="mark-paid" label="Mark paid" note="Bank or service reference" decide/>
            <Decision id=id.clone() decision="fail" label="Fail" note="Reason" decide/>
        }
        .into_any(),
        PayoutStatus::Paid => view! {
            <Decision id=id.clone() decision="fail" label="Returned by the bank" note="Reason" decide/>
        }
        .into_any(),
        // Its batch decides (PayPal's report, the bank file's confirmation).
        PayoutStatus::Sending => view! {
            <span class="muted">"in batch " <code>{p.batch_id.clone().unwrap_or_default()}</code></span>
        }
        .into_any(),
        _ => ().into_any(),
    };
    view! {
        <tr data-payout=p.id.clone()>
            <td>{when(p.created_at)}</td>
            <td><code>{p.publisher_id.clone()}</code></td>
            <td>{p.amount_micros.money("USD")}</td>
            <td>
                {p.details_hint.clone()}
                {matches!(p.status, PayoutStatus::Requested | PayoutStatus::Approved | PayoutStatus::Paid)
                    .then(|| view! { <DetailsForm id=p.id.clone() open/> })}
            </td>
            <td><span class="badge">{p.status.as_str()}</span></td>
            <td>{note}</td>
            <td>{decisions}</td>
        </tr>
    }
}
