//! Reconciliation set-up the reconciliation tests share: a reconciliation posted with its
//! key, its tallies, many paid conversions at once, the callbacks and the balance they
//! moved, and a line made to fail.

use reqwest::StatusCode;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, Set};
use serde_json::{Value, json};

use super::callbacks::{World, click, world};
use super::earnings::micros;
use super::keyed;
use super::{USD, campaign_body};
use crate::{Backend, TestApp};
use app::domain::conversions::inbox;
use app::domain::conversions::reported::{Reported, ReportedStatus, Trust};
use entity::{callback_delivery, offer_campaign, sdk_launch};

pub const RECONCILIATIONS: &str = "/performance-marketing/v2/conversions/reconciliations";

/// Posts a reconciliation with an idempotency key.
pub async fn reconcile(app: &TestApp, adv: &str, key: &str, body: &Value) -> (StatusCode, Value) {
    keyed(app, RECONCILIATIONS, adv, key, body).await
}

/// Lines of `state` in a reconciliation's `preview` or `results`.
pub fn tally(r: &Value, part: &str, state: &str) -> u64 {
    r[part]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["state"] == state))
        .and_then(|t| t["lines"].as_u64())
        .unwrap_or(0)
}

/// `n` approved conversions `tx-0` … of the world's campaign, each by its own user: one
/// real click, the rest of the launches copied from it, every report settled as a postback.
pub async fn many_paid(w: &World, n: usize) {
    let (_, first) = click(&w.app, &w.p, "user-0", &w.campaign).await;
    let db = &w.app.state.ctx.db;
    let template = sdk_launch::Entity::find()
        .filter(sdk_launch::Column::ClickId.eq(first.clone()))
        .one(db)
        .await
        .expect("query")
        .expect("launch");
    let ids: Vec<usize> = (1..n).collect();
    for chunk in ids.chunks(200) {
        let rows = chunk.iter().map(|i| {
            let mut l: sdk_launch::ActiveModel = template.clone().into();
            l.id = Set(format!("lch_rec_{i}"));
            l.click_id = Set(format!("clk_rec_{i}"));
            l.external_user_id = Set(format!("user-{i}"));
            l.idempotency_key = Set(format!("rec-launch-{i}"));
            l.impression_id = Set(format!("imp_rec_{i}"));
            l
        });
        sdk_launch::Entity::insert_many(rows)
            .exec(db)
            .await
            .expect("launches");
    }
    let campaign = offer_campaign::Entity::find_by_id(w.campaign.clone())
        .one(db)
        .await
        .expect("query")
        .expect("campaign");
    let now = w.app.clock_now();
    for i in 0..n {
        let click = if i == 0 {
            first.clone()
        } else {
            format!("clk_rec_{i}")
        };
        let ev = Reported {
            click_id: click,
            transaction_id: format!("tx-{i}"),
            goal_id: "install".into(),
            status: ReportedStatus::Approved,
            occurred_at_raw: now.to_rfc3339(),
            occurred_at: now,
            trust: Trust::Reported,
            received_at: None,
        };
        let r = inbox::ingest(&w.app.state.ctx, &campaign, "CUSTOM_S2S", ev)
            .await
            .expect("settled");
        assert!(r.accepted);
    }
}

/// Callback rows of `event` (`reward.confirmed` or `reward.reversed`).
pub async fn callbacks(app: &TestApp, event: &str) -> u64 {
    callback_delivery::Entity::find()
        .filter(callback_delivery::Column::Event.eq(event))
        .count(&app.state.ctx.db)
        .await
        .expect("count")
}

pub async fn advertiser_available(w: &World) -> i64 {
    let (s, b) = w
        .app
        .get("/performance-marketing/v2/billing/balance", Some(&w.adv))
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    micros(&b, "availableMicros")
}

/// Makes every insert of an inbox receipt for `transaction_id` fail, as a broken row or a
/// defect would: applying that line can never succeed.
pub async fn poison(app: &TestApp, transaction_id: &str) {
    let sql = match app.backend {
        Backend::Sqlite => format!(
            "CREATE TRIGGER poison BEFORE INSERT ON postback_events \
             WHEN NEW.transaction_id = '{transaction_id}' BEGIN SELECT RAISE(ABORT, 'poisoned'); END"
        ),
        Backend::Postgres => format!(
            "CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
             IF NEW.transaction_id = '{transaction_id}' THEN RAISE EXCEPTION 'poisoned'; END IF; \
             RETURN NEW; END $$; \
             CREATE TRIGGER poison BEFORE INSERT ON postback_events \
             FOR EACH ROW EXECUTE FUNCTION poison()"
        ),
    };
    app.state
        .ctx
        .db
        .execute_unprepared(&sql)
        .await
        .expect("trigger");
}

/// A world whose campaign pays 0.50 USD a conversion, with `n` of them paid (`tx-0` …).
pub async fn paid_world(app: TestApp, n: usize) -> World {
    let mut body = campaign_body("CUSTOM_S2S", 900 * USD);
    body["goals"][0]["payoutMicros"] = json!(500_000);
    let w = world(app, body).await;
    many_paid(&w, n).await;
    w
}

/// The reconciliation `id` as its advertiser sees it.
pub async fn reconciliation(w: &World, id: &str) -> Value {
    let (s, r) = w
        .app
        .get(&format!("{RECONCILIATIONS}/{id}"), Some(&w.adv))
        .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    r
}

/// The lines of reconciliation `id` in `state` (as the query names it).
pub async fn lines_in(w: &World, id: &str, state: &str) -> Value {
    let (s, list) = w
        .app
        .get(
            &format!("{RECONCILIATIONS}/{id}/lines?state={state}"),
            Some(&w.adv),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{list}");
    list
}
