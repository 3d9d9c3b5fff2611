//! The list of the publisher's placements, with search, status filter and the creation form.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::Form;
use leptos_router::hooks::use_query_map;

use super::{ReleasedBadge, StatusBadge, action_error};
use crate::components::form::{CsrfField, ErrorNotice, StatusSelect, Submit};
use crate::components::loaded::{error_line, loaded};
use crate::model::AccountView;
use crate::model::publisher::rows::PlacementRows;
use crate::model::publisher::{PlacementStatus, PlacementType};
use crate::pages::RequireUser;
use crate::server_fns::publisher::{AddPlacement, list_placements};

#[component]
pub fn PlacementsPage() -> impl IntoView {
    let data = PlacementsData::new();
    view! {
        <Title text="Placements"/>
        <RequireUser signed_in=move |_u: AccountView| view! { <PlacementsPanel data base="/publisher/placements"/> }/>
    }
}

/// The list (following the search query) and the creation action. Create it in the page
/// body, before [`RequireUser`]: its content can render more than once on the server, and
/// a resource created in there would be created again and break hydration.
#[derive(Clone, Copy)]
pub struct PlacementsData {
    search: Memo<String>,
    status: Memo<String>,
    create: ServerAction<AddPlacement>,
    list: Resource<Result<PlacementRows, crate::error::AppError>>,
    /// The home page's summary: this many rows and a link to the placements page, instead
    /// of the placements page's 50 and "Older →".
    recent: Option<u64>,
}

impl PlacementsData {
    /// The placements page: 50 rows a page.
    pub fn new() -> Self {
        Self::with(None)
    }

    /// The home page's summary: the `rows` most recent that match.
    pub fn recent(rows: u64) -> Self {
        Self::with(Some(rows))
    }

    fn with(recent: Option<u64>) -> Self {
        let query = use_query_map();
        let search = Memo::new(move |_| query.read().get("q").unwrap_or_default());
        let status = Memo::new(move |_| query.read().get("status").unwrap_or_default());
        let cursor = Memo::new(move |_| query.read().get("cursor"));
        let create = ServerAction::<AddPlacement>::new();
        let list = Resource::new(
            move || {
                (
                    search.get(),
                    status.get(),
                    cursor.get(),
                    create.version().get(),
                )
            },
            move |(q, s, c, _)| list_placements(Some(q), Some(s), c, recent),
        );
        PlacementsData {
            search,
            status,
            create,
            list,
            recent,
        }
    }
}

/// Search, list and creation form; `base` is the page the search form returns to.
#[component]
pub fn PlacementsPanel(data: PlacementsData, base: &'static str) -> impl IntoView {
    let PlacementsData {
        search,
        status,
        create,
        list,
        recent,
    } = data;
    view! {
        <section class="card">
            <div class="card-head">
                <h2>"Placements"</h2>
                <a class="button secondary" href="#new-placement">"New placement"</a>
            </div>
            <Form method="get" action=base attr:class="filters">
                <input type="search" name="q" placeholder="Name, placement id or identity"
                    aria-label="Search" value=move || search.get()/>
                <StatusSelect current=status all="All statuses"
                    choices=PlacementStatus::ALL.iter().map(|s| (s.as_str(), s.as_str())).collect()/>
                <button type="submit" class="secondary">"Search"</button>
            </Form>
            {loaded(list, error_line, move |l| {
                let filter = format!(
                    "q={}&status={}",
                    crate::pages::query_value(&search.get_untracked()), status.get_untracked()
                );
                let more = l.next_cursor.clone().map(|c| match recent {
                    Some(_) => ("All placements →", format!("/publisher/placements?{filter}")),
                    None => ("Older →", format!("{base}?{filter}&cursor={c}")),
                });
                view! { <PlacementTable list=l more/> }.into_any()
            }
            )}
        </section>
        <NewPlacementForm create/>
    }
}

#[component]
fn PlacementTable(list: PlacementRows, more: Option<(&'static str, String)>) -> impl IntoView {
    if list.items.is_empty() {
        return view! { <p class="muted">"No placements match. Create one below."</p> }.into_any();
    }
    let rows = list.items.len();
    view! {
        <table class="placements">
            <thead>
                <tr><th>"Name"</th><th>"Type"</th><th>"Identity"</th><th>"Status"</th><th>"Released"</th></tr>
            </thead>
            <tbody>
                {list.items.into_iter().map(|p| {
                    let href = format!("/publisher/placements/{}", p.placement_id);
                    view! {
                        <tr>
                            <td><a href=href>{p.name}</a><br/><code class="muted">{p.placement_id}</code></td>
                            <td>{p.placement_type.as_str()}</td>
                            <td><code>{p.platform_identity}</code></td>
                            <td><StatusBadge status=p.status/></td>
                            <td><ReleasedBadge released=p.released/></td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
        <p class="muted">{rows}" placement(s) on this page"</p>
        {more.map(|(label, href)| view! { <p><a class="button secondary" href=href rel="external">{label}</a></p> })}
    }
    .into_any()
}

#[component]
fn NewPlacementForm(create: ServerAction<AddPlacement>) -> impl IntoView {
    let error = action_error(create);
    view! {
        <section class="card" id="new-placement">
            <h2>"New placement"</h2>
            <p class="muted">
                "A placement is one app, website or API integration. Its type and identity cannot change later."
            </p>
            <ErrorNotice error/>
            <ActionForm action=create attr:class="grid-2">
                <CsrfField/>
                <label>"Type"
                    <select name="placement_type" required>
                        {PlacementType::ALL.iter().map(|t| view! {
                            <option value=t.as_str()>{t.as_str()}</option>
                        }).collect_view()}
                    </select>
                </label>
                <label>"Name"<input type="text" name="name" maxlength="120" required/></label>
                <label>"Platform identity"
                    <input type="text" name="platform_identity" required
                        placeholder="com.example.game or example.com"/>
                    <small class="muted">"Android package, iOS bundle id, or the site's / API's domain."</small>
                </label>
                <label>"Store URL (apps)"
                    <input type="url" name="store_url" placeholder="https://play.google.com/store/apps/details?id=…"/>
                </label>
                <label>"Minimum SDK version (optional)"
                    <input type="text" name="minimum_sdk_version" placeholder="2.0.0"/>
                </label>
                <label class="check"><input type="checkbox" name="require_consent"/>"Require user consent"</label>
                <div class="form-actions"><Submit action=create label="Create placement"/></div>
            </ActionForm>
        </section>
    }
}
