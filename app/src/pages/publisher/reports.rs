//! `/publisher/reports`: impressions, clicks, conversions and earnings by day and offer
//! over a date range (a GET form), an earnings chart and a CSV download.

use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

use super::load_error;
use crate::components::bar_chart::{Bar, BarChart};
use crate::components::form::ErrorNotice;
use crate::model::delivery::OffersReport;
use crate::model::money::Micros;
use crate::pages::MemberPage;
use crate::server_fns::publisher::reports::offers_report_data;

#[component]
pub fn OffersReportPage() -> impl IntoView {
    // Created in the page body: RequireUser may render its children more than once.
    let query = use_query_map();
    let param = move |k: &str| query.read().get(k).unwrap_or_default();
    let report = Resource::new(
        move || (param("from"), param("to"), param("placementId")),
        |(f, t, p)| offers_report_data(Some(f), Some(t), Some(p)),
    );
    view! {
        <MemberPage title="Offers report" back=("/publisher", "← Publisher")>
            <Transition fallback=|| view! { <p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match report.await {
                        Err(error) if error.field_errors.is_empty() => load_error(error),
                        Err(error) => {
                            let error = Signal::stored(Some(error));
                            view! {
                                <section class="card" id="report">
                                    <h1>"Offers report"</h1>
                                    <ErrorNotice error/>
                                    <RangeForm from=param("from") to=param("to") placement=param("placementId")/>
                                </section>
                            }.into_any()
                        }
                        Ok(r) => view! { <Report report=r/> }.into_any(),
                    }
                })}
            </Transition>
        </MemberPage>
    }
}

#[component]
fn RangeForm(from: String, to: String, placement: String) -> impl IntoView {
    view! {
        <Form method="get" action="/publisher/reports" attr:class="row range-form">
            <label>"From"<input type="date" name="from" value=from/></label>
            <label>"To"<input type="date" name="to" value=to/></label>
            <label>"Placement"<input name="placementId" placeholder="All placements" value=placement/></label>
            <button type="submit" class="secondary">"Show"</button>
        </Form>
    }
}

/// Earnings per day over the whole range (days without activity draw as empty slots).
fn earnings_bars(r: &OffersReport) -> Vec<Bar> {
    let days = (r.to - r.from).num_days().max(0);
    (0..=days)
        .map(|i| {
            let day = r.from + chrono::Duration::days(i);
            let micros: i64 = r
                .rows
                .iter()
                .filter(|row| row.date == day)
                .map(|row| row.earnings_micros.get())
                .sum();
            Bar {
                value: micros,
                title: format!("{day}: {}", Micros(micros).money("USD")),
            }
        })
        .collect()
}

#[component]
fn Report(report: OffersReport) -> impl IntoView {
    let placement = report.placement_id.clone().unwrap_or_default();
    let csv = format!(
        "/publisher/reports/offers.csv?from={}&to={}&placementId={}",
        report.from, report.to, placement
    );
    let caption = format!(
        "Earnings per day: {} in all from {} impressions, {} clicks and {} conversions.",
        report.totals.earnings_micros.money("USD"),
        report.totals.impressions,
        report.totals.clicks,
        report.totals.conversions
    );
    let bars = earnings_bars(&report);
    let t = report.totals.clone();
    view! {
        <section class="card" id="report">
            <div class="card-head">
                <h1>"Offers report"</h1>
                <a class="button secondary" id="report-csv" href=csv rel="external" download>"Download CSV"</a>
            </div>
            <RangeForm from=report.from.to_string() to=report.to.to_string() placement=placement/>
            <BarChart id="earnings-chart" label="Earnings per day" bars caption/>
            {if report.rows.is_empty() {
                view! { <p class="muted">"No impressions, clicks or conversions in this period."</p> }.into_any()
            } else {
                view! {
                    <table class="report">
                        <thead>
                            <tr>
                                <th>"Day"</th><th>"Offer"</th><th>"Impressions"</th><th>"Clicks"</th>
                                <th>"Conversions"</th><th>"Reversals"</th><th>"Earnings (USD)"</th>
                            </tr>
                        </thead>
                        <tbody>
                            {report.rows.into_iter().map(|r| {
                                let offer = r.offer_id.clone();
                                view! {
                                <tr class="day" data-offer=offer>
                                    <td>{r.date.to_string()}</td>
                                    <td>{r.offer_name}<br/><code class="muted">{r.offer_id}</code></td>
                                    <td class="num">{r.impressions}</td>
                                    <td class="num">{r.clicks}</td>
                                    <td class="num">{r.conversions}</td>
                                    <td class="num">{r.reversals}</td>
                                    <td class="num">{r.earnings_micros.amount_in("USD")}</td>
                                </tr>
                            }}).collect_view()}
                        </tbody>
                        <tfoot>
                            <tr class="totals">
                                <td>"Total"</td><td></td>
                                <td class="num">{t.impressions}</td>
                                <td class="num">{t.clicks}</td>
                                <td class="num">{t.conversions}</td>
                                <td class="num">{t.reversals}</td>
                                <td class="num">{t.earnings_micros.amount_in("USD")}</td>
                            </tr>
                        </tfoot>
                    </table>
                }.into_any()
            }}
        </section>
    }
}
