//! `/publisher/blacklist`: campaigns, advertisers, categories, task types and destination
//! domains never delivered on all of the publisher's placements or on one.

use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

use super::super::{action_error, load_error};
use super::{list_card, placement_name, placement_options};
use crate::components::form::{CsrfField, ErrorNotice, Submit};
use crate::model::publisher::ops::Blacklist;
use crate::pages::MemberPage;
use crate::pages::when;
use crate::server_fns::publisher::blocking::{AddBlacklist, RemoveBlacklist, list_blacklist};
use crate::server_fns::publisher::list_placements;

/// The kinds of entry, with what the value is.
const KINDS: [(&str, &str); 5] = [
    ("DOMAIN", "Destination domain (and its subdomains)"),
    ("CATEGORY", "Category, such as GAMES"),
    ("TASK_TYPE", "Task type, such as INSTALL"),
    ("CAMPAIGN", "Campaign id"),
    ("ADVERTISER", "Advertiser id"),
];

const HEAD: [&str; 6] = ["Kind", "Value", "Applies to", "Reason", "Added", ""];

#[component]
pub fn BlacklistPage() -> impl IntoView {
    // Created in the page body: RequireUser may render its children more than once.
    let query = use_query_map();
    let cursor = Memo::new(move |_| query.read().get("cursor"));
    let add = ServerAction::<AddBlacklist>::new();
    let remove = ServerAction::<RemoveBlacklist>::new();
    let placements = Resource::new(|| (), |()| list_placements(None, None, None, Some(500)));
    let entries = Resource::new(
        move || (cursor.get(), add.version().get(), remove.version().get()),
        |(c, _, _)| list_blacklist(c),
    );
    view! {
        <MemberPage title="Blacklist" back=("/publisher", "← Publisher")>
            <section class="card" id="new-blacklist">
                <h1>"Blacklist"</h1>
                <p class="muted">"Offers matching an entry are never shown on your offerwall or static feed: on every placement, or on the one you choose. Changes reach delivery within seconds."</p>
                <ErrorNotice error=action_error(add)/>
                <ActionForm action=add attr:class="grid-3">
                    <CsrfField/>
                    <label>"Kind"
                        <select name="kind">
                            {KINDS.iter().map(|(v, l)| view! { <option value=*v>{*l}</option> }).collect_view()}
                        </select>
                    </label>
                    <label>"Value"
                        <input name="value" required maxlength="128" placeholder="casino.example" autocomplete="off"/>
                    </label>
                    <label>"Applies to"
                        <Suspense fallback=|| view! { <select name="placement_id"><option value="">"All placements"</option></select> }>
                            {move || Suspend::new(async move {
                                let list = placements.await.ok();
                                view! { <select name="placement_id">{placement_options(&list, Some("All placements"))}</select> }
                            })}
                        </Suspense>
                    </label>
                    <label class="span-2">"Reason (optional, for your team)"
                        <input name="reason" maxlength="500"/>
                    </label>
                    <Submit action=add label="Add to blacklist"/>
                </ActionForm>
                <ErrorNotice error=action_error(remove)/>
            </section>
            <Transition fallback=|| view! { <p>"Loading…"</p> }>
                {move || Suspend::new(async move {
                    let names = placements.await.ok();
                    match entries.await {
                        Err(error) => load_error(error),
                        Ok(list) => {
                            let next = list.next_cursor.clone().map(|c| format!("/publisher/blacklist?cursor={c}"));
                            let rows = list.items.into_iter().map(|e| {
                                let scope = e.placement_id.as_deref()
                                    .map(|id| placement_name(&names, id))
                                    .unwrap_or_else(|| "All placements".to_owned());
                                view! { <EntryRow e scope remove/> }.into_any()
                            }).collect();
                            list_card("blacklist", &HEAD, "Nothing is blacklisted.", rows, next)
                        }
                    }
                })}
            </Transition>
        </MemberPage>
    }
}

#[component]
fn EntryRow(e: Blacklist, scope: String, remove: ServerAction<RemoveBlacklist>) -> impl IntoView {
    let id = e.blacklist_id.clone();
    view! {
        <tr data-blacklist=e.blacklist_id.clone()>
            <td>{e.kind.as_str()}</td>
            <td><code>{e.value.clone()}</code></td>
            <td>{scope}</td>
            <td>{e.reason.clone().unwrap_or_default()}</td>
            <td>{when(e.created_at)}</td>
            <td>
                <ActionForm action=remove attr:class="inline">
                    <CsrfField/>
                    <input type="hidden" name="blacklist_id" value=id/>
                    <Submit action=remove label="Remove" class="danger"/>
                </ActionForm>
            </td>
        </tr>
    }
}
