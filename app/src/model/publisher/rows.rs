//! What a dashboard list of placements shows, and nothing more: the placements table of the
//! publisher's home and placements pages and the placement pickers of the bans and
//! blacklist pages. Such lists travel twice (rendered, and serialised into the page for
//! hydration); the full [`Placement`] with its privacy settings, capabilities and callback
//! summary made the publisher home 123 KB for 50 rows (issue 56).

use serde::{Deserialize, Serialize};

use super::{Placement, PlacementList, PlacementStatus, PlacementType};

/// One placement as a list row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlacementRow {
    pub placement_id: String,
    pub placement_type: PlacementType,
    pub name: String,
    pub platform_identity: String,
    pub status: PlacementStatus,
    pub released: bool,
}

/// A page of [`PlacementRow`]s; `next_cursor` as in [`PlacementList`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlacementRows {
    pub items: Vec<PlacementRow>,
    pub next_cursor: Option<String>,
}

impl From<Placement> for PlacementRow {
    fn from(p: Placement) -> Self {
        PlacementRow {
            placement_id: p.placement_id,
            placement_type: p.placement_type,
            name: p.name,
            platform_identity: p.platform_identity,
            status: p.status,
            released: p.released,
        }
    }
}

impl From<PlacementList> for PlacementRows {
    fn from(l: PlacementList) -> Self {
        PlacementRows {
            items: l.items.into_iter().map(PlacementRow::from).collect(),
            next_cursor: l.next_cursor,
        }
    }
}
