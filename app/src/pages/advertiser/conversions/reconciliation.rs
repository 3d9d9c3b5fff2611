//! `/advertiser/reconciliations/{id}`: a reconciliation's preview (what each line will do
//! and the payouts concerned), "Apply" while it is a preview, progress while the worker
//! applies it (the page reloads itself every few seconds, without JavaScript too) and the
//! result per line.

use leptos::prelude::*;
use leptos_meta::Meta;
use leptos_router::hooks::{use_params_map, use_query_map};

use super::super::{action_error, load_error};
use super::USD;
use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::components::loaded::loaded;
use crate::model::campaign::reconciliation::{
    LineState, LineTally, Reconciliation, ReconciliationLine, ReconciliationStatus,
};
use crate::pages::MemberPage;
use crate::pages::{OlderLink, when};
use crate::server_fns::campaigns::conversions::{
    ApplyReconciliation, reconciliation_line_page, reconciliation_view,
};

#[component]
pub fn ReconciliationPage() -> impl IntoView {
    // Created in the page body: RequireUser may render its children more than once.
    let params = use_params_map();
    let query = use_query_map();
    let id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let state = Memo::new(move |_| query.read().get("state"));
    let cursor = Memo::new(move |_| query.read().get("cursor"));
    let apply = ServerAction::<ApplyReconciliation>::new();
    let r = Resource::new(
        move || (id.get(), apply.version().get()),
        |(id, _)| reconciliation_view(id),
    );
    let lines = Resource::new(
        move || (id.get(), state.get(), cursor.get(), apply.version().get()),
        |(id, s, c, _)| reconciliation_line_page(id, s, c),
    );
    view! {
        <MemberPage title="Reconciliation" back=("/advertiser/conversions", "← Conversions")>
            <ErrorNotice error=action_error(apply)/>
            {loaded(r, load_error, move |r| view! { <Summary r apply/> }.into_any())}
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    match lines.await {
                        Err(error) => load_error(error),
                        Ok(l) => {
                            let base = format!("/advertiser/reconciliations/{}", id.get_untracked());
                            let filter = state.get_untracked().map(|s| format!("state={s}&")).unwrap_or_default();
                            let older = l.next_cursor.clone().map(|c| format!("{base}?{filter}cursor={c}#lines"));
                            view! { <Lines items=l.items older base/> }.into_any()
                        }
                    }
                })}
            </Transition>
        </MemberPage>
    }
}

#[component]
fn Summary(r: Reconciliation, apply: ServerAction<ApplyReconciliation>) -> impl IntoView {
    let working = matches!(
        r.status,
        ReconciliationStatus::Queued | ReconciliationStatus::Applying
    );
    let previewed = r.status == ReconciliationStatus::Previewed;
    let id = r.reconciliation_id.clone();
    view! {
        {working.then(|| view! { <Meta http_equiv="refresh" content="3"/> })}
        <section class="card" id="reconciliation" data-status=r.status.as_str()>
            <h1>{format!("Reconciliation: {} {} lines", r.action.as_str(), r.line_count)}</h1>
            <p class="muted">{format!("\"{}\" · created {} · {}", r.reason, when(r.created_at), r.status.as_str())}</p>
            {working.then(|| view! { <p class="notice">{format!("Applying: {} lines left. This page refreshes by itself.", r.lines_left)}</p> })}
            <h2>"Preview"</h2>
            <Tallies tallies=r.preview.clone() part="preview"/>
            {previewed.then(|| view! {
                <p class="muted">"Nothing has changed yet. Applying moves the money of every WILL_APPLY line, in order; lines that are already in the state asked for are left as they are."</p>
                <ActionForm action=apply>
                    <CsrfField/>
                    <input type="hidden" name="id" value=id.clone()/>
                    <Submit action=apply label="Apply"/>
                </ActionForm>
            })}
            {(!r.results.is_empty()).then(|| view! {
                <h2>"Result"</h2>
                <Tallies tallies=r.results.clone() part="results"/>
            })}
        </section>
    }
}

#[component]
fn Tallies(tallies: Vec<LineTally>, part: &'static str) -> impl IntoView {
    view! {
        <table data-part=part>
            <thead><tr><th>"Lines"</th><th>"State"</th><th>"Payouts"</th></tr></thead>
            <tbody>
                {tallies.into_iter().map(|t| view! {
                    <tr data-state=t.state.as_str()>
                        <td>{t.lines}</td>
                        <td>{t.state.as_str()}</td>
                        <td>{t.payout_micros.money(USD)}</td>
                    </tr>
                }).collect_view()}
            </tbody>
        </table>
    }
}

#[component]
fn Lines(items: Vec<ReconciliationLine>, older: Option<String>, base: String) -> impl IntoView {
    let filters = [
        LineState::WillApply,
        LineState::Applied,
        LineState::AlreadyInState,
        LineState::Unknown,
        LineState::OutsideWindow,
        LineState::NotAllowed,
        LineState::Failed,
    ];
    view! {
        <section class="card" id="lines">
            <h2>"Lines"</h2>
            <p>
                <a href=format!("{base}#lines") rel="external">"All"</a>
                {filters.into_iter().map(|s| view! {
                    " · " <a href=format!("{base}?state={}#lines", s.as_str()) rel="external">{s.as_str()}</a>
                }).collect_view()}
            </p>
            <table>
                <thead><tr><th>"#"</th><th>"Transaction"</th><th>"Campaign"</th><th>"Preview"</th><th>"Result"</th><th>"Payout"</th></tr></thead>
                <tbody>
                    {items.into_iter().map(|l| view! {
                        <tr data-line=l.line_no>
                            <td>{l.line_no}</td>
                            <td><code>{l.transaction_id.clone()}</code></td>
                            <td><code>{l.campaign_id.clone().unwrap_or_default()}</code></td>
                            <td>{l.preview.as_str()}</td>
                            <td data-result=l.result.map(LineState::as_str).unwrap_or_default()>{l.result.map(LineState::as_str).unwrap_or("—")}</td>
                            <td>{l.payout_micros.money(USD)}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
            <OlderLink href=older/>
        </section>
    }
}
