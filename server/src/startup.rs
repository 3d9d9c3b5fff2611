//! Building and running the application. The binary and the tests both call
//! [`Application::build`], so tests start exactly what production runs.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use app::domain::changes::transport::Timing;
use app::domain::{Clock, Ctx, DomainConfig, Environment, Keys, RateLimits};
use migration::{Migrator, MigratorTrait};
use sea_orm::{ConnectOptions, Database, DatabaseConnection};
use tokio::net::TcpListener;

use crate::config::Settings;
use crate::state::AppState;

/// Pool sizes when `APP_DB_MAX_CONNECTIONS` is unset (docs/operations.md, "Memory").
const SQLITE_CONNECTIONS: u32 = 8;
const POSTGRES_CONNECTIONS: u32 = 20;

/// Connects to the configured database. SQLite gets WAL, foreign keys and a busy timeout;
/// its folder is created when missing.
pub async fn connect(settings: &Settings) -> anyhow::Result<DatabaseConnection> {
    let url = &settings.database_url;
    if let Some(path) = sqlite_file(url) {
        if let Some(dir) = Path::new(&path)
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
        {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("creating database folder {}", dir.display()))?;
        }
    }
    let mut opts = ConnectOptions::new(url.clone());
    // Short waits: a database that refuses, stalls or has no free connection answers 503
    // within about two seconds (docs/operations.md, "When the database is down"). The pool
    // pings an idle connection before lending it, so a connection whose packets stall is
    // found by the same acquire timeout.
    let wait = Duration::from_millis(settings.db_acquire_timeout_ms.clamp(100, 60_000));
    opts.sqlx_logging(false)
        .connect_timeout(wait)
        .acquire_timeout(wait)
        .test_before_acquire(true);
    if url.starts_with("sqlite:") {
        opts.max_connections(settings.db_max_connections.unwrap_or(SQLITE_CONNECTIONS))
            .map_sqlx_sqlite_opts(move |o| {
                o.journal_mode(sea_orm::sqlx::sqlite::SqliteJournalMode::Wal)
                    .synchronous(sea_orm::sqlx::sqlite::SqliteSynchronous::Normal)
                    .foreign_keys(true)
                    .busy_timeout(wait)
                    // 1 MiB of page cache per connection instead of SQLite's 2 MiB: the delivery
                    // hot paths read memory, not the database, and the file stays in the OS page
                    // cache; eight connections otherwise hold 16 MiB (docs/operations.md, "Memory").
                    .pragma("cache_size", "-1024")
            });
    } else {
        opts.max_connections(settings.db_max_connections.unwrap_or(POSTGRES_CONNECTIONS))
            // No JIT: every statement here is short, and PostgreSQL compiled the callback
            // claim (a plan whose cost estimate grows with the outbox) for hundreds of
            // milliseconds per run once 100,000 callbacks waited (BENCHMARKS.md).
            .map_sqlx_postgres_opts(|o| o.options([("jit", "off")]));
    }
    Database::connect(opts)
        .await
        .with_context(|| format!("connecting to the database ({})", redact(url)))
}

/// Key of the advisory lock that migrations hold on PostgreSQL ("mktmigr" in ASCII).
const MIGRATION_LOCK: i64 = 0x006d_6b74_6d69_6772;
/// How long a process waits for another one's migrations.
const MIGRATION_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(600);

/// Applies pending migrations. On PostgreSQL they run under an advisory lock held by one
/// connection for the whole run, so processes that start together apply them once: the
/// others wait, then find nothing left to apply. (SQLite serialises writers by itself.)
pub async fn migrate(db: &DatabaseConnection) -> anyhow::Result<()> {
    if db.get_database_backend() != sea_orm::DatabaseBackend::Postgres {
        return Migrator::up(db, None).await.context("applying migrations");
    }
    use sea_orm::sqlx::{Connection as _, Executor as _};
    // A connection of its own, outside the pool: the migrations need the pool's (a pool of
    // one must not wait for the lock holder).
    let options = db.get_postgres_connection_pool().connect_options();
    let mut held = sea_orm::sqlx::postgres::PgConnection::connect_with(&options)
        .await
        .context("a connection for the migration lock")?;
    // Polled, not waited on: a process blocked in `pg_advisory_lock` runs a statement, and
    // `CREATE INDEX CONCURRENTLY` in the holder's migrations waits for every running
    // statement to finish, so the two would wait for each other for ever. Bounded: a process
    // whose peer holds the lock longer (a stuck migration) fails with a clear error.
    let deadline = std::time::Instant::now() + MIGRATION_LOCK_WAIT;
    loop {
        let got: bool = sea_orm::sqlx::query_scalar("SELECT pg_try_advisory_lock($1)")
            .bind(MIGRATION_LOCK)
            .fetch_one(&mut held)
            .await
            .context("taking the migration lock")?;
        if got {
            break;
        }
        anyhow::ensure!(
            std::time::Instant::now() < deadline,
            "another process has held the migration lock for {} minutes",
            MIGRATION_LOCK_WAIT.as_secs() / 60
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let applied = Migrator::up(db, None).await.context("applying migrations");
    // Released also when the connection closes (a process that dies mid-migration).
    let released = held
        .execute(sea_orm::sqlx::query("SELECT pg_advisory_unlock($1)").bind(MIGRATION_LOCK))
        .await;
    let _ = held.close().await;
    applied?;
    released.context("releasing the migration lock")?;
    Ok(())
}

/// The file behind a `sqlite://` URL, if it is one (not `:memory:`).
fn sqlite_file(url: &str) -> Option<String> {
    let rest = url
        .strip_prefix("sqlite://")
        .or_else(|| url.strip_prefix("sqlite:"))?;
    let path = rest.split('?').next().unwrap_or_default();
    (!path.is_empty() && path != ":memory:").then(|| path.to_owned())
}

/// A database URL without its password, for messages.
fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.to_string()
        }
        _ => url.to_owned(),
    }
}

/// The master key: from settings; in development generated once and kept in the data folder.
fn master_key(settings: &Settings) -> anyhow::Result<[u8; 32]> {
    if let Some(k) = &settings.secret_key {
        return Keys::parse_master(k).map_err(|e| anyhow::anyhow!("APP_SECRET_KEY {e}"));
    }
    if settings.environment == Environment::Production {
        anyhow::bail!("APP_SECRET_KEY is required in production (64 hexadecimal characters)");
    }
    let path = settings.data_dir.join("secret.key");
    if let Ok(existing) = std::fs::read_to_string(&path) {
        return Keys::parse_master(&existing)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()));
    }
    std::fs::create_dir_all(&settings.data_dir)
        .with_context(|| format!("creating data folder {}", settings.data_dir.display()))?;
    let key = app::domain::crypto::random_bytes::<32>();
    write_private(&path, &hex::encode(key))?;
    tracing::info!(path = %path.display(), "generated a development secret key");
    Ok(key)
}

#[cfg(unix)]
fn write_private(path: &Path, contents: &str) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("writing {}", path.display()))?;
    f.write_all(contents.as_bytes())?;
    Ok(())
}

#[cfg(not(unix))]
fn write_private(path: &Path, contents: &str) -> anyhow::Result<()> {
    std::fs::write(path, contents).with_context(|| format!("writing {}", path.display()))
}

/// Connects, migrates and assembles the domain context (used by the CLI commands too).
pub async fn domain_context(settings: &Settings, clock: Arc<dyn Clock>) -> anyhow::Result<Ctx> {
    if settings.environment == Environment::Production {
        let problems = settings.production_problems();
        anyhow::ensure!(
            problems.is_empty(),
            "refusing to start in production:\n- {}",
            problems.join("\n- ")
        );
    }
    let db = connect(settings).await?;
    migrate(&db).await?;
    let previous = settings
        .secret_key_previous
        .iter()
        .filter(|k| !k.trim().is_empty())
        .map(|k| Keys::parse_master(k).map_err(|e| anyhow::anyhow!("APP_SECRET_KEY_PREVIOUS {e}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let keys = Keys::with_previous(&master_key(settings)?, &previous);
    // The development provider approves payments on a page of this service: never in
    // production, where provider funding is refused until a real provider is configured,
    // and not on a development server reachable from other machines unless asked for.
    let dev_payments = settings.environment == Environment::Development
        && (settings.bind.ip().is_loopback() || settings.allow_remote_development);
    let paypal = settings.paypal()?;
    if settings.environment == Environment::Development && !dev_payments && paypal.is_none() {
        tracing::warn!(
            bind = %settings.bind,
            "development server on a non-loopback address: the simulated payment provider is off \
             (pass --allow-remote-development to turn it on)"
        );
    }
    let payments: Arc<dyn app::domain::billing::payprovider::PaymentProvider> =
        if let Some(pp) = paypal {
            tracing::info!(api = %pp.api_url, "provider funding goes through PayPal");
            Arc::new(crate::paypal::PayPal::new(&pp, clock.clone())?)
        } else if dev_payments {
            Arc::new(app::domain::billing::payprovider::DevProvider::new(
                db.clone(),
                clock.clone(),
            ))
        } else {
            Arc::new(app::domain::billing::payprovider::NoProvider)
        };
    let limits = Arc::new(RateLimits::new(clock.clone()));
    let extra_ranges = (settings.fraud_datacenter_file.as_ref())
        .map(|path| {
            std::fs::read_to_string(path)
                .with_context(|| format!("reading APP_FRAUD_DATACENTER_FILE {}", path.display()))
        })
        .transpose()?;
    let fraud = app::domain::fraud::Fraud::new(
        extra_ranges.as_deref(),
        app::domain::fraud::guard::PauseLimits {
            share_bps: i64::from(settings.fraud_pause_share_percent) * 100,
            min_conversions: i64::from(settings.fraud_pause_min_conversions),
            window_days: 7,
        },
    );
    tracing::debug!(
        ranges = fraud.datacenters.len(),
        "hosting address ranges loaded"
    );
    Ok(Ctx {
        db,
        clock,
        payments,
        keys: Arc::new(keys),
        config: Arc::new(DomainConfig {
            environment: settings.environment,
            base_url: settings.base_url.clone(),
            dashboard_token_ttl: chrono::Duration::hours(12),
            callback_allow_private: settings.callback_allow_private
                && settings.environment != Environment::Production,
            mmp_manual_enabled: settings.feature_mmp_manual,
            survey_blocked_ranges: settings.survey_blocked_ranges.clone(),
            reconciliation_window: chrono::Duration::days(i64::from(
                settings.reconciliation_window_days,
            )),
            // Command-line tools send nothing; `Application::build` names the transport.
            mail: app::domain::mail::MailSetup::default(),
            admins_need_second_factor: settings
                .admin_second_factor
                .unwrap_or(settings.environment == Environment::Production),
            payout_second_approval_micros: settings.payout_second_approval_micros,
        }),
        limits,
        inventory: Arc::default(),
        delivery_configs: Arc::default(),
        hot: Arc::default(),
        inbox: Arc::new(app::domain::conversions::inbox::Inbox::new(usize::from(
            settings.settlement_inline_slots,
        ))),
        // Command-line tools send nothing; `Application::build` puts the real client here.
        transport: Arc::new(app::domain::callback_delivery::transport::NoTransport),
        deliveries: Arc::default(),
        surveys: Arc::default(),
        changes: Arc::new(app::domain::changes::Changes::with_timing(Timing::new(
            settings.announce_coalesce_ms.into(),
            settings.listen_probe_seconds.into(),
        ))),
        fraud: Arc::new(fraud),
    })
}

/// A built, bound application that has not started serving yet.
pub struct Application {
    listener: TcpListener,
    router: axum::Router,
    state: AppState,
}

impl Application {
    /// Connects, migrates, binds the listen address and assembles the router.
    pub async fn build(settings: Settings, clock: Arc<dyn Clock>) -> anyhow::Result<Self> {
        crate::metrics::handle();
        let mut ctx = domain_context(&settings, clock).await?;
        let listener = TcpListener::bind(settings.bind)
            .await
            .with_context(|| format!("binding {}", settings.bind))?;
        let callbacks = Arc::new(crate::callback_sender::Sender::from_settings(&settings)?);
        ctx.transport = callbacks.clone();
        let mailer = Arc::new(crate::mail::Mailer::new(
            settings.mail_url.as_ref(),
            &settings.mail_from,
            &settings.data_dir,
        )?);
        let mut config = (*ctx.config).clone();
        config.mail = mailer.setup();
        ctx.config = Arc::new(config);
        let bundle_version = crate::web::bundle_version(&settings.site_root);
        let state = AppState::new(ctx, settings, callbacks, mailer, bundle_version);
        let router = crate::routes::router(state.clone());
        Ok(Self {
            listener,
            router,
            state,
        })
    }

    /// The bound port (useful with `--bind 127.0.0.1:0`).
    pub fn port(&self) -> u16 {
        self.listener.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    /// The shared state (tests use its domain context).
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Serves until SIGTERM or Ctrl-C, finishing in-flight requests, with workers alongside.
    pub async fn run_until_stopped(self) -> anyhow::Result<()> {
        // Every process hears every other's changes, workers or not (domain::changes).
        let announcements =
            tokio::spawn(app::domain::changes::transport::run(self.state.ctx.clone()));
        // Rebuilds of the inventory run beside the requests, never in front of them.
        let rebuilds = tokio::spawn(
            self.state
                .ctx
                .inventory
                .clone()
                .drive(self.state.ctx.db.clone(), self.state.ctx.clock.clone()),
        );
        // The live surveys likewise, and the survey fetch's batch writer.
        let survey_rebuilds = tokio::spawn(
            self.state
                .ctx
                .surveys
                .live
                .clone()
                .drive(self.state.ctx.db.clone(), self.state.ctx.clock.clone()),
        );
        let fetch_writes = self.state.ctx.surveys.writes.clone();
        let fetch_writer = tokio::spawn({
            let db = self.state.ctx.db.clone();
            async move { fetch_writes.drive(db).await }
        });
        tokio::spawn(warm_up(self.state.clone()));
        let mut workers = if self.state.settings.run_workers {
            crate::workers::spawn(self.state.clone())
        } else {
            Vec::new()
        };
        // Latency samples wait in memory until folded into their histogram buckets; without
        // a scrape they would pile up (8 bytes a request), so fold them every few seconds.
        workers.push(tokio::spawn(async {
            let mut tick = tokio::time::interval(std::time::Duration::from_secs(5));
            loop {
                tick.tick().await;
                crate::metrics::handle().run_upkeep();
            }
        }));
        let limits = crate::serve::Limits {
            header_read_timeout: std::time::Duration::from_secs(
                self.state.settings.header_timeout_seconds.max(1),
            ),
            idle_timeout: std::time::Duration::from_secs(
                self.state.settings.idle_timeout_seconds.max(1),
            ),
            max_connections: self.state.settings.max_connections,
            shutdown_grace: std::time::Duration::from_secs(
                self.state.settings.shutdown_grace_seconds,
            ),
        };
        crate::serve::serve(self.listener, self.router, limits, shutdown_signal()).await;
        for w in workers {
            w.abort();
        }
        // Survey fetches answered before the stop are committed before the process ends.
        self.state.ctx.surveys.writes.flush().await;
        fetch_writer.abort();
        // Changes announced by the last requests and workers reach the other processes
        // before this one goes (issue 52); the publisher's own timeout bounds the wait.
        if !self
            .state
            .ctx
            .changes
            .flush(std::time::Duration::from_secs(6))
            .await
        {
            tracing::warn!("some cache changes were not announced before stopping");
        }
        announcements.abort();
        rebuilds.abort();
        survey_rebuilds.abort();
        tracing::info!("stopped");
        Ok(())
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

/// Builds the offer inventory before `/readyz` says ready, so the first users of a new or
/// restarted process do not wait for it (or stall behind it). Retried every second while
/// the database cannot be read; how long it took is logged and kept as the gauge
/// `startup_warm_up_seconds`.
pub async fn warm_up(state: AppState) {
    let started = std::time::Instant::now();
    // Build only once other processes' changes are heard, so none committed in between is
    // missed (bounded: without a subscription the caches' time limits still hold).
    for _ in 0..500 {
        if state.ctx.changes.is_listening() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    loop {
        match app::domain::campaigns::snapshot::snapshot(&state.ctx).await {
            Ok(snap) => {
                let inventory_ms = started.elapsed().as_millis();
                metrics::gauge!("startup_inventory_seconds").set(started.elapsed().as_secs_f64());
                // The live surveys too (best effort: a failure leaves the first fetch to build).
                let surveys = match state
                    .ctx
                    .surveys
                    .live
                    .current(&state.ctx.db, state.ctx.now())
                    .await
                {
                    Ok(s) => s.len(),
                    Err(e) => {
                        tracing::warn!(error = %e.message, "building the live surveys failed");
                        0
                    }
                };
                let configs = std::time::Instant::now();
                // Placements' delivery configuration too (the most recently released 500),
                // and the default static feed of their STATIC_API slots: best effort, a
                // failure only leaves them to be built on first use.
                let placements = match state
                    .ctx
                    .delivery_configs
                    .warm(&state.ctx.db, state.ctx.now(), 500)
                    .await
                {
                    Ok(ids) => ids,
                    Err(e) => {
                        tracing::warn!(error = %e.message, "loading delivery configuration failed");
                        Vec::new()
                    }
                };
                metrics::gauge!("startup_delivery_config_seconds")
                    .set(configs.elapsed().as_secs_f64());
                let feeds = std::time::Instant::now();
                let built = app::domain::delivery::static_feed::prebuild(&state.ctx, &placements)
                    .await
                    .unwrap_or_else(|e| {
                        tracing::warn!(error = %e.message, "building static feeds failed");
                        Vec::new()
                    });
                metrics::gauge!("startup_static_feeds_seconds").set(feeds.elapsed().as_secs_f64());
                tracing::info!(
                    placements = placements.len(),
                    static_feeds = built.len(),
                    config_ms = u64::try_from(feeds.duration_since(configs).as_millis())
                        .unwrap_or(u64::MAX),
                    feeds_ms = u64::try_from(feeds.elapsed().as_millis()).unwrap_or(u64::MAX),
                    "delivery configuration and static feeds built"
                );
                tokio::spawn(app::domain::delivery::static_feed::keep_warm(
                    state.ctx.clone(),
                    built,
                ));
                let seconds = started.elapsed().as_secs_f64();
                metrics::gauge!("startup_warm_up_seconds").set(seconds);
                tracing::info!(
                    offers = snap.len(),
                    surveys,
                    inventory_ms = u64::try_from(inventory_ms).unwrap_or(u64::MAX),
                    ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                    "inventory built; ready"
                );
                state.warm.store(true, std::sync::atomic::Ordering::Release);
                return;
            }
            Err(e) => {
                tracing::warn!(error = %e.message, "warm-up failed; retrying");
                tokio::time::sleep(std::time::Duration::from_secs(1)).await;
            }
        }
    }
}
