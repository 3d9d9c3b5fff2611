//! The mail settings: `APP_MAIL_URL` and `APP_MAIL_FROM`.

use lettre::message::Mailbox;
use lettre::{AsyncSmtpTransport, Tokio1Executor};

/// `APP_MAIL_URL`: an SMTP URL or `off`. Its `Debug` never shows the URL, which carries the
/// mail server's password.
#[derive(Clone, PartialEq, Eq)]
pub enum MailUrl {
    Smtp(String),
    Off,
}

impl std::fmt::Debug for MailUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MailUrl::Smtp(_) => f.write_str("Smtp(<hidden>)"),
            MailUrl::Off => f.write_str("Off"),
        }
    }
}

impl MailUrl {
    /// Whether the URL sends in the clear (`smtp://` without `tls=required`), which only a
    /// relay on this machine may do.
    pub fn unencrypted_remote(&self) -> bool {
        let MailUrl::Smtp(raw) = self else {
            return false;
        };
        let Ok(url) = url::Url::parse(raw) else {
            return true;
        };
        let tls_required = url.scheme() == "smtps"
            || url
                .query_pairs()
                .any(|(k, v)| k == "tls" && v == "required");
        let host = url.host_str().unwrap_or_default().trim_matches(['[', ']']);
        let local = host.eq_ignore_ascii_case("localhost")
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        !tls_required && !local
    }
}

/// Reads `APP_MAIL_URL`: `off`, or a URL the SMTP transport accepts (`smtp://`, `smtps://`).
pub fn parse_mail_url(raw: &str) -> Result<MailUrl, String> {
    let raw = raw.trim();
    if raw.eq_ignore_ascii_case("off") {
        return Ok(MailUrl::Off);
    }
    // The error would quote the URL, password and all: name the shape instead.
    AsyncSmtpTransport::<Tokio1Executor>::from_url(raw).map_err(|_| {
        "must be `off` or smtp://user:password@host:port?tls=required, \
         smtps://user:password@host:port or smtp://localhost:25"
            .to_owned()
    })?;
    Ok(MailUrl::Smtp(raw.to_owned()))
}

/// Reads `APP_MAIL_FROM`: `Name <address>` or an address.
pub fn parse_mailbox(raw: &str) -> Result<Mailbox, String> {
    raw.trim()
        .parse::<Mailbox>()
        .map_err(|e| format!("`{raw}` is not a mail address ({e})"))
}
