//! The operators' view of the outbox: where mail goes, how much waits or failed, and the
//! newest letters.

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect};

use crate::domain::{Ctx, Principal};
use crate::error::AppError;
use crate::model::mail::{MAIL_PAGE_SIZE, MailMode, MailOutbox, MailStatus, MailView};
use entity::mail_outbox;

/// Administrators: the outbox, newest first; `status` narrows the list.
pub async fn outbox(
    ctx: &Ctx,
    actor: &Principal,
    status: Option<MailStatus>,
) -> Result<MailOutbox, AppError> {
    actor.require_admin()?;
    let setup = &ctx.config.mail;
    let counts: Vec<(MailStatus, i64)> = mail_outbox::Entity::find()
        .select_only()
        .column(mail_outbox::Column::Status)
        .column_as(mail_outbox::Column::Id.count(), "n")
        .group_by(mail_outbox::Column::Status)
        .into_tuple()
        .all(&ctx.db)
        .await?;
    let count = |s: MailStatus| {
        counts
            .iter()
            .find(|(k, _)| *k == s)
            .map_or(0, |(_, n)| u64::try_from(*n).unwrap_or(0))
    };
    let mut q = mail_outbox::Entity::find();
    if let Some(s) = status {
        q = q.filter(mail_outbox::Column::Status.eq(s));
    }
    let rows = q
        .order_by_desc(mail_outbox::Column::CreatedAt)
        .order_by_desc(mail_outbox::Column::Id)
        .limit(MAIL_PAGE_SIZE)
        .all(&ctx.db)
        .await?;
    let show_body = setup.mode == MailMode::DevelopmentMailbox;
    Ok(MailOutbox {
        mode: setup.mode,
        mailbox_dir: setup.mailbox_dir.clone(),
        pending: count(MailStatus::Pending),
        failed: count(MailStatus::Failed),
        sent: count(MailStatus::Sent),
        items: rows
            .into_iter()
            .map(|m| MailView {
                body: show_body
                    .then(|| super::outbox::text_of(ctx, &m).ok())
                    .flatten(),
                mail_id: m.id,
                to: m.to_address,
                topic: m.topic,
                subject: m.subject,
                status: m.status,
                attempts: m.attempts,
                next_attempt_at: m.next_attempt_at,
                last_error: m.last_error,
                created_at: m.created_at,
                sent_at: m.sent_at,
            })
            .collect(),
    })
}
