//! Test databases: a PostgreSQL database that is dropped when its test ends, and an empty
//! database (no migration run) for tests of the schema itself.

use sea_orm::{ConnectionTrait, Database};

use crate::{Backend, pg_template, postgres_admin_url};

/// Drops a test's PostgreSQL database when the test ends, even when it panicked.
pub(crate) struct PgDatabase {
    pub(crate) name: String,
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        let name = self.name.clone();
        // Drop runs inside the test's runtime; do the async work on a thread of its own.
        let _ = std::thread::spawn(move || {
            let Ok(rt) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            rt.block_on(async {
                if let Ok(db) = Database::connect(postgres_admin_url()).await {
                    let _ = db
                        .execute_unprepared(&format!(
                            "DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"
                        ))
                        .await;
                    let _ = db.close().await;
                }
            });
        })
        .join();
    }
}

/// An empty database and what removes it when the test ends.
pub struct EmptyDatabase {
    pub url: String,
    _dir: tempfile::TempDir,
    _pg: Option<PgDatabase>,
}

/// A database with no table in it: a SQLite file in a temporary folder, or a new
/// PostgreSQL database (not from the migrated template).
pub async fn empty_database(backend: Backend) -> EmptyDatabase {
    let dir = tempfile::tempdir().expect("temp dir");
    let (url, pg) = match backend {
        Backend::Sqlite => (
            format!(
                "sqlite://{}?mode=rwc",
                dir.path().join("empty.db").display()
            ),
            None,
        ),
        Backend::Postgres => {
            let name = format!("t_{}", uuid::Uuid::new_v4().simple());
            let admin = Database::connect(postgres_admin_url())
                .await
                .expect("PostgreSQL must be running for the PostgreSQL leg (see README)");
            admin
                .execute_unprepared(&format!("CREATE DATABASE \"{name}\""))
                .await
                .expect("create test database");
            let _ = admin.close().await;
            (pg_template::url_of(&name), Some(PgDatabase { name }))
        }
    };
    EmptyDatabase {
        url,
        _dir: dir,
        _pg: pg,
    }
}
