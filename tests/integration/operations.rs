//! Blacklists, user bans and support cases in the publisher console; migrations and indexes
//! on a shared database.

use app::model::Role;
use reqwest::StatusCode;
use serde_json::json;
use tests::{TestApp, both_backends, each_backend, error_code};

both_backends!(
    blacklist_entries,
    user_bans_lifecycle,
    support_cases_are_handled_by_the_owner
);

async fn blacklist_entries(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let (_, other) = app.signed_in(Role::Publisher).await;
    let p = app.website_placement(&t, "bl.example.com").await;
    let pid = p["placementId"].as_str().expect("id");
    let (s, all) = app.post("/publisher/v2/blacklists", Some(&t), &json!({"kind": "DOMAIN", "value": "https://Casino.Example.net/x", "reason": "brand safety"})).await;
    assert_eq!(s, StatusCode::CREATED, "{all}");
    assert_eq!(all["value"], "casino.example.net");
    assert!(all["placementId"].is_null());
    let (s, one) = app
        .post(
            "/publisher/v2/blacklists",
            Some(&t),
            &json!({"kind": "category", "value": "x"}),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::BAD_REQUEST,
        "unknown kind casing is refused: {one}"
    );
    let (s, one) = app
        .post(
            "/publisher/v2/blacklists",
            Some(&t),
            &json!({"kind": "CATEGORY", "value": "gambling", "placementId": pid}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED);
    assert_eq!(one["value"], "GAMBLING");
    let (s, err) = app
        .post(
            "/publisher/v2/blacklists",
            Some(&t),
            &json!({"kind": "DOMAIN", "value": "casino.example.net"}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT, "{err}");
    let (s, err) = app
        .post(
            "/publisher/v2/blacklists",
            Some(&other),
            &json!({"kind": "CAMPAIGN", "value": "cmp_1", "placementId": pid}),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::BAD_REQUEST,
        "another publisher's placement is not accepted: {err}"
    );

    let (_, list) = app
        .get(
            &format!("/publisher/v2/blacklists?placementId={pid}"),
            Some(&t),
        )
        .await;
    assert_eq!(list["count"], 2);
    let (_, theirs) = app.get("/publisher/v2/blacklists", Some(&other)).await;
    assert_eq!(theirs["count"], 0);

    // The exclusion rule used by delivery.
    let candidate = app::domain::publisher::blacklists::Candidate {
        campaign_id: "cmp_9",
        advertiser_id: "acc_9",
        category: "GAMES",
        task_type: "INSTALL",
        destination_host: "play.casino.example.net",
    };
    use sea_orm::EntityTrait;
    let row = entity::placement::Entity::find_by_id(pid.to_owned())
        .one(&app.state.ctx.db)
        .await
        .expect("q")
        .expect("row");
    use app::domain::publisher::blacklists::{Candidate, excludes, rules_for};
    let rules = rules_for(&app.state.ctx.db, &row.owner_account_id, pid)
        .await
        .expect("rules");
    assert!(excludes(&rules, &candidate));
    let clean = Candidate {
        destination_host: "games.example.com",
        ..candidate
    };
    assert!(!excludes(&rules, &clean));

    let id = all["blacklistId"].as_str().expect("id");
    assert_eq!(
        app.delete(&format!("/publisher/v2/blacklists/{id}"), Some(&other))
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        app.delete(&format!("/publisher/v2/blacklists/{id}"), Some(&t))
            .await
            .0,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        app.get("/publisher/v2/blacklists", Some(&t)).await.1["count"],
        1
    );
}

async fn user_bans_lifecycle(app: TestApp) {
    let (user, t) = app.signed_in(Role::Publisher).await;
    let p = app.website_placement(&t, "bans.example.com").await;
    let pid = p["placementId"].as_str().expect("id");
    for (body, field) in [
        (
            json!({"placementId": pid, "externalUserId": "", "reason": "fraud ring"}),
            "externalUserId",
        ),
        (
            json!({"placementId": pid, "externalUserId": "u1", "reason": "x"}),
            "reason",
        ),
        (
            json!({"placementId": pid, "externalUserId": "u1", "reason": "fraud ring", "expiresAt": "2020-01-01T00:00:00Z"}),
            "expiresAt",
        ),
        (
            json!({"placementId": "plc_nope", "externalUserId": "u1", "reason": "fraud ring"}),
            "placementId",
        ),
    ] {
        let (s, err) = app.post("/publisher/v2/user-bans", Some(&t), &body).await;
        assert_eq!(s, StatusCode::BAD_REQUEST, "{body}");
        assert!(err["error"]["fieldErrors"][field].is_string(), "{err}");
    }
    let expires = (tests::start_time() + chrono::Duration::days(7)).to_rfc3339();
    let (s, ban) = app.post("/publisher/v2/user-bans", Some(&t), &json!({"placementId": pid, "externalUserId": "user-42", "reason": "chargeback abuse", "expiresAt": expires})).await;
    assert_eq!(s, StatusCode::CREATED, "{ban}");
    assert_eq!(ban["status"], "ACTIVE");
    assert_eq!(ban["effective"], true);
    let (s, _) = app
        .post(
            "/publisher/v2/user-bans",
            Some(&t),
            &json!({"placementId": pid, "externalUserId": "user-42", "reason": "again"}),
        )
        .await;
    assert_eq!(s, StatusCode::CONFLICT);

    let now = app.state.ctx.now();
    assert!(
        app::domain::publisher::bans::active_ban(&app.state.ctx.db, pid, "user-42", now)
            .await
            .expect("q")
            .is_some()
    );
    // Expiry ends the ban without anyone touching it.
    app.clock.advance(chrono::Duration::days(8));
    let t = app.token(&user).await;
    let (_, active) = app
        .get("/publisher/v2/user-bans?status=ACTIVE", Some(&t))
        .await;
    assert_eq!(active["count"], 0);
    let later = app.state.ctx.now();
    assert!(
        app::domain::publisher::bans::active_ban(&app.state.ctx.db, pid, "user-42", later)
            .await
            .expect("q")
            .is_none()
    );

    let id = ban["banId"].as_str().expect("id");
    let (s, renewed) = app
        .patch(
            &format!("/publisher/v2/user-bans/{id}"),
            Some(&t),
            &json!({"expiresAt": null}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{renewed}");
    assert_eq!(renewed["effective"], true);
    let (_, lifted) = app
        .patch(
            &format!("/publisher/v2/user-bans/{id}"),
            Some(&t),
            &json!({"status": "LIFTED"}),
        )
        .await;
    assert_eq!(lifted["status"], "LIFTED");
    assert_eq!(lifted["effective"], false);
    let (_, all) = app
        .get(
            &format!("/publisher/v2/user-bans?placementId={pid}&externalUserId=user-42"),
            Some(&t),
        )
        .await;
    assert_eq!(all["count"], 1, "lifting keeps the record");
    let (s, err) = app
        .get("/publisher/v2/user-bans?status=MAYBE", Some(&t))
        .await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    assert_eq!(error_code(&err), "invalid_input");
}

async fn support_cases_are_handled_by_the_owner(app: TestApp) {
    let (_, t) = app.signed_in(Role::Publisher).await;
    let (_, other) = app.signed_in(Role::Publisher).await;
    let p = app.website_placement(&t, "support.example.com").await;
    let pid = p["placementId"].as_str().expect("id").to_owned();
    use sea_orm::{ActiveModelTrait, Set};
    let now = app.state.ctx.now();
    entity::support_case::ActiveModel {
        id: Set("sup_1".into()),
        placement_id: Set(pid.clone()),
        ad_slot_id: Set(None),
        session_id: Set("ses_1".into()),
        external_user_id: Set("user-7".into()),
        offer_id: Set(Some("cmp_1".into())),
        reason_code: Set("MISSING_REWARD".into()),
        message: Set("I finished level 10 yesterday and got nothing.".into()),
        status: Set(entity::values::SupportStatus::Open),
        publisher_note: Set(None),
        idempotency_key: Set(None),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&app.state.ctx.db)
    .await
    .expect("seed case");

    let (_, list) = app.get("/publisher/v2/support-cases", Some(&t)).await;
    assert_eq!(list["count"], 1);
    assert_eq!(list["items"][0]["supportCaseId"], "sup_1");
    assert_eq!(list["items"][0]["reasonCode"], "MISSING_REWARD");
    assert_eq!(
        app.get("/publisher/v2/support-cases", Some(&other)).await.1["count"],
        0
    );
    assert_eq!(
        app.patch(
            "/publisher/v2/support-cases/sup_1",
            Some(&other),
            &json!({"status": "RESOLVED"})
        )
        .await
        .0,
        StatusCode::NOT_FOUND
    );

    let (s, c) = app
        .patch(
            "/publisher/v2/support-cases/sup_1",
            Some(&t),
            &json!({"status": "IN_PROGRESS", "publisherNote": "Checking with the advertiser"}),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{c}");
    assert_eq!(c["status"], "IN_PROGRESS");
    let (_, c) = app
        .patch(
            "/publisher/v2/support-cases/sup_1",
            Some(&t),
            &json!({"status": "RESOLVED"}),
        )
        .await;
    assert_eq!(c["status"], "RESOLVED");
    assert_eq!(c["publisherNote"], "Checking with the advertiser");
    let (s, _) = app
        .patch(
            "/publisher/v2/support-cases/sup_1",
            Some(&t),
            &json!({"status": "OPEN"}),
        )
        .await;
    assert_eq!(
        s,
        StatusCode::CONFLICT,
        "a resolved case reopens only to IN_PROGRESS"
    );
    let (_, open) = app
        .get("/publisher/v2/support-cases?status=OPEN", Some(&t))
        .await;
    assert_eq!(open["count"], 0);
}

/// Two processes that start together on a new PostgreSQL database apply the migrations once:
/// the advisory lock makes the second wait, then find nothing left to do (issue 29).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn processes_starting_together_migrate_once() {
    use sea_orm::{ConnectionTrait, Database};
    use sea_orm_migration::MigratorTrait;
    tests::bounded(async {
        let name = format!("mig_{}", uuid::Uuid::new_v4().simple());
        let admin = Database::connect(tests::postgres_admin_url())
            .await
            .expect("PostgreSQL");
        admin
            .execute_unprepared(&format!("CREATE DATABASE \"{name}\""))
            .await
            .expect("create");
        let base = tests::postgres_admin_url();
        let url = format!(
            "{}/{name}",
            base.rsplit_once('/').map_or(base.as_str(), |(s, _)| s)
        );
        let run = || {
            tokio::process::Command::new(tests::process::server_binary())
                .arg("migrate")
                .env("APP_DATABASE_URL", &url)
                .env("APP_DATA_DIR", std::env::temp_dir())
                .output()
        };
        let (a, b) = tokio::join!(run(), run());
        for out in [a.expect("first"), b.expect("second")] {
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let db = Database::connect(&url).await.expect("connect");
        let applied = db
            .query_one_raw(sea_orm::Statement::from_string(
                db.get_database_backend(),
                "SELECT COUNT(*) AS n FROM seaql_migrations",
            ))
            .await
            .expect("count")
            .and_then(|r| r.try_get::<i64>("", "n").ok());
        assert_eq!(
            applied,
            i64::try_from(migration::Migrator::migrations().len()).ok()
        );
        let _ = db.close().await;
        let _ = admin
            .execute_unprepared(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
            .await;
    })
    .await
}

each_backend!(large_table_indexes_build_without_a_lock);

/// `migration::create_indexes_concurrently` builds an index (on PostgreSQL with
/// `CONCURRENTLY`, outside a transaction), is idempotent, and replaces an index a failed
/// concurrent build left invalid.
async fn large_table_indexes_build_without_a_lock(backend: tests::Backend) {
    use sea_orm::ConnectionTrait;
    use sea_orm_migration::SchemaManager;
    let app = TestApp::spawn(backend).await;
    let db = &app.state.ctx.db;
    db.execute_unprepared(
        "CREATE TABLE big_rows (id INTEGER PRIMARY KEY, owner VARCHAR(40), at BIGINT)",
    )
    .await
    .expect("table");
    db.execute_unprepared(
        "INSERT INTO big_rows (id, owner, at) VALUES (1, 'a', 10), (2, 'b', 20), (3, 'a', 30)",
    )
    .await
    .expect("rows");
    let list: &[migration::PlainIndex] = &[("idx_big_rows_owner_at", "big_rows", &["owner", "at"])];
    let m = SchemaManager::new(db);
    migration::create_indexes_concurrently(&m, list)
        .await
        .expect("first build");
    migration::create_indexes_concurrently(&m, list)
        .await
        .expect("second build is a no-op");
    assert!(
        m.has_index("big_rows", "idx_big_rows_owner_at")
            .await
            .expect("has_index"),
        "the index exists"
    );
    if backend == tests::Backend::Postgres {
        // What a concurrent build interrupted half way leaves behind: an invalid index.
        db.execute_unprepared(
            "UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'idx_big_rows_owner_at'::regclass",
        )
        .await
        .expect("mark invalid");
        migration::create_indexes_concurrently(&m, list)
            .await
            .expect("rebuild");
        let valid = db
            .query_one_raw(sea_orm::Statement::from_string(
                db.get_database_backend(),
                "SELECT i.indisvalid AS ok FROM pg_index i WHERE i.indexrelid = 'idx_big_rows_owner_at'::regclass",
            ))
            .await
            .expect("query")
            .and_then(|r| r.try_get::<bool>("", "ok").ok());
        assert_eq!(valid, Some(true), "the invalid index was rebuilt");
    }
}
