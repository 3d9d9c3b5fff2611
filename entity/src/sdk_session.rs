//! A user-bound SDK session (fifteen minutes); the token is stored only as its SHA-256.
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "sdk_sessions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub token_hash: String,
    pub placement_id: String,
    pub ad_slot_id: Option<String>,
    pub external_user_id: String,
    pub platform: String,
    pub sdk_version: String,
    pub package_bundle_or_domain: String,
    pub environment: String,
    pub consent: String,
    pub att_status: Option<String>,
    pub issued_at: DateTimeUtc,
    pub expires_at: DateTimeUtc,
    pub revoked_at: Option<DateTimeUtc>,
    pub replaced_by: Option<String>,
    pub refresh_key: Option<String>,
    pub sealed_token: Option<String>,
    pub revoke_key: Option<String>,
    /// The publisher's server signed this user (see `placement_user_identity`).
    pub user_verified: bool,
    /// Until when the signature that verified the user holds (its `userSignatureExpiresAt`);
    /// past it the user counts as unsigned, whatever refreshes happened.
    pub user_verified_until: Option<DateTimeUtc>,
    /// When the secret that signed the user was issued: once that secret is rotated out
    /// (after the overlap), the user counts as unsigned.
    pub user_secret_issued_at: Option<DateTimeUtc>,
    /// The language the app asked for (`lang`, a BCP 47 tag); the hosted wall prefers it.
    pub language: Option<String>,
    /// A stable device id the app reported (`deviceId`), where the platform permits it.
    pub device_id: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
