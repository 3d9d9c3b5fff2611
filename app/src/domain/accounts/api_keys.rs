//! API keys for the dashboard API (issue 54, part 5). A key is named, granted read or write
//! per area ([`KeyArea`]), revocable and optionally expiring; it is shown once and only its
//! SHA-256 is kept. Each request looks the key up in the database (as bearer tokens are), so
//! a revocation holds at once in every process. The route decides what it asks of a key
//! ([`KeyUse`]): routes that manage accounts, keys or tokens accept no key at all.

use chrono::Duration;
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};

use crate::domain::{Ctx, Principal, crypto, db, ids::new_id, mail};
use crate::error::{AppError, FieldErrors};
use crate::model::AccountStatus;
use crate::model::api_key::{
    ApiKeyCreate, ApiKeyIssued, ApiKeyList, ApiKeyView, KeyAccess, KeyArea,
};
use crate::model::validate;
use entity::api_key;

/// Prefix of every API key (`mkt_key_…`), so secret scanners can recognise a leaked one.
pub const KEY_PREFIX: &str = "mkt_key";
/// Active keys one account may hold; an integration needs a handful, not hundreds.
pub const MAX_ACTIVE_KEYS: u64 = 25;
/// The longest expiry a key may be given, in days.
pub const MAX_EXPIRY_DAYS: u32 = 730;
/// `last_used_at` is written at most this often per key: a write per call would cost every
/// request of an integration that polls.
const LAST_USED_STEP: Duration = Duration::seconds(60);
/// Revoked keys stay in the list this long, so a person sees what was revoked.
const REVOKED_SHOWN_DAYS: i64 = 30;
/// Revoked keys listed at most.
const REVOKED_LISTED: u64 = 100;

/// What a route asks of an API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyUse {
    /// No key is accepted (account, token and key management): sign in for a token.
    Closed,
    /// Any key of the account (who am I).
    Any,
    /// A grant in `area`: `write` for anything but reading.
    Area { area: KeyArea, write: bool },
}

/// The grants of a key, one per area, in [`KeyArea::ALL`]'s order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scopes(Vec<(KeyArea, KeyAccess)>);

impl Scopes {
    /// Parses `area:access` grants, refusing unknown areas or accesses, areas the role may
    /// not grant, and an empty list. A repeated area keeps its widest access.
    pub fn parse(raw: &[String], allowed: &[KeyArea]) -> Result<Scopes, String> {
        if raw.is_empty() {
            return Err("grant at least one area, e.g. \"placements:read\"".to_owned());
        }
        if raw.len() > 2 * KeyArea::ALL.len() {
            return Err("too many grants".to_owned());
        }
        let mut grants: Vec<(KeyArea, KeyAccess)> = Vec::new();
        for s in raw {
            let (area, access) = s
                .split_once(':')
                .ok_or_else(|| format!("\"{}\" is not of the form area:access", clip(s)))?;
            let area =
                KeyArea::parse(area).ok_or_else(|| format!("\"{}\" is not an area", clip(area)))?;
            let access = KeyAccess::parse(access)
                .ok_or_else(|| format!("\"{}\" is not read or write", clip(access)))?;
            if !allowed.contains(&area) {
                return Err(format!("this account cannot grant \"{}\"", area.as_str()));
            }
            match grants.iter_mut().find(|(a, _)| *a == area) {
                Some(g) if access == KeyAccess::Write => g.1 = KeyAccess::Write,
                Some(_) => {}
                None => grants.push((area, access)),
            }
        }
        grants.sort_by_key(|(a, _)| KeyArea::ALL.iter().position(|x| x == a));
        Ok(Scopes(grants))
    }

    /// Reads the stored form (space-separated); an unknown grant is dropped, never widened.
    pub fn stored(text: &str) -> Scopes {
        Scopes(
            text.split_whitespace()
                .filter_map(|g| {
                    let (a, x) = g.split_once(':')?;
                    Some((KeyArea::parse(a)?, KeyAccess::parse(x)?))
                })
                .collect(),
        )
    }

    /// Whether these grants allow `need`.
    pub fn allow(&self, need: KeyUse) -> bool {
        match need {
            KeyUse::Closed => false,
            KeyUse::Any => true,
            KeyUse::Area { area, write } => self
                .0
                .iter()
                .any(|(a, x)| *a == area && (!write || *x == KeyAccess::Write)),
        }
    }

    /// The areas granted `write`.
    pub fn written(&self) -> impl Iterator<Item = KeyArea> + '_ {
        self.0
            .iter()
            .filter(|(_, x)| *x == KeyAccess::Write)
            .map(|(a, _)| *a)
    }

    /// `area:access` strings, as the API shows them.
    pub fn names(&self) -> Vec<String> {
        self.0
            .iter()
            .map(|(a, x)| format!("{}:{}", a.as_str(), x.as_str()))
            .collect()
    }
}

/// A user's text, shortened for an error message (the answer stays bounded).
fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

/// Issues a key for the signed-in account; the key is in the answer and nowhere else. The
/// owner is told by mail, so a key made by someone else with the password does not go unseen.
/// An account with a second factor confirms with a code (`second_factor`) first.
pub async fn create(
    ctx: &Ctx,
    actor: &Principal,
    req: &ApiKeyCreate,
    second_factor: Option<&str>,
) -> Result<ApiKeyIssued, AppError> {
    super::teams::require_key_keeper(actor)?;
    let mut errs = FieldErrors::new();
    let name = errs.check("name", validate::display_name(&req.name, 80));
    let scopes = errs.check(
        "scopes",
        Scopes::parse(&req.scopes, KeyArea::of_role(actor.role)),
    );
    if req
        .expires_in_days
        .is_some_and(|d| d == 0 || d > MAX_EXPIRY_DAYS)
    {
        errs.add(
            "expiresInDays",
            format!("must be between 1 and {MAX_EXPIRY_DAYS}"),
        );
    }
    errs.finish()?;
    let (Some(name), Some(scopes)) = (name, scopes) else {
        return Err(AppError::invalid("invalid API key"));
    };
    // A key never reaches further than its maker's role (and is asked that role again on
    // every use, so a lowered role lowers the key too).
    if let Some(area) = scopes
        .written()
        .find(|a| !crate::model::team::role_writes(actor.team_role, *a))
    {
        return Err(super::teams::refusal(
            actor,
            &format!("grant \"{}:write\"", area.as_str()),
        ));
    }
    super::second_factor::step_up(ctx, actor, second_factor).await?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    // The account's row is locked for the count, so two creations at 24 keys cannot both
    // pass on PostgreSQL (SQLite's immediate transactions already take turns).
    entity::account::Entity::find_by_id(actor.person_id.clone())
        .lock_exclusive()
        .one(&txn)
        .await?;
    let active = api_key::Entity::find()
        .filter(api_key::Column::AccountId.eq(actor.person_id.clone()))
        .filter(api_key::Column::RevokedAt.is_null())
        .count(&txn)
        .await?;
    if active >= MAX_ACTIVE_KEYS {
        return Err(AppError::conflict(format!(
            "an account may hold {MAX_ACTIVE_KEYS} active keys; revoke one first"
        ))
        .with_code("too_many_keys"));
    }
    let key = crypto::random_token(KEY_PREFIX);
    let row = api_key::ActiveModel {
        id: Set(new_id("key")),
        account_id: Set(actor.person_id.clone()),
        name: Set(name),
        key_prefix: Set(key.chars().take(KEY_PREFIX.len() + 5).collect()),
        key_hash: Set(crypto::sha256_hex(&key)),
        scopes: Set(scopes.names().join(" ")),
        created_at: Set(now),
        expires_at: Set(req
            .expires_in_days
            .map(|d| now + Duration::days(i64::from(d)))),
        last_used_at: Set(None),
        revoked_at: Set(None),
    }
    .insert(&txn)
    .await?;
    let detail =
        serde_json::json!({"name": row.name, "prefix": row.key_prefix, "scopes": scopes.names()});
    let letter = mail::letters::api_key_created(&ctx.config.base_url, &row.name, &row.key_prefix);
    let subject = ("api_key", row.id.as_str());
    super::audit_and_tell(ctx, &txn, actor, "api_key.create", subject, detail, letter).await?;
    txn.commit().await?;
    Ok(ApiKeyIssued {
        key,
        api_key: view(&row),
    })
}

/// The account's keys: every active one (25 at most), newest first, then the 100 most
/// recently revoked of the last 30 days. Revoked keys never push an active one out of the
/// list, so every key that works can be found and revoked.
pub async fn list(ctx: &Ctx, actor: &Principal) -> Result<ApiKeyList, AppError> {
    let since = ctx.now() - Duration::days(REVOKED_SHOWN_DAYS);
    let mine =
        || api_key::Entity::find().filter(api_key::Column::AccountId.eq(actor.person_id.clone()));
    let mut rows = mine()
        .filter(api_key::Column::RevokedAt.is_null())
        .order_by_desc(api_key::Column::CreatedAt)
        .order_by_desc(api_key::Column::Id)
        .all(&ctx.db)
        .await?;
    rows.extend(
        mine()
            .filter(api_key::Column::RevokedAt.gt(since))
            .order_by_desc(api_key::Column::RevokedAt)
            .limit(REVOKED_LISTED)
            .all(&ctx.db)
            .await?,
    );
    Ok(ApiKeyList {
        count: rows.len(),
        items: rows.iter().map(view).collect(),
    })
}

/// Revokes one of the account's keys (another account's key is `404`, as if missing).
/// Revoking a revoked key changes nothing.
pub async fn revoke(ctx: &Ctx, actor: &Principal, id: &str) -> Result<(), AppError> {
    let row = api_key::Entity::find_by_id(id.to_owned())
        .one(&ctx.db)
        .await?
        .filter(|k| k.account_id == actor.person_id)
        .ok_or_else(|| AppError::not_found("API key"))?;
    let now = ctx.now();
    let txn = db::begin(&ctx.db).await?;
    // Guarded: of two revocations at once one writes (and is audited), the other is a no-op.
    let done = api_key::Entity::update_many()
        .col_expr(api_key::Column::RevokedAt, Expr::value(Some(now)))
        .filter(api_key::Column::Id.eq(row.id.clone()))
        .filter(api_key::Column::RevokedAt.is_null())
        .exec(&txn)
        .await?;
    if done.rows_affected == 0 {
        return Ok(());
    }
    actor
        .audit(
            &txn,
            now,
            "api_key.revoke",
            ("api_key", &row.id),
            serde_json::json!({"name": row.name, "prefix": row.key_prefix}),
        )
        .await?;
    txn.commit().await?;
    Ok(())
}

/// The account behind an API key, if the key is live and its grants allow `need`: `401`
/// for an unknown, revoked or expired key, `403 insufficient_scope` for a grant it lacks.
pub async fn resolve(ctx: &Ctx, key: &str, need: KeyUse) -> Result<Principal, AppError> {
    let unauthorized = || AppError::unauthorized("missing, expired or revoked API key");
    let hash = crypto::sha256_hex(key);
    let row = api_key::Entity::find()
        .filter(api_key::Column::KeyHash.eq(hash.clone()))
        .one(&ctx.db)
        .await?
        .ok_or_else(unauthorized)?;
    if !crypto::constant_time_eq(row.key_hash.as_bytes(), hash.as_bytes()) {
        return Err(unauthorized());
    }
    let now = ctx.now();
    if row.revoked_at.is_some() || row.expires_at.is_some_and(|e| e <= now) {
        return Err(unauthorized());
    }
    if !Scopes::stored(&row.scopes).allow(need) {
        return Err(refusal(need));
    }
    let acc = super::get(ctx, &row.account_id)
        .await
        .map_err(|_| unauthorized())?;
    let p = super::principal_of(ctx, &acc)
        .await
        .map_err(|_| unauthorized())?;
    if p.status == AccountStatus::Disabled {
        return Err(AppError::forbidden("this account is disabled"));
    }
    if row.last_used_at.is_none_or(|t| t + LAST_USED_STEP <= now) {
        touch(ctx, &row.id, now).await?;
    }
    Ok(p)
}

/// Why a key was refused a route.
fn refusal(need: KeyUse) -> AppError {
    let message = match need {
        KeyUse::Area { area, write } => format!(
            "this API key is not granted \"{}:{}\"",
            area.as_str(),
            if write { "write" } else { "read" }
        ),
        _ => "API keys are not accepted here: sign in for a dashboard token".to_owned(),
    };
    AppError::forbidden(message).with_code("insufficient_scope")
}

/// Records the use, unless another request of this minute already did (the guard makes
/// concurrent requests write once).
async fn touch(ctx: &Ctx, id: &str, now: chrono::DateTime<chrono::Utc>) -> Result<(), AppError> {
    api_key::Entity::update_many()
        .col_expr(api_key::Column::LastUsedAt, Expr::value(Some(now)))
        .filter(api_key::Column::Id.eq(id.to_owned()))
        .filter(
            Expr::col(api_key::Column::LastUsedAt)
                .is_null()
                .or(Expr::col(api_key::Column::LastUsedAt).lte(now - LAST_USED_STEP)),
        )
        .exec(&ctx.db)
        .await?;
    Ok(())
}

fn view(k: &api_key::Model) -> ApiKeyView {
    ApiKeyView {
        id: k.id.clone(),
        name: k.name.clone(),
        prefix: k.key_prefix.clone(),
        scopes: Scopes::stored(&k.scopes).names(),
        created_at: k.created_at,
        expires_at: k.expires_at,
        last_used_at: k.last_used_at,
        revoked_at: k.revoked_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grants(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn write_includes_read_and_nothing_else() {
        let s = Scopes::parse(
            &grants(&["earnings:write", "placements:read"]),
            KeyArea::ALL,
        )
        .unwrap();
        let need = |area, write| KeyUse::Area { area, write };
        assert!(s.allow(need(KeyArea::Earnings, true)));
        assert!(s.allow(need(KeyArea::Earnings, false)));
        assert!(s.allow(need(KeyArea::Placements, false)));
        assert!(!s.allow(need(KeyArea::Placements, true)));
        assert!(!s.allow(need(KeyArea::Callbacks, false)));
        assert!(!s.allow(KeyUse::Closed));
        assert!(s.allow(KeyUse::Any));
        assert_eq!(s.names(), ["placements:read", "earnings:write"]);
        assert_eq!(Scopes::stored(&s.names().join(" ")), s);
    }

    #[test]
    fn a_repeated_area_keeps_its_widest_access() {
        let s = Scopes::parse(&grants(&["billing:write", "billing:read"]), KeyArea::ALL).unwrap();
        assert_eq!(s.names(), ["billing:write"]);
    }

    #[test]
    fn refuses_what_the_role_cannot_grant_and_malformed_grants() {
        let publisher = KeyArea::of_role(crate::model::Role::Publisher);
        assert!(Scopes::parse(&grants(&["billing:read"]), publisher).is_err());
        assert!(Scopes::parse(&grants(&["admin:read"]), publisher).is_err());
        assert!(Scopes::parse(&grants(&["placements"]), publisher).is_err());
        assert!(Scopes::parse(&grants(&["placements:delete"]), publisher).is_err());
        assert!(Scopes::parse(&[], publisher).is_err());
        assert!(Scopes::parse(&grants(&["placements:read"]), publisher).is_ok());
    }

    #[test]
    fn an_unknown_stored_grant_is_dropped_not_widened() {
        let s = Scopes::stored("placements:read bogus:write callbacks:admin");
        assert_eq!(s.names(), ["placements:read"]);
    }
}
