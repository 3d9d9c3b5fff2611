//! The authenticated caller (a dashboard account, or an SDK session: [`SdkActor`]), and the
//! authorisation checks every rule starts with.

mod sdk;

pub use sdk::SdkActor;

use crate::error::AppError;
use crate::model::{AccountStatus, Role, TeamRole};

/// An authenticated dashboard account, as resolved from a bearer token or a browser session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    /// The organisation whose data this is (its registering row in `accounts`).
    pub account_id: String,
    /// The person's e-mail (where what concerns them is sent).
    pub email: String,
    /// The organisation's role and status.
    pub role: Role,
    pub status: AccountStatus,
    /// The person signed in: their own row in `accounts` (the organisation's own id for the
    /// person who registered it). Credentials, sessions and the second factor are theirs.
    pub person_id: String,
    /// What the person may do in the organisation.
    pub team_role: TeamRole,
}

impl Principal {
    /// The person who registered the organisation, acting for it (an owner).
    pub fn organisation(
        account_id: String,
        email: String,
        role: Role,
        status: AccountStatus,
    ) -> Self {
        Principal {
            person_id: account_id.clone(),
            account_id,
            email,
            role,
            status,
            team_role: TeamRole::Owner,
        }
    }

    /// Whether the person is a member rather than the one who registered the organisation.
    pub fn is_member(&self) -> bool {
        self.person_id != self.account_id
    }

    /// Records in the audit log that this person (not just the organisation) did `action` to `subject`
    /// (`(type, id)`), inside the caller's transaction so the entry commits with the change.
    pub async fn audit<C: sea_orm::ConnectionTrait>(
        &self,
        db: &C,
        now: chrono::DateTime<chrono::Utc>,
        action: &str,
        subject: (&str, &str),
        detail: serde_json::Value,
    ) -> Result<(), AppError> {
        super::audit::record(db, now, Some(&self.person_id), action, subject, detail).await
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
