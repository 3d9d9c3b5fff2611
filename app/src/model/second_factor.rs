//! The second factor's wire types (`/auth/v1/second-factor`, issue 54, part 4).

use serde::{Deserialize, Serialize};

/// A secret being enrolled: shown until a code from it is confirmed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SecondFactorEnrolment {
    /// Base32, for typing into an authenticator app.
    pub secret: String,
    /// `otpauth://totp/…` (SHA-1, six digits, 30 seconds), what the QR code holds.
    pub uri: String,
    /// The QR code of `uri`, an SVG document.
    pub qr_svg: String,
}

/// Where the account's second factor stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SecondFactorState {
    pub enabled: bool,
    /// An enrolment started and not yet confirmed.
    pub pending: Option<SecondFactorEnrolment>,
    pub recovery_codes_left: u64,
}

/// A code of the authenticator app (six digits) or a recovery code.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SecondFactorCode {
    pub code: String,
}

/// `POST /auth/v1/second-factor/disable`: the password and a code.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SecondFactorDisable {
    pub current_password: String,
    pub code: String,
}

/// Ten single-use recovery codes, shown only in this answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct RecoveryCodes {
    pub recovery_codes: Vec<String>,
}

/// `POST /auth/v1/second-factor/enrolment`: the account's current password.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SecondFactorStart {
    pub current_password: String,
}
