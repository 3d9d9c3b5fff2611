//! `/publisher/surveys`: survey traffic of the publisher's placements over the last 30 days —
//! survey fetches, entries, paid completes and earnings by day — and how to integrate the
//! survey fetch.

use leptos::prelude::*;

use super::load_error;
use crate::components::loaded::loaded;
use crate::model::survey::fetch::SurveyStats;
use crate::pages::MemberPage;
use crate::server_fns::surveys::publisher_survey_stats;

#[component]
pub fn PublisherSurveysPage() -> impl IntoView {
    let stats = Resource::new(|| (), |_| publisher_survey_stats());
    view! {
        <MemberPage title="Surveys" back=("/publisher", "← Publisher")>
            <section class="card">
                <h1>"Surveys"</h1>
                <p class="muted">"Issue an app key on a placement's page, then call POST /getallsurveys-api from your server with X-Service-Api-Key and the user's profile. Send the user to each survey's SurveyUrl unchanged; completes are credited through your reward callback (goalId survey_complete). See docs/surveys.md."</p>
            </section>
            {loaded(stats, load_error, move |s| view! { <StatsTable s/> }.into_any())}
        </MemberPage>
    }
}

#[component]
fn StatsTable(s: SurveyStats) -> impl IntoView {
    let range = format!("{} to {}", s.from, s.to);
    let body = if s.days.is_empty() {
        view! { <p class="muted">"No survey traffic in this period yet."</p> }.into_any()
    } else {
        let rows = s
            .days
            .iter()
            .map(|d| {
                view! {
                    <tr data-day=d.date.clone()>
                        <td>{d.date.clone()}</td><td class="num">{d.fetches}</td><td class="num">{d.entries}</td>
                        <td class="num">{d.completes}</td><td class="num">{d.earnings_micros.amount_in("USD")}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <table>
                <thead><tr><th>"Day"</th><th class="num">"Fetches"</th><th class="num">"Entries"</th><th class="num">"Completes"</th><th class="num">"Earnings (USD)"</th></tr></thead>
                <tbody>{rows}</tbody>
                <tfoot><tr><th>"Total"</th><th class="num">{s.fetches}</th><th class="num">{s.entries}</th><th class="num">{s.completes}</th><th class="num">{s.earnings_micros.amount_in("USD")}</th></tr></tfoot>
            </table>
        }
        .into_any()
    };
    view! {
        <section class="card" id="survey-stats">
            <h2>"Last 30 days"</h2>
            <p class="muted">{range}</p>
            {body}
        </section>
    }
}
