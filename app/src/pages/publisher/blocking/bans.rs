//! `/publisher/bans`: ban a user of a placement (for some days or until lifted), find bans by
//! user or status, lift and reinstate them.

use leptos::prelude::*;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

use super::super::{action_error, load_error};
use super::{list_card, placement_name, placement_options};
use crate::components::form::{CsrfField, ErrorNotice, StatusSelect, Submit};
use crate::model::publisher::ops::{BanStatus, UserBan};
use crate::pages::MemberPage;
use crate::pages::when;
use crate::server_fns::publisher::blocking::{BanUser, UpdateBan, list_bans};
use crate::server_fns::publisher::list_placements;

/// The lengths the form offers, in days; empty means until lifted.
const DURATIONS: [(&str, &str); 5] = [
    ("", "Until lifted"),
    ("1", "1 day"),
    ("7", "7 days"),
    ("30", "30 days"),
    ("90", "90 days"),
];

const HEAD: [&str; 7] = [
    "User",
    "Placement",
    "Reason",
    "State",
    "Expires",
    "Banned",
    "",
];

/// The status filter: in force now, or lifted or expired (the list route's ACTIVE/LIFTED).
const FILTERS: [(&str, &str); 2] = [("ACTIVE", "In force"), ("LIFTED", "Lifted or expired")];

#[component]
pub fn BansPage() -> impl IntoView {
    // Created in the page body: RequireUser may render its children more than once.
    let query = use_query_map();
    let status = Memo::new(move |_| query.read().get("status").unwrap_or_default());
    let user = Memo::new(move |_| query.read().get("user").unwrap_or_default());
    let cursor = Memo::new(move |_| query.read().get("cursor"));
    let create = ServerAction::<BanUser>::new();
    let update = ServerAction::<UpdateBan>::new();
    let placements = Resource::new(|| (), |()| list_placements(None, None, None, Some(500)));
    let bans = Resource::new(
        move || {
            (
                status.get(),
                user.get(),
                cursor.get(),
                create.version().get(),
                update.version().get(),
            )
        },
        |(s, u, c, _, _)| list_bans(Some(s), Some(u), c),
    );
    view! {
        <MemberPage title="User bans" back=("/publisher", "← Publisher")>
            <section class="card" id="new-ban">
                <h1>"User bans"</h1>
                <p class="muted">"A banned user gets no offerwall session and cannot start offers on the placement while the ban is in force. Lifting keeps the record."</p>
                <ErrorNotice error=action_error(create)/>
                <ActionForm action=create attr:class="grid-3">
                    <CsrfField/>
                    <label>"Placement"
                        <Suspense fallback=|| view! { <select name="placement_id" required></select> }>
                            {move || Suspend::new(async move {
                                let list = placements.await.ok();
                                view! { <select name="placement_id" required>{placement_options(&list, None)}</select> }
                            })}
                        </Suspense>
                    </label>
                    <label>"User id (your external user id)"
                        <input name="external_user_id" required maxlength="128" autocomplete="off"/>
                    </label>
                    <label>"Length"
                        <select name="days">
                            {DURATIONS.iter().map(|(v, l)| view! { <option value=*v>{*l}</option> }).collect_view()}
                        </select>
                    </label>
                    <label class="span-2">"Reason (kept with the ban; 3 to 500 characters)"
                        <input name="reason" required minlength="3" maxlength="500"/>
                    </label>
                    <Submit action=create label="Ban user"/>
                </ActionForm>
            </section>
            <section class="card">
                <Form method="get" action="/publisher/bans" attr:class="filters">
                    <input name="user" placeholder="User id" aria-label="User id" value=move || user.get()/>
                    <StatusSelect current=status all="All bans" choices=FILTERS.to_vec()/>
                    <button type="submit" class="secondary">"Filter"</button>
                </Form>
                <ErrorNotice error=action_error(update)/>
            </section>
            <Transition fallback=|| view! { <p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    let names = placements.await.ok();
                    match bans.await {
                        Err(error) => load_error(error),
                        Ok(list) => {
                            let next = list.next_cursor.clone().map(|c| format!(
                                "/publisher/bans?status={}&user={}&cursor={c}",
                                status.get_untracked(), crate::pages::query_value(&user.get_untracked())
                            ));
                            let rows = list.items.into_iter().map(|b| {
                                let placement = placement_name(&names, &b.placement_id);
                                view! { <BanRow b placement update/> }.into_any()
                            }).collect();
                            list_card("bans", &HEAD, "No ban matches.", rows, next)
                        }
                    }
                })}
            </Transition>
        </MemberPage>
    }
}

#[component]
fn BanRow(b: UserBan, placement: String, update: ServerAction<UpdateBan>) -> impl IntoView {
    // A lifted ban can be put back; one that merely expired is replaced by a new ban.
    let (state, class, flip) = match (b.effective, b.status) {
        (true, _) => (
            "IN FORCE",
            "badge ban-active",
            Some((BanStatus::Lifted, "Lift")),
        ),
        (false, BanStatus::Lifted) => (
            "LIFTED",
            "badge ban-lifted",
            Some((BanStatus::Active, "Reinstate")),
        ),
        (false, BanStatus::Active) => ("EXPIRED", "badge ban-lifted", None),
    };
    let expires = b.expires_at.map(when).unwrap_or_else(|| "never".to_owned());
    let id = b.ban_id.clone();
    view! {
        <tr data-ban=b.ban_id.clone()>
            <td><code>{b.external_user_id.clone()}</code></td>
            <td>{placement}</td>
            <td>{b.reason.clone()}</td>
            <td><span class=class>{state}</span></td>
            <td>{expires}</td>
            <td>{when(b.created_at)}</td>
            <td>
                {flip.map(|(to, label)| view! {
                    <ActionForm action=update attr:class="inline">
                        <CsrfField/>
                        <input type="hidden" name="ban_id" value=id.clone()/>
                        <input type="hidden" name="status" value=to.as_str()/>
                        <Submit action=update label class="secondary"/>
                    </ActionForm>
                })}
            </td>
        </tr>
    }
}
