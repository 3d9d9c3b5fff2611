//! State shared by every handler.

use std::sync::Arc;

use app::domain::Ctx;
use axum::extract::FromRef;
use leptos::config::LeptosOptions;

use crate::config::Settings;

#[derive(Clone)]
pub struct AppState {
    pub ctx: Ctx,
    pub settings: Arc<Settings>,
    pub leptos_options: LeptosOptions,
    /// The HTTP client of the reward-callback worker.
    pub callbacks: Arc<crate::workers::callbacks::Sender>,
}

impl AppState {
    pub fn new(ctx: Ctx, settings: Settings, callbacks: crate::workers::callbacks::Sender) -> Self {
        let leptos_options = LeptosOptions::builder()
            .output_name("frontend")
            .site_root(settings.site_root.to_string_lossy().to_string())
            .site_pkg_dir("pkg")
            .site_addr(settings.bind)
            .build();
        Self {
            ctx,
            settings: Arc::new(settings),
            leptos_options,
            callbacks: Arc::new(callbacks),
        }
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos_options.clone()
    }
}
