//! Being told (issue 54, part 6): notices on the dashboard and by mail, per member, for the
//! events that need a person; a budget alert once per crossing; account webhooks signed with
//! Standard Webhooks headers and delivered by the reward-callback machinery.

use app::model::Role;
use entity::mail_outbox;
use reqwest::StatusCode;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};
use tests::builders::callbacks::{app_for, click, world};
use tests::builders::publisher::publisher;
use tests::builders::{USD, campaign_body, live_campaign};
use tests::receiver::{Receiver, standard_verifies};
use tests::{Backend, TestApp, each_backend};

each_backend!(
    a_budget_alert_is_told_once_per_crossing,
    an_account_webhook_verifies_with_the_standard_library,
    each_member_chooses_what_they_are_told,
    a_publisher_is_told_of_its_placements_review,
);

const PREFERENCES: &str = "/auth/v1/notification-preferences";

async fn notices(app: &TestApp, token: &str) -> Value {
    let (s, l) = app.get("/auth/v1/notifications", Some(token)).await;
    assert_eq!(s, StatusCode::OK, "{l}");
    l
}

fn topics(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|n| n["topic"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn count(list: &Value, topic: &str) -> usize {
    topics(list).iter().filter(|t| *t == topic).count()
}

/// The subjects of the notice letters written to `email`.
async fn letters_to(app: &TestApp, email: &str) -> Vec<String> {
    mail_outbox::Entity::find()
        .filter(mail_outbox::Column::ToAddress.eq(email.to_ascii_lowercase()))
        .all(&app.state.ctx.db)
        .await
        .expect("outbox")
        .into_iter()
        .map(|m| m.subject)
        .collect()
}

async fn a_budget_alert_is_told_once_per_crossing(backend: Backend) {
    let rx = Receiver::start().await;
    let w = world(
        app_for(backend, &rx, false).await,
        campaign_body("CUSTOM_S2S", 10 * USD),
    )
    .await;
    let (s, p) = w
        .app
        .put(
            PREFERENCES,
            Some(&w.adv),
            &json!({"budgetAlertPercent": 50}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{p}");
    assert_eq!(p["budgetAlertPercent"], 50);
    let (s, e) = w
        .app
        .put(
            PREFERENCES,
            Some(&w.adv),
            &json!({"budgetAlertPercent": 51}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let mut seen = Vec::new();
    for i in 1..=6 {
        let (_, clk) = click(&w.app, &w.p, &format!("user-{i}"), &w.campaign).await;
        w.report(&clk, &format!("order-{i}"), "approved").await;
        let l = notices(&w.app, &w.adv).await;
        seen.push((
            i,
            count(&l, "campaign.budget_low"),
            count(&l, "campaign.budget_exhausted"),
        ));
    }
    // 10 USD at 1.50 a conversion: 4 USD left after the fourth (below the 5 USD line), 1 USD
    // after the sixth (less than a conversion pays, so the offer is no longer shown).
    assert_eq!(
        seen,
        [
            (1, 0, 0),
            (2, 0, 0),
            (3, 0, 0),
            (4, 1, 0),
            (5, 1, 0),
            (6, 1, 1)
        ]
    );
    let l = notices(&w.app, &w.adv).await;
    let low = l["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|n| n["topic"] == "campaign.budget_low")
        .cloned()
        .expect("the alert");
    assert_eq!(low["subjectId"], w.campaign.as_str());
    assert_eq!(low["link"], format!("/advertiser/campaigns/{}", w.campaign));
    let mailed = letters_to(&w.app, &w.adv_user.email).await;
    let alerts = mailed
        .iter()
        .filter(|s| s.contains("less than 50 % of its budget left"))
        .count();
    assert_eq!(alerts, 1, "the owner is mailed once: {mailed:?}");
    assert_eq!(
        mailed.iter().filter(|s| s.contains("ran out")).count(),
        1,
        "{mailed:?}"
    );
}

async fn an_account_webhook_verifies_with_the_standard_library(backend: Backend) {
    let rx = Receiver::start().await;
    let app = app_for(backend, &rx, true).await;
    // The library refuses messages older than five minutes by the real clock.
    app.clock.set(chrono::Utc::now());
    let w = world(app, campaign_body("CUSTOM_S2S", 10 * USD)).await;
    let (_, viewer) = w.app.member(&w.adv, "VIEWER").await;
    let body = json!({"url": rx.url, "topics": ["campaign.budget_low"], "description": "ops"});
    let (s, e) = w.app.post("/auth/v1/webhooks", Some(&viewer), &body).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "a viewer keeps no webhooks: {e}");
    assert_eq!(e["error"]["code"], "insufficient_role");
    let (s, e) = w
        .app
        .post(
            "/auth/v1/webhooks",
            Some(&w.adv),
            &json!({"url": rx.url, "topics": ["payout.paid"]}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "not an advertiser's topic: {e}");
    let (s, hook) = w.app.post("/auth/v1/webhooks", Some(&w.adv), &body).await;
    assert_eq!(s, StatusCode::CREATED, "{hook}");
    let secret = hook["secret"].as_str().expect("secret").to_owned();
    assert!(secret.starts_with("whsec_"), "{hook}");
    let id = hook["webhook"]["webhookId"]
        .as_str()
        .expect("id")
        .to_owned();
    // A second endpoint on the same topic gets its own copy of each event.
    let (s, second) = w
        .app
        .post(
            "/auth/v1/webhooks",
            Some(&w.adv),
            &json!({"url": format!("{}?copy=1", rx.url), "topics": ["campaign.budget_low"]}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{second}");
    let second = second["webhook"]["webhookId"]
        .as_str()
        .expect("id")
        .to_owned();
    let (_, listed) = w.app.get("/auth/v1/webhooks", Some(&w.adv)).await;
    assert_eq!(listed["items"][0]["webhookId"], id.as_str());
    assert!(
        !listed.to_string().contains(&secret),
        "the secret is shown once"
    );
    let (s, _) = w
        .app
        .put(
            PREFERENCES,
            Some(&w.adv),
            &json!({"budgetAlertPercent": 50}),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    for i in 1..=4 {
        let (_, clk) = click(&w.app, &w.p, &format!("user-{i}"), &w.campaign).await;
        w.report(&clk, &format!("order-{i}"), "approved").await;
    }
    let got = delivered(&w.app, &w.adv, &id, &rx, 1).await;
    let copy = delivered(&w.app, &w.adv, &second, &rx, 1).await;
    assert_eq!(copy[0].json()["type"], "campaign.budget_low");
    let r = &got[0];
    let event = r.json();
    assert_eq!(event["type"], "campaign.budget_low", "{event}");
    assert_eq!(event["id"], r.header("webhook-id"));
    assert_eq!(event["data"]["subjectId"], w.campaign.as_str());
    assert!(standard_verifies(&secret, r, &r.body), "{}", r.body);
    let forged = r.body.replace("budget_low", "budget_lox");
    assert!(
        !standard_verifies(&secret, r, &forged),
        "a changed body is refused"
    );

    for _ in 0..2 {
        // Tests are sent as often as asked.
        let (s, t) = w
            .app
            .post(
                &format!("/auth/v1/webhooks/{id}/test"),
                Some(&w.adv),
                &json!({}),
            )
            .await;
        assert_eq!(s, StatusCode::ACCEPTED, "{t}");
    }
    let got = delivered(&w.app, &w.adv, &id, &rx, 3).await;
    let test = got
        .iter()
        .find(|r| r.json()["type"] == "webhook.test")
        .expect("the test");
    assert!(standard_verifies(&secret, test, &test.body));
    let (s, r) = w
        .app
        .post(
            &format!("/auth/v1/webhooks/{id}/resume"),
            Some(&w.adv),
            &json!({}),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::OK,
        "resuming a healthy endpoint changes nothing: {r}"
    );
    assert_eq!(r["status"], "ACTIVE");
    let (s, _) = w
        .app
        .delete(&format!("/auth/v1/webhooks/{id}"), Some(&w.adv))
        .await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    let (_, listed) = w.app.get("/auth/v1/webhooks", Some(&w.adv)).await;
    let left: Vec<&Value> = listed["items"].as_array().expect("items").iter().collect();
    assert_eq!(left.len(), 1, "{listed}");
    assert_eq!(left[0]["webhookId"], second.as_str());
    let (s, _) = w
        .app
        .get(&format!("/auth/v1/webhooks/{id}/deliveries"), Some(&w.adv))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "a removed webhook is gone");
}

/// Waits (10 s at most) until `n` deliveries of webhook `id` are DELIVERED; what the receiver
/// got for that webhook (by the `webhook-id` header).
async fn delivered(
    app: &TestApp,
    token: &str,
    id: &str,
    rx: &Receiver,
    n: usize,
) -> Vec<tests::receiver::Received> {
    let path = format!("/auth/v1/webhooks/{id}/deliveries");
    let mut l = Value::Null;
    for _ in 0..100 {
        l = app.get(&path, Some(token)).await.1;
        let done = l["items"].as_array().map_or(0, |i| {
            i.iter().filter(|d| d["status"] == "DELIVERED").count()
        });
        if done >= n {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let ours = l.to_string();
    let got: Vec<_> = rx
        .received()
        .into_iter()
        .filter(|r| ours.contains(&format!("\"{}\"", r.header("webhook-id"))))
        .collect();
    assert_eq!(got.len(), n, "{got:?} {l}");
    got
}

async fn each_member_chooses_what_they_are_told(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let admin = app.admin_token().await;
    let (owner, token) = app.funded_advertiser(100 * USD).await;
    let (viewer, vtoken) = app.member(&token, "VIEWER").await;
    let (finance, _) = app.member(&token, "FINANCE").await;
    let (s, p) = app.get(PREFERENCES, Some(&vtoken)).await;
    assert_eq!(s, StatusCode::OK, "{p}");
    let all = p["topics"].as_array().expect("topics");
    assert!(
        all.iter()
            .all(|c| c["email"] == false && c["dashboard"] == true),
        "{p}"
    );
    assert!(
        all.iter().all(|c| !c["topic"]
            .as_str()
            .unwrap_or_default()
            .starts_with("placement.")),
        "an advertiser's topics only: {p}"
    );
    let (s, e) = app
        .put(
            PREFERENCES,
            Some(&vtoken),
            &json!({"budgetAlertPercent": 10}),
        )
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN, "the alert share is billing: {e}");
    assert_eq!(e["error"]["code"], "insufficient_role");
    let (s, e) = app
        .put(
            PREFERENCES,
            Some(&vtoken),
            &json!({"topics": [{"topic": "placement.verified", "email": true, "dashboard": true}]}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let choice = json!({"topics": [
        {"topic": "campaign.approved", "email": true, "dashboard": true},
        {"topic": "funding.credited", "email": false, "dashboard": false},
    ]});
    let (s, p) = app.put(PREFERENCES, Some(&vtoken), &choice).await;
    assert_eq!(s, StatusCode::OK, "{p}");

    live_campaign(&app, &token, &admin, campaign_body("CUSTOM_S2S", 10 * USD)).await;
    let approved = "Campaign “Play to level 10” is approved".to_owned();
    assert!(
        letters_to(&app, &owner.email).await.contains(&approved),
        "the owner by default"
    );
    assert!(
        letters_to(&app, &viewer.email).await.contains(&approved),
        "the viewer chose it"
    );
    assert!(
        !letters_to(&app, &finance.email).await.contains(&approved),
        "finance is not mailed campaign decisions by default"
    );
    let l = notices(&app, &vtoken).await;
    assert_eq!(count(&l, "campaign.approved"), 1, "{l}");
    assert_eq!(
        count(&l, "funding.credited"),
        0,
        "hidden by the viewer: {l}"
    );
    assert!(l["unread"].as_u64().unwrap_or_default() >= 1, "{l}");
    let owner_view = notices(&app, &token).await;
    assert_eq!(
        count(&owner_view, "funding.credited"),
        1,
        "the owner still sees it"
    );
    let (s, _) = app
        .post("/auth/v1/notifications/seen", Some(&vtoken), &json!({}))
        .await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    assert_eq!(notices(&app, &vtoken).await["unread"], 0);
    assert!(
        notices(&app, &token).await["unread"]
            .as_u64()
            .unwrap_or_default()
            >= 1,
        "seen is per person"
    );
}

async fn a_publisher_is_told_of_its_placements_review(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let l = notices(&app, &p.token).await;
    assert_eq!(count(&l, "placement.verified"), 1, "{l}");
    assert_eq!(count(&l, "placement.released"), 1, "{l}");
    assert!(
        l["items"][0]["link"]
            .as_str()
            .unwrap_or_default()
            .starts_with("/publisher/placements/"),
        "{l}"
    );
    let (s, e) = app
        .put(
            PREFERENCES,
            Some(&p.token),
            &json!({"budgetAlertPercent": 10}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "no budgets on this side: {e}");
    for i in 0..10 {
        let url = format!("https://hooks{i}.pixelquest.example/market");
        let (s, h) = app
            .post("/auth/v1/webhooks", Some(&p.token), &json!({"url": url}))
            .await;
        assert_eq!(s, StatusCode::CREATED, "{h}");
    }
    let (s, e) = app
        .post(
            "/auth/v1/webhooks",
            Some(&p.token),
            &json!({"url": "https://eleven.pixelquest.example/"}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert_eq!(e["error"]["code"], "too_many_webhooks");
    let (s, e) = app
        .post(
            "/auth/v1/webhooks",
            Some(&p.token),
            &json!({"url": "http://plain.pixelquest.example/"}),
        )
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let (s, _) = app
        .post("/auth/v1/notifications/seen", None, &json!({}))
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let (s, e) = app
        .delete("/auth/v1/webhooks/whk_missing", Some(&p.token))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{e}");
    let (_, other) = app.signed_in(Role::Advertiser).await;
    assert_eq!(
        count(&notices(&app, &other).await, "placement.verified"),
        0,
        "an organisation sees only its own"
    );
}
