//! The `/account` page's second factor: its state, starting and confirming an enrolment
//! (recovery codes shown once, in a flash for a plain form post), turning it off, new
//! recovery codes. Open to an administrator who still has to turn it on (`web::own_*`).
//! The rules are in `domain::accounts::second_factor`.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::model::OneTimeSecret;
use crate::model::second_factor::SecondFactorState;

/// What the second-factor card shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FactorSummary {
    pub state: SecondFactorState,
    /// Whether this service requires a second factor of this account (an administrator).
    pub required: bool,
    /// Recovery codes just made by a plain form post, to copy now.
    pub codes: Option<OneTimeSecret>,
}

#[cfg(feature = "ssr")]
const CODES_SCOPE: &str = "recovery-codes";

#[server(prefix = "/fn", endpoint = "second_factor_summary")]
pub async fn second_factor_summary() -> Result<FactorSummary, AppError> {
    super::web::run(async move {
        use crate::domain::accounts::second_factor;
        let (ctx, p) = super::web::own_reader().await?;
        let session = super::web::session().await?;
        let state = second_factor::state(&ctx, &p).await?;
        let codes = super::flash::take_secret(&ctx, &session, CODES_SCOPE).await?;
        Ok(FactorSummary {
            state,
            required: second_factor::required_of(&ctx, &p),
            codes,
        })
    })
    .await
}

#[server(prefix = "/fn", endpoint = "start_second_factor")]
pub async fn start_second_factor(current_password: String, csrf: String) -> Result<(), AppError> {
    super::web::run(async move {
        let (ctx, _, p) = super::web::own_writer(&csrf).await?;
        crate::domain::accounts::second_factor::begin(&ctx, &p, &current_password).await?;
        Ok(())
    })
    .await
}

/// Leaves the recovery codes for a plain form post and answers them to a script caller.
#[cfg(feature = "ssr")]
async fn shown(
    ctx: &crate::domain::Ctx,
    session: &tower_sessions::Session,
    codes: Vec<String>,
) -> Result<OneTimeSecret, AppError> {
    let label = "Recovery codes".to_owned();
    let value = codes.join("\n");
    super::flash::put_secret(ctx, session, CODES_SCOPE, &label, &value).await?;
    Ok(OneTimeSecret { label, value })
}

#[server(prefix = "/fn", endpoint = "confirm_second_factor")]
pub async fn confirm_second_factor(code: String, csrf: String) -> Result<OneTimeSecret, AppError> {
    super::web::run(async move {
        let (ctx, session, p) = super::web::own_writer(&csrf).await?;
        let codes = crate::domain::accounts::second_factor::confirm(&ctx, &p, &code).await?;
        shown(&ctx, &session, codes).await
    })
    .await
}

#[server(prefix = "/fn", endpoint = "disable_second_factor")]
pub async fn disable_second_factor(
    current_password: String,
    code: String,
    csrf: String,
) -> Result<(), AppError> {
    super::web::run(async move {
        let (ctx, _, p) = super::web::own_writer(&csrf).await?;
        crate::domain::accounts::second_factor::disable(&ctx, &p, &current_password, &code).await
    })
    .await
}

#[server(prefix = "/fn", endpoint = "renew_recovery_codes")]
pub async fn renew_recovery_codes(code: String, csrf: String) -> Result<OneTimeSecret, AppError> {
    super::web::run(async move {
        let (ctx, session, p) = super::web::own_writer(&csrf).await?;
        let codes =
            crate::domain::accounts::second_factor::renew_recovery_codes(&ctx, &p, &code).await?;
        shown(&ctx, &session, codes).await
    })
    .await
}
