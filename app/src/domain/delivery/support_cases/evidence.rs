//! Evidence on SDK support cases: a screenshot or receipt the user attaches ("here is my
//! order confirmation"). Development only, as the specification says: refused when the
//! service or the session runs in production, so production never stores user files.
//! The type is decided by the file's first bytes, never by the name or declared type.

use sea_orm::{
    ColumnTrait, EntityTrait, FromQueryResult, PaginatorTrait, QueryFilter, QuerySelect, Set,
};
use sha2::{Digest, Sha256};

use crate::domain::idempotency::{IdempotencyKey, Written, insert_or_replay};
use crate::domain::principal::SdkActor;
use crate::domain::{Ctx, Environment, ids::new_id};
use crate::error::AppError;
use crate::model::publisher::ops::{SupportCase, SupportEvidence, SupportStatus};
use entity::{support_case, support_evidence};

/// Largest evidence file (the specification's limit).
pub const MAX_EVIDENCE_BYTES: usize = 5 * 1024 * 1024;
/// Files per case; enough for a receipt and a few screenshots.
pub const MAX_EVIDENCE_PER_CASE: u64 = 5;

/// One uploaded file as it arrived.
pub struct EvidenceUpload {
    pub file_name: Option<String>,
    pub bytes: Vec<u8>,
}

/// Whether this session may upload evidence (also its `capabilities.evidenceUpload`).
pub fn allowed(ctx: &Ctx, s: &SdkActor) -> bool {
    ctx.config.environment != Environment::Production && s.environment != "production"
}

/// 403 `evidence_upload_unavailable` unless [`allowed`]; the route calls it before it reads
/// the body, so production never receives a file.
pub fn ensure_allowed(ctx: &Ctx, s: &SdkActor) -> Result<(), AppError> {
    if allowed(ctx, s) {
        Ok(())
    } else {
        Err(
            AppError::forbidden("evidence upload is not available in production")
                .with_code("evidence_upload_unavailable"),
        )
    }
}

/// The media type of a supported file, from its magic bytes.
pub fn sniff(b: &[u8]) -> Option<&'static str> {
    if b.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("image/png")
    } else if b.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if b.len() >= 12 && &b[..4] == b"RIFF" && &b[8..12] == b"WEBP" {
        Some("image/webp")
    } else if b.starts_with(b"%PDF-") {
        Some("application/pdf")
    } else {
        None
    }
}

/// `POST /sdk/v2/support/{supportCaseId}/evidence`: stores the file with the case (flag
/// true), or returns the file already stored under this Idempotency-Key (flag false).
pub async fn upload(
    ctx: &Ctx,
    s: &SdkActor,
    case_id: &str,
    up: EvidenceUpload,
    key: &IdempotencyKey,
) -> Result<(SupportEvidence, bool), AppError> {
    let key = key.as_str();
    ensure_allowed(ctx, s)?;
    // Someone else's case is "not found", so case ids cannot be probed.
    let case = support_case::Entity::find_by_id(case_id.to_owned())
        .one(&ctx.db)
        .await?
        .filter(|c| c.placement_id == s.placement_id && c.external_user_id == s.external_user_id)
        .ok_or_else(|| AppError::not_found("support case"))?;
    if up.bytes.len() > MAX_EVIDENCE_BYTES {
        return Err(AppError::payload_too_large(MAX_EVIDENCE_BYTES));
    }
    let sha = hex::encode(Sha256::digest(&up.bytes));
    if let Some(prior) = by_key(ctx, case_id, key).await? {
        if prior.sha256 != sha {
            return Err(AppError::conflict(
                "this Idempotency-Key was already used for another file",
            )
            .with_code("idempotency_key_reused"));
        }
        return Ok((view(&prior, true), false));
    }
    if up.bytes.is_empty() {
        return Err(AppError::field("evidence", "is empty"));
    }
    let content_type = sniff(&up.bytes).ok_or_else(|| {
        AppError::new(
            415,
            "unsupported_media_type",
            "evidence must be a PNG, JPEG, GIF or WebP image or a PDF",
        )
    })?;
    let closed = matches!(
        case.status,
        SupportStatus::Resolved | SupportStatus::Rejected
    );
    if closed {
        return Err(
            AppError::conflict("the support case is closed").with_code("support_case_closed")
        );
    }
    let count = support_evidence::Entity::find()
        .filter(support_evidence::Column::SupportCaseId.eq(case_id.to_owned()))
        .count(&ctx.db)
        .await?;
    if count >= MAX_EVIDENCE_PER_CASE {
        return Err(AppError::conflict(format!(
            "a case holds at most {MAX_EVIDENCE_PER_CASE} evidence files"
        ))
        .with_code("evidence_limit_reached"));
    }
    let row = support_evidence::ActiveModel {
        id: Set(new_id("evd")),
        support_case_id: Set(case.id.clone()),
        placement_id: Set(case.placement_id.clone()),
        external_user_id: Set(case.external_user_id.clone()),
        file_name: Set(clean_name(up.file_name.as_deref())),
        content_type: Set(content_type.to_owned()),
        byte_size: Set(i64::try_from(up.bytes.len()).unwrap_or(i64::MAX)),
        sha256: Set(sha),
        content: Set(up.bytes),
        idempotency_key: Set(key.to_owned()),
        created_at: Set(ctx.now()),
    };
    match insert_or_replay(&ctx.db, row, || by_key(ctx, case_id, key)).await? {
        Written::New(row) => Ok((view(&row, false), true)),
        // Lost a race with a retry carrying the same key: answer with the winner.
        Written::Replay(prior) => Ok((view(&prior, true), false)),
    }
}

/// Fills `evidence` on a page of cases with one query (content not loaded).
pub async fn attach<C: sea_orm::ConnectionTrait>(
    db: &C,
    cases: &mut [SupportCase],
) -> Result<(), AppError> {
    if cases.is_empty() {
        return Ok(());
    }
    let ids: Vec<String> = cases.iter().map(|c| c.support_case_id.clone()).collect();
    let rows = support_evidence::Entity::find()
        .select_only()
        .columns(META)
        .filter(support_evidence::Column::SupportCaseId.is_in(ids))
        .into_model::<EvidenceMeta>()
        .all(db)
        .await?;
    for r in rows {
        if let Some(c) = cases
            .iter_mut()
            .find(|c| c.support_case_id == r.support_case_id)
        {
            c.evidence.push(meta_view(r));
        }
    }
    for c in cases.iter_mut() {
        c.evidence.sort_by(|a, b| a.created_at.cmp(&b.created_at));
    }
    Ok(())
}

/// The file of one evidence entry (media type, bytes), for the publisher who owns the
/// case's placement. The uploaded file name is display text only, never a download name.
pub async fn content(
    ctx: &Ctx,
    actor: &crate::domain::Principal,
    case_id: &str,
    evidence_id: &str,
) -> Result<(String, Vec<u8>), AppError> {
    actor.require_publisher()?;
    let row = support_evidence::Entity::find_by_id(evidence_id.to_owned())
        .one(&ctx.db)
        .await?
        .filter(|r| r.support_case_id == case_id)
        .ok_or_else(|| AppError::not_found("evidence"))?;
    let p = entity::placement::Entity::find_by_id(row.placement_id.clone())
        .one(&ctx.db)
        .await?
        .ok_or_else(|| AppError::not_found("evidence"))?;
    actor.require_owner(&p.owner_account_id, "evidence")?;
    Ok((row.content_type, row.content))
}

async fn by_key(
    ctx: &Ctx,
    case_id: &str,
    key: &str,
) -> Result<Option<support_evidence::Model>, AppError> {
    Ok(support_evidence::Entity::find()
        .filter(support_evidence::Column::SupportCaseId.eq(case_id.to_owned()))
        .filter(support_evidence::Column::IdempotencyKey.eq(key.to_owned()))
        .one(&ctx.db)
        .await?)
}

/// A display name: the last path segment, printable, at most 120 characters.
fn clean_name(name: Option<&str>) -> Option<String> {
    let n = name?.rsplit(['/', '\\']).next()?.trim();
    let n: String = n.chars().filter(|c| !c.is_control()).take(120).collect();
    Some(n).filter(|n| !n.is_empty())
}

fn view(r: &support_evidence::Model, duplicate: bool) -> SupportEvidence {
    SupportEvidence {
        evidence_id: r.id.clone(),
        support_case_id: r.support_case_id.clone(),
        file_name: r.file_name.clone(),
        content_type: r.content_type.clone(),
        byte_size: r.byte_size,
        sha256: r.sha256.clone(),
        created_at: r.created_at,
        duplicate,
    }
}

const META: [support_evidence::Column; 7] = [
    support_evidence::Column::Id,
    support_evidence::Column::SupportCaseId,
    support_evidence::Column::FileName,
    support_evidence::Column::ContentType,
    support_evidence::Column::ByteSize,
    support_evidence::Column::Sha256,
    support_evidence::Column::CreatedAt,
];

/// An evidence row without its bytes.
#[derive(FromQueryResult)]
struct EvidenceMeta {
    id: String,
    support_case_id: String,
    file_name: Option<String>,
    content_type: String,
    byte_size: i64,
    sha256: String,
    created_at: chrono::DateTime<chrono::Utc>,
}

fn meta_view(r: EvidenceMeta) -> SupportEvidence {
    SupportEvidence {
        evidence_id: r.id,
        support_case_id: r.support_case_id,
        file_name: r.file_name,
        content_type: r.content_type,
        byte_size: r.byte_size,
        sha256: r.sha256,
        created_at: r.created_at,
        duplicate: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_come_from_the_content() {
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n...."), Some("image/png"));
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xE0]), Some("image/jpeg"));
        assert_eq!(sniff(b"GIF89a.."), Some("image/gif"));
        assert_eq!(sniff(b"RIFF\0\0\0\0WEBPVP8 "), Some("image/webp"));
        assert_eq!(sniff(b"%PDF-1.7"), Some("application/pdf"));
        assert_eq!(sniff(b"<html><script>"), None);
        assert_eq!(sniff(b"MZ\x90\0"), None);
        assert_eq!(sniff(b""), None);
    }

    #[test]
    fn names_are_cleaned() {
        assert_eq!(
            clean_name(Some("C:\\Users\\me\\receipt.png")).as_deref(),
            Some("receipt.png")
        );
        assert_eq!(
            clean_name(Some("../../etc/passwd")).as_deref(),
            Some("passwd")
        );
        assert_eq!(clean_name(Some("  ")), None);
        assert_eq!(clean_name(None), None);
    }
}
