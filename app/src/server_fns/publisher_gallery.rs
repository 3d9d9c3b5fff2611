//! The publisher offer gallery from the dashboard.

use leptos::prelude::*;

use crate::error::AppError;
use crate::model::publisher_ops::OfferGallery;

/// Live offers the publisher is eligible for, with the page's filters.
#[server(prefix = "/fn", endpoint = "publisher_offer_gallery")]
pub async fn offer_gallery_data(
    placement_id: Option<String>,
    country: Option<String>,
    platform: Option<String>,
) -> Result<OfferGallery, AppError> {
    super::web::run(async move {
        use crate::domain::publisher::gallery::{GalleryQuery, gallery};
        let ctx = super::web::ctx()?;
        let session = super::web::session().await?;
        let p = super::web::require_principal(&ctx, &session).await?;
        gallery(
            &ctx,
            &p,
            GalleryQuery {
                placement_id,
                country,
                platform,
            },
        )
        .await
    })
    .await
}
