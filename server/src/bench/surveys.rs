//! The survey part of `server bench-seed` (issue 31): live, paid survey campaigns across
//! locales, a share of them with quotas and qualifications, created, allocated and approved
//! through the domain rules; known respondents written in bulk, as months of fetches would
//! have left them; and the publisher side the load generator calls with: several released
//! placements of the demo publisher, each with its survey app key, since the fetch limit is
//! per app key (3,000 a minute) and one key alone would measure the limiter.

use app::domain::billing::funding;
use app::domain::publisher::app_keys;
use app::domain::surveys::allocations;
use app::domain::surveys::{campaigns, quotas};
use app::domain::{Ctx, Principal};
use chrono::Duration;
use sea_orm::{EntityTrait, Set};
use serde_json::{Value, json};

use super::tools::{Lcg, fail, input};

/// The locales the surveys and the respondents are spread over.
pub const LOCALES: [&str; 8] = [
    "en-US", "en-GB", "de-DE", "fr-FR", "es-ES", "en-CA", "pt-BR", "en-AU",
];

/// Completes each survey is allocated for (the wallet reserves their price; one wire
/// request is at most 1,000,000 USD).
const TOTAL_COMPLETES: i64 = 400;

/// What the load generator needs.
pub struct Fixtures {
    /// `(placement id, app key)` pairs.
    pub keys: Vec<(String, String)>,
    pub respondents: usize,
}

/// Creates `surveys` live campaigns, `placements` placements with app keys and `respondents`
/// known respondents spread over the placements.
pub async fn seed(
    ctx: &Ctx,
    admin: &Principal,
    publisher: &Principal,
    advertiser: &Principal,
    counts: (usize, usize, usize),
) -> anyhow::Result<Fixtures> {
    let (surveys, placement_count, respondents) = counts;
    let mut rng = Lcg(31);
    let cpis: Vec<i64> = (0..surveys)
        .map(|_| 50 + 25 * rng.next(12) as i64)
        .collect();
    // Money for every allocation, through the wire flow (cents to micros).
    let total: i64 = cpis.iter().map(|c| c * 10_000 * TOTAL_COMPLETES).sum();
    let wire = funding::request_wire(
        ctx,
        advertiser,
        input(json!({"amount": total + 1_000_000, "currency": "USD",
            "externalReference": format!("BENCH-SURVEYS-{}", ctx.now().timestamp())}))?,
    )
    .await
    .map_err(fail("survey wire"))?;
    funding::approve_wire(ctx, admin, &wire.funding_id)
        .await
        .map_err(fail("survey wire approval"))?;
    let today = ctx.now().date_naive();
    for (i, cpi) in cpis.iter().enumerate() {
        let body = json!({
            "name": format!("Benchmark survey {i}"),
            "country_language_id": LOCALES[i % LOCALES.len()],
            "cpi": *cpi as f64 / 100.0,
            "length_of_interview": 5 + rng.next(20),
            "conversion": 20 + rng.next(50),
            "start_date": today.to_string(),
            "end_date": (today + Duration::days(60)).to_string(),
            "survey_live_link": format!("https://survey{}.example/live?tid={{transaction_id}}", i % 50),
            "survey_test_link": format!("https://survey{}.example/test?tid={{transaction_id}}", i % 50),
            "max_daily_completes": 1_000,
            "total_completes": TOTAL_COMPLETES,
            "supported_devices": ["desktop", "mobile"],
            "research_category": "Consumer",
            "status": "PENDINGAPPROVAL"
        });
        let id = campaigns::create(ctx, advertiser, input(body)?)
            .await
            .map_err(fail("survey campaign"))?
            .campaign
            ._id;
        for (quota, quals) in targeting(i) {
            let q = quotas::create(ctx, advertiser, &id, input(quota)?)
                .await
                .map_err(fail("survey quota"))?;
            for qual in quals {
                quotas::create_qualification(
                    ctx,
                    advertiser,
                    &id,
                    &q.campaign_quota._id,
                    input(qual)?,
                )
                .await
                .map_err(fail("survey qualification"))?;
            }
        }
        allocations::allocate(ctx, advertiser, &id, None)
            .await
            .map_err(fail("survey allocation"))?;
        campaigns::review::approve(ctx, admin, &id, None)
            .await
            .map_err(fail("survey approval"))?;
        if (i + 1) % 250 == 0 {
            eprintln!("bench seed: {} surveys", i + 1);
        }
    }
    let keys = survey_placements(ctx, admin, publisher, placement_count).await?;
    let ids: Vec<String> = keys.iter().map(|(p, _)| p.clone()).collect();
    known_respondents(ctx, &ids, respondents).await?;
    Ok(Fixtures { keys, respondents })
}

/// Quotas and their qualifications: none for half the surveys, women 18-34 for a quarter,
/// men of any age for the rest; in every locale alike (`i / LOCALES.len()`, since the
/// locale follows `i % LOCALES.len()`), so every respondent finds some surveys.
fn targeting(i: usize) -> Vec<(Value, Vec<Value>)> {
    match (i / LOCALES.len()) % 4 {
        0 | 1 => Vec::new(),
        2 => vec![(
            json!({"name": "Women 18-34", "num_respondents": 200}),
            vec![
                json!({"question_id": "GENDER", "answer_ids": ["2"]}),
                json!({"question_id": "AGE", "ranges": [{"min": 18, "max": 34}]}),
            ],
        )],
        _ => vec![(
            json!({"name": "Men", "num_respondents": 300}),
            vec![json!({"question_id": "GENDER", "answer_ids": ["1"]})],
        )],
    }
}

/// Released placements of the publisher, each with a survey app key.
async fn survey_placements(
    ctx: &Ctx,
    admin: &Principal,
    publisher: &Principal,
    count: usize,
) -> anyhow::Result<Vec<(String, String)>> {
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let id = crate::demo::released_placement(
            ctx,
            admin,
            publisher,
            &format!("Survey site {i}"),
            &format!("surveys{i}.bench.example"),
        )
        .await?;
        let key = app_keys::issue(ctx, publisher, &id)
            .await
            .map_err(fail("survey app key"))?;
        out.push((id, key.app_key));
    }
    Ok(out)
}

/// Respondents seen before (`survey-user-{n}`, spread over the placements and locales), in
/// batches of 500.
async fn known_respondents(ctx: &Ctx, placements: &[String], count: usize) -> anyhow::Result<()> {
    if placements.is_empty() {
        return Ok(());
    }
    let now = ctx.now();
    for batch in (0..count).collect::<Vec<_>>().chunks(500) {
        let rows = batch
            .iter()
            .map(|&u| entity::survey_respondent::ActiveModel {
                id: Set(format!("rsp_bench_{u}")),
                placement_id: Set(placements[u % placements.len()].clone()),
                external_user_id: Set(format!("survey-user-{u}")),
                locale_code: Set(LOCALES[u % LOCALES.len()].to_owned()),
                date_of_birth: Set(chrono::NaiveDate::from_ymd_opt(
                    1960 + (u % 45) as i32,
                    5,
                    5,
                )),
                gender: Set(Some(if u % 2 == 0 { "2" } else { "1" }.to_owned())),
                zip_code: Set(Some(format!("{:05}", u % 99_999))),
                city: Set("Springfield".to_owned()),
                gps_id: Set(None),
                last_ip: Set(format!(
                    "81.{}.{}.{}",
                    u % 200,
                    (u / 200) % 250,
                    u % 250 + 1
                )),
                risk_score: Set(0),
                created_at: Set(now - Duration::days(1 + (u % 90) as i64)),
                updated_at: Set(now - Duration::days((u % 30) as i64)),
            });
        entity::survey_respondent::Entity::insert_many(rows)
            .exec(&ctx.db)
            .await?;
    }
    Ok(())
}
