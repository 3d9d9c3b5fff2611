//! The authenticated caller (a dashboard account, or an SDK session: [`SdkActor`]), and the
//! authorisation checks every rule starts with.

mod sdk;

pub use sdk::SdkActor;

use crate::error::AppError;
use crate::model::{AccountStatus, Role};

/// An authenticated dashboard account, as resolved from a bearer token or a browser session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    pub account_id: String,
    pub email: String,
    pub role: Role,
    pub status: AccountStatus,
}

impl Principal {
    /// Records in the audit log that this account did `action` to `subject`
    /// (`(type, id)`), inside the caller's transaction so the entry commits with the change.
    pub async fn audit<C: sea_orm::ConnectionTrait>(
        &self,
        db: &C,
        now: chrono::DateTime<chrono::Utc>,
        action: &str,
        subject: (&str, &str),
        detail: serde_json::Value,
    ) -> Result<(), AppError> {
        super::audit::record(db, now, Some(&self.account_id), action, subject, detail).await
    }

    /// ADMIN or SUPERADMIN.
    pub fn require_admin(&self) -> Result<(), AppError> {
        if self.role.is_admin() {
            Ok(())
        } else {
            Err(AppError::forbidden("administrator role required"))
        }
    }

    /// A publisher account (administrators may act on a publisher's behalf).
    pub fn require_publisher(&self) -> Result<(), AppError> {
        match self.role {
            Role::Publisher | Role::Admin | Role::Superadmin => Ok(()),
            Role::Advertiser => Err(AppError::forbidden("publisher account required")),
        }
    }

    /// An approved advertiser (administrators excepted). A PENDING advertiser can sign in and
    /// see its status, but nothing that spends, signs or funds is open to it yet.
    pub fn require_approved_advertiser(&self) -> Result<(), AppError> {
        match (self.role, self.status) {
            (Role::Admin | Role::Superadmin, _) => Ok(()),
            (Role::Advertiser, AccountStatus::Active) => Ok(()),
            (Role::Advertiser, AccountStatus::Pending) => Err(AppError::forbidden(
                "the advertiser account is awaiting administrator approval",
            )
            .with_code("account_pending")),
            (Role::Advertiser, _) => Err(AppError::forbidden("the advertiser account is disabled")),
            _ => Err(AppError::forbidden("advertiser account required")),
        }
    }

    /// Owner-or-admin check for a resource owned by `owner_account_id`. A foreign resource
    /// is reported as missing so that its existence does not leak.
    pub fn require_owner(&self, owner_account_id: &str, what: &str) -> Result<(), AppError> {
        if self.role.is_admin() || self.account_id == owner_account_id {
            Ok(())
        } else {
            Err(AppError::not_found(what))
        }
    }
}
