//! `/admin/mail`: the mail outbox (issue 54, part 1). Where mail goes, how many letters wait
//! or failed, and the newest letters with their attempts and the mail server's last answer.
//! In the development mailbox each letter is shown in full, so a newcomer sees what the
//! service would send.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

use super::RequireUser;
use crate::components::loaded::{error_line, loaded};
use crate::model::AccountView;
use crate::model::mail::{MailMode, MailOutbox, MailStatus, MailView};
use crate::pages::when;
use crate::server_fns::mail::mail_outbox_view;

#[component]
pub fn AdminMailPage() -> impl IntoView {
    let query = use_query_map();
    let status = Memo::new(move |_| query.read().get("status").unwrap_or_default());
    let outbox = Resource::new(move || status.get(), |s| mail_outbox_view(Some(s)));
    view! {
        <Title text="Mail"/>
        <RequireUser signed_in=move |u: AccountView| {
            if !u.role.is_admin() {
                return view! { <section class="card"><h1>"Administrators only"</h1></section> }.into_any();
            }
            view! {
                <p class="crumbs"><a href="/admin" rel="external">"← Admin"</a></p>
                <section class="card" id="mail">
                    <h1>"Mail"</h1>
                    <Form method="get" action="/admin/mail" attr:class="filters">
                        <select name="status" aria-label="Status">
                            <option value="" selected=move || status.get().is_empty()>"Every letter"</option>
                            {MailStatus::ALL.iter().map(|s| {
                                let chosen = move || MailStatus::parse(&status.get()) == Some(*s);
                                view! { <option value=s.as_str() selected=chosen>{s.as_str()}</option> }
                            }).collect_view()}
                        </select>
                        <button type="submit" class="secondary">"Show"</button>
                    </Form>
                    {loaded(outbox, error_line, |o: MailOutbox| view! {
                        <Transport o=o.clone()/>
                        <p id="mail-counts">{format!("{} waiting · {} failed · {} sent", o.pending, o.failed, o.sent)}</p>
                        {if o.items.is_empty() {
                            view! { <p class="muted">"No letter."</p> }.into_any()
                        } else {
                            view! { <Letters items=o.items/> }.into_any()
                        }}
                    }.into_any())}
                </section>
            }.into_any()
        }/>
    }
}

/// Where the letters go.
#[component]
fn Transport(o: MailOutbox) -> impl IntoView {
    let text = match o.mode {
        MailMode::Smtp => "Mail goes to the mail server (APP_MAIL_URL). A letter it refuses for now is tried again after 1, 2, 4… minutes (at most an hour apart), twelve times, then it is FAILED.".to_owned(),
        MailMode::DevelopmentMailbox => format!(
            "Development mailbox: nothing leaves this machine. Each letter is written to {} and shown here in full. Set APP_MAIL_URL to send real mail.",
            o.mailbox_dir.unwrap_or_default()
        ),
        MailMode::Off => "Mail is off (APP_MAIL_URL=off): letters are kept here and not sent.".to_owned(),
    };
    view! { <p class="notice" id="mail-mode" data-mode=o.mode.as_str()>{text}</p> }
}

/// The letters, newest first.
#[component]
fn Letters(items: Vec<MailView>) -> impl IntoView {
    view! {
        <table>
            <thead><tr><th>"Written"</th><th>"To"</th><th>"Subject"</th><th>"Status"</th><th>"Attempts"</th></tr></thead>
            <tbody>
                {items.into_iter().map(|m| {
                    let state = match m.status {
                        MailStatus::Sent => m.sent_at.map(|t| format!("SENT {}", when(t))).unwrap_or_else(|| "SENT".to_owned()),
                        MailStatus::Pending if m.attempts > 0 => format!("PENDING, next try {}", when(m.next_attempt_at)),
                        s => s.as_str().to_owned(),
                    };
                    view! {
                        <tr data-mail=m.mail_id.clone() data-status=m.status.as_str()>
                            <td>{when(m.created_at)}<br/><span class="muted">{m.topic.as_str()}</span></td>
                            <td>{m.to.clone()}</td>
                            <td>
                                {m.subject.clone()}
                                {m.body.clone().map(|b| view! { <details><summary>"Letter"</summary><pre class="letter">{b}</pre></details> })}
                            </td>
                            <td>{state}{m.last_error.clone().map(|e| view! { <br/><span class="muted">{e}</span> })}</td>
                            <td>{m.attempts}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
}
