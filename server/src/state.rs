//! State shared by every handler.

use std::sync::Arc;

use app::domain::Ctx;
use axum::extract::FromRef;
use leptos::config::LeptosOptions;

use crate::config::Settings;

/// The state handle every layer and extractor receives. Axum clones it several times per
/// request (each stateful middleware and extractor), so it is one `Arc`: cloning the parts
/// one by one (the domain context's handles, the Leptos options' strings) cost more CPU
/// than the whole health check did (measured with perf, 2026-11-25).
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

/// What [`AppState`] shares; reached through `Deref` (`state.ctx`, `state.settings`).
pub struct Shared {
    pub ctx: Ctx,
    pub settings: Arc<Settings>,
    pub leptos_options: LeptosOptions,
    /// The browser bundle's content hash (`pkg/bundle.version`, written by
    /// scripts/build-frontend.sh): pages load the bundle from `/pkg/<version>/…`, which is
    /// cached for a year, since a new bundle gets a new path.
    pub bundle_version: Option<String>,
    /// The HTTP client of the reward-callback worker.
    pub callbacks: Arc<crate::callback_sender::Sender>,
    /// Where the mail worker sends the outbox's letters.
    pub mailer: Arc<crate::mail::Mailer>,
    /// Set once start-up has built what the hot paths read (`startup::warm_up`); until
    /// then `/readyz` answers 503, so a load balancer sends no user to a cold process.
    pub warm: std::sync::atomic::AtomicBool,
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl AppState {
    /// `bundle_version` is the browser bundle's content hash, if the site has one
    /// (`web::bundle_version`).
    pub fn new(
        ctx: Ctx,
        settings: Settings,
        callbacks: Arc<crate::callback_sender::Sender>,
        mailer: Arc<crate::mail::Mailer>,
        bundle_version: Option<String>,
    ) -> Self {
        let pkg_dir = match &bundle_version {
            Some(v) => format!("pkg/{v}"),
            None => "pkg".to_owned(),
        };
        let leptos_options = LeptosOptions::builder()
            .output_name("frontend")
            .site_root(settings.site_root.to_string_lossy().to_string())
            .site_pkg_dir(pkg_dir)
            .site_addr(settings.bind)
            .build();
        Self(Arc::new(Shared {
            ctx,
            settings: Arc::new(settings),
            leptos_options,
            bundle_version,
            callbacks,
            mailer,
            warm: std::sync::atomic::AtomicBool::new(false),
        }))
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}
