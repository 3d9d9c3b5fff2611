//! tower-sessions store on our own SeaORM table, so browser sessions live in the same
//! database as everything else (and survive restarts) with one migration set. Like every
//! other bearer secret, the session id (the cookie value) is stored only as its SHA-256:
//! a copy of the table does not sign anyone in.

use async_trait::async_trait;
use sea_orm::sea_query::OnConflict;
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, Set};
use tower_sessions::session::{Id, Record};
use tower_sessions::session_store::{self, SessionStore};

use entity::web_session;

#[derive(Clone)]
pub struct DbSessionStore {
    db: DatabaseConnection,
}

impl std::fmt::Debug for DbSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DbSessionStore")
    }
}

impl DbSessionStore {
    pub fn new(db: DatabaseConnection) -> Self {
        Self { db }
    }

    /// Deletes sessions that expired before `now` (run by the sweep worker).
    pub async fn delete_expired(
        &self,
        now: chrono::DateTime<chrono::Utc>,
    ) -> Result<u64, sea_orm::DbErr> {
        let res = web_session::Entity::delete_many()
            .filter(web_session::Column::ExpiresAt.lt(now))
            .exec(&self.db)
            .await?;
        Ok(res.rows_affected)
    }
}

fn backend(e: sea_orm::DbErr) -> session_store::Error {
    // An outage is noted, so the page and server-function layers answer 503, not 500.
    if app::domain::db::is_unavailable(&e) {
        app::domain::db::note_unavailable();
    }
    session_store::Error::Backend(e.to_string())
}

/// The row key of a session id.
fn row_id(id: &Id) -> String {
    app::domain::crypto::sha256_hex(&id.to_string())
}

/// What is stored of a record: everything but its id.
#[derive(serde::Serialize, serde::Deserialize)]
struct Stored {
    data: std::collections::HashMap<String, serde_json::Value>,
    expiry_date: time::OffsetDateTime,
}

fn encode(record: &Record) -> session_store::Result<String> {
    serde_json::to_string(&Stored {
        data: record.data.clone(),
        expiry_date: record.expiry_date,
    })
    .map_err(|e| session_store::Error::Encode(e.to_string()))
}

/// The record stored by [`encode`], given back its id.
fn decode(id: &Id, data: &str) -> session_store::Result<Record> {
    let stored: Stored =
        serde_json::from_str(data).map_err(|e| session_store::Error::Decode(e.to_string()))?;
    Ok(Record {
        id: *id,
        data: stored.data,
        expiry_date: stored.expiry_date,
    })
}

/// The signed-in account a record names.
fn account_of(record: &Record) -> Option<String> {
    record
        .data
        .get(app::domain::accounts::sessions::ACCOUNT_KEY)
        .and_then(|v| v.as_str())
        .map(str::to_owned)
}

fn expiry(record: &Record) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp(record.expiry_date.unix_timestamp(), 0).unwrap_or_default()
}

#[async_trait]
impl SessionStore for DbSessionStore {
    /// Inserts a new record; on the (astronomically unlikely) id collision, draws a new id.
    async fn create(&self, record: &mut Record) -> session_store::Result<()> {
        loop {
            let data = encode(record)?;
            let row = web_session::ActiveModel {
                id: Set(row_id(&record.id)),
                data: Set(data),
                expires_at: Set(expiry(record)),
                account_id: Set(account_of(record)),
            };
            match web_session::Entity::insert(row).exec(&self.db).await {
                Ok(_) => return Ok(()),
                Err(e)
                    if matches!(
                        e.sql_err(),
                        Some(sea_orm::SqlErr::UniqueConstraintViolation(_))
                    ) =>
                {
                    record.id = Id::default();
                }
                Err(e) => return Err(backend(e)),
            }
        }
    }

    async fn save(&self, record: &Record) -> session_store::Result<()> {
        let data = encode(record)?;
        let row = web_session::ActiveModel {
            id: Set(row_id(&record.id)),
            data: Set(data),
            expires_at: Set(expiry(record)),
            account_id: Set(account_of(record)),
        };
        web_session::Entity::insert(row)
            .on_conflict(
                OnConflict::column(web_session::Column::Id)
                    .update_columns([
                        web_session::Column::Data,
                        web_session::Column::ExpiresAt,
                        web_session::Column::AccountId,
                    ])
                    .to_owned(),
            )
            .exec(&self.db)
            .await
            .map_err(backend)?;
        Ok(())
    }

    async fn load(&self, id: &Id) -> session_store::Result<Option<Record>> {
        let Some(row) = web_session::Entity::find_by_id(row_id(id))
            .one(&self.db)
            .await
            .map_err(backend)?
        else {
            return Ok(None);
        };
        if row.expires_at <= chrono::Utc::now() {
            return Ok(None);
        }
        decode(id, &row.data).map(Some)
    }

    async fn delete(&self, id: &Id) -> session_store::Result<()> {
        web_session::Entity::delete_by_id(row_id(id))
            .exec(&self.db)
            .await
            .map_err(backend)?;
        Ok(())
    }
}
