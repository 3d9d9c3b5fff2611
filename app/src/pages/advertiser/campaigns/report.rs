//! `/advertiser/campaigns/:id/report`: clicks, conversions by status and spend by UTC day
//! over a from/to range (a GET form), with a server-rendered SVG bar chart of the spend.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::Form;
use leptos_router::hooks::{use_params_map, use_query_map};

use super::{CampaignBadge, campaign_load_error};
use crate::components::bar_chart::{Bar, BarChart};
use crate::components::form::ErrorNotice;
use crate::error::AppError;
use crate::model::AccountView;
use crate::model::campaign::{CampaignReport, ReportRow};
use crate::model::money::Micros;
use crate::pages::RequireUser;
use crate::server_fns::campaigns::{ReportOverview, campaign_report_data};

#[derive(Clone, Copy)]
struct ReportData {
    id: Memo<String>,
    from: Memo<String>,
    to: Memo<String>,
    report: Resource<Result<ReportOverview, AppError>>,
}

#[component]
pub fn CampaignReportPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let from = Memo::new(move |_| query.read().get("from").unwrap_or_default());
    let to = Memo::new(move |_| query.read().get("to").unwrap_or_default());
    let report = Resource::new(
        move || (id.get(), from.get(), to.get()),
        |(id, from, to)| campaign_report_data(id, Some(from), Some(to)),
    );
    let data = ReportData {
        id,
        from,
        to,
        report,
    };
    view! {
        <Title text="Campaign report"/>
        <RequireUser signed_in=move |_u: AccountView| view! { <Report data/> }/>
    }
}

#[component]
fn Report(data: ReportData) -> impl IntoView {
    let ReportData {
        id,
        from,
        to,
        report,
    } = data;
    let path = move || format!("/advertiser/campaigns/{}/report", id.get());
    let back = move || format!("/advertiser/campaigns/{}", id.get());
    view! {
        <p class="crumbs"><a href=back rel="external">"← Campaign"</a></p>
        <Transition fallback=|| view! { <p>"Loading…"</p> }>
            {move || Suspend::new(async move {
                match report.await {
                    Err(error) if error.field_errors.is_empty() => campaign_load_error(error),
                    Err(error) => {
                        let error = Signal::stored(Some(error));
                        view! {
                            <section class="card" id="report">
                                <h1>"Report"</h1>
                                <ErrorNotice error/>
                                <RangeForm path=path() from=from.get_untracked() to=to.get_untracked()/>
                            </section>
                        }.into_any()
                    }
                    Ok(o) => view! {
                        <Title text=format!("Report · {}", o.campaign.config.name)/>
                        <section class="card" id="report">
                            <div class="card-head">
                                <h1>"Report: "{o.campaign.config.name.clone()}</h1>
                                <CampaignBadge status=o.campaign.status/>
                            </div>
                            <RangeForm path=path() from=o.report.from.to_string() to=o.report.to.to_string()/>
                            <SpendChart report=o.report.clone()/>
                            <ReportTable report=o.report/>
                        </section>
                    }.into_any(),
                }
            })}
        </Transition>
    }
}

#[component]
fn RangeForm(path: String, from: String, to: String) -> impl IntoView {
    view! {
        <Form method="get" action=path attr:class="row range-form">
            <label>"From"<input type="date" name="from" value=from/></label>
            <label>"To"<input type="date" name="to" value=to/></label>
            <button type="submit" class="secondary">"Show"</button>
        </Form>
    }
}

/// Spend per day as inline SVG bars.
#[component]
fn SpendChart(report: CampaignReport) -> impl IntoView {
    let max = report
        .days
        .iter()
        .map(|d| d.spend_micros)
        .max()
        .unwrap_or(Micros(0));
    let bars = report
        .days
        .iter()
        .map(|d| Bar {
            value: d.spend_micros.get(),
            title: format!(
                "{}: {}",
                d.date.map(|x| x.to_string()).unwrap_or_default(),
                d.spend_micros.money("USD")
            ),
        })
        .collect();
    let caption = if max > Micros(0) {
        format!("Spend per day, highest {}.", max.money("USD"))
    } else {
        "No spend in this period.".to_owned()
    };
    view! { <BarChart id="spend-chart" label="Spend per day" bars caption/> }
}

#[component]
fn ReportTable(report: CampaignReport) -> impl IntoView {
    let row = |label: String, r: ReportRow, class: &'static str| {
        view! {
            <tr class=class>
                <td>{label}</td>
                <td class="num">{r.clicks}</td>
                <td class="num">{r.conversions.pending}</td>
                <td class="num">{r.conversions.approved}</td>
                <td class="num">{r.conversions.rejected}</td>
                <td class="num">{r.conversions.reversed}</td>
                <td class="num">{r.spend_micros.amount_in("USD")}</td>
            </tr>
        }
    };
    let totals = report.totals.clone();
    view! {
        <table class="report">
            <thead>
                <tr>
                    <th>"Day"</th><th>"Clicks"</th><th>"Pending"</th><th>"Approved"</th>
                    <th>"Rejected"</th><th>"Reversed"</th><th>"Spend (USD)"</th>
                </tr>
            </thead>
            <tbody>
                {report.days.into_iter().rev().map(|d| {
                    let label = d.date.map(|x| x.to_string()).unwrap_or_default();
                    row(label, d, "day")
                }).collect_view()}
            </tbody>
            <tfoot>{row("Total".to_owned(), totals, "totals")}</tfoot>
        </table>
    }
}
