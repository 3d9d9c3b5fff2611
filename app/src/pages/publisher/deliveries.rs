//! The reward-callback deliveries: the log with a status filter and paging, and one
//! delivery with its payload, headers, attempt timeline and a replay button. Plain forms
//! and links, so it works without JavaScript.

use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::{use_params_map, use_query_map};

use super::{action_error, load_error};
use crate::components::form::{CsrfField, ErrorNotice, StatusSelect, Submit};
use crate::components::loaded::loaded;
use crate::model::callback_delivery::{
    DeliveryDetail, DeliveryHealth, DeliveryStatus, DeliverySummary,
};
use crate::pages::MemberPage;
use crate::server_fns::publisher::deliveries::{
    ReplayDelivery, ResumeReceiver, list_deliveries, paused_receivers, read_delivery,
};

fn when(t: Option<chrono::DateTime<chrono::Utc>>) -> String {
    t.map(|t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string())
        .unwrap_or_else(|| "—".to_owned())
}

fn badge(s: DeliveryStatus) -> impl IntoView {
    view! { <span class=format!("badge delivery-{}", s.as_str().to_ascii_lowercase())>{s.as_str()}</span> }
}

#[component]
pub fn DeliveriesPage() -> impl IntoView {
    let query = use_query_map();
    let status = Memo::new(move |_| query.read().get("status").unwrap_or_default());
    let cursor = Memo::new(move |_| query.read().get("cursor"));
    let log = Resource::new(
        move || (status.get(), cursor.get()),
        |(s, c)| list_deliveries(Some(s), c),
    );
    let paused = Resource::new(|| (), |()| paused_receivers());
    view! {
        <MemberPage title="Reward callbacks" back=("/publisher", "← Publisher")>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    paused.await.ok().filter(|p| !p.is_empty()).map(|list| view! {
                        <section class="card notice" id="paused-receivers">
                            <h2>"Paused receivers"</h2>
                            <p>"Every attempt to these receivers failed for 24 hours, so their callbacks are paused (kept, not lost). Fix the receiver, then resume it on the placement page."</p>
                            <ul>
                                {list.into_iter().map(|r| view! {
                                    <li><a href=format!("/publisher/placements/{}#delivery-health", r.placement_id) rel="external">{r.placement_name}</a>
                                        {format!(" — paused {}", when(Some(r.paused_at)))}</li>
                                }).collect_view()}
                            </ul>
                        </section>
                    })
                })}
            </Transition>
            <section class="card">
                <h1>"Reward callbacks"</h1>
                <p class="muted">"Every signed callback sent to your receivers: confirmations when a user's reward is credited, reversals when it is taken back. Failed callbacks are retried for about three days; replay one after fixing your receiver."</p>
                <Form method="get" action="/publisher/deliveries" attr:class="filters">
                    <StatusSelect current=status all="All statuses"
                        choices=DeliveryStatus::ALL.iter().map(|s| (s.as_str(), s.as_str())).collect()/>
                    <button type="submit" class="secondary">"Filter"</button>
                </Form>
            </section>
            {loaded(log, load_error, move |value| match value {
                list if list.items.is_empty() => view! {
                    <section class="card" id="deliveries"><p class="muted">"No callback matches."</p></section>
                }.into_any(),
                list => {
                    let next = list.next_cursor.clone().map(|c| format!("/publisher/deliveries?status={}&cursor={c}", status.get_untracked()));
                    view! {
                        <section class="card" id="deliveries">
                            <table>
                                <thead><tr><th>"Status"</th><th>"Event"</th><th>"User"</th><th>"Transaction"</th><th>"Attempts"</th><th>"Created"</th><th>"Next attempt"</th></tr></thead>
                                <tbody>
                                    {list.items.into_iter().map(|d| view! { <Row d/> }).collect_view()}
                                </tbody>
                            </table>
                            <crate::pages::OlderLink href=next/>
                        </section>
                    }.into_any()
                }
            })}
        </MemberPage>
    }
}

#[component]
fn Row(d: DeliverySummary) -> impl IntoView {
    let href = format!("/publisher/deliveries/{}", d.delivery_id);
    view! {
        <tr data-delivery=d.delivery_id.clone()>
            <td>{badge(d.status)}</td>
            <td><a href=href rel="external">{d.event_type.clone()}</a></td>
            <td><code>{d.external_user_id.clone().unwrap_or_default()}</code></td>
            <td><code>{d.transaction_id.clone()}</code></td>
            <td>{d.attempt_count}</td>
            <td>{when(Some(d.created_at))}</td>
            <td>{when(d.next_attempt_at)}</td>
        </tr>
    }
}

#[component]
pub fn DeliveryDetailPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let replay = ServerAction::<ReplayDelivery>::new();
    let detail = Resource::new(
        move || (id.get(), replay.version().get()),
        |(id, _)| read_delivery(id),
    );
    view! {
        <MemberPage title="Reward callback" back=("/publisher/deliveries", "← Reward callbacks")>
            <ErrorNotice error=action_error(replay)/>
            {loaded(detail, load_error, move |d| view! { <Detail d replay/> }.into_any())}
        </MemberPage>
    }
}

#[component]
fn Detail(d: DeliveryDetail, replay: ServerAction<ReplayDelivery>) -> impl IntoView {
    let s = d.summary.clone();
    let replayable = matches!(s.status, DeliveryStatus::Delivered | DeliveryStatus::Failed);
    let headers = d
        .headers
        .iter()
        .map(|(k, v)| format!("{k}: {v}"))
        .collect::<Vec<_>>()
        .join("\n");
    let payload = serde_json::to_string_pretty(&d.payload).unwrap_or_default();
    view! {
        <section class="card" id="delivery">
            <h1>{badge(s.status)}" "{s.event_type.clone()}</h1>
            <p class="muted">
                "Event "<code>{s.event_id.clone()}</code>" · placement "<code>{s.placement_id.clone()}</code>
                " · user "<code>{s.external_user_id.clone().unwrap_or_default()}</code>
                " · transaction "<code>{s.transaction_id.clone()}</code>
            </p>
            <p>"Created "{when(Some(s.created_at))}" · delivered "{when(s.delivered_at)}" · next attempt "{when(s.next_attempt_at)}
                {s.waits_for.clone().map(|w| view! { " · waits for confirmation "<code>{w}</code> })}
            </p>
            {replayable.then(|| view! {
                <ActionForm action=replay>
                    <CsrfField/>
                    <input type="hidden" name="delivery_id" value=s.delivery_id.clone()/>
                    <Submit action=replay label="Replay"/>
                    <span class="muted">" Sends the same event and Idempotency-Key again with a fresh signature."</span>
                </ActionForm>
            })}
            <h2>"Headers"</h2>
            <pre>{headers}</pre>
            <h2>"Payload"</h2>
            <pre>{payload}</pre>
        </section>
        <section class="card" id="attempts">
            <h2>"Attempts"</h2>
            {if d.attempts.is_empty() {
                view! { <p class="muted">"No attempt yet."</p> }.into_any()
            } else {
                view! {
                    <ol class="timeline">
                        {d.attempts.into_iter().map(|a| view! {
                            <li data-attempt=a.attempt>
                                <strong>{format!("#{} ", a.attempt)}</strong>
                                {when(Some(a.started_at))}" · "
                                {a.response_status.map(|s| format!("HTTP {s}")).unwrap_or_else(|| a.error_class.clone().unwrap_or_default())}
                                {format!(" · {} ms", a.latency_ms)}
                                {a.replay.then_some(" · replay")}
                                {a.error_message.clone().map(|m| view! { <br/><span class="muted">{m}</span> })}
                                {a.response_excerpt.clone().map(|b| view! { <pre>{b}</pre> })}
                            </li>
                        }).collect_view()}
                    </ol>
                }.into_any()
            }}
        </section>
    }
}

/// The delivery-health card on the placement page.
#[component]
pub fn DeliveryHealthCard(
    health: Resource<Result<DeliveryHealth, crate::error::AppError>>,
) -> impl IntoView {
    let resume = ServerAction::<ResumeReceiver>::new();
    view! {
        <Transition fallback=|| ()>
            {move || Suspend::new(async move {
                health.await.ok().map(|h: DeliveryHealth| view! {
                    <section class="card" id="delivery-health">
                        <h2>"Reward callback health"</h2>
                        <p>
                            {match h.success_rate_percent {
                                Some(p) => format!("{p} % of {} attempts succeeded in the last 24 hours.", h.attempts_24h),
                                None => "No attempt in the last 24 hours.".to_owned(),
                            }}
                        </p>
                        <p>
                            "Last failure: "{h.last_failure.clone().map(|f| format!("{f} at {}", when(h.last_failure_at))).unwrap_or_else(|| "none".to_owned())}
                            " · next retry: "{when(h.next_retry_at)}
                        </p>
                        {h.paused_at.map(|at| view! {
                            <div class="notice" id="receiver-paused">
                                <p><strong>"Delivery is paused."</strong>{format!(" Every attempt failed since {}, so nothing has been sent since {}. {} callbacks are kept for you.", when(h.failing_since.or(Some(at))), when(Some(at)), h.due)}</p>
                                <ActionForm action=resume>
                                    <CsrfField/>
                                    <input type="hidden" name="placement_id" value=h.placement_id.clone()/>
                                    <Submit action=resume label="Resume delivery"/>
                                </ActionForm>
                            </div>
                        })}
                        <ErrorNotice error=action_error(resume)/>
                        {move || resume.value().get().and_then(Result::ok).map(|r| view! {
                            <p class="success">{format!("Delivery resumed: {} pending callbacks are due now.", r.pending)}</p>
                        })}
                        {(h.waiting_for_receiver > 0).then(|| view! {
                            <p class="notice">{format!("{} rewards are waiting: configure the callback URL to send them.", h.waiting_for_receiver)}</p>
                        })}
                        <p class="muted">{format!("{} in their pending hold · {} failed", h.held, h.failed)}" · "
                            <a href="/publisher/deliveries" rel="external">"All callbacks"</a></p>
                    </section>
                })
            })}
        </Transition>
    }
}
