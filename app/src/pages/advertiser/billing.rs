//! `/advertiser/billing`: the balance, the provider payments awaiting capture (the
//! development checkout sends the payer back here), the billing profile and the invoices.

use leptos::prelude::*;
use leptos_meta::Title;

use super::{BalanceCard, CaptureForm, action_error, field_error, load_error, successes, when};
use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::components::loaded::loaded;
use crate::error::AppError;
use crate::model::AccountView;
use crate::model::billing::{AccountType, BillingProfile, Funding, Invoice};
use crate::pages::RequireUser;
use crate::server_fns::billing::{
    BillingSummary, CapturePayment, SaveBillingProfile, billing_overview,
};

#[component]
pub fn BillingPage() -> impl IntoView {
    let save = ServerAction::<SaveBillingProfile>::new();
    let capture = ServerAction::<CapturePayment>::new();
    let saved = successes(save);
    let query = leptos_router::hooks::use_query_map();
    let cursor = Memo::new(move |_| query.read().get("cursor"));
    let summary = Resource::new(
        move || (cursor.get(), saved.get(), capture.version().get()),
        |(cursor, ..)| billing_overview(cursor),
    );
    view! {
        <Title text="Billing"/>
        <RequireUser signed_in=move |_u: AccountView| view! { <BillingView save capture summary/> }/>
    }
}

// The resource and actions are created in the page body, before `RequireUser`: its
// content can render more than once on the server, and a resource created in there would
// be created again and break hydration.
#[component]
fn BillingView(
    save: ServerAction<SaveBillingProfile>,
    capture: ServerAction<CapturePayment>,
    summary: Resource<Result<BillingSummary, AppError>>,
) -> impl IntoView {
    view! {
        <p class="crumbs"><a href="/advertiser" rel="external">"← Advertiser"</a></p>
        {loaded(summary, load_error, move |s| view! {
            <BalanceCard balance=s.balance funding_link=true/>
            <AwaitingCapture pending=s.awaiting_capture capture/>
            <ProfileForm profile=s.profile save/>
            <Allocations allocations=s.allocations older=s.allocations_next.map(|c| format!("/advertiser/billing?cursor={c}#allocations"))/>
            <Invoices invoices=s.invoices/>
        }.into_any())}
    }
}

/// Provider payments with an open order: after approving at the checkout, capture them here.
#[component]
fn AwaitingCapture(pending: Vec<Funding>, capture: ServerAction<CapturePayment>) -> impl IntoView {
    let error = action_error(capture);
    let captured = move || {
        capture
            .value()
            .get()
            .and_then(Result::ok)
            .filter(|f| {
                f.status == crate::model::billing::FundingStatus::Credited
            })
            .map(|f| {
                view! {
                    <div class="notice ok" role="status">
                        {format!("Payment captured: {} credited.", f.amount_micros.money(&f.currency))}
                    </div>
                }
            })
    };
    let empty = pending.is_empty();
    view! {
        {captured}
        <ErrorNotice error/>
        {(!empty).then(|| view! {
            <section class="card" id="awaiting-capture">
                <h2>"Payments awaiting capture"</h2>
                <p class="muted">
                    "Once you have approved a payment at the provider's checkout, capture it to credit your balance."
                </p>
                <table class="fundings">
                    <thead><tr><th>"Order"</th><th>"Amount"</th><th>"Opened"</th><th></th></tr></thead>
                    <tbody>
                        {pending.into_iter().map(|f| {
                            let order = f.provider_order_id.clone().unwrap_or_default();
                            view! {
                                <tr>
                                    <td><code>{order.clone()}</code></td>
                                    <td>{f.amount_micros.money(&f.currency)}</td>
                                    <td>{super::when(f.created_at)}</td>
                                    <td><CaptureForm order_id=order capture/></td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
            </section>
        })}
    }
}

#[component]
fn ProfileForm(profile: BillingProfile, save: ServerAction<SaveBillingProfile>) -> impl IntoView {
    let error = action_error(save);
    let stored_complete = profile.complete;
    // The scripted answer wins over the loaded profile.
    let complete = move || match save.value().get() {
        Some(Ok(p)) => p.complete,
        _ => stored_complete,
    };
    let saved = move || save.value().get().is_some_and(|r| r.is_ok());
    let business = profile.account_type != Some(AccountType::Individual);
    let emails = profile.billing_emails.join(", ");
    let updated = profile.updated_at.map(when);
    view! {
        <section class="card" id="billing-profile">
            <div class="card-head">
                <h2>"Billing profile"</h2>
                {move || if complete() {
                    view! { <span class="badge profile-complete">"COMPLETE"</span> }.into_any()
                } else {
                    view! { <span class="badge profile-incomplete">"INCOMPLETE"</span> }.into_any()
                }}
            </div>
            <p class="muted">
                "Invoices are made out to this identity. The legal name and country are required before any funding."
                {updated.map(|u| view! { " Last saved "{u}"." })}
            </p>
            <ErrorNotice error/>
            <Show when=saved>
                <div class="notice ok" role="status">"Billing profile saved."</div>
            </Show>
            <ActionForm action=save attr:class="grid-2 profile-form">
                <CsrfField/>
                <label>"Account type"
                    <select name="account_type" required>
                        <option value="BUSINESS" selected=business>"Business"</option>
                        <option value="INDIVIDUAL" selected=!business>"Individual"</option>
                    </select>
                    {field_error(error, "accountType")}
                </label>
                <label>"Legal name"
                    <input type="text" name="legal_name" maxlength="200"
                        value=profile.legal_name.clone().unwrap_or_default()/>
                    {field_error(error, "legalName")}
                </label>
                <label>"Country (two-letter code)"
                    <input type="text" name="country" maxlength="2" placeholder="DE" autocomplete="country"
                        value=profile.country.clone().unwrap_or_default()/>
                    {field_error(error, "country")}
                </label>
                <label>"Tax id"
                    <input type="text" name="tax_id" maxlength="64"
                        value=profile.tax_id.clone().unwrap_or_default()/>
                    {field_error(error, "taxId")}
                </label>
                <label class="span-2">"Address"
                    <input type="text" name="address_line1" maxlength="200" autocomplete="address-line1"
                        value=profile.address_line1.clone().unwrap_or_default()/>
                    {field_error(error, "addressLine1")}
                </label>
                <label>"City"
                    <input type="text" name="city" maxlength="100" autocomplete="address-level2"
                        value=profile.city.clone().unwrap_or_default()/>
                    {field_error(error, "city")}
                </label>
                <label>"Postal code"
                    <input type="text" name="postal_code" maxlength="20" autocomplete="postal-code"
                        value=profile.postal_code.clone().unwrap_or_default()/>
                    {field_error(error, "postalCode")}
                </label>
                <label class="span-2">"Billing e-mails (comma separated)"
                    <input type="text" name="billing_emails" value=emails
                        placeholder="billing@example.com, finance@example.com"/>
                    {field_error(error, "billingEmails")}
                </label>
                <div class="form-actions"><Submit action=save label="Save billing profile"/></div>
            </ActionForm>
        </section>
    }
}

#[component]
fn Allocations(
    allocations: Vec<crate::model::survey::campaign::Allocation>,
    older: Option<String>,
) -> impl IntoView {
    view! {
        <section class="card" id="allocations">
            <h2>"Survey allocations"</h2>
            <p class="muted">"Survey campaigns paid from this wallet: the estimated cost (CPI × completes) is held for each."</p>
            {if allocations.is_empty() {
                view! { <p class="muted">"No survey campaign has been paid from the wallet yet."</p> }.into_any()
            } else {
                view! {
                    <table class="allocations">
                        <thead>
                            <tr><th>"Date"</th><th>"Survey campaign"</th><th>"Status"</th><th>"Amount"</th></tr>
                        </thead>
                        <tbody>
                            {allocations.into_iter().map(|a| view! {
                                <tr>
                                    <td>{a.created_at.format("%Y-%m-%d").to_string()}</td>
                                    <td><a href=format!("/advertiser/surveys/{}", a.campaign_id) rel="external"><code>{a.campaign_id.clone()}</code></a></td>
                                    <td><span class="badge">{a.status.clone()}</span></td>
                                    <td class="num">{a.amount_micros.money(&a.currency)}</td>
                                </tr>
                            }).collect_view()}
                        </tbody>
                    </table>
                }.into_any()
            }}
            <crate::pages::OlderLink href=older/>
        </section>
    }
}

#[component]
fn Invoices(invoices: Vec<Invoice>) -> impl IntoView {
    view! {
        <section class="card" id="invoices">
            <h2>"Invoices"</h2>
            <p class="muted">"Monthly statements from the ledger: the current month stays OPEN until it ends. "
                <a href="/advertiser/billing/ledger.csv" rel="external" download>"Download the wallet ledger (CSV)"</a>
                ": every movement of your balance, oldest first, with the opening and closing balance."</p>
            {if invoices.is_empty() {
                view! { <p class="muted">"No invoices yet."</p> }.into_any()
            } else {
                view! {
                    <table class="invoices">
                        <thead>
                            <tr><th>"Period"</th><th>"Status"</th><th>"Funded"</th><th>"Spent"</th><th>"Lines"</th></tr>
                        </thead>
                        <tbody>
                            {invoices.into_iter().map(|i| { let currency = i.currency.clone(); view! {
                                <tr>
                                    <td><strong>{i.period.clone()}</strong><br/><code class="muted">{i.invoice_id.clone()}</code></td>
                                    <td><span class=format!("badge invoice-{}", i.status.to_ascii_lowercase())>{i.status.clone()}</span></td>
                                    <td class="num">{i.funded_micros.money(&i.currency)}</td>
                                    <td class="num">{i.spent_micros.money(&i.currency)}</td>
                                    <td>
                                        <ul class="lines">
                                            {i.lines.into_iter().map(|l| view! {
                                                <li>{l.description}" "<span class="muted">{l.amount_micros.money(&currency)}</span></li>
                                            }).collect_view()}
                                        </ul>
                                    </td>
                                </tr>
                            }}).collect_view()}
                        </tbody>
                    </table>
                }.into_any()
            }}
        </section>
    }
}
