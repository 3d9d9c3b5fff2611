//! Keeping users and offers away from the publisher's placements: user bans (no sessions, no
//! launches while in force) and blacklists (campaigns, advertisers, categories, task types
//! or domains never shown). Plain forms, so both pages work without JavaScript.

mod bans;
mod blacklist;

pub use bans::BansPage;
pub use blacklist::BlacklistPage;

use leptos::prelude::*;

use crate::model::publisher::rows::PlacementRows;

/// The name of a placement for a list row, or its id when the list does not hold it.
fn placement_name(placements: &Option<PlacementRows>, id: &str) -> String {
    placements
        .as_ref()
        .and_then(|l| l.items.iter().find(|p| p.placement_id == id))
        .map(|p| p.name.clone())
        .unwrap_or_else(|| id.to_owned())
}

/// `<option>`s of the publisher's placements, the first one `first` (value "").
fn placement_options(placements: &Option<PlacementRows>, first: Option<&'static str>) -> AnyView {
    let items = placements
        .as_ref()
        .map(|l| l.items.clone())
        .unwrap_or_default();
    view! {
        {first.map(|label| view! { <option value="">{label}</option> })}
        {items.into_iter().map(|p| view! { <option value=p.placement_id.clone()>{p.name.clone()}</option> }).collect_view()}
    }
    .into_any()
}

/// A list card: `empty` when there are no rows, else the table and an "Older →" link to
/// the next page (`older`, keeping the page's other query parameters).
fn list_card(
    id: &'static str,
    head: &'static [&'static str],
    empty: &'static str,
    rows: Vec<AnyView>,
    older: Option<String>,
) -> AnyView {
    if rows.is_empty() {
        return view! { <section class="card" id=id><p class="muted">{empty}</p></section> }
            .into_any();
    }
    view! {
        <section class="card" id=id>
            <table>
                <thead><tr>{head.iter().map(|h| view! { <th>{*h}</th> }).collect_view()}</tr></thead>
                <tbody>{rows}</tbody>
            </table>
            <crate::pages::OlderLink href=older/>
        </section>
    }
    .into_any()
}
