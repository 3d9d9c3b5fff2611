//! `/account/notifications` (issue 54, part 6): what the organisation was told, newest first
//! (unread ones marked, "mark all as seen"), this person's choice per topic of what they get
//! by e-mail and on the dashboard ([`preferences`]), and the organisation's account webhooks
//! ([`webhooks`]). Plain forms that work without JavaScript.

mod preferences;
mod webhooks;

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::components::form::{CsrfField, ErrorNotice};
use crate::components::loaded::{error_line, loaded};
use crate::model::AccountView;
use crate::model::notice::NoticeList;
use crate::pages::RequireUser;
use crate::pages::advertiser::successes;
use crate::pages::publisher::action_error;
use crate::server_fns::notices::{
    NoticesCreateWebhook, NoticesSavePreferences, NoticesSeen, NoticesWebhookAction, notices_page,
};

#[component]
pub fn NoticesPage() -> impl IntoView {
    let seen = ServerAction::<NoticesSeen>::new();
    let save = ServerAction::<NoticesSavePreferences>::new();
    let create = ServerAction::<NoticesCreateWebhook>::new();
    let act = ServerAction::<NoticesWebhookAction>::new();
    let query = use_query_map();
    let cursor = Memo::new(move |_| query.read().get("cursor"));
    let (a, b, c, d) = (
        successes(seen),
        successes(save),
        successes(create),
        successes(act),
    );
    let page = Resource::new(
        move || (cursor.get(), a.get(), b.get(), c.get(), d.get()),
        |(cursor, ..)| notices_page(cursor),
    );
    let fresh = Signal::derive(move || create.value().get().and_then(Result::ok));
    view! {
        <Title text="Notifications"/>
        <RequireUser signed_in=move |_u: AccountView| view! {
            {loaded(page, error_line, move |p| {
                let shown = fresh.get_untracked().or(p.issued.clone());
                view! {
                    <NoticesCard list=p.notices seen/>
                    <preferences::PreferencesCard prefs=p.preferences save/>
                    <webhooks::WebhooksCard hooks=p.webhooks topics=p.webhook_topics shown create act/>
                }.into_any()
            })}
        }/>
    }
}

#[component]
fn NoticesCard(list: NoticeList, seen: ServerAction<NoticesSeen>) -> impl IntoView {
    let error = action_error(seen);
    let unread = list.unread;
    let empty = list.items.is_empty();
    let older = list
        .next_cursor
        .map(|c| format!("/account/notifications?cursor={c}"));
    let rows = list
        .items
        .into_iter()
        .map(|n| {
            let class = if n.unread { "notice-item unread" } else { "notice-item" };
            view! {
                <li class=class data-topic=n.topic.as_str() data-notice=n.notice_id.clone()>
                    <p><strong>{n.title}</strong>" · "<time>{n.created_at.format("%Y-%m-%d %H:%M UTC").to_string()}</time></p>
                    <p class="notice-body">{n.body}</p>
                    {(!n.link.is_empty()).then(|| view! { <a href=n.link.clone() rel="external">"Open"</a> })}
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="card" id="notifications">
            <h1>"Notifications"</h1>
            <p class="muted" id="unread-count">{format!("{unread} unread")}</p>
            <ErrorNotice error/>
            {(unread > 0).then(|| view! {
                <ActionForm action=seen attr:id="mark-seen">
                    <CsrfField/>
                    <button type="submit">"Mark all as seen"</button>
                </ActionForm>
            })}
            {empty.then(|| view! { <p id="no-notices">"Nothing yet: what needs you will show here."</p> })}
            <ul class="notices" id="notice-list">{rows}</ul>
            {older.map(|href| view! { <a href=href rel="external" id="older-notices">"Older notifications →"</a> })}
        </section>
    }
}
