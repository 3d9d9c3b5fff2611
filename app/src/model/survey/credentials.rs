//! Survey campaign API credentials (CONTRACT.md section 4).

use serde::{Deserialize, Serialize};

/// Digest used for the `enc` URL signature (`url_security_encryption_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub enum EncryptionType {
    /// Deprecated: accepted for existing integrations; choose SHA256 or SHA3-256.
    #[serde(rename = "SHA1")]
    Sha1,
    #[serde(rename = "SHA256")]
    Sha256,
    #[serde(rename = "SHA3-256")]
    Sha3_256,
}

impl EncryptionType {
    pub fn as_str(self) -> &'static str {
        match self {
            EncryptionType::Sha1 => "SHA1",
            EncryptionType::Sha256 => "SHA256",
            EncryptionType::Sha3_256 => "SHA3-256",
        }
    }

    /// An unrecognised stored value falls back to SHA3-256, as the specification says.
    pub fn from_setting(s: &str) -> Self {
        match s {
            "SHA1" => EncryptionType::Sha1,
            "SHA256" => EncryptionType::Sha256,
            _ => EncryptionType::Sha3_256,
        }
    }
}

/// `POST /performance-marketing/v2/survey-api/credentials`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SurveyApiCredentialRequest {
    pub encryption_type: EncryptionType,
}

/// The one response that shows the secret.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct SurveyApiCredentialIssued {
    pub api_key: String,
    pub secret: String,
    pub encryption_type: EncryptionType,
}
