//! "Where you are signed in" (issue 54, part 2): the account's browsers and tokens are
//! listed with what signed them in, and each can be signed out on its own, at once.

use app::model::Role;
use reqwest::StatusCode;
use serde_json::{Value, json};
use tests::{TestApp, both_backends, error_code};

both_backends!(each_browser_and_token_is_listed_and_signed_out_on_its_own);

fn browser(agent: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .user_agent(agent)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

async fn signed_in_as(app: &TestApp, client: &reqwest::Client, email: &str) -> bool {
    client
        .post(app.url("/fn/session_info"))
        .header("referer", app.url("/"))
        .send()
        .await
        .expect("session")
        .text()
        .await
        .unwrap_or_default()
        .contains(email)
}

fn ids(list: &Value, kind: &str) -> Vec<String> {
    list[kind]
        .as_array()
        .expect("list")
        .iter()
        .map(|s| s["id"].as_str().expect("id").to_owned())
        .collect()
}

async fn each_browser_and_token_is_listed_and_signed_out_on_its_own(app: TestApp) {
    let user = app.create_user(Role::Publisher).await;
    let (phone, laptop) = (browser("Phone Browser/1.0"), browser("Laptop Browser/2.0"));
    app.browser_sign_in(&phone, &user).await;
    app.browser_sign_in(&laptop, &user).await;
    let (mine, other) = (app.token(&user).await, app.token(&user).await);

    let (s, list) = app.get("/auth/v1/sessions", Some(&mine)).await;
    assert_eq!(s, StatusCode::OK, "{list}");
    let browsers = list["browsers"].as_array().expect("browsers");
    assert_eq!(browsers.len(), 2, "{list}");
    let devices: Vec<&str> = browsers
        .iter()
        .filter_map(|b| b["device"].as_str())
        .collect();
    assert!(
        devices.contains(&"Phone Browser/1.0") && devices.contains(&"Laptop Browser/2.0"),
        "{list}"
    );
    assert!(
        browsers
            .iter()
            .all(|b| b["signedInAt"].is_string() && b["current"] == json!(false))
    );
    let tokens = list["tokens"].as_array().expect("tokens");
    assert_eq!(tokens.len(), 2);
    assert_eq!(
        tokens
            .iter()
            .filter(|t| t["current"] == json!(true))
            .count(),
        1
    );

    // The dashboard marks the browser that asks, and shows the address it signed in from.
    let seen: Value = phone
        .post(app.url("/fn/signed_in_list"))
        .header("referer", app.url("/account"))
        .send()
        .await
        .expect("list")
        .json()
        .await
        .expect("json");
    let current: Vec<&Value> = seen["browsers"]
        .as_array()
        .expect("browsers")
        .iter()
        .filter(|b| b["current"] == json!(true))
        .collect();
    assert_eq!(current.len(), 1, "{seen}");
    assert_eq!(current[0]["device"], "Phone Browser/1.0");
    assert_eq!(current[0]["address"], "127.0.0.1");

    // Signing out the phone leaves the laptop signed in.
    let phone_id = browsers
        .iter()
        .find(|b| b["device"] == "Phone Browser/1.0")
        .and_then(|b| b["id"].as_str())
        .expect("phone")
        .to_owned();
    let stranger = app.signed_in(Role::Publisher).await.1;
    let path = format!("/auth/v1/sessions/{phone_id}");
    assert_eq!(
        app.delete(&path, Some(&stranger)).await.0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.delete(&path, Some(&mine)).await.0,
        StatusCode::NO_CONTENT
    );
    assert!(
        !signed_in_as(&app, &phone, &user.email).await,
        "the phone is signed out"
    );
    assert!(
        signed_in_as(&app, &laptop, &user.email).await,
        "the laptop is not"
    );
    let (s, err) = app.delete(&path, Some(&mine)).await;
    assert_eq!((s, error_code(&err)), (StatusCode::NOT_FOUND, "not_found"));

    // Revoking the other token.
    let (_, list) = app.get("/auth/v1/sessions", Some(&mine)).await;
    let other_id = list["tokens"]
        .as_array()
        .expect("tokens")
        .iter()
        .find(|t| t["current"] == json!(false))
        .and_then(|t| t["id"].as_str())
        .expect("the other token")
        .to_owned();
    assert_eq!(
        app.delete(&format!("/auth/v1/sessions/{other_id}"), Some(&mine))
            .await
            .0,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        app.get("/auth/v1/me", Some(&other)).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(app.get("/auth/v1/me", Some(&mine)).await.0, StatusCode::OK);
    assert_eq!(
        app.delete("/auth/v1/sessions/whatever", Some(&mine))
            .await
            .0,
        StatusCode::NOT_FOUND
    );

    // After "sign out everywhere" only the asking token is left.
    let (_, list) = app.get("/auth/v1/sessions", Some(&mine)).await;
    assert_eq!(ids(&list, "browsers").len(), 1);
    let (s, _) = app
        .post("/auth/v1/sign-out-everywhere", Some(&mine), &json!({}))
        .await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    let (_, list) = app.get("/auth/v1/sessions", Some(&mine)).await;
    assert!(ids(&list, "browsers").is_empty(), "{list}");
    assert_eq!(ids(&list, "tokens").len(), 1);
}
