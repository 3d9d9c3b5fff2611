//! `server bench-seed`: the realistic data set `scripts/bench.py` measures against. On top of
//! `server demo`: thousands of live offer campaigns across countries, platforms, categories
//! and payouts (created, submitted and approved through the domain rules, so their reserves
//! and revisions are real), SDK sessions, impressions and launches for the postback
//! campaign, and delivery history for many users (launches and approved conversions written
//! in bulk, as months of traffic would have left them). Writes the fixtures the load
//! generator needs (tokens, ids, the signing secret) to a JSON file; never in production.

use super::tools::{Lcg, fail, input};
use std::time::Instant;

use app::domain::billing::funding;
use app::domain::campaigns::tracking;
use app::domain::delivery::{impressions, launches, sessions};
use app::domain::idempotency::IdempotencyKey;
use app::domain::publisher::static_keys;
use app::domain::{Ctx, Principal, accounts};
use app::model::delivery::{CreateSession, LaunchRequest};
use chrono::Duration;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, Set};
use serde_json::json;

use crate::config::Settings;
use crate::demo::{DEMO_DOMAIN, live_offer_campaign};

/// What to create.
#[derive(Debug, Clone, clap::Args)]
pub struct SeedArgs {
    /// Live offer campaigns besides the demo's.
    #[arg(long, default_value_t = 10_000)]
    pub campaigns: usize,
    /// Users with delivery history (one launch each, a fifth of them converted).
    #[arg(long, default_value_t = 100_000)]
    pub users: usize,
    /// SDK sessions for the load generator.
    #[arg(long, default_value_t = 2_000)]
    pub sessions: usize,
    /// Launches of the postback campaign (their click ids carry the postbacks).
    #[arg(long, default_value_t = 2_000)]
    pub clicks: usize,
    /// Live survey campaigns (issue 31), across locales, a half with quotas.
    #[arg(long, default_value_t = 1_000)]
    pub surveys: usize,
    /// Placements with a survey app key each, that the survey fetch load is spread over.
    #[arg(long, default_value_t = 100)]
    pub survey_placements: usize,
    /// Survey respondents seen before.
    #[arg(long, default_value_t = 100_000)]
    pub respondents: usize,
    /// Where the fixtures go.
    #[arg(long, default_value = "target/bench/fixtures.json")]
    pub out: std::path::PathBuf,
}

const COUNTRIES: [&str; 24] = [
    "US", "GB", "DE", "FR", "CA", "AU", "BR", "IN", "JP", "KR", "MX", "ES", "IT", "NL", "SE", "PL",
    "TR", "ID", "PH", "VN", "TH", "ZA", "NG", "AR",
];
const CATEGORIES: [&str; 8] = [
    "GAMES",
    "FINANCE",
    "SHOPPING",
    "ENTERTAINMENT",
    "SOCIAL",
    "HEALTH",
    "TRAVEL",
    "EDUCATION",
];
const TASK_TYPES: [&str; 4] = ["INSTALL", "REGISTER", "PURCHASE", "SUBSCRIBE"];

async fn principal(ctx: &Ctx, email: &str) -> anyhow::Result<Principal> {
    let a = entity::account::Entity::find()
        .filter(entity::account::Column::Email.eq(email))
        .one(&ctx.db)
        .await?
        .ok_or_else(|| anyhow::anyhow!("{email} is missing; run `server demo` first"))?;
    let v = accounts::view(&a);
    Ok(Principal::organisation(
        v.account_id,
        v.email,
        v.role,
        v.status,
    ))
}

/// Loads the data set and writes the fixtures.
pub async fn load(ctx: &Ctx, settings: &Settings, args: &SeedArgs) -> anyhow::Result<()> {
    let started = Instant::now();
    crate::demo::load(ctx, settings).await?;
    let admin = principal(ctx, "admin@demo.test").await?;
    let publisher = principal(ctx, "publisher@demo.test").await?;
    let advertiser = principal(ctx, "advertiser@demo.test").await?;
    let placement = entity::placement::Entity::find()
        .filter(entity::placement::Column::OwnerAccountId.eq(publisher.account_id.clone()))
        .one(&ctx.db)
        .await?
        .ok_or_else(|| anyhow::anyhow!("the demo placement is missing"))?;
    let slots = entity::ad_slot::Entity::find()
        .filter(entity::ad_slot::Column::PlacementId.eq(placement.id.clone()))
        .all(&ctx.db)
        .await?;
    let slot_of = |t: &str| {
        slots
            .iter()
            .find(|s| s.r#type == t)
            .map(|s| s.id.clone())
            .ok_or_else(|| anyhow::anyhow!("the demo {t} slot is missing"))
    };
    let (offerwall, feed_slot) = (slot_of("OFFERWALL")?, slot_of("STATIC_API")?);
    let static_key = static_keys::issue(
        ctx,
        &publisher,
        &placement.id,
        &feed_slot,
        input(json!({"expiresAt": ctx.now() + Duration::days(30), "reason": "benchmark"}))?,
    )
    .await
    .map_err(fail("static key"))?;

    // Money for every campaign's budget, through the wire flow.
    let budget: i64 = 50_000_000;
    // 400,000 USD: every report of a long postback phase is paid.
    const POSTBACK_BUDGET: i64 = 400_000_000_000;
    let wire = funding::request_wire(
        ctx,
        &advertiser,
        input(
            json!({"amount": budget * (args.campaigns as i64 + 10) + POSTBACK_BUDGET, "currency": "USD",
            "externalReference": format!("BENCH-{}", ctx.now().timestamp())}),
        )?,
    )
    .await
    .map_err(fail("wire"))?;
    funding::approve_wire(ctx, &admin, &wire.funding_id)
        .await
        .map_err(fail("wire approval"))?;

    let mut rng = Lcg(42);
    let mut campaign_ids = Vec::with_capacity(args.campaigns);
    let mut web_ids = Vec::new();
    for i in 0..args.campaigns {
        let platforms: Vec<&str> = match rng.next(4) {
            0 => vec!["android"],
            1 => vec!["ios"],
            2 => vec!["android", "ios", "web"],
            _ => vec!["web", "android"],
        };
        let n = 1 + rng.next(6);
        let mut countries: Vec<&str> = (0..n).map(|_| COUNTRIES[rng.next(8 + i % 16)]).collect();
        countries.sort_unstable();
        countries.dedup();
        let payout = 200_000 + 50_000 * rng.next(60) as i64;
        let mut goals = vec![
            json!({"externalGoalId": "install", "name": "Install and open",
            "payoutMicros": payout, "pendingMinutes": 0}),
        ];
        if rng.next(2) == 0 {
            goals.push(json!({"externalGoalId": "level5", "name": "Reach level 5",
                "payoutMicros": payout * 2, "pendingMinutes": 30}));
        }
        let mut config = json!({
            "name": format!("Benchmark offer {i}"),
            "destinationUrl": format!("https://adv{}.example/offer/{i}?click={{click_id}}", i % 97),
            "platforms": platforms,
            "countries": countries,
            "category": CATEGORIES[rng.next(CATEGORIES.len())],
            "taskType": TASK_TYPES[rng.next(TASK_TYPES.len())],
            "trackingProvider": "CUSTOM_S2S",
            "budgetMicros": budget,
            "description": "Install the app, open it and play through the tutorial.",
            "goals": goals,
        });
        if i % 10 == 0 {
            config["caps"] = json!({"dailyConversions": 500, "totalConversions": 5000});
        }
        let id = live_offer_campaign(ctx, &advertiser, &admin, config).await?;
        if platforms.contains(&"web") {
            web_ids.push(id.clone());
        }
        campaign_ids.push(id);
        if (i + 1) % 1000 == 0 {
            eprintln!(
                "bench seed: {} campaigns ({:.0} s)",
                i + 1,
                started.elapsed().as_secs_f64()
            );
        }
    }

    // One campaign carries the postbacks: a signing key, sessions, launches. It pays every
    // report (a budget for all of them, repeat purchases per user), so the postback phase
    // measures paying settlements, not refusals after the budget ran out.
    let postback_id = live_offer_campaign(
        ctx,
        &advertiser,
        &admin,
        json!({
            "name": "Benchmark purchases",
            "destinationUrl": "https://purchases.example/offer?click={click_id}",
            "platforms": ["web"],
            "countries": COUNTRIES,
            "category": CATEGORIES[0],
            "taskType": TASK_TYPES[0],
            "trackingProvider": "CUSTOM_S2S",
            "budgetMicros": POSTBACK_BUDGET,
            "description": "Buy and open the item; every purchase counts.",
            "caps": {"perUser": 10_000},
            "goals": [
                {"externalGoalId": "install", "name": "First purchase", "payoutMicros": 800_000, "pendingMinutes": 0},
                {"externalGoalId": "level10", "name": "Repeat purchase", "payoutMicros": 2_500_000, "pendingMinutes": 60},
            ],
        }),
    )
    .await?;
    let postback_campaign = entity::offer_campaign::Entity::find_by_id(postback_id)
        .one(&ctx.db)
        .await?
        .ok_or_else(|| anyhow::anyhow!("the postback campaign is missing"))?;
    let key = tracking::create_s2s(ctx, &advertiser, &postback_campaign.id)
        .await
        .map_err(fail("S2S key"))?;
    let mut tokens = Vec::with_capacity(args.sessions);
    let mut clicks = Vec::with_capacity(args.clicks);
    let mut impressions_for_launch = Vec::new();
    for i in 0..args.sessions.max(args.clicks) {
        let s = sessions::create(
            ctx,
            CreateSession {
                placement_id: Some(placement.id.clone()),
                ad_slot_id: None,
                external_user_id: Some(format!("bench-user-{i}")),
                platform: Some("web".into()),
                sdk_version: Some("2.0.0".into()),
                package_bundle_or_domain: Some(DEMO_DOMAIN.into()),
                environment: Some("production".into()),
                consent: Some("GRANTED".into()),
                ..Default::default()
            },
        )
        .await
        .map_err(fail("session"))?;
        let token = s.token.clone().unwrap_or_default();
        let model = sessions::authenticate(ctx, &token)
            .await
            .map_err(fail("session"))?;
        if i < args.clicks {
            let (imp, _) = impressions::record(
                ctx,
                &model,
                &postback_campaign.id,
                Some(&offerwall),
                &IdempotencyKey::derived(format!("bench-imp-{i}")),
            )
            .await
            .map_err(fail("impression"))?;
            let (l, _) = launches::launch(
                ctx,
                &model,
                &postback_campaign.id,
                LaunchRequest {
                    impression_id: Some(imp.impression_id.clone()),
                },
                &IdempotencyKey::derived(format!("bench-launch-{i}")),
                // One public address per user, as real traffic has.
                Some(std::net::IpAddr::V4(std::net::Ipv4Addr::new(
                    198,
                    18,
                    u8::try_from(i / 256 % 256).unwrap_or(0),
                    u8::try_from(i % 256).unwrap_or(0),
                ))),
            )
            .await
            .map_err(fail("launch"))?;
            clicks.push(l.click_id);
            // Impressions the load generator launches again (a launch needs a fresh one).
            impressions_for_launch.push(json!({"token": token, "impressionId": imp.impression_id}));
        }
        tokens.push(token);
    }
    let history = history(ctx, &placement.id, &offerwall, &campaign_ids, args.users).await?;
    let surveys = super::surveys::seed(
        ctx,
        &admin,
        &publisher,
        &advertiser,
        (args.surveys, args.survey_placements, args.respondents),
    )
    .await?;

    let fixtures = json!({
        "placementId": placement.id,
        "offerwallSlotId": offerwall,
        "staticSlotId": feed_slot,
        "staticKey": static_key.token,
        "sessionTokens": tokens,
        "webCampaignIds": web_ids.iter().take(2000).collect::<Vec<_>>(),
        "postbackCampaignId": postback_campaign.id,
        "postbackKeyId": key.key_id,
        "postbackSecret": key.secret,
        "clickIds": clicks,
        "launchable": impressions_for_launch,
        "historyRows": history,
        "surveyKeys": surveys.keys,
        "surveyLocales": super::surveys::LOCALES,
        "knownRespondents": surveys.respondents,
    });
    if let Some(dir) = args.out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(&args.out, serde_json::to_vec_pretty(&fixtures)?)?;
    eprintln!(
        "bench seed: done in {:.0} s; fixtures in {}",
        started.elapsed().as_secs_f64(),
        args.out.display()
    );
    Ok(())
}

/// One launch per user on a random live campaign, a fifth of them approved conversions,
/// spread over the last 30 days; written in batches, as history (no ledger movement).
async fn history(
    ctx: &Ctx,
    placement_id: &str,
    slot_id: &str,
    campaigns: &[String],
    users: usize,
) -> anyhow::Result<usize> {
    if campaigns.is_empty() {
        return Ok(0);
    }
    let now = ctx.now();
    let mut rng = Lcg(7);
    let advertiser = entity::offer_campaign::Entity::find_by_id(campaigns[0].clone())
        .one(&ctx.db)
        .await?
        .map(|c| c.advertiser_id)
        .unwrap_or_default();
    let mut written = 0;
    for batch in (0..users).collect::<Vec<_>>().chunks(500) {
        let mut launches = Vec::with_capacity(batch.len());
        let mut conversions = Vec::new();
        for &u in batch {
            let campaign = &campaigns[rng.next(campaigns.len())];
            let at = now - Duration::minutes(rng.next(30 * 24 * 60) as i64 + 10);
            let click = format!("clk_hist_{u}");
            launches.push(entity::sdk_launch::ActiveModel {
                id: Set(format!("lch_hist_{u}")),
                click_id: Set(click.clone()),
                session_id: Set(format!("ses_hist_{u}")),
                impression_id: Set(format!("imp_hist_{u}")),
                placement_id: Set(placement_id.to_owned()),
                ad_slot_id: Set(slot_id.to_owned()),
                campaign_id: Set(campaign.clone()),
                campaign_revision: Set(1),
                external_user_id: Set(format!("hist-user-{u}")),
                idempotency_key: Set(format!("hist-{u}")),
                trace_id: Set(format!("trc_hist_{u}")),
                destination_url: Set("https://adv.example/offer".into()),
                created_at: Set(at),
                expires_at: Set(at + Duration::minutes(5)),
                opened_at: Set(Some(at)),
                client_ip: Set(Some(history_ip(u))),
                opened_ip: Set(Some(history_ip(u))),
                device_id: Set(None),
            });
            if u % 5 == 0 {
                conversions.push(entity::conversion::ActiveModel {
                    id: Set(format!("cnv_hist_{u}")),
                    campaign_id: Set(campaign.clone()),
                    advertiser_id: Set(advertiser.clone()),
                    transaction_id: Set(format!("hist-tx-{u}")),
                    click_id: Set(click),
                    goal_id: Set("install".into()),
                    status: Set(entity::values::ReportedStatus::Approved),
                    settlement: Set(entity::values::Settlement::Approved),
                    placement_id: Set(Some(placement_id.to_owned())),
                    ad_slot_id: Set(Some(slot_id.to_owned())),
                    session_id: Set(None),
                    external_user_id: Set(Some(format!("hist-user-{u}"))),
                    payout_micros: Set(300_000),
                    publisher_earnings_micros: Set(210_000),
                    reward_minor_units: Set(21),
                    occurred_at: Set(at),
                    created_at: Set(at),
                    updated_at: Set(at),
                    credit_at: Set(Some(at)),
                    // History without ledger postings: like conversions paid before
                    // publisher earnings were kept.
                    publisher_id: Set(None),
                    earnings_state: Set(None),
                    earnings_at: Set(None),
                    reversed_at: Set(None),
                    fraud_score: Set(0),
                    fraud_reasons: Set(None),
                    held_at: Set(None),
                    held_until: Set(None),
                    click_ip: Set(Some(history_ip(u))),
                    click_network: Set(app::domain::fraud::address::ClickAddress::parse(
                        &history_ip(u),
                    )
                    .map(|a| a.network)),
                    device_id: Set(None),
                    // Realistic timing, so goal norms have history.
                    seconds_to_convert: Set(Some(600 + (u % 7) as i64 * 300)),
                    decided_by: Set(None),
                    decided_at: Set(None),
                    decision_note: Set(None),
                });
            }
        }
        written += launches.len() + conversions.len();
        entity::sdk_launch::Entity::insert_many(launches)
            .exec(&ctx.db)
            .await?;
        if !conversions.is_empty() {
            entity::conversion::Entity::insert_many(conversions)
                .exec(&ctx.db)
                .await?;
        }
    }
    Ok(written)
}

/// A public address per history user (the benchmarking range 198.18.0.0/15).
fn history_ip(u: usize) -> String {
    format!("198.19.{}.{}", u / 256 % 256, u % 256)
}
