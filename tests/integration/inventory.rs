//! The in-memory inventory snapshot: a committed change that removes an offer (pause, end,
//! an exhausted reserve, a used-up cap, a blacklist, a schedule that ran out) is never
//! served after its response returned, and money stays exact under concurrent postbacks
//! (settled inline or queued during a burst and settled by the settler) because launches
//! and settlement check the database, not the snapshot.

use futures::future::join_all;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::{TestApp, both_backends, error_code};

use tests::builders::earnings::{assert_reconciled, spend_postings};
use tests::builders::{
    Conversion, USD, keyed, live_campaign, now_ts, postback, publisher, session,
};
use tests::builders::{approve, campaign_body, launched, listed_offers, transition};

both_backends!(
    removed_offers_leave_the_snapshot_before_the_change_answers,
    an_approved_edit_is_read_again_and_unchanged_offers_are_shared,
    caps_and_budget_hold_under_concurrent_postbacks,
    caps_and_budget_hold_when_a_burst_is_queued,
    queued_reports_keep_retry_and_conflict_rules,
);

fn named(name: &str, budget: i64) -> Value {
    let mut b = campaign_body("CUSTOM_S2S", budget);
    b["name"] = json!(name);
    b["goals"] = json!([{"externalGoalId": "install", "name": "Install", "payoutMicros": USD, "pendingMinutes": 0}]);
    b
}

/// Impression and launch for the session's user; returns the click id.
async fn click(app: &TestApp, token: &str, campaign: &str, n: usize) -> String {
    launched(app, token, campaign, &format!("key-{n:04}")).await
}

async fn campaign_money(app: &TestApp, adv: &str, id: &str) -> (i64, i64) {
    let (s, c) = app
        .get(
            &format!("/performance-marketing/v2/campaigns/{id}"),
            Some(adv),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    (
        c["reservedMicros"].as_i64().expect("reserved"),
        c["spentMicros"].as_i64().expect("spent"),
    )
}

async fn removed_offers_leave_the_snapshot_before_the_change_answers(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (_, adv) = app.funded_advertiser(100 * USD).await;
    let (paused, _, _) = live_campaign(&app, &adv, &admin, named("To pause", 5 * USD)).await;
    let (ended, _, _) = live_campaign(&app, &adv, &admin, named("To end", 5 * USD)).await;
    let (spent, key_id, secret) =
        live_campaign(&app, &adv, &admin, named("One conversion of budget", USD)).await;
    let (blocked, _, _) = live_campaign(&app, &adv, &admin, named("To blacklist", 5 * USD)).await;
    let mut ending = named("Ends in an hour", 5 * USD);
    ending["schedule"] = json!({"endAt": app.clock_now() + chrono::Duration::hours(1)});
    let (scheduled, _, _) = live_campaign(&app, &adv, &admin, ending).await;
    let (kept, _, _) = live_campaign(&app, &adv, &admin, named("Stays", 5 * USD)).await;
    let (_, token) = session(&app, &p, "snapshot-user").await;

    let all = listed_offers(&app, &p.slot, &token).await;
    for id in [&paused, &ended, &spent, &blocked, &scheduled, &kept] {
        assert!(all.contains(id), "{id} is listed at first: {all:?}");
    }

    assert_eq!(
        transition(&app, &adv, &paused, "PAUSED").await.0,
        StatusCode::OK
    );
    assert!(!listed_offers(&app, &p.slot, &token).await.contains(&paused));
    let (s, one) = app
        .get(&format!("/sdk/v2/offers/{paused}"), Some(&token))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{one}");

    assert_eq!(
        transition(&app, &adv, &ended, "ENDED").await.0,
        StatusCode::OK
    );
    assert!(!listed_offers(&app, &p.slot, &token).await.contains(&ended));

    // The reserve covers one conversion: once it is paid the offer is gone.
    let (_, buyer) = session(&app, &p, "buyer").await;
    let clk = click(&app, &buyer, &spent, 1).await;
    let (s, r) = postback(
        &app,
        &spent,
        &key_id,
        &secret,
        &Conversion {
            click: &clk,
            txn: "tx-spend-1",
            goal: "install",
            status: "approved",
        },
        now_ts(&app),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(campaign_money(&app, &adv, &spent).await, (0, USD));
    assert!(!listed_offers(&app, &p.slot, &token).await.contains(&spent));

    let (s, bl) = app
        .post(
            "/publisher/v2/blacklists",
            Some(&p.token),
            &json!({"kind": "CAMPAIGN", "value": blocked}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{bl}");
    assert!(
        !listed_offers(&app, &p.slot, &token)
            .await
            .contains(&blocked)
    );

    // Schedules are read against the request's clock, not the snapshot's.
    app.clock.advance(chrono::Duration::hours(2));
    let (_, token) = session(&app, &p, "snapshot-user").await;
    let now = listed_offers(&app, &p.slot, &token).await;
    assert!(!now.contains(&scheduled), "{now:?}");
    assert_eq!(now, vec![kept.clone()], "only the untouched offer is left");
    assert_eq!(
        transition(&app, &adv, &paused, "LIVE").await.0,
        StatusCode::OK
    );
    assert!(
        listed_offers(&app, &p.slot, &token).await.contains(&paused),
        "a resumed campaign comes back at once"
    );
}

/// A rebuild reads whole rows only for campaigns whose row moved: an edited campaign is
/// read again (its approved revision delivers until the edit is approved), an untouched one
/// keeps the very offer the previous snapshot held.
async fn an_approved_edit_is_read_again_and_unchanged_offers_are_shared(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (_, adv) = app.funded_advertiser(100 * USD).await;
    let (edited, _, _) = live_campaign(&app, &adv, &admin, named("To edit", 5 * USD)).await;
    let (kept, _, _) = live_campaign(&app, &adv, &admin, named("Untouched", 5 * USD)).await;
    let (_, token) = session(&app, &p, "edit-user").await;
    let reward = |id: String| {
        let (app, token) = (&app, &token);
        async move {
            let (s, item) = app.get(&format!("/sdk/v2/offers/{id}"), Some(token)).await;
            assert_eq!(s, StatusCode::OK, "{item}");
            item["goals"][0]["rewardMinorUnits"]
                .as_i64()
                .expect("reward")
        }
    };
    let before = reward(edited.clone()).await;
    let inventory = &app.state.ctx.inventory;
    let first = inventory.peek();
    let offer = |snap: &app::domain::campaigns::snapshot::Snapshot, id: &str| {
        snap.get(id).map(|o| o.live.clone()).expect("listed")
    };

    let doubled = json!({"goals": [{"externalGoalId": "install", "name": "Install", "payoutMicros": 2 * USD, "pendingMinutes": 0}]});
    let (s, c) = app
        .patch(
            &format!("/performance-marketing/v2/campaigns/{edited}"),
            Some(&adv),
            &doubled,
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(
        reward(edited.clone()).await,
        before,
        "the approved revision delivers until review"
    );
    let (s, c) = approve(&app, &admin, &edited).await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(
        reward(edited.clone()).await,
        2 * before,
        "the approved edit delivers"
    );

    let later = inventory.peek();
    assert!(
        std::sync::Arc::ptr_eq(&offer(&first, &kept), &offer(&later, &kept)),
        "an untouched campaign is not read again"
    );
    assert!(!std::sync::Arc::ptr_eq(
        &offer(&first, &edited),
        &offer(&later, &edited)
    ));
    // A forced full rebuild with nothing changed shares every offer.
    let now = app.clock_now();
    let again = inventory
        .rebuild(&app.state.ctx.db, now)
        .await
        .expect("rebuild");
    for id in [&edited, &kept] {
        assert!(std::sync::Arc::ptr_eq(
            &offer(&later, id),
            &offer(&again, id)
        ));
    }
}

async fn caps_and_budget_hold_under_concurrent_postbacks(app: TestApp) {
    caps_and_budget_hold(app, false).await;
}

/// The same burst accepted into the inbox queue and settled afterwards by the settler.
async fn caps_and_budget_hold_when_a_burst_is_queued(first: TestApp) {
    let app = queueing(&first).await;
    caps_and_budget_hold(app, true).await;
}

/// An app whose reports are all queued for the settler, as during a burst: no inline
/// settlement (`--settlement-inline-slots 0`) and queueing on, as the settler turns it on
/// when it starts (on SQLite too, so both databases run the queued path).
async fn queueing(first: &TestApp) -> TestApp {
    let app = TestApp::spawn_with(first.backend, &["--settlement-inline-slots", "0"]).await;
    app.state.ctx.inbox.settler_started();
    app
}

async fn caps_and_budget_hold(app: TestApp, queued: bool) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (_, adv) = app.funded_advertiser(100 * USD).await;
    let mut capped_body = named("Capped at three", 20 * USD);
    capped_body["caps"] = json!({"totalConversions": 3});
    let (capped, capped_key, capped_secret) = live_campaign(&app, &adv, &admin, capped_body).await;
    let (budget, budget_key, budget_secret) = live_campaign(
        &app,
        &adv,
        &admin,
        named("Four conversions of budget", 4 * USD),
    )
    .await;

    // Ten users click each offer; one more user keeps an impression for a late launch.
    let mut clicks = Vec::new();
    for n in 0..10 {
        let (_, token) = session(&app, &p, &format!("user-{n}")).await;
        clicks.push((
            click(&app, &token, &capped, n).await,
            click(&app, &token, &budget, 100 + n).await,
        ));
    }
    let (_, late) = session(&app, &p, "late-user").await;
    let late_impression = |campaign: String, key: &'static str| {
        let app = &app;
        let late = late.clone();
        async move {
            let (s, imp) = keyed(
                app,
                &format!("/sdk/v2/offers/{campaign}/impressions"),
                &late,
                key,
                &json!({}),
            )
            .await;
            assert_eq!(s, StatusCode::CREATED, "{imp}");
            imp["impressionId"].as_str().expect("id").to_owned()
        }
    };
    let capped_imp = late_impression(capped.clone(), "late-imp-capped").await;
    let budget_imp = late_impression(budget.clone(), "late-imp-budget").await;

    // Twenty approved postbacks at once, ten per campaign.
    let ts = now_ts(&app);
    let sends = clicks.iter().enumerate().flat_map(|(n, (c, b))| {
        let app = &app;
        [
            (
                capped.clone(),
                capped_key.clone(),
                capped_secret.clone(),
                c.clone(),
                format!("cap-tx-{n}"),
            ),
            (
                budget.clone(),
                budget_key.clone(),
                budget_secret.clone(),
                b.clone(),
                format!("budget-tx-{n}"),
            ),
        ]
        .map(move |(campaign, key, secret, click, txn)| async move {
            postback(
                app,
                &campaign,
                &key,
                &secret,
                &Conversion {
                    click: &click,
                    txn: &txn,
                    goal: "install",
                    status: "approved",
                },
                ts,
            )
            .await
        })
    });
    for (s, r) in join_all(sends).await {
        assert_eq!(s, StatusCode::OK, "every report is accepted: {r}");
    }
    if queued {
        assert_eq!(
            campaign_money(&app, &adv, &budget).await,
            (4 * USD, 0),
            "accepted, not yet settled"
        );
        app.run_workers_once().await;
    }

    let (reserved, spent) = campaign_money(&app, &adv, &capped).await;
    assert_eq!(spent, 3 * USD, "exactly the cap was paid");
    assert_eq!(reserved, 17 * USD);
    assert_eq!(
        campaign_money(&app, &adv, &budget).await,
        (0, 4 * USD),
        "exactly the budget was paid, never more"
    );
    // Settled together or one by one, each payment is its own balanced posting.
    assert_eq!(spend_postings(&app, &budget).await, vec![5; 4]);
    assert_reconciled(&app).await;

    nothing_is_offered_or_launched_late(
        &app,
        (&p.slot, &late),
        [
            (&capped, &capped_imp, "late-launch-capped"),
            (&budget, &budget_imp, "late-launch-budget"),
        ],
    )
    .await;
}

/// Neither campaign is offered any more, and a launch from an impression taken before is
/// refused by the database checks. `offers`: campaign, impression and launch key.
async fn nothing_is_offered_or_launched_late(
    app: &TestApp,
    (slot, late): (&str, &str),
    offers: [(&String, &String, &str); 2],
) {
    let now = listed_offers(app, slot, late).await;
    assert!(offers.iter().all(|(c, _, _)| !now.contains(*c)), "{now:?}");
    for (campaign, imp, key) in offers {
        let (s, r) = keyed(
            app,
            &format!("/sdk/v2/offers/{campaign}/launch"),
            late,
            key,
            &json!({"impressionId": imp}),
        )
        .await;
        assert_eq!(
            (s, error_code(&r)),
            (StatusCode::NOT_FOUND, "offer_unavailable"),
            "{r}"
        );
    }
}

/// Queued reports answer exact retries with the first receipt and refuse a conflicting
/// reuse of the transaction id at once; the settler then applies them in arrival order.
async fn queued_reports_keep_retry_and_conflict_rules(first: TestApp) {
    let app = queueing(&first).await;
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let (_, adv) = app.funded_advertiser(100 * USD).await;
    let (id, key, secret) = live_campaign(&app, &adv, &admin, named("Queued", 10 * USD)).await;
    let (_, token) = session(&app, &p, "user-q").await;
    let click_id = click(&app, &token, &id, 0).await;
    let ts = now_ts(&app);
    let report = |txn: &'static str, goal: &'static str, status: &'static str| {
        let (app, id, key, secret, click_id) = (&app, &id, &key, &secret, &click_id);
        async move {
            let c = Conversion {
                click: click_id,
                txn,
                goal,
                status,
            };
            postback(app, id, key, secret, &c, ts).await
        }
    };
    let (s, pending) = report("q-tx-1", "install", "pending").await;
    assert_eq!(s, StatusCode::OK, "{pending}");
    assert_eq!(pending["duplicate"], false);
    let (s, again) = report("q-tx-1", "install", "pending").await;
    assert_eq!(s, StatusCode::OK, "{again}");
    assert_eq!(again["duplicate"], true);
    assert_eq!(
        again["receiptId"], pending["receiptId"],
        "the first receipt"
    );
    let (s, conflict) = report("q-tx-1", "other-goal", "pending").await;
    assert_eq!(s, StatusCode::CONFLICT, "{conflict}");
    assert_eq!(error_code(&conflict), "transaction_conflict");
    let (s, approved) = report("q-tx-1", "install", "approved").await;
    assert_eq!(s, StatusCode::OK, "{approved}");
    assert_eq!(approved["duplicate"], false);
    assert_eq!(
        campaign_money(&app, &adv, &id).await,
        (10 * USD, 0),
        "queued"
    );
    let (_, rs) = app.get("/sdk/v2/reward-status", Some(&token)).await;
    assert_eq!(rs["items"], json!([]), "nothing settled yet: {rs}");

    app.run_workers_once().await;
    assert_eq!(
        campaign_money(&app, &adv, &id).await,
        (9 * USD, USD),
        "pending, then approved: paid once"
    );
    let (_, rs) = app.get("/sdk/v2/reward-status", Some(&token)).await;
    assert_eq!(rs["items"][0]["status"], "EARNED", "{rs}");
    // After settlement an exact retry still answers the first receipt and moves nothing.
    let (s, late) = report("q-tx-1", "install", "approved").await;
    assert_eq!(s, StatusCode::OK, "{late}");
    assert_eq!(late["receiptId"], approved["receiptId"]);
    assert_eq!(late["duplicate"], true);
    app.run_workers_once().await;
    assert_eq!(campaign_money(&app, &adv, &id).await, (9 * USD, USD));

    // Paid and reversed in one batch: the reversal writes the waiting payment first.
    let (_, other) = session(&app, &p, "user-r").await;
    let other_click = click(&app, &other, &id, 1).await;
    for status in ["approved", "reversed"] {
        let c = Conversion {
            click: &other_click,
            txn: "q-tx-2",
            goal: "install",
            status,
        };
        let (s, r) = postback(&app, &id, &key, &secret, &c, ts).await;
        assert_eq!(s, StatusCode::OK, "{r}");
    }
    app.run_workers_once().await;
    assert_eq!(
        campaign_money(&app, &adv, &id).await,
        (8 * USD, USD),
        "paid from the reserve, given back to the wallet"
    );
    assert_eq!(spend_postings(&app, &id).await, vec![5; 2]);
    assert_reconciled(&app).await;
}
