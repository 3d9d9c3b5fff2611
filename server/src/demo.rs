//! `server demo`: a small, realistic data set for trying the product (CONTRACT section 1):
//! one publisher with a verified, released website placement and its slots (an offerwall and
//! a static feed), one funded advertiser with a live offer campaign and a live, paid survey
//! campaign, and an administrator. Everything goes through the domain rules, exactly as the
//! dashboards would. Safe to run twice: existing accounts and data are left alone.

use app::domain::billing::{funding, profile};
use app::domain::campaigns::{lifecycle, store};
use app::domain::publisher::{app_keys, placements, review, slots};
use app::domain::surveys::allocations;
use app::domain::surveys::campaigns as surveys;
use app::domain::{Ctx, Principal, accounts};
use app::error::AppError;
use app::model::Role;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde::de::DeserializeOwned;
use serde_json::json;

use crate::config::Settings;

const PASSWORD: &str = "demo-password-2026";
/// The demo website's identity (what an SDK session sends as packageBundleOrDomain).
pub const DEMO_DOMAIN: &str = "play.pixelquest.example";

/// Builds a domain input from JSON, the way the API would receive it.
fn input<T: DeserializeOwned>(v: serde_json::Value) -> anyhow::Result<T> {
    Ok(serde_json::from_value(v)?)
}

fn fail(what: &str) -> impl Fn(AppError) -> anyhow::Error + '_ {
    move |e| anyhow::anyhow!("demo {what}: {} {:?}", e.message, e.field_errors)
}

/// Creates an offer campaign, submits it and approves it through the domain rules (so its
/// reserve, revisions and ledger are real); answers its id. The benchmark seed uses it too.
pub(crate) async fn live_offer_campaign(
    ctx: &Ctx,
    advertiser: &Principal,
    admin: &Principal,
    config: serde_json::Value,
) -> anyhow::Result<String> {
    let c = store::create(ctx, advertiser, input(config)?)
        .await
        .map_err(fail("offer campaign"))?;
    lifecycle::transition(
        ctx,
        advertiser,
        &c.campaign_id,
        input(json!({"to": "IN_REVIEW"}))?,
    )
    .await
    .map_err(fail("campaign submission"))?;
    lifecycle::approve(ctx, admin, &c.campaign_id, None)
        .await
        .map_err(fail("campaign approval"))?;
    Ok(c.campaign_id)
}

async fn account(
    ctx: &Ctx,
    email: &str,
    role: Role,
    company: &str,
) -> anyhow::Result<(Principal, bool)> {
    let found = entity::account::Entity::find()
        .filter(entity::account::Column::Email.eq(email))
        .one(&ctx.db)
        .await?;
    let (view, created) = match found {
        Some(a) => (accounts::view(&a), false),
        None => (
            accounts::create_active(ctx, email, PASSWORD, role, company)
                .await
                .map_err(fail(email))?,
            true,
        ),
    };
    Ok((
        Principal::organisation(view.account_id, view.email, view.role, view.status),
        created,
    ))
}

/// Loads the demo data and prints the sign-in details.
pub async fn load(ctx: &Ctx, settings: &Settings) -> anyhow::Result<()> {
    let (admin, _) = account(
        ctx,
        "admin@demo.test",
        Role::Admin,
        "Marketplace Operations",
    )
    .await?;
    let (publisher, new_publisher) = account(
        ctx,
        "publisher@demo.test",
        Role::Publisher,
        "Pixel Quest Games",
    )
    .await?;
    let (advertiser, new_advertiser) = account(
        ctx,
        "advertiser@demo.test",
        Role::Advertiser,
        "Northwind Apps",
    )
    .await?;
    let survey_key = if new_publisher {
        Some(load_publisher(ctx, &admin, &publisher).await?)
    } else {
        None
    };
    if new_advertiser {
        load_advertiser(ctx, &admin, &advertiser).await?;
    }
    println!(
        "Demo data loaded. Sign in at {}/sign-in with password `{PASSWORD}`:",
        settings.base_url
    );
    for (p, company) in [
        (&admin, "Marketplace Operations"),
        (&publisher, "Pixel Quest Games"),
        (&advertiser, "Northwind Apps"),
    ] {
        println!("  {:<11} {:<24} {company}", p.role.as_str(), p.email);
    }
    if let Some((placement, key)) = survey_key {
        // Shown once, like every issued key; a new one can be issued on the placement page.
        println!(
            "Survey fetch for the demo placement (its live survey matches en-US respondents):\n  \
             POST {}/getallsurveys-api  X-Service-Api-Key: {key}  AppId: {placement}",
            settings.base_url
        );
    }
    Ok(())
}

/// A WEBSITE placement of `p`, reviewed as verified and released by `admin`; its id.
pub(crate) async fn released_placement(
    ctx: &Ctx,
    admin: &Principal,
    p: &Principal,
    name: &str,
    domain: &str,
) -> anyhow::Result<String> {
    let placement = placements::create(
        ctx,
        p,
        input(json!({"type": "WEBSITE", "name": name, "platformIdentity": domain}))?,
    )
    .await
    .map_err(fail("placement"))?;
    let id = placement.placement_id;
    placements::request_review(ctx, p, &id)
        .await
        .map_err(fail("review request"))?;
    review::review(
        ctx,
        admin,
        &id,
        input(json!({"decision": "VERIFIED", "note": "Placement checked."}))?,
    )
    .await
    .map_err(fail("review"))?;
    review::release(ctx, admin, &id)
        .await
        .map_err(fail("release"))?;
    Ok(id)
}

/// The demo publisher's placement and slots; returns the placement id and its survey app key.
async fn load_publisher(
    ctx: &Ctx,
    admin: &Principal,
    p: &Principal,
) -> anyhow::Result<(String, String)> {
    let id = released_placement(ctx, admin, p, "Pixel Quest web", DEMO_DOMAIN).await?;
    let coins = json!({"name": "Gems", "decimals": 0, "rateNumeratorMinorUnits": 100,
        "rateDenominatorUsdMicros": 1_000_000, "minimumPayoutMinorUnits": 10, "rounding": "DOWN"});
    for (name, kind) in [
        ("Gem offerwall", "OFFERWALL"),
        ("Partner feed", "STATIC_API"),
    ] {
        slots::create(
            ctx,
            p,
            &id,
            input(json!({"name": name, "type": kind, "currency": coins}))?,
        )
        .await
        .map_err(fail("ad slot"))?;
    }
    let key = app_keys::issue(ctx, p, &id)
        .await
        .map_err(fail("survey app key"))?;
    Ok((id, key.app_key))
}

async fn load_advertiser(ctx: &Ctx, admin: &Principal, a: &Principal) -> anyhow::Result<()> {
    profile::put(
        ctx,
        a,
        None,
        input(
            json!({"accountType": "BUSINESS", "legalName": "Northwind Apps GmbH", "country": "DE",
            "city": "Berlin", "billingEmails": ["finance@northwind.example"]}),
        )?,
    )
    .await
    .map_err(fail("billing profile"))?;
    let wire = funding::request_wire(
        ctx,
        a,
        input(json!({"amount": 1_000_000_000i64, "currency": "USD", "externalReference": "DEMO-WIRE-0001"}))?,
    )
    .await
    .map_err(fail("wire"))?;
    funding::approve_wire(ctx, admin, &wire.funding_id)
        .await
        .map_err(fail("wire approval"))?;
    live_offer_campaign(ctx, a, admin, json!({
            "name": "Dragon Realm: reach level 10",
            "destinationUrl": "https://northwind.example/dragon-realm?click={click_id}",
            "platforms": ["android", "ios", "web"],
            "countries": ["US", "DE", "GB"],
            "category": "GAMES",
            "taskType": "INSTALL",
            "trackingProvider": "CUSTOM_S2S",
            "budgetMicros": 300_000_000i64,
            "description": "Install Dragon Realm and reach level 10 within 14 days.",
            "goals": [
                {"externalGoalId": "install", "name": "Install and open", "payoutMicros": 800_000, "pendingMinutes": 0},
                {"externalGoalId": "level10", "name": "Reach level 10", "payoutMicros": 2_500_000, "pendingMinutes": 60}
            ],
            // German users read the offer in German; other languages see it as given.
            "translations": {"de": {
                "name": "Dragon Realm: Level 10 erreichen",
                "description": "Installiere Dragon Realm und erreiche Level 10 innerhalb von 14 Tagen.",
                "goals": {"install": "Installieren und öffnen", "level10": "Level 10 erreichen"}
            }}
        }))
    .await?;
    let today = ctx.now().date_naive();
    let survey = surveys::create(
        ctx,
        a,
        input(json!({
            "name": "Mobile gaming habits 2026",
            "country_language_id": "en-US",
            "cpi": 1.75,
            "length_of_interview": 10,
            "conversion": 35,
            "start_date": today.to_string(),
            "end_date": (today + chrono::Duration::days(60)).to_string(),
            "survey_live_link": "https://survey.northwind.example/live?tid={transaction_id}",
            "survey_test_link": "https://survey.northwind.example/test?tid={transaction_id}",
            "max_daily_completes": 100,
            "total_completes": 400,
            "supported_devices": ["desktop", "mobile"],
            "research_category": "Consumer",
            "status": "PENDINGAPPROVAL"
        }))?,
    )
    .await
    .map_err(fail("survey campaign"))?;
    allocations::allocate(ctx, a, &survey.campaign._id, None)
        .await
        .map_err(fail("survey allocation"))?;
    surveys::review::approve(ctx, admin, &survey.campaign._id, None)
        .await
        .map_err(fail("survey approval"))?;
    Ok(())
}
