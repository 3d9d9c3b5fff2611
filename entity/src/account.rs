//! A dashboard account: publisher, advertiser or administrator.
use crate::values::{AccountStatus, Role, TeamRole};
use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "accounts")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: String,
    /// Lower-cased; unique.
    #[sea_orm(unique)]
    pub email: String,
    /// argon2id PHC string.
    pub password_hash: String,
    /// PUBLISHER, ADVERTISER, ADMIN or SUPERADMIN.
    pub role: Role,
    /// ACTIVE, PENDING or DISABLED.
    pub status: AccountStatus,
    pub company_name: String,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    pub approved_at: Option<DateTimeUtc>,
    pub approved_by: Option<String>,
    /// Browser sessions signed in under an earlier generation are signed out (a password
    /// reset, a password change or "sign out everywhere" moves it on).
    pub session_generation: i32,
    /// The organisation this person is a member of; null for the row that registered, which
    /// is the organisation itself (its role, status and company name count for every member).
    pub organisation_id: Option<String>,
    /// What this person may do in the organisation.
    pub team_role: TeamRole,
    /// When the address was shown to work (a mailed link was used); null until then.
    pub email_verified_at: Option<DateTimeUtc>,
    /// Notices created up to this time count as seen by this person (none: nothing seen).
    pub notices_seen_at: Option<DateTimeUtc>,
    /// An advertiser organisation is told when a campaign's remaining budget falls below this
    /// share of its budget, once per crossing (0: never).
    pub budget_alert_percent: i32,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(has_many = "super::api_token::Entity")]
    ApiToken,
}

impl Related<super::api_token::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::ApiToken.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
