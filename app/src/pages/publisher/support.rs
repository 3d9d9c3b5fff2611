//! The support inbox: cases end users open through the SDK on this publisher's placements.
//! Each case can be moved (OPEN → IN_PROGRESS → RESOLVED or REJECTED) with a note the user
//! sees. Plain forms, so it works without JavaScript.

use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

use super::{action_error, load_error};
use crate::components::form::{CsrfField, ErrorNotice, StatusSelect, Submit};
use crate::components::loaded::loaded;
use crate::model::publisher::ops::{SupportCase, SupportStatus};
use crate::pages::MemberPage;
use crate::server_fns::publisher::support_cases::{UpdateSupportCase, support_inbox};

const STATUSES: [SupportStatus; 4] = [
    SupportStatus::Open,
    SupportStatus::InProgress,
    SupportStatus::Resolved,
    SupportStatus::Rejected,
];

#[component]
pub fn SupportInboxPage() -> impl IntoView {
    // Created in the page body: RequireUser may render its children more than once.
    let query = use_query_map();
    let status = Memo::new(move |_| query.read().get("status").unwrap_or_default());
    let cursor = Memo::new(move |_| query.read().get("cursor"));
    let update = ServerAction::<UpdateSupportCase>::new();
    let inbox = Resource::new(
        move || (status.get(), cursor.get(), update.version().get()),
        |(s, c, _)| support_inbox(Some(s), c),
    );
    view! {
        <MemberPage title="Support inbox" back=("/publisher", "← Publisher")>
            <section class="card">
                <h1>"Support inbox"</h1>
                <p class="muted">"Cases your users opened from the offerwall. Your note is shown to the user in the SDK."</p>
                <Form method="get" action="/publisher/support" attr:class="filters">
                    <StatusSelect current=status all="All statuses"
                        choices=STATUSES.iter().map(|s| (s.as_str(), s.as_str())).collect()/>
                    <button type="submit" class="secondary">"Filter"</button>
                </Form>
                <ErrorNotice error=action_error(update)/>
            </section>
            {loaded(inbox, load_error, move |value| match value {
                list if list.items.is_empty() => view! {
                    <section class="card" id="support-cases"><p class="muted">"No support case matches."</p></section>
                }.into_any(),
                list => {
                    let older = list.next_cursor.clone().map(|c| {
                        format!("/publisher/support?status={}&cursor={c}", status.get_untracked())
                    });
                    view! {
                        <section class="card" id="support-cases">
                            <p class="muted">{format!("{} cases on this page", list.count)}</p>
                            {list.items.into_iter().map(|c| view! { <CaseCard case=c update/> }).collect_view()}
                            <crate::pages::OlderLink href=older/>
                        </section>
                    }.into_any()
                }
            })}
        </MemberPage>
    }
}

#[component]
fn CaseCard(case: SupportCase, update: ServerAction<UpdateSupportCase>) -> impl IntoView {
    let current = case.status;
    let (id, data_id) = (case.support_case_id.clone(), case.support_case_id.clone());
    view! {
        <article class="support-case" data-case=data_id>
            <h3>
                <span class=format!("badge support-{}", current.as_str().to_ascii_lowercase())>{current.as_str()}</span>" "
                <code>{case.reason_code.clone()}</code>
            </h3>
            <p>{case.message.clone()}</p>
            <p class="muted">
                "User "<code>{case.external_user_id.clone()}</code>" · placement "<code>{case.placement_id.clone()}</code>
                {case.offer_id.clone().map(|o| view! { " · offer "<code>{o}</code> })}
                " · opened "{case.created_at.format("%Y-%m-%d %H:%M UTC").to_string()}
            </p>
            {(!case.evidence.is_empty()).then(|| view! {
                <p class="evidence">"Evidence: "
                    {case.evidence.iter().map(|e| {
                        let href = format!("/publisher/support/{}/evidence/{}", e.support_case_id, e.evidence_id);
                        let label = format!(
                            "{} ({}, {} KB)",
                            e.file_name.clone().unwrap_or_else(|| e.evidence_id.clone()),
                            e.content_type,
                            (e.byte_size + 1023) / 1024
                        );
                        view! { <a href=href rel="external noopener noreferrer" target="_blank">{label}</a>" " }
                    }).collect_view()}
                </p>
            })}
            <ActionForm action=update attr:class="grid-3">
                <CsrfField/>
                <input type="hidden" name="support_case_id" value=id/>
                <label>"Status"
                    <select name="status">
                        {STATUSES.iter().map(|s| view! {
                            <option value=s.as_str() selected=*s == current>{s.as_str()}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>"Note to the user"
                    <textarea name="publisher_note" maxlength="2000" rows="2">{case.publisher_note.clone().unwrap_or_default()}</textarea>
                </label>
                <Submit action=update label="Save"/>
            </ActionForm>
        </article>
    }
}
