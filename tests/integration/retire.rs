//! What a publisher retires (issue 27): a callback receiver can be removed (its unsent
//! rewards wait for the next one, its keys are retired) and an ad slot that is not active
//! can be archived, so a placement that once had either can still be deleted.

use reqwest::StatusCode;
use serde_json::json;
use tests::{Backend, TestApp, both_backends, error_code};

use tests::builders::callbacks::configure;
use tests::builders::callbacks::{queue, row, unconfigured};
use tests::builders::publisher;

tests::each_backend!(a_removed_receiver_keeps_its_rewards_waiting);
both_backends!(slots_are_archived_once_not_active);

async fn a_removed_receiver_keeps_its_rewards_waiting(backend: Backend) {
    let (rx, w) = unconfigured(backend).await;
    let (first_key, secret) = configure(&w.app, &w.p, &rx.url).await;
    assert!(!secret.is_empty());
    // Two rewards due in an hour (no worker runs here either way).
    let ids = queue(&w, &w.p.placement, 2, -3_600).await;
    let cb = format!("/publisher/v2/placements/{}/callback", w.p.placement);

    let (s, body) = w.app.delete(&cb, Some(&w.p.token)).await;
    assert_eq!(s, StatusCode::OK, "{body}");
    assert_eq!(body["waiting"], 2, "{body}");
    for id in &ids {
        assert_eq!(
            row(&w, id).await.status,
            entity::values::DeliveryStatus::WaitingReceiver
        );
    }
    let (s, settings) = w.app.get(&cb, Some(&w.p.token)).await;
    assert_eq!(
        (s, error_code(&settings)),
        (StatusCode::NOT_FOUND, "not_found"),
        "{settings}"
    );
    assert!(settings["url"].is_null(), "{settings}");
    // Nothing left to remove.
    let (s, _) = w.app.delete(&cb, Some(&w.p.token)).await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    // A new receiver gets a new key, shown once, and the rewards are queued again.
    let (second_key, secret) = configure(&w.app, &w.p, &rx.url).await;
    assert!(!secret.is_empty(), "a new key is issued");
    assert_ne!(first_key, second_key);
    for id in &ids {
        assert_eq!(
            row(&w, id).await.status,
            entity::values::DeliveryStatus::Held
        );
    }
}

async fn slots_are_archived_once_not_active(app: TestApp) {
    let admin = app.admin_token().await;
    let p = publisher(&app, &admin).await;
    let slot = format!(
        "/publisher/v2/placements/{}/ad-slots/{}",
        p.placement, p.slot
    );
    let delete = |path: String| {
        let app = &app;
        let token = p.token.clone();
        async move {
            let res = app
                .client
                .delete(app.url(&path))
                .bearer_auth(&token)
                .send()
                .await
                .expect("sent");
            let status = res.status();
            (
                status,
                res.json::<serde_json::Value>().await.unwrap_or_default(),
            )
        }
    };

    // An active slot serves users: disable it first.
    let (s, b) = app
        .post(&format!("{slot}/activate"), Some(&p.token), &json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let (s, e) = delete(slot.clone()).await;
    assert_eq!(s, StatusCode::CONFLICT, "{e}");
    assert_eq!(error_code(&e), "slot_active");
    let (s, b) = app
        .post(&format!("{slot}/disable"), Some(&p.token), &json!({}))
        .await;
    assert_eq!(s, StatusCode::OK, "{b}");
    let (s, _) = delete(slot.clone()).await;
    assert_eq!(s, StatusCode::NO_CONTENT);

    // Gone from reads and lists, and not archived twice.
    let (s, _) = app.get(&slot, Some(&p.token)).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    let (_, placement) = app
        .get(
            &format!("/publisher/v2/placements/{}", p.placement),
            Some(&p.token),
        )
        .await;
    assert_eq!(placement["adSlots"], json!([]), "{placement}");
    let (s, _) = delete(slot.clone()).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    // Another publisher cannot archive someone else's slot.
    let other = publisher(&app, &admin).await;
    let theirs = format!(
        "/publisher/v2/placements/{}/ad-slots/{}",
        other.placement, other.slot
    );
    let (s, _) = delete(theirs).await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    // A draft placement whose only slot is archived (and with no receiver) can be deleted.
    let draft = app.website_placement(&p.token, "retire.example").await;
    let id = draft["placementId"].as_str().unwrap_or_default().to_owned();
    let (s, _) = delete(format!("/publisher/v2/placements/{id}")).await;
    assert_eq!(s, StatusCode::NO_CONTENT);
}
