//! Publisher console and placement review from the dashboard. Form posts arrive
//! form-urlencoded, so numbers, enums, lists and checkboxes come in as text and are parsed
//! here into the model's input types; every rule stays in `domain::publisher`.
//!
//! Secrets are shown once. A script caller gets them in the server function's answer; a
//! plain form post is redirected back to the form by Leptos and would lose the answer, so
//! for those the secret is sealed into the session as a flash that the page reads (and
//! removes) while it renders. Secrets never travel in a URL.

pub mod blocking;
mod callback;
pub mod deliveries;
pub mod gallery;
pub mod reports;
mod review;
mod slots;
pub mod support_cases;
pub mod wall;

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::model::publisher::rows::PlacementRows;
use crate::model::publisher::*;

pub use crate::model::OneTimeSecret;
pub use callback::*;
pub use review::*;
pub use slots::*;

/// What a plain form post left for the page it returns to.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Flash {
    pub secret: Option<OneTimeSecret>,
    pub callback_test: Option<CallbackTest>,
}

/// `"1.25"` USD → `1_250_000` micros. At most six decimals, never negative.
pub fn usd_to_micros(raw: &str) -> Option<i64> {
    let s = raw.trim().trim_start_matches('$').replace(['_', ','], "");
    let (int, frac) = s.split_once('.').unwrap_or((s.as_str(), ""));
    if (int.is_empty() && frac.is_empty())
        || frac.len() > 6
        || !int.chars().chain(frac.chars()).all(|c| c.is_ascii_digit())
    {
        return None;
    }
    let whole: i64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let frac: i64 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<6}").parse().ok()?
    };
    whole.checked_mul(1_000_000)?.checked_add(frac)
}

#[cfg(feature = "ssr")]
pub(crate) mod support {
    pub use super::super::web::{reader, writer};
    pub use crate::server_fns::fields::{choice, number, text};

    /// Session slot of a callback test result left for a plain form post.
    pub const CALLBACK_TEST: &str = "flash_callback_test";

    /// A comma-separated list; an empty field is an empty list.
    pub fn list(v: Option<String>) -> Option<Vec<String>> {
        v.map(|s| {
            s.split(',')
                .map(|e| e.trim().to_owned())
                .filter(|e| !e.is_empty())
                .collect()
        })
    }
}

// ---- placements -------------------------------------------------------------------------

/// The publisher's placements as list rows (only what the lists show: they are serialised
/// into the page for hydration).
#[server(prefix = "/fn", endpoint = "publisher_placements")]
pub async fn list_placements(
    search: Option<String>,
    status: Option<String>,
    cursor: Option<String>,
    limit: Option<u64>,
) -> Result<PlacementRows, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        let page =
            crate::domain::paging::Page::parse(limit.or(Some(50)), cursor.as_deref(), "plc")?;
        crate::domain::publisher::placements::list(
            &ctx,
            &p,
            search.as_deref(),
            status.as_deref(),
            &page,
        )
        .await
        .map(PlacementRows::from)
    })
    .await
}

#[server(prefix = "/fn", endpoint = "publisher_placement")]
pub async fn get_placement(placement_id: String) -> Result<Placement, AppError> {
    crate::server_fns::web::read(|ctx, p| async move {
        crate::domain::publisher::placements::get(&ctx, &p, &placement_id).await
    })
    .await
}

/// Creates a placement and opens its page.
#[server(prefix = "/fn", endpoint = "publisher_create_placement")]
pub async fn add_placement(
    placement_type: Option<String>,
    name: Option<String>,
    platform_identity: Option<String>,
    store_url: Option<String>,
    minimum_sdk_version: Option<String>,
    require_consent: Option<String>,
    csrf: String,
) -> Result<Placement, AppError> {
    super::web::run(async move {
        use support::*;
        let (ctx, _, p) = writer(&csrf).await?;
        // An unknown type is reported by the domain as a missing one, with the choices.
        let input = CreatePlacement {
            placement_type: text(placement_type).and_then(|t| PlacementType::parse(&t)),
            name,
            platform_identity,
            store_url: text(store_url),
            minimum_sdk_version: text(minimum_sdk_version),
            recommended_sdk_version: None,
            require_consent: Some(require_consent.is_some()),
        };
        let created = crate::domain::publisher::placements::create(&ctx, &p, input).await?;
        leptos_axum::redirect(&format!("/publisher/placements/{}", created.placement_id));
        Ok(created)
    })
    .await
}

/// The edit form always carries the checkbox, so its absence means "unchecked".
#[server(prefix = "/fn", endpoint = "publisher_update_placement")]
pub async fn update_placement(
    placement_id: String,
    name: Option<String>,
    store_url: Option<String>,
    require_consent: Option<String>,
    csrf: String,
) -> Result<Placement, AppError> {
    super::web::run(async move {
        use support::*;
        let (ctx, _, p) = writer(&csrf).await?;
        let input = PatchPlacement {
            name,
            store_url: Some(text(store_url)),
            require_consent: Some(require_consent.is_some()),
            ..PatchPlacement::default()
        };
        crate::domain::publisher::placements::patch(&ctx, &p, &placement_id, input).await
    })
    .await
}

#[server(prefix = "/fn", endpoint = "publisher_request_review")]
pub async fn request_review(placement_id: String, csrf: String) -> Result<Placement, AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        crate::domain::publisher::placements::request_review(&ctx, &p, &placement_id).await
    })
    .await
}

/// Archives the placement and returns to the list (409 with the reasons when refused).
#[server(prefix = "/fn", endpoint = "publisher_delete_placement")]
pub async fn delete_placement(placement_id: String, csrf: String) -> Result<(), AppError> {
    crate::server_fns::web::write(&csrf, |ctx, p| async move {
        crate::domain::publisher::placements::delete(&ctx, &p, &placement_id).await?;
        leptos_axum::redirect("/publisher/placements");
        Ok(())
    })
    .await
}

#[server(prefix = "/fn", endpoint = "publisher_issue_app_key")]
pub async fn issue_app_key(placement_id: String, csrf: String) -> Result<AppKeyIssued, AppError> {
    super::web::run(async move {
        let (ctx, session, p) = support::writer(&csrf).await?;
        let issued = crate::domain::publisher::app_keys::issue(&ctx, &p, &placement_id).await?;
        super::flash::put_secret(
            &ctx,
            &session,
            &placement_id,
            "Survey app key",
            &issued.app_key,
        )
        .await?;
        Ok(issued)
    })
    .await
}

/// The flash a plain form post left for this page (`scope`: placement or slot id).
#[server(prefix = "/fn", endpoint = "publisher_take_flash")]
pub async fn take_flash(scope: String) -> Result<Flash, AppError> {
    super::web::run(async move {
        let ctx = super::web::ctx()?;
        let session = super::web::session().await?;
        Ok(Flash {
            secret: super::flash::take_secret(&ctx, &session, &scope).await?,
            callback_test: super::flash::take(&session, support::CALLBACK_TEST, &scope).await?,
        })
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::usd_to_micros;

    #[test]
    fn dollars_become_micros() {
        assert_eq!(usd_to_micros("1"), Some(1_000_000));
        assert_eq!(usd_to_micros(" 1.5 "), Some(1_500_000));
        assert_eq!(usd_to_micros("$0.000001"), Some(1));
        assert_eq!(usd_to_micros(".25"), Some(250_000));
        for bad in ["", ".", "-1", "1.0000001", "abc", "1e3"] {
            assert_eq!(usd_to_micros(bad), None, "{bad}");
        }
    }
}
