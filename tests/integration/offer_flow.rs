//! The offer flow end to end, one phase per function: a publisher with a reward callback and
//! two live Custom S2S campaigns; the SDK lists, pages and filters the offers; an impression
//! and a signed launch; a signed conversion settled from the reserve with its reward queued
//! in the same transaction; the publisher's report and CSV; a reversal, a stale link and an
//! unknown click.

use app::model::Role;
use reqwest::StatusCode;
use sea_orm::EntityTrait;
use serde_json::{Value, json};
use tests::builders::callbacks::configure;
use tests::builders::*;
use tests::{TestApp, both_backends, error_code};

both_backends!(offers_launch_and_conversions_settle_into_reports);

async fn offers_launch_and_conversions_settle_into_reports(app: TestApp) {
    let f = Flow::new(&app).await;
    offers_are_ranked_paged_and_filtered(&f).await;
    let (click, link) = an_impression_launches_once(&f).await;
    a_signed_conversion_settles_once(&f, &click).await;
    the_report_counts_it(&f).await;
    a_reversal_gives_the_spend_back(&f, &click, &link).await;
}

/// What every phase works with.
struct Flow<'a> {
    app: &'a TestApp,
    p: Publisher,
    adv: String,
    game: String,
    key_id: String,
    secret: String,
    finance: String,
    sid: String,
    token: String,
    offers: String,
    reserved_before: i64,
    spent_before: i64,
}

impl<'a> Flow<'a> {
    async fn new(app: &'a TestApp) -> Flow<'a> {
        let admin = app.admin_token().await;
        let (_, adv) = app.funded_advertiser(1_000 * USD).await;
        let p = publisher(app, &admin).await;
        configure(app, &p, "https://hooks.pixelquest.example/reward").await;
        let (game, key_id, secret) =
            live_campaign(app, &adv, &admin, campaign_body("CUSTOM_S2S", 100 * USD)).await;
        let mut finance = campaign_body("CUSTOM_S2S", 100 * USD);
        finance["category"] = json!("FINANCE");
        finance["goals"][0]["payoutMicros"] = json!(3_000_000);
        let (finance, _, _) = live_campaign(app, &adv, &admin, finance).await;
        let (_, reserved_before, spent_before) = app.balance(&adv).await;

        let (sid, token) = session(app, &p, "user-1").await;
        let offers = format!("/sdk/v2/ad-slots/{}/offers", p.slot);
        Flow {
            app,
            p,
            adv,
            game,
            key_id,
            secret,
            finance,
            sid,
            token,
            offers,
            reserved_before,
            spent_before,
        }
    }
}

/// Highest payout first, rewards in the slot's currency, paging by cursor, refusals of bad
/// queries, no fill outside the targeting, and the blacklist and slot policy.
async fn offers_are_ranked_paged_and_filtered(f: &Flow<'_>) {
    let (app, p, token, offers) = (f.app, &f.p, f.token.as_str(), f.offers.as_str());
    let (game, finance) = (&f.game, &f.finance);
    let (s, list) = app.get(&format!("{offers}?country=US"), Some(token)).await;
    assert_eq!(s, StatusCode::OK, "{list}");
    let ids = campaign_ids(&list);
    assert_eq!(
        ids,
        vec![finance.as_str(), game.as_str()],
        "highest payout first"
    );
    let item = &list["items"][1];
    // 1.50 USD payout → 70 % publisher share 1.05 USD → 105 coins.
    assert_eq!(item["goals"][0]["rewardMinorUnits"], 105, "{item}");
    assert_eq!(item["totalRewardMinorUnits"], 105);
    assert_eq!(item["availability"]["status"], "AVAILABLE");
    assert!(item["requirements"].is_string() && item["disclaimer"].is_string());
    assert_eq!(list["contractVersion"], "2.0.0");
    assert_eq!(list["cache"]["maxAgeSeconds"], 60);
    assert_eq!(list["context"]["currency"]["name"], "Coins");
    // Paging with the cursor of the previous page.
    let (_, page1) = app.get(&format!("{offers}?limit=1"), Some(token)).await;
    assert_eq!(page1["items"].as_array().map(Vec::len), Some(1));
    let cursor = page1["page"]["nextCursor"].as_str().expect("next cursor");
    let (_, page2) = app
        .get(&format!("{offers}?limit=1&cursor={cursor}"), Some(token))
        .await;
    assert_eq!(page2["items"][0]["campaignId"], game.as_str());
    assert!(page2["page"]["nextCursor"].is_null());
    for bad in ["country=usa", "limit=0", "limit=101", "cursor=zzz"] {
        assert_eq!(
            app.get(&format!("{offers}?{bad}"), Some(token)).await.0,
            StatusCode::BAD_REQUEST,
            "{bad}"
        );
    }
    // Countries outside the campaign's targeting see nothing (no fill is ordinary).
    let (s, none) = app.get(&format!("{offers}?country=FR"), Some(token)).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(none["items"], json!([]));

    // The publisher's blacklist and the slot policy filter delivery.
    let (s, bl) = app
        .post(
            "/publisher/v2/blacklists",
            Some(&p.token),
            &json!({"kind": "CATEGORY", "value": "FINANCE"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{bl}");
    let (_, list) = app.get(&offers, Some(token)).await;
    assert_eq!(list["items"].as_array().map(Vec::len), Some(1), "{list}");
    assert_eq!(
        app.get(&format!("/sdk/v2/offers/{finance}"), Some(token))
            .await
            .0,
        StatusCode::NOT_FOUND,
        "a blacklisted offer cannot be read or launched"
    );
    let (s, _) = app
        .patch(
            &format!(
                "/publisher/v2/placements/{}/ad-slots/{}",
                p.placement, p.slot
            ),
            Some(&p.token),
            &json!({"policy": {"blockedCampaignIds": [game]}}),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(app.get(&offers, Some(token)).await.1["items"], json!([]));
    app.patch(
        &format!(
            "/publisher/v2/placements/{}/ad-slots/{}",
            p.placement, p.slot
        ),
        Some(&p.token),
        &json!({"policy": {"blockedCampaignIds": []}}),
    )
    .await;
}

/// An impression (201, then the same receipt for its key) and a launch that needs it, whose
/// signed link redirects to the advertiser and refuses a tampered signature.
async fn an_impression_launches_once(f: &Flow<'_>) -> (String, String) {
    let (app, token, game, sid) = (f.app, f.token.as_str(), &f.game, &f.sid);
    // Impression: 201, then the same key answers the same receipt.
    let imp_path = format!("/sdk/v2/offers/{game}/impressions");
    assert_eq!(
        app.post(&imp_path, Some(token), &json!({})).await.0,
        StatusCode::BAD_REQUEST
    );
    let (s, imp) = keyed(app, &imp_path, token, "imp-000001", &json!({})).await;
    assert_eq!(s, StatusCode::CREATED, "{imp}");
    assert_eq!(imp["duplicate"], false);
    let (s, again) = keyed(app, &imp_path, token, "imp-000001", &json!({})).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(again["impressionId"], imp["impressionId"]);
    assert_eq!(again["duplicate"], true);
    let impression = imp["impressionId"].as_str().expect("id");

    // Launch: needs the impression and its own key; a retry returns the same launch.
    let launch_path = format!("/sdk/v2/offers/{game}/launch");
    let (s, _) = keyed(app, &launch_path, token, "launch-0001", &json!({})).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (s, _) = keyed(
        app,
        &launch_path,
        token,
        "imp-000001",
        &json!({"impressionId": impression}),
    )
    .await;
    assert_eq!(
        s,
        StatusCode::BAD_REQUEST,
        "the impression's key cannot launch"
    );
    let (s, l) = keyed(
        app,
        &launch_path,
        token,
        "launch-0001",
        &json!({"impressionId": impression}),
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{l}");
    assert_eq!(l["sessionId"], sid.as_str());
    let (s, l2) = keyed(
        app,
        &launch_path,
        token,
        "launch-0001",
        &json!({"impressionId": impression}),
    )
    .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(l2["clickId"], l["clickId"]);
    let click = l["clickId"].as_str().expect("click").to_owned();
    let url = l["launchUrl"].as_str().expect("launchUrl").to_owned();
    // The link is signed on the configured public address; follow its path here.
    let path = url[url.find("/sdk/v2/launch/").expect("launch path")..].to_owned();
    let res = app.client.get(app.url(&path)).send().await.expect("sent");
    assert_eq!(
        res.status(),
        StatusCode::FOUND,
        "redirects to the advertiser"
    );
    let location = res
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert_eq!(
        location,
        format!("https://advertiser.example/install?click={click}")
    );
    let tampered = path.replace("signature=", "signature=0");
    assert_eq!(
        app.client
            .get(app.url(&tampered))
            .send()
            .await
            .expect("sent")
            .status(),
        StatusCode::UNAUTHORIZED
    );
    (click, path)
}

/// A signed conversion: refused with a wrong secret or a stale timestamp, settled once from
/// the reserve, retried exactly, a conflicting goal refused; the reward is queued and the
/// completed offer leaves the user's list.
async fn a_signed_conversion_settles_once(f: &Flow<'_>, click: &str) {
    let (app, token, offers) = (f.app, f.token.as_str(), f.offers.as_str());
    let (game, finance, key_id, secret) = (&f.game, &f.finance, &f.key_id, &f.secret);
    // Conversion: signed, settled from the reserve, retried exactly, conflicts refused.
    let conv = Conversion {
        click,
        txn: "order-1",
        goal: "install",
        status: "approved",
    };
    let (s, bad) = postback(app, &game, &key_id, "wrong-secret", &conv, now_ts(app)).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&bad), "invalid_signature");
    let (s, stale) = postback(app, &game, &key_id, &secret, &conv, now_ts(app) - 301).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&stale), "stale_timestamp");
    let (s, r) = postback(app, &game, &key_id, &secret, &conv, now_ts(app)).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["accepted"], true);
    assert_eq!(r["duplicate"], false);
    let (s, r2) = postback(app, &game, &key_id, &secret, &conv, now_ts(app)).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(r2["duplicate"], true);
    assert_eq!(r2["receiptId"], r["receiptId"]);
    let conflict = Conversion {
        goal: "level10",
        ..conv
    };
    let (s, e) = postback(app, &game, &key_id, &secret, &conflict, now_ts(app)).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&e), "transaction_conflict");
    let settled = entity::conversion::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("conversions");
    assert_eq!(settled.len(), 1);
    assert_eq!(
        settled[0].settlement,
        entity::values::Settlement::Approved,
        "{settled:?}"
    );
    let (_, reserved, spent) = app.balance(&f.adv).await;
    assert_eq!(reserved, f.reserved_before - 1_500_000);
    assert_eq!(spent, f.spent_before + 1_500_000);

    // The reward confirmation is queued for the publisher in the same transaction.
    let outbox = entity::callback_delivery::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("outbox");
    assert_eq!(outbox.len(), 1);
    assert_eq!(outbox[0].event, "reward.confirmed");
    let payload: Value = serde_json::from_str(&outbox[0].payload).expect("payload");
    assert_eq!(payload["externalUserId"], "user-1");
    assert_eq!(payload["reward"]["minorUnits"], 105);

    // Reward status: earned; the completed offer leaves the user's list.
    let (s, rs) = app.get("/sdk/v2/reward-status", Some(token)).await;
    assert_eq!(s, StatusCode::OK, "{rs}");
    assert_eq!(rs["totals"]["earnedMinorUnits"], 105);
    assert_eq!(rs["items"][0]["status"], "EARNED");
    let (_, one) = app
        .get(&format!("/sdk/v2/reward-status/{finance}"), Some(token))
        .await;
    assert_eq!(one["items"], json!([]));
    assert_eq!(app.get(&offers, Some(token)).await.1["items"], json!([]));
}

/// The publisher's report (JSON and CSV) counts the showing, the click, the conversion and
/// the earnings, refuses a range over 92 days, and shows another publisher nothing.
async fn the_report_counts_it(f: &Flow<'_>) {
    let (app, p, game) = (f.app, &f.p, &f.game);
    // The report counts the showing, the click, the conversion and the earnings.
    let report = "/publisher/v2/reports/offers";
    let (s, r) = app.get(report, Some(&p.token)).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    assert_eq!(r["rows"].as_array().map(Vec::len), Some(1), "{r}");
    let row = &r["rows"][0];
    assert_eq!(row["offerId"], game.as_str());
    assert_eq!(
        (
            row["impressions"].as_i64(),
            row["clicks"].as_i64(),
            row["conversions"].as_i64()
        ),
        (Some(1), Some(1), Some(1))
    );
    assert_eq!(row["earningsMicros"], 1_050_000);
    assert_eq!(r["totals"]["earnings"], "1.050000");
    let res = app
        .client
        .get(app.url(&format!("{report}?format=csv")))
        .bearer_auth(&p.token)
        .send()
        .await
        .expect("sent");
    assert_eq!(
        res.headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok()),
        Some("text/csv; charset=utf-8")
    );
    let csv = res.text().await.unwrap_or_default();
    assert!(
        csv.starts_with("date,offer_id,offer_name,impressions,clicks,conversions"),
        "{csv}"
    );
    assert!(
        csv.contains(&format!("{game},Play to level 10,1,1,1,0,1050000,1.050000")),
        "{csv}"
    );
    assert_eq!(
        app.get(
            &format!("{report}?from=2026-01-01&to=2026-12-31"),
            Some(&p.token)
        )
        .await
        .0,
        StatusCode::BAD_REQUEST
    );
    let (_, stranger) = app.signed_in(Role::Publisher).await;
    assert_eq!(app.get(report, Some(&stranger)).await.1["rows"], json!([]));
    assert_eq!(
        app.get(
            &format!("{report}?placementId={}", p.placement),
            Some(&stranger)
        )
        .await
        .0,
        StatusCode::NOT_FOUND
    );
}

/// A reversal gives the spend back and cancels the unsent confirmation; a stale launch link
/// is refused; an unknown click is accepted but pays nothing.
async fn a_reversal_gives_the_spend_back(f: &Flow<'_>, click: &str, path: &str) {
    let (app, token, p) = (f.app, f.token.as_str(), &f.p);
    let (game, key_id, secret) = (&f.game, &f.key_id, &f.secret);
    let conv = Conversion {
        click,
        txn: "order-1",
        goal: "install",
        status: "approved",
    };
    let report = "/publisher/v2/reports/offers";
    // A reversal gives the spend back; the confirmation was never sent (no worker ran), so
    // it is cancelled and the publisher hears nothing.
    let reversal = Conversion {
        status: "reversed",
        ..conv
    };
    let (s, _) = postback(app, &game, &key_id, &secret, &reversal, now_ts(app)).await;
    assert_eq!(s, StatusCode::OK);
    let (_, _, spent_after) = app.balance(&f.adv).await;
    assert_eq!(spent_after, f.spent_before);
    let (_, rs) = app.get("/sdk/v2/reward-status", Some(token)).await;
    assert_eq!(rs["totals"]["reversedMinorUnits"], 105);
    let (_, r) = app.get(report, Some(&p.token)).await;
    assert_eq!(r["totals"]["reversals"], 1);
    assert_eq!(r["totals"]["earningsMicros"], 0);
    let outbox = entity::callback_delivery::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("outbox");
    assert_eq!(outbox.len(), 1, "{outbox:?}");
    assert_eq!(
        (outbox[0].event.as_str(), outbox[0].status.as_str()),
        ("reward.confirmed", "CANCELLED")
    );

    // A stale launch link is refused; an unknown click is accepted but pays nothing.
    app.clock.advance(chrono::Duration::minutes(6));
    assert_eq!(
        app.client
            .get(app.url(path))
            .send()
            .await
            .expect("sent")
            .status(),
        StatusCode::GONE
    );
    let unknown = Conversion {
        click: "clk_nope",
        txn: "order-2",
        goal: "install",
        status: "approved",
    };
    let (s, _) = postback(app, &game, &key_id, &secret, &unknown, now_ts(app)).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(app.balance(&f.adv).await.2, f.spent_before);
}
