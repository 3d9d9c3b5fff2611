//! The account webhooks card: the organisation's endpoints with their health, a test, resume
//! and remove button each, and a form to register one (its secret shown once).

use leptos::prelude::*;

use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::model::OneTimeSecret;
use crate::model::notice::{AccountWebhookList, NoticeTopic, WebhookStatus};
use crate::pages::publisher::action_error;
use crate::server_fns::notices::{NoticesCreateWebhook, NoticesWebhookAction};

#[component]
pub fn WebhooksCard(
    hooks: AccountWebhookList,
    topics: Vec<NoticeTopic>,
    shown: Option<OneTimeSecret>,
    create: ServerAction<NoticesCreateWebhook>,
    act: ServerAction<NoticesWebhookAction>,
) -> impl IntoView {
    let error = Signal::derive(move || action_error(create).get().or(action_error(act).get()));
    let keeper = !topics.is_empty();
    let none = hooks.items.is_empty();
    let rows = hooks
        .items
        .into_iter()
        .map(|h| {
            let listens = if h.topics.len() == NoticeTopic::ALL.len() {
                "every topic".to_owned()
            } else {
                h.topics
                    .iter()
                    .map(|t| t.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let health = match (h.status, h.failing_since) {
                (WebhookStatus::Paused, _) => "paused after a day of failures".to_owned(),
                (_, Some(t)) => format!("failing since {}", t.format("%Y-%m-%d %H:%M UTC")),
                _ => "healthy".to_owned(),
            };
            let paused = h.status == WebhookStatus::Paused;
            let id = h.webhook_id.clone();
            let button = move |what: &'static str, label: &'static str, class: &'static str| {
                let id = id.clone();
                view! {
                    <ActionForm action=act attr:class="inline">
                        <CsrfField/>
                        <input type="hidden" name="webhook_id" value=id/>
                        <input type="hidden" name="what" value=what/>
                        <button type="submit" class=class>{label}</button>
                    </ActionForm>
                }
            };
            view! {
                <tr data-webhook=h.webhook_id.clone()>
                    <td><code>{h.url}</code><br/><span class="muted">{h.description}</span></td>
                    <td>{listens}</td>
                    <td class="health">{health}</td>
                    <td>{keeper.then(|| view! {
                        {button("test", "Send a test event", "")}
                        {paused.then(|| button("resume", "Resume", ""))}
                        {button("remove", "Remove", "danger")}
                    })}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="card" id="webhooks">
            <h2>"Account webhooks"</h2>
            <p class="muted">"Your own endpoint for these events, signed with Standard Webhooks headers ("<code>"webhook-id"</code>", "<code>"webhook-timestamp"</code>", "<code>"webhook-signature"</code>") and retried for about three days. See "<a href="/docs" rel="external">"the API documentation"</a>"."</p>
            <ErrorNotice error/>
            {shown.map(|s| view! {
                <div class="notice secret" role="status" id="webhook-secret">
                    <strong>{s.label}</strong>
                    <p>"Copy the secret now: it will not be shown again."</p>
                    <pre class="secret-value"><code>{s.value}</code></pre>
                </div>
            })}
            {if none {
                view! { <p id="no-webhooks">"No endpoints yet."</p> }.into_any()
            } else {
                view! {
                    <table class="webhooks" id="webhook-list">
                        <thead><tr><th>"Endpoint"</th><th>"Topics"</th><th>"Health"</th><th></th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                }.into_any()
            }}
            {keeper.then(|| view! { <NewWebhookForm topics=topics.clone() create/> })}
        </section>
    }
}

#[component]
fn NewWebhookForm(
    topics: Vec<NoticeTopic>,
    create: ServerAction<NoticesCreateWebhook>,
) -> impl IntoView {
    let boxes = topics
        .into_iter()
        .enumerate()
        .map(|(i, t)| {
            view! {
                <label class="check"><input type="checkbox" name=format!("topic[{i}]") value=t.as_str()/>{t.as_str()}</label>
            }
        })
        .collect_view();
    view! {
        <h3>"Add an endpoint"</h3>
        <ActionForm action=create attr:id="new-webhook">
            <CsrfField/>
            <label>"URL (HTTPS)"<input name="url" type="url" required placeholder="https://example.com/hooks/marketplace"/></label>
            <label>"Description"<input name="description" maxlength="200"/></label>
            <fieldset class="row"><legend>"Topics (none checked: every topic)"</legend>{boxes}</fieldset>
            <Submit action=create label="Add the endpoint"/>
        </ActionForm>
    }
}
