//! The hosted offerwall over plain HTTP (no JavaScript): the session's
//! `hostedOfferwallUrl` opens the wall, an offer's details show its requirements, the
//! launch form lands on the advertiser with a click id, a signed approved postback shows as
//! an earned reward, support cases open from the form, and expired links say so.

use reqwest::StatusCode;
use reqwest::redirect::Policy;
use serde_json::json;
use tests::{TestApp, both_backends};

use tests::builders::campaign_body;
use tests::builders::{Conversion, USD, live_campaign, now_ts, postback, publisher, session_body};

both_backends!(hosted_wall_runs_the_whole_user_flow);

/// The path and query of an absolute URL on the service.
fn local(url: &str) -> String {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    after_scheme[after_scheme.find('/').unwrap_or(0)..].to_owned()
}

/// The value of a hidden form input in a page.
fn hidden(page: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = page.find(&marker).map(|i| i + marker.len()).unwrap_or(0);
    page[start..]
        .split('"')
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// The HTML of a wall page.
async fn page_text(app: &TestApp, path: &str) -> String {
    let res = app.client.get(app.url(path)).send().await.expect("sent");
    res.text().await.expect("page")
}

async fn hosted_wall_runs_the_whole_user_flow(app: TestApp) {
    let w = Wall::open(&app).await;
    let (qs, impression) = the_wall_lists_and_details_the_offer(&app, &w).await;
    a_launch_and_a_postback_show_the_reward_as_earned(&app, &w, &qs, &impression).await;
    a_support_message_opens_one_case(&app, &w, &qs).await;
    the_script_is_served_and_bad_sessions_are_told(&app, &w).await;
}

/// A publisher whose offerwall slot has a checked design, a live Custom S2S campaign and a
/// session whose hosted wall URL carries its token.
struct Wall {
    game: String,
    key_id: String,
    secret: String,
    token: String,
    slot: String,
    /// The wall's path and query on this server.
    wall: String,
}

impl Wall {
    async fn open(app: &TestApp) -> Wall {
        let admin = app.admin_token().await;
        let (_, adv) = app.funded_advertiser(1_000 * USD).await;
        let p = publisher(app, &admin).await;
        // The slot's design is checked and applied.
        let slot_path = format!(
            "/publisher/v2/placements/{}/ad-slots/{}",
            p.placement, p.slot
        );
        let (s, e) = app
            .patch(
                &slot_path,
                Some(&p.token),
                &json!({"design": {"accentColor": "red"}}),
            )
            .await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
        assert!(
            e["error"]["fieldErrors"]["design.accentColor"].is_string(),
            "{e}"
        );
        let (s, e) = app
            .patch(
                &slot_path,
                Some(&p.token),
                &json!({"design": {"accentColor": "#0B8043", "title": "Earn Coins", "darkMode": true}}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{e}");
        let mut body = campaign_body("CUSTOM_S2S", 100 * USD);
        body["description"] = json!("Install the game and reach level 10 within 7 days.");
        let (game, key_id, secret) = live_campaign(app, &adv, &admin, body).await;

        let (s, session) = app
            .post("/sdk/v2/sessions", None, &session_body(&p, "user-1"))
            .await;
        assert_eq!(s, StatusCode::CREATED, "{session}");
        assert_eq!(session["capabilities"]["hostedOfferwall"], true);
        let url = session["hostedOfferwallUrl"]
            .as_str()
            .expect("hosted URL")
            .to_owned();
        let token = session["token"].as_str().expect("token");
        assert!(url.contains(token), "the URL carries the token");
        // The configuration read has no token, so no URL either.
        let (s, conf) = app
            .get(
                &format!(
                    "/sdk/v2/sessions/{}/configuration",
                    session["sessionId"].as_str().unwrap_or_default()
                ),
                Some(token),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{conf}");
        assert_eq!(conf["sessionId"], session["sessionId"], "{conf}");
        assert!(
            conf.get("hostedOfferwallUrl").is_none_or(|v| v.is_null()),
            "{conf}"
        );

        // The wall lists the offer with its reward in the slot currency.
        let wall = local(&url);
        Wall {
            game,
            key_id,
            secret,
            token: token.to_owned(),
            slot: p.slot.clone(),
            wall,
        }
    }
}

/// The wall lists the offer with its reward in the slot currency, only the session's site may
/// frame it, and the details show requirements, goals and disclaimer before the launch
/// button. Returns the wall's query string and the impression the details recorded.
async fn the_wall_lists_and_details_the_offer(app: &TestApp, w: &Wall) -> (String, String) {
    let (wall, game) = (&w.wall, &w.game);
    let res = app.client.get(app.url(wall)).send().await.expect("sent");
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["cache-control"], "no-store");
    assert_eq!(res.headers()["referrer-policy"], "no-referrer");
    // Only the session's site may frame the wall (no clickjacking by other sites).
    let csp = res.headers()["content-security-policy"]
        .to_str()
        .unwrap_or_default()
        .to_owned();
    // (Outside production a local page may frame it too, for trying the SDK.)
    assert!(
        csp.ends_with(
            "frame-ancestors https://play.pixelquest.example https://*.play.pixelquest.example \
             http://localhost:* http://127.0.0.1:*"
        ),
        "{csp}"
    );
    let page = res.text().await.expect("page");
    assert!(page.contains(&format!("data-offer=\"{game}\"")), "{page}");
    assert!(page.contains("+105 Coins"), "{page}");
    assert!(
        page.contains("Earn Coins")
            && page.contains("--accent:#0B8043")
            && page.contains("class=\"dark\"")
    );

    // The details show requirements, goals and disclaimer before the launch button.
    let qs = wall
        .split_once('?')
        .map(|(_, q)| q)
        .unwrap_or_default()
        .to_owned();
    let detail = page_text(app, &format!("/offerwall/offers/{game}?{qs}")).await;
    let req_at = detail
        .find("reach level 10 within 7 days")
        .expect("requirements shown");
    let button_at = detail.find("id=\"launch\"").expect("launch button");
    assert!(
        req_at < button_at
            && detail
                .find("Before you start")
                .is_some_and(|d| d < button_at)
    );
    // Embedded, the advertiser opens in a new tab without a handle on the wall's window.
    let embedded = page_text(app, &format!("/offerwall/offers/{game}?{qs}&embed=1")).await;
    assert!(
        embedded.contains(r#"target="_blank" rel="noopener noreferrer""#),
        "{embedded}"
    );
    let impression = hidden(&detail, "impression_id");
    assert!(impression.starts_with("imp"), "{detail}");
    (qs, impression)
}

/// Launching follows the signed link to the advertiser with a click id; a signed approved
/// postback shows the reward as earned on the wall's reward page.
async fn a_launch_and_a_postback_show_the_reward_as_earned(
    app: &TestApp,
    w: &Wall,
    qs: &str,
    impression: &str,
) {
    let (game, key_id, secret) = (&w.game, &w.key_id, &w.secret);
    let (token, p) = (w.token.as_str(), w);
    // Launching follows the signed link to the advertiser with a click id.
    let no_follow = reqwest::Client::builder()
        .redirect(Policy::none())
        .build()
        .expect("client");
    let res = no_follow
        .post(app.url(&format!("/offerwall/offers/{game}/launch")))
        .form(&[
            ("token", token),
            ("slot", p.slot.as_str()),
            ("impression_id", impression),
        ])
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::SEE_OTHER);
    let launch = res.headers()["location"]
        .to_str()
        .expect("location")
        .to_owned();
    assert!(launch.contains("/sdk/v2/launch/"), "{launch}");
    let res = no_follow
        .get(app.url(&local(&launch)))
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::FOUND);
    let advertiser = res.headers()["location"]
        .to_str()
        .expect("location")
        .to_owned();
    let click = advertiser
        .strip_prefix("https://advertiser.example/install?click=")
        .expect("advertiser destination with the click id")
        .to_owned();

    // A signed approved postback: the wall's reward page shows the reward as earned.
    let conv = Conversion {
        click: &click,
        txn: "order-1",
        goal: "install",
        status: "approved",
    };
    let (s, b) = postback(app, &game, &key_id, &secret, &conv, now_ts(app)).await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let rewards = page_text(app, &format!("/offerwall/rewards?{qs}")).await;
    assert!(
        rewards.contains("data-earned-minor-units=\"105\""),
        "{rewards}"
    );
    assert!(rewards.contains("status-earned"), "{rewards}");
}

/// A short message is refused on the page; a good one, submitted twice, opens one case.
async fn a_support_message_opens_one_case(app: &TestApp, w: &Wall, qs: &str) {
    let (game, token, p) = (&w.game, w.token.as_str(), w);
    let no_follow = reqwest::Client::builder()
        .redirect(Policy::none())
        .build()
        .expect("client");
    // Support: a short message is refused on the page, a good one opens one case.
    let support = page_text(app, &format!("/offerwall/support?{qs}&offer={game}")).await;
    let nonce = hidden(&support, "nonce");
    let form = |msg: &'static str| {
        vec![
            ("token", token.to_owned()),
            ("slot", p.slot.clone()),
            ("nonce", nonce.clone()),
            ("offer_id", game.clone()),
            ("reason_code", "MISSING_REWARD".to_owned()),
            ("message", msg.to_owned()),
        ]
    };
    let res = no_follow
        .post(app.url("/offerwall/support"))
        .form(&form("short"))
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    for _ in 0..2 {
        let res = no_follow
            .post(app.url("/offerwall/support"))
            .form(&form("I reached level 10 but the coins are missing."))
            .send()
            .await
            .expect("sent");
        assert_eq!(res.status(), StatusCode::SEE_OTHER);
    }
    let (_, cases) = app.get("/sdk/v2/support", Some(token)).await;
    assert_eq!(cases["count"], 1, "a double submit opens one case: {cases}");
    assert_eq!(cases["items"][0]["offerId"], game.as_str());
}

/// The web SDK script is served where the snippet names it; a wrong token and an expired
/// session each get a page that says so.
async fn the_script_is_served_and_bad_sessions_are_told(app: &TestApp, w: &Wall) {
    let wall = &w.wall;
    // The web SDK script is served where the snippet names it.
    let res = app
        .client
        .get(app.url("/sdk/v2/offers.js"))
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::OK);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap_or_default()
            .contains("javascript")
    );
    assert!(
        res.text()
            .await
            .expect("js")
            .contains("export const MarketplaceOffers")
    );

    // A wrong token and an expired session each get a page that says so.
    let res = app
        .client
        .get(app.url("/offerwall?token=sdk_nope"))
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    app.clock.advance(chrono::Duration::minutes(16));
    let res = app.client.get(app.url(wall)).send().await.expect("sent");
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert!(
        res.text()
            .await
            .expect("page")
            .contains("This offerwall has expired")
    );
}
