//! The platform's revenue of the last 30 days on the payouts page: what advertisers paid,
//! the publishers' share and the platform's, per day with the totals.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::billing::{RevenueDay, RevenueReport};

const USD: &str = "USD";

pub type Report = Resource<Result<RevenueReport, AppError>>;

#[component]
pub fn PlatformRevenue(report: Report) -> impl IntoView {
    view! {
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                match report.await {
                    Err(e) => view! { <section class="card"><p class="error">{e.message}</p></section> }.into_any(),
                    Ok(r) => view! { <RevenueTable r/> }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn RevenueTable(r: RevenueReport) -> impl IntoView {
    let row = |d: RevenueDay, label: String| {
        let key = label.clone();
        view! {
        <tr data-day=key>
            <td>{label}</td>
            <td>{d.gross_micros.money(USD)}</td>
            <td>{d.publisher_micros.money(USD)}</td>
            <td>{d.platform_micros.money(USD)}</td>
            <td>{d.conversions}</td>
            <td>{d.reversals}</td>
        </tr>
        }
    };
    // Newest first; quiet days left out of the table (the totals cover the whole range).
    let days: Vec<RevenueDay> = r
        .days
        .into_iter()
        .rev()
        .filter(|d| d.conversions > 0 || d.reversals > 0 || d.gross_micros.get() != 0)
        .collect();
    view! {
        <section class="card" id="revenue">
            <h2>"Platform revenue"</h2>
            <p class="muted">{format!("{} to {} (UTC). Paid by advertisers net of reversals, the publishers' share and the platform's.", r.from, r.to)}</p>
            <table>
                <thead><tr><th>"Day"</th><th>"Paid by advertisers"</th><th>"Publishers"</th><th>"Platform"</th><th>"Conversions"</th><th>"Reversals"</th></tr></thead>
                <tbody>
                    {days.into_iter().map(|d| {
                        let label = d.day.map(|x| x.to_string()).unwrap_or_default();
                        row(d, label)
                    }).collect_view()}
                    {row(r.totals, "Total".to_owned())}
                </tbody>
            </table>
        </section>
    }
}
