//! `server demo`: a small, realistic data set for trying the product. Safe to run twice.

use app::domain::{Ctx, accounts};
use app::model::Role;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

use crate::config::Settings;

const PASSWORD: &str = "demo-password-2026";

/// Loads the demo accounts (and, as surfaces land, their placements and campaigns).
pub async fn load(ctx: &Ctx, settings: &Settings) -> anyhow::Result<()> {
    let people = [
        ("admin@demo.test", Role::Admin, "Marketplace Operations"),
        ("publisher@demo.test", Role::Publisher, "Pixel Quest Games"),
        ("advertiser@demo.test", Role::Advertiser, "Northwind Apps"),
    ];
    for (email, role, company) in people {
        let exists = entity::account::Entity::find()
            .filter(entity::account::Column::Email.eq(email))
            .one(&ctx.db)
            .await?
            .is_some();
        if !exists {
            accounts::create_active(ctx, email, PASSWORD, role, company)
                .await
                .map_err(|e| anyhow::anyhow!("{}: {}", email, e.message))?;
        }
    }
    println!(
        "Demo data loaded. Sign in at {}/sign-in with password `{PASSWORD}`:",
        settings.base_url
    );
    for (email, role, company) in people {
        println!("  {:<11} {email:<24} {company}", role.as_str());
    }
    Ok(())
}
