//! Publisher and advertiser home pages: the figures of the last 7 and 30 days, a chart by
//! day and what needs attention first (`domain::overview`), then the way into each area.

use leptos::prelude::*;
use leptos_meta::Title;

use super::RequireUser;
use super::publisher::{PlacementsData, PlacementsPanel};
use crate::components::bar_chart::{Bar, BarChart};
use crate::error::AppError;
use crate::model::overview::{Overview, OverviewTotals};
use crate::model::{AccountStatus, AccountView};
use crate::server_fns::overview::{advertiser_overview, publisher_overview};

/// The publisher's landing page: figures, attention, areas, then the placements.
#[component]
pub fn PublisherHome() -> impl IntoView {
    // Created in the page body: RequireUser may render its children more than once.
    // The ten most recent placements: the placements page has the rest.
    let data = PlacementsData::recent(10);
    let overview = Resource::new(|| (), |()| publisher_overview());
    view! {
        <Title text="Publisher"/>
        <RequireUser signed_in=move |u: AccountView| view! {
            <section class="card">
                <h1>"Publisher dashboard"</h1>
                <p>"Signed in as "<strong>{u.email}</strong>" for "{u.company_name}"."</p>
                <p class="areas">
                    <a class="button secondary" href="/publisher/earnings" rel="external">"Earnings and payouts"</a>" "
                    <a class="button secondary" href="/publisher/offers" rel="external">"Offer gallery"</a>" "
                    <a class="button secondary" href="/publisher/support" rel="external">"Support inbox"</a>" "
                    <a class="button secondary" href="/publisher/deliveries" rel="external">"Reward callbacks"</a>" "
                    <a class="button secondary" href="/publisher/reports" rel="external">"Offers report"</a>" "
                    <a class="button secondary" href="/publisher/surveys" rel="external">"Surveys"</a>" "
                    <a class="button secondary" href="/publisher/bans" rel="external">"User bans"</a>" "
                    <a class="button secondary" href="/publisher/fraud" rel="external">"Fraud and holds"</a>" "
                    <a class="button secondary" href="/publisher/blacklist" rel="external">"Blacklist"</a>
                </p>
            </section>
            <OverviewSection overview money="Earnings"/>
            <details class="card steps-card">
                <summary>"Getting started"</summary>
                <ol class="steps">
                    <li>"Create a placement for your app, website or API integration."</li>
                    <li>"Add an ad slot with your currency and its exchange rate."</li>
                    <li>"Configure the signed reward callback and send a test."</li>
                    <li>"Request review."</li>
                    <li>"Go live once an administrator has verified and released the placement."</li>
                </ol>
            </details>
            <PlacementsPanel data base="/publisher"/>
        }/>
    }
}

#[component]
pub fn AdvertiserHome() -> impl IntoView {
    let overview = Resource::new(|| (), |()| advertiser_overview());
    view! {
        <Title text="Advertiser"/>
        <RequireUser signed_in=move |u: AccountView| {
            let pending = u.status == AccountStatus::Pending;
            view! {
                <section class="card">
                    <h1>"Advertiser dashboard"</h1>
                    <p>"Signed in as "<strong>{u.email.clone()}</strong>" for "{u.company_name.clone()}"."</p>
                    <Show when=move || pending>
                        <div class="notice warn" role="status">
                            "Your account is awaiting review by an administrator. Funding, campaigns and API credentials open once it is approved."
                        </div>
                    </Show>
                </section>
                {(!pending).then(|| view! { <OverviewSection overview money="Spend"/> })}
                <AdvertiserAreas/>
            }
        }/>
    }
}

/// The advertiser's areas: element id, title, what it is for, and its links (the first is
/// the main one).
type Area = (
    &'static str,
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);
const AREAS: [Area; 3] = [
    (
        "advertiser-billing",
        "Billing",
        "One balance funds all your survey and offer campaigns. Add funds by wire transfer, or by card where a payment provider is set up; invoices are issued monthly.",
        &[
            ("/advertiser/billing", "Billing and invoices"),
            ("/advertiser/billing/funding", "Add funds"),
        ],
    ),
    (
        "advertiser-campaigns",
        "Offer campaigns",
        "Rewarded offers with goals and a budget: create a campaign, set up conversion tracking, submit it for review.",
        &[
            ("/advertiser/campaigns", "Offer campaigns"),
            ("/advertiser/campaigns/new", "New campaign"),
            ("/advertiser/conversions", "Conversions and reconciliation"),
        ],
    ),
    (
        "advertiser-surveys",
        "Survey campaigns",
        "Surveys with quotas and qualifications, managed through the signed survey API: issue a key, pay from the wallet, edit targeting.",
        &[("/advertiser/surveys", "Survey campaigns")],
    ),
];

#[component]
fn AdvertiserAreas() -> impl IntoView {
    let area = |(id, title, text, links): &Area| {
        let links = links.iter().enumerate().map(|(i, (href, label))| {
            let class = if i == 0 { "button" } else { "button secondary" };
            view! { <a class=class href=*href rel="external">{*label}</a> }
        });
        view! {
            <section class="card grow" id=*id>
                <h2>{*title}</h2>
                <p class="muted">{*text}</p>
                <div class="actions">{links.collect_view()}</div>
            </section>
        }
    };
    view! { <div class="columns">{AREAS.iter().map(area).collect_view()}</div> }
}

/// Figures, attention and the chart; `money` names the amount (earnings or spend).
#[component]
fn OverviewSection(
    overview: Resource<Result<Overview, AppError>>,
    money: &'static str,
) -> impl IntoView {
    view! {
        <Transition fallback=|| view! { <section class="card"><p>"Loading figures…"</p></section> }>
            {move || Suspend::new(async move {
                overview.await.ok().map(|o| view! { <Figures o money/> })
            })}
        </Transition>
    }
}

#[component]
fn Figures(o: Overview, money: &'static str) -> impl IntoView {
    let cur = o.currency.clone();
    let bars: Vec<Bar> = o
        .days
        .iter()
        .map(|d| Bar {
            value: d.money_micros.get(),
            title: format!(
                "{}: {}, {} conversions, {} reversals",
                d.date,
                d.money_micros.money(&cur),
                d.conversions,
                d.reversals
            ),
        })
        .collect();
    let caption = format!(
        "{money} per day over the last {} days: {} in all.",
        o.last30.days,
        o.last30.money_micros.money(&cur)
    );
    let label = if money == "Spend" {
        "Spend per day"
    } else {
        "Earnings per day"
    };
    let period = |id: &'static str, title: &'static str, t: OverviewTotals| {
        view! {
            <div class="period" id=id>
                <h3>{title}</h3>
                <dl class="figures">
                    <div class="money"><dt>{money}</dt><dd>{t.money_micros.money(&cur)}</dd></div>
                    <div class="conversions"><dt>"Conversions"</dt><dd>{t.conversions}</dd></div>
                    <div class="reversals"><dt>"Reversals"</dt><dd>{t.reversals}</dd></div>
                </dl>
            </div>
        }
    };
    let balance = o.balance_micros.map(|b| view! {
        <div class="period" id="figures-balance">
            <h3>"Balance"</h3>
            <dl class="figures"><div class="money"><dt>"Available"</dt><dd>{b.money(&o.currency)}</dd></div></dl>
        </div>
    });
    let attention = o.attention.clone();
    view! {
        <section class="card" id="overview">
            <h2>"Last 7 and 30 days"</h2>
            <div class="columns periods">
                {period("figures-7", "Last 7 days", o.last7.clone())}
                {period("figures-30", "Last 30 days", o.last30.clone())}
                {balance}
            </div>
            <BarChart id="overview-chart" label bars caption/>
        </section>
        <section class="card" id="attention">
            <h2>"Needs attention"</h2>
            {if attention.is_empty() {
                view! { <p class="muted">"Nothing needs your attention."</p> }.into_any()
            } else {
                view! {
                    <ul class="attention">
                        {attention.into_iter().map(|a| view! {
                            <li data-code=a.code.clone()><a href=a.href.clone() rel="external">{a.text.clone()}</a></li>
                        }).collect_view()}
                    </ul>
                }.into_any()
            }}
        </section>
    }
}
