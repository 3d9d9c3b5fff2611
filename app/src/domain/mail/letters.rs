//! What each letter says. Plain text (every mail client shows it, nothing to escape), the
//! facts the reader needs to act and a link to the page where they act; never a secret.

use super::outbox::Letter;
use crate::model::mail::MailTopic;

/// To the owner of an account who asked for a new password: a link that works once, for
/// `minutes`.
pub fn password_reset(base_url: &str, token: &str, minutes: i64) -> Letter {
    Letter {
        topic: MailTopic::PasswordReset,
        subject: "Choose a new password".to_owned(),
        body: format!(
            "Someone (we hope you) asked to choose a new password for your account. The link \
             works once, for {minutes} minutes:\n\n{base_url}/reset-password?token={token}\n\n\
             If you did not ask, ignore this letter: your password stays as it is.\n"
        ),
    }
}

/// To an account whose password was changed.
pub fn password_changed(base_url: &str) -> Letter {
    Letter {
        topic: MailTopic::PasswordChanged,
        subject: "Your password was changed".to_owned(),
        body: format!(
            "The password of your account was changed, and every browser and token signed in \
             before was signed out. If you did not do this, choose a new password at once and \
             tell us:\n\n{base_url}/forgot-password\n"
        ),
    }
}

/// To the owner of an account for which an API key was created: its name and prefix (never
/// the key), and where to revoke it.
pub fn api_key_created(base_url: &str, name: &str, prefix: &str) -> Letter {
    Letter {
        topic: MailTopic::ApiKeyCreated,
        subject: "A new API key was created for your account".to_owned(),
        body: format!(
            "An API key named \"{name}\" ({prefix}…) was created for your account. If this \
             was not you or a colleague, revoke it and change your password:\n\n\
             {base_url}/account#api-keys\n"
        ),
    }
}

/// To the owner of an account whose second factor was turned on or off.
pub fn second_factor_changed(base_url: &str, on: bool) -> Letter {
    let (subject, body) = if on {
        (
            "A second factor now protects your account",
            "A second factor was turned on for your account: signing in, changing payout \
             details, requesting payouts and creating API keys now ask for a code from your \
             authenticator app. Keep your recovery codes somewhere safe.",
        )
    } else {
        (
            "The second factor of your account was turned off",
            "The second factor of your account was turned off: signing in needs only the \
             password again. If this was not you, change your password and turn it back on.",
        )
    };
    Letter {
        topic: MailTopic::SecondFactorChanged,
        subject: subject.to_owned(),
        body: format!("{body}\n\n{base_url}/account#second-factor\n"),
    }
}

/// To an address invited to a team: who invited, to which organisation, with which role, and
/// the link that works once.
pub fn team_invitation(
    base_url: &str,
    token: &str,
    company: &str,
    inviter: &str,
    role: crate::model::TeamRole,
    days: i64,
) -> Letter {
    Letter {
        topic: MailTopic::TeamInvitation,
        subject: format!("{company} invites you to its team"),
        body: format!(
            "{inviter} invites you to join {company} on the marketplace, with the role {role}. \
             Choose your password to accept; the link works once, for {days} days:\n\n\
             {base_url}/invitation?token={token}\n\n\
             If you do not know {inviter}, ignore this letter.\n",
            role = role.as_str()
        ),
    }
}

/// To a member whose role changed (`Some`), or who left or was removed (`None`).
pub fn team_changed(base_url: &str, role: Option<crate::model::TeamRole>) -> Letter {
    let (subject, body) = match role {
        Some(r) => (
            format!("Your team role is now {}", r.as_str()),
            format!(
                "Your role in your organisation's team is now {}. What you may change follows \
                 it from your next page:\n\n{base_url}/account\n",
                r.as_str()
            ),
        ),
        None => (
            "You are no longer a member of your team".to_owned(),
            "You left your organisation's team or were removed from it: you cannot sign in to \
             it any more, and your sessions, tokens and API keys stopped working.\n"
                .to_owned(),
        ),
    };
    Letter {
        topic: MailTopic::TeamChanged,
        subject,
        body,
    }
}

/// To a new account's address: the link that shows it works.
pub fn email_verification(base_url: &str, token: &str, days: i64) -> Letter {
    Letter {
        topic: MailTopic::EmailVerification,
        subject: "Confirm your e-mail address".to_owned(),
        body: format!(
            "Please confirm that this address is yours; the link works once, for {days} days:\n\n\
             {base_url}/confirm-email?token={token}\n\n\
             If you did not create an account, ignore this letter.\n"
        ),
    }
}

/// To the new address of a change of sign-in e-mail: the link that makes the change.
pub fn email_change_requested(base_url: &str, token: &str, hours: i64) -> Letter {
    Letter {
        topic: MailTopic::EmailChangeRequested,
        subject: "Confirm your new e-mail address".to_owned(),
        body: format!(
            "Someone (we hope you) asked to sign in with this address from now on. Confirm it \
             with this link, which works once, for {hours} hours:\n\n\
             {base_url}/confirm-email?token={token}\n\n\
             Until then nothing changes. If you did not ask, ignore this letter.\n"
        ),
    }
}

/// To the old address of a change of sign-in e-mail: asked (`done` false) or made.
pub fn email_changed(base_url: &str, new_email: &str, done: bool) -> Letter {
    let (subject, what) = if done {
        (
            "Your sign-in e-mail was changed",
            format!(
                "Your account now signs in with {new_email}; this address gets no more mail about it."
            ),
        )
    } else {
        (
            "A change of your sign-in e-mail was asked for",
            format!(
                "Someone signed in to your account asked to sign in with {new_email} from now on. It changes only once that address confirms."
            ),
        )
    };
    Letter {
        topic: MailTopic::EmailChanged,
        subject: subject.to_owned(),
        body: format!(
            "{what} If this was not you, choose a new password at once and tell us:\n\n\
             {base_url}/forgot-password\n"
        ),
    }
}
