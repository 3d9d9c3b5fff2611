//! Ids in paths, bodies and queries never reach another publisher's objects (issue 52,
//! item 7). Every request here is valid in shape (a generated "second account" test that
//! sends `{}` is refused with 400 before any ownership check and proves nothing): only
//! whose object it names is wrong.

use reqwest::StatusCode;
use serde_json::json;
use tests::builders::publisher;
use tests::{TestApp, both_backends};

both_backends!(
    a_slot_of_another_publisher_is_not_reached_through_an_own_placement,
    bans_stay_on_the_banning_publishers_placements,
);

async fn a_slot_of_another_publisher_is_not_reached_through_an_own_placement(app: TestApp) {
    let admin = app.admin_token().await;
    let mine = publisher(&app, &admin).await;
    let theirs = publisher(&app, &admin).await;
    // My placement in the path, their slot id after it.
    let path = format!(
        "/publisher/v2/placements/{}/ad-slots/{}",
        mine.placement, theirs.slot
    );
    let (s, e) = app.get(&path, Some(&mine.token)).await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{e}");
    let (s, e) = app
        .patch(&path, Some(&mine.token), &json!({"name": "Taken over"}))
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{e}");
    let (s, e) = app.delete(&path, Some(&mine.token)).await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{e}");
    // Their slot is as it was.
    let (s, slot) = app
        .get(
            &format!(
                "/publisher/v2/placements/{}/ad-slots/{}",
                theirs.placement, theirs.slot
            ),
            Some(&theirs.token),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{slot}");
    assert_eq!(slot["name"], "Wall");
    assert!(slot["archivedAt"].is_null(), "{slot}");
}

async fn bans_stay_on_the_banning_publishers_placements(app: TestApp) {
    let admin = app.admin_token().await;
    let mine = publisher(&app, &admin).await;
    let theirs = publisher(&app, &admin).await;
    // A valid ban, on their placement.
    let ban = json!({"placementId": theirs.placement, "externalUserId": "player-1", "reason": "chargebacks"});
    let (s, e) = app
        .post("/publisher/v2/user-bans", Some(&mine.token), &ban)
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{e}");
    assert!(e["error"]["fieldErrors"]["placementId"].is_string(), "{e}");
    // Their own ban, which I can neither read nor lift.
    let (s, their_ban) = app
        .post("/publisher/v2/user-bans", Some(&theirs.token), &ban)
        .await;
    assert_eq!(s, StatusCode::CREATED, "{their_ban}");
    let id = their_ban["banId"]
        .as_str()
        .or_else(|| their_ban["id"].as_str())
        .expect("ban id");
    let (s, e) = app
        .patch(
            &format!("/publisher/v2/user-bans/{id}"),
            Some(&mine.token),
            &json!({"status": "LIFTED"}),
        )
        .await;
    assert!(
        s == StatusCode::NOT_FOUND || s == StatusCode::FORBIDDEN,
        "{s} {e}"
    );
    let (s, list) = app
        .get(
            &format!("/publisher/v2/user-bans?placementId={}", theirs.placement),
            Some(&mine.token),
        )
        .await;
    assert!(
        s.is_client_error() || list["items"].as_array().is_some_and(Vec::is_empty),
        "{s} {list}"
    );
    let (_, still) = app
        .get(
            &format!("/publisher/v2/user-bans?placementId={}", theirs.placement),
            Some(&theirs.token),
        )
        .await;
    assert_eq!(still["items"][0]["status"], "ACTIVE", "{still}");
}
