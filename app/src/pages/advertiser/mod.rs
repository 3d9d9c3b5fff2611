//! The advertiser wallet: balance, billing profile and invoices, then funding by wire and
//! by payment provider. Every form is a plain HTML form that also works without JavaScript.

mod billing;
mod campaigns;
mod conversions;
mod funding;
mod surveys;

pub use billing::BillingPage;
pub use campaigns::{
    CampaignDetailPage, CampaignQueue, CampaignReportPage, CampaignReview, CampaignTrackingPage,
    CampaignsPage, NewCampaignPage,
};
pub use conversions::{ConversionsPage, ReconciliationPage};
pub use funding::FundingPage;
pub use surveys::{SurveyDetailPage, SurveysPage};

use leptos::prelude::*;

use crate::components::form::{CsrfField, Submit};
use crate::components::loaded::Refusal;
use crate::error::AppError;
use crate::model::billing::{Balance, Funding};
use crate::server_fns::billing::CapturePayment;

/// The last refusal of an action, for [`ErrorNotice`](crate::components::form::ErrorNotice).
fn action_error<S>(action: ServerAction<S>) -> Signal<Option<AppError>>
where
    S: leptos::server_fn::ServerFn<Error = AppError> + Clone + Send + Sync + 'static,
    S::Output: Clone + Send + Sync + 'static,
{
    Signal::derive(move || action.value().get().and_then(Result::err))
}

/// Counts an action's successful answers. A resource keyed on it reloads after a success
/// but not after a refusal, so a refused form keeps what the user typed.
pub(in crate::pages) fn successes<S>(action: ServerAction<S>) -> Memo<usize>
where
    S: leptos::server_fn::ServerFn<Error = AppError> + Clone + Send + Sync + 'static,
    S::Output: Clone + Send + Sync + 'static,
{
    Memo::new(move |prev: Option<&usize>| {
        let n = prev.copied().unwrap_or(0);
        if action.value().with(|v| matches!(v, Some(Ok(_)))) {
            n + 1
        } else {
            n
        }
    })
}

/// The refusal's message for one field (`prefix` also matches `field[i]` entries).
fn field_error(error: Signal<Option<AppError>>, field: &'static str) -> impl IntoView {
    move || {
        error.get().and_then(|e| {
            e.field_errors
                .iter()
                .find(|(f, _)| {
                    *f == field
                        || f.strip_prefix(field)
                            .is_some_and(|rest| rest.starts_with('['))
                })
                .map(|(_, why)| view! { <small class="field-error">{why.clone()}</small> })
        })
    }
}

/// A refusal while loading the page's data (pending account, administrator, …).
fn load_error(error: AppError) -> AnyView {
    view! {
        <Refusal
            error
            title="This page is not available"
            pending="It opens once an administrator has approved the account."
            back=("/advertiser", "Back to the advertiser dashboard")
        />
    }
    .into_any()
}

/// The shared wallet: available, reserved and spent, and what is owed after a refund or
/// chargeback.
#[component]
fn BalanceCard(balance: Balance, #[prop(optional)] funding_link: bool) -> impl IntoView {
    let cur = balance.currency.clone();
    let (c1, c2, c3, debt_cur) = (cur.clone(), cur.clone(), cur.clone(), cur);
    view! {
        <section class="card balance-card" id="balance">
            <div class="card-head">
                <h1>"Balance"</h1>
                {funding_link.then(|| view! {
                    <a class="button" href="/advertiser/billing/funding" rel="external">"Add funds"</a>
                })}
            </div>
            <dl class="balance">
                <div class="available">
                    <dt>"Available"</dt>
                    <dd data-micros=balance.available_micros.get().to_string()>
                        <span class="amount">{balance.available_micros.amount_in(&balance.currency)}</span>" "<span class="cur">{c1}</span>
                    </dd>
                </div>
                <div class="reserved">
                    <dt>"Reserved"</dt>
                    <dd data-micros=balance.reserved_micros.get().to_string()>
                        <span class="amount">{balance.reserved_micros.amount_in(&balance.currency)}</span>" "<span class="cur">{c2}</span>
                    </dd>
                </div>
                <div class="spent">
                    <dt>"Spent"</dt>
                    <dd data-micros=balance.spent_micros.get().to_string()>
                        <span class="amount">{balance.spent_micros.amount_in(&balance.currency)}</span>" "<span class="cur">{c3}</span>
                    </dd>
                </div>
                // Only after a refund or chargeback took more than the wallet held.
                {(balance.debt_micros.get() > 0).then(|| view! {
                    <div class="debt">
                        <dt>"Owed"</dt>
                        <dd data-micros=balance.debt_micros.get().to_string()>
                            <span class="amount">{balance.debt_micros.amount_in(&balance.currency)}</span>" "<span class="cur">{debt_cur}</span>
                            <span class="muted">" paid first by your next funding"</span>
                        </dd>
                    </div>
                })}
            </dl>
        </section>
    }
}

/// Coloured funding status.
#[component]
fn FundingBadge(status: crate::model::billing::FundingStatus) -> impl IntoView {
    let class = format!("badge funding-{}", status.as_str().to_ascii_lowercase());
    view! { <span class=class>{status.as_str()}</span> }
}

/// The capture button of an open provider order.
#[component]
fn CaptureForm(order_id: String, capture: ServerAction<CapturePayment>) -> impl IntoView {
    view! {
        <ActionForm action=capture attr:class="inline capture-form">
            <CsrfField/>
            <input type="hidden" name="order_id" value=order_id/>
            <Submit action=capture label="Capture payment"/>
        </ActionForm>
    }
}

fn method_label(f: &Funding) -> &'static str {
    match f.method.as_str() {
        "WIRE" => "Wire transfer",
        "PAYPROVIDER" => "Payment provider",
        _ => "Other",
    }
}

use crate::pages::when;
