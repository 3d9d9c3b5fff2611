//! An advertiser's survey campaign API key. The key is stored hashed (it is looked up);
//! the signing secret is stored encrypted because the server must recompute `enc` digests.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "survey_api_credentials")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub account_id: String,
    #[sea_orm(unique)]
    pub api_key_hash: String,
    /// First characters of the key, for recognising it in the dashboard.
    pub api_key_prefix: String,
    /// Nonce-prefixed ChaCha20-Poly1305 ciphertext of the secret, base64.
    pub secret_ciphertext: String,
    /// SHA1, SHA256 or SHA3-256 (`url_security_encryption_type`).
    pub encryption_type: String,
    pub created_at: DateTimeUtc,
    pub revoked_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
