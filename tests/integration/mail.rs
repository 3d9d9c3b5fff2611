//! Mail (issue 54, part 1): a letter is written in the transaction of its event and sent by
//! the mail worker over a real SMTP exchange with the stand-in server of `tests/support`;
//! a mail server that is down delays letters without losing them or failing the request,
//! a permanent refusal fails the letter at once, and without a mail server the development
//! mailbox keeps every letter as a file and on the administrators' Mail page.

use app::model::Role;
use app::model::mail::{MailStatus, MailTopic};
use entity::mail_outbox;
use reqwest::StatusCode;
use sea_orm::{EntityTrait, QueryOrder};
use serde_json::json;
use tests::smtp::SmtpServer;
use tests::{Backend, TestApp, each_backend};

each_backend!(
    a_credited_wire_is_mailed_once_over_smtp,
    a_mail_server_that_is_down_loses_nothing,
    a_refused_mailbox_fails_the_letter_at_once,
    the_development_mailbox_keeps_every_letter,
);

const FROM: &str = "Market <no-reply@market.example>";

async fn with_mail_server(backend: Backend, smtp: &SmtpServer) -> TestApp {
    TestApp::spawn_with(backend, &["--mail-url", &smtp.url(), "--mail-from", FROM]).await
}

/// The outbox, oldest first, without the verification letters registrations write (their own
/// tests are in `email.rs`).
async fn letters(app: &TestApp) -> Vec<mail_outbox::Model> {
    mail_outbox::Entity::find()
        .order_by_asc(mail_outbox::Column::CreatedAt)
        .all(&app.state.ctx.db)
        .await
        .expect("outbox")
        .into_iter()
        .filter(|m| m.topic != MailTopic::EmailVerification)
        .collect()
}

/// What the mail server received, without registrations' verification letters.
fn received(smtp: &SmtpServer) -> Vec<tests::smtp::Mail> {
    smtp.received()
        .into_iter()
        .filter(|m| m.header("Subject").as_deref() != Some("Confirm your e-mail address"))
        .collect()
}

/// A pending advertiser registered through the API: (account id, e-mail).
async fn pending_advertiser(app: &TestApp, email: &str) -> String {
    let (s, reg) = app
        .post("/auth/v1/accounts", None, &json!({"email": email, "password": "long enough pw", "role": "ADVERTISER", "companyName": "Northwind"}))
        .await;
    assert_eq!(s, StatusCode::CREATED, "{reg}");
    reg["accountId"].as_str().expect("id").to_owned()
}

async fn a_credited_wire_is_mailed_once_over_smtp(backend: Backend) {
    let smtp = SmtpServer::start().await;
    let app = with_mail_server(backend, &smtp).await;
    let (user, _) = app.funded_advertiser(250_000_000).await;
    let written = letters(&app).await;
    assert_eq!(written.len(), 1, "{written:?}");
    assert_eq!(
        (written[0].topic, written[0].status),
        (MailTopic::FundingCredited, MailStatus::Pending),
        "written with the credit, sent by the worker"
    );
    assert!(smtp.received().is_empty(), "nothing is sent in the request");

    app.run_workers_once().await;
    let got = smtp.received();
    assert_eq!(got.len(), 1, "{got:?}");
    let mail = &got[0];
    assert_eq!(mail.to, [user.email.clone()]);
    assert_eq!(mail.from, "no-reply@market.example");
    assert_eq!(
        mail.header("Subject").as_deref(),
        Some("250.000000 USD credited to your wallet")
    );
    let id = &written[0].id;
    assert_eq!(
        mail.header("Message-ID"),
        Some(format!("<{id}@market.example>")),
        "a retried letter keeps its id"
    );
    assert!(mail.body().contains("/advertiser/billing"), "{}", mail.data);
    let sent = &letters(&app).await[0];
    assert_eq!((sent.status, sent.attempts), (MailStatus::Sent, 1));
    assert_eq!(sent.sent_at, Some(app.clock_now()));

    // Sent once: another round finds nothing due.
    app.run_workers_once().await;
    assert_eq!(smtp.received().len(), 1);

    // Operators see it; the text stays in the outbox outside the development mailbox.
    let admin = app.admin_token().await;
    let (s, outbox) = app.get("/admin/v1/mail?status=SENT", Some(&admin)).await;
    assert_eq!(s, StatusCode::OK, "{outbox}");
    assert_eq!(outbox["mode"], "SMTP");
    assert_eq!(outbox["sent"], 1);
    assert_eq!(outbox["items"][0]["mailId"], id.as_str());
    assert_eq!(outbox["items"][0]["to"], user.email.as_str());
    assert!(outbox["items"][0]["body"].is_null(), "{outbox}");
    let (s, none) = app.get("/admin/v1/mail?status=FAILED", Some(&admin)).await;
    assert_eq!(
        (s, none["items"].as_array().map(Vec::len)),
        (StatusCode::OK, Some(0))
    );
    let (s, _) = app.get("/admin/v1/mail?status=LOST", Some(&admin)).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
    let (_, advertiser) = app.signed_in(Role::Advertiser).await;
    let (s, err) = app.get("/admin/v1/mail", Some(&advertiser)).await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{err}");
}

async fn a_mail_server_that_is_down_loses_nothing(backend: Backend) {
    let smtp = SmtpServer::start().await;
    let addr = smtp.addr;
    smtp.stop();
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let app = TestApp::spawn_with(
        backend,
        &["--mail-url", &format!("smtp://{addr}"), "--mail-from", FROM],
    )
    .await;
    let account = pending_advertiser(&app, "down@northwind.example").await;
    let admin = app.admin_token().await;
    let (s, approved) = app.approve_advertiser(&admin, &account).await;
    assert_eq!(
        s,
        StatusCode::OK,
        "the request does not wait for mail: {approved}"
    );

    app.run_workers_once().await;
    let waiting = &letters(&app).await[0];
    assert_eq!(waiting.topic, MailTopic::AdvertiserApproved);
    assert_eq!((waiting.status, waiting.attempts), (MailStatus::Pending, 1));
    assert!(
        waiting.last_error.is_some(),
        "the reason is kept for operators"
    );
    assert_eq!(
        waiting.next_attempt_at,
        app.clock_now() + chrono::Duration::minutes(1),
        "retried after the first backoff"
    );
    app.run_workers_once().await;
    assert_eq!(
        letters(&app).await[0].attempts,
        1,
        "not tried before it is due"
    );

    let smtp = SmtpServer::start_on(addr).await;
    app.clock.advance(chrono::Duration::minutes(1));
    app.run_workers_once().await;
    let got = received(&smtp);
    assert_eq!(got.len(), 1, "sent once the server is back: {got:?}");
    assert_eq!(got[0].to, ["down@northwind.example"]);
    assert_eq!(
        got[0].header("Subject").as_deref(),
        Some("Your advertiser account is approved")
    );
    let sent = &letters(&app).await[0];
    assert_eq!((sent.status, sent.attempts), (MailStatus::Sent, 2));
    assert_eq!(sent.last_error, None, "cleared once sent");
}

async fn a_refused_mailbox_fails_the_letter_at_once(backend: Backend) {
    let smtp = SmtpServer::start().await;
    let app = with_mail_server(backend, &smtp).await;
    let account = pending_advertiser(&app, "nobody@refused.example").await;
    let admin = app.admin_token().await;
    assert_eq!(
        app.approve_advertiser(&admin, &account).await.0,
        StatusCode::OK
    );
    app.run_workers_once().await;
    let failed = &letters(&app).await[0];
    assert_eq!((failed.status, failed.attempts), (MailStatus::Failed, 1));
    let why = failed.last_error.clone().unwrap_or_default();
    assert!(why.contains("no such mailbox"), "{why}");
    assert!(received(&smtp).is_empty());
    // A failed letter is not tried again.
    app.clock.advance(chrono::Duration::hours(2));
    app.run_workers_once().await;
    assert_eq!(letters(&app).await[0].attempts, 1);
}

async fn the_development_mailbox_keeps_every_letter(backend: Backend) {
    let app = TestApp::spawn(backend).await;
    app.funded_advertiser(150_000_000).await;
    app.run_workers_once().await;
    let letter = &letters(&app).await[0];
    assert_eq!(letter.status, MailStatus::Sent);
    let file = app
        .state
        .settings
        .data_dir
        .join("mailbox")
        .join(format!("{}.eml", letter.id));
    let eml = std::fs::read_to_string(&file).expect("the letter's file");
    assert!(
        eml.contains("Subject: 150.000000 USD credited to your wallet"),
        "{eml}"
    );

    // The administrators' Mail page shows it in full; nobody else sees the outbox.
    let admin = app.create_user(Role::Admin).await;
    app.browser_sign_in(&app.client, &admin).await;
    let page = app
        .client
        .get(app.url("/admin/mail"))
        .send()
        .await
        .expect("page")
        .text()
        .await
        .expect("html");
    assert!(page.contains("Development mailbox"), "{page}");
    assert!(page.contains(&letter.subject), "{page}");
    assert!(
        page.contains("can be spent now"),
        "the letter itself: {page}"
    );
    let publisher = app.create_user(Role::Publisher).await;
    let client = tests::browser();
    app.browser_sign_in(&client, &publisher).await;
    let res = client
        .post(app.url("/fn/mail_outbox"))
        .header("referer", app.url("/"))
        .form(&[("status", "")])
        .send()
        .await
        .expect("post");
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let body = res.text().await.unwrap_or_default();
    assert!(!body.contains(&letter.subject), "{body}");
}
