//! `/advertiser/billing/funding`: pay through the payment provider (checkout, then capture),
//! announce a wire transfer, and the funding history with statuses.

use leptos::prelude::*;
use leptos_meta::Title;

use super::{
    BalanceCard, CaptureForm, FundingBadge, action_error, field_error, load_error, method_label,
    successes, when,
};
use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::components::loaded::loaded;
use crate::error::AppError;
use crate::model::AccountView;
use crate::model::billing::{Funding, PayProviderConfig, ProviderCode, WireConfig};
use crate::pages::RequireUser;
use crate::server_fns::billing::{
    CapturePayment, FundingSummary, OpenPaymentOrder, RequestWireFunding, funding_overview,
};

#[component]
pub fn FundingPage() -> impl IntoView {
    let wire = ServerAction::<RequestWireFunding>::new();
    let order = ServerAction::<OpenPaymentOrder>::new();
    let capture = ServerAction::<CapturePayment>::new();
    let (wired, ordered) = (successes(wire), successes(order));
    let query = leptos_router::hooks::use_query_map();
    let cursor = Memo::new(move |_| query.read().get("cursor"));
    let summary = Resource::new(
        move || {
            (
                cursor.get(),
                wired.get(),
                ordered.get(),
                capture.version().get(),
            )
        },
        |(cursor, ..)| funding_overview(cursor),
    );
    // A scripted page goes to the provider's checkout itself (a plain form post is
    // redirected there by the server). A full page load: the checkout is not a route here.
    Effect::new(move |_| {
        if let Some(Ok(o)) = order.value().get() {
            let _ = window().location().set_href(&o.approve_url);
        }
    });
    view! {
        <Title text="Add funds"/>
        <RequireUser signed_in=move |_u: AccountView| view! { <FundingView wire order capture summary/> }/>
    }
}

// The resource and actions are created in the page body, before `RequireUser`: its
// content can render more than once on the server, and a resource created in there would
// be created again and break hydration.
#[component]
fn FundingView(
    wire: ServerAction<RequestWireFunding>,
    order: ServerAction<OpenPaymentOrder>,
    capture: ServerAction<CapturePayment>,
    summary: Resource<Result<FundingSummary, AppError>>,
) -> impl IntoView {
    view! {
        <p class="crumbs"><a href="/advertiser/billing" rel="external">"← Billing"</a></p>
        {loaded(summary, load_error, move |s| {
            // An order not yet approved can be reopened at the provider's checkout (PayPal's
            // or the development one) from the history.
            let reopenable = s.payprovider.provider != ProviderCode::Disabled;
            view! {
                <BalanceCard balance=s.balance/>
                {(!s.profile_complete).then(|| view! {
                    <div class="notice warn" role="status">
                        "Complete the "<a href="/advertiser/billing" rel="external">"billing profile"</a>
                        " (legal name and country) before funding."
                    </div>
                })}
                <div class="columns funding-methods">
                    // Without a configured provider (production's default) only wire is offered.
                    {(s.payprovider.provider != ProviderCode::Disabled).then(|| view! {
                        <ProviderForm config=s.payprovider key=s.order_key order/>
                    })}
                    <WireForm config=s.wire wire/>
                </div>
                <History fundings=s.fundings older=s.fundings_next.map(|c| format!("/advertiser/billing/funding?cursor={c}")) capture checkout=reopenable/>
            }
            .into_any()
        }
        )}
    }
}

#[component]
fn ProviderForm(
    config: PayProviderConfig,
    key: String,
    order: ServerAction<OpenPaymentOrder>,
) -> impl IntoView {
    let error = action_error(order);
    let going = move || order.value().get().is_some_and(|r| r.is_ok());
    let dev = config.provider == ProviderCode::Development;
    view! {
        <section class="card grow" id="payprovider">
            <h2>"Pay by card"</h2>
            <p class="muted">
                "Between "{config.minimum_micros.money(&config.currency)}" and "{config.maximum_micros.money(&config.currency)}
                ". You approve the payment at the provider's checkout, then capture it here or on the billing page."
            </p>
            {dev.then(|| view! {
                <p class="notice warn">"Development payment provider: no money moves."</p>
            })}
            <ErrorNotice error/>
            <Show when=going>
                <div class="notice ok" role="status">"Opening the checkout…"</div>
            </Show>
            <ActionForm action=order attr:class="provider-form">
                <CsrfField/>
                <input type="hidden" name="idempotency_key" value=key/>
                <label>"Amount (USD)"
                    <input type="text" name="amount" inputmode="decimal" placeholder="250.00" required/>
                    {field_error(error, "amount")}
                </label>
                <div class="form-actions"><Submit action=order label="Continue to checkout"/></div>
            </ActionForm>
        </section>
    }
}

#[component]
fn WireForm(config: WireConfig, wire: ServerAction<RequestWireFunding>) -> impl IntoView {
    let error = action_error(wire);
    let announced = move || {
        wire.value().get().and_then(Result::ok).map(|f| {
            view! {
                <div class="notice ok" role="status">
                    {format!(
                        "Wire transfer of {} announced (reference {}). It is credited once it arrives.",
                        f.amount_micros.money(&f.currency),
                        f.external_reference.unwrap_or_default()
                    )}
                </div>
            }
        })
    };
    view! {
        <section class="card grow" id="wire">
            <h2>"Wire transfer"</h2>
            <dl class="facts wire-instructions">
                <dt>"Beneficiary"</dt><dd>{config.beneficiary}</dd>
                <dt>"Bank"</dt><dd>{config.bank_name}</dd>
                <dt>"IBAN"</dt><dd><code>{config.iban}</code></dd>
                <dt>"BIC"</dt><dd><code>{config.bic}</code></dd>
                <dt>"Minimum"</dt><dd class="wire-minimum">{config.minimum_micros.money(&config.currency)}</dd>
                <dt>"Maximum"</dt><dd>{config.maximum_micros.money(&config.currency)}</dd>
            </dl>
            <p class="muted">
                "Put your own reference on the bank transfer and announce it below with the same reference and amount. "
                "An administrator credits it once the transfer arrives."
            </p>
            {announced}
            <ErrorNotice error/>
            <ActionForm action=wire attr:class="wire-form">
                <CsrfField/>
                <label>"Amount (USD)"
                    <input type="text" name="amount" inputmode="decimal" placeholder="1000.00" required/>
                    {field_error(error, "amount")}
                </label>
                <label>"Transfer reference"
                    <input type="text" name="external_reference" minlength="3" maxlength="120" required
                        placeholder="INV-2026-0001"/>
                    {field_error(error, "externalReference")}
                </label>
                <div class="form-actions"><Submit action=wire label="Announce wire transfer"/></div>
            </ActionForm>
        </section>
    }
}

#[component]
fn History(
    fundings: Vec<Funding>,
    older: Option<String>,
    capture: ServerAction<CapturePayment>,
    checkout: bool,
) -> impl IntoView {
    let error = action_error(capture);
    view! {
        <section class="card" id="funding-history">
            <h2>"Funding history"</h2>
            <ErrorNotice error/>
            {if fundings.is_empty() {
                view! { <p class="muted">"No funding yet."</p> }.into_any()
            } else {
                view! {
                    <table class="fundings">
                        <thead>
                            <tr><th>"Date"</th><th>"Method"</th><th>"Amount"</th><th>"Reference"</th><th>"Status"</th><th></th></tr>
                        </thead>
                        <tbody>
                            {fundings.into_iter().map(|f| view! { <HistoryRow f capture checkout/> }).collect_view()}
                        </tbody>
                    </table>
                }.into_any()
            }}
            <crate::pages::OlderLink href=older/>
        </section>
    }
}

#[component]
fn HistoryRow(f: Funding, capture: ServerAction<CapturePayment>, checkout: bool) -> impl IntoView {
    let open_order = f
        .is_open_order()
        .then(|| f.provider_order_id.clone())
        .flatten();
    let checkout_href = f.checkout_url.clone().unwrap_or_default();
    let reference = f
        .external_reference
        .clone()
        .or_else(|| f.provider_order_id.clone())
        .unwrap_or_default();
    view! {
        <tr data-funding=f.funding_id.clone()>
            <td>{when(f.created_at)}</td>
            <td>{method_label(&f)}</td>
            <td class="num">{f.amount_micros.money(&f.currency)}</td>
            <td><code>{reference}</code></td>
            <td>
                <FundingBadge status=f.status/>
                {(f.returned_micros.get() > 0).then(|| view! {
                    <span class="muted returned">
                        " " {f.returned_micros.money(&f.currency)} " returned"
                    </span>
                })}
            </td>
            <td>
                {open_order.map(|id| {
                    let href = checkout_href.clone();
                    view! {
                        <span class="actions">
                            {checkout.then(|| view! {
                                <a class="button secondary" href=href rel="external">"Checkout"</a>
                            })}
                            <CaptureForm order_id=id capture/>
                        </span>
                    }
                })}
            </td>
        </tr>
    }
}
