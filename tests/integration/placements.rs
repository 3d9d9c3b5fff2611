//! Publisher placements, their review and release, deletion rules, ownership and the
//! foundation switch.

use app::model::Role;
use reqwest::StatusCode;
use serde_json::json;
use tests::{Backend, TestApp, both_backends, error_code, error_message};

both_backends!(
    create_normalises_and_defaults,
    create_validates_fields,
    list_searches_filters_and_orders,
    other_publishers_cannot_see_or_touch,
    patch_keeps_type_and_identity,
    review_lifecycle,
    delete_refuses_obligations,
    app_key_is_shown_once_and_replaced,
);

async fn create_normalises_and_defaults(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let p = app
        .website_placement(&t, "https://Shop.Example.COM:8443/games?x=1")
        .await;
    assert!(
        p["placementId"]
            .as_str()
            .is_some_and(|id| id.starts_with("plc_"))
    );
    assert_eq!(p["platformIdentity"], "shop.example.com");
    assert_eq!(p["status"], "DRAFT");
    assert_eq!(p["platform"], "web");
    assert_eq!(p["released"], false);
    assert_eq!(p["minimumSdkVersion"], "2.0.0");
    assert_eq!(p["type"], "WEBSITE");
    assert_eq!(p["callback"]["configured"], false);

    let (s, a) = app
        .post(
            "/publisher/v2/placements",
            Some(&t),
            &json!({"type": "ANDROID_APP", "name": "Quest", "platformIdentity": "com.pixel.quest",
                    "storeUrl": "https://play.google.com/store/apps/details?id=com.pixel.quest",
                    "minimumSdkVersion": "2.3.1", "recommendedSdkVersion": "2.4.0", "requireConsent": true}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{a}");
    assert_eq!(a["platform"], "android");
    assert_eq!(a["minimumSdkVersion"], "2.3.1");
    assert_eq!(a["requireConsent"], true);
    assert_eq!(
        a["capabilities"]["slotTypes"],
        json!(["OFFERWALL", "OFFER_API"])
    );
}

async fn create_validates_fields(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let cases = [
        (json!({"name": "x", "platformIdentity": "a.com"}), "type"),
        (
            json!({"type": "TV_APP", "name": "x", "platformIdentity": "a.com"}),
            "type",
        ),
        (
            json!({"type": "ANDROID_APP", "name": "x", "platformIdentity": "com.a.b"}),
            "storeUrl",
        ),
        (
            json!({"type": "IOS_APP", "name": "x", "platformIdentity": "com.a.b", "storeUrl": "http://apps.apple.com/app/1"}),
            "storeUrl",
        ),
        (
            json!({"type": "ANDROID_APP", "name": "x", "platformIdentity": "not a package", "storeUrl": "https://play.google.com/x"}),
            "platformIdentity",
        ),
        (
            json!({"type": "WEBSITE", "name": "x", "platformIdentity": "localhost"}),
            "platformIdentity",
        ),
        (
            json!({"type": "WEBSITE", "name": "", "platformIdentity": "a.com"}),
            "name",
        ),
        (
            json!({"type": "WEBSITE", "name": "x", "platformIdentity": "a.com", "minimumSdkVersion": "2.0"}),
            "minimumSdkVersion",
        ),
        (
            json!({"type": "WEBSITE", "name": "x", "platformIdentity": "a.com", "minimumSdkVersion": "2.5.0", "recommendedSdkVersion": "2.4.0"}),
            "recommendedSdkVersion",
        ),
    ];
    for (body, field) in cases {
        let (s, err) = app.post("/publisher/v2/placements", Some(&t), &body).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
        assert!(
            err["error"]["fieldErrors"][field].is_string(),
            "{field} not named for {body}: {err}"
        );
    }
    let (_, count) = app.get("/publisher/v2/placements", Some(&t)).await;
    assert_eq!(count["count"], 0, "nothing half-written");
}

async fn list_searches_filters_and_orders(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let admin = app.admin_token().await;
    let a = app.website_placement(&t, "alpha.example.com").await;
    app.clock.advance(chrono::Duration::seconds(1));
    let b = app.website_placement(&t, "beta.example.com").await;
    let (_, list) = app.get("/publisher/v2/placements", Some(&t)).await;
    assert_eq!(list["count"], 2);
    assert_eq!(
        list["items"][0]["placementId"], b["placementId"],
        "newest first"
    );
    assert!(
        list["items"][0].get("adSlots").is_none(),
        "slots only on the single read"
    );

    let (_, found) = app
        .get(
            "/publisher/v2/placements?search=alpha.example.com",
            Some(&t),
        )
        .await;
    assert_eq!(found["count"], 1);
    let id = a["placementId"].as_str().expect("id");
    let (_, found) = app
        .get(&format!("/publisher/v2/placements?search={id}"), Some(&t))
        .await;
    assert_eq!(found["items"][0]["placementId"], id);
    let (_, found) = app
        .get("/publisher/v2/placements?search=QUEST%20WEB", Some(&t))
        .await;
    assert_eq!(found["count"], 2, "name search is case-insensitive");
    // In every script, on SQLite too (its lower() folds ASCII only), and the search text's
    // wildcards are literal (issue 52).
    let (s, _) = app
        .post(
            "/publisher/v2/placements",
            Some(&t),
            &serde_json::json!({"type": "WEBSITE", "name": "Ölmühle Spiele*", "platformIdentity": "oel.example.com"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
    for (search, expected) in [
        ("%C3%B6LM%C3%9CHLE", 1),
        ("E*", 1),
        ("e%2A", 1),
        ("%2A%2A", 0),
        ("%25", 0),
        ("_", 0),
    ] {
        let (_, found) = app
            .get(
                &format!("/publisher/v2/placements?search={search}"),
                Some(&t),
            )
            .await;
        assert_eq!(found["count"], expected, "search {search}: {found}");
    }

    app.verify_placement(&t, &admin, id, false).await;
    let (_, verified) = app
        .get("/publisher/v2/placements?status=VERIFIED", Some(&t))
        .await;
    assert_eq!(verified["count"], 1);
    let (s, err) = app
        .get("/publisher/v2/placements?status=LIVE", Some(&t))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(err["error"]["fieldErrors"]["status"].is_string());
}

async fn other_publishers_cannot_see_or_touch(app: TestApp) {
    let (_, owner) = app.signed_in(Role::Publisher).await;
    let (_, other) = app.signed_in(Role::Publisher).await;
    let (_, advertiser) = app.signed_in(Role::Advertiser).await;
    let p = app.website_placement(&owner, "owner.example.com").await;
    let id = p["placementId"].as_str().expect("id");
    let (_, list) = app.get("/publisher/v2/placements", Some(&other)).await;
    assert_eq!(list["count"], 0);
    for (s, body) in [
        app.get(&format!("/publisher/v2/placements/{id}"), Some(&other))
            .await,
        app.patch(
            &format!("/publisher/v2/placements/{id}"),
            Some(&other),
            &json!({"name": "mine now"}),
        )
        .await,
        app.post(
            &format!("/publisher/v2/placements/{id}/request-review"),
            Some(&other),
            &json!({}),
        )
        .await,
        app.delete(&format!("/publisher/v2/placements/{id}"), Some(&other))
            .await,
        app.put(
            &format!("/publisher/v2/placements/{id}/callback"),
            Some(&other),
            &json!({"url": "https://x.example.com/cb"}),
        )
        .await,
        app.post(
            &format!("/publisher/v2/placements/{id}/ad-slots"),
            Some(&other),
            &json!({"name": "s", "type": "OFFERWALL"}),
        )
        .await,
    ] {
        assert_eq!(s, StatusCode::NOT_FOUND, "{body}");
        assert_eq!(error_code(&body), "not_found");
    }
    let (s, body) = app.get("/publisher/v2/placements", Some(&advertiser)).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{body}");
    let (s, _) = app.get("/publisher/v2/placements", None).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
}

async fn patch_keeps_type_and_identity(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let p = app.website_placement(&t, "patch.example.com").await;
    let path = format!(
        "/publisher/v2/placements/{}",
        p["placementId"].as_str().expect("id")
    );
    let (s, updated) = app
        .patch(
            &path,
            Some(&t),
            &json!({"name": "Renamed", "requireConsent": true, "recommendedSdkVersion": "2.2.0"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{updated}");
    assert_eq!(updated["name"], "Renamed");
    assert_eq!(updated["requireConsent"], true);
    assert_eq!(updated["recommendedSdkVersion"], "2.2.0");
    assert_eq!(updated["adSlots"], json!([]));

    for body in [
        json!({"type": "IOS_APP"}),
        json!({"platformIdentity": "other.example.com"}),
    ] {
        let (s, err) = app.patch(&path, Some(&t), &body).await;
        assert_eq!(s, StatusCode::BAD_REQUEST);
        let field = body
            .as_object()
            .and_then(|o| o.keys().next().cloned())
            .unwrap_or_default();
        assert!(
            err["error"]["fieldErrors"][field.as_str()].is_string(),
            "{err}"
        );
    }
    let (_, after) = app.get(&path, Some(&t)).await;
    assert_eq!(after["type"], "WEBSITE");
    assert_eq!(after["platformIdentity"], "patch.example.com");
}

async fn review_lifecycle(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let admin = app.admin_token().await;
    let p = app.website_placement(&t, "review.example.com").await;
    let id = p["placementId"].as_str().expect("id").to_owned();
    let review = format!("/admin/v1/placements/{id}/review");
    let release = format!("/admin/v1/placements/{id}/release");
    let request = format!("/publisher/v2/placements/{id}/request-review");

    // An administrator cannot decide a DRAFT, nor release it.
    assert_eq!(
        app.post(&review, Some(&admin), &json!({"decision": "VERIFIED"}))
            .await
            .0,
        StatusCode::CONFLICT
    );
    assert_eq!(
        app.post(&release, Some(&admin), &json!({})).await.0,
        StatusCode::CONFLICT
    );

    let (s, pending) = app.post(&request, Some(&t), &json!({})).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(pending["status"], "PENDING_REVIEW");
    let (s, err) = app.post(&request, Some(&t), &json!({})).await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert_eq!(error_code(&err), "conflict");

    // Only administrators decide; a rejection needs a note.
    assert_eq!(
        app.post(&review, Some(&t), &json!({"decision": "VERIFIED"}))
            .await
            .0,
        StatusCode::FORBIDDEN
    );
    let (s, err) = app
        .post(&review, Some(&admin), &json!({"decision": "REJECTED"}))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert!(err["error"]["fieldErrors"]["note"].is_string());
    let (s, err) = app
        .post(&review, Some(&admin), &json!({"decision": "MAYBE"}))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST, "{err}");

    let (_, queue) = app.get("/admin/v1/placements", Some(&admin)).await;
    assert_eq!(queue["count"], 1);
    let (s, rejected) = app
        .post(
            &review,
            Some(&admin),
            &json!({"decision": "REJECTED", "note": "Privacy policy link is missing"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(rejected["status"], "REJECTED");
    assert_eq!(rejected["reviewNote"], "Privacy policy link is missing");
    assert_eq!(
        app.post(&release, Some(&admin), &json!({})).await.0,
        StatusCode::CONFLICT,
        "a rejected placement is not released"
    );

    // REJECTED → PENDING_REVIEW → VERIFIED → released.
    assert_eq!(
        app.post(&request, Some(&t), &json!({})).await.0,
        StatusCode::OK
    );
    let (_, verified) = app
        .post(&review, Some(&admin), &json!({"decision": "VERIFIED"}))
        .await;
    assert_eq!(verified["status"], "VERIFIED");
    assert_eq!(verified["released"], false);
    let (s, err) = app.post(&request, Some(&t), &json!({})).await;
    assert_eq!(
        s,
        StatusCode::CONFLICT,
        "request-review from VERIFIED is refused: {err}"
    );
    let (s, released) = app.post(&release, Some(&admin), &json!({})).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(released["released"], true);
    assert_eq!(released["capabilities"]["productionDelivery"], true);

    // Every decision is audited with its actor.
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    let events = entity::audit_event::Entity::find()
        .filter(entity::audit_event::Column::SubjectId.eq(id.clone()))
        .all(&app.state.ctx.db)
        .await
        .expect("audit");
    let actions: Vec<&str> = events.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(
        actions.iter().filter(|a| **a == "placement.review").count(),
        2,
        "{actions:?}"
    );
    assert!(actions.contains(&"placement.release"));
    assert!(
        events
            .iter()
            .filter(|e| e.action == "placement.review")
            .all(|e| e.actor_account_id.is_some())
    );

    // Malformed bodies on the action route are still refused.
    let res = app
        .client
        .post(app.url(&request))
        .bearer_auth(&t)
        .header("content-type", "application/json")
        .body("{oops")
        .send()
        .await
        .expect("sent");
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
}

async fn delete_refuses_obligations(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let admin = app.admin_token().await;

    let draft = app.website_placement(&t, "draft.example.com").await;
    let path = format!(
        "/publisher/v2/placements/{}",
        draft["placementId"].as_str().expect("id")
    );
    let (s, _) = app.delete(&path, Some(&t)).await;
    assert_eq!(s, StatusCode::NO_CONTENT);
    assert_eq!(app.get(&path, Some(&t)).await.0, StatusCode::NOT_FOUND);
    assert_eq!(app.delete(&path, Some(&t)).await.0, StatusCode::NOT_FOUND);
    // History is kept: the row is archived, not erased.
    use sea_orm::EntityTrait;
    let row = entity::placement::Entity::find_by_id(
        draft["placementId"].as_str().expect("id").to_owned(),
    )
    .one(&app.state.ctx.db)
    .await
    .expect("query")
    .expect("row kept");
    assert!(row.archived_at.is_some());

    let with_callback = app.website_placement(&t, "callback.example.com").await;
    let cid = with_callback["placementId"].as_str().expect("id");
    let (s, _) = app
        .put(
            &format!("/publisher/v2/placements/{cid}/callback"),
            Some(&t),
            &json!({"url": "https://hooks.pixelquest.example/reward"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK);
    let (s, err) = app
        .delete(&format!("/publisher/v2/placements/{cid}"), Some(&t))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert!(error_message(&err).contains("callback"), "{err}");

    let released = app.website_placement(&t, "released.example.com").await;
    let rid = released["placementId"].as_str().expect("id");
    app.verify_placement(&t, &admin, rid, true).await;
    let (s, err) = app
        .delete(&format!("/publisher/v2/placements/{rid}"), Some(&t))
        .await;
    assert_eq!(s, StatusCode::CONFLICT);
    assert!(error_message(&err).contains("released"), "{err}");
}

async fn app_key_is_shown_once_and_replaced(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let p = app.website_placement(&t, "surveys.example.com").await;
    let id = p["placementId"].as_str().expect("id");
    let (s, first) = app
        .post(
            &format!("/publisher/v2/placements/{id}/app-key"),
            Some(&t),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(first["placementId"], id);
    let key1 = first["appKey"].as_str().expect("key").to_owned();
    let (s, second) = app
        .post(
            &format!("/publisher/v2/placements/{id}/app-key"),
            Some(&t),
            &json!({}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{second}");
    assert_ne!(second["appKey"].as_str().expect("key"), key1);
    use sea_orm::EntityTrait;
    let rows = entity::app_key::Entity::find()
        .all(&app.state.ctx.db)
        .await
        .expect("rows");
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows.iter().filter(|r| r.revoked_at.is_none()).count(),
        1,
        "the new key replaces the old one"
    );
    assert!(rows.iter().all(|r| r.key_hash != key1));
    let (s, read) = app
        .get(&format!("/publisher/v2/placements/{id}"), Some(&t))
        .await;
    assert_eq!(s, StatusCode::OK, "{read}");
    assert_eq!(read["placementId"], id);
    assert!(!read.to_string().contains(&key1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foundation_switch_off_answers_404() {
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let app = TestApp::spawn_with(backend, &["--feature-foundation", "false"]).await;
        let (_, t) = app.signed_in(Role::Publisher).await;
        let (s, err) = app.get("/publisher/v2/placements", Some(&t)).await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        assert_eq!(error_code(&err), "not_found");
        let (s, _) = app
            .post(
                "/publisher/v2/placements",
                Some(&t),
                &json!({"type": "WEBSITE", "name": "x", "platformIdentity": "a.com"}),
            )
            .await;
        assert_eq!(s, StatusCode::NOT_FOUND);
        // Other surfaces are unaffected.
        assert_eq!(app.get("/auth/v1/me", Some(&t)).await.0, StatusCode::OK);
    }
}
