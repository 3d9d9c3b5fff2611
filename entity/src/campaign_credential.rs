//! A conversion-reporting credential of an offer campaign: a Custom S2S signing secret
//! (sealed, because signatures must be recomputed) or a measurement-partner, direct or
//! managed token (only its SHA-256 is kept).
use crate::values::{CredentialStatus, TrackingKind};
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "campaign_credentials")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    pub campaign_id: String,
    pub kind: TrackingKind,
    #[sea_orm(unique)]
    pub key_id: String,
    pub secret_sealed: Option<String>,
    pub token_hash: Option<String>,
    pub status: CredentialStatus,
    pub created_at: DateTimeUtc,
    pub retired_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
