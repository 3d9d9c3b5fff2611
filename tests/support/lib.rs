//! Test harness: [`TestApp::spawn`] starts the real application on a free port with a
//! fresh database (a SQLite file in a temp folder, or a new PostgreSQL database that is
//! dropped afterwards) and a [`TestClock`], and offers request helpers.

pub mod builders;
mod databases;
pub mod logs;
pub mod paypal;
mod pg_template;
pub mod process;
pub mod proxy;
pub mod receiver;
pub mod smtp;
mod teams;

pub use databases::{EmptyDatabase, empty_database};
pub use pg_template::url_of as postgres_url_of;

use std::sync::Arc;

use app::domain::TestClock;
use app::model::Role;
use chrono::{DateTime, Utc};
use reqwest::StatusCode;
use sea_orm::{ConnectionTrait, Database};
use serde_json::{Value, json};
use server::{AppState, Application, Settings};

/// Which database a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Maintenance URL of the PostgreSQL server the tests create their databases on.
pub fn postgres_admin_url() -> String {
    std::env::var("TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned())
}

/// A fixed, realistic start time for the test clock.
pub fn start_time() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2026-03-02T09:00:00Z")
        .map(|t| t.to_utc())
        .unwrap_or_default()
}

/// A running application and a client for it.
pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    pub state: AppState,
    pub clock: Arc<TestClock>,
    pub backend: Backend,
    /// The database URL (a second process can open the same database).
    pub database_url: String,
    _pg: Option<databases::PgDatabase>,
    _dir: tempfile::TempDir,
}

/// A created account with its password.
pub struct TestUser {
    pub account_id: String,
    pub email: String,
    pub password: String,
}

impl TestApp {
    pub async fn spawn(backend: Backend) -> TestApp {
        Self::spawn_with(backend, &[]).await
    }

    /// Starts the application with extra command-line flags (`--feature-delivery false`, …).
    pub async fn spawn_with(backend: Backend, extra: &[&str]) -> TestApp {
        let dir = tempfile::tempdir().expect("temp dir");
        let (url, pg) = match backend {
            Backend::Sqlite => (
                format!("sqlite://{}?mode=rwc", dir.path().join("app.db").display()),
                None,
            ),
            Backend::Postgres => {
                let name = format!("t_{}", uuid::Uuid::new_v4().simple());
                let template = pg_template::migrated().await;
                let admin = Database::connect(postgres_admin_url())
                    .await
                    .expect("PostgreSQL must be running for the PostgreSQL leg (see README)");
                admin
                    .execute_unprepared(&format!(
                        "CREATE DATABASE \"{name}\" TEMPLATE \"{template}\""
                    ))
                    .await
                    .expect("create test database");
                let _ = admin.close().await;
                (
                    pg_template::url_of(&name),
                    Some(databases::PgDatabase { name }),
                )
            }
        };
        let data_dir = dir.path().join("data");
        let site_root = std::env::var("APP_SITE_ROOT")
            .unwrap_or_else(|_| dir.path().join("site").display().to_string());
        let database_url = url.clone();
        let mut flags: Vec<String> = vec![
            "--database-url".into(),
            url,
            "--bind".into(),
            "127.0.0.1:0".into(),
            "--secret-key".into(),
            "5e".repeat(32),
            "--data-dir".into(),
            data_dir.display().to_string(),
            "--site-root".into(),
            site_root,
        ];
        if !extra.contains(&"--run-workers") {
            // Tests drain the workers with `run_workers_once`, so nothing races them.
            flags.extend(["--run-workers".to_owned(), "false".to_owned()]);
        }
        flags.extend(extra.iter().map(|s| (*s).to_owned()));
        let settings = Settings::from_flags(flags).expect("test settings");
        let clock = Arc::new(TestClock::new(start_time()));
        let app = Application::build(settings, clock.clone())
            .await
            .expect("application builds");
        let base = format!("http://127.0.0.1:{}", app.port());
        let state = app.state().clone();
        tokio::spawn(app.run_until_stopped());
        // Ready once start-up has built the inventory (`/readyz`), as a load balancer waits.
        let probe = reqwest::Client::new();
        for _ in 0..200 {
            let ready = probe.get(format!("{base}/readyz")).send().await;
            if ready.is_ok_and(|r| r.status().is_success()) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .cookie_store(true)
            // A request that never finishes fails at its own call site (with the request in
            // the panic) long before the test's 120-second limit hides which one it was.
            .timeout(std::time::Duration::from_secs(30))
            .build()
            .expect("http client");
        TestApp {
            base,
            client,
            state,
            clock,
            backend,
            database_url,
            _pg: pg,
            _dir: dir,
        }
    }

    /// The application's current (test) time.
    pub fn clock_now(&self) -> DateTime<Utc> {
        use app::domain::Clock;
        self.clock.now()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Sends a request with an optional bearer and JSON body; returns status and JSON body
    /// (`Value::Null` when the body is empty or not JSON).
    pub async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        bearer: Option<&str>,
        body: Option<&Value>,
    ) -> (StatusCode, Value) {
        let mut req = self.client.request(method, self.url(path));
        if let Some(t) = bearer {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.json(b);
        }
        let res = req.send().await.expect("request sent");
        let status = res.status();
        let text = res.text().await.unwrap_or_default();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    pub async fn get(&self, path: &str, bearer: Option<&str>) -> (StatusCode, Value) {
        self.send(reqwest::Method::GET, path, bearer, None).await
    }

    pub async fn post(
        &self,
        path: &str,
        bearer: Option<&str>,
        body: &Value,
    ) -> (StatusCode, Value) {
        self.send(reqwest::Method::POST, path, bearer, Some(body))
            .await
    }

    /// Creates an ACTIVE account through the domain (like `server user create`).
    pub async fn create_user(&self, role: Role) -> TestUser {
        let email = format!(
            "{}-{}@example.com",
            role.as_str().to_ascii_lowercase(),
            uuid::Uuid::new_v4().simple()
        );
        let password = "correct horse battery".to_owned();
        let a = app::domain::accounts::create_active(
            &self.state.ctx,
            &email,
            &password,
            role,
            "Test Co",
        )
        .await
        .expect("create user");
        TestUser {
            account_id: a.account_id,
            email,
            password,
        }
    }

    /// A dashboard bearer token for the user.
    pub async fn token(&self, user: &TestUser) -> String {
        let (status, body) = self
            .post(
                "/auth/v1/tokens",
                None,
                &json!({"email": user.email, "password": user.password}),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "sign-in failed: {body}");
        body["token"].as_str().expect("token").to_owned()
    }

    /// Creates a user of `role` and returns it with a bearer token.
    pub async fn signed_in(&self, role: Role) -> (TestUser, String) {
        let u = self.create_user(role).await;
        let t = self.token(&u).await;
        (u, t)
    }

    pub async fn run_workers_once(&self) {
        server::workers::run_once(&self.state)
            .await
            .expect("workers run");
    }
}

/// Asserts the CONTRACT.md error body and returns its code.
pub fn error_code(body: &Value) -> &str {
    let code = body["error"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("not an error body: {body}"));
    assert!(
        body["error"]["message"].is_string(),
        "error body without message: {body}"
    );
    code
}

/// The CONTRACT.md error body's message (empty when there is none).
pub fn error_message(body: &Value) -> &str {
    body["error"]["message"].as_str().unwrap_or_default()
}

/// Runs a test body with a time limit, so a hang fails the test instead of stalling CI.
pub async fn bounded<F: std::future::Future<Output = ()>>(body: F) {
    if tokio::time::timeout(std::time::Duration::from_secs(120), body)
        .await
        .is_err()
    {
        panic!("test did not finish within 120 s");
    }
}

/// Generates `name::sqlite` and `name::postgres` tests from `async fn name(app: TestApp)`.
#[macro_export]
macro_rules! both_backends {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                $crate::bounded(super::$name($crate::TestApp::spawn($crate::Backend::Sqlite).await)).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                $crate::bounded(super::$name($crate::TestApp::spawn($crate::Backend::Postgres).await)).await
            }
        }
    )*};
}

/// Generates `name::sqlite` and `name::postgres` tests from `async fn name(backend: Backend)`
/// (for tests that start the application themselves, with flags of their own).
#[macro_export]
macro_rules! each_backend {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                $crate::bounded(super::$name($crate::Backend::Sqlite)).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                $crate::bounded(super::$name($crate::Backend::Postgres)).await
            }
        }
    )*};
}

impl TestApp {
    /// A signed-in administrator's bearer token (with a second factor turned on when the
    /// service requires one of administrators, as in production).
    pub async fn admin_token(&self) -> String {
        let token = self.signed_in(Role::Admin).await.1;
        if self.state.ctx.config.admins_need_second_factor {
            self.enrol_second_factor(&token).await;
        }
        token
    }

    /// Creates a WEBSITE placement for the publisher and returns its JSON.
    pub async fn website_placement(&self, publisher: &str, identity: &str) -> Value {
        let (s, p) = self
            .post("/publisher/v2/placements", Some(publisher), &json!({"type": "WEBSITE", "name": "Pixel Quest web", "platformIdentity": identity}))
            .await;
        assert_eq!(s, StatusCode::CREATED, "{p}");
        p
    }

    /// Walks a placement through review to VERIFIED (and release when asked).
    pub async fn verify_placement(
        &self,
        publisher: &str,
        admin: &str,
        placement_id: &str,
        release: bool,
    ) {
        let (s, b) = self
            .post(
                &format!("/publisher/v2/placements/{placement_id}/request-review"),
                Some(publisher),
                &json!({}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        let (s, b) = self
            .post(
                &format!("/admin/v1/placements/{placement_id}/review"),
                Some(admin),
                &json!({"decision": "VERIFIED", "note": "ok"}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        if release {
            let (s, b) = self
                .post(
                    &format!("/admin/v1/placements/{placement_id}/release"),
                    Some(admin),
                    &json!({}),
                )
                .await;
            assert_eq!(s, StatusCode::OK, "{b}");
        }
    }

    pub async fn patch(
        &self,
        path: &str,
        bearer: Option<&str>,
        body: &Value,
    ) -> (StatusCode, Value) {
        self.send(reqwest::Method::PATCH, path, bearer, Some(body))
            .await
    }

    pub async fn put(&self, path: &str, bearer: Option<&str>, body: &Value) -> (StatusCode, Value) {
        self.send(reqwest::Method::PUT, path, bearer, Some(body))
            .await
    }

    pub async fn delete(&self, path: &str, bearer: Option<&str>) -> (StatusCode, Value) {
        self.send(reqwest::Method::DELETE, path, bearer, None).await
    }

    /// `POST /admin/v1/survey-campaigns/{id}/approve` as `bearer`.
    pub async fn approve_survey(
        &self,
        bearer: &str,
        id: &str,
        body: &Value,
    ) -> (StatusCode, Value) {
        let path = format!("/admin/v1/survey-campaigns/{id}/approve");
        self.post(&path, Some(bearer), body).await
    }

    /// `POST /admin/v1/advertisers/{account_id}/approve` as `bearer`.
    pub async fn approve_advertiser(&self, bearer: &str, account_id: &str) -> (StatusCode, Value) {
        let path = format!("/admin/v1/advertisers/{account_id}/approve");
        self.post(&path, Some(bearer), &json!({})).await
    }
}

impl TestApp {
    /// An approved advertiser with a complete billing profile and `micros` credited to its
    /// wallet by an administrator-approved wire.
    pub async fn funded_advertiser(&self, micros: i64) -> (TestUser, String) {
        let (user, t) = self.signed_in(Role::Advertiser).await;
        let (s, p) = self
            .put("/performance-marketing/v2/billing/profile", Some(&t), &json!({"accountType": "BUSINESS", "legalName": "Northwind Apps GmbH", "country": "DE"}))
            .await;
        assert_eq!(s, StatusCode::OK, "{p}");
        if micros > 0 {
            let reference = format!("WIRE-{}", uuid::Uuid::new_v4().simple());
            let (s, f) = self
                .post(
                    "/performance-marketing/v2/billing/funding/wire",
                    Some(&t),
                    &json!({"amount": micros, "currency": "USD", "externalReference": reference}),
                )
                .await;
            assert_eq!(s, StatusCode::CREATED, "{f}");
            let admin = self.admin_token().await;
            let id = f["fundingId"].as_str().expect("funding id");
            let (s, f) = self
                .post(
                    &format!("/admin/v1/funding/{id}/approve"),
                    Some(&admin),
                    &json!({}),
                )
                .await;
            assert_eq!(s, StatusCode::OK, "{f}");
        }
        (user, t)
    }

    /// Signs `user` in on the dashboard with `client` (a cookie-keeping client, such as
    /// `self.client`) as a browser does: the sign-in form's CSRF token, then the form post.
    /// Returns the CSRF token of the signed-in session (for the dashboard's forms).
    pub async fn browser_sign_in(&self, client: &reqwest::Client, user: &TestUser) -> String {
        let page = |path: &str| {
            let (client, url) = (client.clone(), self.url(path));
            async move {
                let res = client.get(url).send().await.expect("page");
                res.text().await.unwrap_or_default()
            }
        };
        let token = csrf_of(&page("/sign-in").await);
        let res = client
            .post(self.url("/fn/sign_in"))
            .header("accept", "text/html")
            .header("referer", self.url("/sign-in"))
            .form(&[
                ("email", user.email.as_str()),
                ("password", user.password.as_str()),
                ("csrf", token.as_str()),
            ])
            .send()
            .await
            .expect("sign in");
        let status = res.status();
        if !status.is_redirection() {
            let body = res.text().await.unwrap_or_default();
            panic!("sign-in answered {status}: {body:.2000}");
        }
        csrf_of(&page("/").await)
    }

    /// The advertiser's balance as (available, reserved, spent) micros.
    pub async fn balance(&self, bearer: &str) -> (i64, i64, i64) {
        let (s, b) = self
            .get("/performance-marketing/v2/billing/balance", Some(bearer))
            .await;
        assert_eq!(s, StatusCode::OK, "{b}");
        let m = |k: &str| b[k].as_i64().unwrap_or_else(|| panic!("{k} in {b}"));
        (m("availableMicros"), m("reservedMicros"), m("spentMicros"))
    }
}

/// A browser of a test's own: keeps its cookies and does not follow redirects (a test reads
/// where the dashboard sends it). Sign it in with [`TestApp::browser_sign_in`].
pub fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

/// The CSRF token of a rendered dashboard page.
pub fn csrf_of(html: &str) -> String {
    let marker = "name=\"csrf\" value=\"";
    html.split(marker)
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("csrf field in page")
        .to_owned()
}

/// The six-digit TOTP code of a base32 `secret` at `at` (what an authenticator app shows).
pub fn totp_code(secret: &str, at: DateTime<Utc>) -> String {
    let secret = totp_rs::Secret::try_from_base32(secret).expect("base32 secret");
    let t = totp_rs::Builder::new()
        .with_secret(secret)
        .build()
        .expect("totp");
    t.generate(u64::try_from(at.timestamp()).expect("after 1970"))
        .to_string()
}

impl TestApp {
    /// Turns on a second factor for the account of `token`: returns its secret and recovery
    /// codes. The clock moves on one step, so the confirming code is not the next one.
    pub async fn enrol_second_factor(&self, token: &str) -> (String, Vec<String>) {
        // Every account of the tests has this password (`create_user`).
        let (s, e) = self
            .post(
                "/auth/v1/second-factor/enrolment",
                Some(token),
                &json!({"currentPassword": "correct horse battery"}),
            )
            .await;
        assert_eq!(s, StatusCode::CREATED, "{e}");
        let secret = e["secret"].as_str().expect("secret").to_owned();
        let code = totp_code(&secret, self.clock_now());
        let (s, c) = self
            .post(
                "/auth/v1/second-factor/confirm",
                Some(token),
                &json!({"code": code}),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{c}");
        let codes = c["recoveryCodes"]
            .as_array()
            .expect("codes")
            .iter()
            .map(|v| v.as_str().expect("code").to_owned())
            .collect();
        self.clock.advance(chrono::Duration::seconds(30));
        (secret, codes)
    }
}

/// A route template of the OpenAPI document with each `{param}` an id that exists nowhere
/// (`zz_missing`), for tests that call every operation.
pub fn path_with_missing_ids(template: &str) -> String {
    template
        .split('/')
        .map(|seg| {
            if seg.starts_with('{') {
                "zz_missing"
            } else {
                seg
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}
