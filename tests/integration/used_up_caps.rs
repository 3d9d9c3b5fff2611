//! An offer whose cap is used up by a postback leaves the offer list before that postback
//! is answered, whichever cap it is: the settlement that uses up a daily conversion cap or
//! a daily budget announces the change like one that uses up a total cap or the reserve.
//! And a settlement that uses nothing up rebuilds nothing (at 10,000 campaigns a rebuild is
//! the expensive part): a capped campaign with room left, and a reserve left with exactly
//! one more payout. (`settlement::after_settlement`; the mutation run of issue 52 found
//! these lines undefended: `||` made `&&` between the caps, `reserve < cheapest` made `<=`,
//! `capped && reached` made `||`.)

use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::builders::callbacks::click;
use tests::builders::{
    Conversion, Publisher, USD, campaign_body, listed_offers, live_campaign, now_ts, postback,
    publisher, session, settlement_of,
};
use tests::{TestApp, both_backends};

both_backends!(
    a_used_up_daily_cap_takes_the_offer_out_before_the_postback_answers,
    a_settlement_that_uses_nothing_up_rebuilds_nothing,
);

/// The payout of the campaigns' one goal.
const PAYOUT: i64 = 1_500_000;

fn capped(caps: Value) -> Value {
    let mut body = campaign_body("CUSTOM_S2S", 100 * USD);
    body["caps"] = caps;
    body
}

/// A new user `buyer-<n>` clicks campaign `c` (id, key id, secret) and its advertiser
/// reports the install approved, as `tx-<n>`.
async fn convert(app: &TestApp, p: &Publisher, c: &(String, String, String), n: usize) {
    let (_, clk) = click(app, p, &format!("buyer-{n}"), &c.0).await;
    let conv = Conversion {
        click: &clk,
        txn: &format!("tx-{n}"),
        goal: "install",
        status: "approved",
    };
    let (s, r) = postback(app, &c.0, &c.1, &c.2, &conv, now_ts(app)).await;
    assert_eq!(s, StatusCode::OK, "{r}");
}

/// How many snapshots the inventory has swapped in so far.
fn swaps(app: &TestApp) -> u64 {
    *app.state.ctx.inventory.swaps().borrow()
}

async fn a_settlement_that_uses_nothing_up_rebuilds_nothing(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let roomy = live_campaign(&app, &adv, &admin, capped(json!({"dailyConversions": 5}))).await;
    let mut two = campaign_body("CUSTOM_S2S", 2 * PAYOUT);
    two["name"] = json!("Two payouts of reserve");
    let two = live_campaign(&app, &adv, &admin, two).await;
    let (_, watcher) = session(&app, &p, "watcher").await;
    let before = listed_offers(&app, &p.slot, &watcher).await;
    assert!(
        before.contains(&roomy.0) && before.contains(&two.0),
        "{before:?}"
    );
    let built = swaps(&app);

    for (n, c) in [&roomy, &two].into_iter().enumerate() {
        convert(&app, &p, c, n).await;
    }
    for (n, c) in [&roomy, &two].into_iter().enumerate() {
        assert_eq!(
            settlement_of(&app, &c.0, &format!("tx-{n}")).await,
            "APPROVED"
        );
    }
    assert_eq!(
        swaps(&app),
        built,
        "four conversions left today and one payout of reserve: nothing to rebuild"
    );
    let after = listed_offers(&app, &p.slot, &watcher).await;
    assert!(
        after.contains(&roomy.0) && after.contains(&two.0),
        "{after:?}"
    );
}

async fn a_used_up_daily_cap_takes_the_offer_out_before_the_postback_answers(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let daily = live_campaign(&app, &adv, &admin, capped(json!({"dailyConversions": 1}))).await;
    let budget = live_campaign(
        &app,
        &adv,
        &admin,
        capped(json!({"dailyBudgetMicros": PAYOUT})),
    )
    .await;
    let open = live_campaign(&app, &adv, &admin, capped(json!({"dailyConversions": 5}))).await;
    let (_, watcher) = session(&app, &p, "watcher").await;
    let all = listed_offers(&app, &p.slot, &watcher).await;
    for c in [&daily, &budget, &open] {
        assert!(all.contains(&c.0), "{} is listed at first: {all:?}", c.0);
    }

    // Each checked right after its own postback: a later settlement's rebuild would take
    // out an earlier campaign whose announcement was missing.
    let cases = [
        (&daily, false, "the daily conversion cap is used up"),
        (&budget, false, "the daily budget is used up"),
        (&open, true, "four conversions are left today"),
    ];
    for (n, (c, stays, why)) in cases.into_iter().enumerate() {
        convert(&app, &p, c, n).await;
        let now = listed_offers(&app, &p.slot, &watcher).await;
        assert_eq!(now.contains(&c.0), stays, "{why}: {now:?}");
    }
}
