//! Health, readiness, the OpenAPI document, request ids and workers.

use reqwest::StatusCode;
use tests::{TestApp, both_backends};

both_backends!(
    health_and_readiness,
    openapi_lists_every_route,
    responses_carry_a_request_id,
    sweep_deletes_expired_sessions
);

async fn health_and_readiness(app: TestApp) {
    let (s, body) = app.get("/healthz", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(body["status"], "ok");
    let (s, body) = app.get("/readyz", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(body["database"], "ok");
}

async fn openapi_lists_every_route(app: TestApp) {
    let (s, doc) = app.get("/openapi.json", None).await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        doc["openapi"]
            .as_str()
            .is_some_and(|v| v.starts_with("3.1")),
        "{}",
        doc["openapi"]
    );
    let paths = doc["paths"].as_object().expect("paths");
    for p in [
        "/healthz",
        "/readyz",
        "/auth/v1/accounts",
        "/auth/v1/tokens",
        "/auth/v1/tokens/current",
        "/auth/v1/me",
        "/admin/v1/advertisers/{accountId}/approve",
        "/performance-marketing/v2/survey-api/credentials",
    ] {
        assert!(paths.contains_key(p), "{p} missing from /openapi.json");
    }
    assert!(doc["components"]["securitySchemes"]["dashboardBearer"].is_object());
    let page = app.client.get(app.url("/docs")).send().await.expect("docs");
    assert_eq!(page.status(), StatusCode::OK);
    let html = page.text().await.unwrap_or_default();
    assert!(
        html.contains("/auth/v1/tokens") && html.contains("/openapi.json"),
        "reference lists the routes"
    );
    assert!(
        !html.contains("<script"),
        "the reference page needs no external script"
    );
}

async fn responses_carry_a_request_id(app: TestApp) {
    let res = app
        .client
        .get(app.url("/healthz"))
        .send()
        .await
        .expect("sent");
    assert!(
        res.headers()
            .get("x-request-id")
            .is_some_and(|v| !v.is_empty())
    );
    let res = app
        .client
        .get(app.url("/healthz"))
        .header("x-request-id", "abc-123")
        .send()
        .await
        .expect("sent");
    assert_eq!(res.headers()["x-request-id"], "abc-123");
}

async fn sweep_deletes_expired_sessions(app: TestApp) {
    use sea_orm::{ActiveModelTrait, EntityTrait, PaginatorTrait, Set};
    entity::web_session::ActiveModel {
        id: Set("old".into()),
        data: Set("{}".into()),
        expires_at: Set(tests::start_time() - chrono::Duration::days(1)),
        account_id: Set(None),
    }
    .insert(&app.state.ctx.db)
    .await
    .expect("insert");
    app.run_workers_once().await;
    assert_eq!(
        entity::web_session::Entity::find()
            .count(&app.state.ctx.db)
            .await
            .expect("count"),
        0
    );
}
