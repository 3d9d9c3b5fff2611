//! `/publisher/earnings`: what the publisher has earned (pending in the hold, available,
//! held for a payout, paid), its payout profile, payout requests, monthly statements and the
//! movements behind the balance. Plain forms, so the page works without JavaScript.

mod payouts;
mod statements;

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::load_error;
use crate::components::bar_chart::{Bar, BarChart};
use crate::components::loaded::loaded;
use crate::model::money::Micros;
use crate::model::publisher::earnings::{EarningsBalance, EarningsDaily, EarningsMovement};
use crate::pages::MemberPage;
use crate::pages::{OlderLink, when};
use crate::server_fns::earnings::{
    CancelPayout, RequestPayout, SavePayoutProfile, list_payouts, my_earnings, my_earnings_daily,
    my_earnings_movements, my_payout_profile, my_statement, my_statement_periods,
};

const USD: &str = "USD";

#[component]
pub fn EarningsPage() -> impl IntoView {
    // Created in the page body: RequireUser may render its children more than once.
    let query = use_query_map();
    let cursor = Memo::new(move |_| query.read().get("cursor"));
    let payouts_cursor = Memo::new(move |_| query.read().get("payouts"));
    let save = ServerAction::<SavePayoutProfile>::new();
    let request = ServerAction::<RequestPayout>::new();
    let cancel = ServerAction::<CancelPayout>::new();
    let changed = move || {
        (
            save.version().get(),
            request.version().get(),
            cancel.version().get(),
        )
    };
    let balance = Resource::new(changed, |_| my_earnings());
    let profile = Resource::new(move || save.version().get(), |_| my_payout_profile());
    let payouts = Resource::new(
        move || (payouts_cursor.get(), changed()),
        |(c, _)| list_payouts(c),
    );
    let movements = Resource::new(
        move || (cursor.get(), changed()),
        |(c, _)| my_earnings_movements(c),
    );
    let actions = payouts::Actions {
        save,
        request,
        cancel,
    };
    let chosen = Memo::new(move |_| query.read().get("statement"));
    let periods = Resource::new(changed, |_| my_statement_periods());
    let daily = Resource::new(|| (), |()| my_earnings_daily());
    // The chosen month, else the newest one with a statement.
    let shown = Resource::new(
        move || (chosen.get(), changed()),
        move |(chosen, _)| async move {
            let period = match chosen {
                Some(p) => Some(p),
                None => my_statement_periods().await?.periods.into_iter().next(),
            };
            match period {
                Some(p) => my_statement(p).await.map(Some),
                None => Ok(None),
            }
        },
    );
    view! {
        <MemberPage title="Earnings" back=("/publisher", "← Publisher")>
            {loaded(balance, load_error, move |b| view! { <Balance b/> }.into_any())}
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    match daily.await {
                        Err(error) => load_error(error),
                        Ok(d) => view! { <Daily d/> }.into_any(),
                    }
                })}
            </Transition>
            <payouts::PayoutForms actions profile/>
            <payouts::PayoutTable actions payouts/>
            <statements::Statements periods shown/>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    match movements.await {
                        Err(error) => load_error(error),
                        Ok(list) => {
                            let older = list.next_cursor.clone().map(|c| format!("/publisher/earnings?cursor={c}#movements"));
                            view! { <Movements items=list.items older/> }.into_any()
                        }
                    }
                })}
            </Transition>
        </MemberPage>
    }
}

/// What the next payout can be: the available balance once it reaches the minimum.
fn next_payout(b: &EarningsBalance) -> String {
    let (available, minimum) = (
        b.available_micros.get(),
        b.terms.minimum_payout_micros.get(),
    );
    if b.held_for_payout_micros.get() > 0 {
        format!(
            "Next payout: {} is on its way (see Payouts below).",
            b.held_for_payout_micros.money(USD)
        )
    } else if available >= minimum {
        format!(
            "Next payout: {} can be paid now. Request it below, or the monthly payout run pays it.",
            b.available_micros.money(USD)
        )
    } else {
        format!(
            "Next payout: once {} more is available (the smallest payout is {}).",
            Micros(minimum - available.max(0)).money(USD),
            b.terms.minimum_payout_micros.money(USD)
        )
    }
}

#[component]
fn Balance(b: EarningsBalance) -> impl IntoView {
    let next = b
        .next_release_at
        .map(when)
        .unwrap_or_else(|| "nothing pending".to_owned());
    let negative = b.available_micros.get() < 0;
    let reserve = (b.terms.reserve_percent > 0 || b.reserve_micros.get() > 0).then(|| {
        let until = b
            .terms
            .reserve_until
            .map(|u| format!(" while your account is new (until {})", when(u)))
            .unwrap_or_default();
        let next = b
            .next_reserve_release
            .map(|d| format!(" The next reserve is released on {d}."))
            .unwrap_or_default();
        view! {
            <p class="muted" data-reserve>{format!(
                "{}% of each release is kept in a reserve for {} more days{until}: it covers reversals after a payout, so they do not become a debt.{next}",
                b.terms.reserve_percent, b.terms.reserve_days
            )}</p>
        }
    });
    view! {
        <section class="card" id="earnings">
            <h1>"Earnings"</h1>
            <div class="figures">
                <div class="figure"><span class="muted">"Pending (in the hold)"</span><strong data-figure="pending">{b.pending_micros.money(USD)}</strong></div>
                <div class="figure"><span class="muted">"Available"</span><strong data-figure="available">{b.available_micros.money(USD)}</strong></div>
                <div class="figure"><span class="muted">"In the reserve"</span><strong data-figure="reserve">{b.reserve_micros.money(USD)}</strong></div>
                <div class="figure"><span class="muted">"Held for payouts"</span><strong data-figure="held">{b.held_for_payout_micros.money(USD)}</strong></div>
                <div class="figure"><span class="muted">"Paid to date"</span><strong data-figure="paid">{b.paid_micros.money(USD)}</strong></div>
            </div>
            <p class="muted">
                {format!(
                    "You earn {}% of each payout. Earnings stay pending for {} days after the conversion (the advertiser may reverse it until then); the oldest pending earnings are released {}. The smallest payout is {}.",
                    b.terms.revenue_share_bps / 100,
                    b.terms.hold_days,
                    next,
                    b.terms.minimum_payout_micros.money(USD),
                )}
            </p>
            {reserve}
            <p data-next-payout>{next_payout(&b)}</p>
            {negative.then(|| view! {
                <p class="notice" data-debt>{format!(
                    "A conversion was reversed after its earnings were released: {} is carried as a debt, netted from your next payout (your reserve and later earnings make it good first).",
                    b.debt_micros.money(USD)
                )}</p>
            })}
        </section>
    }
}

/// Earned per day of the last 30 days, as server-rendered bars.
#[component]
fn Daily(d: EarningsDaily) -> impl IntoView {
    let earned: i64 = d.days.iter().map(|x| x.earned_micros.get()).sum();
    let reversed: i64 = d.days.iter().map(|x| x.reversed_micros.get()).sum();
    let bars = d
        .days
        .iter()
        .map(|x| Bar {
            value: x.earned_micros.get(),
            title: format!(
                "{}: {} earned, {} conversions",
                x.day,
                x.earned_micros.money(USD),
                x.conversions
            ),
        })
        .collect();
    let caption = format!(
        "Earned in the last 30 days: {}; reversals took back {}.",
        Micros(earned).money(USD),
        Micros(-reversed).money(USD)
    );
    view! {
        <section class="card" id="earnings-daily">
            <h2>"Last 30 days"</h2>
            <BarChart id="earnings-chart" label="Earnings per day" bars caption/>
        </section>
    }
}

#[component]
fn Movements(items: Vec<EarningsMovement>, older: Option<String>) -> impl IntoView {
    if items.is_empty() {
        return view! {
            <section class="card" id="movements">
                <h2>"Movements"</h2>
                <p class="muted">"No earnings yet. Each paid conversion adds its share here."</p>
            </section>
        }
        .into_any();
    }
    view! {
        <section class="card" id="movements">
            <h2>"Movements"</h2>
            <table>
                <thead><tr><th>"When"</th><th>"What"</th><th>"Balance"</th><th>"Amount"</th><th>"Reference"</th></tr></thead>
                <tbody>
                    {items.into_iter().map(|m| view! {
                        <tr data-movement=m.id.clone()>
                            <td>{when(m.at)}</td>
                            <td>{m.kind.clone()}</td>
                            <td>{m.balance.clone()}</td>
                            <td>{m.amount_micros.money(USD)}</td>
                            <td><code>{m.reference.clone()}</code></td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
            <OlderLink href=older/>
        </section>
    }
    .into_any()
}
