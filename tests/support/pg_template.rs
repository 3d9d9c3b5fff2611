//! One migrated PostgreSQL database per test build, copied for every test: `CREATE DATABASE
//! … TEMPLATE` copies a few megabytes of files in milliseconds, where applying every
//! migration to each new database took most of a PostgreSQL test's start (issue 52, item 13).
//!
//! The template's name carries a fingerprint of the migrations and of the test binary, so a
//! changed migration (even one edited under the same name) gets a new template. It is built
//! under a temporary name and renamed when complete, so a process that finds the final name
//! finds a finished template; templates of other builds are dropped when a new one is made.

use std::hash::{DefaultHasher, Hash, Hasher};

use sea_orm::{ConnectionTrait, Database, Statement};
use sea_orm_migration::MigratorTrait;
use tokio::sync::OnceCell;

use crate::postgres_admin_url;

const PREFIX: &str = "t_tpl_";

/// The URL of database `name` on the tests' PostgreSQL server.
pub fn url_of(name: &str) -> String {
    let base = postgres_admin_url();
    match base.rsplit_once('/') {
        Some((server, _)) => format!("{server}/{name}"),
        None => base,
    }
}

/// The name of the migrated template, made once per test process (and found, not made
/// again, by the next process of the same build).
pub async fn migrated() -> &'static str {
    static TEMPLATE: OnceCell<String> = OnceCell::const_new();
    TEMPLATE.get_or_init(build).await
}

/// Which migrations, and which build of the tests: a rebuilt test binary may carry an
/// edited migration under an old name.
fn fingerprint() -> String {
    let mut h = DefaultHasher::new();
    for m in migration::Migrator::migrations() {
        m.name().hash(&mut h);
    }
    let built = std::env::current_exe()
        .and_then(|exe| exe.metadata())
        .and_then(|meta| meta.modified())
        .ok();
    built.hash(&mut h);
    format!("{:016x}", h.finish())
}

async fn build() -> String {
    let name = format!("{PREFIX}{}", fingerprint());
    let admin = Database::connect(postgres_admin_url())
        .await
        .expect("PostgreSQL must be running for the PostgreSQL leg (see README)");
    let exists = |db: String| {
        Statement::from_sql_and_values(
            admin.get_database_backend(),
            "SELECT datname FROM pg_database WHERE datname = $1",
            [db.into()],
        )
    };
    let found = admin.query_one_raw(exists(name.clone())).await;
    if found.ok().flatten().is_some() {
        let _ = admin.close().await;
        return name;
    }
    let building = format!("{name}_{}", uuid::Uuid::new_v4().simple());
    admin
        .execute_unprepared(&format!("CREATE DATABASE \"{building}\""))
        .await
        .expect("create the template database");
    let db = Database::connect(url_of(&building))
        .await
        .expect("connect to the template database");
    migration::Migrator::up(&db, None)
        .await
        .expect("migrate the template database");
    let _ = db.close().await;
    let renamed = admin
        .execute_unprepared(&format!(
            "ALTER DATABASE \"{building}\" RENAME TO \"{name}\""
        ))
        .await;
    if renamed.is_err() {
        // Another process of this build finished first: use its template.
        let _ = admin
            .execute_unprepared(&format!(
                "DROP DATABASE IF EXISTS \"{building}\" WITH (FORCE)"
            ))
            .await;
    }
    // Templates of earlier builds (and ones a killed process left half-built) go; one in use
    // by a process of another build cannot be dropped, and is left for the next build.
    let stale = Statement::from_sql_and_values(
        admin.get_database_backend(),
        "SELECT datname FROM pg_database WHERE datname LIKE $1 AND datname NOT LIKE $2",
        [format!("{PREFIX}%").into(), format!("{name}%").into()],
    );
    for row in admin.query_all_raw(stale).await.unwrap_or_default() {
        if let Ok(old) = row.try_get::<String>("", "datname") {
            let _ = admin
                .execute_unprepared(&format!("DROP DATABASE IF EXISTS \"{old}\""))
                .await;
        }
    }
    let _ = admin.close().await;
    name
}
