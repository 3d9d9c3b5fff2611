//! `/advertiser/conversions`: every transaction of the advertiser's offer and survey
//! campaigns with how it settled (filters, paging by 50, CSV of the page), and bulk
//! reconciliation: paste transaction ids, preview what will change, apply
//! (`/advertiser/reconciliations/{id}`). Plain forms, so the page works without JavaScript.

mod reconciliation;

pub use reconciliation::ReconciliationPage;

use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

use super::{action_error, load_error};
use crate::components::form::{CsrfField, ErrorNotice, StatusSelect, Submit};
use crate::components::fraud::Reasons;
use crate::components::loaded::loaded;
use crate::model::campaign::conversions::{ConversionItem, Settlement};
use crate::model::campaign::reconciliation::Reconciliation;
use crate::pages::MemberPage;
use crate::pages::{OlderLink, query_value, when};
use crate::server_fns::campaigns::conversions::{
    CreateReconciliation, advertiser_conversions, recent_reconciliations,
};
use crate::server_fns::fraud::DecideHold;

const USD: &str = "USD";

/// The settlement filter.
const FILTERS: [(&str, &str); 7] = [
    ("HELD", "Held for review"),
    ("APPROVED", "Approved"),
    ("PENDING", "Pending"),
    ("REVERSED", "Reversed"),
    ("REJECTED", "Rejected"),
    ("NO_BUDGET", "No budget"),
    ("CAP_REACHED", "Cap reached"),
];

#[component]
pub fn ConversionsPage() -> impl IntoView {
    // Created in the page body: RequireUser may render its children more than once.
    let query = use_query_map();
    let get = move |k: &'static str| Memo::new(move |_| query.read().get(k).unwrap_or_default());
    let (status, campaign, transaction) = (get("status"), get("campaign"), get("transaction"));
    let cursor = Memo::new(move |_| query.read().get("cursor"));
    let some = |s: String| Some(s).filter(|s| !s.is_empty());
    let decide = ServerAction::<DecideHold>::new();
    let list = Resource::new(
        move || {
            (
                status.get(),
                campaign.get(),
                transaction.get(),
                cursor.get(),
                decide.version().get(),
            )
        },
        move |(s, c, t, cur, _)| advertiser_conversions(some(c), some(s), some(t), cur),
    );
    let create = ServerAction::<CreateReconciliation>::new();
    let upload_error = Memo::new(move |_| query.read().get("upload_error"));
    let recent = Resource::new(|| (), |()| recent_reconciliations());
    view! {
        <MemberPage title="Conversions" back=("/advertiser", "← Advertiser")>
            <section class="card" id="conversions">
                <h1>"Conversions"</h1>
                <p class="muted">"Every transaction of your offer and survey campaigns, newest first, as reported and as it settled. A conversion HELD for review (its fraud signals reached your campaign's hold score, or a web pixel's review window runs) is not paid until you approve it; reject what you do not recognise."</p>
                <ErrorNotice error=action_error(decide)/>
                <Form method="get" action="/advertiser/conversions" attr:class="filters">
                    <input name="transaction" placeholder="Transaction id" aria-label="Transaction id" value=move || transaction.get()/>
                    <input name="campaign" placeholder="Campaign id" aria-label="Campaign id" value=move || campaign.get()/>
                    <StatusSelect current=status all="Every settlement" choices=FILTERS.to_vec()/>
                    <button type="submit" class="secondary">"Filter"</button>
                </Form>
                {loaded(list, load_error, move |l| {
                    let filters = format!(
                        "status={}&campaign={}&transaction={}",
                        query_value(&status.get_untracked()),
                        query_value(&campaign.get_untracked()),
                        query_value(&transaction.get_untracked()),
                    );
                    let older = l.next_cursor.clone().map(|c| format!("/advertiser/conversions?{filters}&cursor={c}"));
                    view! { <ConversionTable items=l.items older decide/> }.into_any()
                }
                )}
            </section>
            <ReconcileForm create upload_error/>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    match recent.await {
                        Err(error) => load_error(error),
                        Ok(l) => view! { <RecentReconciliations items=l.items/> }.into_any(),
                    }
                })}
            </Transition>
        </MemberPage>
    }
}

#[component]
fn ConversionTable(
    items: Vec<ConversionItem>,
    older: Option<String>,
    decide: ServerAction<DecideHold>,
) -> impl IntoView {
    if items.is_empty() {
        return view! { <p class="muted">"No conversions match."</p> }.into_any();
    }
    view! {
        <table>
            <thead><tr><th>"Created"</th><th>"Transaction"</th><th>"Campaign"</th><th>"Goal"</th><th>"Settlement"</th><th>"Payout"</th><th>"Fraud review"</th></tr></thead>
            <tbody>
                {items.into_iter().map(|c| {
                    let held = c.settlement == Settlement::Held;
                    let id = c.conversion_id.clone();
                    view! {
                        <tr data-transaction=c.transaction_id.clone()>
                            <td>{when(c.created_at)}</td>
                            <td><code>{c.transaction_id.clone()}</code></td>
                            <td><code>{c.campaign_id.clone()}</code></td>
                            <td>{c.goal_id.clone()}</td>
                            <td data-settlement=c.settlement.as_str()>{c.settlement.as_str()}{c.held_until.map(|u| view! { <br/><span class="muted">{format!("pays {} unless rejected", when(u))}</span> })}</td>
                            <td>{c.payout_micros.money(USD)}</td>
                            <td>
                                <Reasons score=c.fraud_score reasons=c.fraud_reasons.clone()/>
                                {held.then(|| view! {
                                    <Decide id=id.clone() decision="APPROVE" label="Approve" decide/>
                                    <Decide id=id.clone() decision="REJECT" label="Reject" decide/>
                                })}
                            </td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
        <OlderLink href=older/>
    }
    .into_any()
}

/// One decision on a held conversion.
#[component]
fn Decide(
    id: String,
    decision: &'static str,
    label: &'static str,
    decide: ServerAction<DecideHold>,
) -> impl IntoView {
    view! {
        <ActionForm action=decide attr:class="inline">
            <CsrfField/>
            <input type="hidden" name="conversion_id" value=id/>
            <input type="hidden" name="decision" value=decision/>
            <Submit action=decide label class="secondary"/>
        </ActionForm>
    }
}

#[component]
fn ReconcileForm(
    create: ServerAction<CreateReconciliation>,
    upload_error: Memo<Option<String>>,
) -> impl IntoView {
    view! {
        <section class="card" id="reconcile">
            <h2>"Reconcile in bulk"</h2>
            <p class="muted">"Paste up to 10,000 transaction ids, one per line (add \",campaign id\" when several of your campaigns use the same id). You see what will change before anything does. Conversions can be reversed or approved until 30 days after they were reported; a reversal refunds your wallet and tells the publisher."</p>
            <ErrorNotice error=action_error(create)/>
            <ActionForm action=create attr:class="grid-2">
                <CsrfField/>
                <ActionAndReason/>
                <label class="span-2">"Transaction ids"
                    <textarea name="lines" rows="8" required placeholder="tx-1001\ntx-1002,cmp_…"></textarea>
                </label>
                <div class="form-actions"><Submit action=create label="Preview"/></div>
            </ActionForm>
            <h3>"Or upload a CSV file"</h3>
            <p class="muted">"One transaction id per line, optionally followed by \",campaign id\"; a header line \"transaction_id,campaign_id\" is skipped. Up to 4 MiB."</p>
            {move || upload_error.get().map(|e| view! { <p class="notice error" role="alert" data-upload-error>{e}</p> })}
            // A plain multipart form (not a server function): the browser sends the file as it is.
            <form method="post" action="/advertiser/conversions/upload" enctype="multipart/form-data" class="grid-2" id="reconcile-upload">
                <CsrfField/>
                <ActionAndReason/>
                <label class="span-2">"CSV file"
                    <input type="file" name="file" accept=".csv,text/csv,text/plain" required/>
                </label>
                <div class="form-actions"><button type="submit">"Upload and preview"</button></div>
            </form>
        </section>
    }
}

/// The action and reason fields both reconciliation forms ask for.
#[component]
fn ActionAndReason() -> impl IntoView {
    view! {
        <label>"Action"
            <select name="action">
                <option value="reverse">"Reverse (fraud, chargeback, invalid)"</option>
                <option value="approve">"Approve pending conversions"</option>
            </select>
        </label>
        <label>"Reason (kept with the reconciliation)"
            <input name="reason" required maxlength="500" placeholder="Fraud review November"/>
        </label>
    }
}

#[component]
fn RecentReconciliations(items: Vec<Reconciliation>) -> impl IntoView {
    if items.is_empty() {
        return ().into_any();
    }
    view! {
        <section class="card" id="reconciliations">
            <h2>"Recent reconciliations"</h2>
            <table>
                <thead><tr><th>"Created"</th><th>"Action"</th><th>"Reason"</th><th>"Lines"</th><th>"Status"</th></tr></thead>
                <tbody>
                    {items.into_iter().map(|r| view! {
                        <tr data-reconciliation=r.reconciliation_id.clone()>
                            <td><a href=format!("/advertiser/reconciliations/{}", r.reconciliation_id) rel="external">{when(r.created_at)}</a></td>
                            <td>{r.action.as_str()}</td>
                            <td>{r.reason.clone()}</td>
                            <td>{r.line_count}</td>
                            <td>{r.status.as_str()}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
    .into_any()
}
