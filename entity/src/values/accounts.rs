//! Who an account is and where it stands (`accounts.role`, `accounts.status`).

crate::wire_enum!(
    /// Who an account is. ADMIN and SUPERADMIN are created by operators only.
    Role { Publisher = "PUBLISHER", Advertiser = "ADVERTISER", Admin = "ADMIN", Superadmin = "SUPERADMIN" }
);

impl Role {
    pub fn is_admin(self) -> bool {
        matches!(self, Role::Admin | Role::Superadmin)
    }

    /// The dashboard area this role lands in after signing in.
    pub fn home_path(self) -> &'static str {
        match self {
            Role::Publisher => "/publisher",
            Role::Advertiser => "/advertiser",
            Role::Admin | Role::Superadmin => "/admin",
        }
    }
}

crate::wire_enum!(
    /// Lifecycle of an account. Advertisers start PENDING until an administrator approves them.
    AccountStatus { Active = "ACTIVE", Pending = "PENDING", Disabled = "DISABLED" }
);
