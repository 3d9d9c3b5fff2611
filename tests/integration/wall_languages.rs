//! The hosted offerwall in the user's language: the session's `lang`, else the browser's
//! `Accept-Language`, else English; a `lang` in the link wins over both. Words come from
//! the wall's catalogues, numbers in the language's digits and marks, pages right to left
//! in Arabic, and the advertiser's texts as given unless the campaign translates them.

use reqwest::StatusCode;
use serde_json::json;
use tests::{TestApp, both_backends};

use tests::builders::{USD, campaign_body, keyed, live_campaign, publisher, session_body};

both_backends!(
    the_wall_speaks_the_users_language,
    campaign_translations_are_checked
);

/// The path and query of an absolute URL on the service.
fn local(url: &str) -> String {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    after_scheme[after_scheme.find('/').unwrap_or(0)..].to_owned()
}

/// A wall page as a browser asking for `accept` sees it: (status, HTML).
async fn page(app: &TestApp, path: &str, accept: Option<&str>) -> (StatusCode, String) {
    let mut req = app.client.get(app.url(path));
    if let Some(a) = accept {
        req = req.header("accept-language", a);
    }
    let res = req.send().await.expect("sent");
    (res.status(), res.text().await.expect("page"))
}

/// A session for `user` with `lang` (or none): its wall path and the session.
async fn wall_for(
    app: &TestApp,
    p: &tests::builders::Publisher,
    user: &str,
    lang: Option<&str>,
) -> (String, serde_json::Value) {
    let mut body = session_body(p, user);
    if let Some(l) = lang {
        body["lang"] = json!(l);
    }
    let (s, session) = app.post("/sdk/v2/sessions", None, &body).await;
    assert_eq!(s, StatusCode::CREATED, "{session}");
    let url = session["hostedOfferwallUrl"].as_str().expect("hosted URL");
    (local(url), session)
}

async fn the_wall_speaks_the_users_language(app: TestApp) {
    let app = &app;
    let admin = app.admin_token().await;
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let p = publisher(app, &admin).await;
    let mut body = campaign_body("CUSTOM_S2S", 100 * USD);
    body["description"] = json!("Install the game and reach level 10.");
    body["translations"] = json!({"de": {
        "name": "Bis Level 10 spielen",
        "description": "Installiere das Spiel und erreiche Level 10.",
        "goals": {"install": "Installieren"}
    }});
    let (game, _, _) = live_campaign(app, &adv, &admin, body).await;

    // A malformed `lang` is refused with the field named; a German session says so.
    let mut bad = session_body(&p, "user-x");
    bad["lang"] = json!("<de>");
    let (s, e) = app.post("/sdk/v2/sessions", None, &bad).await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert!(e["error"]["fieldErrors"]["lang"].is_string(), "{e}");
    let (de_wall, de) = wall_for(app, &p, "user-de", Some("de-AT")).await;
    assert_eq!(de["lang"], "de-AT", "{de}");
    assert!(
        de_wall.ends_with("&lang=de-AT"),
        "the link names it for the web SDK: {de_wall}"
    );

    // The session's language wins over the browser's, also when the link does not name it;
    // the campaign's German texts show.
    let stored_only = de_wall.replace("&lang=de-AT", "");
    let (s, list) = page(app, &stored_only, Some("ar, en;q=0.5")).await;
    assert_eq!(s, StatusCode::OK);
    assert!(list.contains(r#"<html lang="de" dir="ltr""#), "{list}");
    assert!(
        list.contains(">Angebote</a>") && list.contains("Meine Prämien"),
        "{list}"
    );
    assert!(
        list.contains("Bis Level 10 spielen") && list.contains("1 Schritt"),
        "{list}"
    );
    assert!(
        list.contains("+105 Coins") && list.contains("Spiele ·"),
        "{list}"
    );
    let qs = de_wall.split_once('?').map(|(_, q)| q).unwrap_or_default();
    let (_, detail) = page(app, &format!("/offerwall/offers/{game}?{qs}"), None).await;
    assert!(
        detail.contains("Installiere das Spiel und erreiche Level 10."),
        "{detail}"
    );
    assert!(detail.contains("<span>Installieren</span>"), "{detail}");
    assert!(
        detail.contains("Bevor du startest") && detail.contains(">Angebot starten<"),
        "{detail}"
    );

    // Without a session language the browser decides: Arabic, right to left, Arabic-Indic
    // digits, and the advertiser's own texts (the campaign has no Arabic translation).
    let (plain, _) = wall_for(app, &p, "user-ar", None).await;
    let (_, ar) = page(app, &plain, Some("nl-NL, ar;q=0.9, en;q=0.8")).await;
    assert!(ar.contains(r#"<html lang="ar" dir="rtl""#), "{ar}");
    assert!(
        ar.contains(">العروض</a>") && ar.contains("+١٠٥ Coins"),
        "{ar}"
    );
    assert!(ar.contains("Play to level 10"), "{ar}");
    // No language the wall speaks: English.
    let (_, en) = page(app, &plain, Some("nl-NL, sv")).await;
    assert!(en.contains(r#"<html lang="en" dir="ltr""#) && en.contains(">Offers</a>"));

    // `lang` in the link wins and stays on the wall's links.
    let (_, ja) = page(app, &format!("{plain}&lang=ja"), Some("de")).await;
    assert!(
        ja.contains(r#"<html lang="ja""#) && ja.contains("マイリワード"),
        "{ja}"
    );
    assert!(ja.contains("&amp;lang=ja\">"), "{ja}");
    let plain_qs = plain.split_once('?').map(|(_, q)| q).unwrap_or_default();
    let (_, help) = page(app, &format!("/offerwall/support?{plain_qs}&lang=fr"), None).await;
    assert!(help.contains("Que s’est-il passé ?") && help.contains(r#"name="lang" value="fr""#));

    // A refresh keeps the language; an expired link says so in the user's language.
    let id = de["sessionId"].as_str().expect("id");
    let token = de["token"].as_str().expect("token");
    let refresh = format!("/sdk/v2/sessions/{id}/refresh");
    let (s, next) = keyed(app, &refresh, token, "refresh-lang-1", &json!({})).await;
    assert_eq!(s, StatusCode::OK, "{next}");
    assert_eq!(next["lang"], "de-AT", "{next}");
    app.clock.advance(chrono::Duration::minutes(16));
    let (s, gone) = page(app, &plain, Some("pt-PT")).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    assert!(gone.contains("Este mural de ofertas expirou") && gone.contains(r#"lang="pt-BR""#));
}

/// Translations name a language the wall speaks and goals the campaign has; blank texts
/// are dropped and the campaign answers what was kept.
async fn campaign_translations_are_checked(app: TestApp) {
    let (_, adv) = app.funded_advertiser(1_000 * USD).await;
    let mut body = campaign_body("CUSTOM_S2S", 100 * USD);
    body["translations"] = json!({
        "nl": {"name": "Speel tot level 10"},
        "fr": {"name": "x", "goals": {"level5": "Niveau 5"}}
    });
    let (s, e) = app
        .post("/performance-marketing/v2/campaigns", Some(&adv), &body)
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    let fields = &e["error"]["fieldErrors"];
    for f in [
        "translations.nl",
        "translations.fr.name",
        "translations.fr.goals.level5",
    ] {
        assert!(fields[f].is_string(), "{f}: {e}");
    }
    body["translations"] = json!({
        "ja": {"name": "レベル10まで遊ぶ", "description": " "},
        "es": {"description": ""}
    });
    let (s, c) = app
        .post("/performance-marketing/v2/campaigns", Some(&adv), &body)
        .await;
    assert_eq!(s, StatusCode::CREATED, "{c}");
    assert_eq!(
        c["translations"],
        json!({"ja": {"name": "レベル10まで遊ぶ"}}),
        "{c}"
    );
}
