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
    /// What a person may do in their organisation (`accounts.team_role`, issue 54, part 3).
    /// Everyone reads everything; writes go by area (`docs/accounts.md`, "Team roles").
    TeamRole {
        /// Everything, the team included; an organisation keeps at least one.
        Owner = "OWNER",
        /// Everything but making or unmaking an owner.
        Admin = "ADMIN",
        /// Money: billing, funding, invoices, earnings, payouts and the payout profile.
        Finance = "FINANCE",
        /// Integration: placements and their keys, callbacks, tracking, conversions, API keys.
        Developer = "DEVELOPER",
        /// Reads only.
        Viewer = "VIEWER"
    }
);

impl TeamRole {
    /// Whether this role manages the team (invites, changes roles, removes members).
    pub fn manages_team(self) -> bool {
        matches!(self, TeamRole::Owner | TeamRole::Admin)
    }
}

crate::wire_enum!(
    /// What a mailed e-mail link confirms (`email_links.purpose`).
    EmailLinkPurpose {
        /// That the account's address works.
        Verify = "VERIFY",
        /// A change of the sign-in e-mail to the link's address.
        Change = "CHANGE"
    }
);

crate::wire_enum!(
    /// Lifecycle of an account. Advertisers start PENDING until an administrator approves them.
    AccountStatus { Active = "ACTIVE", Pending = "PENDING", Disabled = "DISABLED" }
);

crate::wire_enum!(
    /// Where a mail of the outbox stands (`mail_outbox.status`): PENDING until the mail
    /// server took it (SENT), FAILED when it refused it for good or the attempts ran out.
    MailStatus { Pending = "PENDING", Sent = "SENT", Failed = "FAILED" }
);

crate::wire_enum!(
    /// What a mail tells its reader (`mail_outbox.topic`).
    MailTopic {
        /// An administrator approved the advertiser's account.
        AdvertiserApproved = "advertiser.approved",
        /// A funding reached the advertiser's wallet (a wire credited, a card order captured).
        FundingCredited = "funding.credited",
        /// The payment provider declined a funding order.
        FundingDeclined = "funding.declined",
        /// A link to choose a new password (asked for on the sign-in page).
        PasswordReset = "account.password_reset",
        /// The account's password was changed (told so that an owner who did not do it acts).
        PasswordChanged = "account.password_changed",
        /// An API key was created (told so that an owner who did not do it revokes it).
        ApiKeyCreated = "account.api_key_created",
        /// A second factor was turned on or off.
        SecondFactorChanged = "account.second_factor_changed",
        /// An invitation to join an organisation's team (sent to the invited address).
        TeamInvitation = "account.team_invitation",
        /// A member's team role changed, or the member left or was removed.
        TeamChanged = "account.team_changed",
        /// A link to confirm that the address works (sent at registration, or asked again).
        EmailVerification = "account.email_verification",
        /// A link to the new address, to confirm a change of the sign-in e-mail.
        EmailChangeRequested = "account.email_change_requested",
        /// To the old address: the sign-in e-mail was changed (or a change was asked).
        EmailChanged = "account.email_changed",
        /// A notice of the dashboard, sent by e-mail to the members who chose it.
        Notice = "account.notice"
    }
);

crate::wire_enum!(
    /// What an organisation is told about (`notices.topic`; also the `type` of an account
    /// webhook's event). `docs/notifications.md` lists who is told what by default.
    NoticeTopic {
        /// An administrator approved the advertiser's account.
        AdvertiserApproved = "advertiser.approved",
        /// A funding reached the wallet (a wire credited, a card order captured).
        FundingCredited = "funding.credited",
        /// A funding was refused (declined by the payment provider or by an administrator).
        FundingRefused = "funding.refused",
        /// Money of a credited funding went back to the payer (a refund or a chargeback).
        FundingReturned = "funding.returned",
        /// An administrator approved a campaign (it is live or scheduled).
        CampaignApproved = "campaign.approved",
        /// An administrator rejected a campaign.
        CampaignRejected = "campaign.rejected",
        /// A live campaign's remaining budget fell below the advertiser's alert share.
        CampaignBudgetLow = "campaign.budget_low",
        /// A live campaign's budget ran out: its offers are no longer shown.
        CampaignBudgetExhausted = "campaign.budget_exhausted",
        /// Conversions were held for review (at most one notice an hour).
        ConversionsHeld = "conversions.held",
        /// A callback receiver has failed every attempt for an hour.
        ReceiverFailing = "callbacks.receiver_failing",
        /// A callback receiver failed for a day and delivery to it is paused.
        ReceiverPaused = "callbacks.receiver_paused",
        /// An administrator verified a placement.
        PlacementVerified = "placement.verified",
        /// An administrator rejected a placement.
        PlacementRejected = "placement.rejected",
        /// An administrator released a placement to production.
        PlacementReleased = "placement.released",
        /// A payout was paid.
        PayoutPaid = "payout.paid",
        /// A payout failed (its amount is back in the balance).
        PayoutFailed = "payout.failed"
    }
);

impl NoticeTopic {
    /// Whether advertisers are told about it (their account webhooks fail and pause too).
    pub fn for_advertisers(self) -> bool {
        use NoticeTopic::*;
        matches!(
            self,
            AdvertiserApproved
                | FundingCredited
                | FundingRefused
                | FundingReturned
                | CampaignApproved
                | CampaignRejected
                | CampaignBudgetLow
                | CampaignBudgetExhausted
                | ConversionsHeld
                | ReceiverFailing
                | ReceiverPaused
        )
    }

    /// Whether publishers are told about it.
    pub fn for_publishers(self) -> bool {
        use NoticeTopic::*;
        matches!(
            self,
            ReceiverFailing
                | ReceiverPaused
                | PlacementVerified
                | PlacementRejected
                | PlacementReleased
                | PayoutPaid
                | PayoutFailed
        )
    }

    /// Whether a member with `role` gets this topic by e-mail when they chose nothing:
    /// owners and admins everything; finance money; developers the integration; viewers
    /// nothing (everyone sees every topic on the dashboard).
    pub fn mailed_by_default(self, role: TeamRole) -> bool {
        use NoticeTopic::*;
        match role {
            TeamRole::Owner | TeamRole::Admin => true,
            TeamRole::Finance => matches!(
                self,
                AdvertiserApproved
                    | FundingCredited
                    | FundingRefused
                    | FundingReturned
                    | CampaignBudgetLow
                    | CampaignBudgetExhausted
                    | PayoutPaid
                    | PayoutFailed
            ),
            TeamRole::Developer => matches!(
                self,
                ReceiverFailing
                    | ReceiverPaused
                    | PlacementVerified
                    | PlacementRejected
                    | PlacementReleased
                    | ConversionsHeld
            ),
            TeamRole::Viewer => false,
        }
    }
}
