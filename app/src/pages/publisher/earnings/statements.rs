//! The earnings page's statements: one month at a time (opening balances, earned, reversed,
//! paid out, closing balances), the months to choose from, and the statement and the whole
//! earnings ledger as CSV downloads.

use leptos::prelude::*;

use super::super::load_error;
use super::USD;
use crate::error::AppError;
use crate::model::publisher::earnings::{EarningsStatement, StatementPeriods};

pub type Periods = Resource<Result<StatementPeriods, AppError>>;
pub type Shown = Resource<Result<Option<EarningsStatement>, AppError>>;

#[component]
pub fn Statements(periods: Periods, shown: Shown) -> impl IntoView {
    view! {
        <section class="card" id="statements">
            <h2>"Statements"</h2>
            <p class="muted">
                "Each month's earnings from the ledger: what you had at its start, what you earned, what reversals took back, what was paid out, and what you had at its end. "
                <a href="/publisher/earnings/ledger.csv" rel="external" download>"Download the earnings ledger (CSV)"</a>
            </p>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    let months = match periods.await {
                        Err(error) => return load_error(error),
                        Ok(p) => p.periods,
                    };
                    match shown.await {
                        Err(error) => load_error(error),
                        Ok(None) => view! { <p class="muted">"No statements yet: the first comes with your first earnings."</p> }.into_any(),
                        Ok(Some(st)) => view! { <Months months current=st.period.clone()/> <Figures st/> }.into_any(),
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn Months(months: Vec<String>, current: String) -> impl IntoView {
    view! {
        <p class="months">
            {months.into_iter().map(|m| {
                let here = m == current;
                view! {
                    " "
                    {if here {
                        view! { <strong>{m}</strong> }.into_any()
                    } else {
                        let href = format!("/publisher/earnings?statement={m}#statements");
                        view! { <a href=href rel="external">{m}</a> }.into_any()
                    }}
                }
            }).collect_view()}
        </p>
    }
}

#[component]
fn Figures(st: EarningsStatement) -> impl IntoView {
    let row = |label: &'static str, key: &'static str, m: crate::model::money::Micros| {
        view! {
            <tr data-item=key><td>{label}</td><td>{m.money(USD)}</td></tr>
        }
    };
    view! {
        <h3>{format!("{} ({})", st.period, st.status)}</h3>
        <table data-statement=st.period.clone()>
            <tbody>
                {row("Opening balance", "opening", st.opening.total_micros)}
                {row("Earned", "earned", st.earned_micros)}
                {row("Reversed", "reversed", st.reversed_micros)}
                {row("Paid out", "paid_out", st.paid_out_micros)}
                {(st.adjustments_micros.get() != 0).then(|| row("Adjustments", "adjustments", st.adjustments_micros))}
                {row("Closing balance", "closing", st.closing.total_micros)}
                {row("  of which pending", "closing_pending", st.closing.pending_micros)}
                {row("  of which available", "closing_available", st.closing.available_micros)}
                {row("  of which held for payouts", "closing_held", st.closing.held_for_payout_micros)}
            </tbody>
        </table>
        <p class="muted">
            {format!("{} conversions, {} reversals. ", st.conversions, st.reversals)}
            <a href=format!("/publisher/earnings/statements/{}.csv", st.period) rel="external" download>"Download this statement (CSV)"</a>
        </p>
    }
}
